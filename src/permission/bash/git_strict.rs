//! The strict (unsandboxed) judgment of git's read-only forms (BASH-4).
//!
//! A checkout may arrive with its `.git` (a tarball, a shared volume, a CI
//! cache), so its configuration and attributes are the attacker's. Without
//! the sandbox a read-only form must not run any program they can name:
//! - the `core.fsmonitor` hook runs on any read of the index (`status`,
//!   `diff`, `ls-files`, `blame`, `grep`, `describe --dirty`, a `:path`
//!   operand), and clean filters run when the work tree is compared;
//! - textconv drivers and `diff.external` run on patches, stats and
//!   pickaxe searches, unless `--no-textconv` and `--no-ext-diff` say not;
//! - `gpg.program` runs on signature checks: `log.showSignature` turns them
//!   on for `log`, `show` and `reflog` unless `--no-show-signature` says
//!   not, and `%G` placeholders or `signature` atoms ask for them.

use super::super::readonly::long_opt;

/// Does this read-only form (already judged so by the sandboxed rules) run
/// no program the repository's configuration or attributes name?
pub(super) fn runs_no_repository_program(sub: &str, rest: &[String]) -> bool {
    if rest
        .iter()
        .any(|a| reads_index_entry(a) || asks_for_signature(a))
    {
        return false;
    }
    let has = |flag: &str| rest.iter().take_while(|a| *a != "--").any(|a| a == flag);
    let no_drivers = has("--no-ext-diff") && has("--no-textconv");
    let no_signatures = has("--no-show-signature");
    match sub {
        "version" | "rev-parse" | "merge-base" | "rev-list" | "shortlog" | "branch" | "tag"
        | "remote" | "config" | "ls-tree" | "show-ref" | "for-each-ref" | "worktree" => true,
        // `--batch` reads object names (`:path` among them) from its input.
        "cat-file" => !rest.iter().any(|a| a.starts_with("--batch")),
        "describe" => !rest
            .iter()
            .any(|a| long_opt(a, "dirty") || long_opt(a, "broken")),
        "log" | "reflog" => no_signatures && (no_drivers || !shows_diffs(rest)),
        "show" => no_signatures && no_drivers,
        "stash" => match rest.first().map(String::as_str) {
            Some("list") => no_signatures && (no_drivers || !shows_diffs(rest)),
            Some("show") => no_drivers,
            _ => false,
        },
        // The index and the work tree: fsmonitor, filters.
        _ => false,
    }
}

/// An object name or value naming an index entry (`:path`, `:0:path`,
/// `--blob=:path`): reading it reads the index.
fn reads_index_entry(arg: &str) -> bool {
    let value = match arg.strip_prefix("--") {
        Some(body) => body.split_once('=').map_or("", |(_, v)| v),
        None => arg,
    };
    value.starts_with(':')
}

/// `--show-signature` (any abbreviation), `%G…` placeholders, `signature`
/// atoms of ref formats: each verifies a signature with `gpg.program`.
fn asks_for_signature(arg: &str) -> bool {
    arg != "--no-show-signature"
        && (long_opt(arg, "show-signature") || arg.contains("%G") || arg.contains("signature"))
}

/// Could these `log` options print a diff (patch, stat, pickaxe, line
/// ranges, …)? Only options known to show none say no.
fn shows_diffs(rest: &[String]) -> bool {
    const NO_DIFF: &[&str] = &[
        "--oneline",
        "--graph",
        "--all",
        "--reverse",
        "--first-parent",
        "--no-merges",
        "--merges",
        "--abbrev-commit",
        "--no-abbrev-commit",
        "--no-decorate",
        "--topo-order",
        "--date-order",
        "--author-date-order",
        "--left-right",
        "--boundary",
        "--ancestry-path",
        "--simplify-by-decoration",
        "--walk-reflogs",
        "--relative-date",
        "--source",
        "--parents",
        "--children",
        "--no-color",
        "--no-patch",
        "--no-show-signature",
        "--no-ext-diff",
        "--no-textconv",
        "--",
        "-g",
        "-i",
        "-s",
        "-z",
        "-n",
    ];
    const NO_DIFF_WITH_VALUE: &[&str] = &[
        "--decorate",
        "--branches",
        "--tags",
        "--remotes",
        "--max-count",
        "--skip",
        "--since",
        "--until",
        "--after",
        "--before",
        "--author",
        "--committer",
        "--grep",
        "--abbrev",
        "--date",
        "--format",
        "--pretty",
        "--color",
    ];
    rest.iter()
        .take_while(|a| *a != "--")
        .filter(|a| a.starts_with('-'))
        .any(|a| {
            let name = a.split_once('=').map_or(a.as_str(), |(n, _)| n);
            let count = a.len() > 1 && a[1..].bytes().all(|b| b.is_ascii_digit());
            !(NO_DIFF.contains(&a.as_str()) || NO_DIFF_WITH_VALUE.contains(&name) || count)
        })
}
