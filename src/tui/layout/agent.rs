//! The rows of a sub-agent cell: for each agent its label, description and
//! model, then what it does now and its figures (tool calls, tokens, time)
//! or, once ended, a one-line summary; its transcript when expanded.
//! Several agents under a header that counts them.

use super::{truncate, wrap};
use crate::figures::agent_figures;
use crate::protocol::SubAgentStatus;
use crate::tui::cells::{AgentCell, AgentEntry, AgentGroup, ToolStatus};
use crate::tui::theme::Theme;
use crate::tui::widgets::markdown::str_width;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Output rows shown per tool call in an expanded transcript.
const TOOL_ROWS: usize = 6;
/// Rows of the task shown in an expanded transcript.
const TASK_ROWS: usize = 3;

/// The rows of a group of sub-agents (one or more) at `width`.
pub fn agent_group_lines(
    group: &AgentGroup,
    theme: &Theme,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
    let indent = if group.agents.len() > 1 {
        out.push(header(group, theme, width));
        "  "
    } else {
        ""
    };
    for agent in &group.agents {
        agent_lines(agent, group.expanded, indent, theme, width, out);
    }
}

/// "3 agents · 2 running · 1 done".
fn header(group: &AgentGroup, theme: &Theme, width: usize) -> Line<'static> {
    let running = group.running();
    let failed = group.ended(SubAgentStatus::Failed);
    let cancelled = group.ended(SubAgentStatus::Cancelled);
    let (mark, style) = if running > 0 {
        ("◌ ", theme.warning())
    } else if failed + cancelled > 0 {
        ("✗ ", theme.error())
    } else {
        ("✓ ", theme.success())
    };
    let counts = [
        (running, "running"),
        (group.ended(SubAgentStatus::Completed), "done"),
        (failed, "failed"),
        (cancelled, "cancelled"),
    ];
    let mut rest = String::new();
    for (n, what) in counts.into_iter().filter(|(n, _)| *n > 0) {
        rest.push_str(&format!(" · {n} {what}"));
    }
    let title = format!("{} agents", group.agents.len());
    let room = width.saturating_sub(2 + str_width(&title));
    Line::from(vec![
        Span::styled(mark, style),
        Span::styled(title, theme.bold()),
        Span::styled(truncate(&rest, room), theme.dim()),
    ])
}

/// How an agent's head row marks it.
fn mark(agent: &AgentCell, theme: &Theme) -> (&'static str, Style) {
    match agent.finished.as_ref().map(|s| s.status) {
        None => ("◌ ", theme.warning()),
        Some(SubAgentStatus::Completed) => ("✓ ", theme.success()),
        Some(SubAgentStatus::Failed) => ("✗ ", theme.error()),
        Some(SubAgentStatus::Cancelled) => ("⊘ ", theme.dim()),
    }
}

fn agent_lines(
    agent: &AgentCell,
    expanded: bool,
    indent: &'static str,
    theme: &Theme,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
    // Head: "explore #1 · find auth code · provider/model"; the model gives
    // way first, then the description is cut.
    let (mark, style) = mark(agent, theme);
    let label = agent.info.label.clone();
    let room = width.saturating_sub(indent.len() + 2 + str_width(&label));
    let description = format!(" · {}", one_line(&agent.info.description));
    let model = format!(" · {}", agent.info.model);
    let mut head = vec![
        Span::raw(indent),
        Span::styled(mark, style),
        Span::styled(label, theme.bold()),
    ];
    if str_width(&description) + str_width(&model) <= room {
        head.push(Span::raw(description));
        head.push(Span::styled(model, theme.dim()));
    } else {
        head.push(Span::raw(truncate(&description, room)));
    }
    out.push(Line::from(head));
    out.push(status_line(agent, indent, theme, width));
    if expanded {
        transcript_lines(agent, indent, theme, width, out);
    }
}

/// Text from the model or a tool as rows: tabs as spaces, other control
/// characters left out, line breaks kept.
fn printable(text: &str) -> String {
    text.replace('\t', "    ")
        .chars()
        .filter(|c| *c == '\n' || !c.is_control())
        .collect()
}

/// Text from the model on one row: its words, control characters left
/// out.
fn one_line(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .collect()
}

/// What it does now and its figures; once ended, its one-line summary:
/// how it ended, its figures, the first line of its answer.
fn status_line(
    agent: &AgentCell,
    indent: &'static str,
    theme: &Theme,
    width: usize,
) -> Line<'static> {
    let room = width.saturating_sub(indent.len() + 4);
    let figures = agent_figures(agent.tool_calls, agent.usage, agent.elapsed_ms());
    let mut spans = vec![Span::raw(indent), Span::styled("  └ ", theme.dim())];
    let Some(summary) = &agent.finished else {
        let waiting = if agent.waiting {
            " · waiting for you"
        } else {
            ""
        };
        let tail = format!(" · {figures}");
        let doing = match agent.current_tool() {
            Some((tool, "")) => tool.to_string(),
            Some((tool, summary)) => {
                let first = summary.lines().next().unwrap_or_default();
                format!("{tool} {}", one_line(first))
            }
            None => "working".to_string(),
        };
        let left = room.saturating_sub(str_width(waiting) + str_width(&tail));
        spans.push(Span::raw(truncate(&doing, left.max(1))));
        spans.push(Span::styled(waiting, theme.warning()));
        let used: usize = spans.iter().map(|s| str_width(&s.content)).sum();
        let rest = width.saturating_sub(used);
        spans.push(Span::styled(truncate(&tail, rest), theme.dim()));
        return Line::from(spans);
    };
    let (word, style) = match summary.status {
        SubAgentStatus::Completed => ("", theme.dim()),
        SubAgentStatus::Failed => ("failed · ", theme.error()),
        SubAgentStatus::Cancelled => ("cancelled · ", theme.warning()),
    };
    let mut text = format!("{word}{figures}");
    let answer = summary.summary.lines().find(|l| !l.trim().is_empty());
    if let Some(answer) = answer {
        text.push_str(" · ");
        text.push_str(&one_line(answer));
    }
    spans.push(Span::styled(truncate(&text, room), style));
    Line::from(spans)
}

