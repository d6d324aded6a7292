//! The approval panel's rows (TUI-3, APPR-6): what the head request asks,
//! its options and an open feedback field. Tool approvals show the command
//! or the file and the diff; plan requests the plan as Markdown; question
//! requests the ASK-6 panel.

use super::{truncate, wrap};
use crate::permission::declaration::RuleSubject;
use crate::permission::suggest::MAX_SHOWN_BASH_PREFIXES;
use crate::protocol::{PermissionRequest, RequestKind};
use crate::tools::registry::builtin_declaration;
use crate::tui::approval::{ApprovalOption, ApprovalPanel, approval_options};
use crate::tui::cells::input_summary;
use crate::tui::theme::Theme;
use crate::tui::widgets::diff::line_style;
use crate::tui::widgets::highlight::CodeHighlighter;
use crate::tui::widgets::markdown_doc::render_markdown;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use unicode_width::UnicodeWidthChar;

/// Preview (diff) rows shown at most.
const MAX_PREVIEW: usize = 12;
/// Command (or summary) rows shown at most.
const MAX_COMMAND: usize = 6;
/// Plan rows shown at most.
const MAX_PLAN: usize = 16;
/// Rows of the call's own description shown at most.
const MAX_DESCRIPTION: usize = 3;

/// Rows the panel of `request` needs on a screen `width` × `screen_height`:
/// its body and borders, at most the screen less six rows.
pub fn height(
    request: &PermissionRequest,
    panel: Option<&ApprovalPanel>,
    theme: &Theme,
    width: u16,
    screen_height: u16,
) -> u16 {
    let rows = body(request, panel, theme, usize::from(width.saturating_sub(2))).len();
    let wanted = u16::try_from(rows + 2).unwrap_or(u16::MAX);
    wanted.min(screen_height.saturating_sub(6).max(3))
}

/// The rows kept when the panel is cut: the options and an open feedback
/// field.
pub fn tail_len(
    request: &PermissionRequest,
    panel: Option<&ApprovalPanel>,
    theme: &Theme,
    width: usize,
) -> usize {
    approval_options(request).len() + feedback_field(request, panel, theme, width).len()
}

/// Every row of the panel; the options are always the last rows.
pub fn body(
    request: &PermissionRequest,
    panel: Option<&ApprovalPanel>,
    theme: &Theme,
    width: usize,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let Some(question) = panel.and_then(|p| p.question.as_ref()) {
        // The ASK-6 panel draws its own options, help and confirmation page.
        return question.lines(u16::try_from(width).unwrap_or(u16::MAX), theme);
    }
    match request.kind {
        RequestKind::Tool => tool_body(request, theme, width, &mut lines),
        RequestKind::Plan => plan_body(request, panel, theme, width, &mut lines),
        RequestKind::Question => question_body(request, theme, width, &mut lines),
    }
    lines.push(Line::default());
    let highlighted = panel.map_or(0, |p| p.selected);
    for (i, option) in approval_options(request).into_iter().enumerate() {
        let selected = i == highlighted;
        let mut text = format!(
            "{} {}. {}",
            if selected { "›" } else { " " },
            i + 1,
            option.label(request.kind)
        );
        // The project option saves these rules; the session option grants
        // the whole tool, so it lists nothing.
        if option == ApprovalOption::AlwaysProject
            && let Some(saved) = saved_rules(request)
        {
            text = truncate(&format!("{text}: {saved}"), width);
        }
        let style = if selected {
            theme.selected()
        } else {
            Style::default()
        };
        lines.push(Line::from(Span::styled(text, style)));
    }
    lines.extend(feedback_field(request, panel, theme, width));
    lines
}

/// The open feedback field under the options (PLAN-8, APPR-7), if any.
pub fn feedback_field(
    request: &PermissionRequest,
    panel: Option<&ApprovalPanel>,
    theme: &Theme,
    width: usize,
) -> Vec<Line<'static>> {
    let Some(feedback) = panel.and_then(|p| p.feedback.as_ref()) else {
        return Vec::new();
    };
    let label = if request.kind == RequestKind::Plan {
        "What should change? (Enter sends, Esc goes back)"
    } else {
        "What should it do instead? The model is told to follow this. (Enter sends, Esc goes back)"
    };
    let mut lines = vec![Line::from(Span::styled(label, theme.dim()))];
    for (i, row) in wrap(&format!("{feedback}▌"), width.saturating_sub(2))
        .into_iter()
        .enumerate()
    {
        let lead = if i == 0 { "› " } else { "  " };
        lines.push(Line::from(vec![
            Span::styled(lead, theme.accent()),
            Span::raw(row),
        ]));
    }
    lines
}

