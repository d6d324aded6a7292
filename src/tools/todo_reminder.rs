//! TODO-6: when to remind the model of its todo list, as pure logic.
//!
//! The runtime calls [`should_remind`] before each model request with the
//! session's events in order (oldest first) and, when it says so, adds
//! [`reminder_text`] to the request and records a [`ReminderEvent::TodoReminder`].
//!
//! Rule: remind when TodoWrite is among this turn's tools and at least
//! [`REMINDER_INTERVAL`] assistant messages have passed since both the last
//! TodoWrite call and the last reminder. Only assistant messages count; an
//! assistant message that called TodoWrite resets the count (it is not
//! counted itself). With neither event in the session, counting starts at
//! the session's start. Never while continuing a reply cut by the output
//! token limit (the reminder would land in the middle of that reply).

use crate::store::TodoItem;

/// Assistant messages that pass before a reminder.
pub(crate) const REMINDER_INTERVAL: usize = 10;

/// The reminder's first sentence (exact).
pub(crate) const REMINDER_HEADLINE: &str = "The TodoWrite tool hasn't been used recently.";

/// A session event, as far as reminder counting cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReminderEvent {
    /// A reply of the model; `used_todo_write` when it called TodoWrite.
    AssistantMessage { used_todo_write: bool },
    /// A todo reminder was injected.
    TodoReminder,
}

/// The state of the request about to be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReminderContext {
    /// TodoWrite is in this turn's tool list.
    pub todo_write_available: bool,
    /// The request continues a reply cut by the output-token limit.
    pub continuing_after_length_limit: bool,
}

/// Assistant messages since the last TodoWrite call or reminder, whichever
/// is later (since the start when there is neither).
pub(crate) fn assistant_messages_since_reset(events: &[ReminderEvent]) -> usize {
    let mut count = 0;
    for event in events.iter().rev() {
        match event {
            ReminderEvent::AssistantMessage {
                used_todo_write: true,
            }
            | ReminderEvent::TodoReminder => break,
            ReminderEvent::AssistantMessage {
                used_todo_write: false,
            } => count += 1,
        }
    }
    count
}

/// Whether to inject the todo reminder before this request (TODO-6).
pub(crate) fn should_remind(events: &[ReminderEvent], context: ReminderContext) -> bool {
    context.todo_write_available
        && !context.continuing_after_length_limit
        && assistant_messages_since_reset(events) >= REMINDER_INTERVAL
}

