//! What a tool's successful run changes in the session beyond its result:
//! the tool returns it as data and the runtime applies it, so no part of
//! the runtime needs to know which tool does what.

/// One change to session state, applied by the runtime after the call ran
/// without error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionEffect {
    /// Plan mode turns on, unless it is on already (PLAN-1, PLAN-3).
    EnterPlan,
    /// The approved plan is written to the session's plan file, then plan
    /// mode turns off (PLAN-7); a failed write does not keep plan on.
    ExitPlan { plan: String },
    /// The session's todo list was replaced in the store: front ends are
    /// sent the new list (TODO-7) once the call's result is reported.
    TodosChanged,
}

impl SessionEffect {
    /// Whether the effect only tells the front ends about a change the
    /// tool already made, and so comes after the call's result; a change
    /// of the execution state comes before it.
    pub(crate) fn is_announcement(&self) -> bool {
        matches!(self, SessionEffect::TodosChanged)
    }
}
