//! PERM-1..11 and PERM-13: the order of the decision, its rule ids and
//! reasons, and the overlays.

use serde_json::{Value, json};
use zcode::permission::capability::{Capability, McpHints, RiskLevel, SideEffectScope};
use zcode::permission::check::{
    Behavior, CheckContext, Decision, HookPermission, RuleId, TargetLocation, apply_overlays,
    check_permission,
};
use zcode::permission::declaration::{RuleSubject, ToolDeclaration};
use zcode::permission::mode::{ExecutionState, Mode};
use zcode::permission::rules::{Rule, RuleSet};
use zcode::permission::settings::PermissionSettings;
use zcode::tools::registry::{builtin_capability, declaration_for};

const BUILD: ExecutionState = ExecutionState::new(Mode::Build, false);
const EDIT: ExecutionState = ExecutionState::new(Mode::Edit, false);
const YOLO: ExecutionState = ExecutionState::new(Mode::Yolo, false);
const AUTO: ExecutionState = ExecutionState::new(Mode::Auto, false);
const PLAN: ExecutionState = ExecutionState::new(Mode::Build, true);

struct Case {
    tool: &'static str,
    cap: Capability,
    input: Value,
    state: ExecutionState,
    settings: PermissionSettings,
    project: RuleSet,
    session: Vec<Rule>,
    target: TargetLocation,
}

impl Case {
    fn new(tool: &'static str, input: Value, state: ExecutionState) -> Self {
        Self {
            tool,
            cap: builtin_capability(tool).unwrap_or(ALWAYS_ASK_TOOL),
            input,
            state,
            settings: PermissionSettings::default(),
            project: RuleSet::default(),
            session: Vec::new(),
            target: TargetLocation::default(),
        }
    }
    fn decide(&self) -> Decision {
        let analysis = (self.tool == "Bash").then(|| {
            zcode::permission::bash::analyze(self.input["command"].as_str().unwrap_or(""))
        });
        // The tool's own declaration, with the capability the case sets.
        let tool = ToolDeclaration {
            capability: self.cap,
            ..declaration_for(self.tool)
        };
        check_permission(&CheckContext {
            tool: &tool,
            input: &self.input,
            state: self.state,
            settings: &self.settings,
            project_rules: &self.project,
            session_rules: &self.session,
            target: self.target,
            path: None,
            bash: analysis.as_ref(),
        })
    }
}

const ALWAYS_ASK_TOOL: Capability = Capability {
    read_only: false,
    destructive: false,
    side_effect_scope: SideEffectScope::Workspace,
    risk_level: RiskLevel::Medium,
    needs_approval: true,
    always_ask: true,
    requires_user_interaction: false,
    allowed_in_plan_mode: false,
    permission_name: "workflow",
    allow_always: None,
};

fn disallow(tool: &str) -> PermissionSettings {
    PermissionSettings {
        disallowed_tools: [tool.to_string()].into(),
        ..Default::default()
    }
}

fn rules(allow: &[Rule], ask: &[Rule], deny: &[Rule]) -> RuleSet {
    RuleSet {
        allow: allow.to_vec(),
        ask: ask.to_vec(),
        deny: deny.to_vec(),
    }
}

#[test]
fn perm1_plan_tools() {
    for state in [BUILD, EDIT, YOLO, AUTO, PLAN] {
        let d = Case::new("EnterPlanMode", json!({}), state).decide();
        assert_eq!(
            (d.behavior, d.rule_id),
            (Behavior::Allow, RuleId::PlanEnter)
        );
    }
    let d = Case::new("ExitPlanMode", json!({}), YOLO).decide();
    assert_eq!(
        (d.behavior, d.rule_id.as_str()),
        (Behavior::Deny, "mode.plan.exitOnly")
    );
    assert_eq!(
        d.reason,
        "ExitPlanMode can only be used while plan mode is active"
    );
}

