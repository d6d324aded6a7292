//! The approval panel's rows (TUI-3, APPR-6): what the head request asks,
//! its options and an open feedback field. Tool approvals show the command
//! or the file and the diff; plan requests the plan as Markdown; question
//! requests the ASK-6 panel.

use super::approval_diff::{Diff, kind_style};
use super::{truncate, wrap};
use crate::permission::declaration::RuleSubject;
use crate::permission::suggest::MAX_SHOWN_BASH_PREFIXES;
use crate::protocol::{PermissionRequest, RequestKind};
use crate::tools::registry::builtin_declaration;
use crate::tui::approval::{ApprovalOption, ApprovalPanel, BodyRows, approval_options};
use crate::tui::cells::input_summary;
use crate::tui::theme::Theme;
use crate::tui::widgets::diff::DiffLineKind;
use crate::tui::widgets::highlight::CodeHighlighter;
use crate::tui::widgets::markdown_doc::render_markdown;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use std::borrow::Cow;
use unicode_width::UnicodeWidthChar;

/// Rows the body (a command, a diff, a plan) takes in the panel at most;
/// a longer body scrolls there, or opens full screen.
pub const MAX_BODY: usize = 16;
/// Rows the body keeps before anything but the options: on a short screen
/// what is approved (a diff's changed lines) shows first.
const BODY_MIN: usize = 3;
/// Rows of a file path or summary beside a diff shown at most.
const MAX_SUBJECT: usize = 6;
/// Rows of the call's own description shown at most.
const MAX_DESCRIPTION: usize = 3;

/// Rows the panel of `request` needs on a screen `width` × `screen_height`:
/// its rows and borders, at most the screen less six rows.
pub fn height(
    request: &PermissionRequest,
    panel: Option<&ApprovalPanel>,
    theme: &Theme,
    width: u16,
    screen_height: u16,
) -> u16 {
    let rows = wanted_rows(request, panel, theme, usize::from(width.saturating_sub(2)));
    let wanted = u16::try_from(rows + 2).unwrap_or(u16::MAX);
    wanted.min(screen_height.saturating_sub(6).max(3))
}

/// The body's window on a screen `width` × `screen_height`, as the panel
/// draws it there; `None` when the whole body shows (or there is none).
/// `update` scrolls with it, so keys and frames agree.
pub fn body_window(
    request: &PermissionRequest,
    panel: Option<&ApprovalPanel>,
    theme: &Theme,
    width: u16,
    screen_height: u16,
) -> Option<Window> {
    let inner = height(request, panel, theme, width, screen_height).saturating_sub(2);
    fit(
        request,
        panel,
        theme,
        usize::from(width.saturating_sub(2)),
        usize::from(inner),
    )
    .window
}

/// Which rows of a scrolling body show: from `start`, `shown` of `total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: usize,
    pub shown: usize,
    pub total: usize,
}

impl Window {
    /// The last start that still fills the window.
    pub fn last_start(&self) -> usize {
        self.total.saturating_sub(self.shown)
    }
}

/// The panel's rows for an inside of `width` × `height`, and the body's
/// window when it scrolls.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub lines: Vec<Line<'static>>,
    pub window: Option<Window>,
}

/// How much a row matters when the panel is short: rows are kept in this
/// order until the rows run out, then shown in their own order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Keep {
    /// The options and an open feedback field.
    Always,
    /// The body's first rows: a diff's changed lines, what is approved.
    BodyMin,
    /// The first row of what is asked.
    First,
    /// The first row of the file or thing the call is about.
    Name,
    /// The permissions a plan asks for.
    Prompts,
    /// The other rows of the head.
    More,
    Description,
    /// The rest of the body, up to `MAX_BODY`.
    BodyRest,
    /// Blank rows between the parts.
    Spacing,
}

const KEEP_ORDER: [Keep; 9] = [
    Keep::Always,
    Keep::BodyMin,
    Keep::First,
    Keep::Name,
    Keep::Prompts,
    Keep::More,
    Keep::Description,
    Keep::BodyRest,
    Keep::Spacing,
];

