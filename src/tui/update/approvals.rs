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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{AlwaysOption, PermissionRequest};
    use crate::tui::msg::Msg;
    use crate::tui::update::update;
    use crossterm::event::{KeyCode, KeyModifiers};
    use serde_json::json;

    fn press(model: &mut Model, code: KeyCode) -> Vec<Cmd> {
        update(model, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
    }

    fn ctrl_o(model: &mut Model) -> Vec<Cmd> {
        update(
            model,
            Msg::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL)),
        )
    }

    /// A model at 80×24 whose head request is a Bash call of `lines` lines.
    fn waiting(lines: usize) -> Model {
        let command: Vec<String> = (1..=lines).map(|i| format!("echo {i}")).collect();
        let request = PermissionRequest {
            request_id: "perm_1".into(),
            kind: RequestKind::Tool,
            call_id: "call_1".into(),
            tool: "Bash".into(),
            input: json!({"command": command.join("\n")}),
            rule_id: "ask.default".into(),
            reason: "runs a command that can change files".into(),
            suggestions: Vec::new(),
            always: AlwaysOption::Session,
            full_access_available: false,
            description: None,
            edit_mode_available: false,
            allowed_prompts: Vec::new(),
            preview: None,
            agent: None,
        };
        let mut model = Model::new(80, 24);
        model.approvals.push_back(request);
        update(&mut model, Msg::Resize(80, 24));
        model
    }

    fn start(model: &Model) -> Option<usize> {
        let request = model.head()?;
        let theme = Theme::new(model.monochrome);
        body_window(request, model.panel(), &theme, model.width, model.height).map(|w| w.start)
    }

    #[test]
    fn approval_scroll_step_stays_within_bounds() {
        assert_eq!(Step::By(-1).apply(0, 10, 90), 0);
        assert_eq!(Step::By(1).apply(90, 10, 90), 90);
        assert_eq!(Step::By(isize::MAX).apply(5, 10, 90), 90);
        assert_eq!(Step::Page(1).apply(0, 10, 90), 10);
        assert_eq!(Step::Page(-1).apply(5, 10, 90), 0);
        assert_eq!(Step::Page(1).apply(85, 10, 90), 90);
        assert_eq!(Step::Bottom.apply(0, 10, 90), 90);
        assert_eq!(Step::Top.apply(50, 10, 90), 0);
        // A body that fits has nowhere to go.
        assert_eq!(Step::Page(3).apply(0, 10, 0), 0);
    }

    #[test]
    fn approval_body_scrolls_with_j_k_and_the_page_keys_within_its_rows() {
        let mut model = waiting(100);
        assert_eq!(start(&model), Some(0));
        press(&mut model, KeyCode::Char('k'));
        press(&mut model, KeyCode::PageUp);
        assert_eq!(start(&model), Some(0), "nothing above the top");
        press(&mut model, KeyCode::Char('j'));
        assert_eq!(start(&model), Some(1));
        press(&mut model, KeyCode::End);
        let last = start(&model).unwrap_or_default();
        assert!(last > 1);
        press(&mut model, KeyCode::PageDown);
        press(&mut model, KeyCode::Char('j'));
        assert_eq!(start(&model), Some(last), "nothing past the end");
        press(&mut model, KeyCode::Home);
        assert_eq!(start(&model), Some(0));
        // ↓ still moves the options, and the transcript never moved.
        press(&mut model, KeyCode::Down);
        assert_eq!(model.panel().map(|p| p.selected), Some(1));
        assert_eq!(model.scroll, 0);
    }

    #[test]
    fn approval_page_keys_scroll_the_transcript_when_the_body_fits() {
        let mut model = waiting(2);
        assert_eq!(start(&model), None);
        press(&mut model, KeyCode::PageDown);
        assert_eq!(model.panel().map(|p| p.scrolled), Some(false));
    }

    #[test]
    fn approval_full_screen_toggle_keeps_the_request_pending() {
        let mut model = waiting(100);
        assert!(ctrl_o(&mut model).is_empty());
        assert_eq!(crate::tui::focus::focus(&model), Focus::FullScreen);
        assert!(ctrl_o(&mut model).is_empty());
        assert_eq!(
            crate::tui::focus::focus(&model),
            Focus::Approval(RequestKind::Tool)
        );
        assert_eq!(model.approvals.len(), 1);
        assert!(
            !model.tools_expanded,
            "Ctrl+O on a panel is not the outputs'"
        );
    }

    #[test]
    fn approval_esc_in_full_screen_does_not_deny() {
        let mut model = waiting(100);
        ctrl_o(&mut model);
        for code in [KeyCode::Enter, KeyCode::Char('1'), KeyCode::Esc] {
            assert!(press(&mut model, code).is_empty(), "{code:?}");
            assert_eq!(model.approvals.len(), 1, "{code:?}");
        }
        // Esc went back to the panel; there it denies.
        assert_eq!(model.approval.as_ref().and_then(|p| p.full_screen), None);
        let cmds = press(&mut model, KeyCode::Esc);
        assert!(
            matches!(
                cmds.as_slice(),
                [Cmd::Send(Op::PermissionReply {
                    reply: PermissionReply::Deny { feedback: None },
                    ..
                })]
            ),
            "{cmds:?}"
        );
    }

    #[test]
    fn approval_full_screen_scroll_stays_within_its_rows() {
        let mut model = waiting(100);
        ctrl_o(&mut model);
        press(&mut model, KeyCode::Up);
        let at = |m: &Model| m.panel().and_then(|p| p.full_screen);
        assert_eq!(at(&model), Some(0));
        press(&mut model, KeyCode::End);
        // 101 rows (the why row and the command), 22 shown.
        assert_eq!(at(&model), Some(101 - 22));
        press(&mut model, KeyCode::PageDown);
        press(&mut model, KeyCode::Char('j'));
        assert_eq!(at(&model), Some(101 - 22));
        press(&mut model, KeyCode::Home);
        assert_eq!(at(&model), Some(0));
    }
}
