//! The permission service: one decision with everything around it that
//! needs the environment (target resolution, Bash analysis, suggestions) and
//! the session's in-memory grants (GRANT-2).

use super::bash::{self, BashAnalysis};
use super::capability::{Capability, RiskLevel, SideEffectScope, builtin_capability};
use super::check::{
    Behavior, CheckContext, Decision, HookPermission, TargetLocation, apply_overlays,
    check_permission, rule_id,
};
use super::mode::ExecutionState;
use super::paths::{PathContext, ResolvedCall, ResolvedDir, resolve_call};
use super::rules::{Rule, RuleSet};
use super::settings::PermissionSettings;
use super::suggest::suggested_rules;
use serde_json::Value;
use std::path::Path;

/// What an unknown tool is assumed to be: anything, so it is asked about.
pub const UNKNOWN_TOOL_CAPABILITY: Capability = Capability {
    read_only: false,
    destructive: true,
    side_effect_scope: SideEffectScope::System,
    risk_level: RiskLevel::High,
    needs_approval: true,
    always_ask: false,
    requires_user_interaction: false,
    allowed_in_plan_mode: false,
    permission_name: "unknown",
    allow_always: None,
};

/// One evaluated tool call.
#[derive(Debug, Clone)]
pub struct Evaluation {
    pub decision: Decision,
    /// The declaration the decision used (Bash: the effective one, BASH-6).
    pub capability: Capability,
    pub bash: Option<BashAnalysis>,
    pub target: TargetLocation,
    /// What "always allow" would save (SUG-1, SUG-2); empty for a non-Bash
    /// call that is not asked about.
    pub suggestions: Vec<Rule>,
}

#[derive(Debug, Clone)]
pub struct PermissionService {
    settings: PermissionSettings,
    workspace: ResolvedDir,
    memory_dir: Option<ResolvedDir>,
    zcode_home: Option<ResolvedDir>,
    session_rules: Vec<Rule>,
}

impl PermissionService {
    pub fn new(settings: PermissionSettings, workspace: &Path, memory_dir: Option<&Path>) -> Self {
        Self {
            settings,
            workspace: ResolvedDir::new(workspace),
            memory_dir: memory_dir.map(ResolvedDir::new),
            zcode_home: None,
            session_rules: Vec::new(),
        }
    }

    /// Protects `$ZCODE_HOME`'s config and store from edits (PERM-10).
    pub fn with_zcode_home(mut self, zcode_home: &Path) -> Self {
        self.zcode_home = Some(ResolvedDir::new(zcode_home));
        self
    }

    pub fn settings(&self) -> &PermissionSettings {
        &self.settings
    }

    pub fn workspace(&self) -> &Path {
        self.workspace.path()
    }

    /// GRANT-2: "Always allow in this session" grants the whole tool.
    pub fn grant_session(&mut self, tool_name: &str) {
        let rule = Rule::tool(tool_name);
        if !self.session_rules.contains(&rule) {
            self.session_rules.push(rule);
        }
    }

    /// GRANT-2: session grants end with the session (`/new`, restart).
    pub fn clear_session_rules(&mut self) {
        self.session_rules.clear();
    }

    pub fn session_rules(&self) -> &[Rule] {
        &self.session_rules
    }

    /// Decides one call: `check_permission` then the PERM-13 overlays.
    /// `capability` is `None` for built-in tools (looked up by name).
    pub fn evaluate(
        &self,
        tool_name: &str,
        capability: Option<&Capability>,
        input: &Value,
        state: ExecutionState,
        project_rules: &RuleSet,
        hook: Option<&HookPermission>,
    ) -> Evaluation {
        let static_cap = capability
            .copied()
            .or_else(|| builtin_capability(tool_name))
            .unwrap_or(UNKNOWN_TOOL_CAPABILITY);
        let bash = (tool_name == "Bash")
            .then(|| bash::analyze(input.get("command").and_then(Value::as_str).unwrap_or("")));
        let ResolvedCall {
            target,
            path_subject,
        } = resolve_call(
            tool_name,
            static_cap.permission_name,
            input,
            PathContext {
                workspace: &self.workspace,
                memory_dir: self.memory_dir.as_ref(),
                zcode_home: self.zcode_home.as_ref(),
            },
        );
        let ctx = CheckContext {
            tool_name,
            capability: &static_cap,
            input,
            state,
            settings: &self.settings,
            project_rules,
            session_rules: &self.session_rules,
            target,
            path: path_subject.as_ref(),
            bash: bash.as_ref(),
            mcp: None,
        };
        let decision = check_permission(&ctx);
        let decision = apply_overlays(decision, &static_cap, tool_name, hook, target);
        let capability = match &bash {
            Some(b) if b.read_only => Capability::bash_read_only(),
            _ => static_cap,
        };
        // Only a question offers "always allow"; Bash keeps its suggestions
        // for `zcode permission check`, which shows them with the analysis.
        let protected_ask = decision.rule_id == rule_id::EDIT_PROTECTED_PATH;
        let suggestions = if protected_ask {
            // No rule lifts this ask (PERM-10): nothing to offer.
            Vec::new()
        } else if decision.behavior == Behavior::Ask || bash.is_some() {
            suggested_rules(tool_name, input, bash.as_ref())
        } else {
            Vec::new()
        };
        Evaluation {
            decision,
            capability,
            bash,
            target,
            suggestions,
        }
    }
}
