//! Pure rendering building blocks for the TUI (TUI-2, TUI-3, ASK-6): Markdown
//! with highlighted code, unified diffs and the question panel. Nothing here
//! touches the terminal or the runtime; everything turns data into ratatui
//! `Line`s or draws into a `Buffer`.

pub mod diff;
pub mod highlight;
pub mod markdown;
pub mod markdown_blocks;
pub mod markdown_doc;
mod markdown_table;
pub mod question_panel;
mod question_panel_view;

/// The widgets draw with the TUI's one theme.
pub use crate::tui::theme::Theme;
