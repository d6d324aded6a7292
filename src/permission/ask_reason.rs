//! Why a call is asked about, in plain words. The approval panel shows the
//! reason next to the call, so each reason is a phrase whose subject is
//! the call ("runs a command that can change files"), saying what the call
//! would do rather than which rule fired.

use super::bash::BashAnalysis;
use super::capability::{Capability, SideEffectScope};
use super::declaration::{AskReason, ToolDeclaration};
use super::rules::{Rule, url_host};
use serde_json::Value;
use std::borrow::Cow;

pub(crate) const HOOK_ASK: &str = "a PreToolUse hook asks you to confirm it";
pub(crate) const ALWAYS_ASK: &str = "uses a tool that asks before every call";

/// PERM-2: a tool that needs the user's answer.
pub(crate) fn user_interaction(tool: &ToolDeclaration) -> &'static str {
    match tool.wording.reason {
        AskReason::Always(reason) => reason,
        _ => "needs your answer",
    }
}

/// PERM-7: a project ask rule matched.
pub(crate) fn project_ask(rule: &Rule) -> String {
    format!("matches the project rule {rule}, which asks first")
}

/// What the call does, for an ask of the build rules (PERM-11): the tool's
/// declared wording, with its input and where its target lies.
pub(crate) fn build_ask(
    tool: &ToolDeclaration,
    capability: &Capability,
    input: &Value,
    inside_workspace: bool,
    bash: Option<&BashAnalysis>,
) -> Cow<'static, str> {
    let place = if inside_workspace {
        "in the workspace"
    } else {
        "outside the workspace"
    };
    match tool.wording.reason {
        AskReason::Command { checked, unchecked } => match bash {
            Some(analysis) if analysis.safe_parse => checked.into(),
            _ => unchecked.into(),
        },
        AskReason::File(what) => format!("{what} {place}").into(),
        AskReason::Fetch { from, anywhere } => {
            match input.get("url").and_then(Value::as_str).and_then(url_host) {
                Some(host) => format!("{from} {host}").into(),
                None => anywhere.into(),
            }
        }
        AskReason::Always(reason) => reason.into(),
        AskReason::Effect => match capability.side_effect_scope {
            SideEffectScope::System => "can change files or the system".into(),
            SideEffectScope::Workspace => format!("can change files {place}").into(),
            SideEffectScope::Network => "reaches the internet".into(),
            SideEffectScope::Session => "changes this session's state".into(),
            SideEffectScope::None => "needs your approval".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::check::{Behavior, RuleId};
    use crate::permission::mode::{ExecutionState, Mode};
    use crate::permission::rules::{RuleKind, RuleSet};
    use crate::permission::service::PermissionService;
    use crate::permission::settings::PermissionSettings;
    use crate::tools::registry::declaration_for;
    use serde_json::json;

    /// The decision's reason for `tool` with `input` in build mode, with
    /// these project rules; the decision must be an ask.
    fn ask_reason(tool: &str, input: Value, rules: &RuleSet) -> (String, RuleId) {
        let ws = tempfile::tempdir().unwrap();
        let service = PermissionService::new(PermissionSettings::default(), ws.path(), None);
        let eval = service.evaluate(
            &declaration_for(tool),
            &input,
            ExecutionState::new(Mode::Build, false),
            rules,
            None,
        );
        assert_eq!(eval.decision.behavior, Behavior::Ask, "{eval:?}");
        (eval.decision.reason.into_owned(), eval.decision.rule_id)
    }

    fn no_rules() -> RuleSet {
        RuleSet::default()
    }

    #[test]
    fn ux_every_ask_of_the_build_rules_says_what_the_call_does() {
        let cases = [
            (
                "Bash",
                json!({"command": "touch a"}),
                "runs a command that can change files",
            ),
            (
                "Bash",
                json!({"command": "cat $(ls)"}),
                "runs a command that can change files (zcode cannot check all of it in advance)",
            ),
            (
                "Write",
                json!({"file_path": "a.txt", "content": ""}),
                "writes to a file in the workspace",
            ),
            (
                "Write",
                json!({"file_path": "/elsewhere/a.txt", "content": ""}),
                "writes to a file outside the workspace",
            ),
            (
                "Edit",
                json!({"file_path": "a.txt", "old_string": "a", "new_string": "b"}),
                "edits a file in the workspace",
            ),
            (
                "Edit",
                json!({"file_path": "/elsewhere/a.txt", "old_string": "a", "new_string": "b"}),
                "edits a file outside the workspace",
            ),
            (
                "WebFetch",
                json!({"url": "https://example.com/x"}),
                "fetches a page from example.com",
            ),
            ("WebFetch", json!({}), "fetches a page from the internet"),
            (
                "Mystery",
                json!({}),
                "uses a tool zcode knows nothing about, so it could do anything",
            ),
        ];
        for (tool, input, expected) in cases {
            let (reason, _) = ask_reason(tool, input.clone(), &no_rules());
            assert_eq!(reason, expected, "{tool} {input}");
        }
    }

    #[test]
    fn ux_asks_of_rules_hooks_and_questions_are_in_plain_words() {
        let (reason, _) = ask_reason("AskUserQuestion", json!({}), &no_rules());
        assert_eq!(reason, "asks you a question");
        assert_eq!(
            user_interaction(&declaration_for("ExitPlanMode")),
            "asks you to approve its plan"
        );

        let mut rules = RuleSet::default();
        rules.merge(RuleKind::Ask, [Rule::with_content("Bash", "git push:*")]);
        let (reason, id) = ask_reason("Bash", json!({"command": "git push"}), &rules);
        assert_eq!(id, RuleId::ProjectAsk);
        assert_eq!(
            reason,
            "matches the project rule Bash(git push:*), which asks first"
        );

        // PERM-10: a protected file says which kind it is.
        let (reason, id) = ask_reason(
            "Write",
            json!({"file_path": ".git/config", "content": ""}),
            &no_rules(),
        );
        assert_eq!(id, RuleId::EditProtectedPath);
        assert!(
            reason.starts_with("writes inside a git directory"),
            "{reason}"
        );
    }

    #[test]
    fn ux_no_ask_reason_names_a_risk_level() {
        for text in [
            HOOK_ASK,
            ALWAYS_ASK,
            user_interaction(&ToolDeclaration::builtin(
                "Other",
                Capability::read_only_low("other"),
            )),
        ] {
            assert!(
                !text.contains("risk") && !text.contains("needs approval"),
                "{text}"
            );
        }
    }
}
