//! The transcript: user messages, assistant replies (streaming), tool
//! calls, bottom-anchored and scrolled; the rows come from the layout.

use crate::tui::layout::cell::{banner_lines, cell_lines, queued_lines};
use crate::tui::model::Model;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Renders the transcript, bottom-anchored, scrolled back by `model.scroll`.
/// Only the visible rows are built (TUI-2): from the layout `update` keeps
/// when it is in step with the cells at this width, else by laying out
/// cells from the bottom up until the window is full.
pub fn render(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let width = usize::from(area.width);
    let height = usize::from(area.height);
    let tail = queued_lines(&model.queued, theme, width);
    let (mut visible, scroll) = cached_window(model, area.width, height, &tail)
        .unwrap_or_else(|| walked_window(model, theme, width, height, tail));
    if scroll > 0 && !visible.is_empty() {
        let last = visible.len() - 1;
        visible[last] = Line::from(Span::styled(
            format!("↓ {scroll} more lines · End returns to the bottom"),
            theme.dim(),
        ));
    }
    frame.render_widget(Paragraph::new(visible), area);
}

/// The visible rows and the clamped scroll, read from the layout; `None`
/// when the layout is not complete and in step with the cells at this
/// width.
fn cached_window(
    model: &Model,
    width: u16,
    height: usize,
    tail: &[Line<'static>],
) -> Option<(Vec<Line<'static>>, usize)> {
    let layout = &model.transcript_layout;
    let cells = &model.cells;
    if cells.is_empty() || !layout.in_step(cells, width, model.monochrome) {
        return None;
    }
    let head = layout.rows();
    let total = head + tail.len();
    let scroll = model.scroll.min(total.saturating_sub(height));
    let end = total - scroll;
    let start = end.saturating_sub(height);
    let mut out = Vec::with_capacity(end - start);
    let mut row = start;
    let mut i = layout.cell_at(start);
    while row < end.min(head) {
        let rows = layout.lines(i, cells)?;
        let (first, next) = (layout.start(i), layout.start(i + 1));
        for r in row..next.min(end) {
            match (r - first).checked_sub(usize::from(i > 0)) {
                Some(k) => out.push(rows.get(k)?.clone()),
                None => out.push(Line::default()),
            }
        }
        row = next;
        i += 1;
    }
    if end > head {
        out.extend(tail[start.max(head) - head..end - head].iter().cloned());
    }
    Some((out, scroll))
}

/// The visible rows and the clamped scroll, laying out cells from the
/// bottom up (reusing the layout's rows where they match) until the window
/// is full; a scroll to the top lays out everything.
fn walked_window(
    model: &Model,
    theme: &Theme,
    width: usize,
    height: usize,
    tail: Vec<Line<'static>>,
) -> (Vec<Line<'static>>, usize) {
    let layout = &model.transcript_layout;
    let reuse = u16::try_from(width).is_ok_and(|w| layout.is_for(w, model.monochrome));
    let needed = model.scroll.saturating_add(height);
    let mut collected = tail.len();
    let mut chunks = vec![tail];
    if model.cells.is_empty() {
        let banner = banner_lines(&model.workspace, theme, width);
        collected += banner.len();
        chunks.push(banner);
    }
    for (i, cell) in model.cells.iter().enumerate().rev() {
        if collected >= needed {
            break;
        }
        let mut rows = Vec::new();
        if i > 0 {
            rows.push(Line::default());
        }
        match layout.lines(i, &model.cells).filter(|_| reuse) {
            Some(cached) => rows.extend_from_slice(cached),
            None => cell_lines(cell, theme, width, &mut rows),
        }
        collected += rows.len();
        chunks.push(rows);
    }
    let rows: Vec<Line<'static>> = chunks.into_iter().rev().flatten().collect();
    let scroll = model.scroll.min(rows.len().saturating_sub(height));
    let end = rows.len() - scroll;
    let start = end.saturating_sub(height);
    (rows[start..end].to_vec(), scroll)
}
