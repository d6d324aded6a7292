//! `git` as a read-only program (BASH-4): its global options and read-only
//! subcommands.

use super::readonly::long_opt;

/// `git` read-only subcommands, with no global option before the subcommand
/// (`-c`, `-C`, `--exec-path`, `--git-dir`, `-p`, …).
pub(crate) fn is_read_only(args: &[String]) -> bool {
    let Some((sub, rest)) = args.split_first() else {
        return false;
    };
    if sub == "--version" {
        return rest.is_empty();
    }
    if rest.iter().any(|a| git_flag_is_dangerous(a)) {
        return false;
    }
    match sub.as_str() {
        "status" | "log" | "diff" | "show" | "rev-parse" | "ls-files" | "blame" => true,
        "branch" => rest.iter().all(|a| is_branch_listing_flag(a)),
        "remote" => matches!(rest, [] | [_]) && rest.iter().all(|a| a == "-v" || a == "--verbose"),
        _ => false,
    }
}

/// `--output` (and its abbreviations) writes a file; `--ext-diff` and
/// `--textconv` run configured programs.
fn git_flag_is_dangerous(arg: &str) -> bool {
    let Some(body) = arg.strip_prefix("--") else {
        return false;
    };
    let name = body.split_once('=').map_or(body, |(n, _)| n);
    name.starts_with("output")
        || long_opt(arg, "output")
        || long_opt(arg, "ext-diff")
        || long_opt(arg, "textconv")
}

fn is_branch_listing_flag(arg: &str) -> bool {
    matches!(
        arg,
        "--list"
            | "--all"
            | "--remotes"
            | "--verbose"
            | "--show-current"
            | "--color"
            | "--no-color"
            | "--column"
            | "--no-column"
    ) || arg.strip_prefix('-').is_some_and(|cluster| {
        !cluster.is_empty() && cluster.chars().all(|c| matches!(c, 'a' | 'r' | 'v' | 'l'))
    })
}
