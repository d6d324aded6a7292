//! Bash rules against an analysed command (BASH-5).
//!
//! Deny and ask rules catch a command when any one subcommand matches;
//! allow rules apply only when every subcommand that is not read-only is
//! covered. An unsafe parse is one opaque command.

use super::{BashAnalysis, Subcommand};
use crate::permission::rules::{Rule, RuleKind, content_matches, tool_name_matches};

/// How many words past a wrapper (`sudo -u root …`) are tried as the start
/// of the wrapped command when looking for a deny or ask match.
const MAX_WRAPPER_SKIP: usize = 16;

pub fn matching_rule<'a>(
    kind: RuleKind,
    rules: &'a [Rule],
    analysis: &BashAnalysis,
) -> Option<&'a Rule> {
    let command = analysis.command.trim();
    let mut bash_rules = rules
        .iter()
        .filter(|r| tool_name_matches(&r.tool_name, "Bash"));
    match kind {
        RuleKind::Deny | RuleKind::Ask => {
            let subjects = if analysis.safe_parse {
                deny_subjects(&analysis.subcommands)
            } else {
                Vec::new()
            };
            bash_rules.find(|r| match r.rule_content.as_deref() {
                None => true,
                // The whole command is compared as well: strictly more
                // matches, so an unsafe parse still meets `rm:*`.
                Some(c) => {
                    c == command
                        || content_matches(command, c)
                        || subjects.iter().any(|s| s.matches(c))
                }
            })
        }
        RuleKind::Allow => {
            if let Some(rule) = bash_rules
                .clone()
                .find(|r| r.rule_content.as_deref().is_none_or(|c| c == command))
            {
                return Some(rule);
            }
            if !analysis.safe_parse {
                return None;
            }
            let mut first = None;
            for sub in analysis.subcommands.iter().filter(|s| !s.read_only) {
                let rule = bash_rules.clone().find(|r| {
                    r.rule_content
                        .as_deref()
                        .is_some_and(|c| content_matches(&sub.text, c))
                })?;
                first.get_or_insert(rule);
            }
            first
        }
    }
}

/// What a deny or ask rule is compared with for one subcommand: its source
/// text, its words joined by single spaces (so `'rm' -rf x` is still
/// `rm -rf x`), and that joined form from each word after a leading wrapper
/// (`sudo rm -rf x`, `xargs rm`, `bash -c 'rm -rf x'`).
struct DenySubject<'a> {
    text: &'a str,
    joined: String,
    /// Byte offsets into `joined` where a wrapped command may start.
    wrapped_starts: Vec<usize>,
}

impl DenySubject<'_> {
    fn matches(&self, content: &str) -> bool {
        content_matches(self.text, content)
            || content_matches(&self.joined, content)
            || self.wrapped_starts.iter().any(|&start| {
                self.joined
                    .get(start..)
                    .is_some_and(|s| content_matches(s, content))
            })
    }
}

fn deny_subjects(subcommands: &[Subcommand]) -> Vec<DenySubject<'_>> {
    subcommands
        .iter()
        .map(|sub| {
            let joined = sub.words.join(" ");
            let mut wrapped_starts = Vec::new();
            if sub.words.first().is_some_and(|w| is_wrapper(w)) {
                let mut offset = 0;
                for word in sub.words.iter().take(MAX_WRAPPER_SKIP + 1) {
                    offset += word.len() + 1;
                    if offset < joined.len() {
                        wrapped_starts.push(offset);
                    }
                }
            }
            DenySubject {
                text: &sub.text,
                joined,
                wrapped_starts,
            }
        })
        .collect()
}

fn is_wrapper(program: &str) -> bool {
    matches!(
        program.rsplit('/').next().unwrap_or(program),
        "time"
            | "!"
            | "command"
            | "builtin"
            | "exec"
            | "eval"
            | "nohup"
            | "sudo"
            | "doas"
            | "su"
            | "env"
            | "xargs"
            | "parallel"
            | "nice"
            | "ionice"
            | "timeout"
            | "stdbuf"
            | "setsid"
            | "chroot"
            | "watch"
            | "strace"
            | "sh"
            | "bash"
            | "zsh"
            | "dash"
            | "ksh"
    )
}
