//! The permission mode as the model learns it. The system prompt names
//! the mode the session started in and never changes after (a changed
//! prompt would rewrite the start of every later request, and providers
//! cache prompts by prefix); a later switch (Shift+Tab, `/mode`, an
//! approved plan) is told by a reminder appended before the next request.

use super::core::SessionCore;
use super::injection::inject;
use super::reminders::reminder_kind;
use crate::permission::mode::ExecutionState;
use crate::store::entry_kind;

/// The mode the system prompt is written with: the current one at the
/// session's first request, then that one for good.
pub fn prompt_state(core: &SessionCore) -> ExecutionState {
    let current = core.state();
    *core.conversation().prompt_state.get_or_insert(current)
}

/// Appends a reminder when the mode changed since the model was last told.
pub fn announce_change(core: &SessionCore) {
    let current = core.state();
    let told = {
        let mut conversation = core.conversation();
        let told = *conversation.told_state.get_or_insert(current);
        conversation.told_state = Some(current);
        told
    };
    if told != current {
        inject(
            core,
            entry_kind::REMINDER,
            reminder_kind::MODE_CHANGE,
            &change_text(current),
        );
    }
}

/// The reminder's text.
pub fn change_text(state: ExecutionState) -> String {
    format!(
        "The permission mode is now {}: {} (the system prompt names the mode the session started in).",
        state.label(),
        state.description()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::mode::Mode;

    #[test]
    fn the_change_names_the_new_mode() {
        let text = change_text(ExecutionState::new(Mode::Yolo, false));
        assert!(
            text.starts_with("The permission mode is now yolo: "),
            "{text}"
        );
    }
}
