//! The permission service: one decision with everything around it that
//! needs the environment (target resolution, Bash analysis, suggestions) and
//! the session's in-memory grants (GRANT-2).

use super::ask_reason;
use super::bash::{self, AnalyzeOptions, BashAnalysis};
use super::capability::Capability;
use super::check::{
    Behavior, CheckContext, Decision, HookPermission, RuleId, TargetLocation, apply_overlays,
    check_permission,
};
use super::declaration::{RuleSubject, ToolDeclaration};
use super::mode::ExecutionState;
use super::paths::{PathContext, ResolvedCall, ResolvedDir, resolve_call};
use super::read_rules::{self, BashReadMatch};
use super::rules::content_matches;
use super::rules::{Rule, RuleKind, RuleSet};
use super::settings::PermissionSettings;
use super::suggest::suggested_rules;
use crate::sandbox::{self, ApprovedCommands, SandboxKind, SandboxMode};
use serde_json::Value;
use std::path::Path;

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
    /// The sandbox a Bash call runs in: the read-only one when it is
    /// allowed because it was judged read-only, else (once allowed or
    /// approved) what `sandbox.approvedCommands` says.
    pub sandbox: Option<SandboxKind>,
}

impl Evaluation {
    /// A Bash call allowed because every part of it was judged read-only:
    /// what it runs gets git's program-naming settings neutralised.
    pub(crate) fn allowed_as_read_only(&self) -> bool {
        self.decision.behavior == Behavior::Allow && self.bash.as_ref().is_some_and(|b| b.read_only)
    }
}

/// Whether commands judged read-only run in the read-only sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ReadOnlySandbox {
    /// They do; the analysis may be wider (`AnalyzeOptions::sandboxed`).
    Active,
    /// `sandbox.mode` is `off`: the strict analysis alone.
    Off,
    /// `auto` on a kernel without the sandbox: the strict analysis alone.
    Unavailable(String),
    /// `required` on a kernel without the sandbox: nothing runs unasked.
    Missing(String),
}

impl ReadOnlySandbox {
    pub(crate) fn from_settings(mode: SandboxMode) -> Self {
        let support = sandbox::support();
        match (mode, &support.unavailable) {
            (SandboxMode::Off, _) => Self::Off,
            (_, None) => Self::Active,
            (SandboxMode::Auto, Some(why)) => Self::Unavailable(why.clone()),
            (SandboxMode::Required, Some(why)) => Self::Missing(why.clone()),
        }
    }

    pub(crate) fn is_active(&self) -> bool {
        *self == Self::Active
    }

    /// The one-line notice for a front end, when there is something to say.
    pub fn notice(&self) -> Option<String> {
        match self {
            Self::Active | Self::Off => None,
            Self::Unavailable(why) => Some(format!(
                "no kernel sandbox ({why}): read-only commands are judged strictly and run unsandboxed"
            )),
            Self::Missing(why) => Some(format!(
                "no kernel sandbox ({why}) and sandbox.mode is \"required\": every command is asked"
            )),
        }
    }
}

#[derive(Debug, Clone)]
pub struct PermissionService {
    settings: PermissionSettings,
    workspace: ResolvedDir,
    memory_dir: Option<ResolvedDir>,
    zcode_home: Option<ResolvedDir>,
    session_rules: Vec<Rule>,
    read_only_sandbox: ReadOnlySandbox,
}

