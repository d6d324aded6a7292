//! Team rules in the repository: the project settings files
//! (`.zcode/settings.json`, Claude Code's `.claude/settings.json` and
//! `.claude/settings.local.json`), the user's trust in their content, and
//! the project's rules from the database and the files together.

pub mod file;
pub mod layers;
pub mod trust;

pub use file::SettingsFile;
pub use layers::{ListedRule, ProjectRules, RulesError};

/// How a user trusts the files from a shell.
pub const TRUST_COMMAND: &str = "`zcode permission trust`";
/// How a user trusts the files in the TUI.
pub const TRUST_SLASH: &str = "/permissions trust";
