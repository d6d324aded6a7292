//! The composer: a multi-line input with a prompt, drawn from the rows
//! `layout::composer` computes, so the view stays a pure function of the
//! model. Chips (large pastes) stand out from the typed text.

use crate::tui::focus::Focus;
use crate::tui::layout::composer::{PROMPT_WIDTH, Row, window};
use crate::tui::model::Model;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

pub fn render(model: &Model, focus: Focus, theme: &Theme, frame: &mut Frame, area: Rect) {
    // A request above has the keys: the composer steps back.
    let waiting = focus.is_request();
    let border = if waiting {
        theme.border().add_modifier(Modifier::DIM)
    } else {
        theme.border()
    };
    let block = Block::default()
        .borders(Borders::TOP | Borders::BOTTOM)
        .border_style(border);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if model.composer.is_empty() {
        let hint = if waiting {
            "Answer the request above first"
        } else if model.busy {
            "Type to queue a message for after this turn"
        } else {
            "Ask zcode to do something"
        };
        let line = Line::from(vec![
            Span::styled("› ", theme.accent()),
            Span::styled(hint, theme.dim()),
        ]);
        frame.render_widget(Paragraph::new(line), inner);
        set_cursor(waiting, frame, inner, (0, 0));
        return;
    }
    let text_width = usize::from(inner.width.saturating_sub(PROMPT_WIDTH));
    // Keep the cursor's row in view, bottom-most when it must scroll.
    let height = usize::from(inner.height).max(1);
    let (rows, (cursor_row, cursor_col)) = window(&model.composer, text_width, height);
    let lines: Vec<Line> = rows
        .iter()
        .map(|row| {
            let lead = if row.line == 0 && row.start == 0 {
                "› "
            } else {
                "  "
            };
            let mut spans = vec![Span::styled(lead, theme.accent())];
            spans.extend(row_spans(model, row, theme));
            Line::from(spans)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
    set_cursor(waiting, frame, inner, (cursor_row, cursor_col));
}

/// The text of one row, the chips (large pastes) in their own style.
fn row_spans(model: &Model, row: &Row, theme: &Theme) -> Vec<Span<'static>> {
    let line: Vec<char> = model.composer.lines()[row.line].chars().collect();
    let piece = |from: usize, to: usize| -> String { line[from..to].iter().collect() };
    let mut out = Vec::new();
    let mut at = row.start;
    for (start, end) in model.composer.chip_spans(row.line) {
        let (start, end) = (start.max(at), end.min(row.end));
        if start >= end {
            continue;
        }
        if at < start {
            out.push(Span::raw(piece(at, start)));
        }
        out.push(Span::styled(piece(start, end), theme.paste_chip()));
        at = end;
    }
    if at < row.end {
        out.push(Span::raw(piece(at, row.end)));
    }
    out
}

/// Shows the terminal cursor at (row, column) of the text, unless a
/// request (`waiting`) has the keys.
fn set_cursor(waiting: bool, frame: &mut Frame, inner: Rect, (row, col): (usize, usize)) {
    if waiting || inner.height == 0 {
        return;
    }
    let x = (inner.x + PROMPT_WIDTH).saturating_add(u16::try_from(col).unwrap_or(u16::MAX));
    let y = inner.y + u16::try_from(row).unwrap_or(0);
    frame.set_cursor_position(Position::new(
        x.min(inner.right().saturating_sub(1)),
        y.min(inner.bottom().saturating_sub(1)),
    ));
}
