//! Execution state: the mode and the independent plan flag (EXEC-1, EXEC-2, EXEC-7).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The permission mode of a session. `plan` is not a mode but a flag (EXEC-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Build,
    Edit,
    Yolo,
    /// Reserved: every ordinary tool is denied in it (PERM-5).
    Auto,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Build => "build",
            Mode::Edit => "edit",
            Mode::Yolo => "yolo",
            Mode::Auto => "auto",
        }
    }

    /// The one-line description shown in the TUI (EXEC-2, exact text).
    pub fn description(self) -> &'static str {
        match self {
            Mode::Build => "Ask before each file changes.",
            Mode::Edit => "Edit selected files or relevant workspace files automatically.",
            Mode::Yolo => "Edit and run commands with fewer confirmations.",
            Mode::Auto => "Reserved; not implemented.",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Description of plan mode (EXEC-2, exact text).
pub(crate) const PLAN_DESCRIPTION: &str = "Inspect the code and present a plan before editing.";

/// The execution state of a session (EXEC-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionState {
    pub mode: Mode,
    pub plan_enabled: bool,
}

impl ExecutionState {
    pub const fn new(mode: Mode, plan_enabled: bool) -> Self {
        Self { mode, plan_enabled }
    }

    /// Applies a user-facing mode choice. `plan` keeps the mode and turns the
    /// flag on; any real mode leaves plan (EXEC-3: back to the mode underneath
    /// is simply the stored `mode`).
    pub fn apply(self, choice: ModeChoice) -> Self {
        match choice {
            ModeChoice::Plan => Self {
                plan_enabled: true,
                ..self
            },
            ModeChoice::Mode(mode) => Self {
                mode,
                plan_enabled: false,
            },
        }
    }

    /// EXEC-5: plan and goal are mutually exclusive. Goal mode does not exist
    /// yet; callers that gain a goal flag pass it here.
    pub(crate) fn ensure_no_goal_conflict(self, goal_active: bool) -> Result<(), ModeError> {
        if self.plan_enabled && goal_active {
            Err(ModeError::PlanGoalConflict)
        } else {
            Ok(())
        }
    }

    /// The label shown to the user: `plan` when the flag is on, else the mode.
    pub fn label(self) -> &'static str {
        if self.plan_enabled {
            "plan"
        } else {
            self.mode.as_str()
        }
    }

    pub fn description(self) -> &'static str {
        if self.plan_enabled {
            PLAN_DESCRIPTION
        } else {
            self.mode.description()
        }
    }
}

impl Default for ExecutionState {
    fn default() -> Self {
        Self::new(Mode::Build, false)
    }
}

/// What a user can pick: one of the four user-facing choices (EXEC-7, PLAN-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModeChoice {
    Plan,
    Mode(Mode),
}

impl ModeChoice {
    /// The Shift+Tab cycle order (PLAN-1): build → edit → plan → build.
    /// Yolo is not in it, so no stray key lands there; it is chosen only
    /// by name (`/mode yolo`, the mode picker, `--mode yolo`, the config),
    /// and from yolo the next press goes to build.
    pub(crate) const CYCLE: [ModeChoice; 3] = [
        ModeChoice::Mode(Mode::Build),
        ModeChoice::Mode(Mode::Edit),
        ModeChoice::Plan,
    ];

    /// Every user-facing choice, as the mode picker lists them.
    pub const ALL: [ModeChoice; 4] = [
        ModeChoice::Plan,
        ModeChoice::Mode(Mode::Build),
        ModeChoice::Mode(Mode::Edit),
        ModeChoice::Mode(Mode::Yolo),
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ModeChoice::Plan => "plan",
            ModeChoice::Mode(m) => m.as_str(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModeError {
    #[error("invalid mode '{0}': expected one of plan, build, edit, yolo")]
    Invalid(String),
    #[error("mode 'auto' is reserved and not implemented; use plan, build, edit or yolo")]
    AutoReserved,
    #[error("Plan and Goal cannot be active at the same time.")]
    PlanGoalConflict,
}

/// Parses a `--mode` value or a `/mode` argument (EXEC-7): case-insensitive,
/// `auto` and anything else are errors.
pub(crate) fn parse_mode_choice(value: &str) -> Result<ModeChoice, ModeError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "plan" => Ok(ModeChoice::Plan),
        "build" => Ok(ModeChoice::Mode(Mode::Build)),
        "edit" => Ok(ModeChoice::Mode(Mode::Edit)),
        "yolo" => Ok(ModeChoice::Mode(Mode::Yolo)),
        "auto" => Err(ModeError::AutoReserved),
        _ => Err(ModeError::Invalid(value.to_string())),
    }
}

/// Reads a mode stored by this or an older version (config, database). The
/// legacy value `plan` means "keep the mode, set plan" (EXEC-1); `auto` is
/// kept as stored so that it stays denied rather than silently widened.
pub(crate) fn parse_stored_mode(value: &str, underneath: Mode) -> Option<ExecutionState> {
    match value.trim().to_ascii_lowercase().as_str() {
        "plan" => Some(ExecutionState::new(underneath, true)),
        "build" => Some(ExecutionState::new(Mode::Build, false)),
        "edit" => Some(ExecutionState::new(Mode::Edit, false)),
        "yolo" => Some(ExecutionState::new(Mode::Yolo, false)),
        "auto" => Some(ExecutionState::new(Mode::Auto, false)),
        _ => None,
    }
}

/// Where the starting state of a new interactive session comes from (EXEC-6).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StartingModeSources {
    pub explicit: Option<ModeChoice>,
    pub project_last_selected: Option<ExecutionState>,
    pub config_mode: Option<ExecutionState>,
    /// The stored state of a session being resumed.
    pub resumed_session: Option<ExecutionState>,
    pub headless: bool,
}

