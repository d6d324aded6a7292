//! The todo sidebar (TODO-7): the session's todo list with a status mark per
//! item and "completed/total" progress, in a column right of the transcript
//! (its width and when it shows: `screen`). A blank two-column gutter,
//! not a border, sets it apart: a native selection of transcript rows (the
//! mouse is the terminal's) then picks up spaces, not box-drawing glyphs.

use crate::store::{TodoItem, TodoStatus};
use crate::tui::layout::wrap;
use crate::tui::model::Model;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// "completed/total".
pub fn progress(todos: &[TodoItem]) -> String {
    let done = todos
        .iter()
        .filter(|t| t.status == TodoStatus::Completed)
        .count();
    format!("{done}/{}", todos.len())
}

pub fn render(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let inner = Rect {
        x: area.x.saturating_add(2),
        width: area.width.saturating_sub(2),
        ..area
    };
    let lines = lines(&model.todos, theme, usize::from(inner.width));
    let height = usize::from(inner.height);
    frame.render_widget(Paragraph::new(fit(lines, height, theme)), inner);
}

/// The header and every item, wrapped to `width`.
pub(crate) fn lines(todos: &[TodoItem], theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let all_done = todos.iter().all(|t| t.status == TodoStatus::Completed);
    let count_style = if all_done {
        theme.success().add_modifier(Modifier::BOLD)
    } else {
        theme.accent()
    };
    let mut out = vec![
        Line::from(vec![
            Span::styled("Todos ", theme.bold()),
            Span::styled(progress(todos), count_style),
        ]),
        Line::default(),
    ];
    for item in todos {
        let (mark_style, text_style) = marks(item.status, theme);
        let mark = format!("{} ", item.status.mark());
        for (i, row) in wrap(&item.content, width.saturating_sub(2))
            .into_iter()
            .enumerate()
        {
            let lead = if i == 0 {
                Span::styled(mark.clone(), mark_style)
            } else {
                Span::raw("  ")
            };
            out.push(Line::from(vec![lead, Span::styled(row, text_style)]));
        }
    }
    out
}

/// The styles of a status's mark and text (the mark is
/// [`TodoStatus::mark`]): the item in progress stands out, done items step
/// back.
fn marks(status: TodoStatus, theme: &Theme) -> (Style, Style) {
    match status {
        TodoStatus::Pending => (theme.dim(), Style::default()),
        TodoStatus::InProgress => (
            theme.warning().add_modifier(Modifier::BOLD),
            theme.warning().add_modifier(Modifier::BOLD),
        ),
        TodoStatus::Completed => (
            theme.success(),
            theme.dim().add_modifier(Modifier::CROSSED_OUT),
        ),
    }
}

/// Cuts the rows to `height`, saying how many were left out.
pub(crate) fn fit(
    mut lines: Vec<Line<'static>>,
    height: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    if lines.len() <= height || height == 0 {
        return lines;
    }
    let hidden = lines.len() - (height - 1);
    lines.truncate(height - 1);
    lines.push(Line::from(Span::styled(
        format!("… {hidden} more rows"),
        theme.dim(),
    )));
    lines
}
