//! The terminal UI (TUI-1..6): an Elm-style app over the runtime's
//! `Op`/`Event` protocol.
//!
//! `update` and `view` are pure: a test builds a [`Model`], feeds it
//! [`Msg`]s and renders it into ratatui's `TestBackend`. Only `app` and
//! `terminal` touch the real terminal.
//!
//! The model's parts (`cells`, `composer`, `approval`, `picker`, `slash`)
//! are plain state. `focus` decides which layer has the keys; `layout`
//! turns state into rows and `screen` places the panels, for `update` and
//! `view` alike; `theme` names every style. `widgets` holds pure building
//! blocks (Markdown, highlighting, diffs, the question panel).

pub mod app;
pub mod approval;
pub mod cells;
pub mod clipboard;
pub mod composer;
pub mod cost;
pub mod export;
pub mod file_popup;
pub mod focus;
pub mod history;
pub mod keys;
pub mod launcher;
pub mod layout;
pub mod model;
pub mod msg;
pub mod picker;
pub mod resume_picker;
pub mod screen;
pub mod scrollback;
pub mod slash;
pub mod terminal;
pub mod theme;
pub mod update;
pub mod view;
pub mod wheel;
pub mod widgets;

pub use model::Model;
pub use msg::{Cmd, Msg};
pub use update::{settle, step, update};
pub use view::view;
