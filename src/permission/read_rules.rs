//! Read deny and ask rules beyond the Read tool (RULE-2..5).
//!
//! `deny Read *.env` is about the file's contents, whichever tool reads
//! them. Grep and Glob with such a path are matched in the check (a Read
//! rule covers them, `rules::rule_covers_tool`); a directory they search
//! leaves the matching files out (`ReadRuleFilter`); and a shell command
//! is matched on the paths its words name (`bash_read_match`): operands,
//! redirection sources, globs expanded against the directory they name,
//! and directories that a recursive reader would walk.

use super::bash::BashAnalysis;
use super::path_rules::{PathSubject, path_content_matches};
use super::paths::resolve_path;
use super::rules::{Rule, RuleKind, RuleSet, rule_names};
use std::path::{Path, PathBuf};

/// How many directory entries one decision may look at while expanding
/// globs or walking a directory a recursive reader names; past it the
/// command is asked about (never allowed unseen).
const MAX_ENTRIES: usize = 20_000;

/// The rules these are: rules on the Read tool, by the name users write.
const READ: &str = "Read";

/// The deny or ask rules of `rules` that cover the Read tool and name a
/// path (a rule without content covers every call of the tool already).
pub(crate) fn read_rules(rules: &RuleSet, kind: RuleKind) -> Vec<Rule> {
    rules
        .rules(kind)
        .iter()
        .filter(|r| r.rule_content.is_some() && rule_names(kind, &r.tool_name, READ, &[]))
        .cloned()
        .collect()
}

fn subject_of(path: &Path, workspace: &Path) -> PathSubject {
    let raw = path.to_string_lossy();
    PathSubject::new(&raw, path, workspace)
}

fn first_matching<'a>(
    rules: &'a [Rule],
    kind: RuleKind,
    subject: &PathSubject,
) -> Option<&'a Rule> {
    rules
        .iter()
        .find(|r| path_content_matches(r, kind, subject))
}

/// What a Read rule says about a shell command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BashReadMatch {
    /// A word names (or a glob expands to) a file the rule covers.
    Rule(Rule),
    /// A word the shell expands at run time (`$F`), or a directory a
    /// recursive reader walks that holds a covered file (or is too large
    /// to look through): what it reads cannot be known before it runs.
    Unknown(String),
}

/// Programs that read every file under a directory operand (with their
/// recursive option where they need one).
fn walks_directories(words: &[String]) -> bool {
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    let has = |short: char, long: &str| {
        args.iter().any(|a| {
            a == long || (a.starts_with('-') && !a.starts_with("--") && a[1..].contains(short))
        })
    };
    match program {
        "grep" | "egrep" | "fgrep" | "zgrep" => {
            has('r', "--recursive")
                || has('R', "--dereference-recursive")
                || args.iter().any(|a| {
                    a.starts_with("--recu")
                        || a.starts_with("--deref")
                        || a.starts_with("--directories=r")
                        || a == "-drecurse"
                })
                || args.windows(2).any(|w| w[0] == "-d" && w[1] == "recurse")
        }
        "diff" => has('r', "--recursive"),
        // Programs that list names only (find, tree) read no contents.
        "rg" | "ag" | "ack" | "tar" | "zip" | "rsync" => true,
        "git" => {
            args.iter().any(|a| a == "--no-index") || args.first().is_some_and(|a| a == "grep")
        }
        "cp" | "scp" => has('r', "--recursive") || has('R', "--recursive") || has('a', "--archive"),
        _ => false,
    }
}

/// The words of a subcommand that may name a path: every word after the
/// program that is not an option, the value of `--opt=value` and a short
/// option's attached one (`-f.env`), the path in a revision (`HEAD:.env`),
/// and the targets of the redirections `operators` names in its text
/// (the parser keeps redirections out of the words).
fn path_words(sub_text: &str, words: &[String], operators: &[char]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut options_end = false;
    for word in words.iter().skip(1) {
        if !options_end && word == "--" {
            options_end = true;
            continue;
        }
        if !options_end && word.starts_with('-') {
            if let Some((_, value)) = word.split_once('=') {
                out.push(value.to_string());
            } else if !word.starts_with("--")
                && let Some(rest) = word.get(2..).filter(|r| !r.is_empty())
            {
                out.push(rest.to_string());
            }
            continue;
        }
        // `HEAD:.env`, `:config/prod.env`: a path in a revision or the
        // index (git show, git cat-file -p).
        if let Some((_, path)) = word.split_once(':').filter(|(_, p)| !p.is_empty()) {
            out.push(path.to_string());
        }
        out.push(word.clone());
    }
    out.extend(redirect_targets(sub_text, operators));
    out
}

