//! The decision function (PERM-1..11): a pure, synchronous function of its
//! inputs. First match wins, in the order of the spec.

use super::ask_reason;
use super::bash::{self, BashAnalysis};
use super::capability::{
    Capability, MCP_PERMISSION, RiskLevel, SideEffectScope, effective_capability,
};
use super::mode::{ExecutionState, Mode};
use super::path_rules::{PathSubject, path_rule_matches};
use super::protected::ProtectedPath;
use super::rules::{
    Rule, RuleKind, RuleSet, rule_of_kind_matches, rule_subject, tool_name_matches, url_host,
};
use super::settings::PermissionSettings;
use super::web_rules;
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Behavior {
    Allow,
    Ask,
    Deny,
}

impl Behavior {
    pub fn as_str(self) -> &'static str {
        match self {
            Behavior::Allow => "allow",
            Behavior::Ask => "ask",
            Behavior::Deny => "deny",
        }
    }
}

/// The outcome of a permission check, with the rule that decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    pub behavior: Behavior,
    pub rule_id: &'static str,
    pub reason: Cow<'static, str>,
}

impl Decision {
    fn new(
        behavior: Behavior,
        rule_id: &'static str,
        reason: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self {
            behavior,
            rule_id,
            reason: reason.into(),
        }
    }
    pub fn allow(rule_id: &'static str, reason: impl Into<Cow<'static, str>>) -> Self {
        Self::new(Behavior::Allow, rule_id, reason)
    }
    pub fn ask(rule_id: &'static str, reason: impl Into<Cow<'static, str>>) -> Self {
        Self::new(Behavior::Ask, rule_id, reason)
    }
    pub fn deny(rule_id: &'static str, reason: impl Into<Cow<'static, str>>) -> Self {
        Self::new(Behavior::Deny, rule_id, reason)
    }
}

/// Rule ids: stable names that say which step decided (shown by
/// `zcode permission check` and recorded with denials).
pub mod rule_id {
    pub const PLAN_ENTER: &str = "tool.plan.enter";
    pub const PLAN_EXIT_ONLY: &str = "mode.plan.exitOnly";
    pub const USER_INTERACTION: &str = "tool.requiresUserInteraction";
    pub const ALWAYS_ASK: &str = "tool.alwaysAsk";
    pub const SESSION_ALLOW: &str = "rule.session.allow";
    pub const YOLO: &str = "mode.yolo";
    pub const AUTO: &str = "mode.auto.unimplemented";
    pub const DISALLOWED: &str = "rule.disallowedTools";
    pub const PROJECT_DENY: &str = "rule.project.deny";
    pub const PROJECT_ASK: &str = "rule.project.ask";
    pub const PLAN_READ_ONLY: &str = "mode.plan.readOnly";
    pub const PLAN_RESTRICTED: &str = "mode.plan.restricted";
    pub const PROJECT_ALLOW: &str = "rule.project.allow";
    pub const WEB_FETCH_DOMAIN: &str = "rule.webFetch.domain";
    pub const ALLOWED_TOOLS: &str = "rule.allowedTools";
    pub const EDIT_WORKSPACE: &str = "mode.edit.workspace";
    pub const EDIT_PROTECTED_PATH: &str = "edit.protectedPath";
    pub const READ_ONLY: &str = "build.readOnly";
    pub const RISK_CRITICAL: &str = "build.risk.critical";
    pub const RISK_HIGH: &str = "build.risk.high";
    pub const SESSION_SCOPE: &str = "build.scope.session";
    pub const NEEDS_APPROVAL: &str = "build.needsApproval";
    pub const BUILD_DEFAULT: &str = "build.default";
    pub const HOOK_ALLOW: &str = "hook.preToolUse.allow";
    pub const HOOK_ASK: &str = "hook.preToolUse.ask";
    pub const HOOK_DENY: &str = "hook.preToolUse.deny";
    pub const MEMORY_FILE: &str = "memory.file";
}

/// Exact reason texts that are part of the contract.
pub mod reason {
    pub const EXIT_PLAN_ONLY: &str = "ExitPlanMode can only be used while plan mode is active";
    pub const AUTO: &str = "Auto mode is reserved but not implemented yet";
    pub const PLAN_RESTRICTED: &str = "Plan mode only allows read-only, non-destructive tools";
    pub const YOLO: &str = "Yolo mode bypasses permission prompts";
}

/// Where an edit-family tool's target lies, resolved beforehand by
/// `paths::resolve_target` (the check itself does no I/O).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TargetLocation {
    pub inside_workspace: bool,
    /// A `.md` file inside the project's memory directory (PERM-13).
    pub memory_file: bool,
    /// A file that makes a tool run a program (PERM-10): always asked.
    pub protected: Option<ProtectedPath>,
}

