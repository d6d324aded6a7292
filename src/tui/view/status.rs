//! The status line (mode and its description, model, session, spinner) and
//! the footer of keys that work right now.

use super::{Theme, truncate};
use crate::tui::keys::hints;
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
    let mut right = String::new();
    if model.busy {
        let secs = model.elapsed().map_or(0, |d| d.as_secs());
        let frame_glyph = SPINNER[model.spinner % SPINNER.len()];
        right.push_str(&format!("{frame_glyph} {secs}s · "));
    }
    if !model.model_label.is_empty() {
        right.push_str(&model.model_label);
    }
    if !model.session_id.is_empty() {
        right.push_str(&format!(" · {}", model.short_session()));
    }
    let right = format!("{right} ");
    let used = label.chars().count() + 2 + 1 + right.chars().count();
    let room = width.saturating_sub(used);
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
    let list = hints(
        model.busy,
        !model.approvals.is_empty(),
        model.composer.is_empty(),
        model.quit_armed,
    );
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
