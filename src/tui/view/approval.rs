//! The approval panel (TUI-3, APPR-6): the head of the queue, with a count
//! of the rest. Tool approvals show the options and their keys; plan and
//! question requests get a minimal panel.

use super::{Theme, truncate, wrap};
use crate::runtime::protocol::{PermissionRequest, RequestKind};
use crate::tui::model::{Model, approval_options, input_summary};
use crate::tui::widgets::markdown::render_markdown;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use serde_json::Value;

/// Preview (diff) rows shown at most.
const MAX_PREVIEW: usize = 12;
/// Plan rows shown at most.
const MAX_PLAN: usize = 16;

/// Rows the panel needs (0 when nothing waits), at most half the screen
/// plus the options.
pub fn height(model: &Model, width: u16, screen_height: u16) -> u16 {
    let Some(request) = model.approvals.front() else {
        return 0;
    };
    let rows = body(
        request,
        model,
        &Theme::new(true),
        usize::from(width.saturating_sub(2)),
    )
    .len();
    let wanted = u16::try_from(rows + 2).unwrap_or(u16::MAX);
    wanted.min(screen_height.saturating_sub(6).max(3))
}

pub fn render(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let Some(request) = model.approvals.front() else {
        return;
    };
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
        .border_style(theme.fg(Color::Yellow))
        .title(Line::from(vec![
            Span::styled(format!(" {title}"), theme.bold()),
            Span::styled(format!("{count} "), theme.dim()),
        ]));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut lines = body(request, model, theme, usize::from(inner.width));
    // Keep the options (and an open feedback field) visible when the panel
    // is cut: drop body rows above them.
    let options = approval_options(request).len();
    let feedback_rows = feedback_field(request, model, theme, usize::from(inner.width)).len();
    let tail_len = options + feedback_rows;
    let height = usize::from(inner.height);
    if lines.len() > height && height > tail_len {
        let keep_top = height - tail_len - 1;
        let tail = lines.split_off(lines.len() - tail_len);
        lines.truncate(keep_top);
        lines.push(Line::from(Span::styled("  …", theme.dim())));
        lines.extend(tail);
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// Every row of the panel; the options are always the last rows.
fn body(
    request: &PermissionRequest,
    model: &Model,
    theme: &Theme,
    width: usize,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let Some((id, panel)) = &model.question
        && *id == request.request_id
    {
        // The ASK-6 panel draws its own options, help and confirmation page.
        let widget_theme = if model.monochrome {
            crate::tui::widgets::Theme::monochrome()
        } else {
            crate::tui::widgets::Theme::colored()
        };
        return panel.lines(width as u16, &widget_theme);
    }
    match request.kind {
        RequestKind::Tool => tool_body(request, theme, width, &mut lines),
        RequestKind::Plan => plan_body(request, model, theme, width, &mut lines),
        RequestKind::Question => question_body(request, theme, width, &mut lines),
    }
    lines.push(Line::default());
    for (i, option) in approval_options(request).into_iter().enumerate() {
        let selected = i == model.approval_selected;
        let text = format!(
            "{} {}. {}",
            if selected { "›" } else { " " },
            i + 1,
            option.label(request.kind)
        );
        let style = if selected {
            theme.selected()
        } else {
            ratatui::style::Style::default()
        };
        lines.push(Line::from(Span::styled(text, style)));
    }
    lines.extend(feedback_field(request, model, theme, width));
    lines
}

/// The open feedback field under the options (PLAN-8, APPR-7), if any.
fn feedback_field(
    request: &PermissionRequest,
    model: &Model,
    theme: &Theme,
    width: usize,
) -> Vec<Line<'static>> {
    let Some(feedback) = &model.feedback else {
        return Vec::new();
    };
    let label = if request.kind == RequestKind::Plan {
        "What should change? (Enter sends, Esc goes back)"
    } else {
        "Why not? The model reads this. (Enter sends, Esc goes back)"
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
    let verb = match request.tool.as_str() {
        "Bash" => "run a command",
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => "change a file",
        "WebFetch" => "fetch a URL",
        "Read" => "read a file",
        _ => "use a tool",
    };
    lines.push(Line::from(vec![
        Span::styled(request.tool.clone(), theme.bold()),
        Span::raw(format!(" wants to {verb}")),
    ]));
    let summary = input_summary(&request.input);
    for row in wrap(&summary, width.saturating_sub(2)).into_iter().take(6) {
        lines.push(Line::from(vec![
            Span::styled("  ", theme.dim()),
            Span::styled(row, theme.accent()),
        ]));
    }
    if !request.reason.is_empty() {
        lines.push(Line::from(Span::styled(
            truncate(&request.reason, width),
            theme.dim(),
        )));
    }
    if let Some(preview) = &request.preview {
        lines.push(Line::default());
        let rows: Vec<&str> = preview.lines().collect();
        for row in rows.iter().take(MAX_PREVIEW) {
            let style = if row.starts_with('+') && !row.starts_with("+++") {
                theme.fg(Color::Green)
            } else if row.starts_with('-') && !row.starts_with("---") {
                theme.fg(Color::Red)
            } else if row.starts_with("@@") {
                theme.fg(Color::Cyan)
            } else {
                theme.dim()
            };
            lines.push(Line::from(Span::styled(truncate(row, width), style)));
        }
        if rows.len() > MAX_PREVIEW {
            lines.push(Line::from(Span::styled(
                format!("… {} more lines", rows.len() - MAX_PREVIEW),
                theme.dim(),
            )));
        }
    }
}

fn plan_body(
    request: &PermissionRequest,
    model: &Model,
    theme: &Theme,
    width: usize,
    lines: &mut Vec<Line<'static>>,
) {
    lines.push(Line::from(Span::styled(
        "Ready to leave plan mode and start with this plan?",
        theme.bold(),
    )));
    lines.push(Line::default());
    let plan = request
        .input
        .get("plan")
        .and_then(Value::as_str)
        .unwrap_or_default();
    // PLAN-10: the plan as Markdown, scrolled with PgUp/PgDn.
    let md_width = u16::try_from(width).unwrap_or(u16::MAX);
    let rows = render_markdown(plan, md_width, &theme.widgets());
    let last_start = rows.len().saturating_sub(MAX_PLAN);
    let start = usize::from(model.approval_scroll).min(last_start);
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
