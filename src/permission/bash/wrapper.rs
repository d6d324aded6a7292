//! Programs that run another program given on their command line
//! (`sudo`, `timeout 5`, `nice -n5`, `xargs -0`, …) and their own options,
//! so that the wrapped program is found (BASH-5).
//!
//! The option tables follow each tool's getopt string. An option a table
//! does not know makes the wrapped program unknown: the caller then treats
//! every later word as a possible program start, so a missing entry costs
//! precision, never a missed rule.

/// What follows a wrapper's options and operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rest {
    /// A program and its arguments.
    Program,
    /// A program, and also its words joined as one shell command (`watch`).
    ProgramAndShell,
    /// Not a program at a known place (`su USER ARGS…` passes them to a
    /// shell): every word may start one.
    AnyWord,
}

pub(crate) struct Wrapper {
    /// Short options that take a value (attached or the next word).
    short_value: &'static str,
    /// Short options whose value may only be attached (`xargs -i{}`).
    short_optional: &'static str,
    short_flags: &'static str,
    /// Short options whose value is a shell command (`su -c CMD`).
    short_shell: &'static str,
    long_value: &'static [&'static str],
    /// Long options without a value or with an optional `=value`.
    long_flags: &'static [&'static str],
    long_shell: &'static [&'static str],
    /// Positional words before the program (`timeout DURATION`).
    operands: usize,
    /// The operand is left out when the word is not a number (`chrt`
    /// policies without a priority).
    operand_numeric: bool,
    /// `NAME=VALUE` words before the program (`sudo A=1 prog`).
    assignments: bool,
    /// `-5`: a number as an option (`nice`).
    numeric_flags: bool,
    /// `flock FILE -c CMD`.
    shell_after_operands: bool,
    pub rest: Rest,
}

const NONE: Wrapper = Wrapper {
    short_value: "",
    short_optional: "",
    short_flags: "",
    short_shell: "",
    long_value: &[],
    long_flags: &["help", "version"],
    long_shell: &[],
    operands: 0,
    operand_numeric: false,
    assignments: false,
    numeric_flags: false,
    shell_after_operands: false,
    rest: Rest::Program,
};

const SU_LONG_VALUE: &[&str] = &["group", "supp-group", "shell", "whitelist-environment"];
const SU_LONG_FLAGS: &[&str] = &[
    "fast",
    "login",
    "preserve-environment",
    "pty",
    "help",
    "version",
];

