//! `git`: its global options (BASH-4, BASH-5) and its read-only
//! subcommands (BASH-4).
//!
//! Git's own option parser (git.c `handle_options`) compares option names
//! exactly: no abbreviations, and `-c`/`-C` take their value as the next
//! word only. Subcommands parse their options with parse-options, which
//! accepts any unambiguous abbreviation of a long option.

use super::AnalyzeOptions;
use super::readonly::long_opt;

#[path = "git_strict.rs"]
mod strict;

/// The global options in front of a git subcommand, split from it.
#[derive(Debug, Default)]
pub(crate) struct GlobalOptions<'a> {
    /// The subcommand and its arguments (empty when there is none).
    pub rest: &'a [String],
    /// An option changes which programs, configuration or repository git
    /// uses (`-c`, `--config-env`, `--exec-path=`, `--git-dir`, `-p`, …):
    /// only a rule naming the whole command verbatim may allow it.
    pub changes_what_runs: bool,
    /// An option git does not have (or a version's that this model does not
    /// know): what runs is unknown.
    pub unknown_option: bool,
    /// `-c name=value` in order (`-c name` alone is `name=true`).
    pub config: Vec<(&'a str, &'a str)>,
    /// `--config-env name=ENV`: the value comes from the environment.
    pub config_env: Vec<&'a str>,
    /// `-C` names a directory that is not plainly below the current one
    /// (absolute, `~`, `..`): git reads another repository, whose
    /// configuration may name programs (`core.fsmonitor`). Not read-only.
    pub leaves_directory: bool,
    /// `-C` is given at all: a directory of the workspace may be a bare
    /// repository built there, with its own configuration.
    pub changes_directory: bool,
    /// An option that prints and exits before any subcommand
    /// (`--version`, `--html-path`, `--exec-path` without a value, …).
    pub exits_early: bool,
}

/// Splits git's global options from the subcommand (see `GlobalOptions`).
pub(crate) fn split_global_options(args: &[String]) -> GlobalOptions<'_> {
    let mut out = GlobalOptions::default();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let arg = arg.as_str();
        if !arg.starts_with('-') {
            break;
        }
        i += 1;
        let (name, attached) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v)),
            _ => (arg, None),
        };
        // The value of an option that takes one: attached after `=`, else
        // the next word.
        let mut value = |allow_attached: bool| -> Option<&str> {
            match attached {
                Some(v) if allow_attached => Some(v),
                Some(_) => None,
                None => {
                    let v = args.get(i).map(String::as_str);
                    i += 1;
                    v
                }
            }
        };
        match name {
            "-P"
            | "--no-pager"
            | "--no-replace-objects"
            | "--no-lazy-fetch"
            | "--no-optional-locks"
            | "--no-advice"
            | "--literal-pathspecs"
            | "--no-literal-pathspecs"
            | "--glob-pathspecs"
            | "--noglob-pathspecs"
            | "--icase-pathspecs"
                if attached.is_none() => {}
            // Where git runs and which namespace it shows: the same programs.
            "-C" => match value(false) {
                Some(dir) => {
                    out.changes_directory = true;
                    out.leaves_directory |= !is_plain_subdirectory(dir);
                }
                None => out.unknown_option = true,
            },
            "--namespace" => {
                if value(true).is_none() {
                    out.unknown_option = true;
                }
            }
            // The pager is a program (`core.pager`, `$PAGER`).
            "-p" | "--paginate" if attached.is_none() => out.changes_what_runs = true,
            "-c" => match value(false) {
                Some(setting) => {
                    out.changes_what_runs = true;
                    out.config
                        .push(setting.split_once('=').unwrap_or((setting, "true")));
                }
                None => out.unknown_option = true,
            },
            "--config-env" => match value(true) {
                Some(setting) => {
                    out.changes_what_runs = true;
                    out.config_env
                        .push(setting.split_once('=').map_or(setting, |(n, _)| n));
                }
                None => out.unknown_option = true,
            },
            // The current directory as the repository: its `config` file
            // (committed content in a cloned tree) would be used.
            "--bare" if attached.is_none() => out.changes_what_runs = true,
            // Another repository or work tree brings its own configuration
            // and hooks; attributes choose filter drivers; the shallow file
            // and super-prefix are internal.
            "--git-dir" | "--work-tree" | "--attr-source" | "--shallow-file" | "--super-prefix" => {
                out.changes_what_runs = true;
                if value(true).is_none() {
                    out.unknown_option = true;
                }
            }
            "--exec-path" => match attached {
                Some(_) => out.changes_what_runs = true,
                None => out.exits_early = true,
            },
            "-v" | "--version" | "--html-path" | "--man-path" | "--info-path"
                if attached.is_none() =>
            {
                out.exits_early = true
            }
            "--list-cmds" if attached.is_some() => out.exits_early = true,
            // `--help` shows a manual page through `man` or a browser.
            "-h" | "--help" if attached.is_none() => out.changes_what_runs = true,
            _ => out.unknown_option = true,
        }
        if out.unknown_option {
            break;
        }
    }
    out.rest = args.get(i..).unwrap_or(&[]);
    out
}

