//! Bash command analysis on a real shell parser (BASH-1..8).
//!
//! `analyze` parses once; the result feeds the read-only judgment (BASH-4),
//! the rule policy (BASH-5) and the "always allow" suggestions (BASH-7).

use serde::Serialize;

/// One simple command of a safely parsed command line (BASH-2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Subcommand {
    /// The command's source text, trimmed (what allow rules compare with).
    pub text: String,
    /// The words after quote removal, assignments excluded.
    pub words: Vec<String>,
    /// Leading `VAR=value` assignments were present (BASH-2).
    pub has_assignments: bool,
    pub read_only: bool,
}

/// The result of analysing one Bash command (BASH-1..4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BashAnalysis {
    pub command: String,
    pub safe_parse: bool,
    /// Empty when the parse is unsafe: the command is one opaque unit (BASH-3).
    pub subcommands: Vec<Subcommand>,
    pub read_only: bool,
}