impl PermissionService {
    pub fn new(settings: PermissionSettings, workspace: &Path, memory_dir: Option<&Path>) -> Self {
        Self {
            read_only_sandbox: ReadOnlySandbox::from_settings(settings.sandbox.mode),
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

    pub(crate) fn read_only_sandbox(&self) -> &ReadOnlySandbox {
        &self.read_only_sandbox
    }

    /// The Bash analysis under this service's sandbox: wider where the
    /// read-only sandbox runs what it judges read-only, with the user's
    /// `readOnlyCommands` (read-only only inside the sandbox: they never
    /// count as strictly read-only); nothing read-only where the sandbox is
    /// required and missing.
    pub(crate) fn analyze_bash(&self, command: &str) -> BashAnalysis {
        let active = self.read_only_sandbox.is_active();
        let mut analysis = bash::analyze_with(command, AnalyzeOptions { sandboxed: active });
        if active && analysis.safe_parse && !self.settings.read_only_commands.is_empty() {
            for sub in analysis.subcommands.iter_mut().filter(|s| !s.read_only) {
                sub.read_only = !sub.has_assignments
                    && self
                        .settings
                        .read_only_commands
                        .iter()
                        .any(|prefix| content_matches(&sub.text, prefix));
            }
            analysis.refresh_read_only();
        }
        if matches!(self.read_only_sandbox, ReadOnlySandbox::Missing(_)) {
            for sub in &mut analysis.subcommands {
                sub.read_only = false;
                sub.strict_read_only = false;
            }
            analysis.refresh_read_only();
        }
        analysis
    }

    /// The sandbox an approved (not judged read-only) command runs in.
    fn approved_sandbox(&self) -> Option<SandboxKind> {
        (self.settings.sandbox.approved_commands == ApprovedCommands::WorkspaceWrite
            && sandbox::support().available())
        .then_some(SandboxKind::WorkspaceWrite)
    }

    /// GRANT-2: "Always allow in this session" grants the whole tool.
    pub(crate) fn grant_session(&mut self, tool_name: &str) {
        let rule = Rule::tool(tool_name);
        if !self.session_rules.contains(&rule) {
            self.session_rules.push(rule);
        }
    }

    pub fn session_rules(&self) -> &[Rule] {
        &self.session_rules
    }

    /// Read deny and ask rules on what a shell command reads (see
    /// `read_rules`): a deny rule denies in every mode; an ask rule (or a
    /// read that cannot be known before it runs) turns an allow into a
    /// question, except in yolo mode, which asks nothing.
    fn bash_read_rules(
        &self,
        decision: Decision,
        analysis: &BashAnalysis,
        state: ExecutionState,
        project_rules: &RuleSet,
    ) -> Decision {
        if decision.behavior == Behavior::Deny {
            return decision;
        }
        let workspace = self.workspace.path();
        let yolo = state.mode == crate::permission::mode::Mode::Yolo && !state.plan_enabled;
        let deny = read_rules::read_rules(project_rules, RuleKind::Deny);
        match read_rules::bash_read_match(analysis, &deny, RuleKind::Deny, workspace) {
            Some(BashReadMatch::Rule(rule)) => {
                return Decision::deny(
                    RuleId::ProjectDeny,
                    format!("Denied by project rule {rule}: the command reads a file it covers"),
                );
            }
            Some(BashReadMatch::Unknown(why)) if decision.behavior == Behavior::Allow && !yolo => {
                return Decision::ask(
                    RuleId::ProjectAsk,
                    format!(
                        "Bash may read a file the project rule {} covers: {why}",
                        deny[0]
                    ),
                );
            }
            _ => {}
        }
        if decision.behavior != Behavior::Allow || yolo {
            return decision;
        }
        let ask = read_rules::read_rules(project_rules, RuleKind::Ask);
        match read_rules::bash_read_match(analysis, &ask, RuleKind::Ask, workspace) {
            Some(BashReadMatch::Rule(rule)) => {
                Decision::ask(RuleId::ProjectAsk, ask_reason::project_ask(&rule))
            }
            Some(BashReadMatch::Unknown(why)) => Decision::ask(
                RuleId::ProjectAsk,
                format!(
                    "Bash may read a file the project rule {} covers: {why}",
                    ask[0]
                ),
            ),
            None => decision,
        }
    }

    /// PERM-10 for Bash: a command not allowed on its read-only judgment
    /// that names a file that makes tools run programs (`cp x .git/config`,
    /// `tee .envrc`, `> .git/hooks/pre-commit`) is asked, whatever allow
    /// rule, `allowedTools` entry, session grant or hook matched, and
    /// without an "always allow". Yolo asks nothing, as for the other tools.
    fn bash_protected_paths(&self, decision: Decision, analysis: &BashAnalysis) -> Decision {
        // An ask is made the protected one too, so that no "always allow"
        // is offered for it.
        let may_run = decision.behavior != Behavior::Deny
            && !matches!(
                decision.rule_id,
                RuleId::ReadOnly | RuleId::PlanReadOnly | RuleId::Yolo | RuleId::EditProtectedPath
            );
        if !may_run {
            return decision;
        }
        let workspace = self.workspace.path();
        let home = self.zcode_home.as_ref().map(ResolvedDir::path);
        let bases = read_rules::working_directories(analysis, workspace);
        for word in read_rules::named_words(analysis) {
            for base in &bases {
                let path = super::paths::resolve_path(base, Path::new(&word));
                // A hard link is judged for the file tools' own writes; a
                // command's words name pnpm's or the system's linked files
                // too often for it to mean anything there.
                let protected = super::protected::protected_path(&path, home)
                    .filter(|p| *p != super::protected::ProtectedPath::HardLink);
                if let Some(protected) = protected {
                    return Decision::ask(
                        RuleId::EditProtectedPath,
                        format!(
                            "Bash names {}, which {}",
                            path.display(),
                            protected.reason()
                        ),
                    );
                }
            }
        }
        decision
    }

    /// Decides one call of `tool`: `check_permission` then the PERM-13
    /// overlays.
    pub fn evaluate(
        &self,
        tool: &ToolDeclaration,
        input: &Value,
        state: ExecutionState,
        project_rules: &RuleSet,
        hook: Option<&HookPermission>,
    ) -> Evaluation {
        let static_cap = tool.capability;
        let bash = (tool.subject == RuleSubject::Command)
            .then(|| self.analyze_bash(input.get("command").and_then(Value::as_str).unwrap_or("")));
        let ResolvedCall {
            target,
            path_subject,
        } = resolve_call(
            tool,
            input,
            PathContext {
                workspace: &self.workspace,
                memory_dir: self.memory_dir.as_ref(),
                zcode_home: self.zcode_home.as_ref(),
            },
        );
        let ctx = CheckContext {
            tool,
            input,
            state,
            settings: &self.settings,
            project_rules,
            session_rules: &self.session_rules,
            target,
            path: path_subject.as_ref(),
            bash: bash.as_ref(),
        };
        let decision = check_permission(&ctx);
        let decision = apply_overlays(decision, &static_cap, hook, target);
        let decision = match &bash {
            Some(analysis) => {
                let decision = self.bash_read_rules(decision, analysis, state, project_rules);
                self.bash_protected_paths(decision, analysis)
            }
            None => decision,
        };
        let capability = tool.effective_capability(bash.as_ref().map(|b| b.read_only));
        // Only a question offers "always allow"; Bash keeps its suggestions
        // for `zcode permission check`, which shows them with the analysis.
        let protected_ask = decision.rule_id == RuleId::EditProtectedPath;
        let suggestions = if protected_ask {
            // No rule lifts this ask (PERM-10): nothing to offer.
            Vec::new()
        } else if decision.behavior == Behavior::Ask || bash.is_some() {
            suggested_rules(tool, input, bash.as_ref())
        } else {
            Vec::new()
        };
        let sandbox = match &bash {
            None => None,
            Some(b)
                if b.read_only
                    && self.read_only_sandbox.is_active()
                    && decision.behavior == Behavior::Allow
                    && matches!(decision.rule_id, RuleId::ReadOnly | RuleId::PlanReadOnly) =>
            {
                Some(SandboxKind::ReadOnly)
            }
            Some(_) => self.approved_sandbox(),
        };
        Evaluation {
            decision,
            capability,
            bash,
            target,
            suggestions,
            sandbox,
        }
    }
}
