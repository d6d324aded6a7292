//! `--disallowedTools` / `--allowedTools` extraction, done before clap sees
//! the arguments (DIS-1): the option takes every following argument up to
//! the next one starting with `-` or naming a subcommand, which clap cannot
//! express.

use crate::permission::rules::{Rule, RuleParseError};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolListError {
    pub flag: String,
    /// An entry that is not a tool name or a rule; `None`: no entry at all.
    pub bad_entry: Option<RuleParseError>,
}

impl fmt::Display for ToolListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.bad_entry {
            None => write!(
                f,
                "{} needs at least one tool name (e.g. {} Bash WebFetch)",
                self.flag, self.flag
            ),
            Some(e) => write!(
                f,
                "{}: {e} (write Tool or Tool(content), e.g. 'Bash(git diff:*)')",
                self.flag
            ),
        }
    }
}

impl std::error::Error for ToolListError {}

/// The tool lists pulled out of the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolListArgs {
    pub disallowed: Vec<String>,
    pub allowed: Vec<String>,
    /// The arguments left for clap, in order.
    pub rest: Vec<String>,
}

const DISALLOWED_FLAGS: [&str; 2] = ["--disallowedTools", "--disallowed-tools"];
const ALLOWED_FLAGS: [&str; 2] = ["--allowedTools", "--allowed-tools"];

enum ListKind {
    Disallowed,
    Allowed,
}

fn flag_kind(arg: &str) -> Option<(ListKind, &str, Option<&str>)> {
    let (name, value) = match arg.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (arg, None),
    };
    if DISALLOWED_FLAGS.contains(&name) {
        Some((ListKind::Disallowed, name, value))
    } else if ALLOWED_FLAGS.contains(&name) {
        Some((ListKind::Allowed, name, value))
    } else {
        None
    }
}

/// Extracts the tool-list options from `args` (without the program name).
/// `--flag=value` takes only its inline value; `--flag a b` takes arguments
/// up to the next one starting with `-` or naming a subcommand (no tool is
/// called `permission`), so `zcode --disallowedTools Bash permission check`
/// runs the subcommand. Everything after `--` is left alone.
pub fn extract_tool_lists(args: &[String]) -> Result<ToolListArgs, ToolListError> {
    let subcommands = subcommand_names();
    let mut out = ToolListArgs::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if arg == "--" {
            out.rest.extend(args[i..].iter().cloned());
            break;
        }
        let Some((kind, flag, inline)) = flag_kind(arg) else {
            out.rest.push(arg.clone());
            i += 1;
            continue;
        };
        let mut values: Vec<&str> = Vec::new();
        i += 1;
        match inline {
            Some(v) => values.push(v),
            None => {
                while i < args.len() && !args[i].starts_with('-') && !subcommands.contains(&args[i])
                {
                    values.push(&args[i]);
                    i += 1;
                }
            }
        }
        let names: Vec<String> = values.iter().flat_map(|v| split_tool_names(v)).collect();
        if names.is_empty() {
            return Err(ToolListError {
                flag: flag.to_string(),
                bad_entry: None,
            });
        }
        if let Some(e) = names.iter().find_map(|n| Rule::parse(n).err()) {
            return Err(ToolListError {
                flag: flag.to_string(),
                bad_entry: Some(e),
            });
        }
        let target = match kind {
            ListKind::Disallowed => &mut out.disallowed,
            ListKind::Allowed => &mut out.allowed,
        };
        for name in names {
            if !target.contains(&name) {
                target.push(name);
            }
        }
    }
    Ok(out)
}

