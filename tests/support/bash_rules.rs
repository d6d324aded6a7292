//! One Bash decision in build mode against project rules, through the
//! real analysis and `check_permission` (BASH-5 rule tables).

use serde_json::json;
use zcode::permission::bash::{AnalyzeOptions, analyze_with};
use zcode::permission::check::{CheckContext, Decision, check_permission};
use zcode::permission::mode::{ExecutionState, Mode};
use zcode::permission::rules::RuleSet;
use zcode::permission::settings::PermissionSettings;
use zcode::tools::registry::builtin_declaration;

const BUILD: ExecutionState = ExecutionState::new(Mode::Build, false);

/// The decision for `command` under `project`'s rules, in build mode.
pub fn decide(project: &RuleSet, command: &str) -> Decision {
    decide_with(project, command, AnalyzeOptions::default())
}

/// `decide` with the analysis's options (a sandboxed judgment).
pub fn decide_with(project: &RuleSet, command: &str, options: AnalyzeOptions) -> Decision {
    let input = json!({ "command": command });
    let analysis = analyze_with(command, options);
    let bash = builtin_declaration("Bash").expect("Bash is built in");
    check_permission(&CheckContext {
        tool: bash,
        input: &input,
        state: BUILD,
        settings: &PermissionSettings::default(),
        project_rules: project,
        session_rules: &[],
        target: Default::default(),
        path: None,
        bash: Some(&analysis),
    })
}
