//! Keys while a request waits: the tool and plan approval panels (APPR-6,
//! APPR-7, PLAN-10) and their scrolling body, the request full screen,
//! their feedback field, and the question panel (ASK-6).
//! Whatever the user does lives in the head request's `ApprovalPanel`;
//! answering pops the request, and `update` gives the next one a fresh
//! panel.

use super::scroll_page;
use crate::protocol::{Op, PermissionReply, RequestKind};
use crate::tui::approval::{ApprovalOption, approval_options};
use crate::tui::focus::Focus;
use crate::tui::keys::{Action, action};
use crate::tui::layout::approval::body_window;
use crate::tui::layout::approval_full::{full_height, full_rows, last_start};
use crate::tui::model::Model;
use crate::tui::msg::Cmd;
use crate::tui::theme::Theme;
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

pub(super) fn on_approval_key(model: &mut Model, act: Action) -> Vec<Cmd> {
    let Some(request) = model.head() else {
        return Vec::new();
    };
    let options = approval_options(request);
    // Where the body is and how far it may go, as the panel draws it now.
    let window = body_window(
        request,
        model.panel(),
        &Theme::new(model.monochrome),
        model.width,
        model.height,
    );
    let Some(panel) = model.panel_mut() else {
        return Vec::new();
    };
    // Keys that move the body (when it scrolls): j/k a row, PgUp/PgDn a
    // window, Home/End to its ends. ↑/↓ stay the options'.
    let body_step = match act {
        Action::Char('j') => Some(Step::By(1)),
        Action::Char('k') => Some(Step::By(-1)),
        Action::PageDown => Some(Step::Page(1)),
        Action::PageUp => Some(Step::Page(-1)),
        Action::Home => Some(Step::Top),
        Action::End => Some(Step::Bottom),
        _ => None,
    };
    if let (Some(step), Some(window)) = (body_step, window) {
        panel.scroll = step.apply(window.start, window.shown, window.last_start());
        panel.scrolled = true;
        return Vec::new();
    }
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
        // With a body that fits, the page keys scroll the transcript.
        Action::PageUp | Action::PageDown => {
            scroll_page(model, act == Action::PageUp);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Whether Ctrl+O on this layer opens the head request full screen: on a
/// tool's or plan's panel and its feedback field. Elsewhere it keeps
/// expanding the transcript's tool outputs.
pub(super) fn opens_full_screen(focus: Focus) -> bool {
    matches!(
        focus,
        Focus::Approval(RequestKind::Tool | RequestKind::Plan) | Focus::Feedback(_)
    )
}

/// Opens the head request full screen, at its top.
pub(super) fn open_full_screen(model: &mut Model) {
    if let Some(panel) = model.panel_mut() {
        panel.full_screen = Some(0);
    }
}

/// Keys while the head request is full screen: scroll it, or go back to
/// its panel (Esc, q, Ctrl+O) with the request still waiting there. No key
/// here answers the request; Ctrl+C still interrupts the turn.
pub(super) fn on_full_screen_key(model: &mut Model, key: KeyEvent) -> Vec<Cmd> {
    let act = action(key);
    let step = match act {
        Action::Cancel | Action::ToggleToolOutput | Action::Char('q') => {
            if let Some(panel) = model.panel_mut() {
                panel.full_screen = None;
            }
            model.dirty = true;
            return Vec::new();
        }
        Action::Interrupt => return vec![Cmd::Send(Op::Interrupt)],
        Action::Down | Action::Char('j') => Step::By(1),
        Action::Up | Action::Char('k') => Step::By(-1),
        Action::PageDown | Action::Char(' ') => Step::Page(1),
        Action::PageUp => Step::Page(-1),
        Action::Home | Action::Top => Step::Top,
        Action::End | Action::Bottom => Step::Bottom,
        _ => return Vec::new(),
    };
    move_full_screen(model, step);
    Vec::new()
}

/// The wheel over the full screen (with mouse capture): `delta` rows up
/// when positive, as the transcript's.
pub(super) fn scroll_full_screen(model: &mut Model, delta: i32) {
    let by = isize::try_from(-delta).unwrap_or_default();
    move_full_screen(model, Step::By(by));
}

fn move_full_screen(model: &mut Model, step: Step) {
    let Some(request) = model.head() else {
        return;
    };
    let width = usize::from(model.width.saturating_sub(2));
    let rows = full_rows(request, model.panel(), &Theme::new(model.monochrome), width).len();
    let height = full_height(model.height);
    let last = last_start(rows, height);
    if let Some(panel) = model.panel_mut()
        && let Some(at) = panel.full_screen.as_mut()
    {
        *at = step.apply((*at).min(last), height, last);
        model.dirty = true;
    }
}

/// A move of a scrolled view.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Rows down (negative: up).
    By(isize),
    /// Windows down (negative: up).
    Page(isize),
    Top,
    Bottom,
}

impl Step {
    /// The new start from `start`, with `shown` rows a window and `last`
    /// the last start.
    fn apply(self, start: usize, shown: usize, last: usize) -> usize {
        let moved = match self {
            Step::By(rows) => start.saturating_add_signed(rows),
            Step::Page(pages) => {
                let page = isize::try_from(shown.max(1)).unwrap_or(isize::MAX);
                start.saturating_add_signed(pages.saturating_mul(page))
            }
            Step::Top => 0,
            Step::Bottom => last,
        };
        moved.min(last)
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