#[test]
fn perm2_user_interaction_asks_even_in_yolo_and_denies_when_disallowed() {
    let d = Case::new("AskUserQuestion", json!({}), YOLO).decide();
    assert_eq!(
        (d.behavior, d.rule_id),
        (Behavior::Ask, RuleId::UserInteraction)
    );
    let mut c = Case::new("AskUserQuestion", json!({}), YOLO);
    c.settings = disallow("AskUserQuestion");
    let d = c.decide();
    assert_eq!(
        (d.behavior, d.rule_id.as_str()),
        (Behavior::Deny, "rule.disallowedTools")
    );
    assert_eq!(d.reason, "Tool AskUserQuestion is explicitly disallowed");
}

#[test]
fn perm3_always_ask_gate() {
    let base = || Case::new("CreateWorkflow", json!({"path": "w"}), YOLO);
    assert_eq!(base().decide().rule_id, RuleId::AlwaysAsk);
    let mut c = base();
    c.state = AUTO;
    assert_eq!(c.decide().rule_id, "mode.auto.unimplemented");
    let mut c = base();
    c.settings = disallow("CreateWorkflow");
    assert_eq!(c.decide().behavior, Behavior::Deny);
    let mut c = base();
    c.project = rules(&[], &[], &[Rule::tool("CreateWorkflow")]);
    assert_eq!(c.decide().rule_id, RuleId::ProjectDeny);
    // A project allow rule does not open the gate; a session rule does.
    let mut c = base();
    c.project = rules(&[Rule::tool("CreateWorkflow")], &[], &[]);
    assert_eq!(c.decide().behavior, Behavior::Ask);
    let mut c = base();
    c.session = vec![Rule::tool("CreateWorkflow")];
    assert_eq!(c.decide().rule_id, RuleId::SessionAllow);
}

#[test]
fn perm4_yolo_allows_what_no_deny_names_and_skips_ask_rules() {
    let d = Case::new("Write", json!({"file_path": "/x"}), YOLO).decide();
    assert_eq!(
        (d.behavior, d.rule_id.as_str()),
        (Behavior::Allow, "mode.yolo")
    );
    assert_eq!(d.reason, "Yolo mode bypasses permission prompts");
    // Ask rules are questions, and yolo asks none.
    let mut c = Case::new("Bash", json!({"command": "git push"}), YOLO);
    c.project = rules(&[], &[Rule::with_content("Bash", "git push:*")], &[]);
    assert_eq!(c.decide().rule_id, "mode.yolo");
}

#[test]
fn perm4_deny_rule_holds_in_yolo_rm_rf() {
    let mut c = Case::new("Bash", json!({"command": "rm -rf x"}), YOLO);
    c.project = rules(&[], &[], &[Rule::with_content("Bash", "rm:*")]);
    let d = c.decide();
    assert_eq!(
        (d.behavior, d.rule_id),
        (Behavior::Deny, RuleId::ProjectDeny)
    );
    // Hidden in a chain it is still denied.
    c.input = json!({"command": "ls && rm -rf x"});
    assert_eq!(c.decide().behavior, Behavior::Deny);
}

#[test]
fn perm4_write_deny_on_git_dir_holds_in_yolo() {
    for tool in ["Write", "Edit"] {
        let mut c = Case::new(tool, json!({"file_path": ".git/config"}), YOLO);
        c.project = rules(&[], &[], &[Rule::with_content("Write", ".git/*")]);
        let d = c.decide();
        assert_eq!(
            (d.behavior, d.rule_id),
            (Behavior::Deny, RuleId::ProjectDeny),
            "{tool}"
        );
    }
}

#[test]
fn perm4_disallowed_tools_hold_in_yolo() {
    let mut c = Case::new("Bash", json!({"command": "ls"}), YOLO);
    c.settings = disallow("Bash");
    let d = c.decide();
    assert_eq!(
        (d.behavior, d.rule_id.as_str()),
        (Behavior::Deny, "rule.disallowedTools")
    );
    // With the project rules too: the first deny decides.
    let mut c = Case::new("Write", json!({"file_path": "/x"}), YOLO);
    c.settings = disallow("Write");
    c.project = rules(&[], &[], &[Rule::tool("Write")]);
    assert_eq!(c.decide().behavior, Behavior::Deny);
}

