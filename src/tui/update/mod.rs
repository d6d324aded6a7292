//! The pure state transition: `update(&mut Model, Msg) -> Vec<Cmd>` (TUI-1).
//! Keys and pastes go to the layer `focus` names; each layer's keys are in
//! their own module.

mod agents;
mod approvals;
mod composer;
mod events;
mod file_popup;
mod mode;
mod picker;
pub(crate) mod slash;

use super::approval::{ApprovalPanel, BodyRows};
use super::cells::Cell;
use super::focus::{Focus, focus};
use super::keys::{Action, action};
use super::layout::approval::{command_lines, plan_markdown};
use super::layout::scroll::ScrollAnchor;
use super::model::Model;
use super::msg::{Cmd, Msg};
use super::picker::Picker;
use super::screen::{
    SIDEBAR_MIN_TERMINAL_WIDTH, transcript_height, transcript_rows, transcript_width,
};
use super::theme::Theme;
use crate::protocol::{Op, RequestKind};
use crossterm::event::KeyEvent;
use events::on_event;

/// Applies `msg` to `model` and returns what the loop must do: [`step`]
/// then [`settle`].
pub fn update(model: &mut Model, msg: Msg) -> Vec<Cmd> {
    let cmds = step(model, msg);
    settle(model);
    cmds
}

/// Applies `msg` without laying the transcript out again. The loop steps
/// through every message waiting and settles once before it draws, so a
/// burst of stream deltas costs one layout, not one per delta (TUI-2).
pub fn step(model: &mut Model, msg: Msg) -> Vec<Cmd> {
    // The panel matches the head before a key reaches it, and again after
    // whatever changed the queue.
    sync_approval_panel(model);
    let cmds = apply(model, msg);
    file_popup::sync(model);
    sync_approval_panel(model);
    sync_wait_clock(model);
    cmds
}

/// Stops the turn's clock while a request waits for the user and starts it
/// again once none does: the status line counts the model's time only.
fn sync_wait_clock(model: &mut Model) {
    let now = model.now;
    match (model.waiting_for_user(), model.waiting_since) {
        (true, None) => model.waiting_since = now.or(model.turn_started),
        (false, Some(since)) => {
            let until = now.unwrap_or(since);
            model.waited += until.saturating_duration_since(since);
            model.waiting_since = None;
        }
        _ => {}
    }
}

/// Brings the transcript's layout in step with the cells (only those that
/// changed) and keeps the scroll within it.
pub fn settle(model: &mut Model) {
    sync_transcript(model);
}

/// Gives the head request its panel: a fresh one whenever the head is
/// another request than the panel's, however the last one went (answered
/// here, resolved by a hook, cancelled). Renders a plan's Markdown (PLAN-10)
/// or highlights a command once per request and width.
fn sync_approval_panel(model: &mut Model) {
    let Model {
        approvals,
        approval,
        width,
        monochrome,
        ..
    } = model;
    let Some(request) = approvals.front() else {
        *approval = None;
        return;
    };
    let panel = match approval {
        Some(panel) if panel.is_for(request) => panel,
        _ => approval.insert(ApprovalPanel::new(request)),
    };
    // The panel's inner width: the screen less the two borders.
    let width = width.saturating_sub(2);
    let fresh = |rows: &Option<BodyRows>| {
        rows.as_ref()
            .is_some_and(|c| c.width == width && c.monochrome == *monochrome)
    };
    let theme = Theme::new(*monochrome);
    let keep = |lines| BodyRows {
        request_id: request.request_id.clone(),
        width,
        monochrome: *monochrome,
        lines,
    };
    match request.kind {
        RequestKind::Plan if !fresh(&panel.plan_rows) => {
            panel.plan_rows = Some(keep(plan_markdown(request, width, &theme)));
        }
        RequestKind::Tool if !fresh(&panel.command_rows) => {
            panel.command_rows = command_lines(request, width, &theme).map(keep);
        }
        _ => {}
    }
}

/// Lays out what changed in the transcript, whatever changed it, and keeps
/// the scroll within it (TUI-2).
fn sync_transcript(model: &mut Model) {
    let width = transcript_width(model);
    if !model.transcript_layout.is_for(width, model.monochrome) {
        // Every row moves with the width; the relayout runs from the bottom
        // up, so the scroll stays counted from there.
        model.scroll_anchor = None;
    }
    let changed = model.cells.take_changes();
    model
        .transcript_layout
        .sync(&model.cells, changed, width, model.monochrome);
    // While a relayout is under way the row count is unknown; the view
    // clamps until it is done.
    if model.transcript_layout.is_complete() {
        let rows = transcript_rows(model, width);
        let height = usize::from(transcript_height(model));
        // Scrolled up, the rows being read stay where they are.
        let anchored = model
            .scroll_anchor
            .filter(|a| a.holds(model.scroll))
            .and_then(|a| a.scroll(&model.transcript_layout, rows));
        if let Some(scroll) = anchored {
            model.scroll = scroll;
        }
        model.scroll = model.scroll.min(rows.saturating_sub(height));
        model.scroll_anchor = ScrollAnchor::take(&model.transcript_layout, model.scroll, rows);
    }
}

