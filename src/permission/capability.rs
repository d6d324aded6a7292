//! What each tool declares about itself (CAP-1..3).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SideEffectScope {
    None,
    Session,
    Workspace,
    System,
    Network,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RiskLevel {
    Low,
    Medium,
    High,
    Critical,
}

/// `askOptions.allowAlways` (CAP-1): which "always" option an approval offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AllowAlways {
    Project,
    Session,
    /// No "always" option at all.
    Never,
}

/// A tool's permission-relevant declaration (CAP-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Capability {
    pub read_only: bool,
    pub destructive: bool,
    pub side_effect_scope: SideEffectScope,
    pub risk_level: RiskLevel,
    pub needs_approval: bool,
    pub always_ask: bool,
    pub requires_user_interaction: bool,
    pub allowed_in_plan_mode: bool,
    /// The permission family, e.g. `edit` for Write and Edit.
    pub permission_name: &'static str,
    /// `None` means the tool declares no askOptions policy (FULL-1 cares).
    pub allow_always: Option<AllowAlways>,
}

impl Capability {
    const fn base(permission_name: &'static str) -> Self {
        Self {
            read_only: true,
            destructive: false,
            side_effect_scope: SideEffectScope::None,
            risk_level: RiskLevel::Low,
            needs_approval: false,
            always_ask: false,
            requires_user_interaction: false,
            allowed_in_plan_mode: false,
            permission_name,
            allow_always: None,
        }
    }

    /// The "always" option an approval of this tool offers (APPR-6).
    pub fn allow_always_option(&self) -> AllowAlways {
        self.allow_always.unwrap_or(AllowAlways::Project)
    }

    /// CAP-3: the capability of a Bash command judged read-only.
    pub const fn bash_read_only() -> Self {
        Self::base("bash")
    }
}

/// The permission family of every MCP tool.
pub const MCP_PERMISSION: &str = "mcp";

/// An MCP tool's annotations, as the server declared them; `None`: not said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpHints {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub open_world: Option<bool>,
}

impl Capability {
    /// An MCP tool's capability from its hints. It always needs approval
    /// (they are the server's word, not ours); read-only only when declared
    /// so; destructive when declared, or when not read-only and not
    /// declared otherwise (the protocol's defaults); reaching the network
    /// unless it declares a closed world.
    pub fn mcp(hints: McpHints) -> Self {
        let read_only = hints.read_only == Some(true);
        let destructive = match hints.destructive {
            Some(d) => d,
            None => !read_only,
        };
        let side_effect_scope = if hints.open_world != Some(false) {
            SideEffectScope::Network
        } else if read_only {
            SideEffectScope::None
        } else {
            SideEffectScope::System
        };
        Capability {
            read_only,
            destructive,
            side_effect_scope,
            risk_level: if destructive {
                RiskLevel::High
            } else {
                RiskLevel::Medium
            },
            needs_approval: true,
            ..Capability::base(MCP_PERMISSION)
        }
    }
}

/// The built-in tools, by the names models are trained on.
pub const BUILTIN_TOOLS: &[&str] = &[
    "Read",
    "Glob",
    "Grep",
    "Write",
    "Edit",
    "Bash",
    "WebFetch",
    "TodoRead",
    "TodoWrite",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "ListModels",
    "ReadSessionContext",
    "Agent",
    "Skill",
];

/// The static declaration of a built-in tool (CAP-2). Bash's effective
/// capability is recomputed per command (BASH-6), see `effective_capability`.
pub fn builtin_capability(tool_name: &str) -> Option<Capability> {
    let read_only_low = Capability::base;
    Some(match tool_name {
        "Read" => read_only_low("read"),
        "Glob" => read_only_low("glob"),
        "Grep" => read_only_low("grep"),
        "ListModels" => read_only_low("list_models"),
        "ReadSessionContext" => read_only_low("read_session_context"),
        // PERM-8: starting a sub-agent is read-only; what it runs is
        // judged call by call.
        "Agent" => Capability {
            allowed_in_plan_mode: true,
            ..Capability::base("agent")
        },
        "Skill" => read_only_low("skill"),
        "Write" | "Edit" => Capability {
            read_only: false,
            side_effect_scope: SideEffectScope::Workspace,
            risk_level: RiskLevel::Medium,
            needs_approval: true,
            ..Capability::base("edit")
        },
        "Bash" => Capability {
            read_only: false,
            side_effect_scope: SideEffectScope::System,
            risk_level: RiskLevel::High,
            needs_approval: true,
            ..Capability::base("bash")
        },
        "WebFetch" => Capability {
            side_effect_scope: SideEffectScope::Network,
            risk_level: RiskLevel::Medium,
            needs_approval: true,
            ..Capability::base("webfetch")
        },
        "TodoRead" | "TodoWrite" => Capability {
            side_effect_scope: SideEffectScope::Session,
            ..Capability::base("todo")
        },
        "AskUserQuestion" => Capability {
            requires_user_interaction: true,
            ..Capability::base("ask_user_question")
        },
        "EnterPlanMode" => Capability {
            read_only: false,
            side_effect_scope: SideEffectScope::Session,
            ..Capability::base("plan_mode")
        },
        "ExitPlanMode" => Capability {
            read_only: false,
            side_effect_scope: SideEffectScope::Session,
            requires_user_interaction: true,
            ..Capability::base("plan_mode")
        },
        _ => return None,
    })
}

/// BASH-6: read-only Bash is evaluated with CAP-3, anything else with the
/// static declaration.
pub fn effective_capability(tool_name: &str, bash_read_only: Option<bool>) -> Option<Capability> {
    if tool_name == "Bash" && bash_read_only == Some(true) {
        return Some(Capability::bash_read_only());
    }
    builtin_capability(tool_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap2_every_builtin_has_a_declaration() {
        for name in BUILTIN_TOOLS {
            assert!(builtin_capability(name).is_some(), "{name}");
        }
        assert!(builtin_capability("Nope").is_none());
    }

    #[test]
    fn cap2_table_rows() {
        let w = builtin_capability("Write").unwrap();
        assert_eq!(w.permission_name, "edit");
        assert!(!w.read_only && w.needs_approval);
        assert_eq!(
            (w.side_effect_scope, w.risk_level),
            (SideEffectScope::Workspace, RiskLevel::Medium)
        );
        let b = builtin_capability("Bash").unwrap();
        assert_eq!(
            (b.side_effect_scope, b.risk_level),
            (SideEffectScope::System, RiskLevel::High)
        );
        let f = builtin_capability("WebFetch").unwrap();
        assert!(f.read_only && f.needs_approval);
        assert!(
            builtin_capability("AskUserQuestion")
                .unwrap()
                .requires_user_interaction
        );
        assert!(
            builtin_capability("ExitPlanMode")
                .unwrap()
                .requires_user_interaction
        );
        assert!(!builtin_capability("EnterPlanMode").unwrap().needs_approval);
    }

    #[test]
    fn cap3_read_only_bash() {
        let c = effective_capability("Bash", Some(true)).unwrap();
        assert!(c.read_only && !c.destructive && !c.needs_approval);
        assert_eq!(
            (c.side_effect_scope, c.risk_level),
            (SideEffectScope::None, RiskLevel::Low)
        );
        assert_eq!(
            effective_capability("Bash", Some(false)),
            builtin_capability("Bash")
        );
    }
}
