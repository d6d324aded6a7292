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

// Interim conservative analysis until the parser-based one lands: every
// command is opaque and only verbatim or content-less rules apply.
pub fn analyze(command: &str) -> BashAnalysis {
    BashAnalysis {
        command: command.to_string(),
        safe_parse: false,
        subcommands: Vec::new(),
        read_only: false,
    }
}

pub fn suggest_rules(analysis: &BashAnalysis) -> Vec<String> {
    vec![analysis.command.trim().to_string()]
}

pub fn matching_rule<'a>(
    _kind: crate::permission::rules::RuleKind,
    rules: &'a [crate::permission::rules::Rule],
    analysis: &BashAnalysis,
) -> Option<&'a crate::permission::rules::Rule> {
    rules.iter().find(|r| {
        crate::permission::rules::tool_name_matches(&r.tool_name, "Bash")
            && r.rule_content
                .as_deref()
                .is_none_or(|c| c == analysis.command.trim())
    })
}
