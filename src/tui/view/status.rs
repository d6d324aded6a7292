//! The status line (mode and its description, model, session, spinner) and
//! the footer of keys that work right now.

use super::{Theme, truncate};
use crate::tui::keys::{hints, picker_hints, popup_hints};
use crate::tui::model::Model;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

fn mode_color(label: &str) -> Color {
    match label {
        "plan" => Color::Blue,
        "edit" => Color::Magenta,
        "yolo" => Color::Red,
        _ => Color::Green,
    }
}

pub fn render_status(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let width = usize::from(area.width);
    let label = model.state.label();
    let mut spans = vec![Span::styled(
        format!(" {label} "),
        theme
            .fg(mode_color(label))
            .add_modifier(ratatui::style::Modifier::BOLD | ratatui::style::Modifier::REVERSED),
    )];
    // The mode description is exact text (EXEC-2): the session id, then the
    // model, give way before it is cut.
    let spinner = if model.busy {
        let secs = model.elapsed().map_or(0, |d| d.as_secs());
        format!("{} {secs}s", SPINNER[model.spinner % SPINNER.len()])
    } else {
        String::new()
    };
    let session = model.short_session();
    let candidates = [
        join(&[&spinner, &model.model_label, session]),
        join(&[&spinner, &model.model_label]),
        join(&[&spinner]),
    ];
    let fixed = label.chars().count() + 2 + 1;
    let full = model.state.description().chars().count();
    let fits = |right: &String| fixed + full + 1 + right.chars().count() < width;
    let right = candidates
        .iter()
        .find(|r| fits(r))
        .or(candidates.last())
        .cloned()
        .unwrap_or_default();
    let right = format!("{right} ");
    let room = width.saturating_sub(fixed + right.chars().count());
    let description = truncate(model.state.description(), room);
    let pad = room.saturating_sub(description.chars().count());
    spans.push(Span::raw(" "));
    spans.push(Span::styled(description, theme.dim()));
    spans.push(Span::raw(" ".repeat(pad)));
    spans.push(Span::styled(
        right,
        if model.busy {
            theme.fg(Color::Yellow)
        } else {
            theme.dim()
        },
    ));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

pub fn render_footer(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let mut spans = vec![Span::raw(" ")];
    let mut used = 1;
    let width = usize::from(area.width);
    let list = match &model.picker {
        Some(picker) if model.approvals.is_empty() => picker_hints(picker.deletable()),
        _ if crate::tui::slash::popup(model).is_some() => popup_hints(),
        _ => hints(
            model.busy,
            !model.approvals.is_empty(),
            model.composer.is_empty(),
            model.quit_armed,
        ),
    };
    for (i, (key, what)) in list.into_iter().enumerate() {
        let sep = if i == 0 { "" } else { "  " };
        let piece = sep.chars().count() + key.chars().count() + 1 + what.chars().count();
        if used + piece > width {
            break;
        }
        used += piece;
        spans.push(Span::raw(sep));
        spans.push(Span::styled(key, theme.bold()));
        spans.push(Span::styled(format!(" {what}"), theme.dim()));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Joins the non-empty parts with " · ".
fn join(parts: &[&str]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" · ")
}
