//! Applying what a call that ran changed in the session: the tool returns
//! its effects as data, so nothing here knows which tool made them.

use crate::permission::mode::ModeChoice;
use crate::protocol::Event;
use crate::runtime::core::SessionCore;
use crate::runtime::plan_file::write_plan_file;
use crate::tools::SessionEffect;

/// Applies what a call that ran changed in the session (the tool says
/// what, as [`SessionEffect`]s).
pub(super) fn apply_effects(core: &SessionCore, effects: Vec<SessionEffect>) {
    for effect in effects {
        match effect {
            // PLAN-1/PLAN-3: entering takes effect at once, without approval.
            SessionEffect::EnterPlan => {
                if core.state().plan_enabled {
                    continue;
                }
                if let Err(e) = core.change_mode(ModeChoice::Plan) {
                    core.emit(Event::Error {
                        message: e.to_string(),
                    });
                }
            }
            // PLAN-7: the approved plan is written, then plan turns off; a
            // failed write is reported and does not keep plan on.
            SessionEffect::ExitPlan { plan } => {
                if let Err(e) = write_plan_file(&core.workspace, &core.session_id, &plan) {
                    core.emit(Event::Notice {
                        message: format!("could not write the plan file: {e}"),
                    });
                }
                if let Err(e) = core.exit_plan() {
                    core.emit(Event::Error {
                        message: e.to_string(),
                    });
                }
            }
            // TODO-7: the front ends get the list the tool saved.
            SessionEffect::TodosChanged => core.emit_todos(true),
        }
    }
}
