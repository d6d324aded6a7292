//! Bash rules against an analysed command (BASH-5).
//!
//! Deny and ask rules catch a command when any one subcommand matches, and
//! they follow a program wherever it would run (see `invocation`); what
//! cannot be analysed matches a rule that names its program. Allow rules
//! apply only when every subcommand that is not read-only without a sandbox
//! is covered (an allowed line runs unsandboxed), and
//! never to a subcommand whose options change what runs (`git -c …`)
//! unless the rule is the whole command verbatim.

use super::cli::RuleReading;
use super::invocation::{self, Invocations, basename};
use super::opaque;
use super::{BashAnalysis, Subcommand};
use crate::permission::declaration::ToolDeclaration;
use crate::permission::rules::{Rule, RuleKind, content_matches, rule_covers_tool};

pub fn matching_rule<'a>(
    kind: RuleKind,
    rules: &'a [Rule],
    tool: &ToolDeclaration,
    analysis: &BashAnalysis,
) -> Option<&'a Rule> {
    let command = analysis.command.trim();
    let mut bash_rules = rules
        .iter()
        .filter(|r| rule_covers_tool(kind, &r.tool_name, tool));
    match kind {
        RuleKind::Deny | RuleKind::Ask => {
            // Nothing to compare: skip the analysis of what runs.
            bash_rules.clone().next()?;
            let subjects: Vec<DenySubject<'_>> = if analysis.safe_parse {
                analysis.subcommands.iter().map(DenySubject::new).collect()
            } else {
                Vec::new()
            };
            // A shell that reads its input may run any word of the line.
            let opaque_command =
                !analysis.safe_parse || subjects.iter().any(|s| s.invocations.runs_input);
            bash_rules.find(|r| match r.rule_content.as_deref() {
                None => true,
                Some(c) => {
                    c == command
                        || content_matches(command, c)
                        || (opaque_command && opaque_names(command, c))
                        || subjects.iter().any(|s| s.matches(c))
                        // A rule of plain words read as a command (see
                        // `cli`): the program's aliases and global options,
                        // its flags as a set.
                        || RuleReading::new(c)
                            .is_some_and(|rule| subjects.iter().any(|s| s.read_by(&rule)))
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
            // An allowed line runs without the read-only sandbox: every part
            // the rules do not cover must be read-only without it too (a part
            // read-only only because the sandbox would contain it, or one of
            // the user's `readOnlyCommands`, makes the line a question). A
            // line read-only as a whole is left to the read-only judgment,
            // which runs it in the sandbox.
            let mut first = None;
            for sub in analysis.subcommands.iter().filter(|s| !s.strict_read_only) {
                // A word the shell expands (a glob, `$VAR`) may become any
                // option: only a verbatim rule allows it.
                if sub.dynamic.iter().any(|d| *d) || invocation::changes_what_runs(&sub.words) {
                    return None;
                }
                let rule = bash_rules.clone().find(|r| {
                    r.rule_content
                        .as_deref()
                        .is_some_and(|c| content_matches(&sub.text, c))
                })?;
                if !sub.read_only {
                    first.get_or_insert(rule);
                }
            }
            first
        }
    }
}

/// What a deny or ask rule is compared with for one subcommand: its source
/// text, its words joined by single spaces (so `'rm' -rf x` is still
/// `rm -rf x`), and every program it may run.
struct DenySubject<'a> {
    sub: &'a Subcommand,
    joined: String,
    invocations: Invocations,
}

impl<'a> DenySubject<'a> {
    fn new(sub: &'a Subcommand) -> Self {
        Self {
            sub,
            joined: sub.words.join(" "),
            invocations: invocation::collect(&sub.words),
        }
    }

    fn matches(&self, content: &str) -> bool {
        let inv = &self.invocations;
        content_matches(&self.sub.text, content)
            || content_matches(&self.joined, content)
            || inv.runs.iter().any(|run| content_matches(run, content))
            || inv.opaque.iter().any(|text| opaque_names(text, content))
            // A word the shell expands (a sandboxed analysis accepts some)
            // may become any program; an assignment (`GIT_PAGER=…`) may
            // name a command the program runs.
            || ((self.sub.has_assignments || self.sub.dynamic.iter().any(|d| *d))
                && opaque_names(&self.sub.text, content))
            || rule_program(content).is_some_and(|p| inv.any_rule_of.contains(&p))
    }
}