/// A relative path without `..` (and not `~…`): a directory below the
/// current one.
fn is_plain_subdirectory(dir: &str) -> bool {
    !dir.starts_with('/') && !dir.starts_with('~') && !dir.split('/').any(|c| c == "..")
}

/// The value of `alias.<name>` among `-c` settings (the last one wins;
/// configuration keys are case-insensitive).
pub(crate) fn alias<'a>(config: &[(&'a str, &'a str)], name: &str) -> Option<&'a str> {
    config.iter().rev().find_map(|(key, value)| {
        let (section, alias) = key.split_once('.')?;
        (section.eq_ignore_ascii_case("alias") && alias.eq_ignore_ascii_case(name))
            .then_some(*value)
    })
}

/// Git's own commands (2.47: `git --list-cmds=main` plus the GUI tools). A
/// word that is not one of them is an alias from the user's or the
/// repository's configuration, a `git-<name>` program, or an autocorrected
/// typo: it may run anything.
pub(crate) fn is_builtin(sub: &str) -> bool {
    matches!(
        sub,
        "add"
            | "am"
            | "annotate"
            | "apply"
            | "archimport"
            | "archive"
            | "bisect"
            | "blame"
            | "branch"
            | "bugreport"
            | "bundle"
            | "cat-file"
            | "check-attr"
            | "check-ignore"
            | "check-mailmap"
            | "check-ref-format"
            | "checkout"
            | "checkout--worker"
            | "checkout-index"
            | "cherry"
            | "cherry-pick"
            | "citool"
            | "clean"
            | "clone"
            | "column"
            | "commit"
            | "commit-graph"
            | "commit-tree"
            | "config"
            | "count-objects"
            | "credential"
            | "credential-cache"
            | "credential-cache--daemon"
            | "credential-store"
            | "cvsexportcommit"
            | "cvsimport"
            | "cvsserver"
            | "daemon"
            | "describe"
            | "diagnose"
            | "diff"
            | "diff-files"
            | "diff-index"
            | "diff-tree"
            | "difftool"
            | "difftool--helper"
            | "fast-export"
            | "fast-import"
            | "fetch"
            | "fetch-pack"
            | "filter-branch"
            | "fmt-merge-msg"
            | "for-each-ref"
            | "for-each-repo"
            | "format-patch"
            | "fsck"
            | "fsck-objects"
            | "fsmonitor--daemon"
            | "gc"
            | "get-tar-commit-id"
            | "grep"
            | "gui"
            | "hash-object"
            | "help"
            | "hook"
            | "http-backend"
            | "http-fetch"
            | "http-push"
            | "imap-send"
            | "index-pack"
            | "init"
            | "init-db"
            | "instaweb"
            | "interpret-trailers"
            | "log"
            | "ls-files"
            | "ls-remote"
            | "ls-tree"
            | "mailinfo"
            | "mailsplit"
            | "maintenance"
            | "merge"
            | "merge-base"
            | "merge-file"
            | "merge-index"
            | "merge-octopus"
            | "merge-one-file"
            | "merge-ours"
            | "merge-recursive"
            | "merge-recursive-ours"
            | "merge-recursive-theirs"
            | "merge-resolve"
            | "merge-subtree"
            | "merge-tree"
            | "mergetool"
            | "mktag"
            | "mktree"
            | "multi-pack-index"
            | "mv"
            | "name-rev"
            | "notes"
            | "p4"
            | "pack-objects"
            | "pack-redundant"
            | "pack-refs"
            | "patch-id"
            | "pickaxe"
            | "prune"
            | "prune-packed"
            | "pull"
            | "push"
            | "quiltimport"
            | "range-diff"
            | "read-tree"
            | "rebase"
            | "receive-pack"
            | "reflog"
            | "refs"
            | "remote"
            | "remote-ext"
            | "remote-fd"
            | "remote-ftp"
            | "remote-ftps"
            | "remote-http"
            | "remote-https"
            | "repack"
            | "replace"
            | "replay"
            | "request-pull"
            | "rerere"
            | "reset"
            | "restore"
            | "rev-list"
            | "rev-parse"
            | "revert"
            | "rm"
            | "send-email"
            | "send-pack"
            | "sh-i18n--envsubst"
            | "shell"
            | "shortlog"
            | "show"
            | "show-branch"
            | "show-index"
            | "show-ref"
            | "sparse-checkout"
            | "stage"
            | "stash"
            | "status"
            | "stripspace"
            | "submodule"
            | "submodule--helper"
            | "svn"
            | "switch"
            | "symbolic-ref"
            | "tag"
            | "unpack-file"
            | "unpack-objects"
            | "update-index"
            | "update-ref"
            | "update-server-info"
            | "upload-archive"
            | "upload-archive--writer"
            | "upload-pack"
            | "var"
            | "verify-commit"
            | "verify-pack"
            | "verify-tag"
            | "version"
            | "web--browse"
            | "whatchanged"
            | "worktree"
            | "write-tree"
    )
}

