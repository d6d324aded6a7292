//! What a tool is, to everything but the tool itself: the permission
//! engine, the approval request, the reminders and the TUI read a tool's
//! [`ToolDeclaration`] instead of knowing tools by name.

use super::capability::{Capability, McpHints, RiskLevel, SideEffectScope};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// One tool's declaration.
///
/// A built-in tool declares itself in its own file under `src/tools/`
/// (a `pub static DECLARATION`, returned by its `Tool::declaration`), and
/// `tools::registry::BUILTIN` lists it once. Adding a built-in tool is
/// that file plus that one line: nothing else names a built-in tool,
/// except rules, hooks and tool lists, which users write with tool names.
/// An MCP tool's declaration is built from its server's hints
/// ([`ToolDeclaration::mcp`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDeclaration {
    /// The name models call it by, and users write in rules.
    pub name: Cow<'static, str>,
    /// Its permission-relevant declaration (CAP-1).
    pub capability: Capability,
    /// What the content of a rule on it is compared with (RULE-3, RULE-5).
    pub subject: RuleSubject,
    /// How an approval of it is worded.
    pub wording: Wording,
    /// What the user is shown when a call is asked about (APPR-6).
    pub request_kind: RequestKind,
    /// How plan mode treats it (PERM-1, PERM-8).
    pub plan: PlanRole,
    /// A call of it counts as keeping the todo list up to date (TODO-6).
    pub tracks_todos: bool,
    /// It searches directories, leaving out the files that the project's
    /// Read deny and ask rules cover (Grep, Glob).
    pub honours_read_rules: bool,
    /// Several calls of it in one reply may run at the same time.
    pub parallel: bool,
    /// Rules written for other tools that cover it too (RULE-2).
    pub covered_by: &'static [CoveredBy],
}

/// A rule written for another tool that covers this one too (RULE-2): a
/// rule for Edit covers Write; a deny or ask rule for Write covers Edit,
/// and one for Read covers Grep and Glob, so that a spelling cannot dodge
/// it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CoveredBy {
    /// The tool the rule names.
    pub tool: &'static str,
    /// Allow rules cover it too, not only deny and ask rules.
    pub allow_too: bool,
}

/// What the content of a rule is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleSubject {
    /// `command`, judged by the Bash rule policy on the command's analysis
    /// (RULE-5); a read-only command gets CAP-3's capability.
    Command,
    /// `url`: `domain:` rules and URL patterns (`web_rules`), and the
    /// pre-approved domains (PERM-9).
    Url,
    /// RULE-3's first field of the input; a path from `file_path` or
    /// `path` is compared as a path (`path_rules`).
    Input,
    /// Nothing: only a rule without content matches.
    Nothing,
}

/// How an approval of a tool is worded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Wording {
    /// What the approval panel says the tool wants to do when a request
    /// carries no reason of its own: "run a command".
    pub wants_to: &'static str,
    /// Why a call is asked about, as a phrase whose subject is the call.
    pub reason: AskReason,
}

/// Why a call of a tool is asked about, for an ask of the build rules
/// (PERM-11) or of a tool that needs the user's answer (PERM-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AskReason {
    /// Said by the capability's side-effect scope ("can change files or
    /// the system"); a tool that needs an answer "needs your answer".
    Effect,
    /// A command: `checked` when its analysis read all of it, else
    /// `unchecked`.
    Command {
        checked: &'static str,
        unchecked: &'static str,
    },
    /// A file change, followed by where the file lies: "writes to a file"
    /// + " in the workspace".
    File(&'static str),
    /// A fetch: `from` + " " + the URL's host, or `anywhere` without one.
    Fetch {
        from: &'static str,
        anywhere: &'static str,
    },
    /// The same phrase for every call: "asks you a question".
    Always(&'static str),
}

/// What a UI shows for a request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestKind {
    /// A tool approval (APPR-6 options).
    #[default]
    Tool,
    /// AskUserQuestion: the questions are in `input`; answer with
    /// `PermissionReply::Answers` (ASK-3) or `Deny`.
    Question,
    /// ExitPlanMode: the plan is in `input.plan`; answer `AllowOnce`
    /// (approve), `PlanFeedback` or `Deny` (PLAN-7..9).
    Plan,
}

/// How plan mode treats a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlanRole {
    /// Allowed when its capability is read-only or plan-mode control,
    /// else denied (PERM-8).
    ByCapability,
    /// Neither allowed nor denied by plan mode: it goes on to the build
    /// rules (PERM-8, WebFetch).
    BuildRules,
    /// Turns plan mode on: never needs approval (PERM-1).
    Enter,
    /// Turns plan mode off: only while plan mode is on (PERM-1).
    Exit,
}

/// The reason given for a tool zcode has no declaration of its own for.
pub(crate) const UNKNOWN_TOOL_REASON: &str =
    "uses a tool zcode knows nothing about, so it could do anything";