/// One row of the panel, or the place of its body.
enum Part {
    Row(Line<'static>, Keep),
    Body,
}

/// The part of a request that scrolls.
enum Body<'a> {
    None,
    /// Rows shown as they are (a plan, a command, a long summary), after
    /// `indent`.
    Rows {
        rows: Cow<'a, [Line<'static>]>,
        indent: &'static str,
    },
    /// A diff, cut to its changed lines before it scrolls.
    Diff(Diff<'a>),
}

impl Body<'_> {
    fn total(&self) -> usize {
        match self {
            Body::None => 0,
            Body::Rows { rows, .. } => rows.len(),
            Body::Diff(diff) => diff.len(),
        }
    }

    /// The rows the body needs at least and at most.
    fn need(&self) -> (usize, usize) {
        let total = self.total();
        let full = total.min(MAX_BODY);
        let min = match self {
            // A diff's first changed lines, not its headers or context.
            Body::Diff(diff) if diff.changed() > 0 => diff.changed().min(BODY_MIN),
            _ => total.min(BODY_MIN),
        };
        (min, full)
    }
}

/// Rows the panel wants with nothing cut.
fn wanted_rows(
    request: &PermissionRequest,
    panel: Option<&ApprovalPanel>,
    theme: &Theme,
    width: usize,
) -> usize {
    if let Some(question) = panel.and_then(|p| p.question.as_ref()) {
        return question
            .lines(u16::try_from(width).unwrap_or(u16::MAX), theme)
            .len();
    }
    let (parts, body) = parts(request, panel, theme, width);
    let rows = parts.iter().filter(|p| matches!(p, Part::Row(..))).count();
    rows + body.need().1
}

/// The panel's rows for an inside of `width` × `height`. When they do not
/// all fit, the rows that matter least go first (see `Keep`): blank rows,
/// the body past its first rows, the description; never the options.
pub fn fit(
    request: &PermissionRequest,
    panel: Option<&ApprovalPanel>,
    theme: &Theme,
    width: usize,
    height: usize,
) -> Fitted {
    if let Some(question) = panel.and_then(|p| p.question.as_ref()) {
        // The ASK-6 panel draws its own options, help and confirmation page.
        let lines = question.lines(u16::try_from(width).unwrap_or(u16::MAX), theme);
        return Fitted {
            lines: cut_keeping_last(lines, height, theme),
            window: None,
        };
    }
    let (parts, body) = parts(request, panel, theme, width);
    let (mut keep, body_rows) = allocate(&parts, body.need(), height);
    let (body_lines, window) = show_body(&body, panel, theme, width, body_rows);
    // A diff cut to its changes may take fewer rows than it was given:
    // the rows left go to what gave way for it.
    if body_lines.len() < body_rows {
        let shown = body_lines.len();
        keep = allocate(&parts, (shown, shown), height).0;
    }
    let mut lines = Vec::with_capacity(height);
    let mut body_lines = Some(body_lines);
    for (part, keep) in parts.into_iter().zip(keep) {
        match part {
            Part::Row(line, _) if keep => lines.push(line),
            Part::Row(..) => {}
            Part::Body => lines.extend(body_lines.take().unwrap_or_default()),
        }
    }
    Fitted { lines, window }
}

/// The question panel cut to `height`: its top, "…", its last row.
fn cut_keeping_last(
    mut lines: Vec<Line<'static>>,
    height: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    if lines.len() > height && height > 1 {
        let last = lines.split_off(lines.len() - 1);
        lines.truncate(height - 2);
        lines.push(Line::from(Span::styled("  …", theme.dim())));
        lines.extend(last);
    }
    lines
}

/// Which rows stay in `height` rows, and how many the body gets, given
/// the rows it needs at least and at most.
fn allocate(parts: &[Part], (min, full): (usize, usize), height: usize) -> (Vec<bool>, usize) {
    let mut left = height;
    let mut keep = vec![false; parts.len()];
    let mut body_rows = 0;
    for level in KEEP_ORDER {
        match level {
            Keep::BodyMin => {
                body_rows = min.min(left);
                left -= body_rows;
            }
            Keep::BodyRest => {
                let more = full.saturating_sub(body_rows).min(left);
                body_rows += more;
                left -= more;
            }
            _ => {
                for (i, part) in parts.iter().enumerate() {
                    if left > 0 && matches!(part, Part::Row(_, k) if *k == level) {
                        keep[i] = true;
                        left -= 1;
                    }
                }
            }
        }
    }
    (keep, body_rows)
}