/// The option table of a wrapper program (by its basename).
pub(crate) fn spec(program: &str) -> Option<&'static Wrapper> {
    Some(match program {
        "sudo" => &Wrapper {
            short_value: "aCcDgpRrTtUu",
            short_optional: "h",
            short_flags: "ABbEeHiKklNnPSsVv",
            long_value: &[
                "auth-type",
                "close-from",
                "login-class",
                "chdir",
                "group",
                "prompt",
                "chroot",
                "role",
                "type",
                "command-timeout",
                "other-user",
                "user",
            ],
            long_flags: &[
                "host",
                "preserve-env",
                "askpass",
                "bell",
                "background",
                "edit",
                "set-home",
                "help",
                "login",
                "remove-timestamp",
                "reset-timestamp",
                "list",
                "non-interactive",
                "no-update",
                "preserve-groups",
                "stdin",
                "shell",
                "version",
                "validate",
            ],
            assignments: true,
            ..NONE
        },
        "doas" => &Wrapper {
            short_value: "aCu",
            short_flags: "Lns",
            ..NONE
        },
        "nice" => &Wrapper {
            short_value: "n",
            long_value: &["adjustment"],
            numeric_flags: true,
            ..NONE
        },
        // `-p`, `-P`, `-u` take process ids instead of a program: unknown.
        "ionice" => &Wrapper {
            short_value: "cn",
            short_flags: "thV",
            long_value: &["class", "classdata"],
            long_flags: &["ignore", "help", "version"],
            ..NONE
        },
        "timeout" => &Wrapper {
            short_value: "ks",
            short_flags: "v",
            long_value: &["kill-after", "signal"],
            long_flags: &[
                "foreground",
                "preserve-status",
                "verbose",
                "help",
                "version",
            ],
            operands: 1,
            ..NONE
        },
        "stdbuf" => &Wrapper {
            short_value: "ioe",
            long_value: &["input", "output", "error"],
            ..NONE
        },
        "nohup" | "builtin" | "!" => &NONE,
        // `env -S STRING`: the string is split into env's arguments, read
        // here as a shell command (its program is found either way).
        "env" => &Wrapper {
            short_value: "uC",
            short_flags: "i0v",
            short_shell: "S",
            long_value: &["unset", "chdir"],
            long_flags: &[
                "ignore-environment",
                "null",
                "debug",
                "list-signal-handling",
                "block-signal",
                "default-signal",
                "ignore-signal",
                "help",
                "version",
            ],
            long_shell: &["split-string"],
            assignments: true,
            ..NONE
        },
        "setsid" => &Wrapper {
            short_flags: "cfw",
            long_flags: &["ctty", "fork", "wait", "help", "version"],
            ..NONE
        },
        // `-p` (a process id) and `-m` (print limits) are left unknown.
        "chrt" => &Wrapper {
            short_value: "DPT",
            short_flags: "abdefiorRvV",
            long_value: &["sched-runtime", "sched-period", "sched-deadline"],
            long_flags: &[
                "all-tasks",
                "batch",
                "deadline",
                "ext",
                "fifo",
                "idle",
                "other",
                "rr",
                "reset-on-fork",
                "verbose",
                "help",
                "version",
            ],
            operands: 1,
            operand_numeric: true,
            ..NONE
        },
        "taskset" => &Wrapper {
            short_flags: "acV",
            long_flags: &["all-tasks", "cpu-list", "help", "version"],
            operands: 1,
            ..NONE
        },
        "flock" => &Wrapper {
            short_value: "wE",
            short_flags: "sexnoFuhV",
            short_shell: "c",
            long_value: &["timeout", "wait", "conflict-exit-code"],
            long_flags: &[
                "shared",
                "exclusive",
                "unlock",
                "nonblock",
                "nb",
                "close",
                "no-fork",
                "verbose",
                "help",
                "version",
            ],
            long_shell: &["command"],
            operands: 1,
            shell_after_operands: true,
            ..NONE
        },
        "time" => &Wrapper {
            short_value: "fo",
            short_flags: "apqvV",
            long_value: &["format", "output"],
            long_flags: &[
                "append",
                "portability",
                "quiet",
                "verbose",
                "help",
                "version",
            ],
            ..NONE
        },
        "command" => &Wrapper {
            short_flags: "pvV",
            ..NONE
        },
        "exec" => &Wrapper {
            short_value: "a",
            short_flags: "cl",
            ..NONE
        },
        "xargs" => &Wrapper {
            short_value: "aEILnsPd",
            short_optional: "eil",
            short_flags: "0prtxo",
            long_value: &[
                "arg-file",
                "delimiter",
                "max-args",
                "max-procs",
                "max-chars",
                "process-slot-var",
            ],
            long_flags: &[
                "null",
                "interactive",
                "no-run-if-empty",
                "verbose",
                "exit",
                "show-limits",
                "open-tty",
                "max-lines",
                "replace",
                "eof",
                "help",
                "version",
            ],
            ..NONE
        },
        "watch" => &Wrapper {
            short_value: "nqs",
            short_optional: "d",
            short_flags: "bceghprtwvxC",
            long_value: &["interval", "equexit", "shotsdir"],
            long_flags: &[
                "differences",
                "beep",
                "color",
                "no-color",
                "errexit",
                "chgexit",
                "precise",
                "no-rerun",
                "no-title",
                "no-wrap",
                "exec",
                "help",
                "version",
            ],
            rest: Rest::ProgramAndShell,
            ..NONE
        },
        "su" => &Wrapper {
            short_value: "gGsw",
            short_flags: "flmpPhV",
            short_shell: "c",
            long_value: SU_LONG_VALUE,
            long_flags: SU_LONG_FLAGS,
            long_shell: &["command", "session-command"],
            rest: Rest::AnyWord,
            ..NONE
        },
        "runuser" => &Wrapper {
            short_value: "gGswu",
            short_flags: "flmpPhV",
            short_shell: "c",
            long_value: &[
                "group",
                "supp-group",
                "shell",
                "whitelist-environment",
                "user",
            ],
            long_flags: SU_LONG_FLAGS,
            long_shell: &["command", "session-command"],
            rest: Rest::AnyWord,
            ..NONE
        },
        "chroot" => &Wrapper {
            long_value: &["userspec", "groups"],
            long_flags: &["skip-chdir", "help", "version"],
            operands: 1,
            ..NONE
        },
        _ => return None,
    })
}