#[test]
fn perm5_auto_denies_ordinary_tools() {
    let d = Case::new("Read", json!({"file_path": "a"}), AUTO).decide();
    assert_eq!(
        (d.behavior, d.rule_id.as_str()),
        (Behavior::Deny, "mode.auto.unimplemented")
    );
    assert_eq!(d.reason, "Auto mode is reserved but not implemented yet");
}

#[test]
fn perm6_disallowed_tools_deny_in_every_mode() {
    for state in [BUILD, EDIT, PLAN, YOLO] {
        let mut c = Case::new("Read", json!({"file_path": "a"}), state);
        c.settings = disallow("Read");
        let d = c.decide();
        assert_eq!(
            (d.behavior, d.rule_id.as_str()),
            (Behavior::Deny, "rule.disallowedTools")
        );
        assert_eq!(d.reason, "Tool Read is explicitly disallowed");
    }
}

#[test]
fn perm7_project_deny_then_ask() {
    let mut c = Case::new("Read", json!({"file_path": "secrets/.env"}), BUILD);
    c.project = rules(
        &[],
        &[Rule::with_content("Read", "secrets/*")],
        &[Rule::with_content("Read", "*.env")],
    );
    assert_eq!(c.decide().rule_id, RuleId::ProjectDeny);
    c.project.deny.clear();
    let d = c.decide();
    assert_eq!((d.behavior, d.rule_id), (Behavior::Ask, RuleId::ProjectAsk));
    // Edit rules cover Write (RULE-2).
    let mut c = Case::new("Write", json!({"file_path": "secrets/k"}), EDIT);
    c.target.inside_workspace = true;
    c.project = rules(&[], &[], &[Rule::with_content("Edit", "secrets/*")]);
    assert_eq!(c.decide().behavior, Behavior::Deny);
}

#[test]
fn perm7_bash_project_rules_use_the_bash_policy() {
    // BASH-5 verbatim rule, via the check.
    let mut c = Case::new("Bash", json!({"command": "make deploy"}), BUILD);
    c.project = rules(&[], &[], &[Rule::with_content("Bash", "make deploy")]);
    assert_eq!(c.decide().rule_id, RuleId::ProjectDeny);
    c.project = rules(&[Rule::with_content("Bash", "make deploy")], &[], &[]);
    assert_eq!(c.decide().rule_id, RuleId::ProjectAllow);
}

#[test]
fn perm8_plan_restricts_and_allow_rules_cannot_lift_it() {
    let mut c = Case::new("Write", json!({"file_path": "a"}), PLAN);
    c.project = rules(&[Rule::tool("Write")], &[], &[]);
    c.settings.allowed_tools = ["Write".to_string()].into();
    let d = c.decide();
    assert_eq!(
        (d.behavior, d.rule_id.as_str()),
        (Behavior::Deny, "mode.plan.restricted")
    );
    assert_eq!(
        d.reason,
        "Plan mode only allows read-only, non-destructive tools"
    );
    // WebFetch reaches the network: not allowed as read-only, but asked
    // about as in build.
    assert_eq!(
        Case::new("WebFetch", json!({"url": "https://a.b"}), PLAN)
            .decide()
            .behavior,
        Behavior::Ask
    );
    // An MCP tool only on its declared readOnlyHint without a
    // destructiveHint; no hint at all is not enough (the seed allowed it).
    let hints = |read_only, destructive, open_world| McpHints {
        read_only,
        destructive,
        open_world,
    };
    for (h, expected) in [
        (hints(Some(true), None, None), Behavior::Allow),
        (hints(Some(true), None, Some(true)), Behavior::Allow),
        (hints(Some(true), Some(false), Some(false)), Behavior::Allow),
        (hints(Some(true), Some(true), None), Behavior::Deny),
        (hints(None, None, None), Behavior::Deny),
        (hints(None, Some(false), Some(false)), Behavior::Deny),
        (hints(Some(false), Some(false), None), Behavior::Deny),
    ] {
        let mut c = Case::new("mcp__db__query", json!({}), PLAN);
        c.cap = Capability::mcp(h);
        assert_eq!(c.decide().behavior, expected, "{h:?}");
        // Outside plan every MCP tool is asked about, read-only or not,
        // and yolo allows it.
        let mut c = Case::new("mcp__db__query", json!({}), BUILD);
        c.cap = Capability::mcp(h);
        assert_eq!(c.decide().behavior, Behavior::Ask, "{h:?}");
        let mut c = Case::new("mcp__db__query", json!({}), YOLO);
        c.cap = Capability::mcp(h);
        assert_eq!(c.decide().behavior, Behavior::Allow, "{h:?}");
    }
    // Session-scoped control actions declared allowedInPlanMode.
    let mut c = Case::new("RespondToCoordinator", json!({}), PLAN);
    c.cap = Capability {
        read_only: false,
        side_effect_scope: SideEffectScope::Session,
        allowed_in_plan_mode: true,
        needs_approval: false,
        always_ask: false,
        ..ALWAYS_ASK_TOOL
    };
    assert_eq!(c.decide().behavior, Behavior::Allow);
    c.cap.needs_approval = true;
    assert_eq!(c.decide().behavior, Behavior::Deny);
}

