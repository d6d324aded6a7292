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

/// The permission family of the tools that write files (Write, Edit):
/// their target is resolved and judged (PERM-10, PERM-13), and edit mode
/// allows them inside the workspace.
pub(crate) const EDIT_PERMISSION: &str = "edit";

impl Capability {
    /// A read-only, low-risk tool without side effects: the base every
    /// declaration starts from.
    pub const fn read_only_low(permission_name: &'static str) -> Self {
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
    pub(crate) fn allow_always_option(&self) -> AllowAlways {
        self.allow_always.unwrap_or(AllowAlways::Project)
    }

    /// CAP-3: the capability of a command judged read-only, in this
    /// capability's permission family.
    pub(crate) const fn read_only_command(&self) -> Self {
        Self::read_only_low(self.permission_name)
    }

    /// A tool of the edit family (PERM-10, PERM-13).
    pub(crate) fn edits_files(&self) -> bool {
        self.permission_name == EDIT_PERMISSION
    }
}

/// The permission family of every MCP tool.
pub(crate) const MCP_PERMISSION: &str = "mcp";

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
            ..Capability::read_only_low(MCP_PERMISSION)
        }
    }
}
