//! The transcript: user messages, assistant replies (streaming), tool calls.

use super::{Theme, truncate, wrap};
use crate::tui::model::{Cell, Model, ToolStatus};
use crate::tui::widgets::markdown::{render_markdown, render_streaming};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Renders the transcript, bottom-anchored, scrolled back by `model.scroll`.
pub fn render(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let lines = lines(model, theme, usize::from(area.width));
    let height = usize::from(area.height);
    let max_scroll = lines.len().saturating_sub(height);
    let scroll = usize::from(model.scroll).min(max_scroll);
    let end = lines.len() - scroll;
    let start = end.saturating_sub(height);
    let mut visible: Vec<Line> = lines[start..end].to_vec();
    if scroll > 0 && !visible.is_empty() {
        let last = visible.len() - 1;
        visible[last] = Line::from(Span::styled(
            format!("↓ {scroll} more lines · End returns to the bottom"),
            theme.dim(),
        ));
    }
    frame.render_widget(Paragraph::new(visible), area);
}

/// All rows of the transcript, already wrapped to `width`.
pub fn lines(model: &Model, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = Vec::new();
    if model.cells.is_empty() {
        out.push(Line::from(Span::styled("zcode", theme.accent())));
        if !model.workspace.is_empty() {
            out.push(Line::from(Span::styled(
                truncate(&model.workspace, width),
                theme.dim(),
            )));
        }
        out.push(Line::from(Span::styled(
            "Type a task and press Enter. Shift+Tab changes the mode.",
            theme.dim(),
        )));
    }
    for (i, cell) in model.cells.iter().enumerate() {
        if i > 0 {
            out.push(Line::default());
        }
        cell_lines(cell, theme, width, &mut out);
    }
    for text in &model.queued {
        out.push(Line::default());
        push_prefixed(
            &mut out,
            &format!("queued: {text}"),
            "⏸ ",
            theme.dim(),
            theme.dim(),
            width,
        );
    }
    out
}

fn cell_lines(cell: &Cell, theme: &Theme, width: usize, out: &mut Vec<Line<'static>>) {
    match cell {
        Cell::User { text } => push_prefixed(out, text, "› ", theme.accent(), theme.bold(), width),
        Cell::Assistant { text, streaming } => {
            // Markdown, with only finished blocks rendered while streaming so
            // that a growing reply does not reflow (TUI-2).
            let md_width = u16::try_from(width.saturating_sub(2)).unwrap_or(u16::MAX);
            let widgets = theme.widgets();
            let (mut rows, tail) = if *streaming {
                render_streaming(text, md_width, &widgets)
            } else {
                (render_markdown(text, md_width, &widgets), "")
            };
            if *streaming {
                let tail = format!("{tail}▌");
                rows.extend(
                    wrap(&tail, width.saturating_sub(2))
                        .into_iter()
                        .map(Line::from),
                );
            }
            for (i, row) in rows.into_iter().enumerate() {
                let lead = if i == 0 { "● " } else { "  " };
                let mut spans = vec![Span::styled(lead, theme.fg(Color::White))];
                spans.extend(row.spans);
                out.push(Line::from(spans));
            }
        }
        Cell::Tool {
            tool,
            summary,
            status,
            detail,
            ..
        } => {
            let (mark, style, label) = match status {
                ToolStatus::Running => ("◌ ", theme.fg(Color::Yellow), "running"),
                ToolStatus::Done => ("✓ ", theme.fg(Color::Green), ""),
                ToolStatus::Failed => ("✗ ", theme.fg(Color::Red), "failed"),
                ToolStatus::Denied => ("⊘ ", theme.fg(Color::Red), "denied"),
            };
            let head_width = width.saturating_sub(2 + tool.chars().count() + 1);
            let mut spans = vec![
                Span::styled(mark, style),
                Span::styled(tool.clone(), theme.bold()),
            ];
            if !summary.is_empty() {
                spans.push(Span::raw(" "));
                spans.push(Span::raw(truncate(
                    summary.lines().next().unwrap_or_default(),
                    head_width,
                )));
            }
            out.push(Line::from(spans));
            let detail = match (label.is_empty(), detail.is_empty()) {
                (_, false) => detail.clone(),
                (false, true) => label.to_string(),
                (true, true) => String::new(),
            };
            if !detail.is_empty() {
                let row = truncate(&detail, width.saturating_sub(4));
                out.push(Line::from(vec![
                    Span::styled("  └ ", theme.dim()),
                    Span::styled(row, detail_style(*status, theme)),
                ]));
            }
        }
        Cell::Notice { text } => push_prefixed(
            out,
            text,
            "· ",
            theme.dim(),
            theme.dim().add_modifier(Modifier::ITALIC),
            width,
        ),
        Cell::Error { text } => push_prefixed(
            out,
            &format!("error: {text}"),
            "! ",
            theme.fg(Color::Red).add_modifier(Modifier::BOLD),
            theme.fg(Color::Red),
            width,
        ),
    }
}

fn detail_style(status: ToolStatus, theme: &Theme) -> Style {
    match status {
        ToolStatus::Failed | ToolStatus::Denied => theme.fg(Color::Red),
        _ => theme.dim(),
    }
}

/// Wraps `text` to the width left after a two-column prefix shown on the
/// first row.
fn push_prefixed(
    out: &mut Vec<Line<'static>>,
    text: &str,
    prefix: &'static str,
    prefix_style: Style,
    style: Style,
    width: usize,
) {
    for (i, row) in wrap(text, width.saturating_sub(2)).into_iter().enumerate() {
        let lead = if i == 0 { prefix } else { "  " };
        out.push(Line::from(vec![
            Span::styled(lead, prefix_style),
            Span::styled(row, style),
        ]));
    }
}
