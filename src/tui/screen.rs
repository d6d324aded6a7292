//! Where the panels go on a screen of the model's size: the heights of the
//! approval panel, the picker or slash popup and the composer, the
//! transcript's width and height, whether the todo sidebar shows. `view`
//! lays the screen out with these and `update` clamps the scroll with the
//! same numbers, so the two never disagree.

use crate::tui::focus::{Focus, focus};
use crate::tui::layout::approval;
use crate::tui::layout::cell::{banner_lines, cell_lines, queued_lines};
use crate::tui::layout::composer::{MAX_ROWS, PROMPT_WIDTH, text_rows};
use crate::tui::model::Model;
use crate::tui::slash::POPUP_ROWS;
use crate::tui::theme::Theme;
use ratatui::text::Line;

/// Columns the todo sidebar takes, its blank two-column gutter included.
pub const SIDEBAR_WIDTH: u16 = 32;
pub use super::layout::SIDEBAR_MIN_TERMINAL_WIDTH;
/// Rows of items a picker shows at most; the list scrolls to keep the
/// selection.
pub const PICKER_ROWS: usize = 10;
/// Rows the todo overlay shows at most (its header included); a longer
/// list ends with how many rows are left out.
pub const TODO_OVERLAY_ROWS: usize = 14;
/// Columns left of the todo rows, in the sidebar and the overlay.
pub const TODO_INDENT: u16 = 2;

/// The heights of the panels below the transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PanelHeights {
    pub approval: u16,
    /// The picker or the slash popup, right above the composer.
    pub overlay: u16,
    pub composer: u16,
}

/// Whether the terminal is wide enough and there is a todo list to show;
/// the sidebar's toggle key matters only then (TODO-7).
pub fn sidebar_available(model: &Model) -> bool {
    model.width >= SIDEBAR_MIN_TERMINAL_WIDTH && !model.todos.is_empty()
}

/// Whether the sidebar shows: available and not hidden with Ctrl+T.
pub fn sidebar_visible(model: &Model) -> bool {
    sidebar_available(model) && !model.sidebar_hidden
}

/// Columns the sidebar takes now (0 when hidden).
pub fn sidebar_width(model: &Model) -> u16 {
    if sidebar_visible(model) {
        SIDEBAR_WIDTH
    } else {
        0
    }
}

/// The width of the transcript column: the terminal's, less the todo
/// sidebar while it shows. Layout and anything that wraps transcript rows
/// use this one function, so they agree.
pub fn transcript_width(model: &Model) -> u16 {
    model.width.saturating_sub(sidebar_width(model))
}

/// The transcript's height in rows at the model's size, as `view` lays the
/// screen out; `update` clamps the scroll with it.
pub fn transcript_height(model: &Model) -> u16 {
    let h = panel_heights(model, focus(model), model.width, model.height);
    let others = h.approval + h.overlay + h.composer + 2;
    model.height.saturating_sub(others).max(1)
}

/// The heights of the approval panel, the picker or slash popup, and the
/// composer on a screen of this size, for the layer that has the keys.
pub fn panel_heights(model: &Model, focus: Focus, width: u16, height: u16) -> PanelHeights {
    let composer = composer_height(model, height);
    let theme = Theme::new(model.monochrome);
    let approval = match model.head() {
        Some(request) if focus.is_request() => {
            approval::height(request, model.panel(), &theme, width, height)
        }
        _ => 0,
    };
    let overlay = match focus {
        Focus::Picker => model.picker.as_ref().map_or(0, |picker| {
            let rows = picker.items.len().clamp(1, PICKER_ROWS);
            u16::try_from(rows + 1).unwrap_or(u16::MAX)
        }),
        Focus::SlashPopup => model
            .slash
            .popup(model.composer.text(), &model.command_files)
            .map_or(0, |p| {
                u16::try_from(p.items.len().min(POPUP_ROWS) + 1).unwrap_or(u16::MAX)
            }),
        Focus::FilePopup => model.file_popup.menu.as_ref().map_or(0, |m| {
            u16::try_from(m.items.len().min(POPUP_ROWS) + 1).unwrap_or(u16::MAX)
        }),
        Focus::Todos => {
            let width = usize::from(width.saturating_sub(TODO_INDENT));
            let rows = todo_rows(&model.todos, width).min(TODO_OVERLAY_ROWS);
            u16::try_from(rows + 1).unwrap_or(u16::MAX)
        }
        _ => 0,
    };
    PanelHeights {
        approval,
        overlay: overlay.min(height.saturating_sub(composer + 3)),
        composer,
    }
}

/// Rows the todo list takes at `width` columns, as the sidebar lays it out:
/// a header, a blank row, then each item wrapped after its two-column mark.
pub fn todo_rows(todos: &[crate::store::TodoItem], width: usize) -> usize {
    let items: usize = todos
        .iter()
        .map(|t| crate::tui::layout::wrap(&t.content, width.saturating_sub(2)).len())
        .sum();
    2 + items
}

/// Rows the composer takes: its text rows (wrapped to the terminal width)
/// plus the top and bottom borders.
pub fn composer_height(model: &Model, screen_height: u16) -> u16 {
    let text_width = usize::from(model.width.saturating_sub(PROMPT_WIDTH)).max(2);
    let rows = text_rows(&model.composer, text_width, usize::from(MAX_ROWS));
    let rows = u16::try_from(rows).unwrap_or(MAX_ROWS);
    let cap = MAX_ROWS.min(screen_height.saturating_sub(4).max(1));
    rows.clamp(1, cap) + 2
}

/// How many rows the transcript has at `width`: from the layout as
/// `update` just synchronised it, else by laying everything out.
pub fn transcript_rows(model: &Model, width: u16) -> usize {
    let theme = Theme::new(model.monochrome);
    let layout = &model.transcript_layout;
    let in_step = !model.cells.is_empty() && layout.in_step(&model.cells, width, model.monochrome);
    if in_step {
        layout.rows() + queued_lines(&model.queued, &theme, usize::from(width)).len()
    } else {
        transcript_lines(model, &theme, usize::from(width)).len()
    }
}

/// All rows of the transcript, already wrapped to `width`.
pub fn transcript_lines(model: &Model, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = Vec::new();
    if model.cells.is_empty() {
        out.extend(banner_lines(&model.workspace, theme, width));
    }
    for (i, cell) in model.cells.iter().enumerate() {
        if i > 0 {
            out.push(Line::default());
        }
        cell_lines(cell, theme, width, &mut out);
    }
    out.extend(queued_lines(&model.queued, theme, width));
    out
}
