//! Keys while a request waits: the tool and plan approval panels (APPR-6,
//! APPR-7, PLAN-10) and the question panel (ASK-6).

use super::{page, scroll_page};
use crate::runtime::protocol::{Op, PermissionReply, RequestKind};
use crate::tools::ask_user_question::AskUserQuestionInput;
use crate::tui::keys::{Action, action};
use crate::tui::model::{ApprovalOption, Model, approval_options};
use crate::tui::msg::Cmd;
use crate::tui::widgets::question_panel::QuestionPanel;
use crossterm::event::KeyEvent;

/// Makes sure a question at the head of the queue has its panel (ASK-6);
/// false when the head is not a question (or its input cannot be read, in
/// which case the plain approval panel lets the user reject it).
pub(super) fn ensure_question_panel(model: &mut Model) -> bool {
    let Some(request) = model.approvals.front() else {
        model.question = None;
        return false;
    };
    if request.kind != RequestKind::Question {
        return false;
    }
    if model
        .question
        .as_ref()
        .is_some_and(|(id, _)| *id == request.request_id)
    {
        return true;
    }
    match AskUserQuestionInput::parse(request.input.clone()) {
        Ok(input) => {
            model.question = Some((
                request.request_id.clone(),
                QuestionPanel::new(input.questions),
            ));
            true
        }
        Err(_) => false,
    }
}

pub(super) fn on_question_key(model: &mut Model, key: KeyEvent) -> Vec<Cmd> {
    model.dirty = true;
    // Ctrl+C still interrupts the turn that waits on the question.
    if action(key) == Action::Interrupt {
        return vec![Cmd::Send(Op::Interrupt)];
    }
    let Some((_, panel)) = model.question.as_mut() else {
        return Vec::new();
    };
    let Some(outcome) = panel.handle_key(key) else {
        return Vec::new();
    };
    model.question = None;
    let Some(request) = model.approvals.pop_front() else {
        return Vec::new();
    };
    model.approval_selected = 0;
    vec![Cmd::Send(Op::PermissionReply {
        request_id: request.request_id,
        reply: outcome.into_reply(),
    })]
}

fn on_feedback_key(model: &mut Model, act: Action) -> Vec<Cmd> {
    let Some(text) = model.feedback.as_mut() else {
        return Vec::new();
    };
    match act {
        Action::Char(c) => text.push(c),
        Action::Newline => text.push('\n'),
        Action::Backspace => {
            text.pop();
        }
        Action::Cancel => model.feedback = None,
        Action::Interrupt => return vec![Cmd::Send(Op::Interrupt)],
        Action::Submit if !text.trim().is_empty() => {
            let feedback = text.trim().to_string();
            model.feedback = None;
            let Some(request) = model.approvals.pop_front() else {
                return Vec::new();
            };
            model.approval_selected = 0;
            model.approval_scroll = 0;
            let reply = if request.kind == RequestKind::Plan {
                PermissionReply::PlanFeedback { feedback }
            } else {
                PermissionReply::Deny {
                    feedback: Some(feedback),
                }
            };
            return vec![Cmd::Send(Op::PermissionReply {
                request_id: request.request_id,
                reply,
            })];
        }
        _ => {}
    }
    Vec::new()
}

pub(super) fn on_approval_key(model: &mut Model, act: Action) -> Vec<Cmd> {
    if model.feedback.is_some() {
        return on_feedback_key(model, act);
    }
    let Some(request) = model.approvals.front() else {
        return Vec::new();
    };
    let options = approval_options(request);
    match act {
        Action::Up => {
            model.approval_selected = model.approval_selected.saturating_sub(1);
            Vec::new()
        }
        Action::Down => {
            if model.approval_selected + 1 < options.len() {
                model.approval_selected += 1;
            }
            Vec::new()
        }
        Action::Submit => match options.get(model.approval_selected) {
            Some(opt) => answer(model, *opt),
            None => Vec::new(),
        },
        Action::Char(c) => match c.to_digit(10).map(|d| d as usize) {
            Some(d) if d >= 1 && d <= options.len() => answer(model, options[d - 1]),
            _ => Vec::new(),
        },
        Action::Cancel => answer(model, ApprovalOption::Deny),
        // Ctrl+C while a turn waits on an approval interrupts it.
        Action::Interrupt => vec![Cmd::Send(Op::Interrupt)],
        Action::PageUp if request.kind == RequestKind::Plan => {
            model.approval_scroll = model
                .approval_scroll
                .saturating_sub(u16::try_from(page(model).unsigned_abs()).unwrap_or(u16::MAX));
            Vec::new()
        }
        Action::PageDown if request.kind == RequestKind::Plan => {
            model.approval_scroll = model
                .approval_scroll
                .saturating_add(u16::try_from(page(model).unsigned_abs()).unwrap_or(u16::MAX));
            Vec::new()
        }
        Action::PageUp | Action::PageDown => {
            scroll_page(model, act == Action::PageUp);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Replies to the head request. The panel closes when the runtime reports
/// `PermissionResolved`; it is popped here too so a fast user never answers
/// the same request twice.
fn answer(model: &mut Model, option: ApprovalOption) -> Vec<Cmd> {
    if option == ApprovalOption::Feedback {
        model.feedback = Some(String::new());
        return Vec::new();
    }
    let Some(request) = model.approvals.pop_front() else {
        return Vec::new();
    };
    model.approval_selected = 0;
    model.approval_scroll = 0;
    let reply = match option {
        ApprovalOption::Feedback => PermissionReply::Deny { feedback: None },
        ApprovalOption::AllowOnce => PermissionReply::AllowOnce,
        ApprovalOption::AlwaysProject => PermissionReply::AlwaysAllowProject {
            rules: request.suggestions.clone(),
        },
        ApprovalOption::AlwaysSession => PermissionReply::AlwaysAllowSession,
        ApprovalOption::FullAccess => PermissionReply::FullAccess,
        ApprovalOption::Deny => PermissionReply::Deny { feedback: None },
    };
    vec![Cmd::Send(Op::PermissionReply {
        request_id: request.request_id,
        reply,
    })]
}
