//! The plan of a headless run in plan mode. Nobody can approve a plan
//! without a UI, so the run ends with it unapproved; the plan is what the
//! run produced: it is printed on stdout and is the JSON `result`, with
//! `plan_approved: false` beside it.

use crate::protocol::Event;
use crate::tools::plan_mode::EXIT_NAME;

/// What the events said about plan mode and the plan.
#[derive(Debug, Default)]
pub(super) struct PlanWatch {
    /// Plan mode is on now.
    plan_enabled: bool,
    /// Plan mode was on at some point of the run.
    planned: bool,
    /// The call id and plan of the last ExitPlanMode call made in plan
    /// mode.
    proposed: Option<(String, String)>,
    /// That call succeeded: the plan was approved.
    approved: bool,
}

impl PlanWatch {
    /// Follows one event of the session's own model (a sub-agent's events
    /// come wrapped and are not looked at).
    pub(super) fn on_event(&mut self, event: &Event) {
        match event {
            Event::SessionStarted { state, .. } | Event::SessionModeChanged { state } => {
                self.plan_enabled = state.plan_enabled;
                self.planned |= state.plan_enabled;
            }
            Event::ToolCallStarted {
                call_id,
                tool,
                input,
            } if tool == EXIT_NAME && self.plan_enabled => {
                if let Some(plan) = input.get("plan").and_then(|p| p.as_str())
                    && !plan.trim().is_empty()
                {
                    self.proposed = Some((call_id.clone(), plan.to_string()));
                    self.approved = false;
                }
            }
            Event::ToolCallFinished {
                call_id, is_error, ..
            } if self.proposed.as_ref().is_some_and(|(id, _)| id == call_id) => {
                self.approved = !is_error;
            }
            _ => {}
        }
    }

    /// `(answer, plan_approved)` at the end of the turn: a plan left
    /// unapproved replaces the answer (its preamble said less); without
    /// ExitPlanMode the model's last message is the plan. `plan_approved`
    /// is `None` for a run that never was in plan mode.
    pub(super) fn finish(&self, answer: Option<String>) -> (Option<String>, Option<bool>) {
        if !self.planned {
            return (answer, None);
        }
        match &self.proposed {
            Some((_, plan)) if !self.approved => (Some(plan.clone()), Some(false)),
            Some(_) => (answer, Some(true)),
            None => (answer, Some(false)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::mode::{ExecutionState, Mode, ModeSource};
    use serde_json::json;

    fn started(plan_enabled: bool) -> Event {
        Event::SessionStarted {
            session_id: "s".into(),
            workspace: "/w".into(),
            model: "m".into(),
            provider: "p".into(),
            offline_demo: false,
            state: ExecutionState::new(Mode::Build, plan_enabled),
            resumed: false,
            context_window: None,
            sandbox_notice: None,
            mode_source: ModeSource::Flag,
        }
    }

    fn exit_plan(id: &str, plan: &str) -> Event {
        Event::ToolCallStarted {
            call_id: id.into(),
            tool: EXIT_NAME.into(),
            input: json!({ "plan": plan }),
        }
    }

    fn finished(id: &str, is_error: bool) -> Event {
        Event::ToolCallFinished {
            call_id: id.into(),
            tool: EXIT_NAME.into(),
            output: String::new(),
            is_error,
            diff: None,
            exit_code: None,
        }
    }

    #[test]
    fn headless_plan_unapproved_plan_is_the_answer() {
        let mut w = PlanWatch::default();
        for e in [
            started(true),
            exit_plan("c1", "1. a\n2. b"),
            finished("c1", true),
        ] {
            w.on_event(&e);
        }
        assert_eq!(
            w.finish(Some("Here is my plan.".into())),
            (Some("1. a\n2. b".into()), Some(false))
        );
    }

    #[test]
    fn headless_plan_without_exit_plan_mode_keeps_the_last_message() {
        let mut w = PlanWatch::default();
        w.on_event(&started(true));
        assert_eq!(
            w.finish(Some("The plan: …".into())),
            (Some("The plan: …".into()), Some(false))
        );
    }

    #[test]
    fn headless_plan_outside_plan_mode_changes_nothing() {
        let mut w = PlanWatch::default();
        for e in [started(false), exit_plan("c1", "x"), finished("c1", true)] {
            w.on_event(&e);
        }
        assert_eq!(w.finish(Some("done".into())), (Some("done".into()), None));
        assert_eq!(w.finish(None), (None, None));
    }

    #[test]
    fn headless_plan_approved_keeps_the_answer() {
        let mut w = PlanWatch::default();
        for e in [started(true), exit_plan("c1", "p"), finished("c1", false)] {
            w.on_event(&e);
        }
        assert_eq!(
            w.finish(Some("built".into())),
            (Some("built".into()), Some(true))
        );
    }
}