/// The names zcode's subcommands are called by (`permission`, `sessions`, …).
fn subcommand_names() -> Vec<String> {
    use clap::CommandFactory;
    super::args::Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

/// Splits on commas and whitespace outside parentheses and normalises
/// snake-case aliases. An entry keeps its parenthesised content
/// (`Bash(git diff:*)`): it is a rule scoped to that content, never the
/// whole tool.
pub fn split_tool_names(value: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in value.chars() {
        match c {
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            ',' | ' ' | '\t' | '\n' if depth == 0 => {
                push_name(&mut names, &mut current);
            }
            _ => current.push(c),
        }
    }
    push_name(&mut names, &mut current);
    names
}

fn push_name(names: &mut Vec<String>, current: &mut String) {
    let entry = current.trim();
    let (tool, content) = match entry.find('(') {
        Some(open) => entry.split_at(open),
        None => (entry, ""),
    };
    let name = format!("{}{content}", normalize_tool_name(tool.trim_end()));
    if !name.is_empty() && !names.contains(&name) {
        names.push(name);
    }
    current.clear();
}

fn normalize_tool_name(name: &str) -> String {
    match name {
        "web_search" => "WebSearch".to_string(),
        "web_fetch" => "WebFetch".to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn dis1_both_spellings_and_equals_form() {
        let r =
            extract_tool_lists(&args(&["--disallowedTools", "Bash", "--mode", "plan"])).unwrap();
        assert_eq!(r.disallowed, vec!["Bash"]);
        assert_eq!(r.rest, args(&["--mode", "plan"]));
        let r = extract_tool_lists(&args(&["--disallowed-tools=WebFetch,Write"])).unwrap();
        assert_eq!(r.disallowed, vec!["WebFetch", "Write"]);
    }

    #[test]
    fn dis1_takes_arguments_up_to_the_next_dash() {
        let r = extract_tool_lists(&args(&[
            "--disallowedTools",
            "Bash",
            "Write",
            "Edit",
            "-p",
            "x",
        ]))
        .unwrap();
        assert_eq!(r.disallowed, vec!["Bash", "Write", "Edit"]);
        assert_eq!(r.rest, args(&["-p", "x"]));
    }

    #[test]
    fn dis1_the_list_ends_at_a_subcommand_name() {
        let r = extract_tool_lists(&args(&[
            "--disallowedTools",
            "Bash",
            "WebFetch",
            "permission",
            "check",
            "--tool",
            "Bash",
        ]))
        .unwrap();
        assert_eq!(r.disallowed, vec!["Bash", "WebFetch"]);
        assert_eq!(r.rest, args(&["permission", "check", "--tool", "Bash"]));
        let r = extract_tool_lists(&args(&["--allowedTools", "Read", "sessions", "list"])).unwrap();
        assert_eq!(r.allowed, vec!["Read"]);
        assert_eq!(r.rest, args(&["sessions", "list"]));
    }

    #[test]
    fn dis1_none_is_an_error() {
        let e = extract_tool_lists(&args(&["--disallowedTools", "--mode", "plan"])).unwrap_err();
        assert!(
            e.to_string()
                .contains("--disallowedTools needs at least one tool name")
        );
        assert!(extract_tool_lists(&args(&["--disallowed-tools"])).is_err());
        assert!(extract_tool_lists(&args(&["--disallowedTools="])).is_err());
    }

    #[test]
    fn dis1_commas_spaces_and_parentheses_keep_the_content() {
        assert_eq!(
            split_tool_names("Bash(git *), Write Read"),
            vec!["Bash(git *)", "Write", "Read"]
        );
        assert_eq!(
            split_tool_names("Bash(a, b c),Edit"),
            vec!["Bash(a, b c)", "Edit"]
        );
        assert_eq!(split_tool_names("web_search"), vec!["WebSearch"]);
        assert_eq!(
            split_tool_names("web_fetch(domain:docs.rs)"),
            vec!["WebFetch(domain:docs.rs)"]
        );
        let r = extract_tool_lists(&args(&["--disallowedTools", "Bash(git *)"])).unwrap();
        assert_eq!(r.disallowed, vec!["Bash(git *)"]);
        let e = extract_tool_lists(&args(&["--allowedTools", "Bash(git"])).unwrap_err();
        assert!(e.to_string().contains("is not a rule"), "{e}");
    }

    #[test]
    fn dis1_stops_at_double_dash_and_handles_allowed() {
        let r = extract_tool_lists(&args(&[
            "--allowedTools",
            "Read,Grep",
            "--",
            "--disallowedTools",
        ]))
        .unwrap();
        assert_eq!(r.allowed, vec!["Read", "Grep"]);
        assert!(r.disallowed.is_empty());
        assert_eq!(r.rest, args(&["--", "--disallowedTools"]));
    }
}
