//! Rules suggested for "always allow" (BASH-7).
//!
//! Each non-read-only subcommand gets a stable prefix rule `prefix:*`: the
//! program plus its subcommand words (`git commit`, `npm run build`,
//! `python -m pytest`), stopping at the first flag, path, value or quoted
//! word. When that is not possible or not prudent the suggestion is the
//! whole command verbatim: programs that run other programs, run code from
//! their arguments or move data over the network, git subcommands that run
//! configured programs, build tools without a target, package runners
//! whose package is itself a shell, interpreter or wrapper, and commands
//! that run, install or send whatever their arguments name (`go run`,
//! `npm install`, `pip install`, `git push`, `gh api`, `docker run`),
//! recognised through each program's aliases (`npm i`, `docker container
//! run`, `python -m pip`).

use super::cli;
use super::invocation;
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
    if program.is_empty() || is_verbatim_only(base) || !is_plain(program, true) {
        return None;
    }
    // A normally read-only tool that is not read-only here is so because of
    // a dangerous argument (`find -delete`, `sed -i`, `git branch -D`); its
    // bare prefix would allow that form for good.
    let git_write_sub = base == "git" && !is_git_read_only_sub(words.get(1));
    if base == "git" && words.get(1).is_some_and(|w| git_runs_code(w)) {
        return None;
    }
    if readonly::is_listed(base) && !git_write_sub {
        return None;
    }
    // A rule would not cover an option that chooses what runs (`cargo
    // test --config …`): only the command itself is offered.
    if runs_whatever_is_named(words) || invocation::changes_what_runs(words) {
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
    // A runner's program (`npx bash`, `uv run python`) decides what runs.
    let last = &words[len - 1];
    if len > 1 && (is_verbatim_only(last) || is_interpreter(last)) {
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
            "run" | "run-script" | "exec" | "x" | "dlx" => (3, 3),
            _ => (2, 2),
        },
        "yarn" => match second {
            "run" | "exec" | "dlx" | "workspace" => (3, 3),
            _ => (2, 2),
        },
        "docker" | "podman" => match second {
            "compose" | "container" | "image" | "network" | "volume" | "system" | "buildx"
            | "context" | "builder" | "plugin" | "secret" | "service" | "stack" | "swarm"
            | "node" | "config" | "manifest" | "trust" => (3, 3),
            _ => (2, 2),
        },
        // `uv tool run X` names its package one word later.
        "uv" if second == "tool" && words.get(2).is_some_and(|w| w == "run") => (4, 4),
        "uv" | "poetry" | "pdm" | "hatch" | "bundle" | "pipenv" | "pipx" | "conda" | "pixi" => {
            match second {
                "run" | "exec" | "pip" | "tool" => (3, 3),
                _ => (2, 2),
            }
        }
        "deno" => match second {
            "run" | "task" => (3, 3),
            _ => (2, 2),
        },
        "rustup" => match second {
            "toolchain" | "target" | "component" | "override" | "self" => (3, 3),
            _ => (2, 2),
        },
        "gh" | "aws" | "az" => (3, 2),
        "git" | "cargo" | "go" | "kubectl" | "helm" | "terraform" | "tofu" | "pip" | "pip3"
        | "npx" | "pnpx" | "bunx" | "uvx" | "brew" | "dotnet" | "systemctl" | "docker-compose"
        | "apt" | "apt-get" | "cmake" | "mix" | "rake" | "composer" | "nx" | "turbo" => (2, 2),
        // Without a target a build tool's prefix would allow every target.
        "make" | "just" | "gradle" | "gradlew" | "mvn" | "mvnw" | "ninja" => (2, 2),
        _ if is_python(base) => match second {
            "-m" => (3, 3),
            _ => (3, 2),
        },
        _ if is_interpreter(base) => (3, 2),
        _ => (1, 1),
    }
}