#[test]
fn perm9_project_allow_domains_and_allowed_tools() {
    let mut c = Case::new("Write", json!({"file_path": "/tmp/out.txt"}), BUILD);
    c.project = rules(&[Rule::with_content("Edit", "/tmp/*")], &[], &[]);
    assert_eq!(c.decide().rule_id, RuleId::ProjectAllow);
    let mut c = Case::new("WebFetch", json!({"url": "https://docs.rs/x"}), BUILD);
    c.project = rules(
        &[Rule::with_content("WebFetch", "domain:docs.rs")],
        &[],
        &[],
    );
    assert_eq!(c.decide().rule_id, RuleId::ProjectAllow);
    let mut c = Case::new("WebFetch", json!({"url": "https://docs.rs/x"}), BUILD);
    c.settings.web_fetch_allowed_domains = vec!["docs.rs".into()];
    assert_eq!(c.decide().rule_id, RuleId::WebFetchDomain);
    let mut c = Case::new("Bash", json!({"command": "cargo build"}), BUILD);
    c.settings.allowed_tools = ["Bash".to_string()].into();
    assert_eq!(c.decide().rule_id, RuleId::AllowedTools);
}

#[test]
fn perm10_edit_mode_only_inside_workspace() {
    let mut c = Case::new("Edit", json!({"file_path": "a"}), EDIT);
    c.target.inside_workspace = true;
    assert_eq!(c.decide().rule_id, RuleId::EditWorkspace);
    c.target.inside_workspace = false;
    assert_eq!(c.decide().behavior, Behavior::Ask);
    // Build mode ignores the workspace.
    let mut c = Case::new("Edit", json!({"file_path": "a"}), BUILD);
    c.target.inside_workspace = true;
    assert_eq!(c.decide().behavior, Behavior::Ask);
}

#[test]
fn perm11_build_rules_in_order() {
    let mk = |cap: Capability| {
        let mut c = Case::new("Custom", json!({}), BUILD);
        c.cap = Capability {
            always_ask: false,
            ..cap
        };
        c.decide()
    };
    let ro = Capability {
        read_only: true,
        needs_approval: false,
        side_effect_scope: SideEffectScope::None,
        risk_level: RiskLevel::Critical,
        ..ALWAYS_ASK_TOOL
    };
    assert_eq!(mk(ro).rule_id, RuleId::ReadOnly);
    let crit = Capability {
        read_only: false,
        risk_level: RiskLevel::Critical,
        ..ro
    };
    assert_eq!(mk(crit).rule_id, RuleId::RiskCritical);
    let high = Capability {
        risk_level: RiskLevel::High,
        ..crit
    };
    assert_eq!(mk(high).rule_id, RuleId::RiskHigh);
    let session = Capability {
        risk_level: RiskLevel::Low,
        side_effect_scope: SideEffectScope::Session,
        needs_approval: true,
        ..crit
    };
    assert_eq!(mk(session).rule_id, RuleId::SessionScope);
    let scoped = Capability {
        side_effect_scope: SideEffectScope::Workspace,
        needs_approval: false,
        ..session
    };
    assert_eq!(mk(scoped).rule_id, RuleId::NeedsApproval);
    let plain = Capability {
        side_effect_scope: SideEffectScope::None,
        ..scoped
    };
    assert_eq!(mk(plain).rule_id, RuleId::BuildDefault);
    // autoApproveHighRisk skips the high-risk ask, but a system-scoped tool
    // still needs approval.
    let mut c = Case::new("Bash", json!({"command": "cargo build"}), BUILD);
    c.settings.auto_approve_high_risk = true;
    assert_eq!(c.decide().rule_id, RuleId::NeedsApproval);
}

