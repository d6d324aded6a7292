//! The rows of one transcript cell at a width: user messages, replies
//! (Markdown), tool calls with their output or diff, notices and errors;
//! and the rows around the cells (an empty session's banner, the queued
//! inputs).

use super::agent::agent_group_lines;
use super::{truncate, wrap};
use crate::tui::cells::{Cell, LIVE_ROWS, ToolStatus, summarised};
use crate::tui::theme::Theme;
use crate::tui::widgets::diff::{DiffLineKind, classify, line_style};
use crate::tui::widgets::markdown::{str_width, wrap_preformatted};
use crate::tui::widgets::markdown_doc::{MarkdownDoc, render_markdown};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

/// What an empty session shows.
pub fn banner_lines(workspace: &str, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(Span::styled("zcode", theme.accent()))];
    if !workspace.is_empty() {
        out.push(Line::from(Span::styled(
            truncate(workspace, width),
            theme.dim(),
        )));
    }
    out.push(Line::from(Span::styled(
        "Type a task and press Enter. Shift+Tab changes the mode.",
        theme.dim(),
    )));
    out
}

/// What [`Cell::Welcome`] says.
pub const WELCOME: &str = "zcode · /help lists commands and keys · shift+tab changes the mode";

/// The welcome's rows: the name in the accent colour, the rest dim.
fn welcome_lines(theme: &Theme, width: usize, out: &mut Vec<Line<'static>>) {
    for (i, row) in wrap(WELCOME, width).into_iter().enumerate() {
        let line = match row.strip_prefix("zcode") {
            Some(rest) if i == 0 => Line::from(vec![
                Span::styled("zcode", theme.accent()),
                Span::styled(rest.to_string(), theme.dim()),
            ]),
            _ => Line::from(Span::styled(row, theme.dim())),
        };
        out.push(line);
    }
}

