//! The pure state transition: `update(&mut Model, Msg) -> Vec<Cmd>` (TUI-1).

mod approvals;
mod events;

use super::keys::{Action, action};
use super::model::{Cell, Model, PlanRows};
use super::msg::{Cmd, Msg};
use super::picker::Picker;
use super::view::Theme;
use super::view::approval::plan_markdown;
use crate::permission::mode::ModeChoice;
use crate::runtime::protocol::{Op, RequestKind};
use approvals::{ensure_question_panel, on_approval_key, on_question_key};
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
    let cmds = apply(model, msg);
    // The head request's question panel exists as soon as it is shown.
    ensure_question_panel(model);
    sync_plan_rows(model);
    cmds
}

/// Brings the transcript's layout in step with the cells (only those that
/// changed) and keeps the scroll within it.
pub fn settle(model: &mut Model) {
    sync_transcript(model);
}

/// Renders the head plan request's Markdown once per plan and width.
fn sync_plan_rows(model: &mut Model) {
    let Some(request) = model
        .approvals
        .front()
        .filter(|r| r.kind == RequestKind::Plan)
    else {
        model.plan_rows = None;
        return;
    };
    // The panel's inner width: the screen less the two borders.
    let width = model.width.saturating_sub(2);
    let fresh = model.plan_rows.as_ref().is_some_and(|c| {
        c.request_id == request.request_id && c.width == width && c.monochrome == model.monochrome
    });
    if fresh {
        return;
    }
    let lines = plan_markdown(request, width, &Theme::new(model.monochrome));
    model.plan_rows = Some(PlanRows {
        request_id: request.request_id.clone(),
        width,
        monochrome: model.monochrome,
        lines,
    });
}

/// Lays out what changed in the transcript, whatever changed it, and keeps
/// the scroll within it (TUI-2).
fn sync_transcript(model: &mut Model) {
    let width = super::view::transcript_width(model);
    let changed = model.cells.take_changes();
    model
        .transcript_layout
        .sync(&model.cells, changed, width, model.monochrome);
    // While a relayout is under way the row count is unknown; the view
    // clamps until it is done.
    if model.transcript_layout.is_complete() {
        let rows = super::view::transcript::row_count(model, width);
        let height = usize::from(super::view::transcript_height(model));
        model.scroll = model.scroll.min(rows.saturating_sub(height));
    }
}