fn apply(model: &mut Model, msg: Msg) -> Vec<Cmd> {
    match msg {
        Msg::Key(key) => on_key(model, key),
        Msg::Paste(text) => {
            on_paste(model, &text);
            Vec::new()
        }
        Msg::Resize(w, h) => {
            model.width = w;
            model.height = h;
            if w >= SIDEBAR_MIN_TERMINAL_WIDTH {
                // The sidebar shows the list now.
                model.todos_open = false;
            }
            model.dirty = true;
            Vec::new()
        }
        Msg::Tick(now) => {
            model.now = Some(now);
            expire_quit_hint(model, now);
            agents::tick(model, now);
            if model.busy && !model.waiting_for_user() {
                model.spinner = model.spinner.wrapping_add(1);
                model.dirty = true;
            }
            Vec::new()
        }
        Msg::Scroll(delta) => {
            if focus(model) == Focus::FullScreen {
                approvals::scroll_full_screen(model, i32::from(delta));
            } else {
                scroll_by(model, i32::from(delta));
            }
            Vec::new()
        }
        Msg::Runtime(event) => {
            on_event(model, event);
            Vec::new()
        }
        Msg::Sessions(list) => {
            model.picker = Some(Picker::sessions(&list, &model.session_id));
            model.dirty = true;
            Vec::new()
        }
        Msg::Models(list) => {
            model.picker = Some(Picker::models(&list, &model.model_label));
            model.dirty = true;
            Vec::new()
        }
        Msg::SessionReplaced => {
            let mut fresh = Model::new(model.width, model.height);
            fresh.history = std::mem::take(&mut model.history);
            fresh.composer = std::mem::take(&mut model.composer);
            fresh.monochrome = model.monochrome;
            fresh.now = model.now;
            // The user's choices of how to look stay; the model in use is
            // compared with the new session's when it starts.
            fresh.tools_expanded = model.tools_expanded;
            fresh.sidebar_hidden = model.sidebar_hidden;
            fresh.model_label = std::mem::take(&mut model.model_label);
            // Same checkout: the status line keeps naming its branch.
            fresh.git_branch = model.git_branch.take();
            // Same workspace, same files.
            fresh.command_files = std::mem::take(&mut model.command_files);
            fresh.skills = std::mem::take(&mut model.skills);
            fresh.exports_dir = model.exports_dir.take();
            *model = fresh;
            Vec::new()
        }
    }
}

pub(super) fn page(model: &Model) -> i32 {
    i32::from(model.height.saturating_sub(6)).max(1)
}

/// PgUp (`back`) or PgDn in the transcript.
pub(super) fn scroll_page(model: &mut Model, back: bool) {
    let page = page(model);
    scroll_by(model, if back { page } else { -page });
}

pub(super) fn scroll_by(model: &mut Model, delta: i32) {
    // From what is on screen now: rows streamed since the last settle move
    // the anchored window first.
    settle(model);
    let delta = isize::try_from(delta).unwrap_or_default();
    model.scroll = model.scroll.saturating_add_signed(delta);
    model.dirty = true;
}

