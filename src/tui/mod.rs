//! The terminal UI (TUI-1..6): an Elm-style app over the runtime's
//! `Op`/`Event` protocol.

pub mod widgets;
