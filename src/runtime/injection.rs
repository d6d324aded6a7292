//! Context the runtime adds to the conversation before a model request:
//! the todo reminder (TODO-6) and, while plan mode is on, the plan-mode
//! reminders (PLAN-4, PLAN-5). Each injection is persisted as an entry and
//! sent as a user message wrapped in `<system-reminder>`.

use super::core::{SessionCore, lock};
use super::reminders::{reminder_kind, wrap};
use super::transcript::new_entry_id;
use crate::model::Message;
use crate::store::{NewEntry, entry_kind};
use crate::tools::todo_reminder::{ReminderContext, reminder_text};
use serde_json::json;

/// Adds one injected message: persisted, then appended to the history.
pub fn inject(core: &SessionCore, entry_kind: &str, kind: &str, text: &str) {
    let content = wrap(text);
    let entry = NewEntry::new(
        new_entry_id(),
        entry_kind,
        json!({ "kind": kind, "text": content }),
    );
    let _ = core.persist(entry);
    core.conversation().history.push(Message::User { content });
}

/// Runs before every model request of a turn.
pub fn before_request(core: &SessionCore, continuing_after_length_limit: bool) {
    let remind = core
        .conversation()
        .reminders
        .todo_reminder_due(ReminderContext {
            todo_write_available: core
                .registry
                .all()
                .iter()
                .any(|t| t.declaration().tracks_todos),
            continuing_after_length_limit,
        });
    // A sub-agent reads of plan mode in its system prompt: the reminders
    // tell the session's own model to present a plan, which it cannot.
    let plan_enabled = core.state().plan_enabled && core.agent_label().is_none();
    let plan_reminder = core.conversation().reminders.plan_reminder(plan_enabled);
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
        core.conversation().reminders.on_todo_reminder();
    }
}
