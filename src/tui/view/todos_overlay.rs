//! The todo list as an overlay above the composer (Ctrl+T on a terminal
//! too narrow for the sidebar): the sidebar's rows under a rule, cut to the
//! rows `screen` gives it.

use super::sidebar;
use crate::tui::model::Model;
use crate::tui::screen::TODO_INDENT;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Block, Borders, Paragraph};

pub fn render(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let block = Block::default()
        .borders(Borders::TOP)
        .border_style(theme.border());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let inner = Rect {
        x: inner.x.saturating_add(TODO_INDENT),
        width: inner.width.saturating_sub(TODO_INDENT),
        ..inner
    };
    let lines = sidebar::lines(&model.todos, theme, usize::from(inner.width));
    let lines = sidebar::fit(lines, usize::from(inner.height), theme);
    frame.render_widget(Paragraph::new(lines), inner);
}
