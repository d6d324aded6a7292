//! The approval panel (TUI-3, APPR-6): the head of the queue in a bordered
//! box, with a count of the rest. Its rows come from `layout::approval`.

use crate::protocol::RequestKind;
use crate::tui::layout::approval::fit;
use crate::tui::model::Model;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

pub fn render(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let Some(request) = model.head() else {
        return;
    };
    let panel = model.panel();
    let title = match request.kind {
        RequestKind::Tool => "Permission",
        RequestKind::Plan => "Plan approval",
        RequestKind::Question => "Question",
    };
    let count = if model.approvals.len() > 1 {
        format!(" · 1 of {}", model.approvals.len())
    } else {
        String::new()
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.attention_border())
        .title(Line::from(vec![
            Span::styled(format!(" {title}"), theme.bold()),
            Span::styled(format!("{count} "), theme.dim()),
        ]));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // The rows that fit, the options always among them (`layout::approval`).
    let fitted = fit(
        request,
        panel,
        theme,
        usize::from(inner.width),
        usize::from(inner.height),
    );
    frame.render_widget(Paragraph::new(fitted.lines), inner);
}