impl DenySubject<'_> {
    /// Does a rule read as a command cover the subcommand or a program it
    /// runs?
    /// A run is its words joined by spaces; only the runs of the rule's
    /// program are split back into words (a word holding a space splits
    /// too, which can only widen what the rule catches).
    fn read_by(&self, rule: &RuleReading) -> bool {
        rule.covers(&self.sub.words)
            || self.invocations.runs.iter().any(|run| {
                rule.may_cover(run.split(' ').next().unwrap_or(""))
                    && rule.covers(&run.split(' ').map(str::to_string).collect::<Vec<_>>())
            })
    }
}

/// The program a rule is about: the basename of its first word (`rm` for
/// `rm:*`, `/bin/rm -rf:*` and `rm -rf *`); `None` when the first word
/// holds a wildcard.
fn rule_program(content: &str) -> Option<&str> {
    let literal = content.strip_suffix(":*").unwrap_or(content);
    let first = literal.split([' ', '\t']).next()?;
    (!first.is_empty() && !first.contains('*')).then(|| basename(first))
}

/// Characters a program name is made of; anything else separates words in
/// opaque text (`$(rm`, `;rm`, `/bin/rm`, `--pre=rm`).
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '+' | '@' | '%' | ',')
}

/// Shell characters that build words at run time (expansions, globs,
/// brace expansion): a rule's later words may appear through them.
fn builds_words(c: char) -> bool {
    matches!(c, '$' | '`' | '*' | '?' | '[' | '{')
}

/// Does text that could not be analysed name the rule's program as a word
/// (or as a glob or parameter default that may expand to it: `/bin/r?`,
/// `${RM:-rm}`) in one of its readings (`r\m`, `"rm"`, `/bin/rm`, `$(rm …)`, `r$()m`,
/// `$'\x72m'`, `{r,}m`; see `opaque::readings`)? A redirection target (`> rm`) is a file, not a program.
/// For a rule of several words (`git push:*`) its other words must appear
/// too, unless the text builds words at run time (`git $(echo push)`) and
/// the rule itself is not shell text.
fn opaque_names(text: &str, content: &str) -> bool {
    let Some(program) = rule_program(content) else {
        return content_matches(text, content);
    };
    let [plain, joined] = opaque::readings(text);
    let mut tokens = program_words(&plain);
    tokens.extend(program_words(&joined));
    if !tokens.contains(&program) && !opaque::may_name_program(&plain, program) {
        return false;
    }
    let rule_is_shell_text = content.contains(['$', '`', '>', '<', '|', ';', '&', '(']);
    if !rule_is_shell_text && plain.chars().any(builds_words) {
        return true;
    }
    let literal = content.strip_suffix(":*").unwrap_or(content);
    let literal = literal.split('*').next().unwrap_or("");
    let rest = literal.split_once([' ', '\t']).map_or("", |(_, rest)| rest);
    rest.split(|c: char| !is_name_char(c))
        .filter(|t| !t.is_empty())
        .all(|word| tokens.contains(&word))
}

/// The name-character runs of `text`, leaving out redirection targets.
fn program_words(text: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start = None;
    // The last separator before the current word, spaces skipped.
    let mut last_separator = ' ';
    let mut separator_before_word = ' ';
    for (i, c) in text.char_indices() {
        if is_name_char(c) {
            if start.is_none() {
                start = Some(i);
                separator_before_word = last_separator;
            }
            continue;
        }
        if let Some(s) = start.take() {
            if !matches!(separator_before_word, '>' | '<') {
                words.push(&text[s..i]);
            }
            last_separator = ' ';
        }
        if !c.is_whitespace() {
            last_separator = c;
        }
    }
    if let Some(s) = start
        && !matches!(separator_before_word, '>' | '<')
    {
        words.push(&text[s..]);
    }
    words
}