/// EXEC-6: the project's last mode without yolo. Yolo is never carried
/// over from a previous session (a stray key must not outlive the
/// session): it becomes build, keeping the plan flag.
fn carried_over(last: ExecutionState) -> ExecutionState {
    if last.mode == Mode::Yolo {
        ExecutionState::new(Mode::Build, last.plan_enabled)
    } else {
        last
    }
}

/// EXEC-6: resumed session state wins over the project preference; an
/// explicit `--mode` wins over everything; headless defaults to yolo; the
/// project preference never restores yolo.
pub(crate) fn starting_state(sources: StartingModeSources) -> ExecutionState {
    let base = if let Some(state) = sources.resumed_session {
        state
    } else if sources.headless {
        ExecutionState::new(Mode::Yolo, false)
    } else {
        sources
            .project_last_selected
            .map(carried_over)
            .or(sources.config_mode)
            .unwrap_or_default()
    };
    match sources.explicit {
        Some(choice) => base.apply(choice),
        None => base,
    }
}

/// Where a session's starting state came from (EXEC-6), so that a front
/// end can say when a permissive mode was carried over rather than asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModeSource {
    /// `--mode` on the command line.
    Flag,
    /// The project's last selected mode.
    ProjectLast,
    /// The project's last selected mode was yolo, which is never carried
    /// over: the session starts in build instead (EXEC-6).
    YoloNotCarriedOver,
    /// The config's `permission.mode`.
    Config,
    /// The stored state of the session being resumed.
    Session,
    /// Nothing chose it: build, or yolo when headless.
    #[default]
    Default,
}

