//! The composer: a multi-line input with a prompt.

use super::Theme;
use crate::tui::model::Model;
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// At most this many text rows are shown; the rest scrolls.
const MAX_ROWS: u16 = 8;

/// Rows the composer takes: its text rows plus the top and bottom borders.
pub fn height(model: &Model, screen_height: u16) -> u16 {
    let rows = u16::try_from(model.composer.line_count()).unwrap_or(MAX_ROWS);
    let cap = MAX_ROWS.min(screen_height.saturating_sub(4).max(1));
    rows.clamp(1, cap) + 2
}

pub fn render(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let border = if model.approvals.is_empty() {
        theme.dim()
    } else {
        theme.dim().add_modifier(ratatui::style::Modifier::DIM)
    };
    let block = Block::default()
        .borders(Borders::TOP | Borders::BOTTOM)
        .border_style(border);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let text_width = usize::from(inner.width.saturating_sub(2)).max(1);
    let mut lines: Vec<Line> = Vec::new();
    if model.composer.is_empty() {
        let hint = if !model.approvals.is_empty() {
            "Answer the request above first"
        } else if model.busy {
            "Type to queue a message for after this turn"
        } else {
            "Ask zcode to do something"
        };
        lines.push(Line::from(vec![
            Span::styled("› ", theme.accent()),
            Span::styled(hint, theme.dim()),
        ]));
    } else {
        for (i, line) in model.composer.text().split('\n').enumerate() {
            let lead = if i == 0 { "› " } else { "  " };
            // Long lines scroll sideways, not wrap, so the cursor math stays
            // simple.
            lines.push(Line::from(vec![
                Span::styled(lead, theme.accent()),
                Span::raw(line.to_string()),
            ]));
        }
    }
    let (row, col) = model.composer.cursor_position();
    let rows = usize::from(inner.height).max(1);
    let first = row.saturating_sub(rows - 1);
    let scroll_x = col.saturating_sub(text_width.saturating_sub(1));
    let para = Paragraph::new(lines).scroll((
        u16::try_from(first).unwrap_or(0),
        u16::try_from(scroll_x).unwrap_or(0),
    ));
    frame.render_widget(para, inner);
    if model.approvals.is_empty() && inner.height > 0 {
        let x = inner.x + 2 + u16::try_from(col - scroll_x).unwrap_or(0);
        let y = inner.y + u16::try_from(row - first).unwrap_or(0);
        frame.set_cursor_position(Position::new(x.min(inner.right().saturating_sub(1)), y));
    }
}
