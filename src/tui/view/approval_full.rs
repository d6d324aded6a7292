//! The head request full screen (Ctrl+O on its panel): a title row with
//! where the view is, the request's rows, and the footer with the keys
//! back. Its rows come from `layout::approval_full`.

use crate::tui::layout::approval_full::{full_rows, full_title, last_start};
use crate::tui::model::Model;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

/// Draws the view over `area` (the screen less its footer row).
pub fn render(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let Some(request) = model.head() else {
        return;
    };
    let panel = model.panel();
    frame.render_widget(Clear, area);
    // One column free on each side: the panel's inner width, so the rows
    // `update` keeps for the panel serve here too.
    let inner = Rect {
        x: area.x.saturating_add(1),
        width: area.width.saturating_sub(2),
        ..area
    };
    let rows = full_rows(request, panel, theme, usize::from(inner.width));
    let height = usize::from(area.height.saturating_sub(1));
    let start = panel
        .and_then(|p| p.full_screen)
        .unwrap_or(0)
        .min(last_start(rows.len(), height));
    let end = (start + height).min(rows.len());
    let position = if rows.is_empty() {
        String::new()
    } else {
        format!(" · lines {}–{end} of {}", start + 1, rows.len())
    };
    let title = Line::from(vec![
        Span::styled(full_title(request), theme.bold()),
        Span::styled(position, theme.dim()),
    ]);
    let mut lines = vec![title];
    lines.extend(rows.into_iter().skip(start).take(height));
    frame.render_widget(Paragraph::new(lines), inner);
}