/// The body in `rows` rows: all of it when it fits; a diff cut to its
/// changes when those fit; else a window with a line that says where it
/// is.
fn show_body(
    body: &Body,
    panel: Option<&ApprovalPanel>,
    theme: &Theme,
    width: usize,
    rows: usize,
) -> (Vec<Line<'static>>, Option<Window>) {
    let total = body.total();
    if rows == 0 || total == 0 {
        return (Vec::new(), None);
    }
    let row = |i: usize| -> Line<'static> {
        match body {
            Body::None => Line::default(),
            Body::Rows { rows, indent } => {
                let mut spans = vec![Span::styled(*indent, theme.dim())];
                spans.extend(rows[i].spans.iter().cloned());
                Line::from(spans)
            }
            Body::Diff(diff) => diff_row(diff, i, width, theme),
        }
    };
    if total <= rows {
        return ((0..total).map(row).collect(), None);
    }
    // A diff cut to its changes, with a note of what is left out when
    // there is a row for it.
    if let Body::Diff(diff) = body {
        let noted = rows
            .checked_sub(1)
            .and_then(|r| diff.condensed(r))
            .map(|kept| (kept, true));
        if let Some((kept, noted)) = noted.or_else(|| diff.condensed(rows).map(|k| (k, false))) {
            let mut lines: Vec<Line<'static>> = kept.iter().map(|&i| row(i)).collect();
            if noted {
                let note = format!("{} of {total} lines shown · ctrl+o full screen", kept.len());
                lines.push(Line::from(Span::styled(
                    truncate(&note, width),
                    theme.dim(),
                )));
            }
            return (lines, None);
        }
    }
    // A window, and under it where it is (when there is a row for that).
    let shown = if rows >= 2 { rows - 1 } else { rows };
    let opening = match body {
        Body::Diff(diff) => diff.first_change().unwrap_or(0).saturating_sub(1),
        _ => 0,
    };
    let start = panel
        .filter(|p| p.scrolled)
        .map_or(opening, |p| p.scroll)
        .min(total - shown);
    let mut lines: Vec<Line<'static>> = (start..start + shown).map(row).collect();
    if rows >= 2 {
        lines.push(Line::from(Span::styled(
            truncate(
                &format!(
                    "lines {}–{} of {total} · j/k pgup/pgdn scroll · ctrl+o full screen",
                    start + 1,
                    start + shown
                ),
                width,
            ),
            theme.dim(),
        )));
    }
    (
        lines,
        Some(Window {
            start,
            shown,
            total,
        }),
    )
}

/// Line `i` of a diff, cut to `width`, in its kind's colour.
fn diff_row(diff: &Diff, i: usize, width: usize, theme: &Theme) -> Line<'static> {
    let text = diff.lines.get(i).copied().unwrap_or_default();
    let kind = diff.kinds.get(i).copied().unwrap_or(DiffLineKind::Context);
    Line::from(Span::styled(
        truncate(&text.replace('\t', "    "), width),
        kind_style(kind, theme),
    ))
}