/// Subcommands whose arguments may name a program or a shell command that
/// git runs (`submodule foreach CMD`, `bisect run CMD`, `rebase --exec CMD`,
/// `--upload-pack=CMD`, `grep -O CMD`, `difftool -x CMD`, filters, …).
pub(crate) fn runs_programs(sub: &str) -> bool {
    matches!(
        sub,
        "submodule"
            | "bisect"
            | "rebase"
            | "filter-branch"
            | "difftool"
            | "mergetool"
            | "send-email"
            | "archive"
            | "fetch"
            | "pull"
            | "push"
            | "clone"
            | "ls-remote"
            | "grep"
            | "daemon"
            | "instaweb"
            | "web--browse"
            | "for-each-repo"
            | "p4"
            | "svn"
            | "cvsimport"
            | "cvsexportcommit"
            | "archimport"
            | "quiltimport"
            | "remote-ext"
            | "hook"
            | "merge"
            | "credential"
            | "worktree"
            | "help"
    )
}

/// The configuration that keeps a read-only git command from running a
/// program its repository (or an embedded one) names, as `key=value` pairs
/// for `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, which
/// override every configuration file. Textconv and filter drivers have
/// names of the repository's choosing, so no fixed key turns them off: the
/// strict judgment refuses the forms that may run them.
pub fn neutralising_config() -> &'static [(&'static str, &'static str)] {
    &[
        // The file-system monitor hook runs on every read of the index.
        ("core.fsmonitor", "false"),
        // Hooks (`post-checkout`, `reference-transaction`, …) of the repository.
        ("core.hooksPath", "/dev/null"),
        // An external diff program for every patch.
        ("diff.external", ""),
        // The pager is a program (a terminal makes git start it).
        ("core.pager", "cat"),
        // Signature checks run `gpg.program` on `git log` and `git show`.
        ("log.showSignature", "false"),
        // A bare repository inside the workspace is used only when named
        // explicitly (`--git-dir`), never by entering its directory.
        ("safe.bareRepository", "explicit"),
        // No transport at all: `ext::` runs a command, others reach out.
        ("protocol.allow", "never"),
        // A command listing the alternates' references.
        ("core.alternateRefsCommand", ""),
        // A hook wrapped around `pack-objects` when serving a fetch.
        ("uploadpack.packObjectsHook", ""),
    ]
}

/// `git` read-only forms (BASH-4): global options that change nothing that
/// runs (`-P`, `--no-pager`, `-C subdir` in the sandbox, …), then a read-only
/// subcommand. Without a sandbox the judgment is stricter: a form that may
/// run a program the repository's configuration or attributes name (the
/// fsmonitor hook on any read of the index, filter and textconv drivers,
/// an external diff, gpg for signatures) is not read-only, nor is `-C`
/// (it may enter a bare repository the workspace holds).
pub(crate) fn is_read_only(args: &[String], options: AnalyzeOptions) -> bool {
    let globals = split_global_options(args);
    if globals.changes_what_runs || globals.unknown_option || globals.leaves_directory {
        return false;
    }
    if !options.sandboxed && globals.changes_directory {
        return false;
    }
    if globals.exits_early {
        return globals.rest.is_empty();
    }
    let Some((sub, rest)) = globals.rest.split_first() else {
        return false;
    };
    subcommand_is_read_only(sub, rest)
        && (options.sandboxed || strict::runs_no_repository_program(sub, rest))
}