/// The expanded transcript: the task, its replies, its tool calls with
/// the first rows of their results, its notices; for a resumed agent (no
/// transcript in memory) the result the parent model read.
fn transcript_lines(
    agent: &AgentCell,
    indent: &'static str,
    theme: &Theme,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
    let lead = format!("{indent}    ");
    let room = width.saturating_sub(lead.len() + 2).max(1);
    let row = |spans: Vec<Span<'static>>| {
        let mut all = vec![Span::raw(lead.clone())];
        all.extend(spans);
        Line::from(all)
    };
    if agent.dropped > 0 {
        out.push(row(vec![Span::styled(
            format!("… {} earlier entries", agent.dropped),
            theme.dim(),
        )]));
    }
    let mut had_text = false;
    for entry in &agent.entries {
        match entry {
            AgentEntry::Task(text) => {
                let rows = wrap(&printable(text), room);
                let more = rows.len() > TASK_ROWS;
                for (i, r) in rows.into_iter().take(TASK_ROWS).enumerate() {
                    let r = if more && i + 1 == TASK_ROWS {
                        format!("{r} …")
                    } else {
                        r
                    };
                    let first = if i == 0 { "› " } else { "  " };
                    out.push(row(vec![
                        Span::styled(first, theme.accent()),
                        Span::styled(r, theme.dim()),
                    ]));
                }
            }
            AgentEntry::Text { text, .. } => {
                had_text = true;
                push_text(text, &row, theme, room, out);
            }
            AgentEntry::Tool {
                tool,
                summary,
                status,
                detail,
                output,
                ..
            } => tool_rows(
                tool, summary, *status, detail, output, &row, theme, room, out,
            ),
            AgentEntry::Notice(text) => {
                for (i, r) in wrap(&printable(text), room).into_iter().enumerate() {
                    let first = if i == 0 { "· " } else { "  " };
                    out.push(row(vec![Span::styled(format!("{first}{r}"), theme.dim())]));
                }
            }
            AgentEntry::Error(text) => {
                for (i, r) in wrap(&printable(&format!("error: {text}")), room)
                    .into_iter()
                    .enumerate()
                {
                    let first = if i == 0 { "! " } else { "  " };
                    out.push(row(vec![Span::styled(
                        format!("{first}{r}"),
                        theme.error(),
                    )]));
                }
            }
        }
    }
    if !had_text && !agent.output.is_empty() {
        push_text(&agent.output, &row, theme, room, out);
    }
}

/// A reply of the agent, wrapped, after a bullet.
fn push_text(
    text: &str,
    row: &impl Fn(Vec<Span<'static>>) -> Line<'static>,
    theme: &Theme,
    room: usize,
    out: &mut Vec<Line<'static>>,
) {
    for (i, r) in wrap(printable(text).trim(), room).into_iter().enumerate() {
        let first = if i == 0 { "● " } else { "  " };
        out.push(row(vec![Span::styled(first, theme.bullet()), Span::raw(r)]));
    }
}

/// A tool call of the agent: its head, then its result's first rows.
#[allow(clippy::too_many_arguments)]
fn tool_rows(
    tool: &str,
    summary: &str,
    status: ToolStatus,
    detail: &str,
    output: &str,
    row: &impl Fn(Vec<Span<'static>>) -> Line<'static>,
    theme: &Theme,
    room: usize,
    out: &mut Vec<Line<'static>>,
) {
    let (mark, style, label) = match status {
        ToolStatus::Running => ("◌ ", theme.warning(), "running"),
        ToolStatus::Waiting => ("◌ ", theme.warning(), "waiting for you"),
        ToolStatus::Done => ("✓ ", theme.success(), ""),
        ToolStatus::Failed => ("✗ ", theme.error(), "failed"),
        ToolStatus::Denied => ("⊘ ", theme.error(), "denied"),
    };
    let summary = summary.lines().next().unwrap_or_default();
    let rest = room.saturating_sub(str_width(tool) + 1);
    out.push(row(vec![
        Span::styled(mark, style),
        Span::styled(tool.to_string(), theme.bold()),
        Span::raw(format!(" {}", truncate(&one_line(summary), rest))),
    ]));
    let detail_style = match status {
        ToolStatus::Failed | ToolStatus::Denied => theme.error(),
        _ => theme.dim(),
    };
    let lines: Vec<&str> = if output.is_empty() {
        [detail, label]
            .into_iter()
            .find(|l| !l.is_empty())
            .into_iter()
            .collect()
    } else {
        output.lines().collect()
    };
    // After the lead and "  └ ": the room less two columns.
    let inner = room.saturating_sub(2);
    for (i, line) in lines.iter().take(TOOL_ROWS).enumerate() {
        let first = if i == 0 { "  └ " } else { "    " };
        out.push(row(vec![
            Span::styled(first, theme.dim()),
            Span::styled(truncate(&printable(line), inner), detail_style),
        ]));
    }
    let hidden = lines.len().saturating_sub(TOOL_ROWS);
    if hidden > 0 {
        let noun = if hidden == 1 { "line" } else { "lines" };
        out.push(row(vec![Span::styled(
            format!("    … +{hidden} {noun}"),
            theme.dim(),
        )]));
    }
}
