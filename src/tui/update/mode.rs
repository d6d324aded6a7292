//! The session's mode as the transcript tells it: a choice shows at once
//! (the runtime confirms it with `SessionModeChanged`), and every change
//! leaves one dim line; the confirmation of a change already shown adds
//! none. A session that starts in yolo it did not ask for says so, and so
//! does one that did not restore the last session's yolo.

use crate::permission::mode::{ExecutionState, Mode, ModeChoice, ModeSource};
use crate::protocol::Op;
use crate::tui::cells::Cell;
use crate::tui::model::Model;
use crate::tui::msg::Cmd;

/// Said when the project's last mode was yolo, which is not restored.
pub const YOLO_NOT_CARRIED_OVER: &str = "the last session here ended in yolo mode; this one starts without it: yolo is only chosen with /mode yolo or --mode yolo";
/// Said when a resumed session was left in yolo.
pub const YOLO_RESUMED: &str = "yolo mode, as this session was left: every tool call runs without asking; shift+tab changes it";

/// The user chose `choice` (Shift+Tab, `/mode`, `/plan`, the picker).
pub(super) fn choose(model: &mut Model, choice: ModeChoice) -> Vec<Cmd> {
    let next = model.state.apply(choice);
    if next != model.state {
        model.mode_pending.push(next);
        show(model, next);
    }
    vec![Cmd::Send(Op::SetMode { choice })]
}

/// `SessionModeChanged`: the runtime's state. One the user's choices led
/// to was shown already (and a later choice may be on screen by now); any
/// other is shown.
pub(super) fn changed(model: &mut Model, state: ExecutionState) {
    if let Some(i) = model.mode_pending.iter().position(|s| *s == state) {
        model.mode_pending.drain(..=i);
        return;
    }
    model.mode_pending.clear();
    if state != model.state {
        show(model, state);
    }
}

/// `SessionStarted`: the starting state, and a word when it is yolo that
/// nobody asked for this time, or when the last session's yolo was not
/// restored.
pub(super) fn started(model: &mut Model, state: ExecutionState, source: ModeSource) {
    model.state = state;
    model.mode_pending.clear();
    let in_yolo = state.mode == Mode::Yolo && !state.plan_enabled;
    let note = match source {
        ModeSource::YoloNotCarriedOver => YOLO_NOT_CARRIED_OVER,
        ModeSource::Session if in_yolo => YOLO_RESUMED,
        _ => return,
    };
    model.cells.push(Cell::Notice { text: note.into() });
}

fn show(model: &mut Model, state: ExecutionState) {
    model.state = state;
    model.cells.push(Cell::Notice {
        text: format!("{} mode: {}", state.label(), state.description()),
    });
}
