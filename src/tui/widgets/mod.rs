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

use ratatui::style::{Color, Modifier, Style};

/// The styles every widget draws with. [`Theme::monochrome`] (for
/// `NO_COLOR`, TUI-5) uses no colour at all, only bold, italic, underline,
/// reverse and text prefixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    /// `false`: no colours anywhere (code blocks are not highlighted).
    pub color: bool,
    pub heading: Style,
    pub emphasis: Style,
    pub strong: Style,
    pub strikethrough: Style,
    pub inline_code: Style,
    pub code_block: Style,
    pub link: Style,
    pub url: Style,
    pub quote: Style,
    pub rule: Style,
    pub list_marker: Style,
    pub dim: Style,
    pub accent: Style,
    pub selected: Style,
    pub chip: Style,
    pub chip_active: Style,
    pub diff_add: Style,
    pub diff_remove: Style,
    pub diff_hunk: Style,
    pub diff_header: Style,
}

impl Default for Theme {
    fn default() -> Self {
        Self::colored()
    }
}

impl Theme {
    /// The normal, coloured theme.
    pub fn colored() -> Self {
        let dim = Style::new().add_modifier(Modifier::DIM);
        Self {
            color: true,
            heading: Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            emphasis: Style::new().add_modifier(Modifier::ITALIC),
            strong: Style::new().add_modifier(Modifier::BOLD),
            strikethrough: Style::new().add_modifier(Modifier::CROSSED_OUT),
            inline_code: Style::new().fg(Color::Yellow),
            code_block: Style::new(),
            link: Style::new()
                .fg(Color::Blue)
                .add_modifier(Modifier::UNDERLINED),
            url: dim,
            quote: Style::new().fg(Color::Gray).add_modifier(Modifier::ITALIC),
            rule: dim,
            list_marker: Style::new().fg(Color::Cyan),
            dim,
            accent: Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            selected: Style::new().fg(Color::Green),
            chip: Style::new().fg(Color::Black).bg(Color::Gray),
            chip_active: Style::new()
                .fg(Color::Black)
                .bg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
            diff_add: Style::new().fg(Color::Green),
            diff_remove: Style::new().fg(Color::Red),
            diff_hunk: Style::new().fg(Color::Cyan),
            diff_header: dim.add_modifier(Modifier::BOLD),
        }
    }

    /// The `NO_COLOR` theme: modifiers only.
    pub fn monochrome() -> Self {
        let plain = Style::new();
        let bold = plain.add_modifier(Modifier::BOLD);
        Self {
            color: false,
            heading: bold.add_modifier(Modifier::UNDERLINED),
            emphasis: plain.add_modifier(Modifier::ITALIC),
            strong: bold,
            strikethrough: plain.add_modifier(Modifier::CROSSED_OUT),
            inline_code: plain,
            code_block: plain,
            link: plain.add_modifier(Modifier::UNDERLINED),
            url: plain,
            quote: plain.add_modifier(Modifier::ITALIC),
            rule: plain,
            list_marker: plain,
            dim: plain,
            accent: bold,
            selected: bold,
            chip: plain,
            chip_active: plain.add_modifier(Modifier::REVERSED),
            diff_add: plain,
            diff_remove: plain,
            diff_hunk: bold,
            diff_header: bold,
        }
    }

    /// The theme `NO_COLOR` asks for: monochrome when the variable is set
    /// to anything non-empty.
    pub fn from_no_color(no_color: Option<&str>) -> Self {
        match no_color {
            Some(v) if !v.is_empty() => Self::monochrome(),
            _ => Self::colored(),
        }
    }
}