fn subcommand_is_read_only(sub: &str, rest: &[String]) -> bool {
    match sub {
        "status" | "log" | "diff" | "show" | "rev-parse" | "ls-files" | "blame" | "describe"
        | "rev-list" | "shortlog" | "merge-base" | "ls-tree" | "show-ref" | "for-each-ref" => {
            !rest.iter().any(|a| revision_flag_is_dangerous(a))
        }
        "version" => rest.iter().all(|a| a == "--build-options"),
        "reflog" => {
            // `expire`, `delete`, `drop` write; any other first word is
            // read as `show`'s (a ref or an option).
            let first = rest.first().map(String::as_str);
            (matches!(first, None | Some("show" | "exists"))
                || first.is_some_and(|a| a.starts_with('-')))
                && !rest.iter().any(|a| revision_flag_is_dangerous(a))
        }
        "worktree" => {
            rest.first().is_some_and(|a| a == "list")
                && rest[1..]
                    .iter()
                    .all(|a| matches!(a.as_str(), "--porcelain" | "-v" | "--verbose" | "-z"))
        }
        "branch" => branch_is_listing(rest),
        "tag" => tag_is_listing(rest),
        "stash" => {
            rest.first().is_some_and(|a| a == "list" || a == "show")
                && !rest.iter().any(|a| revision_flag_is_dangerous(a))
        }
        "grep" => grep_is_read_only(rest),
        "cat-file" => !rest
            .iter()
            .any(|a| long_opt(a, "textconv") || long_opt(a, "filters")),
        "remote" => remote_is_read_only(rest),
        "config" => config_is_read_only(rest),
        _ => false,
    }
}

/// `--output` (and its abbreviations) writes a file; `--ext-diff` and
/// `--textconv` run configured programs.
fn revision_flag_is_dangerous(arg: &str) -> bool {
    let Some(body) = arg.strip_prefix("--") else {
        return false;
    };
    let name = body.split_once('=').map_or(body, |(n, _)| n);
    // `--text` is an option of its own (an exact name wins over an
    // abbreviation of `--textconv`).
    if name == "text" {
        return false;
    }
    name.starts_with("output")
        || long_opt(arg, "output")
        || long_opt(arg, "ext-diff")
        || long_opt(arg, "textconv")
}

/// How a subcommand option takes its value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Takes {
    Nothing,
    /// `--name=v` or `--name v`.
    Value,
    /// `--name=v` only.
    Optional,
    /// parse-options' LASTARG_DEFAULT: the next word, unless it is the
    /// last.
    NextUnlessLast,
}

struct Opt {
    long: &'static str,
    short: Option<char>,
    takes: Takes,
}

const fn opt(long: &'static str, short: Option<char>, takes: Takes) -> Opt {
    Opt { long, short, takes }
}

/// The operands of `args` when every option is one of `allowed` (an
/// unambiguous abbreviation of a long one counts); `None` otherwise.
fn operands_if_allowed<'a>(args: &'a [String], allowed: &[Opt]) -> Option<Vec<&'a str>> {
    let mut operands = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "--" {
            operands.extend(args[i..].iter().map(String::as_str));
            break;
        }
        if let Some(body) = arg.strip_prefix("--") {
            let (name, attached) = match body.split_once('=') {
                Some((n, _)) => (n, true),
                None => (body, false),
            };
            if name.is_empty() {
                return None;
            }
            let exact = allowed.iter().find(|o| o.long == name);
            let opt = match exact {
                Some(o) => o,
                None => {
                    let mut prefixed = allowed.iter().filter(|o| o.long.starts_with(name));
                    match (prefixed.next(), prefixed.next()) {
                        (Some(o), None) => o,
                        _ => return None,
                    }
                }
            };
            match opt.takes {
                Takes::Nothing if attached => return None,
                Takes::Value if !attached => i += 1,
                Takes::NextUnlessLast if !attached && i < args.len() => i += 1,
                _ => {}
            }
            continue;
        }
        let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) else {
            operands.push(arg.as_str());
            continue;
        };
        for (pos, c) in cluster.char_indices() {
            let opt = allowed.iter().find(|o| o.short == Some(c))?;
            match opt.takes {
                Takes::Nothing => {}
                Takes::Optional => break,
                Takes::Value | Takes::NextUnlessLast => {
                    if pos + c.len_utf8() == cluster.len() {
                        i += 1;
                    }
                    break;
                }
            }
        }
    }
    Some(operands)
}