fn on_key(model: &mut Model, key: KeyEvent) -> Vec<Cmd> {
    let focus = focus(model);
    // The question panel and a picker read raw keys and take them all; the
    // slash popup takes its list keys and leaves typing to the composer.
    match focus {
        Focus::FullScreen => return approvals::on_full_screen_key(model, key),
        Focus::Question => return approvals::on_question_key(model, key),
        Focus::Picker => return picker::on_key(model, key),
        Focus::Todos => return on_todos_key(model, key),
        Focus::SlashPopup => {
            if let Some(cmds) = slash::on_popup_key(model, key) {
                model.quit_armed = false;
                return cmds;
            }
        }
        Focus::FilePopup => {
            if let Some(cmds) = file_popup::on_key(model, key) {
                model.quit_armed = false;
                return cmds;
            }
        }
        Focus::Feedback(_) | Focus::Approval(_) | Focus::Composer => {}
    }
    let act = action(key);
    if act == Action::Ignore {
        return Vec::new();
    }
    model.dirty = true;
    if act != Action::Interrupt {
        model.quit_armed = false;
    }
    // The sidebar toggles in any of these layers, an open approval included;
    // where it cannot show, the composer's Ctrl+T opens the list instead.
    if act == Action::ToggleSidebar {
        if model.width >= SIDEBAR_MIN_TERMINAL_WIDTH {
            model.sidebar_hidden = !model.sidebar_hidden;
        } else if matches!(
            focus,
            Focus::Composer | Focus::SlashPopup | Focus::FilePopup
        ) {
            model.todos_open = !model.todos.is_empty();
        }
        return Vec::new();
    }
    // On a tool's or plan's panel Ctrl+O opens it full screen; elsewhere
    // it expands the tool outputs (reading a command's output helps to
    // answer a question).
    if act == Action::ToggleToolOutput {
        if approvals::opens_full_screen(focus) {
            approvals::open_full_screen(model);
        } else {
            toggle_tool_output(model);
        }
        return Vec::new();
    }
    match focus {
        Focus::Feedback(kind) => approvals::on_feedback_key(model, kind, act),
        Focus::Approval(_) => approvals::on_approval_key(model, act),
        Focus::Composer | Focus::SlashPopup | Focus::FilePopup => composer::on_key(model, act),
        Focus::FullScreen | Focus::Question | Focus::Picker | Focus::Todos => Vec::new(),
    }
}

/// How long "Ctrl+C again to quit" stays armed.
pub const QUIT_ARMED_FOR: std::time::Duration = std::time::Duration::from_secs(2);

/// Disarms the quit key once `QUIT_ARMED_FOR` has passed since it was
/// armed (a model armed before its first tick counts from that tick).
fn expire_quit_hint(model: &mut Model, now: std::time::Instant) {
    if !model.quit_armed {
        return;
    }
    let armed_at = *model.quit_armed_at.get_or_insert(now);
    if now.saturating_duration_since(armed_at) >= QUIT_ARMED_FOR {
        model.quit_armed = false;
        model.quit_armed_at = None;
        model.dirty = true;
    }
}

/// The todo overlay takes every key: Esc or Ctrl+T closes it, Ctrl+C
/// closes it and interrupts a running turn.
fn on_todos_key(model: &mut Model, key: KeyEvent) -> Vec<Cmd> {
    match action(key) {
        Action::Cancel | Action::ToggleSidebar => {
            model.todos_open = false;
            model.dirty = true;
        }
        Action::Interrupt => {
            model.todos_open = false;
            model.dirty = true;
            if model.busy {
                return vec![Cmd::Send(Op::Interrupt)];
            }
        }
        _ => {}
    }
    Vec::new()
}

/// Bracketed paste goes where typing would: the question panel's Other
/// field, the feedback field (both as plain text), or the composer, where
/// a large paste is a chip (also under a picker, the todo overlay or the
/// slash popup, so nothing pasted is lost). The options of a request take
/// no text.
fn on_paste(model: &mut Model, text: &str) {
    // Terminals send CR for line breaks inside a paste.
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    match focus(model) {
        Focus::Question => {
            if let Some(question) = model.panel_mut().and_then(|p| p.question.as_mut()) {
                question.handle_paste(&text);
                model.dirty = true;
            }
        }
        Focus::Feedback(_) => {
            if let Some(feedback) = model.panel_mut().and_then(|p| p.feedback.as_mut()) {
                feedback.push_str(&text);
                model.dirty = true;
            }
        }
        Focus::FullScreen | Focus::Approval(_) => {}
        Focus::Todos | Focus::Picker | Focus::SlashPopup | Focus::FilePopup | Focus::Composer => {
            // A large paste shows as a chip (TUI-5).
            model.composer.paste(&text);
            model.history_pos = None;
            model.quit_armed = false;
            model.dirty = true;
        }
    }
}

/// Ctrl+O: every tool cell (and compaction summary) shows its whole
/// output, every sub-agent its transcript; or their first lines again.
fn toggle_tool_output(model: &mut Model) {
    model.tools_expanded = !model.tools_expanded;
    let to = model.tools_expanded;
    model.cells.update_where(
        |cell| {
            matches!(cell, Cell::Tool { expanded, .. } | Cell::Compaction { expanded, .. }
                if *expanded != to)
                || matches!(cell, Cell::Agents(group) if group.expanded != to)
        },
        |cell| match cell {
            Cell::Tool { expanded, .. } | Cell::Compaction { expanded, .. } => *expanded = to,
            Cell::Agents(group) => group.expanded = to,
            _ => {}
        },
    );
}