/// Where a wrapper's program starts, and the shell commands its options
/// carry.
pub(crate) struct Parsed<'a> {
    /// Index into `args` of the wrapped program; `None` when an option is
    /// unknown (the caller then looks at every word).
    pub program: Option<usize>,
    pub shell_commands: Vec<&'a str>,
}

/// Resolves `--name` against option tables: the index of the table that
/// has it, exactly or as the one option it abbreviates (getopt_long).
pub(crate) fn resolve_long(name: &str, tables: &[&[&str]]) -> Option<usize> {
    if name.is_empty() {
        return None;
    }
    let mut found = None;
    let mut count = 0;
    for (t, table) in tables.iter().enumerate() {
        for option in table.iter() {
            if *option == name {
                return Some(t);
            }
            if option.starts_with(name) {
                found = Some(t);
                count += 1;
            }
        }
    }
    found.filter(|_| count == 1)
}

pub(crate) fn parse<'a>(spec: &Wrapper, args: &'a [String]) -> Parsed<'a> {
    let mut shell_commands = Vec::new();
    let unknown = |shell_commands| Parsed {
        program: None,
        shell_commands,
    };
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let arg = arg.as_str();
        if arg == "--" {
            i += 1;
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        i += 1;
        if let Some(body) = arg.strip_prefix("--") {
            let (name, attached) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (body, None),
            };
            match resolve_long(name, &[spec.long_value, spec.long_flags, spec.long_shell]) {
                Some(1) => {}
                Some(table) => {
                    let value = match attached {
                        Some(v) => Some(v),
                        None => {
                            i += 1;
                            args.get(i - 1).map(String::as_str)
                        }
                    };
                    if table == 2 {
                        shell_commands.extend(value);
                    }
                }
                None => return unknown(shell_commands),
            }
            continue;
        }
        let cluster = &arg[1..];
        if spec.numeric_flags && cluster.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        for (pos, c) in cluster.char_indices() {
            let after = &cluster[pos + c.len_utf8()..];
            let takes_value = spec.short_value.contains(c) || spec.short_shell.contains(c);
            if takes_value {
                let value = if after.is_empty() {
                    i += 1;
                    args.get(i - 1).map(String::as_str)
                } else {
                    Some(after)
                };
                if spec.short_shell.contains(c) {
                    shell_commands.extend(value);
                }
                break;
            }
            if spec.short_optional.contains(c) {
                break;
            }
            if !spec.short_flags.contains(c) {
                return unknown(shell_commands);
            }
        }
    }
    for _ in 0..spec.operands {
        match args.get(i) {
            Some(w) if spec.operand_numeric && !w.bytes().all(|b| b.is_ascii_digit()) => {}
            Some(_) => i += 1,
            None => {}
        }
    }
    if spec.shell_after_operands && args.get(i).is_some_and(|w| w == "-c" || w == "--command") {
        shell_commands.extend(args.get(i + 1).map(String::as_str));
        return Parsed {
            program: Some(args.len()),
            shell_commands,
        };
    }
    if spec.assignments {
        while args.get(i).is_some_and(|w| is_assignment(w)) {
            i += 1;
        }
    }
    Parsed {
        program: Some(i),
        shell_commands,
    }
}

/// `NAME=VALUE` with a shell variable name.
pub(crate) fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        let mut chars = name.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}