/// What follows each of `operators` in `text` (`< .env`, `>> .envrc`),
/// quotes and backslashes removed.
fn redirect_targets(text: &str, operators: &[char]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(operators) {
        rest = &rest[at + 1..];
        let target: String = rest
            .trim_start_matches(['<', '>', '&', '|'])
            .trim_start()
            .chars()
            .take_while(|c| !c.is_whitespace() && !matches!(c, ';' | '|' | '&' | ')' | '<' | '>'))
            .filter(|c| !matches!(c, '\'' | '"' | '\\'))
            .collect();
        if !target.is_empty() {
            out.push(target);
        }
    }
    out
}

/// The words of a command's text, read without the parser: what lies
/// between blanks, shell operators, quotes and `=` (at most a few
/// hundred), options left out. Every path the command names is among
/// them (and more words besides).
pub(crate) fn opaque_tokens(command: &str) -> impl Iterator<Item = &str> {
    command
        .split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '<' | '>' | '|' | ';' | '&' | '(' | ')' | '$' | '`' | '"' | '\'' | '='
                )
        })
        .filter(|t| !t.is_empty() && !t.starts_with('-'))
}

/// Every word a command may use as a path, quotes removed: for a parsed
/// command its words (and option values, and redirection targets from
/// its text); for one the parser could not take apart, the words of its
/// text with quotes and backslashes dropped (`.gi''t/config` is
/// `.git/config`).
pub(crate) fn named_words(analysis: &BashAnalysis) -> Vec<String> {
    if !analysis.safe_parse {
        let text: String = analysis
            .command
            .chars()
            .filter(|c| !matches!(c, '\'' | '"' | '\\'))
            .collect();
        return opaque_tokens(&text).map(str::to_string).collect();
    }
    let mut out = Vec::new();
    for sub in &analysis.subcommands {
        // A program named with a directory may be a written file too.
        if let Some(program) = sub.words.first().filter(|w| w.contains('/')) {
            out.push(program.clone());
        }
        out.extend(path_words(&sub.text, &sub.words, &['<', '>']));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The directories a command's relative words may be relative to: the
/// workspace, and every directory a `cd` or `pushd` of it names.
pub(crate) fn working_directories(analysis: &BashAnalysis, workspace: &Path) -> Vec<PathBuf> {
    let mut bases = vec![workspace.to_path_buf()];
    for sub in &analysis.subcommands {
        if let [program, target, ..] = sub.words.as_slice()
            && matches!(program.as_str(), "cd" | "pushd")
            && !target.starts_with('-')
        {
            let base = bases
                .last()
                .cloned()
                .unwrap_or_else(|| workspace.to_path_buf());
            bases.push(resolve_path(&base, Path::new(target)));
        }
    }
    bases
}

fn has_glob(word: &str) -> bool {
    word.contains(['*', '?', '['])
}

fn expands_at_run_time(word: &str) -> bool {
    word.contains(['$', '`']) || word.starts_with('~')
}

/// The paths a glob word expands to: its directory part must be literal;
/// the entries of that directory whose names match its last part.
fn expand_glob(word: &str, workspace: &Path, budget: &mut usize) -> Result<Vec<PathBuf>, String> {
    let (dir, name) = match word.rsplit_once('/') {
        Some((dir, name)) => (if dir.is_empty() { "/" } else { dir }, name),
        None => (".", word),
    };
    if has_glob(dir) {
        return Err(format!("the glob {word} spans directories"));
    }
    let matcher = globset::GlobBuilder::new(name)
        .literal_separator(true)
        .build()
        .map_err(|_| format!("the glob {word} cannot be read"))?
        .compile_matcher();
    let dir = resolve_path(workspace, Path::new(dir));
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(out);
    };
    for entry in entries.flatten() {
        *budget = budget.saturating_sub(1);
        if *budget == 0 {
            return Err(format!(
                "the glob {word} names too many files to look through"
            ));
        }
        // Like the shell, `*` matches a leading dot only when written.
        let name_os = entry.file_name();
        let entry_name = name_os.to_string_lossy();
        if entry_name.starts_with('.') && !name.starts_with('.') {
            continue;
        }
        if matcher.is_match(entry_name.as_ref()) {
            out.push(dir.join(entry_name.as_ref()));
        }
    }
    Ok(out)
}

/// Does a directory hold a file one of `rules` covers (within `budget`)?
fn directory_holds_covered_file(
    dir: &Path,
    rules: &[Rule],
    kind: RuleKind,
    workspace: &Path,
    budget: &mut usize,
) -> Result<Option<Rule>, ()> {
    let walk = ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .follow_links(false)
        .build();
    for entry in walk {
        *budget = budget.saturating_sub(1);
        if *budget == 0 {
            return Err(());
        }
        let Ok(entry) = entry else { continue };
        if let Some(rule) = first_matching(rules, kind, &subject_of(entry.path(), workspace)) {
            return Ok(Some(rule.clone()));
        }
    }
    Ok(None)
}

/// The first Read rule of `kind` (from `rules`, see [`read_rules`]) that
/// a shell command may break by reading a file it covers.
pub(crate) fn bash_read_match(
    analysis: &BashAnalysis,
    rules: &[Rule],
    kind: RuleKind,
    workspace: &Path,
) -> Option<BashReadMatch> {
    if rules.is_empty() {
        return None;
    }
    if !analysis.safe_parse {
        // A command that could not be analysed: any of its words that
        // names a covered file (`cat < .env`, `$(cat .env)`) is matched;
        // otherwise what it reads is unknown.
        for token in opaque_tokens(&analysis.command) {
            let path = resolve_path(workspace, Path::new(token));
            if let Some(rule) = first_matching(rules, kind, &subject_of(&path, workspace)) {
                return Some(BashReadMatch::Rule(rule.clone()));
            }
        }
        return Some(BashReadMatch::Unknown(
            "the command could not be analysed".to_string(),
        ));
    }
    let mut budget = MAX_ENTRIES;
    let bases = working_directories(analysis, workspace);
    for sub in &analysis.subcommands {
        let recursive = walks_directories(&sub.words);
        let mut words = path_words(&sub.text, &sub.words, &['<']);
        // A recursive reader with no operand that names an existing path
        // (only a search pattern) reads the working directory (`rg x`,
        // `grep -r x`, `git grep x`).
        if recursive
            && !words
                .iter()
                .any(|w| bases.iter().any(|b| resolve_path(b, Path::new(w)).exists()))
        {
            words.push(".".to_string());
        }
        for word in words {
            if expands_at_run_time(&word) {
                return Some(BashReadMatch::Unknown(format!(
                    "{word} is expanded by the shell when the command runs"
                )));
            }
            let mut paths = Vec::new();
            for base in &bases {
                if has_glob(&word) {
                    match expand_glob(&word, base, &mut budget) {
                        Ok(found) => paths.extend(found),
                        Err(why) => return Some(BashReadMatch::Unknown(why)),
                    }
                } else {
                    paths.push(resolve_path(base, Path::new(&word)));
                }
            }
            for path in paths {
                if let Some(rule) = first_matching(rules, kind, &subject_of(&path, workspace)) {
                    return Some(BashReadMatch::Rule(rule.clone()));
                }
                if recursive && path.is_dir() {
                    match directory_holds_covered_file(&path, rules, kind, workspace, &mut budget) {
                        Ok(Some(rule)) => return Some(BashReadMatch::Rule(rule)),
                        Ok(None) => {}
                        Err(()) => {
                            return Some(BashReadMatch::Unknown(format!(
                                "{} holds too many files to look through",
                                path.display()
                            )));
                        }
                    }
                }
            }
        }
    }
    None
}

/// Leaves out of a Grep or Glob search the files a Read deny or ask rule
/// covers (a search cannot ask about each file it meets).
#[derive(Debug, Clone)]
pub struct ReadRuleFilter {
    rules: Vec<(Rule, RuleKind)>,
    workspace: PathBuf,
}

impl ReadRuleFilter {
    /// `None` when no Read rule names a path.
    pub fn new(rules: &RuleSet, workspace: &Path) -> Option<Self> {
        let mut all: Vec<(Rule, RuleKind)> = Vec::new();
        for kind in [RuleKind::Deny, RuleKind::Ask] {
            all.extend(read_rules(rules, kind).into_iter().map(|r| (r, kind)));
        }
        (!all.is_empty()).then(|| Self {
            rules: all,
            workspace: workspace.to_path_buf(),
        })
    }

    /// Is this file withheld from the search? A link is judged by where
    /// it points, as the Read tool's path is.
    pub(crate) fn withholds(&self, path: &Path) -> bool {
        let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        let subject = if is_link {
            PathSubject::new(
                &path.to_string_lossy(),
                &resolve_path(&self.workspace, path),
                &self.workspace,
            )
        } else {
            subject_of(path, &self.workspace)
        };
        self.rules
            .iter()
            .any(|(rule, kind)| path_content_matches(rule, *kind, &subject))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule4_path_words_are_operands_option_values_and_input_redirections() {
        let words: Vec<String> = ["grep", "-e", "x", "--file=pats", "a.txt", "--", "-b"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let got = path_words("grep -e x --file=pats a.txt -- -b < .env", &words, &['<']);
        assert_eq!(got, ["x", "pats", "a.txt", "-b", ".env"]);
    }

    #[test]
    fn rule4_recursive_readers() {
        let w = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        assert!(walks_directories(&w("grep -rn x .")));
        assert!(walks_directories(&w("grep -R x")));
        assert!(walks_directories(&w("rg x")));
        assert!(!walks_directories(&w("grep x a.txt")));
        assert!(!walks_directories(&w("cat a")));
    }
}