fn write_cap() -> Capability {
    builtin_capability("Write").unwrap()
}

#[test]
fn perm13_hook_overlay() {
    let cap = write_cap();
    let ask = Decision::ask(RuleId::NeedsApproval, "x");
    let allow = Decision::allow(RuleId::Yolo, "x");
    let deny = Decision::deny(RuleId::PlanRestricted, "x");
    let t = TargetLocation::default();
    let d = apply_overlays(ask.clone(), &cap, Some(&HookPermission::Allow), t);
    assert_eq!(
        (d.behavior, d.rule_id),
        (Behavior::Allow, RuleId::HookAllow)
    );
    let d = apply_overlays(allow.clone(), &cap, Some(&HookPermission::Ask), t);
    assert_eq!((d.behavior, d.rule_id), (Behavior::Ask, RuleId::HookAsk));
    let d = apply_overlays(allow, &cap, Some(&HookPermission::Deny("no".into())), t);
    assert_eq!((d.behavior, d.reason.as_ref()), (Behavior::Deny, "no"));
    let d = apply_overlays(deny.clone(), &cap, Some(&HookPermission::Allow), t);
    assert_eq!(d, deny);
    // A hook allow never removes the ask of alwaysAsk / user-interaction tools.
    let ask_user = builtin_capability("AskUserQuestion").unwrap();
    let q = Decision::ask(RuleId::UserInteraction, "x");
    assert_eq!(
        apply_overlays(q.clone(), &ask_user, Some(&HookPermission::Allow), t),
        q
    );
    let a = Decision::ask(RuleId::AlwaysAsk, "x");
    assert_eq!(
        apply_overlays(a.clone(), &ALWAYS_ASK_TOOL, Some(&HookPermission::Allow), t),
        a
    );
}

#[test]
fn perm13_memory_overlay() {
    let cap = write_cap();
    let mem = TargetLocation {
        inside_workspace: false,
        memory_file: true,
        protected: None,
    };
    // Overrides the plan deny and an ordinary ask.
    let d = apply_overlays(Decision::deny(RuleId::PlanRestricted, "x"), &cap, None, mem);
    assert_eq!(
        (d.behavior, d.rule_id),
        (Behavior::Allow, RuleId::MemoryFile)
    );
    let d = apply_overlays(Decision::ask(RuleId::NeedsApproval, "x"), &cap, None, mem);
    assert_eq!(d.behavior, Behavior::Allow);
    // Other denies, project ask rules and hook asks survive.
    for keep in [
        Decision::deny(RuleId::ProjectDeny, "x"),
        Decision::deny(RuleId::Disallowed, "x"),
        Decision::ask(RuleId::ProjectAsk, "x"),
    ] {
        assert_eq!(apply_overlays(keep.clone(), &cap, None, mem), keep);
    }
    let d = apply_overlays(
        Decision::allow(RuleId::Yolo, "x"),
        &cap,
        Some(&HookPermission::Ask),
        mem,
    );
    assert_eq!(d.rule_id, RuleId::HookAsk);
    // Not a memory file, or not an edit tool: untouched.
    let d = apply_overlays(
        Decision::deny(RuleId::PlanRestricted, "x"),
        &cap,
        None,
        TargetLocation::default(),
    );
    assert_eq!(d.behavior, Behavior::Deny);
    let bash = builtin_capability("Bash").unwrap();
    let d = apply_overlays(
        Decision::deny(RuleId::PlanRestricted, "x"),
        &bash,
        None,
        mem,
    );
    assert_eq!(d.behavior, Behavior::Deny);
}

