//! PLAN-4, PLAN-5: when the plan-mode reminders go into a request, and
//! their texts. Pure: the runtime keeps a [`PlanReminderState`] per session
//! and asks it before each model request.

use serde::{Deserialize, Serialize};

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
        let full = self.injections % FULL_REMINDER_EVERY == 0;
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
