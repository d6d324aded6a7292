//! The approval machinery: who answers a permission request (the broker),
//! the race between the user and the PermissionRequest hooks (APPR-3..5),
//! and publishing state changes that Full access committed (FULL-3).

pub mod broker;
pub mod deny_text;
pub mod race;
pub mod url_policy;

pub use broker::{
    ApprovalBroker, BrokerAnswer, BrokerHandle, ChannelBroker, NO_CLIENT_ATTACHED,
    NO_CLIENT_CONFIGURED, ReplyError, no_client_configured_reason,
};
pub use race::{Answer, ClaimHandle, RaceOutcome, Source, race_approval};

use crate::permission::mode::ExecutionState;

/// FULL-3: execution states that were committed to the store (Full access)
/// but not yet announced with `Event::SessionModeChanged`, e.g. because the
/// commit happened while a tool call was being approved. The runtime drains
/// them before the next grant or mode change so the UI never misses a state
/// the database already has, and announces them in commit order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PendingPublications {
    states: Vec<ExecutionState>,
}

impl PendingPublications {
    pub fn new() -> Self {
        Self::default()
    }

    /// Remembers a committed state; a repeat of the last one is dropped.
    pub fn remember(&mut self, state: ExecutionState) {
        if self.states.last() != Some(&state) {
            self.states.push(state);
        }
    }

    /// The states to publish, oldest first; afterwards nothing is pending.
    pub fn drain(&mut self) -> Vec<ExecutionState> {
        std::mem::take(&mut self.states)
    }

    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    pub fn len(&self) -> usize {
        self.states.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::mode::Mode;

    #[test]
    fn full3_pending_publications_drain_in_order_once() {
        let mut pending = PendingPublications::new();
        assert!(pending.is_empty());
        assert!(pending.drain().is_empty());
        let yolo = ExecutionState::new(Mode::Yolo, false);
        let yolo_plan = ExecutionState::new(Mode::Yolo, true);
        pending.remember(yolo);
        pending.remember(yolo);
        pending.remember(yolo_plan);
        assert_eq!(pending.len(), 2);
        assert_eq!(pending.drain(), vec![yolo, yolo_plan]);
        assert!(pending.is_empty());
        assert!(pending.drain().is_empty());
        pending.remember(yolo);
        assert_eq!(pending.drain(), vec![yolo]);
    }
}