#[test]
fn perm13_memory_overlay_keeps_a_hook_ask_or_deny() {
    let cap = write_cap();
    let mem = TargetLocation {
        inside_workspace: false,
        memory_file: true,
        protected: None,
    };
    // Build mode already asks; the hook's ask must survive the overlay.
    let d = apply_overlays(
        Decision::ask(RuleId::NeedsApproval, "x"),
        &cap,
        Some(&HookPermission::Ask),
        mem,
    );
    assert_eq!((d.behavior, d.rule_id), (Behavior::Ask, RuleId::HookAsk));
    // Plan mode: the overlay lifts the plan deny, but not the hook's word.
    let plan = Decision::deny(RuleId::PlanRestricted, "x");
    let d = apply_overlays(
        plan.clone(),
        &cap,
        Some(&HookPermission::Deny("no".into())),
        mem,
    );
    assert_eq!((d.behavior, d.rule_id), (Behavior::Deny, RuleId::HookDeny));
    let d = apply_overlays(plan.clone(), &cap, Some(&HookPermission::Ask), mem);
    assert_eq!((d.behavior, d.rule_id), (Behavior::Ask, RuleId::HookAsk));
    let d = apply_overlays(plan, &cap, Some(&HookPermission::Allow), mem);
    assert_eq!(
        (d.behavior, d.rule_id),
        (Behavior::Allow, RuleId::MemoryFile)
    );
}

/// The decision for a call of `tool` with `input`, judged by nothing but
/// its declaration.
fn decide_declared(
    tool: &ToolDeclaration,
    input: &Value,
    state: ExecutionState,
    project: &RuleSet,
) -> Decision {
    check_permission(&CheckContext {
        tool,
        input,
        state,
        settings: &PermissionSettings::default(),
        project_rules: project,
        session_rules: &[],
        target: TargetLocation::default(),
        path: None,
        bash: None,
    })
}

/// A tool declared as the Agent tool will be (PERM-8: read-only, no side
/// effects, low risk; its calls may run side by side; its rules match no
/// content) is judged by its declaration alone, with no name known to the
/// engine: allowed in every mode but auto, plan included; a deny rule on
/// the tool holds, a rule with content matches nothing.
#[test]
fn perm8_an_agent_shaped_declaration_needs_nothing_but_itself() {
    let agent = ToolDeclaration::builtin("Agent", Capability::read_only_low("agent"))
        .with_subject(RuleSubject::Nothing)
        .in_parallel();
    let input =
        json!({"description": "find the parser", "prompt": "look", "subagent_type": "explore"});
    let none = RuleSet::default();
    for (state, id) in [
        (BUILD, RuleId::ReadOnly),
        (EDIT, RuleId::ReadOnly),
        (YOLO, RuleId::Yolo),
        (PLAN, RuleId::PlanReadOnly),
    ] {
        let d = decide_declared(&agent, &input, state, &none);
        assert_eq!((d.behavior, d.rule_id), (Behavior::Allow, id), "{state:?}");
    }
    let d = decide_declared(&agent, &input, AUTO, &none);
    assert_eq!(d.behavior, Behavior::Deny);
    let deny_all = rules(&[], &[], &[Rule::tool("Agent")]);
    let d = decide_declared(&agent, &input, BUILD, &deny_all);
    assert_eq!(
        (d.behavior, d.rule_id),
        (Behavior::Deny, RuleId::ProjectDeny)
    );
    let deny_some = rules(&[], &[], &[Rule::with_content("Agent", "explore")]);
    let d = decide_declared(&agent, &input, BUILD, &deny_some);
    assert_eq!(d.behavior, Behavior::Allow);
}