/// The inputs queued behind the running turn, below the cells.
pub fn queued_lines(queued: &[String], theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for text in queued {
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
            let mut doc = MarkdownDoc::new(reply_width(width), theme);
            doc.push(text);
            let finished = doc.finished_rows().iter().cloned();
            let rows = finished.chain(reply_open_rows(&doc, *streaming));
            for (i, row) in rows.enumerate() {
                out.push(reply_row(i, row, theme));
            }
        }
        Cell::Tool {
            call_id,
            tool,
            summary,
            status,
            detail,
            output,
            diff,
            expanded,
        } => {
            // A `!command` the user ran is run to be read: its output
            // always shows.
            let expanded = &(*expanded || crate::runtime::transcript::is_user_shell_call(call_id));
            let (mark, style, label) = match status {
                ToolStatus::Running => ("◌ ", theme.warning(), "running"),
                ToolStatus::Waiting => ("◌ ", theme.warning(), "waiting for you"),
                ToolStatus::Done => ("✓ ", theme.success(), ""),
                ToolStatus::Failed => ("✗ ", theme.error(), "failed"),
                ToolStatus::Denied => ("⊘ ", theme.error(), "denied"),
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
            if summarised(tool, *status, detail, output) {
                summary_lines(detail, output, *expanded, *status, theme, width, out);
                return;
            }
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
            // While it runs, the output so far: its last lines.
            if *status == ToolStatus::Running {
                live_rows(output, theme, width, out);
                return;
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
        Cell::Agents(group) => agent_group_lines(group, theme, width, out),
        Cell::Notice { text } => push_prefixed(
            out,
            text,
            "· ",
            theme.dim(),
            theme.dim().add_modifier(Modifier::ITALIC),
            width,
        ),
        Cell::Compaction {
            summary,
            kept_messages,
            expanded,
        } => compaction_lines(summary, *kept_messages, *expanded, theme, width, out),
        Cell::Error { text } => push_prefixed(
            out,
            &format!("error: {text}"),
            "! ",
            theme.error().add_modifier(Modifier::BOLD),
            theme.error(),
            width,
        ),
        Cell::Welcome => welcome_lines(theme, width, out),
    }
}

/// The Markdown width of a reply in a transcript `width` columns wide.
pub fn reply_width(width: usize) -> u16 {
    u16::try_from(width.saturating_sub(2)).unwrap_or(u16::MAX)
}

/// Row `i` of a reply, after its lead: a bullet on the first row.
pub fn reply_row(i: usize, row: Line<'static>, theme: &Theme) -> Line<'static> {
    let lead = if i == 0 { "● " } else { "  " };
    let mut spans = vec![Span::styled(lead, theme.bullet())];
    spans.extend(row.spans);
    Line::from(spans)
}

/// The rows after a reply's finished ones: its open block and, while it
/// streams, the cursor after the text.
pub fn reply_open_rows(doc: &MarkdownDoc, streaming: bool) -> Vec<Line<'static>> {
    let mut rows = doc.open_rows(streaming);
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
    // Long lines wrap after a marker, as code does: output is read whole.
    let style = detail_style(status, theme);
    let room = width.saturating_sub(4);
    for (i, line) in output.lines().enumerate() {
        let rows = wrap_preformatted(vec![Span::styled(line.to_string(), style)], room, theme);
        for (j, row) in rows.into_iter().enumerate() {
            let lead = if i == 0 && j == 0 { "  └ " } else { "    " };
            let mut spans = vec![Span::styled(lead, theme.dim())];
            spans.extend(row.spans);
            out.push(Line::from(spans));
        }
    }
}

/// A finished command: its one-line summary (exit status, line count);
/// expanded, what it printed below it.
fn summary_lines(
    detail: &str,
    output: &str,
    expanded: bool,
    status: ToolStatus,
    theme: &Theme,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
    const HINT: &str = " (ctrl+o to expand)";
    let hint = !expanded && !output.is_empty();
    let room = width.saturating_sub(4 + if hint { HINT.len() } else { 0 });
    let mut spans = vec![
        Span::styled("  └ ", theme.dim()),
        Span::styled(truncate(detail, room), detail_style(status, theme)),
    ];
    if hint {
        spans.push(Span::styled(HINT, theme.dim()));
    }
    out.push(Line::from(spans));
    if !expanded {
        return;
    }
    let room = width.saturating_sub(4);
    for line in output.lines() {
        let rows = wrap_preformatted(vec![Span::raw(line.to_string())], room, theme);
        for row in rows {
            let mut spans = vec![Span::raw("    ")];
            spans.extend(row.spans);
            out.push(Line::from(spans));
        }
    }
}

/// The last [`LIVE_ROWS`] lines of a running call's output, one row each.
fn live_rows(output: &str, theme: &Theme, width: usize, out: &mut Vec<Line<'static>>) {
    let lines: Vec<&str> = output.lines().collect();
    let end = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(0, |i| i + 1);
    let start = end.saturating_sub(LIVE_ROWS);
    for line in &lines[start..end] {
        out.push(Line::from(vec![
            Span::raw("    "),
            Span::styled(truncate(line, width.saturating_sub(4)), theme.dim()),
        ]));
    }
}

/// A compaction: what was kept, then the summary's first line, or the
/// whole summary as Markdown when expanded (Ctrl+O).
fn compaction_lines(
    summary: &str,
    kept_messages: usize,
    expanded: bool,
    theme: &Theme,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
    let noun = if kept_messages == 1 {
        "message"
    } else {
        "messages"
    };
    push_prefixed(
        out,
        &format!("conversation compacted ({kept_messages} recent {noun} kept)"),
        "· ",
        theme.dim(),
        theme.dim().add_modifier(Modifier::ITALIC),
        width,
    );
    if expanded {
        let md_width = u16::try_from(width.saturating_sub(4)).unwrap_or(u16::MAX);
        for (i, row) in render_markdown(summary, md_width, theme)
            .into_iter()
            .enumerate()
        {
            let lead = if i == 0 { "  └ " } else { "    " };
            let mut spans = vec![Span::styled(lead, theme.dim())];
            spans.extend(row.spans);
            out.push(Line::from(spans));
        }
        return;
    }
    let mut lines = summary.lines().filter(|l| !l.trim().is_empty());
    if let Some(first) = lines.next() {
        out.push(Line::from(vec![
            Span::styled("  └ ", theme.dim()),
            Span::styled(truncate(first.trim(), width.saturating_sub(4)), theme.dim()),
        ]));
    }
    let hidden = lines.count();
    if hidden > 0 {
        let noun = if hidden == 1 { "line" } else { "lines" };
        out.push(Line::from(Span::styled(
            format!("    … +{hidden} {noun} (ctrl+o to expand)"),
            theme.dim(),
        )));
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
    let rows: Vec<&str> = diff
        .lines()
        .filter(|line| classify(line) != DiffLineKind::Header)
        .collect();
    for row in rows.iter().take(max) {
        out.push(Line::from(vec![
            Span::raw("    "),
            Span::styled(
                truncate(&row.replace('\t', "    "), width.saturating_sub(4)),
                line_style(row, theme),
            ),
        ]));
    }
    rows.len().saturating_sub(max)
}

fn detail_style(status: ToolStatus, theme: &Theme) -> Style {
    match status {
        ToolStatus::Failed | ToolStatus::Denied => theme.error(),
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
