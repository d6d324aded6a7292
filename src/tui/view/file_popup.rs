//! The `@file` completion list above the composer: the matching paths of
//! the workspace, directories ending in `/`, the highlighted row, at most
//! `POPUP_ROWS` rows; when more match, the last row counts the others.

use super::picker::{list_row, window};
use super::slash_popup::more_row;
use crate::tui::focus::file_menu;
use crate::tui::model::Model;
use crate::tui::slash::POPUP_ROWS;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

pub fn render(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let Some(menu) = file_menu(model) else {
        return;
    };
    let title = if model.files.is_done() {
        " files ".to_string()
    } else {
        format!(" files (listing… {} so far) ", model.files.len())
    };
    let block = Block::default()
        .borders(Borders::TOP)
        .border_style(theme.border())
        .title(Span::styled(title, theme.dim()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width);
    let room = usize::from(inner.height).min(POPUP_ROWS);
    let len = menu.items.len();
    let counted = len > room && room > 1;
    let list_rows = if counted { room - 1 } else { room };
    let (start, end) = window(len, menu.selected, list_rows);
    let mut lines: Vec<Line> = menu.items[start..end]
        .iter()
        .enumerate()
        .map(|(offset, entry)| {
            let selected = start + offset == menu.selected;
            let style = if entry.dir {
                theme.accent()
            } else {
                Style::default()
            };
            let parts = vec![(" @".to_string(), theme.dim()), (entry.shown(), style)];
            list_row(parts, width, selected, theme)
        })
        .collect();
    if let Some(more) = more_row(start, len - end).filter(|_| counted) {
        lines.push(Line::from(Span::styled(more, theme.dim())));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
