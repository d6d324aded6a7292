//! PLAN-4, PLAN-5: when the plan-mode reminders go into a request, and
//! their texts; TODO-6's count of what the todo reminder has seen; how a
//! reminder is wrapped. Pure: the runtime keeps a [`ReminderTracker`] per
//! session and asks it before each model request (`injection` adds what
//! is due).

use crate::model::AssistantReply;
use crate::store::{EntryRecord, entry_kind};
use crate::tools::registry::builtin_declaration;
use crate::tools::todo_reminder::{ReminderContext, ReminderEvent, should_remind};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The reminder kind of the plan-mode reminders.
pub const RUNTIME_MODE_KIND: &str = "runtime_mode";
/// Real user messages between two plan-mode reminders.
pub const USER_MESSAGES_BETWEEN_REMINDERS: u32 = 5;
/// Every this-many-th reminder (the 1st, 6th, 11th…) is the full text.
pub const FULL_REMINDER_EVERY: u32 = 5;

/// PLAN-4: the full plan-mode instructions.
pub const PLAN_MODE_FULL: &str =
    include_str!("../../assets/prompts/plan_mode_full.md").trim_ascii_end();
/// PLAN-4: the short reminder between full ones.
pub const PLAN_MODE_SHORT: &str =
    include_str!("../../assets/prompts/plan_mode_short.md").trim_ascii_end();
/// PLAN-5: the one-time reminder after plan mode ends.
pub const PLAN_MODE_EXIT: &str =
    include_str!("../../assets/prompts/plan_mode_exit.md").trim_ascii_end();

/// A reminder to put into the next request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanReminder {
    Full,
    Short,
    /// Plan mode has ended (PLAN-5).
    Exit,
}

impl PlanReminder {
    pub fn text(self) -> &'static str {
        match self {
            PlanReminder::Full => PLAN_MODE_FULL,
            PlanReminder::Short => PLAN_MODE_SHORT,
            PlanReminder::Exit => PLAN_MODE_EXIT,
        }
    }

    pub fn kind(self) -> &'static str {
        RUNTIME_MODE_KIND
    }
}

/// The reminder schedule of one plan period.
///
/// Use either [`before_request`](Self::before_request) before every model
/// request (it notices plan ending by itself and yields the one-time exit
/// reminder), or the parts: [`next_reminder`](Self::next_reminder) while plan is on and
/// [`reset`](Self::reset) when it ends. Call
/// [`on_real_user_message`](Self::on_real_user_message) for every message
/// the user typed (not tool results, not synthetic notifications). After a
/// context compaction, `reset` makes the next reminder the full one again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanReminderState {
    /// Reminders injected in this plan period.
    pub injections: u32,
    /// Real user messages since the last reminder.
    pub user_messages_since_last: u32,
}

impl PlanReminderState {
    pub fn on_real_user_message(&mut self) {
        self.user_messages_since_last = self.user_messages_since_last.saturating_add(1);
    }

    /// While plan is on: the reminder for the next request, if one is due
    /// (PLAN-4): the first of the period, then one after every 5 real user
    /// messages; the 1st, 6th, 11th… are full, the others short.
    pub fn next_reminder(&mut self) -> Option<PlanReminder> {
        let due = self.injections == 0
            || self.user_messages_since_last >= USER_MESSAGES_BETWEEN_REMINDERS;
        if !due {
            return None;
        }
        let full = self.injections.is_multiple_of(FULL_REMINDER_EVERY);
        self.injections = self.injections.saturating_add(1);
        self.user_messages_since_last = 0;
        Some(if full {
            PlanReminder::Full
        } else {
            PlanReminder::Short
        })
    }

    /// The plan period is over: the next one starts with a full reminder.
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// The reminder for the next request given whether plan is on now:
    /// [`next_reminder`](Self::next_reminder) while it is on; once it is off, a single
    /// [`PlanReminder::Exit`] if the model was told about plan mode in the
    /// period that just ended (PLAN-5), then nothing.
    pub fn before_request(&mut self, plan_enabled: bool) -> Option<PlanReminder> {
        if plan_enabled {
            return self.next_reminder();
        }
        if self.injections == 0 {
            // A plan period the model never saw needs no exit notice;
            // messages typed outside plan mode do not count toward the next.
            self.user_messages_since_last = 0;
            return None;
        }
        self.reset();
        Some(PlanReminder::Exit)
    }
}

/// The `kind` of an injected reminder, stored in its entry's payload.
pub mod reminder_kind {
    pub const TODO: &str = "todo_reminder";
    pub const PLAN_MODE: &str = "runtime_mode";
    pub const PLAN_EXIT: &str = "plan_mode_exit";
    pub const PLAN_FILE: &str = "plan_file_reference";
    pub const TODOS_AFTER_COMPACTION: &str = "todo_list";
    /// The permission mode changed since the model was last told.
    pub const MODE_CHANGE: &str = "mode_change";
}

/// A call of this tool keeps the todo list up to date (TODO-6), as its
/// declaration says.
fn tracks_todos(tool_name: &str) -> bool {
    builtin_declaration(tool_name).is_some_and(|d| d.tracks_todos)
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
                                .filter_map(|c| c.get("name").and_then(Value::as_str))
                                .any(tracks_todos)
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
        let used_todo_write = reply.tool_calls.iter().any(|c| tracks_todos(&c.name));
        self.todo_events
            .push(ReminderEvent::AssistantMessage { used_todo_write });
    }

    /// Whether the todo reminder goes into the next request (TODO-6).
    pub fn todo_reminder_due(&self, context: ReminderContext) -> bool {
        should_remind(&self.todo_events, context)
    }

    /// Counts a todo reminder that went into the conversation.
    pub fn on_todo_reminder(&mut self) {
        self.todo_events.push(ReminderEvent::TodoReminder);
    }

    /// The plan-mode reminder for the next request, given whether plan is
    /// on now (see [`PlanReminderState::before_request`]).
    pub fn plan_reminder(&mut self, plan_enabled: bool) -> Option<PlanReminder> {
        self.plan.before_request(plan_enabled)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan4_texts_are_loaded_and_trimmed() {
        assert!(PLAN_MODE_FULL.starts_with("Plan mode is active."));
        assert!(!PLAN_MODE_FULL.ends_with('\n'));
        assert!(!PLAN_MODE_SHORT.is_empty() && !PLAN_MODE_EXIT.is_empty());
    }

    #[test]
    fn plan4_several_requests_per_message_inject_once() {
        let mut s = PlanReminderState::default();
        s.on_real_user_message();
        assert_eq!(s.next_reminder(), Some(PlanReminder::Full));
        assert_eq!(s.next_reminder(), None);
        assert_eq!(s.next_reminder(), None);
    }
}