/// Options shared by the listing forms of `branch` and `tag` (ref-filter).
const REF_FILTER: [Opt; 12] = [
    opt("contains", None, Takes::NextUnlessLast),
    opt("no-contains", None, Takes::NextUnlessLast),
    opt("merged", None, Takes::NextUnlessLast),
    opt("no-merged", None, Takes::NextUnlessLast),
    opt("points-at", None, Takes::Value),
    opt("sort", None, Takes::Value),
    opt("format", None, Takes::Value),
    opt("color", None, Takes::Optional),
    opt("no-color", None, Takes::Nothing),
    opt("column", None, Takes::Optional),
    opt("no-column", None, Takes::Nothing),
    opt("ignore-case", Some('i'), Takes::Nothing),
];

/// `git branch` lists when it has no operand, or when a listing option
/// (`--list`, `-v`, `--contains`, …) makes its operands patterns.
fn branch_is_listing(args: &[String]) -> bool {
    const BRANCH: [Opt; 9] = [
        opt("list", Some('l'), Takes::Nothing),
        opt("all", Some('a'), Takes::Nothing),
        opt("remotes", Some('r'), Takes::Nothing),
        opt("verbose", Some('v'), Takes::Nothing),
        opt("show-current", None, Takes::Nothing),
        opt("abbrev", None, Takes::Optional),
        opt("no-abbrev", None, Takes::Nothing),
        opt("omit-empty", None, Takes::Nothing),
        opt("quiet", Some('q'), Takes::Nothing),
    ];
    let allowed: Vec<Opt> = BRANCH.into_iter().chain(REF_FILTER).collect();
    let Some(operands) = operands_if_allowed(args, &allowed) else {
        return false;
    };
    operands.is_empty()
        || lists(
            args,
            &['l', 'v'],
            &[
                "list",
                "verbose",
                "contains",
                "no-contains",
                "merged",
                "no-merged",
                "points-at",
            ],
        )
}

/// `git tag` lists with no operand, `-l`/`--list`, `-n`, or a filter
/// (`--contains`, `--points-at`, …); `git tag NAME` creates a tag and
/// `-v` runs the signature program.
fn tag_is_listing(args: &[String]) -> bool {
    const TAG: [Opt; 3] = [
        opt("list", Some('l'), Takes::Nothing),
        opt("omit-empty", None, Takes::Nothing),
        // `-n<num>`: lines of the annotation.
        opt("", Some('n'), Takes::Optional),
    ];
    let allowed: Vec<Opt> = TAG.into_iter().chain(REF_FILTER).collect();
    let Some(operands) = operands_if_allowed(args, &allowed) else {
        return false;
    };
    operands.is_empty()
        || lists(
            args,
            &['l', 'n'],
            &[
                "list",
                "contains",
                "no-contains",
                "merged",
                "no-merged",
                "points-at",
            ],
        )
}

/// A listing option is present: a short one in a cluster, or a long one
/// (or its abbreviation) before `--`.
fn lists(args: &[String], short: &[char], long: &[&str]) -> bool {
    args.iter()
        .take_while(|a| *a != "--")
        .any(|a| match a.strip_prefix('-') {
            Some(cluster) if !cluster.starts_with('-') => cluster.contains(short),
            _ => long.iter().any(|o| long_opt(a, o)),
        })
}

/// `git grep` without `-O`/`--open-files-in-pager` (runs a program on the
/// matching files) and without `--textconv`; `--ext-grep` is refused too.
fn grep_is_read_only(args: &[String]) -> bool {
    !args.iter().any(|a| {
        long_opt(a, "open-files-in-pager")
            || long_opt(a, "textconv")
            || long_opt(a, "ext-grep")
            || a.strip_prefix('-')
                .is_some_and(|c| !c.starts_with('-') && c.contains('O'))
    })
}