fn apply(model: &mut Model, msg: Msg) -> Vec<Cmd> {
    match msg {
        Msg::Key(key) => on_key(model, key),
        Msg::Paste(text) => {
            if model.approvals.is_empty() {
                // Terminals send CR for line breaks inside a paste.
                let text = text.replace("\r\n", "\n").replace('\r', "\n");
                model.composer.insert_str(&text);
                model.history_pos = None;
                model.quit_armed = false;
                model.dirty = true;
            }
            Vec::new()
        }
        Msg::Resize(w, h) => {
            model.width = w;
            model.height = h;
            model.dirty = true;
            Vec::new()
        }
        Msg::Tick(now) => {
            model.now = Some(now);
            if model.busy {
                model.spinner = model.spinner.wrapping_add(1);
                model.dirty = true;
            }
            Vec::new()
        }
        Msg::Scroll(delta) => {
            scroll_by(model, i32::from(delta));
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
    let delta = isize::try_from(delta).unwrap_or_default();
    model.scroll = model.scroll.saturating_add_signed(delta);
    model.dirty = true;
}

fn on_key(model: &mut Model, key: KeyEvent) -> Vec<Cmd> {
    if ensure_question_panel(model) {
        return on_question_key(model, key);
    }
    // TUI-4: an open picker, then the slash popup, see keys first.
    if model.approvals.is_empty() {
        if model.picker.is_some() {
            return super::picker::on_key(model, key);
        }
        if let Some(cmds) = super::slash::on_popup_key(model, key) {
            model.quit_armed = false;
            return cmds;
        }
    }
    let act = action(key);
    if act == Action::Ignore {
        return Vec::new();
    }
    model.dirty = true;
    if act != Action::Interrupt {
        model.quit_armed = false;
    }
    // The sidebar toggles in any state, an open approval included.
    if act == Action::ToggleSidebar {
        model.sidebar_hidden = !model.sidebar_hidden;
        return Vec::new();
    }
    // So do the tool outputs: reading a command's output helps to answer.
    if act == Action::ToggleToolOutput {
        toggle_tool_output(model);
        return Vec::new();
    }
    if !model.approvals.is_empty() {
        return on_approval_key(model, act);
    }
    match act {
        Action::Submit => submit(model),
        Action::Newline => {
            model.composer.insert_char('\n');
            Vec::new()
        }
        Action::CycleMode => {
            let current = if model.state.plan_enabled {
                ModeChoice::Plan
            } else {
                ModeChoice::Mode(model.state.mode)
            };
            let at = ModeChoice::CYCLE.iter().position(|c| *c == current);
            let next = match at {
                Some(i) => ModeChoice::CYCLE[(i + 1) % ModeChoice::CYCLE.len()],
                None => ModeChoice::CYCLE[0],
            };
            // Shown at once; the runtime confirms with `SessionModeChanged`.
            model.state = model.state.apply(next);
            vec![Cmd::Send(Op::SetMode { choice: next })]
        }
        Action::Cancel => {
            if model.busy {
                vec![Cmd::Send(Op::Interrupt)]
            } else {
                Vec::new()
            }
        }
        Action::Interrupt => {
            if model.busy {
                model.quit_armed = false;
                vec![Cmd::Send(Op::Interrupt)]
            } else if !model.composer.is_empty() {
                model.composer.take();
                model.history_pos = None;
                model.quit_armed = false;
                Vec::new()
            } else if model.quit_armed {
                vec![Cmd::Quit]
            } else {
                model.quit_armed = true;
                Vec::new()
            }
        }
        Action::Suspend => vec![Cmd::Suspend],
        Action::PageUp | Action::PageDown => {
            scroll_page(model, act == Action::PageUp);
            Vec::new()
        }
        Action::Top => {
            // Clamped to the top row once the transcript is synchronised.
            model.scroll = usize::MAX;
            Vec::new()
        }
        Action::Bottom => {
            model.scroll = 0;
            Vec::new()
        }
        // In a multi-line draft the arrows move between its lines; at its
        // edges (and on an empty or recalled composer) they recall history.
        Action::Up => {
            if model.history_pos.is_some() || !model.composer.up() {
                recall(model, true);
            }
            Vec::new()
        }
        Action::Down => {
            if model.history_pos.is_some() || !model.composer.down() {
                recall(model, false);
            }
            Vec::new()
        }
        Action::Home if !model.composer.is_empty() => {
            model.composer.line_start();
            Vec::new()
        }
        Action::End if !model.composer.is_empty() => {
            model.composer.line_end();
            Vec::new()
        }
        Action::Home => {
            model.scroll = usize::MAX;
            Vec::new()
        }
        Action::End => {
            model.scroll = 0;
            Vec::new()
        }
        Action::WordLeft => {
            model.composer.word_left();
            Vec::new()
        }
        Action::WordRight => {
            model.composer.word_right();
            Vec::new()
        }
        Action::DeleteWord => {
            model.composer.delete_word();
            Vec::new()
        }
        Action::Left => {
            model.composer.left();
            Vec::new()
        }
        Action::Right => {
            model.composer.right();
            Vec::new()
        }
        Action::LineStart => {
            model.composer.line_start();
            Vec::new()
        }
        Action::LineEnd => {
            model.composer.line_end();
            Vec::new()
        }
        Action::Backspace => {
            model.composer.backspace();
            Vec::new()
        }
        Action::Delete => {
            model.composer.delete();
            Vec::new()
        }
        Action::KillLine => {
            model.composer.kill_line_start();
            Vec::new()
        }
        Action::Char(c) => {
            model.composer.insert_char(c);
            model.history_pos = None;
            Vec::new()
        }
        Action::Ignore | Action::ToggleSidebar | Action::ToggleToolOutput => Vec::new(),
    }
}

fn submit(model: &mut Model) -> Vec<Cmd> {
    if model.composer.text().trim().is_empty() {
        return Vec::new();
    }
    if let Some(cmds) = super::slash::submit(model) {
        return cmds;
    }
    let text = model.composer.take();
    model.history_pos = None;
    if model.history.last() != Some(&text) {
        model.history.push(text.clone());
    }
    model.scroll = 0;
    if !model.busy {
        // The runtime starts a turn at once; `TurnStarted` confirms it.
        model.busy = true;
        model.turn_started = model.now;
    }
    vec![Cmd::Send(Op::UserInput { text })]
}

/// ↑/↓ recall history while the composer is empty or showing a recalled
/// entry; otherwise they do nothing.
fn recall(model: &mut Model, back: bool) {
    if model.history.is_empty() {
        return;
    }
    let recalling = model.history_pos.is_some();
    if !recalling && !model.composer.is_empty() {
        return;
    }
    let last = model.history.len() - 1;
    let next = match (model.history_pos, back) {
        (None, true) => Some(last),
        (None, false) => None,
        (Some(i), true) => Some(i.saturating_sub(1)),
        (Some(i), false) if i >= last => None,
        (Some(i), false) => Some(i + 1),
    };
    model.history_pos = next;
    match next.and_then(|i| model.history.get(i)) {
        Some(text) => {
            let text = text.clone();
            model.composer.set(&text);
        }
        None => {
            model.composer.take();
        }
    }
}

/// Ctrl+O: every tool cell shows its whole output, or its first line again.
fn toggle_tool_output(model: &mut Model) {
    model.tools_expanded = !model.tools_expanded;
    let to = model.tools_expanded;
    model.cells.update_where(
        |cell| matches!(cell, Cell::Tool { expanded, .. } if *expanded != to),
        |cell| {
            if let Cell::Tool { expanded, .. } = cell {
                *expanded = to;
            }
        },
    );
}
