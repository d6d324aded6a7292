//! The decision function (PERM-1..11): a pure, synchronous function of its
//! inputs. First match wins, in the order of the spec.

use super::ask_reason;
use super::bash::{self, BashAnalysis};
use super::capability::{Capability, MCP_PERMISSION, RiskLevel, SideEffectScope};
use super::declaration::{PlanRole, RuleSubject, ToolDeclaration};
use super::mode::{ExecutionState, Mode};
use super::path_rules::{PathSubject, path_rule_matches};
use super::protected::ProtectedPath;
pub use super::rule_id::RuleId;
use super::rules::{
    Rule, RuleKind, RuleSet, rule_covers_tool, rule_of_kind_matches, rule_subject, url_host,
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
    pub rule_id: RuleId,
    pub reason: Cow<'static, str>,
}

impl Decision {
    fn new(behavior: Behavior, rule_id: RuleId, reason: impl Into<Cow<'static, str>>) -> Self {
        Self {
            behavior,
            rule_id,
            reason: reason.into(),
        }
    }
    pub fn allow(rule_id: RuleId, reason: impl Into<Cow<'static, str>>) -> Self {
        Self::new(Behavior::Allow, rule_id, reason)
    }
    pub fn ask(rule_id: RuleId, reason: impl Into<Cow<'static, str>>) -> Self {
        Self::new(Behavior::Ask, rule_id, reason)
    }
    pub fn deny(rule_id: RuleId, reason: impl Into<Cow<'static, str>>) -> Self {
        Self::new(Behavior::Deny, rule_id, reason)
    }
}

/// Exact reason texts that are part of the contract.
pub mod reason {
    pub(crate) const EXIT_PLAN_ONLY: &str =
        "ExitPlanMode can only be used while plan mode is active";
    pub const AUTO: &str = "Auto mode is reserved but not implemented yet";
    pub(crate) const PLAN_RESTRICTED: &str =
        "Plan mode only allows read-only, non-destructive tools";
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
    /// The tool's declaration; a command's capability is adjusted here
    /// (BASH-6).
    pub tool: &'a ToolDeclaration,
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
    let tool = ctx.tool;
    match (ctx.tool.subject, ctx.path) {
        (RuleSubject::Command, _) => match ctx.bash {
            Some(analysis) => bash::matching_rule(kind, rules, tool, analysis),
            // Without a command only content-less rules can apply.
            None => rules
                .iter()
                .find(|r| r.rule_content.is_none() && rule_covers_tool(kind, &r.tool_name, tool)),
        },
        (RuleSubject::Url, _) => {
            let url = ctx.input.get("url").and_then(Value::as_str);
            rules
                .iter()
                .find(|r| web_rules::web_fetch_rule_matches(r, kind, tool, url))
        }
        (RuleSubject::Input, Some(path)) => rules
            .iter()
            .find(|r| path_rule_matches(r, kind, tool, path)),
        (RuleSubject::Input | RuleSubject::Nothing, _) => {
            let subject = rule_subject(ctx.tool.subject, ctx.input);
            rules
                .iter()
                .find(|r| rule_of_kind_matches(r, kind, tool, subject.as_deref()))
        }
    }
}

/// PERM-10: the ask for a write to a protected file.
fn protected_ask(protected: ProtectedPath) -> Decision {
    Decision::ask(RuleId::EditProtectedPath, protected.reason())
}

fn session_rule_matches(ctx: &CheckContext<'_>) -> bool {
    // GRANT-2: session rules grant the whole tool.
    ctx.session_rules
        .iter()
        .any(|r| rule_covers_tool(RuleKind::Allow, &r.tool_name, ctx.tool))
}

