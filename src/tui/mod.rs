//! The terminal UI (TUI-1..6): an Elm-style app over the runtime's
//! `Op`/`Event` protocol.
//!
//! `update` and `view` are pure: a test builds a [`Model`], feeds it
//! [`Msg`]s and renders it into ratatui's `TestBackend`. Only `app` and
//! `terminal` touch the real terminal. `widgets` holds pure building blocks
//! (Markdown, highlighting, diffs, the question panel) for the views.

pub mod app;
pub mod cells;
pub mod clipboard;
pub mod export;
pub mod keys;
pub mod launcher;
pub mod model;
pub mod msg;
pub mod picker;
pub mod scrollback;
pub mod slash;
pub mod terminal;
pub mod transcript_layout;
pub mod update;
pub mod view;
pub mod wheel;
pub mod widgets;

pub use model::Model;
pub use msg::{Cmd, Msg};
pub use update::{settle, step, update};
pub use view::view;
