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
    /// Per word: it is expanded by the shell (a glob, `$NAME`), so `words`
    /// holds its source text, not its value. Only a sandboxed analysis
    /// accepts such words (see `AnalyzeOptions`).
    #[serde(skip)]
    pub dynamic: Vec<bool>,
    /// Judged read-only by the analysis the command runs under (in a
    /// sandboxed analysis, possibly only because the sandbox contains it).
    pub read_only: bool,
    /// Read-only without a sandbox too (the strict judgment). A part that
    /// is read-only only in the sandbox may never run outside it: an allow
    /// rule covering another part of the line does not cover this one.
    pub strict_read_only: bool,
}

impl BashAnalysis {
    /// Derives `read_only` from the subcommands' judgments (after a caller
    /// changed one): every one read-only, and at least one (an empty
    /// command has nothing to judge).
    pub(crate) fn refresh_read_only(&mut self) {
        self.read_only = self.safe_parse
            && !self.subcommands.is_empty()
            && self.subcommands.iter().all(|s| s.read_only);
    }
}

/// How the read-only judgment may reason.
///
/// `sandboxed`: a command judged read-only will run inside the kernel's
/// read-only sandbox, so forms whose only risk the sandbox removes (a glob,
/// `$VAR`, a program that reads widely) may be judged read-only. Without it
/// the judgment stays strict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AnalyzeOptions {
    pub sandboxed: bool,
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

mod awk;
mod builtins;
mod cli;
mod cli_tables;
mod dev_tools;
mod find;
mod getopt;
mod git;
mod gnu_forms;
mod invocation;
mod opaque;
mod parse;
mod policy;
mod prefix;
mod readonly;
mod scan;
mod sed;
mod tool_forms;
mod word;
mod wrapper;

pub use git::neutralising_config;
pub use parse::{MAX_COMMAND_BYTES, MAX_NESTING_DEPTH};
pub use policy::matching_rule;
pub use prefix::{MAX_PREFIX_RULES, suggest_rules};

use std::panic::{AssertUnwindSafe, catch_unwind};

/// Analyses one command (BASH-1..4). Never panics: anything the parser or
/// the analysis cannot handle is an unsafe, opaque command (BASH-8).
pub fn analyze(command: &str) -> BashAnalysis {
    analyze_with(command, AnalyzeOptions::default())
}

/// `analyze` with the judgment's options (see `AnalyzeOptions`).
pub fn analyze_with(command: &str, options: AnalyzeOptions) -> BashAnalysis {
    let subcommands = catch_unwind(AssertUnwindSafe(|| {
        parse::parse_safe(command, options).map(|parsed| {
            parsed
                .into_iter()
                .map(|p| {
                    let (read_only, strict_read_only) = judge(&p, options);
                    Subcommand {
                        read_only,
                        strict_read_only,
                        text: p.text,
                        words: p.words,
                        has_assignments: p.has_assignments,
                        dynamic: p.dynamic,
                    }
                })
                .collect::<Vec<_>>()
        })
    }))
    .ok()
    .flatten();
    match subcommands {
        Some(subcommands) => {
            let mut analysis = BashAnalysis {
                command: command.to_string(),
                safe_parse: true,
                read_only: false,
                subcommands,
            };
            analysis.refresh_read_only();
            analysis
        }
        None => BashAnalysis {
            command: command.to_string(),
            safe_parse: false,
            subcommands: Vec::new(),
            read_only: false,
        },
    }
}

/// The judgment under `options` and the strict one; the strict judgment is
/// computed again only where the two may differ (a sandboxed analysis).
fn judge(p: &parse::ParsedSubcommand, options: AnalyzeOptions) -> (bool, bool) {
    if p.has_assignments || !readonly::is_read_only(&p.words, &p.dynamic, options) {
        return (false, false);
    }
    let strict = !options.sandboxed
        || readonly::is_read_only(&p.words, &p.dynamic, AnalyzeOptions { sandboxed: false });
    (true, strict)
}

#[cfg(test)]
mod tests;
