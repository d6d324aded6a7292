//! `npm`, `pnpm` and `yarn`: where the subcommand is behind global options
//! (BASH-5).
//!
//! These programs accept configuration options anywhere on the line
//! (`npm --registry=x publish`, `npm -g publish`, `npm --prefix x publish`),
//! and whether an option takes the next word as its value depends on a
//! type table that differs between programs and versions. So every word
//! that could be the subcommand is offered as one.

use super::readonly::long_opt;

/// Programs handled here.
pub(crate) fn is_package_manager(program: &str) -> bool {
    matches!(program, "npm" | "pnpm" | "yarn")
}

/// The positions in `args` (the words after the program) where the
/// subcommand may start: the first word that is not an option, and each
/// later one that every earlier non-option word could be the value of an
/// option (`--prefix x publish`: `x` or `publish`).
pub(crate) fn subcommand_starts(args: &[String]) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut prev_takes_value = false;
    for (i, arg) in args.iter().enumerate() {
        if arg == "--" {
            if i + 1 < args.len() {
                starts.push(i + 1);
            }
            break;
        }
        if arg.starts_with('-') && arg.len() > 1 {
            prev_takes_value = !arg.contains('=');
            continue;
        }
        starts.push(i);
        if !prev_takes_value {
            break;
        }
        prev_takes_value = false;
    }
    starts
}

/// An option that changes which program or configuration runs the
/// command (a script shell, node options, another user or global config):
/// only a verbatim rule may allow such a command. Config options accept
/// unambiguous abbreviations.
pub(crate) fn changes_what_runs(args: &[String]) -> bool {
    args.iter().take_while(|a| *a != "--").any(|a| {
        [
            "script-shell",
            "node-options",
            "userconfig",
            "globalconfig",
            "shell",
            "editor",
            "browser",
            "git",
            "node-gyp",
        ]
        .iter()
        .any(|o| a.len() > 3 && long_opt(a, o))
    })
}