/// The panel's rows in order, the body's place among them, and the body.
fn parts<'a>(
    request: &'a PermissionRequest,
    panel: Option<&'a ApprovalPanel>,
    theme: &Theme,
    width: usize,
) -> (Vec<Part>, Body<'a>) {
    let mut parts = Vec::new();
    let body = match request.kind {
        RequestKind::Tool => tool_parts(request, panel, theme, width, &mut parts),
        RequestKind::Plan => plan_parts(request, panel, theme, width, &mut parts),
        RequestKind::Question => {
            let mut lines = Vec::new();
            question_body(request, theme, width, &mut lines);
            let last = lines.len().saturating_sub(1);
            for (i, line) in lines.into_iter().enumerate() {
                let keep = if i == last { Keep::First } else { Keep::More };
                parts.push(Part::Row(line, keep));
            }
            Body::None
        }
    };
    parts.push(Part::Row(Line::default(), Keep::Spacing));
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
        parts.push(Part::Row(
            Line::from(Span::styled(text, style)),
            Keep::Always,
        ));
    }
    for line in feedback_field(request, panel, theme, width) {
        parts.push(Part::Row(line, Keep::Always));
    }
    (parts, body)
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
    led_rows(
        &format!("{feedback}▌"),
        "› ",
        theme.accent(),
        width,
        &mut lines,
    );
    lines
}

/// `text` broken to `width` less a two-column lead: `lead` before its
/// first row, spaces before the others.
fn led_rows(
    text: &str,
    lead: &'static str,
    style: Style,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
    for (i, row) in wrap(text, width.saturating_sub(2)).into_iter().enumerate() {
        let lead = if i == 0 { lead } else { "  " };
        out.push(Line::from(vec![Span::styled(lead, style), Span::raw(row)]));
    }
}

/// A tool request: why, the model's description, then the command (the
/// body), or the file and its diff (the body).
fn tool_parts<'a>(
    request: &'a PermissionRequest,
    panel: Option<&'a ApprovalPanel>,
    theme: &Theme,
    width: usize,
    parts: &mut Vec<Part>,
) -> Body<'a> {
    for (i, line) in why_rows(request, theme, width).into_iter().enumerate() {
        let keep = if i == 0 { Keep::First } else { Keep::More };
        parts.push(Part::Row(line, keep));
    }
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
            parts.push(Part::Row(
                Line::from(vec![Span::raw("  "), Span::raw(row)]),
                Keep::Description,
            ));
        }
    }
    let subject = subject_rows(request, panel, theme, width);
    let Some(preview) = request.preview.as_deref() else {
        // The command (or what the call is about) is the body.
        parts.push(Part::Body);
        return Body::Rows {
            rows: subject,
            indent: "  ",
        };
    };
    // Beside a diff, the file it changes heads the panel.
    let total = subject.len();
    for (i, row) in subject.iter().take(MAX_SUBJECT).enumerate() {
        let mut spans = vec![Span::styled("  ", theme.dim())];
        spans.extend(row.spans.iter().cloned());
        let keep = if i == 0 { Keep::Name } else { Keep::More };
        parts.push(Part::Row(Line::from(spans), keep));
    }
    if total > MAX_SUBJECT {
        parts.push(Part::Row(
            Line::from(Span::styled(
                format!(
                    "  … {} more lines (ctrl+o full screen)",
                    total - MAX_SUBJECT
                ),
                theme.dim(),
            )),
            Keep::More,
        ));
    }
    parts.push(Part::Row(Line::default(), Keep::Spacing));
    parts.push(Part::Body);
    Body::Diff(Diff::parse(preview))
}

/// What the call is about, broken to the panel's width less its indent:
/// the command as shell, highlighted, so a `rm` or a pipe stands out
/// (rendered once by `update`, here only when that copy does not fit), or
/// the input's summary.
pub(super) fn subject_rows<'a>(
    request: &PermissionRequest,
    panel: Option<&'a ApprovalPanel>,
    theme: &Theme,
    width: usize,
) -> Cow<'a, [Line<'static>]> {
    let md_width = u16::try_from(width).unwrap_or(u16::MAX);
    let cached = panel.and_then(|p| p.command_rows.as_ref());
    if let Some(cached) = cached.filter(|c| fits(c, request, md_width, theme)) {
        return Cow::Borrowed(&cached.lines);
    }
    if let Some(rows) = command_lines(request, md_width, theme) {
        return Cow::Owned(rows);
    }
    let summary = input_summary(&request.input);
    Cow::Owned(
        wrap(&summary, width.saturating_sub(2))
            .into_iter()
            .map(|row| Line::from(Span::styled(row, theme.accent())))
            .collect(),
    )
}

