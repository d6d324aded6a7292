//! Which layer of the screen has the keys (TUI-4): decided here, once.
//! Key dispatch (`update`), the footer's hints (`keys`) and the view all
//! read it, so they cannot disagree about what is on top.
//!
//! The order, first match wins: a waiting request (full screen, its
//! question panel, its feedback field, or its options), the todo overlay,
//! an open picker, the slash popup, the `@file` list, the composer.

use crate::protocol::RequestKind;
use crate::tui::model::Model;
use crate::tui::slash::Popup;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The head request full screen (Ctrl+O on its panel): only its keys
    /// back to the panel and to scroll; nothing there answers it.
    FullScreen,
    /// The ASK-6 panel of the head request.
    Question,
    /// The feedback field of the head request's panel (a deny with feedback,
    /// or plan feedback).
    Feedback(RequestKind),
    /// The head request's options. A question whose input cannot be read
    /// gets these too, so the user can reject it.
    Approval(RequestKind),
    /// The todo list as an overlay (Ctrl+T where the sidebar cannot show).
    Todos,
    /// `/mode`, `/model`, `/permissions`, `/resume`.
    Picker,
    /// The slash-command completion popup: it takes the list keys, typing
    /// goes on in the composer.
    SlashPopup,
    /// The `@file` completion list, the same way.
    FilePopup,
    Composer,
}

impl Focus {
    /// Whether a request waits for the user (the approval panel shows and
    /// the composer steps back).
    pub fn is_request(self) -> bool {
        matches!(
            self,
            Focus::FullScreen | Focus::Question | Focus::Feedback(_) | Focus::Approval(_)
        )
    }
}

/// The layer that has the keys now.
pub fn focus(model: &Model) -> Focus {
    if let Some(request) = model.head() {
        let panel = model.panel();
        if panel.is_some_and(|p| p.full_screen.is_some()) {
            return Focus::FullScreen;
        }
        if panel.is_some_and(|p| p.question.is_some()) {
            return Focus::Question;
        }
        if panel.is_some_and(|p| p.feedback.is_some()) {
            return Focus::Feedback(request.kind);
        }
        return Focus::Approval(request.kind);
    }
    if todos_overlay_open(model) {
        return Focus::Todos;
    }
    if model.picker.is_some() {
        return Focus::Picker;
    }
    if model
        .slash
        .popup(model.composer.text(), &model.command_files)
        .is_some()
    {
        return Focus::SlashPopup;
    }
    if model.file_popup.menu.is_some() {
        return Focus::FilePopup;
    }
    Focus::Composer
}

/// Whether the todo overlay shows: opened, with a list to show, on a
/// terminal too narrow for the sidebar.
fn todos_overlay_open(model: &Model) -> bool {
    model.todos_open
        && !model.todos.is_empty()
        && model.width < crate::tui::layout::SIDEBAR_MIN_TERMINAL_WIDTH
}

/// The `@file` list, when it has the focus.
pub fn file_menu(model: &Model) -> Option<&crate::tui::file_popup::FileMenu> {
    match focus(model) {
        Focus::FilePopup => model.file_popup.menu.as_ref(),
        _ => None,
    }
}

/// The slash popup, when it has the focus.
pub fn slash_popup(model: &Model) -> Option<Popup> {
    match focus(model) {
        Focus::SlashPopup => model
            .slash
            .popup(model.composer.text(), &model.command_files),
        _ => None,
    }
}