/// What an unknown tool is assumed to be: anything, so it is asked about.
pub(crate) const UNKNOWN_TOOL_CAPABILITY: Capability = Capability {
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

impl ToolDeclaration {
    /// A built-in tool's declaration with the plain defaults: rules
    /// compare RULE-3's subject, the approval is worded by its effect, a tool approval,
    /// judged by its capability in plan mode, one call at a time. The
    /// `with_…` methods below change one default each (a `static` cannot
    /// use `..base` on a type that owns its name).
    pub const fn builtin(name: &'static str, capability: Capability) -> Self {
        Self {
            name: Cow::Borrowed(name),
            capability,
            subject: RuleSubject::Input,
            wording: Wording {
                wants_to: "use a tool",
                reason: AskReason::Effect,
            },
            request_kind: RequestKind::Tool,
            plan: PlanRole::ByCapability,
            tracks_todos: false,
            honours_read_rules: false,
            parallel: false,
            covered_by: &[],
        }
    }

    /// With rules that compare `subject`.
    pub const fn with_subject(mut self, subject: RuleSubject) -> Self {
        self.subject = subject;
        self
    }

    /// With approvals worded so: the panel's "wants to …" and the reason.
    pub(crate) const fn with_wording(mut self, wants_to: &'static str, reason: AskReason) -> Self {
        self.wording = Wording { wants_to, reason };
        self
    }

    /// Asking the user with a request of this kind.
    pub(crate) const fn with_request_kind(mut self, request_kind: RequestKind) -> Self {
        self.request_kind = request_kind;
        self
    }

    /// Treated so by plan mode.
    pub(crate) const fn with_plan(mut self, plan: PlanRole) -> Self {
        self.plan = plan;
        self
    }

    /// Its calls keep the todo list up to date.
    pub(crate) const fn tracking_todos(mut self) -> Self {
        self.tracks_todos = true;
        self
    }

    /// Its directory searches leave out what Read rules cover.
    pub(crate) const fn honouring_read_rules(mut self) -> Self {
        self.honours_read_rules = true;
        self
    }

    /// Several of its calls in one reply may run at the same time.
    pub const fn in_parallel(mut self) -> Self {
        self.parallel = true;
        self
    }

    /// Also covered by rules written for these tools.
    pub(crate) const fn with_covered_by(mut self, covered_by: &'static [CoveredBy]) -> Self {
        self.covered_by = covered_by;
        self
    }

    /// A tool zcode knows nothing about (a name typed to `zcode permission
    /// check`): it could do anything.
    pub fn unknown(name: &str) -> Self {
        Self {
            name: Cow::Owned(name.to_string()),
            wording: Wording {
                wants_to: "use a tool",
                reason: AskReason::Always(UNKNOWN_TOOL_REASON),
            },
            ..Self::builtin("", UNKNOWN_TOOL_CAPABILITY)
        }
    }

    /// An MCP tool: its capability from its server's hints; zcode knows
    /// nothing else about it.
    pub fn mcp(name: &str, hints: McpHints) -> Self {
        Self {
            capability: Capability::mcp(hints),
            ..Self::unknown(name)
        }
    }

    /// The declared name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The capability a call is judged with: a command judged read-only
    /// gets CAP-3's (BASH-6), anything else the static declaration.
    pub(crate) fn effective_capability(&self, read_only_command: Option<bool>) -> Capability {
        match (self.subject, read_only_command) {
            (RuleSubject::Command, Some(true)) => self.capability.read_only_command(),
            _ => self.capability,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap3_a_command_judged_read_only_is_read_only_and_low() {
        let bash = ToolDeclaration::builtin(
            "Shell",
            Capability {
                read_only: false,
                side_effect_scope: SideEffectScope::System,
                risk_level: RiskLevel::High,
                needs_approval: true,
                ..Capability::read_only_low("bash")
            },
        )
        .with_subject(RuleSubject::Command);
        let c = bash.effective_capability(Some(true));
        assert!(c.read_only && !c.destructive && !c.needs_approval);
        assert_eq!(
            (c.side_effect_scope, c.risk_level, c.permission_name),
            (SideEffectScope::None, RiskLevel::Low, "bash")
        );
        assert_eq!(bash.effective_capability(Some(false)), bash.capability);
        // Only a command is judged so.
        let other = ToolDeclaration::unknown("Other");
        assert_eq!(other.effective_capability(Some(true)), other.capability);
    }

    #[test]
    fn mcp_and_unknown_tools_are_asked_about_in_plain_words() {
        let mcp = ToolDeclaration::mcp("mcp__s__t", McpHints::default());
        assert_eq!(mcp.name, "mcp__s__t");
        assert_eq!(mcp.capability, Capability::mcp(McpHints::default()));
        assert_eq!(mcp.wording.reason, AskReason::Always(UNKNOWN_TOOL_REASON));
        assert_eq!(mcp.subject, RuleSubject::Input);
        assert!(!mcp.parallel);
    }
}
