//! One list picker behind `/mode`, `/model`, `/permissions` and `/resume`
//! (TUI-4): ↑/↓ (Ctrl+P/N) move, Enter chooses, Esc closes; the
//! permissions picker also removes the highlighted rule with `d`/Delete
//! (GRANT-4).

use super::launcher::{ModelChoice, SessionSummary};
use super::model::{Cell, Model};
use super::msg::Cmd;
use crate::permission::mode::{ExecutionState, ModeChoice};
use crate::runtime::protocol::{Op, SavedRule};
use crate::runtime::session::SessionStart;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickerKind {
    Mode,
    Model,
    Permissions,
    Sessions,
}

/// What choosing a row does.
#[derive(Debug, Clone, PartialEq)]
pub enum PickerValue {
    Mode(ModeChoice),
    /// `provider/model`.
    Model(String),
    Rule(SavedRule),
    /// A session id.
    Session(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct PickerItem {
    pub label: String,
    pub detail: String,
    /// The session's current mode, model or session.
    pub current: bool,
    pub value: PickerValue,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Picker {
    pub kind: PickerKind,
    pub title: String,
    pub items: Vec<PickerItem>,
    pub selected: usize,
}

impl Picker {
    fn new(kind: PickerKind, title: &str, items: Vec<PickerItem>) -> Self {
        // Start on the current entry, where there is one.
        let selected = items.iter().position(|i| i.current).unwrap_or(0);
        Picker {
            kind,
            title: title.to_string(),
            items,
            selected,
        }
    }

    /// The four modes with their EXEC-2 descriptions, in Shift+Tab order.
    pub fn modes(state: ExecutionState) -> Self {
        let items = ModeChoice::CYCLE
            .iter()
            .map(|choice| {
                let shown = ExecutionState::default().apply(*choice);
                PickerItem {
                    label: choice.as_str().to_string(),
                    detail: shown.description().to_string(),
                    current: state.label() == choice.as_str(),
                    value: PickerValue::Mode(*choice),
                }
            })
            .collect();
        Picker::new(PickerKind::Mode, "Mode", items)
    }

    /// The configured models, the current one marked (MODEL-3 references).
    pub fn models(list: &[ModelChoice], current: &str) -> Self {
        let items = list
            .iter()
            .map(|m| PickerItem {
                label: m.reference.clone(),
                detail: match &m.disabled {
                    Some(reason) => format!("disabled: {reason}"),
                    None => format!("{} · {} context", m.provider_name, tokens(m.context_window)),
                },
                current: m.reference.eq_ignore_ascii_case(current),
                value: PickerValue::Model(m.reference.clone()),
            })
            .collect();
        Picker::new(PickerKind::Model, "Model", items)
    }

    /// The project's saved rules with their kind (GRANT-4).
    pub fn rules(rules: Vec<SavedRule>) -> Self {
        let items = rules
            .into_iter()
            .map(|saved| PickerItem {
                label: saved.kind.as_str().to_string(),
                detail: saved.rule.to_string(),
                current: false,
                value: PickerValue::Rule(saved),
            })
            .collect();
        Picker::new(PickerKind::Permissions, "Project rules", items)
    }

    /// This project's sessions, most recent first.
    pub fn sessions(list: &[SessionSummary], current: &str) -> Self {
        let items = list
            .iter()
            .map(|s| PickerItem {
                label: short_id(&s.id).to_string(),
                detail: format!(
                    "{}  {:<5}  {}",
                    format_date(s.updated_at),
                    s.mode,
                    s.title.as_deref().unwrap_or("(untitled)")
                ),
                current: s.id == current,
                value: PickerValue::Session(s.id.clone()),
            })
            .collect();
        Picker::new(PickerKind::Sessions, "Resume a session", items)
    }

    /// What an empty picker says.
    pub fn empty_text(&self) -> &'static str {
        match self.kind {
            PickerKind::Mode => "no modes",
            PickerKind::Model => {
                "no model provider is configured (the offline demo is in use); see `zcode models`"
            }
            PickerKind::Permissions => "no saved project rules",
            PickerKind::Sessions => "no sessions in this project yet",
        }
    }

    /// Whether `d`/Delete removes rows.
    pub fn deletable(&self) -> bool {
        self.kind == PickerKind::Permissions
    }

    fn selected_item(&self) -> Option<&PickerItem> {
        self.items.get(self.selected)
    }
}

/// `sess_0123456789…` → `01234567`.
pub fn short_id(id: &str) -> &str {
    let id = id.strip_prefix("sess_").unwrap_or(id);
    let end = id.char_indices().nth(8).map_or(id.len(), |(i, _)| i);
    &id[..end]
}

/// `128000` → `128k`.
fn tokens(n: u64) -> String {
    if n >= 1000 && n % 1000 == 0 {
        format!("{}k", n / 1000)
    } else if n >= 1000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

/// Milliseconds since the epoch as `YYYY-MM-DD HH:MM` (UTC).
pub fn format_date(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// What a key does in a picker (and in the slash popup).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKey {
    Up,
    Down,
    /// Tab.
    Complete,
    /// Enter.
    Choose,
    /// Esc.
    Close,
    /// `d` or Delete.
    Delete,
    /// Ctrl+C.
    Interrupt,
    Other,
}

pub fn list_key(key: KeyEvent) -> ListKey {
    if key.kind == KeyEventKind::Release {
        return ListKey::Other;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let plain = !ctrl && !key.modifiers.contains(KeyModifiers::ALT);
    match key.code {
        KeyCode::Up => ListKey::Up,
        KeyCode::Down => ListKey::Down,
        KeyCode::Char('p') if ctrl => ListKey::Up,
        KeyCode::Char('n') if ctrl => ListKey::Down,
        KeyCode::Char('c') if ctrl => ListKey::Interrupt,
        KeyCode::Tab if key.modifiers.is_empty() => ListKey::Complete,
        KeyCode::Enter if key.modifiers.is_empty() => ListKey::Choose,
        KeyCode::Esc => ListKey::Close,
        KeyCode::Delete => ListKey::Delete,
        KeyCode::Char('d') if plain => ListKey::Delete,
        _ => ListKey::Other,
    }
}

/// A key while a picker is open: the picker takes every key.
pub fn on_key(model: &mut Model, key: KeyEvent) -> Vec<Cmd> {
    let Some(picker) = model.picker.as_mut() else {
        return Vec::new();
    };
    model.dirty = true;
    let last = picker.items.len().saturating_sub(1);
    match list_key(key) {
        ListKey::Up => picker.selected = picker.selected.saturating_sub(1),
        ListKey::Down => picker.selected = (picker.selected + 1).min(last),
        ListKey::Close => model.picker = None,
        ListKey::Interrupt => {
            model.picker = None;
            if model.busy {
                return vec![Cmd::Send(Op::Interrupt)];
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
            model.state = model.state.apply(choice);
            vec![Cmd::Send(Op::SetMode { choice })]
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
