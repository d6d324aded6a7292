//! Rule ids: which step decided a call. Control flow matches on them, so
//! they are one enum; what users and scripts see (`zcode permission check`,
//! denials, approval requests) is the stable string of each.

use serde::{Serialize, Serializer};
use std::fmt;

macro_rules! rule_ids {
    ($($(#[$doc:meta])* $variant:ident => $wire:literal,)+) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum RuleId {
            $($(#[$doc])* $variant,)+
        }

        impl RuleId {
            /// Every id, in declaration order.
            pub const ALL: &[RuleId] = &[$(RuleId::$variant,)+];

            /// The wire and display string (`rule.project.deny`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(RuleId::$variant => $wire,)+
                }
            }
        }
    };
}

rule_ids! {
    // The permission check's steps (PERM-1..13).
    /// PERM-1: EnterPlanMode-like tools never need approval.
    PlanEnter => "tool.plan.enter",
    /// PERM-1: ExitPlanMode-like tools only while plan mode is on.
    PlanExitOnly => "mode.plan.exitOnly",
    /// PERM-2: the tool needs the user's answer.
    UserInteraction => "tool.requiresUserInteraction",
    /// PERM-3: the tool asks before every call.
    AlwaysAsk => "tool.alwaysAsk",
    SessionAllow => "rule.session.allow",
    Yolo => "mode.yolo",
    Auto => "mode.auto.unimplemented",
    Disallowed => "rule.disallowedTools",
    ProjectDeny => "rule.project.deny",
    ProjectAsk => "rule.project.ask",
    PlanReadOnly => "mode.plan.readOnly",
    PlanRestricted => "mode.plan.restricted",
    ProjectAllow => "rule.project.allow",
    WebFetchDomain => "rule.webFetch.domain",
    AllowedTools => "rule.allowedTools",
    EditWorkspace => "mode.edit.workspace",
    /// PERM-10: a file that makes a tool run a program.
    EditProtectedPath => "edit.protectedPath",
    ReadOnly => "build.readOnly",
    RiskCritical => "build.risk.critical",
    RiskHigh => "build.risk.high",
    SessionScope => "build.scope.session",
    NeedsApproval => "build.needsApproval",
    BuildDefault => "build.default",
    HookAllow => "hook.preToolUse.allow",
    HookAsk => "hook.preToolUse.ask",
    HookDeny => "hook.preToolUse.deny",
    MemoryFile => "memory.file",
    /// A read-only sub-agent (explore) ran something that is not read-only,
    /// or that would have been asked.
    AgentReadOnly => "agent.readOnly",
    // The approval's own outcomes (APPR-3..8), recorded with a denial.
    /// The user denied the call.
    UserDenied => "approval.userDenied",
    /// Nobody could be asked (headless, or the front end is gone).
    NoClient => "approval.noClient",
    /// A PermissionRequest hook denied the call.
    PermissionHookDeny => "hook.permissionRequest.deny",
    /// A PermissionRequest hook approved with an input that is invalid.
    PermissionHookInvalidInput => "hook.permissionRequest.invalidInput",
    /// The reply was not one the request offered (APPR-6).
    InvalidReply => "approval.invalidReply",
    /// The user interrupted while the call waited for approval.
    Cancelled => "approval.cancelled",
    /// Full access was chosen where the request did not offer it.
    FullAccessUnavailable => "approval.fullAccessUnavailable",
    /// Full access could not be saved.
    FullAccessFailed => "approval.fullAccessFailed",
}

impl RuleId {
    /// A denial that answered an approval (the user, nobody, or a hook),
    /// as opposed to a rule or mode that refused the call outright.
    pub(crate) fn refused_approval(self) -> bool {
        matches!(
            self,
            RuleId::UserDenied | RuleId::NoClient | RuleId::PermissionHookDeny
        )
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for RuleId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl PartialEq<&str> for RuleId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_keep_their_wire_values_and_are_distinct() {
        let ids = [
            (RuleId::UserDenied, "approval.userDenied"),
            (RuleId::NoClient, "approval.noClient"),
            (RuleId::PermissionHookDeny, "hook.permissionRequest.deny"),
            (
                RuleId::PermissionHookInvalidInput,
                "hook.permissionRequest.invalidInput",
            ),
            (RuleId::InvalidReply, "approval.invalidReply"),
            (RuleId::Cancelled, "approval.cancelled"),
            (
                RuleId::FullAccessUnavailable,
                "approval.fullAccessUnavailable",
            ),
            (RuleId::FullAccessFailed, "approval.fullAccessFailed"),
            (RuleId::ProjectDeny, "rule.project.deny"),
            (RuleId::HookDeny, "hook.preToolUse.deny"),
        ];
        for (id, wire) in ids {
            assert_eq!(id.as_str(), wire);
            assert_eq!(serde_json::to_value(id).unwrap(), wire);
        }
        let mut seen = std::collections::BTreeSet::new();
        for id in RuleId::ALL {
            assert!(seen.insert(id.as_str()), "{id} twice");
        }
    }

    #[test]
    fn plan9_only_answers_to_an_approval_count_as_refusals() {
        assert!(RuleId::UserDenied.refused_approval());
        assert!(RuleId::NoClient.refused_approval());
        assert!(RuleId::PermissionHookDeny.refused_approval());
        assert!(!RuleId::Cancelled.refused_approval());
        assert!(!RuleId::InvalidReply.refused_approval());
        assert!(!RuleId::ProjectDeny.refused_approval());
    }
}
