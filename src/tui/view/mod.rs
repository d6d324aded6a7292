//! The pure view (TUI-1, TUI-2): `view(&Model, &mut Frame)`, one file per
//! panel.

pub mod approval;
pub mod composer;
pub mod picker;
pub mod sidebar;
pub mod slash_popup;
pub mod status;
pub mod transcript;

use super::model::Model;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use unicode_width::UnicodeWidthChar;

/// The width of the transcript column: the terminal's, less the todo
/// sidebar while it shows. Layout and anything that wraps transcript rows
/// use this one function, so they agree.
pub fn transcript_width(model: &Model) -> u16 {
    model.width.saturating_sub(sidebar::width(model))
}

/// Draws the whole screen.
pub fn view(model: &Model, frame: &mut Frame) {
    let area = frame.area();
    let theme = Theme::new(model.monochrome);
    let (approval_height, overlay_height, composer_height) =
        panel_heights(model, area.width, area.height);
    let [
        main_area,
        approval_area,
        overlay_area,
        composer_area,
        status_area,
        footer_area,
    ] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(approval_height),
        Constraint::Length(overlay_height),
        Constraint::Length(composer_height),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    // The sidebar sits beside the transcript only; panels below keep the
    // full width.
    let transcript_cols = transcript_width(model).min(main_area.width);
    let transcript_area = Rect {
        width: transcript_cols,
        ..main_area
    };
    let sidebar_area = Rect {
        x: main_area.x + transcript_cols,
        width: main_area.width - transcript_cols,
        ..main_area
    };
    transcript::render(model, &theme, frame, transcript_area);
    if sidebar_area.width > 0 {
        sidebar::render(model, &theme, frame, sidebar_area);
    }
    if approval_height > 0 {
        approval::render(model, &theme, frame, approval_area);
    }
    if overlay_height > 0 {
        picker::render(model, &theme, frame, overlay_area);
        slash_popup::render(model, &theme, frame, overlay_area);
    }
    composer::render(model, &theme, frame, composer_area);
    status::render_status(model, &theme, frame, status_area);
    status::render_footer(model, &theme, frame, footer_area);
}

/// The transcript's height in rows at the model's size, as `view` lays the
/// screen out; `update` clamps the scroll with it.
pub fn transcript_height(model: &Model) -> u16 {
    let (approval, overlay, composer) = panel_heights(model, model.width, model.height);
    let others = approval + overlay + composer + 2;
    model.height.saturating_sub(others).max(1)
}

/// The heights of the approval panel, the picker or slash popup, and the
/// composer on a screen of this size: one computation for `view` and for
/// `transcript_height`.
fn panel_heights(model: &Model, width: u16, height: u16) -> (u16, u16, u16) {
    let composer_height = composer::height(model, height);
    let approval_height = approval::height(model, width, height);
    // The picker or the slash popup sits right above the composer.
    let overlay_height = (picker::height(model) + slash_popup::height(model))
        .min(height.saturating_sub(composer_height + 3));
    (approval_height, overlay_height, composer_height)
}

/// Styles, monochrome under `NO_COLOR` (TUI-5): colours are dropped, the
/// modifiers stay.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    monochrome: bool,
}

impl Theme {
    pub fn new(monochrome: bool) -> Self {
        Self { monochrome }
    }

    pub fn is_monochrome(&self) -> bool {
        self.monochrome
    }

    /// The matching theme of the Markdown and diff widgets.
    pub fn widgets(&self) -> crate::tui::widgets::Theme {
        if self.monochrome {
            crate::tui::widgets::Theme::monochrome()
        } else {
            crate::tui::widgets::Theme::colored()
        }
    }

    pub fn fg(&self, color: Color) -> Style {
        if self.monochrome {
            Style::default()
        } else {
            Style::default().fg(color)
        }
    }

    pub fn dim(&self) -> Style {
        self.fg(Color::DarkGray).add_modifier(Modifier::DIM)
    }

    pub fn bold(&self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }

    pub fn accent(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    pub fn selected(&self) -> Style {
        if self.monochrome {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default().fg(Color::Black).bg(Color::Cyan)
        }
    }
}

/// Splits `text` into rows of at most `width` columns (by display width),
/// breaking at spaces where it can. Empty lines stay.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    for line in text.split('\n') {
        let mut row = String::new();
        let mut row_width = 0usize;
        for word in split_keep_spaces(line) {
            let word_width: usize = word.chars().map(|c| c.width().unwrap_or(0)).sum();
            if row_width + word_width <= width {
                row.push_str(word);
                row_width += word_width;
                continue;
            }
            if row_width > 0 && word_width <= width {
                rows.push(std::mem::take(&mut row).trim_end().to_string());
                row_width = 0;
                if word.trim().is_empty() {
                    continue;
                }
                row.push_str(word);
                row_width = word_width;
                continue;
            }
            // Longer than a row: hard-break it.
            for c in word.chars() {
                let w = c.width().unwrap_or(0);
                if row_width + w > width && row_width > 0 {
                    rows.push(std::mem::take(&mut row));
                    row_width = 0;
                }
                row.push(c);
                row_width += w;
            }
        }
        rows.push(row);
    }
    rows
}

/// Words with their trailing spaces as separate pieces.
fn split_keep_spaces(line: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut in_space = None;
    for (i, c) in line.char_indices() {
        let space = c == ' ';
        match in_space {
            Some(prev) if prev != space => {
                pieces.push(&line[start..i]);
                start = i;
            }
            _ => {}
        }
        in_space = Some(space);
    }
    if start < line.len() {
        pieces.push(&line[start..]);
    }
    pieces
}

/// Truncates `text` to `width` columns with an ellipsis.
pub fn truncate(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    let total: usize = text.chars().map(|c| c.width().unwrap_or(0)).sum();
    if total <= width {
        return text.to_string();
    }
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}
