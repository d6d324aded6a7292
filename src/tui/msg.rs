//! What goes into `update` and what comes out of it.

use super::launcher::{ModelChoice, SessionSummary};
use crate::protocol::{Event, Op};
use crate::runtime::session::SessionStart;
use crossterm::event::KeyEvent;
use std::time::Instant;

/// Everything that can change the model. Messages live only for one
/// `update` call, so the size of `Runtime` does not matter.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum Msg {
    Key(KeyEvent),
    /// Bracketed paste: the whole pasted text at once.
    Paste(String),
    /// New terminal size (columns, rows).
    Resize(u16, u16),
    /// The clock, passed in so `view` never reads it.
    Tick(Instant),
    /// Mouse wheel: positive scrolls back (up), negative forward.
    Scroll(i16),
    Runtime(Event),
    /// The answer to `Cmd::ListSessions`: opens the `/resume` picker.
    Sessions(Vec<SessionSummary>),
    /// The answer to `Cmd::ListModels`: opens the `/model` picker.
    Models(Vec<ModelChoice>),
    /// The loop replaced the runtime (`/new`, `/resume`): start over,
    /// keeping the input history and the composer.
    SessionReplaced,
}

/// What the loop must do after an `update`: plain data.
#[derive(Debug, Clone, PartialEq)]
pub enum Cmd {
    Send(Op),
    Quit,
    Suspend,
    /// `/memory edit`: open the project's MEMORY.md in the user's editor.
    EditMemory,
    /// `/resume`: list this project's sessions (answered by `Msg::Sessions`).
    ListSessions,
    /// `/model`: list the configured models (answered by `Msg::Models`).
    ListModels,
    /// `/new`, `/resume`: replace the runtime with one on this session.
    StartSession(SessionStart),
    /// `/copy`: put this text on the clipboard (already checked to fit).
    Copy(String),
    /// `/export`: write the conversation to a new file.
    Export {
        path: std::path::PathBuf,
        markdown: String,
    },
}
