//! The picker panel above the composer (`/mode`, `/model`, `/permissions`,
//! `/resume`): a titled list, the highlighted row in the selection colours,
//! the current entry marked.

use crate::tui::layout::truncate;
use crate::tui::model::Model;
use crate::tui::picker::Picker;
use crate::tui::screen::PICKER_ROWS;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use unicode_width::UnicodeWidthStr;

pub fn render(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let Some(picker) = &model.picker else {
        return;
    };
    let block = Block::default()
        .borders(Borders::TOP)
        .border_style(theme.border())
        .title(Span::styled(format!(" {} ", picker.title), theme.accent()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width);
    let lines = if picker.items.is_empty() {
        vec![Line::from(Span::styled(
            truncate(&format!("  {}", picker.empty_text()), width),
            theme.dim(),
        ))]
    } else {
        rows(picker, theme, width, usize::from(inner.height))
    };
    frame.render_widget(Paragraph::new(lines), inner);
}

fn rows<'a>(picker: &'a Picker, theme: &Theme, width: usize, room: usize) -> Vec<Line<'a>> {
    let (start, end) = window(picker.items.len(), picker.selected, room.min(PICKER_ROWS));
    let label_width = picker.items[start..end]
        .iter()
        .map(|i| i.label.width())
        .max()
        .unwrap_or(0)
        .min(width / 2);
    picker.items[start..end]
        .iter()
        .enumerate()
        .map(|(offset, item)| {
            let selected = start + offset == picker.selected;
            let marker = if selected { "› " } else { "  " };
            let mut parts = vec![
                (marker.to_string(), theme.accent()),
                (pad(&item.label, label_width), theme.bold()),
                ("  ".to_string(), Style::default()),
                (item.detail.clone(), theme.dim()),
            ];
            if item.current {
                parts.push(("  (current)".to_string(), theme.accent()));
            }
            if picker.armed == Some(start + offset) {
                parts.push(("  d again removes it".to_string(), theme.warning()));
            }
            list_row(parts, width, selected, theme)
        })
        .collect()
}

/// The `[start, end)` slice of `len` rows that shows `selected` in `room`
/// rows, scrolling only as far as needed.
pub fn window(len: usize, selected: usize, room: usize) -> (usize, usize) {
    let room = room.max(1);
    if len <= room {
        return (0, len);
    }
    let start = selected.saturating_sub(room - 1).min(len - room);
    (start, start + room)
}

/// `text` padded with spaces (or cut) to `width` columns.
pub fn pad(text: &str, width: usize) -> String {
    let cut = truncate(text, width);
    let used = cut.width();
    format!("{cut}{}", " ".repeat(width.saturating_sub(used)))
}

/// One row from styled pieces, cut to `width` with an ellipsis; a
/// selected row is filled to the edge in the selection style.
pub fn list_row(
    parts: Vec<(String, Style)>,
    width: usize,
    selected: bool,
    theme: &Theme,
) -> Line<'static> {
    let mut spans = Vec::new();
    let mut used = 0;
    for (text, style) in parts {
        if used >= width {
            break;
        }
        let piece = truncate(&text, width - used);
        used += piece.width();
        let style = if selected {
            style.patch(theme.selected())
        } else {
            style
        };
        spans.push(Span::styled(piece, style));
    }
    if selected && used < width {
        spans.push(Span::styled(" ".repeat(width - used), theme.selected()));
    }
    Line::from(spans)
}