/// `git remote`, `git remote -v`, `git remote get-url [--push|--all] NAME`.
fn remote_is_read_only(args: &[String]) -> bool {
    match args {
        [] => true,
        [flag] => flag == "-v" || flag == "--verbose",
        [sub, rest @ ..] if sub == "get-url" => {
            let flags = rest.iter().filter(|a| a.starts_with('-'));
            let names = rest.iter().filter(|a| !a.starts_with('-')).count();
            names == 1 && flags.clone().all(|a| a == "--push" || a == "--all")
        }
        _ => false,
    }
}

/// `git config` reading: `--get`, `--get-all`, `--get-regexp`, `--list`/`-l`
/// (or the `get`/`list` subcommands) with scope and type modifiers. Any
/// other form may set, unset, rename or edit (`-e` runs an editor).
fn config_is_read_only(args: &[String]) -> bool {
    const MODIFIERS: [Opt; 17] = [
        opt("global", None, Takes::Nothing),
        opt("system", None, Takes::Nothing),
        opt("local", None, Takes::Nothing),
        opt("worktree", None, Takes::Nothing),
        opt("file", Some('f'), Takes::Value),
        opt("blob", None, Takes::Value),
        opt("show-origin", None, Takes::Nothing),
        opt("show-scope", None, Takes::Nothing),
        opt("null", Some('z'), Takes::Nothing),
        opt("name-only", None, Takes::Nothing),
        opt("includes", None, Takes::Nothing),
        opt("no-includes", None, Takes::Nothing),
        opt("type", None, Takes::Value),
        opt("bool", None, Takes::Nothing),
        opt("int", None, Takes::Nothing),
        opt("path", None, Takes::Nothing),
        opt("default", None, Takes::Value),
    ];
    const GET_MODES: [&str; 4] = ["--get", "--get-all", "--get-regexp", "--list"];
    let (mode_given, rest): (bool, Vec<String>) = match args.split_first() {
        Some((sub, rest)) if sub == "get" || sub == "list" => (true, rest.to_vec()),
        _ => {
            let given = args
                .iter()
                .any(|a| a == "-l" || GET_MODES.contains(&a.as_str()));
            let rest = args
                .iter()
                .filter(|a| *a != "-l" && !GET_MODES.contains(&a.as_str()))
                .cloned()
                .collect();
            (given, rest)
        }
    };
    // Modifiers are matched exactly: an abbreviation could name a set form.
    mode_given
        && rest.iter().all(|a| {
            !a.starts_with('-')
                || MODIFIERS.iter().any(|o| {
                    let name = a.split_once('=').map_or(a.as_str(), |(n, _)| n);
                    name.strip_prefix("--") == Some(o.long)
                        || o.short.is_some_and(|s| name == format!("-{s}"))
                })
        })
        && operands_if_allowed(&rest, &MODIFIERS).is_some()
}

/// Options of a subcommand that name a program for git to run
/// (`push --receive-pack=CMD`, `clone -u CMD`, `rebase -x CMD`, …), or a
/// template whose hooks a new repository gets; git accepts any unique
/// prefix of a long option, so a prefix counts too.
pub(crate) fn sub_options_run_programs(sub: &str, args: &[String]) -> bool {
    let (long, short): (&[&str], &[char]) = match sub {
        "push" => (&["receive-pack", "exec"], &[]),
        "fetch" | "pull" | "ls-remote" => (&["upload-pack"], &[]),
        "clone" => (&["upload-pack", "template", "config"], &['u', 'c']),
        "init" => (&["template"], &[]),
        "archive" => (&["exec", "remote"], &[]),
        "rebase" => (&["exec"], &['x']),
        "difftool" | "mergetool" => (&["extcmd", "tool"], &['x', 't']),
        "grep" => (&["open-files-in-pager"], &['O']),
        "submodule" | "bisect" => return true,
        _ => return false,
    };
    args.iter().take_while(|a| a.as_str() != "--").any(|arg| {
        if let Some(body) = arg.strip_prefix("--") {
            let name = body.split_once('=').map_or(body, |(n, _)| n);
            !name.is_empty() && long.iter().any(|full| full.starts_with(name))
        } else if let Some(cluster) = arg.strip_prefix('-') {
            cluster
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .any(|c| short.contains(&c))
        } else {
            false
        }
    })
}