/// PERM-6: the tool is named by `disallowedTools`, or one of its scoped
/// entries (`Bash(rm:*)`) matches the call as a deny rule would.
fn disallowed(ctx: &CheckContext<'_>) -> Option<Decision> {
    if ctx.settings.is_disallowed(ctx.tool) {
        return Some(Decision::deny(
            RuleId::Disallowed,
            format!("Tool {} is explicitly disallowed", ctx.tool.name()),
        ));
    }
    matching_rule(ctx, RuleKind::Deny, &ctx.settings.deny_rules).map(|rule| {
        Decision::deny(
            RuleId::Disallowed,
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
        RuleId::ProjectDeny,
        format!("Denied by project rule {rule}"),
    )
}

fn bash_read_only(ctx: &CheckContext<'_>) -> Option<bool> {
    ctx.bash.map(|b| b.read_only)
}

/// PERM-1..11.
pub fn check_permission(ctx: &CheckContext<'_>) -> Decision {
    let state = ctx.state;
    let cap = ctx.tool.effective_capability(bash_read_only(ctx));

    // PERM-1
    match ctx.tool.plan {
        PlanRole::Enter => {
            return Decision::allow(RuleId::PlanEnter, "EnterPlanMode never needs approval");
        }
        PlanRole::Exit if !state.plan_enabled => {
            return Decision::deny(RuleId::PlanExitOnly, reason::EXIT_PLAN_ONLY);
        }
        PlanRole::Exit | PlanRole::BuildRules | PlanRole::ByCapability => {}
    }

    // PERM-2
    if cap.requires_user_interaction {
        if let Some(deny) = disallowed(ctx) {
            return deny;
        }
        return Decision::ask(
            RuleId::UserInteraction,
            ask_reason::user_interaction(ctx.tool),
        );
    }

    // PERM-3
    if cap.always_ask {
        if state.mode == Mode::Auto {
            return Decision::deny(RuleId::Auto, reason::AUTO);
        }
        if let Some(deny) = user_deny(ctx) {
            return deny;
        }
        if session_rule_matches(ctx) {
            return Decision::allow(RuleId::SessionAllow, "Allowed for this session");
        }
        return Decision::ask(RuleId::AlwaysAsk, ask_reason::ALWAYS_ASK);
    }

    // PERM-5
    if state.mode == Mode::Auto {
        return Decision::deny(RuleId::Auto, reason::AUTO);
    }

    // PERM-6, PERM-7 (deny): before yolo, so that a deny never stops
    // holding when yolo is on (a deliberate difference from the seed).
    if let Some(deny) = user_deny(ctx) {
        return deny;
    }

    // PERM-4: yolo asks nothing, project ask rules included.
    if state.mode == Mode::Yolo && !state.plan_enabled {
        return Decision::allow(RuleId::Yolo, reason::YOLO);
    }

    // PERM-7 (ask)
    if let Some(rule) = project_rule(ctx, RuleKind::Ask) {
        return Decision::ask(RuleId::ProjectAsk, ask_reason::project_ask(rule));
    }

    // PERM-8: a tool that follows the build rules in plan (WebFetch) is
    // neither allowed nor denied here; it goes on to PERM-9..11 as in build
    // (pre-approved domain or allow rule, else ask).
    if state.plan_enabled && ctx.tool.plan != PlanRole::BuildRules {
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
            return Decision::allow(RuleId::PlanReadOnly, "Read-only tool allowed in plan mode");
        }
        return Decision::deny(RuleId::PlanRestricted, reason::PLAN_RESTRICTED);
    }

    // PERM-10 (protected files): no allow below applies to them, neither
    // an allow rule, `allowedTools` nor edit mode.
    if let Some(protected) = ctx.target.protected {
        return protected_ask(protected);
    }

    // PERM-9
    if let Some(rule) = project_rule(ctx, RuleKind::Allow) {
        return Decision::allow(
            RuleId::ProjectAllow,
            format!("Allowed by project rule {rule}"),
        );
    }
    if ctx.tool.subject == RuleSubject::Url
        && let Some(host) = ctx
            .input
            .get("url")
            .and_then(Value::as_str)
            .and_then(url_host)
        && ctx.settings.web_fetch_domain_allowed(&host)
    {
        return Decision::allow(
            RuleId::WebFetchDomain,
            format!("Domain {host} is pre-approved for WebFetch"),
        );
    }
    // `allowedTools` never lifts plan mode: in plan only a saved rule or a
    // pre-approved domain allows what reaches this step (WebFetch).
    if !state.plan_enabled {
        if ctx.settings.is_allowed(ctx.tool.name()) {
            return Decision::allow(
                RuleId::AllowedTools,
                format!("Tool {} is in allowedTools", ctx.tool.name()),
            );
        }
        if let Some(rule) = matching_rule(ctx, RuleKind::Allow, &ctx.settings.allow_rules) {
            return Decision::allow(
                RuleId::AllowedTools,
                format!("Allowed by allowedTools entry {rule}"),
            );
        }
    }

    // PERM-10
    if state.mode == Mode::Edit && cap.edits_files() && ctx.target.inside_workspace {
        return Decision::allow(
            RuleId::EditWorkspace,
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
            ctx.tool,
            cap,
            ctx.input,
            ctx.target.inside_workspace,
            ctx.bash,
        )
    };
    if cap.read_only && !cap.destructive && !cap.needs_approval {
        return Decision::allow(RuleId::ReadOnly, "Read-only tool");
    }
    if cap.risk_level == RiskLevel::Critical {
        return Decision::ask(RuleId::RiskCritical, what());
    }
    if cap.risk_level == RiskLevel::High && !ctx.settings.auto_approve_high_risk {
        return Decision::ask(RuleId::RiskHigh, what());
    }
    if cap.side_effect_scope == SideEffectScope::Session && cap.risk_level == RiskLevel::Low {
        return Decision::allow(RuleId::SessionScope, "Low-risk change to session state");
    }
    if cap.needs_approval || cap.destructive || cap.side_effect_scope != SideEffectScope::None {
        return Decision::ask(RuleId::NeedsApproval, what());
    }
    Decision::allow(RuleId::BuildDefault, "No side effects")
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
    Decision::deny(RuleId::HookDeny, reason)
}

fn hook_ask() -> Decision {
    Decision::ask(RuleId::HookAsk, ask_reason::HOOK_ASK)
}

/// PERM-13: the hook overlay, then the memory-file overlay.
pub fn apply_overlays(
    decision: Decision,
    capability: &Capability,
    hook: Option<&HookPermission>,
    target: TargetLocation,
) -> Decision {
    let sticky_ask = capability.always_ask
        || capability.requires_user_interaction
        || decision.rule_id == RuleId::EditProtectedPath;
    let decision = match (hook, decision.behavior) {
        // A deny from check_permission stays deny whatever the hook says.
        (_, Behavior::Deny) | (None, _) => decision,
        (Some(HookPermission::Deny(message)), _) => hook_deny(message),
        (Some(HookPermission::Ask), Behavior::Allow) => hook_ask(),
        // Recorded as the hook's ask so that the memory overlay keeps it.
        (Some(HookPermission::Ask), Behavior::Ask)
            if !matches!(
                decision.rule_id,
                RuleId::AlwaysAsk
                    | RuleId::ProjectAsk
                    | RuleId::UserInteraction
                    | RuleId::EditProtectedPath
            ) =>
        {
            hook_ask()
        }
        (Some(HookPermission::Allow), Behavior::Ask) if !sticky_ask => {
            Decision::allow(RuleId::HookAllow, "Allowed by PreToolUse hook")
        }
        _ => decision,
    };

    if !capability.edits_files() || !target.memory_file {
        return decision;
    }
    // A hook's deny or ask survives the memory overlay, even where the
    // plan deny (which the overlay lifts) had kept the hook from speaking.
    if decision.rule_id == RuleId::PlanRestricted {
        match hook {
            Some(HookPermission::Deny(message)) => return hook_deny(message),
            Some(HookPermission::Ask) => return hook_ask(),
            _ => {}
        }
    }
    let survives = match decision.behavior {
        Behavior::Allow => true,
        Behavior::Deny => decision.rule_id != RuleId::PlanRestricted,
        Behavior::Ask => {
            matches!(
                decision.rule_id,
                RuleId::AlwaysAsk | RuleId::ProjectAsk | RuleId::HookAsk
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
            RuleId::MemoryFile,
            "Project memory files may always be edited",
        )
    }
}
