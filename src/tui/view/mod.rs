//! The pure view (TUI-1, TUI-2): `view(&Model, &mut Frame)`, one file per
//! panel. What shows follows the focus; where it goes follows `screen`.

pub mod approval;
pub mod approval_full;
pub mod composer;
pub mod file_popup;
pub mod picker;
pub mod sidebar;
pub mod slash_popup;
pub mod status;
pub mod todos_overlay;
pub mod transcript;

use super::focus::{Focus, focus};
use super::model::Model;
use super::screen::{panel_heights, transcript_width};
use super::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};

/// Draws the whole screen.
pub fn view(model: &Model, frame: &mut Frame) {
    let area = frame.area();
    let theme = Theme::new(model.monochrome);
    let focus = focus(model);
    if focus == Focus::FullScreen {
        // The request over the whole screen, the footer with its keys.
        let [body_area, footer_area] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(area);
        approval_full::render(model, &theme, frame, body_area);
        status::render_footer(model, focus, &theme, frame, footer_area);
        return;
    }
    let heights = panel_heights(model, focus, area.width, area.height);
    let [
        main_area,
        approval_area,
        overlay_area,
        composer_area,
        status_area,
        footer_area,
    ] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(heights.approval),
        Constraint::Length(heights.overlay),
        Constraint::Length(heights.composer),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    // The sidebar sits beside the transcript only; panels below keep the
    // full width.
    let transcript_cols = transcript_width(model).min(main_area.width);
    let transcript_area = Rect {
        width: transcript_cols,
        ..main_area
    };
    let sidebar_area = Rect {
        x: main_area.x + transcript_cols,
        width: main_area.width - transcript_cols,
        ..main_area
    };
    transcript::render(model, &theme, frame, transcript_area);
    if sidebar_area.width > 0 {
        sidebar::render(model, &theme, frame, sidebar_area);
    }
    if heights.approval > 0 {
        approval::render(model, &theme, frame, approval_area);
    }
    match focus {
        _ if heights.overlay == 0 => {}
        Focus::Picker => picker::render(model, &theme, frame, overlay_area),
        Focus::SlashPopup => slash_popup::render(model, &theme, frame, overlay_area),
        Focus::FilePopup => file_popup::render(model, &theme, frame, overlay_area),
        Focus::Todos => todos_overlay::render(model, &theme, frame, overlay_area),
        _ => {}
    }
    composer::render(model, focus, &theme, frame, composer_area);
    status::render_status(model, &theme, frame, status_area);
    status::render_footer(model, focus, &theme, frame, footer_area);
}