/// Everything one decision depends on.
#[derive(Debug, Clone, Copy)]
pub struct CheckContext<'a> {
    pub tool_name: &'a str,
    /// The tool's static declaration; Bash's is adjusted here (BASH-6).
    pub capability: &'a Capability,
    pub input: &'a Value,
    pub state: ExecutionState,
    pub settings: &'a PermissionSettings,
    pub project_rules: &'a RuleSet,
    pub session_rules: &'a [Rule],
    pub target: TargetLocation,
    /// The resolved path subject of path rules (RULE-3), when the subject
    /// comes from `file_path` or `path`; `None` compares the raw subject.
    pub path: Option<&'a PathSubject>,
    /// The Bash analysis of `input.command`, when the tool is Bash.
    pub bash: Option<&'a BashAnalysis>,
}

/// The first project rule of `kind` that matches this call (RULE-2..5).
fn project_rule<'a>(ctx: &CheckContext<'a>, kind: RuleKind) -> Option<&'a Rule> {
    matching_rule(ctx, kind, ctx.project_rules.rules(kind))
}

/// The first rule of `rules`, all of `kind`, that matches this call, by
/// the tool's own matcher: Bash's policy, path rules, WebFetch's URL rules.
fn matching_rule<'a>(
    ctx: &CheckContext<'_>,
    kind: RuleKind,
    rules: &'a [Rule],
) -> Option<&'a Rule> {
    if rules.is_empty() {
        return None;
    }
    if ctx.tool_name == "Bash" {
        return match ctx.bash {
            Some(analysis) => bash::matching_rule(kind, rules, analysis),
            // Without a command only content-less rules can apply.
            None => rules
                .iter()
                .find(|r| r.rule_content.is_none() && tool_name_matches(&r.tool_name, "Bash")),
        };
    }
    if let Some(path) = ctx.path {
        return rules
            .iter()
            .find(|r| path_rule_matches(r, kind, ctx.tool_name, path));
    }
    if ctx.tool_name == "WebFetch" {
        let url = ctx.input.get("url").and_then(Value::as_str);
        return rules
            .iter()
            .find(|r| web_rules::web_fetch_rule_matches(r, kind, ctx.tool_name, url));
    }
    let subject = rule_subject(ctx.tool_name, ctx.input);
    rules
        .iter()
        .find(|r| rule_of_kind_matches(r, kind, ctx.tool_name, subject.as_deref()))
}

/// PERM-10: the ask for a write to a protected file.
fn protected_ask(protected: ProtectedPath) -> Decision {
    Decision::ask(rule_id::EDIT_PROTECTED_PATH, protected.reason())
}

fn session_rule_matches(ctx: &CheckContext<'_>) -> bool {
    // GRANT-2: session rules grant the whole tool.
    ctx.session_rules
        .iter()
        .any(|r| tool_name_matches(&r.tool_name, ctx.tool_name))
}

/// PERM-6: the tool is named by `disallowedTools`, or one of its scoped
/// entries (`Bash(rm:*)`) matches the call as a deny rule would.
fn disallowed(ctx: &CheckContext<'_>) -> Option<Decision> {
    if ctx.settings.is_disallowed(ctx.tool_name) {
        return Some(Decision::deny(
            rule_id::DISALLOWED,
            format!("Tool {} is explicitly disallowed", ctx.tool_name),
        ));
    }
    matching_rule(ctx, RuleKind::Deny, &ctx.settings.deny_rules).map(|rule| {
        Decision::deny(
            rule_id::DISALLOWED,
            format!("Denied by disallowedTools entry {rule}"),
        )
    })
}

/// PERM-6 and the deny half of PERM-7: every deny the user wrote. They
/// hold in every mode, yolo included.
fn user_deny(ctx: &CheckContext<'_>) -> Option<Decision> {
    disallowed(ctx).or_else(|| project_rule(ctx, RuleKind::Deny).map(project_deny))
}

fn project_deny(rule: &Rule) -> Decision {
    Decision::deny(
        rule_id::PROJECT_DENY,
        format!("Denied by project rule {rule}"),
    )
}

fn bash_read_only(ctx: &CheckContext<'_>) -> Option<bool> {
    ctx.bash.map(|b| b.read_only)
}

/// PERM-8: WebFetch is neither allowed nor denied by plan mode; it goes on
/// to PERM-9..11 as in build (pre-approved domain or allow rule, else ask).
fn follows_build_rules_in_plan(tool_name: &str) -> bool {
    tool_name == "WebFetch"
}

