//! The `@file` list's keys, and making it again after every update.

use crate::tui::focus::file_menu;
use crate::tui::keys::{ListKey, list_key};
use crate::tui::model::Model;
use crate::tui::msg::Cmd;
use crossterm::event::KeyEvent;
use std::path::Path;

/// Makes the list again for the composer's text and cursor (walking the
/// workspace on, within the index's budget, while an `@` word is typed).
pub(super) fn sync(model: &mut Model) {
    let (row, col) = model.composer.cursor_position();
    let line = model.composer.lines().get(row).cloned().unwrap_or_default();
    let Model {
        file_popup,
        composer,
        files,
        workspace,
        ..
    } = model;
    file_popup.refresh(
        composer.text(),
        &line,
        (row, col),
        files,
        Path::new(workspace),
    );
}

/// A key while the list has the focus; `None` when it does not take it
/// (typing goes on in the composer).
pub(super) fn on_key(model: &mut Model, key: KeyEvent) -> Option<Vec<Cmd>> {
    let menu = file_menu(model)?.clone();
    match list_key(key) {
        ListKey::Up => model.file_popup.move_by(-1),
        ListKey::Down => model.file_popup.move_by(1),
        ListKey::Complete | ListKey::Choose => {
            let entry = menu.items.get(menu.selected)?;
            model
                .composer
                .replace_before_cursor(menu.at.start, &entry.insertion());
            model.history_pos = None;
        }
        ListKey::Close => {
            let text = model.composer.text().to_string();
            model.file_popup.close_on(&text);
        }
        _ => return None,
    }
    model.dirty = true;
    Some(Vec::new())
}