fn tool_body(
    request: &PermissionRequest,
    theme: &Theme,
    width: usize,
    lines: &mut Vec<Line<'static>>,
) {
    lines.extend(why_rows(request, theme, width));
    // What the model says the command is for, above the command itself.
    if let Some(description) = request.description.as_deref() {
        let rows = wrap(description, width.saturating_sub(2));
        let more = rows.len() > MAX_DESCRIPTION;
        for (i, row) in rows.into_iter().take(MAX_DESCRIPTION).enumerate() {
            let row = if more && i + 1 == MAX_DESCRIPTION {
                truncate(&format!("{row}…"), width.saturating_sub(2))
            } else {
                row
            };
            lines.push(Line::from(vec![Span::raw("  "), Span::raw(row)]));
        }
    }
    let summary = input_summary(&request.input);
    let runs_a_command =
        builtin_declaration(&request.tool).is_some_and(|d| d.subject == RuleSubject::Command);
    let command = request
        .input
        .get("command")
        .and_then(Value::as_str)
        .filter(|_| runs_a_command);
    let (rows, total): (Vec<Line<'static>>, usize) = match command {
        // The command as shell, highlighted, so a `rm` or a pipe stands out.
        Some(command) => command_rows(command, theme, width.saturating_sub(2)),
        None => {
            let rows: Vec<Line<'static>> = wrap(&summary, width.saturating_sub(2))
                .into_iter()
                .map(|row| Line::from(Span::styled(row, theme.accent())))
                .collect();
            let total = rows.len();
            (rows, total)
        }
    };
    for row in rows.into_iter().take(MAX_COMMAND) {
        let mut spans = vec![Span::styled("  ", theme.dim())];
        spans.extend(row.spans);
        lines.push(Line::from(spans));
    }
    if total > MAX_COMMAND {
        lines.push(Line::from(Span::styled(
            format!("  … {} more lines", total - MAX_COMMAND),
            theme.dim(),
        )));
    }
    if let Some(preview) = &request.preview {
        lines.push(Line::default());
        // The same diff colours as the transcript's Edit and Write cells.
        let rows: Vec<&str> = preview.lines().collect();
        for row in rows.iter().take(MAX_PREVIEW) {
            lines.push(Line::from(Span::styled(
                truncate(&row.replace('\t', "    "), width),
                line_style(row, theme),
            )));
        }
        if rows.len() > MAX_PREVIEW {
            lines.push(Line::from(Span::styled(
                format!("… {} more lines", rows.len() - MAX_PREVIEW),
                theme.dim(),
            )));
        }
    }
}

/// Why the user is asked, with the tool as the subject of the runtime's
/// plain reason ("Bash runs a command that can change files"), wrapped.
fn why_rows(request: &PermissionRequest, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let why = if request.reason.is_empty() {
        let verb = builtin_declaration(&request.tool).map_or("use a tool", |d| d.wording.wants_to);
        format!("wants to {verb}")
    } else {
        request.reason.clone()
    };
    // A sub-agent's call names the agent first: "explore #2 · Bash …".
    let agent = request
        .agent
        .as_deref()
        .map(|label| format!("{label} · "))
        .unwrap_or_default();
    let text = format!("{agent}{} {why}", request.tool);
    wrap(&text, width)
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            let named = row
                .strip_prefix(agent.as_str())
                .and_then(|r| r.strip_prefix(request.tool.as_str()));
            match named {
                Some(rest) if i == 0 => Line::from(vec![
                    Span::styled(agent.clone(), theme.accent()),
                    Span::styled(request.tool.clone(), theme.bold()),
                    Span::raw(rest.to_string()),
                ]),
                _ => Line::from(row),
            }
        })
        .collect()
}

