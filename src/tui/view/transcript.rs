//! The transcript: user messages, assistant replies (streaming), tool calls.

use super::{Theme, truncate, wrap};
use crate::tui::model::{Cell, Model, ToolStatus};
use crate::tui::widgets::diff::{DiffLineKind, classify, line_style};
use crate::tui::widgets::markdown::str_width;
use crate::tui::widgets::markdown_doc::MarkdownDoc;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Renders the transcript, bottom-anchored, scrolled back by `model.scroll`.
/// Only the visible rows are built (TUI-2): from the layout `update` keeps
/// when it is in step with the cells at this width, else by laying out
/// cells from the bottom up until the window is full.
pub fn render(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let width = usize::from(area.width);
    let height = usize::from(area.height);
    let tail = tail_lines(model, theme, width);
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

/// How many rows the transcript has at `width`: from the layout as
/// `update` just synchronised it, else by laying everything out.
pub fn row_count(model: &Model, width: u16) -> usize {
    let theme = Theme::new(model.monochrome);
    let layout = &model.transcript_layout;
    let in_step = !model.cells.is_empty() && layout.in_step(&model.cells, width, model.monochrome);
    if in_step {
        layout.rows() + tail_lines(model, &theme, usize::from(width)).len()
    } else {
        lines(model, &theme, usize::from(width)).len()
    }
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
        let banner = banner_lines(model, theme, width);
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

/// All rows of the transcript, already wrapped to `width`.
pub fn lines(model: &Model, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = Vec::new();
    if model.cells.is_empty() {
        out.extend(banner_lines(model, theme, width));
    }
    for (i, cell) in model.cells.iter().enumerate() {
        if i > 0 {
            out.push(Line::default());
        }
        cell_lines(cell, theme, width, &mut out);
    }
    out.extend(tail_lines(model, theme, width));
    out
}

/// What an empty session shows.
fn banner_lines(model: &Model, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(Span::styled("zcode", theme.accent()))];
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
    out
}

/// The inputs queued behind the running turn, below the cells.
fn tail_lines(model: &Model, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
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

/// The rows of one cell at `width`, appended to `out`.
pub fn cell_lines(cell: &Cell, theme: &Theme, width: usize, out: &mut Vec<Line<'static>>) {
    match cell {
        Cell::User { text } => push_prefixed(out, text, "› ", theme.accent(), theme.bold(), width),
        Cell::Assistant { text, streaming } => {
            // Markdown, rendered block by block so that a growing reply
            // does not reflow (TUI-2); the layout keeps the document and
            // renders only what is new.
            let mut doc = MarkdownDoc::new(reply_width(width), &theme.widgets());
            doc.push(text);
            let finished = doc.finished_rows().iter().cloned();
            let rows = finished.chain(reply_open_rows(&doc, *streaming));
            for (i, row) in rows.enumerate() {
                out.push(reply_row(i, row, theme));
            }
        }
        Cell::Tool {
            tool,
            summary,
            status,
            detail,
            output,
            diff,
            expanded,
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
            if *expanded && (!output.is_empty() || diff.is_some()) {
                expanded_output(output, diff.as_deref(), *status, theme, width, out);
                return;
            }
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
            // An Edit or Write shows what it changed; other tools say how
            // much more there is to read.
            let hidden = match diff {
                Some(diff) => diff_rows(diff, COLLAPSED_DIFF_ROWS, theme, width, out),
                None => output
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .count()
                    .saturating_sub(1),
            };
            if hidden > 0 {
                let noun = if hidden == 1 { "line" } else { "lines" };
                out.push(Line::from(Span::styled(
                    format!("    … +{hidden} {noun} (ctrl+o to expand)"),
                    theme.dim(),
                )));
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

/// The Markdown width of a reply in a transcript `width` columns wide.
pub fn reply_width(width: usize) -> u16 {
    u16::try_from(width.saturating_sub(2)).unwrap_or(u16::MAX)
}

/// Row `i` of a reply, after its lead: a bullet on the first row.
pub fn reply_row(i: usize, row: Line<'static>, theme: &Theme) -> Line<'static> {
    let lead = if i == 0 { "● " } else { "  " };
    let mut spans = vec![Span::styled(lead, theme.fg(Color::White))];
    spans.extend(row.spans);
    Line::from(spans)
}

/// The rows after a reply's finished ones: its open block and, while it
/// streams, the cursor after the text.
pub fn reply_open_rows(doc: &MarkdownDoc, streaming: bool) -> Vec<Line<'static>> {
    let mut rows = doc.open_rows();
    if streaming {
        const CURSOR: &str = "▌";
        let width = usize::from(doc.width());
        match rows.last_mut() {
            Some(last) if !last.spans.is_empty() && last.width() + str_width(CURSOR) <= width => {
                last.spans.push(Span::raw(CURSOR));
            }
            _ => rows.push(Line::from(CURSOR)),
        }
    }
    rows
}

/// Diff rows a collapsed Edit or Write cell shows.
const COLLAPSED_DIFF_ROWS: usize = 8;

/// The whole output of an expanded tool cell, or its diff when it has one.
fn expanded_output(
    output: &str,
    diff: Option<&str>,
    status: ToolStatus,
    theme: &Theme,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
    if let Some(diff) = diff {
        if let Some(first) = output.lines().next() {
            out.push(Line::from(vec![
                Span::styled("  └ ", theme.dim()),
                Span::styled(truncate(first, width.saturating_sub(4)), theme.dim()),
            ]));
        }
        diff_rows(diff, usize::MAX, theme, width, out);
        return;
    }
    let style = detail_style(status, theme);
    for (i, line) in output.lines().enumerate() {
        let lead = if i == 0 { "  └ " } else { "    " };
        out.push(Line::from(vec![
            Span::styled(lead, theme.dim()),
            Span::styled(truncate(line, width.saturating_sub(4)), style),
        ]));
    }
}

/// Appends at most `max` rows of a unified diff, in colour, without its
/// file headers; returns how many rows were left out.
fn diff_rows(
    diff: &str,
    max: usize,
    theme: &Theme,
    width: usize,
    out: &mut Vec<Line<'static>>,
) -> usize {
    let widgets = theme.widgets();
    let rows: Vec<&str> = diff
        .lines()
        .filter(|line| classify(line) != DiffLineKind::Header)
        .collect();
    for row in rows.iter().take(max) {
        out.push(Line::from(vec![
            Span::raw("    "),
            Span::styled(
                truncate(&row.replace('\t', "    "), width.saturating_sub(4)),
                line_style(row, &widgets),
            ),
        ]));
    }
    rows.len().saturating_sub(max)
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