/// PERM-1..11.
pub fn check_permission(ctx: &CheckContext<'_>) -> Decision {
    let state = ctx.state;
    let cap = if ctx.tool_name == "Bash" {
        effective_capability("Bash", bash_read_only(ctx)).unwrap_or(*ctx.capability)
    } else {
        *ctx.capability
    };

    // PERM-1
    if ctx.tool_name == "EnterPlanMode" {
        return Decision::allow(rule_id::PLAN_ENTER, "EnterPlanMode never needs approval");
    }
    if ctx.tool_name == "ExitPlanMode" && !state.plan_enabled {
        return Decision::deny(rule_id::PLAN_EXIT_ONLY, reason::EXIT_PLAN_ONLY);
    }

    // PERM-2
    if cap.requires_user_interaction {
        if let Some(deny) = disallowed(ctx) {
            return deny;
        }
        return Decision::ask(
            rule_id::USER_INTERACTION,
            ask_reason::user_interaction(ctx.tool_name),
        );
    }

    // PERM-3
    if cap.always_ask {
        if state.mode == Mode::Auto {
            return Decision::deny(rule_id::AUTO, reason::AUTO);
        }
        if let Some(deny) = user_deny(ctx) {
            return deny;
        }
        if session_rule_matches(ctx) {
            return Decision::allow(rule_id::SESSION_ALLOW, "Allowed for this session");
        }
        return Decision::ask(rule_id::ALWAYS_ASK, ask_reason::ALWAYS_ASK);
    }

    // PERM-5
    if state.mode == Mode::Auto {
        return Decision::deny(rule_id::AUTO, reason::AUTO);
    }

    // PERM-6, PERM-7 (deny): before yolo, so that a deny never stops
    // holding when yolo is on (a deliberate difference from the seed).
    if let Some(deny) = user_deny(ctx) {
        return deny;
    }

    // PERM-4: yolo asks nothing, project ask rules included.
    if state.mode == Mode::Yolo && !state.plan_enabled {
        return Decision::allow(rule_id::YOLO, reason::YOLO);
    }

    // PERM-7 (ask)
    if let Some(rule) = project_rule(ctx, RuleKind::Ask) {
        return Decision::ask(rule_id::PROJECT_ASK, ask_reason::project_ask(rule));
    }

    // PERM-8
    if state.plan_enabled && !follows_build_rules_in_plan(ctx.tool_name) {
        // A tool that reaches the network can send data out however
        // read-only it is (the URL itself carries it).
        let offline = cap.side_effect_scope != SideEffectScope::Network;
        let read_only = cap.read_only && !cap.destructive && offline;
        // An MCP tool is allowed only on its own word that it is read-only
        // and not destructive (its capability is built from those hints),
        // wherever it reaches.
        let mcp_ok = cap.permission_name == MCP_PERMISSION && cap.read_only && !cap.destructive;
        let control = cap.allowed_in_plan_mode
            && cap.side_effect_scope == SideEffectScope::Session
            && !cap.destructive
            && !cap.needs_approval;
        if read_only || mcp_ok || control {
            return Decision::allow(
                rule_id::PLAN_READ_ONLY,
                "Read-only tool allowed in plan mode",
            );
        }
        return Decision::deny(rule_id::PLAN_RESTRICTED, reason::PLAN_RESTRICTED);
    }

    // PERM-10 (protected files): no allow below applies to them, neither
    // an allow rule, `allowedTools` nor edit mode.
    if let Some(protected) = ctx.target.protected {
        return protected_ask(protected);
    }

    // PERM-9
    if let Some(rule) = project_rule(ctx, RuleKind::Allow) {
        return Decision::allow(
            rule_id::PROJECT_ALLOW,
            format!("Allowed by project rule {rule}"),
        );
    }
    if ctx.tool_name == "WebFetch"
        && let Some(host) = ctx
            .input
            .get("url")
            .and_then(Value::as_str)
            .and_then(url_host)
        && ctx.settings.web_fetch_domain_allowed(&host)
    {
        return Decision::allow(
            rule_id::WEB_FETCH_DOMAIN,
            format!("Domain {host} is pre-approved for WebFetch"),
        );
    }
    // `allowedTools` never lifts plan mode: in plan only a saved rule or a
    // pre-approved domain allows what reaches this step (WebFetch).
    if !state.plan_enabled {
        if ctx.settings.is_allowed(ctx.tool_name) {
            return Decision::allow(
                rule_id::ALLOWED_TOOLS,
                format!("Tool {} is in allowedTools", ctx.tool_name),
            );
        }
        if let Some(rule) = matching_rule(ctx, RuleKind::Allow, &ctx.settings.allow_rules) {
            return Decision::allow(
                rule_id::ALLOWED_TOOLS,
                format!("Allowed by allowedTools entry {rule}"),
            );
        }
    }

    // PERM-10
    if state.mode == Mode::Edit && cap.permission_name == "edit" && ctx.target.inside_workspace {
        return Decision::allow(
            rule_id::EDIT_WORKSPACE,
            "Edit mode allows edits inside the workspace",
        );
    }

    build_rules(&cap, ctx)
}

