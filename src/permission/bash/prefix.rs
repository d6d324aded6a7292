//! Rules suggested for "always allow" (BASH-7).
//!
//! Each non-read-only subcommand gets a stable prefix rule `prefix:*`: the
//! program plus its subcommand words (`git commit`, `npm run build`,
//! `python -m pytest`), stopping at the first flag, path, value or quoted
//! word. When that is not possible or not prudent the suggestion is the
//! whole command verbatim.

use super::readonly;
use super::{BashAnalysis, Subcommand};
use crate::permission::rules::content_matches;

/// More distinct prefix rules than this fall back to the verbatim command.
pub const MAX_PREFIX_RULES: usize = 5;

pub fn suggest_rules(analysis: &BashAnalysis) -> Vec<String> {
    let command = analysis.command.trim();
    if analysis.read_only || command.is_empty() {
        return Vec::new();
    }
    let verbatim = || vec![command.to_string()];
    if !analysis.safe_parse {
        return verbatim();
    }
    let mut rules: Vec<String> = Vec::new();
    for sub in analysis.subcommands.iter().filter(|s| !s.read_only) {
        let Some(rule) = prefix_rule(sub) else {
            return verbatim();
        };
        if !rules.contains(&rule) {
            rules.push(rule);
            if rules.len() > MAX_PREFIX_RULES {
                return verbatim();
            }
        }
    }
    if rules.is_empty() {
        return verbatim();
    }
    rules
}

/// `prefix:*` for one subcommand, or `None` when only the verbatim command
/// is a prudent suggestion.
fn prefix_rule(sub: &Subcommand) -> Option<String> {
    if sub.has_assignments {
        return None;
    }
    let words = &sub.words;
    let program = words.first()?;
    let base = program.rsplit('/').next().unwrap_or(program);
    if program.is_empty() || is_high_risk(base) || !is_plain(program, true) {
        return None;
    }
    // A normally read-only tool that is not read-only here is so because of
    // a dangerous argument (`find -delete`, `sed -i`, `git branch -D`); its
    // bare prefix would allow that form for good.
    let git_write_sub = base == "git" && !is_git_read_only_sub(words.get(1));
    if readonly::is_listed(base) && !git_write_sub {
        return None;
    }
    let (depth, min) = shape(base, words);
    let mut len = 1;
    while len < depth && len < words.len() {
        let word = &words[len];
        let plain = if len == 1 && is_interpreter(base) {
            is_plain(word, true) || word == "-m"
        } else {
            is_plain(word, false)
        };
        if !plain {
            break;
        }
        len += 1;
    }
    if len < min {
        return None;
    }
    let rule = format!("{}:*", words[..len].join(" "));
    // The rule must match the subcommand it was made from (it is compared
    // with the source text, so quoting or a leading redirection defeats it).
    content_matches(&sub.text, &rule).then_some(rule)
}

/// How many words (program included) make a prefix, and how many at least.
fn shape(base: &str, words: &[String]) -> (usize, usize) {
    let second = words.get(1).map_or("", String::as_str);
    match base {
        "npm" | "pnpm" | "bun" => match second {
            "run" | "run-script" | "exec" | "x" => (3, 3),
            _ => (2, 2),
        },
        "yarn" => match second {
            "run" | "exec" | "dlx" | "workspace" => (3, 3),
            _ => (2, 1),
        },
        "docker" | "podman" => match second {
            "compose" | "container" | "image" | "network" | "volume" | "system" | "buildx"
            | "context" | "builder" | "plugin" | "secret" | "service" | "stack" | "swarm"
            | "node" | "config" | "manifest" | "trust" => (3, 3),
            _ => (2, 2),
        },
        "uv" | "poetry" | "pdm" | "hatch" | "bundle" | "pipenv" => match second {
            "run" | "exec" | "pip" | "tool" => (3, 3),
            _ => (2, 2),
        },
        "rustup" => match second {
            "toolchain" | "target" | "component" | "override" | "self" => (3, 3),
            _ => (2, 2),
        },
        "gh" | "aws" | "az" => (3, 2),
        "git" | "cargo" | "go" | "kubectl" | "helm" | "terraform" | "tofu" | "pip" | "pip3"
        | "npx" | "pnpx" | "bunx" | "brew" | "dotnet" | "deno" | "systemctl" | "docker-compose"
        | "apt" | "apt-get" | "cmake" | "mix" | "rake" | "composer" | "nx" | "turbo" => (2, 2),
        "make" | "just" | "gradle" | "gradlew" | "mvn" | "mvnw" | "ninja" => (2, 1),
        _ if is_python(base) => match second {
            "-m" => (3, 3),
            _ => (3, 2),
        },
        _ if is_interpreter(base) => (3, 2),
        _ => (1, 1),
    }
}

fn is_python(base: &str) -> bool {
    base == "python" || base.starts_with("python2") || base.starts_with("python3")
}

/// Programs whose first argument is a script to run; without one (`-c`,
/// `-e`, a REPL) only the verbatim command is suggested.
fn is_interpreter(base: &str) -> bool {
    is_python(base) || matches!(base, "node" | "ruby" | "perl" | "php" | "tsx" | "ts-node")
}

fn is_git_read_only_sub(sub: Option<&String>) -> bool {
    sub.is_some_and(|s| {
        matches!(
            s.as_str(),
            "status"
                | "log"
                | "diff"
                | "show"
                | "branch"
                | "rev-parse"
                | "ls-files"
                | "blame"
                | "remote"
        )
    })
}

/// A word that can be part of a prefix: no flag, value, quoting-needing or
/// glob character; paths only where `path_ok` (a program or a script).
fn is_plain(word: &str, path_ok: bool) -> bool {
    let Some(first) = word.chars().next() else {
        return false;
    };
    if word.len() > 64
        || !(first.is_ascii_alphanumeric() || (path_ok && matches!(first, '.' | '/' | '_')))
    {
        return false;
    }
    word.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || matches!(c, '-' | '_' | '.' | ':' | '@' | '+')
            || (path_ok && c == '/')
    })
}

/// Programs for which a prefix rule is too broad: they delete, change
/// permissions or ownership, wipe disks, signal processes, or run an
/// arbitrary other command (shells, wrappers, privilege changes).
fn is_high_risk(base: &str) -> bool {
    matches!(
        base,
        "rm" | "rmdir"
            | "shred"
            | "dd"
            | "chmod"
            | "chown"
            | "chgrp"
            | "chattr"
            | "fdisk"
            | "sfdisk"
            | "parted"
            | "wipefs"
            | "mount"
            | "umount"
            | "kill"
            | "killall"
            | "pkill"
            | "reboot"
            | "shutdown"
            | "halt"
            | "poweroff"
            | "sh"
            | "bash"
            | "zsh"
            | "dash"
            | "ksh"
            | "fish"
            | "csh"
            | "tcsh"
            | "sudo"
            | "doas"
            | "su"
            | "runuser"
            | "pkexec"
            | "eval"
            | "exec"
            | "source"
            | "."
            | "builtin"
            | "command"
            | "xargs"
            | "parallel"
            | "env"
            | "nohup"
            | "time"
            | "nice"
            | "ionice"
            | "timeout"
            | "stdbuf"
            | "setsid"
            | "chroot"
            | "unshare"
            | "nsenter"
            | "watch"
            | "strace"
            | "ltrace"
            | "gdb"
            | "script"
            | "expect"
            | "ssh"
            | "awk"
            | "gawk"
            | "mawk"
            | "nawk"
            | "crontab"
            | "trap"
            | "!"
    ) || base.starts_with("mkfs")
}
