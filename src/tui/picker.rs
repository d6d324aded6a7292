//! The state of the one list picker behind `/mode`, `/model`,
//! `/permissions` and `/resume` (TUI-4): its rows and the highlighted one.
//! Its keys are in `update::picker`.

use super::launcher::{ModelChoice, SessionSummary};
use crate::permission::mode::{ExecutionState, ModeChoice};
use crate::permission::rule_source::RuleSource;
use crate::protocol::SavedRule;

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
    /// The row `d` was pressed on once: a second press removes it, any
    /// other key takes the first back.
    pub armed: Option<usize>,
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
            armed: None,
        }
    }

    /// The four modes with their EXEC-2 descriptions (yolo included: the
    /// picker chooses by name).
    pub fn modes(state: ExecutionState) -> Self {
        let items = ModeChoice::ALL
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
                    None => match m.context_window {
                        Some(window) => format!("{} · {} context", m.provider_name, tokens(window)),
                        None => format!("{} · context unknown", m.provider_name),
                    },
                },
                current: m.reference.eq_ignore_ascii_case(current),
                value: PickerValue::Model(m.reference.clone()),
            })
            .collect();
        Picker::new(PickerKind::Model, "Model", items)
    }

    /// The project's rules with their kind (GRANT-4), where each comes
    /// from, and which allow rules wait for the file's trust.
    pub fn rules(rules: Vec<SavedRule>) -> Self {
        // The sources line up after the longest rule.
        let width = rules
            .iter()
            .map(|r| r.rule.to_string().chars().count())
            .max()
            .unwrap_or(0);
        let items = rules
            .into_iter()
            .map(|saved| PickerItem {
                label: saved.kind.as_str().to_string(),
                detail: format!(
                    "{:<width$}  {}{}",
                    saved.rule.to_string(),
                    saved.source.short_label(),
                    if saved.applied { "" } else { " (not trusted)" }
                ),
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

    /// `zcode --resume` without an id: the same list before any session
    /// exists; the title says what Esc and Ctrl+C do there.
    pub fn sessions_at_start(list: &[SessionSummary]) -> Self {
        let mut picker = Picker::sessions(list, "");
        picker.title = "Resume a session · Esc: a new session · Ctrl+C: quit".to_string();
        picker
    }

    /// What an empty picker says.
    pub fn empty_text(&self) -> &'static str {
        match self.kind {
            PickerKind::Mode => "no modes",
            PickerKind::Model => {
                "no model provider is configured (the offline demo is in use); see `zcode models`"
            }
            PickerKind::Permissions => {
                "no saved project rules; /permissions allow|ask|deny RULE adds one"
            }
            PickerKind::Sessions => "no sessions in this project yet",
        }
    }

    /// Whether `d`/Delete removes rows.
    pub fn deletable(&self) -> bool {
        self.kind == PickerKind::Permissions && self.selected_file_rule().is_none()
    }

    /// The settings file the highlighted rule comes from: it is changed
    /// in the file, not removed here.
    pub fn selected_file_rule(&self) -> Option<RuleSource> {
        match self.selected_item().map(|i| &i.value) {
            Some(PickerValue::Rule(r)) if r.source != RuleSource::Database => Some(r.source),
            _ => None,
        }
    }

    pub fn selected_item(&self) -> Option<&PickerItem> {
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
    if n >= 1000 && n.is_multiple_of(1000) {
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