/// PERM-11. An ask says what the call does (`ask_reason::build_ask`); the
/// rule id says which step decided.
fn build_rules(cap: &Capability, ctx: &CheckContext<'_>) -> Decision {
    let what = || {
        ask_reason::build_ask(
            ctx.tool_name,
            cap,
            ctx.input,
            ctx.target.inside_workspace,
            ctx.bash,
        )
    };
    if cap.read_only && !cap.destructive && !cap.needs_approval {
        return Decision::allow(rule_id::READ_ONLY, "Read-only tool");
    }
    if cap.risk_level == RiskLevel::Critical {
        return Decision::ask(rule_id::RISK_CRITICAL, what());
    }
    if cap.risk_level == RiskLevel::High && !ctx.settings.auto_approve_high_risk {
        return Decision::ask(rule_id::RISK_HIGH, what());
    }
    if cap.side_effect_scope == SideEffectScope::Session && cap.risk_level == RiskLevel::Low {
        return Decision::allow(rule_id::SESSION_SCOPE, "Low-risk change to session state");
    }
    if cap.needs_approval || cap.destructive || cap.side_effect_scope != SideEffectScope::None {
        return Decision::ask(rule_id::NEEDS_APPROVAL, what());
    }
    Decision::allow(rule_id::BUILD_DEFAULT, "No side effects")
}

/// A PreToolUse hook's permission answer (HOOK-3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookPermission {
    Allow,
    Ask,
    Deny(String),
}

fn hook_deny(message: &str) -> Decision {
    let reason = if message.trim().is_empty() {
        "Denied by PreToolUse hook".to_string()
    } else {
        message.to_string()
    };
    Decision::deny(rule_id::HOOK_DENY, reason)
}

fn hook_ask() -> Decision {
    Decision::ask(rule_id::HOOK_ASK, ask_reason::HOOK_ASK)
}

/// PERM-13: the hook overlay, then the memory-file overlay.
pub fn apply_overlays(
    decision: Decision,
    capability: &Capability,
    tool_name: &str,
    hook: Option<&HookPermission>,
    target: TargetLocation,
) -> Decision {
    let sticky_ask = capability.always_ask
        || capability.requires_user_interaction
        || decision.rule_id == rule_id::EDIT_PROTECTED_PATH;
    let decision = match (hook, decision.behavior) {
        // A deny from check_permission stays deny whatever the hook says.
        (_, Behavior::Deny) | (None, _) => decision,
        (Some(HookPermission::Deny(message)), _) => hook_deny(message),
        (Some(HookPermission::Ask), Behavior::Allow) => hook_ask(),
        // Recorded as the hook's ask so that the memory overlay keeps it.
        (Some(HookPermission::Ask), Behavior::Ask)
            if !matches!(
                decision.rule_id,
                rule_id::ALWAYS_ASK
                    | rule_id::PROJECT_ASK
                    | rule_id::USER_INTERACTION
                    | rule_id::EDIT_PROTECTED_PATH
            ) =>
        {
            hook_ask()
        }
        (Some(HookPermission::Allow), Behavior::Ask) if !sticky_ask => {
            Decision::allow(rule_id::HOOK_ALLOW, "Allowed by PreToolUse hook")
        }
        _ => decision,
    };

    let is_edit_tool = matches!(tool_name, "Write" | "Edit");
    if !is_edit_tool || !target.memory_file {
        return decision;
    }
    // A hook's deny or ask survives the memory overlay, even where the
    // plan deny (which the overlay lifts) had kept the hook from speaking.
    if decision.rule_id == rule_id::PLAN_RESTRICTED {
        match hook {
            Some(HookPermission::Deny(message)) => return hook_deny(message),
            Some(HookPermission::Ask) => return hook_ask(),
            _ => {}
        }
    }
    let survives = match decision.behavior {
        Behavior::Allow => true,
        Behavior::Deny => decision.rule_id != rule_id::PLAN_RESTRICTED,
        Behavior::Ask => {
            matches!(
                decision.rule_id,
                rule_id::ALWAYS_ASK | rule_id::PROJECT_ASK | rule_id::HOOK_ASK
            ) || sticky_ask
        }
    };
    if survives {
        decision
    } else if let Some(protected) = target.protected {
        // A memory file that is also protected (a memory directory inside
        // a git directory) is still asked about.
        protected_ask(protected)
    } else {
        Decision::allow(
            rule_id::MEMORY_FILE,
            "Project memory files may always be edited",
        )
    }
}
