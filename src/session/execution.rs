//! Mode changes of a session (EXEC-3..5): persisted as a session entry
//! first; memory changes only after the write succeeded, so a failed write
//! never leaves the UI showing a mode the database does not have.

use crate::permission::mode::{ExecutionState, ModeChoice, ModeError};
use crate::store::{EntryRecord, Store, StoreError};

/// `Display` says the cause; only the transparent variant has a
/// `source()` (its own), so a chain printed with `{:#}` says it once.
#[derive(Debug, thiserror::Error)]
pub enum ModeChangeError {
    #[error(transparent)]
    Mode(#[from] ModeError),
    #[error("could not save the mode change: {0}")]
    Store(StoreError),
}

impl From<StoreError> for ModeChangeError {
    fn from(e: StoreError) -> Self {
        ModeChangeError::Store(e)
    }
}

/// A change that was saved; the caller emits `SessionModeChanged` from it.
#[derive(Debug, Clone, PartialEq)]
pub struct ModeChange {
    pub previous: ExecutionState,
    pub current: ExecutionState,
    pub entry: EntryRecord,
}

/// The execution state of one session and the project it belongs to.
#[derive(Debug, Clone)]
pub struct SessionExecution {
    session_id: String,
    project_id: String,
    state: ExecutionState,
    /// Where a goal flag would live (EXEC-5); goals are not implemented.
    goal_active: bool,
}

impl SessionExecution {
    pub fn new(
        session_id: impl Into<String>,
        project_id: impl Into<String>,
        state: ExecutionState,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            project_id: project_id.into(),
            state,
            goal_active: false,
        }
    }

    pub fn state(&self) -> ExecutionState {
        self.state
    }

    /// Applies a user's choice (`/mode`, Shift+Tab, `--mode`): persisted,
    /// recorded as the project's last selected mode (EXEC-4).
    pub fn choose(
        &mut self,
        store: &mut Store,
        choice: ModeChoice,
        entry_id: &str,
    ) -> Result<ModeChange, ModeChangeError> {
        let next = self.state.apply(choice);
        self.commit(store, next, entry_id, true)
    }

    /// A mode for this session only ("allow edits for the rest of this
    /// session"): persisted with the session, not recorded as the
    /// project's last mode, so the next session starts as before.
    pub fn choose_for_session(
        &mut self,
        store: &mut Store,
        choice: ModeChoice,
        entry_id: &str,
    ) -> Result<ModeChange, ModeChangeError> {
        let next = self.state.apply(choice);
        self.commit(store, next, entry_id, false)
    }

    /// Leaves plan and returns to the mode underneath (EXEC-3).
    pub fn exit_plan(
        &mut self,
        store: &mut Store,
        entry_id: &str,
    ) -> Result<ModeChange, ModeChangeError> {
        let next = ExecutionState {
            plan_enabled: false,
            ..self.state
        };
        self.commit(store, next, entry_id, true)
    }

    /// Adopts a state another writer already persisted (Full access commits
    /// it in its own transaction, FULL-2).
    pub fn adopt_persisted(&mut self, state: ExecutionState) -> ExecutionState {
        std::mem::replace(&mut self.state, state)
    }

    /// Saves `next` and only then adopts it. `record_preference` is false
    /// for changes that are not the user's pick of a mode (Full access).
    pub fn commit(
        &mut self,
        store: &mut Store,
        next: ExecutionState,
        entry_id: &str,
        record_preference: bool,
    ) -> Result<ModeChange, ModeChangeError> {
        next.ensure_no_goal_conflict(self.goal_active)?;
        let preference = record_preference.then_some(self.project_id.as_str());
        let entry = store.save_execution_state(&self.session_id, entry_id, next, preference)?;
        let previous = std::mem::replace(&mut self.state, next);
        Ok(ModeChange {
            previous,
            current: next,
            entry,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::mode::Mode;
    use crate::store::NewSession;

    fn store_with_session() -> Store {
        let mut store = Store::open_in_memory().unwrap();
        store
            .create_session(&NewSession {
                id: "sess_1".into(),
                workspace: "/w".into(),
                project_id: "w".into(),
                title: None,
                model: None,
                execution: ExecutionState::default(),
            })
            .unwrap();
        store
    }

    #[test]
    fn exec4_change_is_persisted_then_applied_and_recorded_for_the_project() {
        let mut store = store_with_session();
        let mut exec = SessionExecution::new("sess_1", "w", ExecutionState::default());
        let change = exec.choose(&mut store, ModeChoice::Plan, "e1").unwrap();
        assert_eq!(change.current, ExecutionState::new(Mode::Build, true));
        assert_eq!(exec.state(), change.current);
        let session = store.get_session("sess_1").unwrap().unwrap();
        assert_eq!(session.execution, change.current);
        assert_eq!(store.project_last_mode("w").unwrap(), Some(change.current));
        // EXEC-3: leaving plan returns to the mode underneath.
        exec.choose(&mut store, ModeChoice::Mode(Mode::Yolo), "e2")
            .unwrap();
        exec.choose(&mut store, ModeChoice::Plan, "e3").unwrap();
        let back = exec.exit_plan(&mut store, "e4").unwrap();
        assert_eq!(back.current, ExecutionState::new(Mode::Yolo, false));
    }

    #[test]
    fn exec4_failed_write_leaves_memory_unchanged() {
        let mut store = store_with_session();
        let mut exec = SessionExecution::new("sess_1", "w", ExecutionState::default());
        exec.choose(&mut store, ModeChoice::Mode(Mode::Edit), "dup")
            .unwrap();
        // Reusing an entry id makes the write fail.
        let err = exec
            .choose(&mut store, ModeChoice::Mode(Mode::Yolo), "dup")
            .unwrap_err();
        assert!(matches!(err, ModeChangeError::Store(_)));
        assert_eq!(exec.state(), ExecutionState::new(Mode::Edit, false));
        let mut missing = SessionExecution::new("sess_missing", "w", ExecutionState::default());
        assert!(missing.choose(&mut store, ModeChoice::Plan, "x").is_err());
        assert_eq!(missing.state(), ExecutionState::default());
    }

    #[test]
    fn exec4_non_user_changes_do_not_touch_the_preference() {
        let mut store = store_with_session();
        let mut exec = SessionExecution::new("sess_1", "w", ExecutionState::default());
        exec.commit(
            &mut store,
            ExecutionState::new(Mode::Yolo, false),
            "e1",
            false,
        )
        .unwrap();
        assert_eq!(store.project_last_mode("w").unwrap(), None);
    }

    #[test]
    fn exec5_plan_cannot_start_while_a_goal_is_active() {
        let mut store = store_with_session();
        let mut exec = SessionExecution::new("sess_1", "w", ExecutionState::default());
        exec.goal_active = true;
        let err = exec.choose(&mut store, ModeChoice::Plan, "e1").unwrap_err();
        assert_eq!(
            err.to_string(),
            "Plan and Goal cannot be active at the same time."
        );
        assert!(store.entries("sess_1").unwrap().is_empty());
    }
}
