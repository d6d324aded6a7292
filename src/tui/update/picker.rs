//! Keys while a picker is open: ↑/↓ (Ctrl+P/N) move, Enter chooses, Esc
//! closes; the permissions picker also removes the highlighted rule with
//! `d`/Delete pressed twice (GRANT-4). The picker takes every key.

use crate::protocol::Op;
use crate::runtime::session::SessionStart;
use crate::tui::cells::Cell;
use crate::tui::keys::{ListKey, list_key};
use crate::tui::model::Model;
use crate::tui::msg::Cmd;
use crate::tui::picker::{PickerItem, PickerValue};
use crossterm::event::KeyEvent;

/// A key while a picker is open: the picker takes every key.
pub(super) fn on_key(model: &mut Model, key: KeyEvent) -> Vec<Cmd> {
    if list_key(key) == ListKey::Delete
        && let Some(source) = model.picker.as_ref().and_then(|p| p.selected_file_rule())
    {
        model.dirty = true;
        model.cells.push(Cell::Notice {
            text: format!(
                "this rule comes from {}: change it in that file",
                source.label()
            ),
        });
        return Vec::new();
    }
    let Some(picker) = model.picker.as_mut() else {
        return Vec::new();
    };
    model.dirty = true;
    let last = picker.items.len().saturating_sub(1);
    let list_key = list_key(key);
    // A removal waits for a second `d` on the same row; any other key
    // takes the first press back.
    let armed = picker.armed.take();
    match list_key {
        ListKey::Up => picker.selected = picker.selected.saturating_sub(1),
        ListKey::Down => picker.selected = (picker.selected + 1).min(last),
        // Esc first takes back a pending removal, then closes.
        ListKey::Close if armed.is_some() => {}
        ListKey::Close => model.picker = None,
        ListKey::Interrupt => {
            model.picker = None;
            if model.busy {
                return vec![Cmd::Send(Op::Interrupt)];
            }
        }
        ListKey::Delete if picker.deletable() && armed != Some(picker.selected) => {
            if picker.selected_item().is_some() {
                picker.armed = Some(picker.selected);
            }
        }
        ListKey::Delete if picker.deletable() => {
            if let Some(PickerValue::Rule(saved)) = picker.selected_item().map(|i| &i.value) {
                // The runtime answers with the new list, which refreshes us.
                return vec![Cmd::Send(Op::RemoveProjectRule {
                    kind: saved.kind,
                    rule: saved.rule.clone(),
                })];
            }
        }
        ListKey::Choose => {
            let Some(item) = picker.selected_item().cloned() else {
                model.picker = None;
                return Vec::new();
            };
            return choose(model, item);
        }
        ListKey::Complete | ListKey::Delete | ListKey::Other => {}
    }
    Vec::new()
}

fn choose(model: &mut Model, item: PickerItem) -> Vec<Cmd> {
    match item.value {
        // Enter on a rule does nothing: `d` removes, Esc closes.
        PickerValue::Rule(_) => Vec::new(),
        PickerValue::Mode(choice) => {
            model.picker = None;
            // Shown at once; the runtime confirms with `SessionModeChanged`.
            super::mode::choose(model, choice)
        }
        PickerValue::Model(reference) => {
            model.picker = None;
            vec![Cmd::Send(Op::SetModel { reference })]
        }
        PickerValue::Session(id) => {
            model.picker = None;
            if item.current {
                model.cells.push(Cell::Notice {
                    text: "already in this session".into(),
                });
                return Vec::new();
            }
            vec![Cmd::StartSession(SessionStart::Resume(id))]
        }
    }
}