/// The command a request runs, highlighted and broken to the rows of a
/// panel whose inside is `width` wide; `None` when the tool runs none.
pub fn command_lines(
    request: &PermissionRequest,
    width: u16,
    theme: &Theme,
) -> Option<Vec<Line<'static>>> {
    let runs_a_command =
        builtin_declaration(&request.tool).is_some_and(|d| d.subject == RuleSubject::Command);
    let command = request
        .input
        .get("command")
        .and_then(Value::as_str)
        .filter(|_| runs_a_command)?;
    Some(command_rows(
        command,
        theme,
        usize::from(width).saturating_sub(2),
    ))
}

/// Why the user is asked, with the tool as the subject of the runtime's
/// plain reason ("Bash runs a command that can change files"), wrapped.
pub(super) fn why_rows(
    request: &PermissionRequest,
    theme: &Theme,
    width: usize,
) -> Vec<Line<'static>> {
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

/// A plan request: the question, the plan as Markdown (the body, PLAN-10),
/// and what it asks permission for (PLAN-6).
fn plan_parts<'a>(
    request: &PermissionRequest,
    panel: Option<&'a ApprovalPanel>,
    theme: &Theme,
    width: usize,
    parts: &mut Vec<Part>,
) -> Body<'a> {
    parts.push(Part::Row(
        Line::from(Span::styled(
            "Ready to leave plan mode and start with this plan?",
            theme.bold(),
        )),
        Keep::First,
    ));
    parts.push(Part::Row(Line::default(), Keep::Spacing));
    parts.push(Part::Body);
    for line in prompt_rows(request, theme, width) {
        let keep = if line.spans.is_empty() {
            Keep::Spacing
        } else {
            Keep::Prompts
        };
        parts.push(Part::Row(line, keep));
    }
    Body::Rows {
        rows: plan_rows(request, panel, theme, width),
        indent: "",
    }
}

/// Whether rows `update` rendered are for this request, width and theme.
fn fits(rows: &BodyRows, request: &PermissionRequest, width: u16, theme: &Theme) -> bool {
    rows.request_id == request.request_id
        && rows.width == width
        && rows.monochrome == theme.is_monochrome()
}

/// The plan's Markdown rows: rendered once by `update`, here only when
/// that copy does not fit.
pub(super) fn plan_rows<'a>(
    request: &PermissionRequest,
    panel: Option<&'a ApprovalPanel>,
    theme: &Theme,
    width: usize,
) -> Cow<'a, [Line<'static>]> {
    let md_width = u16::try_from(width).unwrap_or(u16::MAX);
    let cached = panel.and_then(|p| p.plan_rows.as_ref());
    match cached.filter(|c| fits(c, request, md_width, theme)) {
        Some(c) => Cow::Borrowed(&c.lines),
        None => Cow::Owned(plan_markdown(request, md_width, theme)),
    }
}

/// PLAN-6: what the plan says it will need; approving grants none of it.
pub(super) fn prompt_rows(
    request: &PermissionRequest,
    theme: &Theme,
    width: usize,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if request.allowed_prompts.is_empty() {
        return lines;
    }
    lines.push(Line::default());
    lines.push(Line::from(Span::styled(
        "Requested permissions (not granted yet):",
        theme.bold(),
    )));
    for prompt in &request.allowed_prompts {
        let text = format!("{}: {}", prompt.tool, prompt.prompt);
        led_rows(&text, "- ", theme.dim(), width, &mut lines);
    }
    lines
}

pub(super) fn question_body(
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

/// A command highlighted and broken to `width`. `update` keeps the rows
/// (`ApprovalPanel::command_rows`), so a command of thousands of lines (a
/// heredoc) is highlighted once, not for every frame.
fn command_rows(command: &str, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let mut highlighter = CodeHighlighter::new("bash", theme);
    let mut rows = Vec::new();
    for line in command.split_inclusive('\n') {
        let row = highlighter
            .line(line)
            .unwrap_or_else(|| highlighter.plain_line(line));
        rows.extend(break_line(row, width));
    }
    rows
}

/// Breaks a styled line into rows of at most `width` columns.
pub fn break_line(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
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
