//! Keys while a request waits: the tool and plan approval panels (APPR-6,
//! APPR-7, PLAN-10), their feedback field, and the question panel (ASK-6).
//! Whatever the user does lives in the head request's `ApprovalPanel`;
//! answering pops the request, and `update` gives the next one a fresh
//! panel.

use super::{page, scroll_page};
use crate::protocol::{Op, PermissionReply, RequestKind};
use crate::tui::approval::{ApprovalOption, approval_options};
use crate::tui::keys::{Action, action};
use crate::tui::model::Model;
use crate::tui::msg::Cmd;
use crossterm::event::KeyEvent;

pub(super) fn on_question_key(model: &mut Model, key: KeyEvent) -> Vec<Cmd> {
    model.dirty = true;
    // Ctrl+C still interrupts the turn that waits on the question.
    if action(key) == Action::Interrupt {
        return vec![Cmd::Send(Op::Interrupt)];
    }
    let Some(panel) = model.panel_mut().and_then(|p| p.question.as_mut()) else {
        return Vec::new();
    };
    let Some(outcome) = panel.handle_key(key) else {
        return Vec::new();
    };
    reply_to_head(model, outcome.into_reply())
}

pub(super) fn on_feedback_key(model: &mut Model, kind: RequestKind, act: Action) -> Vec<Cmd> {
    let Some(panel) = model.panel_mut() else {
        return Vec::new();
    };
    let Some(text) = panel.feedback.as_mut() else {
        return Vec::new();
    };
    match act {
        Action::Char(c) => text.push(c),
        Action::Newline => text.push('\n'),
        Action::Backspace => {
            text.pop();
        }
        Action::Cancel => panel.feedback = None,
        Action::Interrupt => return vec![Cmd::Send(Op::Interrupt)],
        Action::Submit if !text.trim().is_empty() => {
            let feedback = text.trim().to_string();
            let reply = if kind == RequestKind::Plan {
                PermissionReply::PlanFeedback { feedback }
            } else {
                PermissionReply::Deny {
                    feedback: Some(feedback),
                }
            };
            return reply_to_head(model, reply);
        }
        _ => {}
    }
    Vec::new()
}

pub(super) fn on_approval_key(model: &mut Model, kind: RequestKind, act: Action) -> Vec<Cmd> {
    let Some(request) = model.head() else {
        return Vec::new();
    };
    let options = approval_options(request);
    let page = u16::try_from(page(model).unsigned_abs()).unwrap_or(u16::MAX);
    let Some(panel) = model.panel_mut() else {
        return Vec::new();
    };
    match act {
        Action::Up => {
            panel.selected = panel.selected.saturating_sub(1);
            Vec::new()
        }
        Action::Down => {
            if panel.selected + 1 < options.len() {
                panel.selected += 1;
            }
            Vec::new()
        }
        Action::Submit => match options.get(panel.selected) {
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
        Action::PageUp if kind == RequestKind::Plan => {
            panel.scroll = panel.scroll.saturating_sub(page);
            Vec::new()
        }
        Action::PageDown if kind == RequestKind::Plan => {
            panel.scroll = panel.scroll.saturating_add(page);
            Vec::new()
        }
        Action::PageUp | Action::PageDown => {
            scroll_page(model, act == Action::PageUp);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Answers the head request with `option`; the feedback option opens the
/// field instead.
fn answer(model: &mut Model, option: ApprovalOption) -> Vec<Cmd> {
    if option == ApprovalOption::Feedback {
        if let Some(panel) = model.panel_mut() {
            panel.feedback = Some(String::new());
        }
        return Vec::new();
    }
    let Some(request) = model.head() else {
        return Vec::new();
    };
    let reply = match option {
        ApprovalOption::AllowOnce => PermissionReply::AllowOnce,
        ApprovalOption::AlwaysProject => PermissionReply::AlwaysAllowProject {
            rules: request.suggestions.clone(),
        },
        ApprovalOption::AlwaysSession => PermissionReply::AlwaysAllowSession,
        ApprovalOption::FullAccess => PermissionReply::FullAccess,
        ApprovalOption::AllowEdits => PermissionReply::AllowEditsForSession,
        ApprovalOption::Feedback | ApprovalOption::Deny => PermissionReply::Deny { feedback: None },
    };
    reply_to_head(model, reply)
}

/// Replies to the head request. The panel closes when the runtime reports
/// `PermissionResolved`; the request is popped here too so a fast user
/// never answers the same request twice.
fn reply_to_head(model: &mut Model, reply: PermissionReply) -> Vec<Cmd> {
    let Some(request) = model.approvals.pop_front() else {
        return Vec::new();
    };
    model.approval = None;
    super::events::set_waiting(model, &request.call_id, false);
    vec![Cmd::Send(Op::PermissionReply {
        request_id: request.request_id,
        reply,
    })]
}
