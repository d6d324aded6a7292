//! The read-only allow-list (BASH-4).
//!
//! A subcommand is read-only only when its program is listed here and none of
//! its arguments is a form that writes a file, changes system state or runs
//! another program. Arguments are read the way the program reads them (see
//! `getopt`). Unknown programs, programs given by path and wrappers
//! (`time`, `env PROG`, `xargs`, `sudo`, `bash -c`, …) are never read-only: a
//! wrong "no" costs one question, a wrong "yes" can destroy work.
//!
//! A sandboxed judgment (`AnalyzeOptions::sandboxed`: the command runs with a
//! read-only filesystem, no network, no privilege) accepts more: words the
//! shell expands (globs, `$VAR`) for programs that no argument at all can
//! make write or run something, and programs that are harmless only inside
//! the sandbox (`cd`, `test`, `cargo tree`, …). Forms known to be dangerous
//! stay refused there too: the sandbox is a second wall, not the first.

use super::{AnalyzeOptions, awk, builtins, dev_tools, find, git, gnu_forms, sed, tool_forms};

/// Is this simple command (its words after quote removal, assignments
/// excluded) a known read-only form? `dynamic[i]`: word `i` is expanded by
/// the shell (its source text is in `words`); only a sandboxed judgment
/// accepts such words, and only where any expansion is harmless.
pub(crate) fn is_read_only(words: &[String], dynamic: &[bool], options: AnalyzeOptions) -> bool {
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    if dynamic.len() != words.len() {
        return false;
    }
    let is_dynamic = |i: usize| dynamic.get(i).copied().unwrap_or(true);
    let any_dynamic = (0..words.len()).any(is_dynamic);
    if is_dynamic(0) || (any_dynamic && !options.sandboxed) {
        return false;
    }
    let program = program.as_str();
    if reads_whatever_the_arguments(program) {
        return true;
    }
    let dynamic_args = dynamic.get(1..).unwrap_or(&[]);
    if options.sandboxed {
        if harmless_in_sandbox_whatever_the_arguments(program) {
            return true;
        }
        match program {
            "command" => return builtins::command_only_describes(args, dynamic_args),
            // Bash evaluates a subscript of `-v`/`-R` operands arithmetically,
            // running any command substitution in it.
            "test" | "[" => return builtins::test_evaluates_nothing(args, dynamic_args),
            _ => {}
        }
    }
    // The remaining forms depend on their exact words.
    if any_dynamic {
        return false;
    }
    match program {
        "tail" => gnu_forms::tail_is_read_only(args),
        "sort" => gnu_forms::sort_is_read_only(args),
        "uniq" => gnu_forms::uniq_is_read_only(args),
        "date" => gnu_forms::date_is_read_only(args),
        "file" => gnu_forms::file_is_read_only(args),
        "diff" => gnu_forms::diff_is_read_only(args),
        "find" => find::is_read_only(args),
        "sed" => sed::is_read_only(args),
        "rg" => tool_forms::rg_is_read_only(args),
        "tree" => tool_forms::tree_is_read_only(args),
        "xxd" => tool_forms::xxd_is_read_only(args),
        "hostname" => tool_forms::hostname_is_read_only(args),
        "printf" => builtins::printf_is_read_only(args),
        "free" => tool_forms::free_is_read_only(args),
        "awk" | "gawk" | "mawk" | "nawk" => awk::is_read_only(args),
        // `env` alone prints the environment; with arguments it runs a program.
        "env" => args.is_empty(),
        "git" => git::is_read_only(args, options),
        // A toolchain manager's shim (rustup, mise, asdf, volta, pyenv, …)
        // may stand for any program and runs the toolchain the repository
        // names (`rust-toolchain.toml`, `.tool-versions`), a version query
        // included: read-only only in the sandbox.
        _ => {
            options.sandboxed
                && (dev_tools::is_version_query(program, args)
                    || dev_tools::is_sandboxed_query(program, args))
        }
    }
}

/// Programs that no argument makes write a file, run a program, use the
/// network or change state (checked against their option lists): any
/// static arguments are read-only, and in the sandbox so is any expansion
/// (a glob matching a file named `--foo` is just another option of theirs).
/// Their arguments are not parsed: no reading of them changes the verdict,
/// an unknown option only makes the program fail.
fn reads_whatever_the_arguments(program: &str) -> bool {
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
            | "readlink"
            | "true"
            | "false"
            | "nl"
            | "tac"
            | "comm"
            | "column"
            | "id"
            | "printenv"
            | "ps"
            | "jq"
            | "md5sum"
            | "sha1sum"
            | "sha224sum"
            | "sha256sum"
            | "sha384sum"
            | "sha512sum"
            | "b2sum"
            | "cksum"
            | "seq"
            | "nproc"
            | "uptime"
            | "od"
            | "strings"
            | "hexdump"
    )
}

/// Shell builtins that only describe or move the shell's own working
/// directory (`test` and `[` are judged by their operands). Harmless with
/// any arguments, but judged read-only only in the sandbox: `cd` moves the later subcommands (`cd elsewhere && git status`
/// reads another repository's configuration, which may name programs), and
/// the strict list of builtins stays as it was.
fn harmless_in_sandbox_whatever_the_arguments(program: &str) -> bool {
    matches!(program, "cd" | "type")
}

/// Programs that have read-only forms (a version query aside).
pub(crate) fn is_listed(program: &str) -> bool {
    reads_whatever_the_arguments(program)
        || harmless_in_sandbox_whatever_the_arguments(program)
        || matches!(
            program,
            "tail"
                | "sort"
                | "uniq"
                | "date"
                | "file"
                | "diff"
                | "find"
                | "sed"
                | "rg"
                | "tree"
                | "xxd"
                | "hostname"
                | "printf"
                | "git"
                | "test"
                | "["
                | "free"
                | "awk"
                | "gawk"
                | "mawk"
                | "nawk"
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

#[cfg(test)]
#[path = "readonly_tests.rs"]
mod tests;
