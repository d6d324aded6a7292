//! The slash-command completion popup above the composer (TUI-4): name,
//! argument hint and description of each matching command, the selected
//! row highlighted, at most `POPUP_ROWS` rows; when more commands match,
//! the last row counts those above and below.

use super::picker::{list_row, pad, window};
use crate::tui::focus::slash_popup;
use crate::tui::model::Model;
use crate::tui::slash::POPUP_ROWS;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use unicode_width::UnicodeWidthStr;

pub fn render(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let Some(popup) = slash_popup(model) else {
        return;
    };
    let block = Block::default()
        .borders(Borders::TOP)
        .border_style(theme.border())
        .title(Span::styled(" commands ", theme.dim()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width);
    let room = usize::from(inner.height).min(POPUP_ROWS);
    let len = popup.items.len();
    // When not every command fits, the last row says how many are hidden
    // above and below the ones shown.
    let counted = len > room && room > 1;
    let list_rows = if counted { room - 1 } else { room };
    let (start, end) = window(len, popup.selected, list_rows);
    let shown = &popup.items[start..end];
    let name_width = shown.iter().map(|c| c.name.width() + 1).max().unwrap_or(0);
    let arg_width = shown
        .iter()
        .map(|c| c.arg.as_deref().map_or(0, UnicodeWidthStr::width))
        .max()
        .unwrap_or(0);
    let mut lines: Vec<Line> = shown
        .iter()
        .enumerate()
        .map(|(offset, c)| {
            let selected = start + offset == popup.selected;
            let parts = vec![
                (" ".to_string(), Style::default()),
                (pad(&format!("/{}", c.name), name_width), theme.accent()),
                (" ".to_string(), Style::default()),
                (pad(c.arg.as_deref().unwrap_or(""), arg_width), theme.dim()),
                ("  ".to_string(), Style::default()),
                (c.description.clone(), Style::default()),
            ];
            list_row(parts, width, selected, theme)
        })
        .collect();
    if let Some(more) = more_row(start, len - end).filter(|_| counted) {
        lines.push(Line::from(Span::styled(more, theme.dim())));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// "↑ 2 more  ↓ 3 more": the commands above and below the visible rows;
/// `None` when all show.
pub(super) fn more_row(above: usize, below: usize) -> Option<String> {
    let mut parts = Vec::new();
    if above > 0 {
        parts.push(format!("↑ {above} more"));
    }
    if below > 0 {
        parts.push(format!("↓ {below} more"));
    }
    (!parts.is_empty()).then(|| format!(" {}", parts.join("  ")))
}