/// Subcommands that run or install whatever their arguments name, or send
/// anything over the network: a prefix rule would allow every one of them.
fn runs_whatever_is_named(words: &[String]) -> bool {
    let Some(reading) = cli::read(words) else {
        return false;
    };
    let mut positionals = reading.path.iter().chain(&reading.operands).copied();
    let first = positionals.next().unwrap_or("");
    let second = positionals.next().unwrap_or("");
    match reading.program {
        "go" => matches!(first, "run" | "install" | "get"),
        "npm" | "pnpm" | "yarn" | "bun" => matches!(
            first,
            "install" | "add" | "install-test" | "update" | "upgrade" | "global"
        ),
        "pip" | "gem" | "cargo" | "brew" | "pipx" => matches!(first, "install" | "download"),
        "uv" => first == "pip" && second == "install",
        "git" => first == "push",
        "gh" => first == "api",
        "docker" | "podman" => matches!(first, "run" | "exec" | "create"),
        "kubectl" => matches!(first, "exec" | "run" | "debug" | "attach"),
        _ => false,
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

/// Programs offered only verbatim: a prefix rule for them would allow far
/// more than the command shown.
fn is_verbatim_only(base: &str) -> bool {
    is_destructive(base)
        || runs_other_programs(base)
        || runs_code_from_arguments(base)
        || uses_the_network(base)
}

/// They delete, change permissions or ownership, wipe disks, or signal
/// processes.
fn is_destructive(base: &str) -> bool {
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
            | "crontab"
            | "at"
            | "batch"
    ) || base.starts_with("mkfs")
}

/// Shells, wrappers, launchers, multiplexers, schedulers and privilege
/// changers: their arguments name another program to run.
fn runs_other_programs(base: &str) -> bool {
    matches!(
        base,
        "sh" | "bash"
            | "zsh"
            | "dash"
            | "ksh"
            | "mksh"
            | "yash"
            | "ash"
            | "fish"
            | "csh"
            | "tcsh"
            | "nu"
            | "elvish"
            | "xonsh"
            | "pwsh"
            | "powershell"
            | "busybox"
            | "toybox"
            | "sudo"
            | "doas"
            | "su"
            | "runuser"
            | "pkexec"
            | "setpriv"
            | "capsh"
            | "sg"
            | "newgrp"
            | "eval"
            | "exec"
            | "source"
            | "."
            | "builtin"
            | "command"
            | "trap"
            | "!"
            | "xargs"
            | "parallel"
            | "env"
            | "nohup"
            | "time"
            | "nice"
            | "ionice"
            | "renice"
            | "chrt"
            | "taskset"
            | "numactl"
            | "cgexec"
            | "timeout"
            | "stdbuf"
            | "unbuffer"
            | "setsid"
            | "flock"
            | "chroot"
            | "unshare"
            | "nsenter"
            | "firejail"
            | "bwrap"
            | "proot"
            | "fakeroot"
            | "faketime"
            | "torsocks"
            | "proxychains"
            | "proxychains4"
            | "systemd-run"
            | "systemd-nspawn"
            | "dbus-launch"
            | "dbus-run-session"
            | "ssh-agent"
            | "xvfb-run"
            | "tmux"
            | "screen"
            | "script"
            | "expect"
            | "watch"
            | "entr"
            | "nodemon"
            | "hyperfine"
            | "strace"
            | "ltrace"
            | "valgrind"
            | "perf"
            | "gdb"
            | "lldb"
            | "rr"
            | "direnv"
            | "nix-shell"
            | "cross-env"
            | "env-cmd"
            | "dotenv"
            | "concurrently"
            | "npm-run-all"
            | "run-p"
            | "run-s"
    )
}

/// Programs that run code given in their arguments or input: text
/// processors with a language, editors, database shells with a shell
/// escape.
fn runs_code_from_arguments(base: &str) -> bool {
    matches!(
        base,
        "awk"
            | "gawk"
            | "mawk"
            | "nawk"
            | "busybox-awk"
            | "vim"
            | "vi"
            | "nvim"
            | "view"
            | "ex"
            | "ed"
            | "emacs"
            | "nano"
            | "less"
            | "more"
            | "man"
            | "sqlite3"
            | "duckdb"
            | "psql"
            | "mysql"
            | "mariadb"
    )
}

/// Programs that move data over the network, or can (tar reads remote
/// archives and runs `--to-command`; zip runs `-TT`).
fn uses_the_network(base: &str) -> bool {
    matches!(
        base,
        "curl"
            | "wget"
            | "aria2c"
            | "http"
            | "https"
            | "xh"
            | "ssh"
            | "scp"
            | "sftp"
            | "ftp"
            | "lftp"
            | "rsync"
            | "rclone"
            | "mosh"
            | "nc"
            | "ncat"
            | "netcat"
            | "socat"
            | "telnet"
            | "tar"
            | "zip"
    )
}

/// git subcommands that run a program given on the command line or in the
/// configuration, or change the configuration (aliases, pagers, hooks).
fn git_runs_code(sub: &str) -> bool {
    matches!(
        sub,
        "config"
            | "submodule"
            | "bisect"
            | "rebase"
            | "filter-branch"
            | "filter-repo"
            | "difftool"
            | "mergetool"
            | "daemon"
            | "instaweb"
            | "send-email"
            | "archive"
            | "hook"
            | "shell"
            | "web--browse"
            | "upload-pack"
            | "receive-pack"
    ) || sub.starts_with("credential")
}