/// The reminder: [`REMINDER_HEADLINE`], a short nudge, then the current list
/// as `1. [status] content` lines (or a sentence saying it is empty).
pub(crate) fn reminder_text(todos: &[TodoItem]) -> String {
    let mut text = format!(
        "{REMINDER_HEADLINE} If you are working on a task with several steps, consider using it \
         to track your progress: mark finished items completed, add new ones, and drop those \
         that no longer apply. Ignore this if the task is simple or the list is up to date, and \
         do not mention this reminder to the user.\n\n"
    );
    if todos.is_empty() {
        text.push_str("The todo list is currently empty.");
        return text;
    }
    text.push_str("Current todo list:");
    for (i, item) in todos.iter().enumerate() {
        // One line per item, whatever the content holds.
        let content = item
            .content
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        text.push_str(&format!(
            "\n{}. [{}] {content}",
            i + 1,
            item.status.as_str()
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::ReminderEvent::{AssistantMessage, TodoReminder};
    use super::*;
    use crate::store::{TodoPriority, TodoStatus};

    const PLAIN: ReminderEvent = AssistantMessage {
        used_todo_write: false,
    };
    const WROTE: ReminderEvent = AssistantMessage {
        used_todo_write: true,
    };
    const ON: ReminderContext = ReminderContext {
        todo_write_available: true,
        continuing_after_length_limit: false,
    };

    fn plain(n: usize) -> Vec<ReminderEvent> {
        vec![PLAIN; n]
    }

    fn with(prefix: &[ReminderEvent], n: usize) -> Vec<ReminderEvent> {
        let mut events = prefix.to_vec();
        events.extend(plain(n));
        events
    }

    #[test]
    fn todo6_session_start_counts_from_the_start() {
        assert!(!should_remind(&[], ON));
        assert!(!should_remind(&plain(9), ON));
        assert!(should_remind(&plain(10), ON));
        assert!(should_remind(&plain(11), ON));
    }

    #[test]
    fn todo6_exactly_ten_and_nine_after_todo_write() {
        assert!(!should_remind(&with(&[WROTE], 9), ON));
        assert!(should_remind(&with(&[WROTE], 10), ON));
        assert_eq!(assistant_messages_since_reset(&with(&[WROTE], 10)), 10);
    }

    #[test]
    fn todo6_exactly_ten_and_nine_after_reminder() {
        assert!(!should_remind(&with(&[TodoReminder], 9), ON));
        assert!(should_remind(&with(&[TodoReminder], 10), ON));
    }

    #[test]
    fn todo6_the_todo_write_message_itself_does_not_count() {
        // 9 plain, then the TodoWrite message: the count restarts at 0.
        let mut events = plain(9);
        events.push(WROTE);
        assert_eq!(assistant_messages_since_reset(&events), 0);
        assert!(!should_remind(&events, ON));
    }

    #[test]
    fn todo6_either_event_resets_the_count() {
        // A reminder late in a long run resets it...
        let mut events = plain(30);
        events.push(TodoReminder);
        events.extend(plain(9));
        assert!(!should_remind(&events, ON));
        events.push(PLAIN);
        assert!(should_remind(&events, ON));
        // ...and so does a TodoWrite call after a reminder: the later wins.
        let mut events = with(&[TodoReminder], 5);
        events.push(WROTE);
        events.extend(plain(9));
        assert!(!should_remind(&events, ON));
        events.push(PLAIN);
        assert!(should_remind(&events, ON));
        // A reminder after a TodoWrite call, likewise.
        let mut events = with(&[WROTE], 12);
        events.push(TodoReminder);
        events.extend(plain(3));
        assert!(!should_remind(&events, ON));
    }

    #[test]
    fn todo6_reminder_right_after_reminder_is_not_repeated() {
        let mut events = plain(10);
        assert!(should_remind(&events, ON));
        events.push(TodoReminder);
        assert!(!should_remind(&events, ON));
    }

    #[test]
    fn todo6_not_when_todo_write_is_unavailable() {
        let off = ReminderContext {
            todo_write_available: false,
            ..ON
        };
        assert!(!should_remind(&plain(10), off));
        assert!(!should_remind(&plain(100), off));
    }

    #[test]
    fn todo6_never_while_continuing_after_length_limit() {
        let cut = ReminderContext {
            continuing_after_length_limit: true,
            ..ON
        };
        assert!(!should_remind(&plain(10), cut));
        assert!(!should_remind(&plain(50), cut));
        // The next ordinary request reminds.
        assert!(should_remind(&plain(50), ON));
        assert!(!should_remind(&plain(10), ReminderContext::default()));
    }

    #[test]
    fn todo6_reminder_text_lists_items() {
        let todos = [
            TodoItem::new(
                "Write the parser",
                TodoStatus::Completed,
                TodoPriority::High,
            ),
            TodoItem::new(
                "Test it\nwell",
                TodoStatus::InProgress,
                TodoPriority::Medium,
            ),
            TodoItem::new("Ship", TodoStatus::Pending, TodoPriority::Low),
        ];
        let text = reminder_text(&todos);
        assert!(
            text.starts_with("The TodoWrite tool hasn't been used recently."),
            "{text}"
        );
        assert!(
            text.ends_with(
                "Current todo list:\n1. [completed] Write the parser\n\
                 2. [in_progress] Test it well\n3. [pending] Ship"
            ),
            "{text}"
        );
    }

    #[test]
    fn todo6_reminder_text_says_when_empty() {
        let text = reminder_text(&[]);
        assert!(text.starts_with(REMINDER_HEADLINE), "{text}");
        assert!(
            text.ends_with("The todo list is currently empty."),
            "{text}"
        );
        assert!(!text.contains("1. ["), "{text}");
    }
}
