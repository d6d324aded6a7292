//! The head request full screen (Ctrl+O on its panel): everything the
//! panel shows of it, nothing cut or condensed, long lines wrapped, and no
//! options, so nothing on this screen answers the request.

use super::approval::{break_line, plan_rows, prompt_rows, question_body, subject_rows, why_rows};
use super::approval_diff::{Diff, kind_style};
use super::wrap;
use crate::protocol::{PermissionRequest, RequestKind};
use crate::tui::approval::ApprovalPanel;
use crate::tui::theme::Theme;
use ratatui::text::{Line, Span};

/// Every row of the request at `width` columns.
pub fn full_rows(
    request: &PermissionRequest,
    panel: Option<&ApprovalPanel>,
    theme: &Theme,
    width: usize,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    match request.kind {
        RequestKind::Tool => {
            lines.extend(why_rows(request, theme, width));
            if let Some(description) = request.description.as_deref() {
                for row in wrap(description, width.saturating_sub(2)) {
                    lines.push(Line::from(vec![Span::raw("  "), Span::raw(row)]));
                }
            }
            for row in subject_rows(request, panel, theme, width).iter() {
                let mut spans = vec![Span::styled("  ", theme.dim())];
                spans.extend(row.spans.iter().cloned());
                lines.push(Line::from(spans));
            }
            if let Some(preview) = request.preview.as_deref() {
                lines.push(Line::default());
                let diff = Diff::parse(preview);
                for (text, kind) in diff.lines.iter().zip(&diff.kinds) {
                    let line = Line::from(Span::styled(
                        text.replace('\t', "    "),
                        kind_style(*kind, theme),
                    ));
                    lines.extend(break_line(line, width));
                }
            }
        }
        RequestKind::Plan => {
            lines.push(Line::from(Span::styled(
                "Ready to leave plan mode and start with this plan?",
                theme.bold(),
            )));
            lines.push(Line::default());
            lines.extend(plan_rows(request, panel, theme, width).iter().cloned());
            lines.extend(prompt_rows(request, theme, width));
        }
        RequestKind::Question => question_body(request, theme, width, &mut lines),
    }
    lines
}

/// The title row's words: what kind of request, and the tool.
pub fn full_title(request: &PermissionRequest) -> String {
    let what = match request.kind {
        RequestKind::Tool => "Permission",
        RequestKind::Plan => "Plan approval",
        RequestKind::Question => "Question",
    };
    let agent = request
        .agent
        .as_deref()
        .map(|label| format!("{label} · "))
        .unwrap_or_default();
    format!("{what} · {agent}{}", request.tool)
}

/// How far a full screen of `rows` rows, `height` of them shown, may
/// scroll.
pub fn last_start(rows: usize, height: usize) -> usize {
    rows.saturating_sub(height.max(1))
}

/// Rows of the request a full screen of `screen_height` rows shows: all
/// but the title row and the footer.
pub fn full_height(screen_height: u16) -> usize {
    usize::from(screen_height.saturating_sub(2)).max(1)
}
