//! The read-only allow-list (BASH-4).
//!
//! A subcommand is read-only only when its program is listed here and none of
//! its arguments is a form that writes a file, changes system state or runs
//! another program. Unknown programs, programs given by path and wrappers
//! (`time`, `env`, `xargs`, `sudo`, `bash -c`, …) are never read-only: a
//! wrong "no" costs one question, a wrong "yes" can destroy work.

use super::{AnalyzeOptions, git, sed};

/// Is this simple command (its words after quote removal, assignments
/// excluded) a known read-only form? `dynamic` marks words the shell expands
/// (their source text is in `words`); none is accepted yet.
pub(crate) fn is_read_only(words: &[String], dynamic: &[bool], _options: AnalyzeOptions) -> bool {
    if dynamic.iter().any(|d| *d) {
        return false;
    }
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    match program.as_str() {
        "ls" | "cat" | "head" | "wc" | "grep" | "egrep" | "fgrep" | "cut" | "tr" | "cmp"
        | "stat" | "du" | "df" | "pwd" | "echo" | "which" | "whoami" | "uname" | "basename"
        | "dirname" | "realpath" | "true" | "false" => true,
        "tail" => !args.iter().any(|a| {
            short_cluster_has(a, &['f', 'F'])
                || (a.starts_with('+') && a.contains(['f', 'F']))
                || long_opt(a, "follow")
        }),
        "rg" => !args.iter().any(|a| {
            short_cluster_has(a, &['z'])
                || ["pre", "pre-glob", "search-zip", "hostname-bin"]
                    .iter()
                    .any(|o| long_opt(a, o))
        }),
        "find" => !args.iter().any(|a| {
            a.starts_with("-exec")
                || a.starts_with("-ok")
                || a.starts_with("-fprint")
                || a == "-delete"
                || a == "-fls"
        }),
        "sed" => sed::is_read_only(args),
        "sort" => !args.iter().any(|a| {
            short_cluster_has(a, &['o']) || long_opt(a, "output") || long_opt(a, "compress-program")
        }),
        "uniq" => uniq_operands(args) <= 1,
        "diff" => !args.iter().any(|a| long_opt(a, "output")),
        "file" => !args
            .iter()
            .any(|a| short_cluster_has(a, &['C']) || long_opt(a, "compile")),
        "printf" => !args.iter().any(|a| a.starts_with("-v")),
        "date" => date_is_read_only(args),
        // `-o` writes the listing to a file; `-R` reruns tree with `-o`.
        "tree" => !args
            .iter()
            .any(|a| short_cluster_has(a, &['o', 'R']) || long_opt(a, "output")),
        "git" => git::is_read_only(args),
        _ => is_version_query(program, args),
    }
}

/// Programs that have read-only forms (a version query aside).
pub(crate) fn is_listed(program: &str) -> bool {
    matches!(
        program,
        "ls" | "cat"
            | "head"
            | "wc"
            | "grep"
            | "egrep"
            | "fgrep"
            | "cut"
            | "tr"
            | "cmp"
            | "stat"
            | "du"
            | "df"
            | "pwd"
            | "echo"
            | "which"
            | "whoami"
            | "uname"
            | "basename"
            | "dirname"
            | "realpath"
            | "true"
            | "false"
            | "tail"
            | "rg"
            | "find"
            | "sed"
            | "sort"
            | "uniq"
            | "diff"
            | "file"
            | "printf"
            | "date"
            | "tree"
            | "git"
    )
}

/// `--name`, `--name=value`, or an abbreviation of `--name` (getopt_long
/// accepts any unambiguous prefix, so `--out` may mean `--output`).
pub(crate) fn long_opt(arg: &str, full: &str) -> bool {
    let Some(body) = arg.strip_prefix("--") else {
        return false;
    };
    let name = body.split_once('=').map_or(body, |(n, _)| n);
    !name.is_empty() && full.starts_with(name)
}

/// A single-dash option cluster (`-nf`) containing one of `letters`.
fn short_cluster_has(arg: &str, letters: &[char]) -> bool {
    match arg.strip_prefix('-') {
        Some(cluster) if !cluster.starts_with('-') => cluster.contains(letters),
        _ => false,
    }
}

/// The number of file operands of `uniq` (a second one is the OUTPUT file).
fn uniq_operands(args: &[String]) -> usize {
    let mut operands = 0;
    let mut options_done = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if options_done || a == "-" || !a.starts_with('-') {
            operands += 1;
        } else if a == "--" {
            options_done = true;
        } else if a.starts_with("--") {
            let takes_value = ["skip-fields", "skip-chars", "check-chars"]
                .iter()
                .any(|o| long_opt(a, o));
            if takes_value && !a.contains('=') {
                i += 1;
            }
        } else if let Some(pos) = a[1..].find(['f', 's', 'w']) {
            // `-f N`: the value is the next word unless attached (`-f3`).
            if pos == a.len() - 2 {
                i += 1;
            }
        }
    }
    operands
}

/// `date` without `-s`/`--set` and without a positional operand (which sets
/// the clock); only `+FORMAT` operands are allowed.
fn date_is_read_only(args: &[String]) -> bool {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if a.starts_with('+') {
            continue;
        }
        if a.starts_with("--") {
            if long_opt(a, "set") {
                return false;
            }
            let takes_value = ["date", "file", "reference"].iter().any(|o| long_opt(a, o));
            if takes_value && !a.contains('=') {
                i += 1;
            }
            continue;
        }
        let Some(cluster) = a.strip_prefix('-').filter(|c| !c.is_empty()) else {
            return false;
        };
        for (pos, c) in cluster.char_indices() {
            match c {
                's' => return false,
                'd' | 'f' | 'r' => {
                    if pos + 1 == cluster.len() {
                        i += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    true
}

/// `cargo --version`, `node -v`, …: exactly one argument. (`go version` and
/// `rustup --version` are left out: they may download a toolchain.)
fn is_version_query(program: &str, args: &[String]) -> bool {
    let [arg] = args else {
        return false;
    };
    let arg = arg.as_str();
    match program {
        "cargo" | "rustc" | "python" | "python3" | "pip" | "pip3" => {
            matches!(arg, "--version" | "-V")
        }
        "node" | "npm" => matches!(arg, "--version" | "-v"),
        "gcc" | "clang" | "make" | "cmake" | "java" | "javac" => arg == "--version",
        _ => false,
    }
}
