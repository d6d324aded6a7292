//! Where a permission rule comes from, as `/permissions` and
//! `zcode permission list` show it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RuleSource {
    /// Saved in the user's database for this project (`zcode permission
    /// add`, `/permissions`, an "always allow" answer).
    #[default]
    Database,
    /// The project's checked-in `.zcode/settings.json`.
    ZcodeSettings,
    /// Claude Code's `.claude/settings.json` in the project.
    ClaudeSettings,
    /// Claude Code's `.claude/settings.local.json` in the project.
    ClaudeLocalSettings,
    /// `permission.allowedTools` / `disallowedTools` of the user's config.
    UserConfig,
    /// `--allowedTools` / `--disallowedTools`.
    Flag,
}

impl RuleSource {
    pub fn label(self) -> &'static str {
        match self {
            RuleSource::Database => "project database",
            RuleSource::ZcodeSettings => ".zcode/settings.json",
            RuleSource::ClaudeSettings => ".claude/settings.json",
            RuleSource::ClaudeLocalSettings => ".claude/settings.local.json",
            RuleSource::UserConfig => "user config",
            RuleSource::Flag => "flag",
        }
    }

    /// [`label`](Self::label) where a list row is narrow (the TUI).
    pub fn short_label(self) -> &'static str {
        match self {
            RuleSource::Database => "database",
            other => other.label(),
        }
    }

    /// A file in the project: its allow rules need the user's trust.
    pub fn is_project_file(self) -> bool {
        matches!(
            self,
            RuleSource::ZcodeSettings
                | RuleSource::ClaudeSettings
                | RuleSource::ClaudeLocalSettings
        )
    }
}
