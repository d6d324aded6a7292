//! Keys while the composer has the focus: editing, sending, history
//! recall, the mode cycle, scrolling the transcript, quitting.

use super::{scroll_page, slash};
use crate::permission::mode::ModeChoice;
use crate::protocol::Op;
use crate::tui::cells::Cell;
use crate::tui::keys::Action;
use crate::tui::model::Model;
use crate::tui::msg::Cmd;

pub(super) fn on_key(model: &mut Model, act: Action) -> Vec<Cmd> {
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
            super::mode::choose(model, next)
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
                model.quit_armed_at = model.now;
                Vec::new()
            }
        }
        Action::Suspend => vec![Cmd::Suspend],
        // As in a shell: end of input on an empty line ends the program;
        // a running turn is interrupted first with Esc or Ctrl+C, so one
        // key never both stops the model and quits.
        Action::EndOfInput if model.composer.is_empty() => {
            if model.busy {
                Vec::new()
            } else {
                vec![Cmd::Quit]
            }
        }
        Action::EndOfInput => {
            model.composer.delete();
            Vec::new()
        }
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
        // After a failed turn: its message again.
        return match model.retry.take() {
            Some(text) if !model.busy => {
                model.composer.set(&text);
                submit(model)
            }
            _ => Vec::new(),
        };
    }
    if let Some(cmds) = slash::submit(model) {
        return cmds;
    }
    if let Some(cmds) = run_shell(model) {
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

/// `!command`: the user's own command, run in the workspace by the
/// runtime (`runtime::user_shell`); `None` when the line is no command
/// (a lone `!` is sent as text). While a turn runs it is refused and stays
/// in the prompt, to run once the turn ends.
fn run_shell(model: &mut Model) -> Option<Vec<Cmd>> {
    let full = model.composer.full_text();
    // Only a command the user can read runs: a paste shown as a chip hides
    // what it holds, so a line with one goes to the model as text.
    if model.composer.text() != full {
        return None;
    }
    let command = full.trim_start().strip_prefix('!')?.trim().to_string();
    if command.is_empty() {
        return None;
    }
    if model.busy {
        model.cells.push(Cell::Error {
            text: "a turn is running: the command runs once it ends (press Enter again then), or interrupt the turn with Esc".to_string(),
        });
        return Some(Vec::new());
    }
    let line = model.composer.take();
    model.history_pos = None;
    if model.history.last() != Some(&line) {
        model.history.push(line);
    }
    model.scroll = 0;
    // `TurnStarted` shows the line; Esc interrupts the command meanwhile.
    model.busy = true;
    model.turn_started = model.now;
    Some(vec![Cmd::Send(Op::RunShell { command })])
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