fn plan_body(
    request: &PermissionRequest,
    panel: Option<&ApprovalPanel>,
    theme: &Theme,
    width: usize,
    lines: &mut Vec<Line<'static>>,
) {
    lines.push(Line::from(Span::styled(
        "Ready to leave plan mode and start with this plan?",
        theme.bold(),
    )));
    lines.push(Line::default());
    // PLAN-10: the plan as Markdown, scrolled with PgUp/PgDn; rendered once
    // by `update`, here only when that copy does not fit.
    let md_width = u16::try_from(width).unwrap_or(u16::MAX);
    let cached = panel.and_then(|p| p.plan_rows.as_ref()).filter(|c| {
        c.request_id == request.request_id
            && c.width == md_width
            && c.monochrome == theme.is_monochrome()
    });
    let rendered;
    let rows: &[Line<'static>] = match cached {
        Some(c) => &c.lines,
        None => {
            rendered = plan_markdown(request, md_width, theme);
            &rendered
        }
    };
    let last_start = rows.len().saturating_sub(MAX_PLAN);
    let start = usize::from(panel.map_or(0, |p| p.scroll)).min(last_start);
    if start > 0 {
        lines.push(Line::from(Span::styled(
            format!("↑ {start} lines above"),
            theme.dim(),
        )));
    }
    lines.extend(rows.iter().skip(start).take(MAX_PLAN).cloned());
    let below = rows.len().saturating_sub(start + MAX_PLAN);
    if below > 0 {
        lines.push(Line::from(Span::styled(
            format!("↓ {below} more lines (PgDn)"),
            theme.dim(),
        )));
    }
    // PLAN-6: what the plan says it will need; approving grants none of it.
    if !request.allowed_prompts.is_empty() {
        lines.push(Line::default());
        lines.push(Line::from(Span::styled(
            "Requested permissions (not granted yet):",
            theme.bold(),
        )));
        for prompt in &request.allowed_prompts {
            for (i, row) in wrap(
                &format!("{}: {}", prompt.tool, prompt.prompt),
                width.saturating_sub(2),
            )
            .into_iter()
            .enumerate()
            {
                let lead = if i == 0 { "- " } else { "  " };
                lines.push(Line::from(vec![
                    Span::styled(lead, theme.dim()),
                    Span::raw(row),
                ]));
            }
        }
    }
}

fn question_body(
    request: &PermissionRequest,
    theme: &Theme,
    width: usize,
    lines: &mut Vec<Line<'static>>,
) {
    let questions = request
        .input
        .get("questions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for q in &questions {
        let text = q
            .get("question")
            .and_then(Value::as_str)
            .unwrap_or_default();
        lines.push(Line::from(Span::styled(
            truncate(text, width),
            theme.bold(),
        )));
        let options = q
            .get("options")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for o in options {
            let label = o.get("label").and_then(Value::as_str).unwrap_or_default();
            lines.push(Line::from(Span::styled(
                truncate(&format!("  • {label}"), width),
                theme.dim(),
            )));
        }
    }
    lines.push(Line::from(Span::styled(
        "These questions cannot be answered here (invalid input).",
        theme.dim().add_modifier(Modifier::ITALIC),
    )));
}

/// What "Always allow" will save, for the option's label (SUG-2): the rule
/// contents, at most five Bash prefixes and a count of the rest.
fn saved_rules(request: &PermissionRequest) -> Option<String> {
    if request.suggestions.is_empty() {
        return None;
    }
    let shown: Vec<String> = request
        .suggestions
        .iter()
        .take(MAX_SHOWN_BASH_PREFIXES)
        .map(|rule| match &rule.rule_content {
            Some(content) if rule.tool_name == request.tool => content.clone(),
            _ => rule.to_string(),
        })
        .collect();
    let rest = request.suggestions.len() - shown.len();
    let mut text = shown.join(", ");
    if rest > 0 {
        text.push_str(&format!(" (+{rest} more)"));
    }
    Some(text)
}

/// The first rows of a command, highlighted and broken to `width`, and how
/// many rows it has in all. Only the rows shown are highlighted: a command
/// of thousands of lines (a heredoc) costs a frame no more than a short one;
/// the lines after those are counted, not laid out.
fn command_rows(command: &str, theme: &Theme, width: usize) -> (Vec<Line<'static>>, usize) {
    let mut highlighter = CodeHighlighter::new("bash", theme);
    let mut rows = Vec::new();
    let mut lines = command.split_inclusive('\n');
    for line in lines.by_ref() {
        let row = highlighter
            .line(line)
            .unwrap_or_else(|| highlighter.plain_line(line));
        rows.extend(break_line(row, width));
        if rows.len() > MAX_COMMAND {
            break;
        }
    }
    let total = rows.len() + lines.count();
    rows.truncate(MAX_COMMAND);
    (rows, total)
}

/// Breaks a styled line into rows of at most `width` columns.
fn break_line(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row: Vec<Span<'static>> = Vec::new();
    let mut used = 0usize;
    for span in line.spans {
        let mut piece = String::new();
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > width && used > 0 {
                if !piece.is_empty() {
                    row.push(Span::styled(std::mem::take(&mut piece), span.style));
                }
                rows.push(Line::from(std::mem::take(&mut row)));
                used = 0;
            }
            piece.push(c);
            used += w;
        }
        if !piece.is_empty() {
            row.push(Span::styled(piece, span.style));
        }
    }
    rows.push(Line::from(row));
    rows
}

/// A plan request's plan rendered as Markdown at `width` (PLAN-10).
pub fn plan_markdown(request: &PermissionRequest, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let plan = request
        .input
        .get("plan")
        .and_then(Value::as_str)
        .unwrap_or_default();
    render_markdown(plan, width, theme)
}
