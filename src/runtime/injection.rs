//! Context the runtime adds to the conversation before a model request:
//! the todo reminder (TODO-6) and, while plan mode is on, the plan-mode
//! reminders (PLAN-4, PLAN-5). Each injection is persisted as an entry and
//! sent as a user message wrapped in `<system-reminder>`.

use super::core::{SessionCore, lock};
use super::reminders::PlanReminderState;
use super::transcript::new_entry_id;
use crate::model::{AssistantReply, Message};
use crate::store::{EntryRecord, NewEntry, entry_kind};
use crate::tools::todo_reminder::{ReminderContext, ReminderEvent, reminder_text, should_remind};
use serde_json::{Value, json};

/// The `kind` of an injected reminder, stored in its entry's payload.
pub mod reminder_kind {
    pub const TODO: &str = "todo_reminder";
    pub const PLAN_MODE: &str = "runtime_mode";
    pub const PLAN_EXIT: &str = "plan_mode_exit";
    pub const PLAN_FILE: &str = "plan_file_reference";
    pub const TODOS_AFTER_COMPACTION: &str = "todo_list";
}

/// What the reminders have seen of this session.
#[derive(Debug, Clone, Default)]
pub struct ReminderTracker {
    todo_events: Vec<ReminderEvent>,
    plan: PlanReminderState,
}

impl ReminderTracker {
    /// Rebuilt from a resumed session's entries.
    pub fn from_entries(entries: &[EntryRecord]) -> Self {
        let mut tracker = Self::default();
        for entry in entries {
            match entry.kind.as_str() {
                entry_kind::ASSISTANT_MESSAGE => {
                    let used = entry
                        .payload
                        .get("toolCalls")
                        .and_then(Value::as_array)
                        .is_some_and(|calls| {
                            calls
                                .iter()
                                .any(|c| c.get("name").and_then(Value::as_str) == Some("TodoWrite"))
                        });
                    tracker.todo_events.push(ReminderEvent::AssistantMessage {
                        used_todo_write: used,
                    });
                }
                entry_kind::NOTIFICATION
                    if entry.payload.get("kind").and_then(Value::as_str)
                        == Some(reminder_kind::TODO) =>
                {
                    tracker.todo_events.push(ReminderEvent::TodoReminder);
                }
                _ => {}
            }
        }
        tracker
    }

    /// A message the user typed (not a tool result or a reminder), PLAN-4.
    pub fn on_real_user_message(&mut self) {
        self.plan.on_real_user_message();
    }

    /// After a compaction the next plan reminder is the full one (PLAN-11).
    pub fn reset_plan(&mut self) {
        self.plan.reset();
    }

    /// Counts a reply of the model (only assistant messages count, TODO-6).
    pub fn on_assistant_reply(&mut self, reply: &AssistantReply) {
        let used_todo_write = reply.tool_calls.iter().any(|c| c.name == "TodoWrite");
        self.todo_events
            .push(ReminderEvent::AssistantMessage { used_todo_write });
    }
}

/// Wraps reminder text the way models are trained to read it.
pub fn wrap(text: &str) -> String {
    format!("<system-reminder>\n{}\n</system-reminder>", text.trim_end())
}

/// Whether `text` is one block [`wrap`] made: the runtime's, never typed.
pub fn is_wrapped(text: &str) -> bool {
    let text = text.trim();
    text.starts_with("<system-reminder>") && text.ends_with("</system-reminder>")
}

/// Adds one injected message: persisted, then appended to the history.
pub fn inject(core: &SessionCore, entry_kind: &str, kind: &str, text: &str) {
    let content = wrap(text);
    let entry = NewEntry::new(
        new_entry_id(),
        entry_kind,
        json!({ "kind": kind, "text": content }),
    );
    let _ = core.persist(entry);
    lock(&core.history).push(Message::User { content });
}

/// Runs before every model request of a turn.
pub fn before_request(core: &SessionCore, continuing_after_length_limit: bool) {
    let remind = {
        let tracker = lock(&core.reminders);
        should_remind(
            &tracker.todo_events,
            ReminderContext {
                todo_write_available: core.registry.get("TodoWrite").is_some(),
                continuing_after_length_limit,
            },
        )
    };
    let plan_enabled = core.state().plan_enabled;
    let plan_reminder = lock(&core.reminders).plan.before_request(plan_enabled);
    if let Some(reminder) = plan_reminder {
        inject(core, entry_kind::REMINDER, reminder.kind(), reminder.text());
    }
    if remind {
        let todos = lock(&core.store)
            .todos(&core.session_id)
            .unwrap_or_default();
        // TODO-6: persisted as a synthetic user notification.
        inject(
            core,
            entry_kind::NOTIFICATION,
            reminder_kind::TODO,
            &reminder_text(&todos),
        );
        lock(&core.reminders)
            .todo_events
            .push(ReminderEvent::TodoReminder);
    }
}