/// Which of the sources [`starting_state`] took its state from.
pub(crate) fn starting_source(sources: &StartingModeSources) -> ModeSource {
    if sources.explicit.is_some() {
        ModeSource::Flag
    } else if sources.resumed_session.is_some() {
        ModeSource::Session
    } else if sources.headless {
        ModeSource::Default
    } else if let Some(last) = sources.project_last_selected {
        if last.mode == Mode::Yolo {
            ModeSource::YoloNotCarriedOver
        } else {
            ModeSource::ProjectLast
        }
    } else if sources.config_mode.is_some() {
        ModeSource::Config
    } else {
        ModeSource::Default
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exec7_mode_parsing_is_case_insensitive_and_rejects_auto() {
        assert_eq!(parse_mode_choice("PLAN"), Ok(ModeChoice::Plan));
        assert_eq!(parse_mode_choice("Yolo"), Ok(ModeChoice::Mode(Mode::Yolo)));
        assert_eq!(parse_mode_choice("auto"), Err(ModeError::AutoReserved));
        assert!(matches!(
            parse_mode_choice("fast"),
            Err(ModeError::Invalid(_))
        ));
    }

    #[test]
    fn exec1_legacy_plan_keeps_mode_and_sets_flag() {
        assert_eq!(
            parse_stored_mode("plan", Mode::Edit),
            Some(ExecutionState::new(Mode::Edit, true))
        );
        let s = ExecutionState::new(Mode::Yolo, false).apply(ModeChoice::Plan);
        assert_eq!(s, ExecutionState::new(Mode::Yolo, true));
        // EXEC-3: leaving plan returns to the mode underneath.
        assert_eq!(
            s.apply(ModeChoice::Mode(s.mode)),
            ExecutionState::new(Mode::Yolo, false)
        );
    }

    #[test]
    fn exec2_descriptions_are_exact() {
        assert_eq!(Mode::Build.description(), "Ask before each file changes.");
        assert_eq!(
            Mode::Edit.description(),
            "Edit selected files or relevant workspace files automatically."
        );
        assert_eq!(
            Mode::Yolo.description(),
            "Edit and run commands with fewer confirmations."
        );
        assert_eq!(
            ExecutionState::new(Mode::Build, true).description(),
            PLAN_DESCRIPTION
        );
    }

    #[test]
    fn exec5_plan_and_goal_conflict() {
        let s = ExecutionState::new(Mode::Build, true);
        assert_eq!(
            s.ensure_no_goal_conflict(true).unwrap_err().to_string(),
            "Plan and Goal cannot be active at the same time."
        );
        assert!(s.ensure_no_goal_conflict(false).is_ok());
    }

    #[test]
    fn exec6_fallback_chain() {
        let edit = ExecutionState::new(Mode::Edit, false);
        let yolo_plan = ExecutionState::new(Mode::Yolo, true);
        // Nothing: build.
        assert_eq!(
            starting_state(Default::default()),
            ExecutionState::default()
        );
        // Config only.
        let s = StartingModeSources {
            config_mode: Some(edit),
            ..Default::default()
        };
        assert_eq!(starting_state(s), edit);
        // Project preference beats config (yolo is not carried over: the
        // plan flag is, over build).
        let s = StartingModeSources {
            config_mode: Some(edit),
            project_last_selected: Some(yolo_plan),
            ..Default::default()
        };
        assert_eq!(starting_state(s), ExecutionState::new(Mode::Build, true));
        // Explicit beats both.
        let s = StartingModeSources {
            explicit: Some(ModeChoice::Mode(Mode::Build)),
            config_mode: Some(edit),
            project_last_selected: Some(yolo_plan),
            ..Default::default()
        };
        assert_eq!(starting_state(s), ExecutionState::default());
        // Resumed session beats the project preference.
        let s = StartingModeSources {
            resumed_session: Some(edit),
            project_last_selected: Some(yolo_plan),
            ..Default::default()
        };
        assert_eq!(starting_state(s), edit);
        // Headless: yolo.
        let s = StartingModeSources {
            headless: true,
            config_mode: Some(edit),
            ..Default::default()
        };
        assert_eq!(starting_state(s), ExecutionState::new(Mode::Yolo, false));
    }

    #[test]
    fn exec6_yolo_is_never_carried_over_from_the_last_session() {
        let last = |mode, plan| StartingModeSources {
            project_last_selected: Some(ExecutionState::new(mode, plan)),
            config_mode: Some(ExecutionState::new(Mode::Edit, false)),
            ..Default::default()
        };
        let s = last(Mode::Yolo, false);
        assert_eq!(starting_state(s), ExecutionState::default());
        assert_eq!(starting_source(&s), ModeSource::YoloNotCarriedOver);
        // Plan over yolo keeps plan, over build.
        let s = last(Mode::Yolo, true);
        assert_eq!(starting_state(s), ExecutionState::new(Mode::Build, true));
        assert_eq!(starting_source(&s), ModeSource::YoloNotCarriedOver);
        // Only an explicit choice or the config starts in yolo.
        let s = StartingModeSources {
            explicit: Some(ModeChoice::Mode(Mode::Yolo)),
            ..last(Mode::Yolo, false)
        };
        assert_eq!(starting_state(s), ExecutionState::new(Mode::Yolo, false));
        let s = StartingModeSources {
            config_mode: Some(ExecutionState::new(Mode::Yolo, false)),
            ..Default::default()
        };
        assert_eq!(starting_state(s), ExecutionState::new(Mode::Yolo, false));
        // Another mode is carried over as before.
        assert_eq!(
            starting_state(last(Mode::Edit, false)),
            ExecutionState::new(Mode::Edit, false)
        );
    }

    #[test]
    fn plan1_shift_tab_never_reaches_yolo() {
        assert!(!ModeChoice::CYCLE.contains(&ModeChoice::Mode(Mode::Yolo)));
        assert_eq!(
            ModeChoice::CYCLE,
            [
                ModeChoice::Mode(Mode::Build),
                ModeChoice::Mode(Mode::Edit),
                ModeChoice::Plan
            ]
        );
        assert!(ModeChoice::ALL.contains(&ModeChoice::Mode(Mode::Yolo)));
    }

    #[test]
    fn ux_the_starting_source_names_what_starting_state_took() {
        let yolo = Some(ExecutionState::new(Mode::Yolo, false));
        let last = StartingModeSources {
            project_last_selected: Some(ExecutionState::new(Mode::Edit, false)),
            config_mode: Some(ExecutionState::default()),
            ..Default::default()
        };
        assert_eq!(starting_source(&last), ModeSource::ProjectLast);
        let flag = StartingModeSources {
            explicit: Some(ModeChoice::Mode(Mode::Yolo)),
            ..last
        };
        assert_eq!(starting_source(&flag), ModeSource::Flag);
        let config = StartingModeSources {
            config_mode: yolo,
            ..Default::default()
        };
        assert_eq!(starting_source(&config), ModeSource::Config);
        let resumed = StartingModeSources {
            resumed_session: yolo,
            ..last
        };
        assert_eq!(starting_source(&resumed), ModeSource::Session);
        let headless = StartingModeSources {
            headless: true,
            ..last
        };
        assert_eq!(starting_source(&headless), ModeSource::Default);
        assert_eq!(starting_source(&Default::default()), ModeSource::Default);
    }
}
