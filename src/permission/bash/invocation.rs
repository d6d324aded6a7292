//! What programs one subcommand may run (BASH-5), for deny and ask rules.
//!
//! A deny or ask rule applies wherever its program would run: named by a
//! path (`/bin/rm`), behind a wrapper (`sudo`, `timeout 5`, `xargs`, …),
//! inside a shell string (`bash -c`, `eval`, `env -S`, `su -c`, a git
//! alias), after `find -exec`, or behind global options (`git -C . push`,
//! `npm --prefix x publish`). A program this module does not know is
//! assumed to run any of its later words; what cannot be analysed is kept
//! as opaque text, in which a rule applies when it names its program.

use super::cli_tables::CommandKind;
use super::wrapper::{self, Rest};
use super::{AnalyzeOptions, analyze, cli, git, readonly};

/// How deep wrappers and shell strings are followed; deeper nesting is
/// opaque.
const MAX_DEPTH: usize = 8;
/// How many candidate programs one subcommand may yield; past that the
/// subcommand is opaque.
const MAX_RUNS: usize = 512;
/// How many bytes those candidates may hold together (a long unknown
/// command's suffixes grow quadratically).
const MAX_RUN_BYTES: usize = 256 * 1024;

/// The programs a subcommand may run.
#[derive(Debug, Default)]
pub(crate) struct Invocations {
    /// Each candidate program with its arguments, joined by single spaces;
    /// the program is reduced to its basename (`/bin/rm -rf x` is also
    /// `rm -rf x`).
    pub runs: Vec<String>,
    /// Text that could not be analysed (an unsafe shell string, a git alias
    /// value, too deep a nesting).
    pub opaque: Vec<String>,
    /// Programs for which every deny or ask rule applies, because what they
    /// run is unseen (git with an alias or `--config-env`).
    pub any_rule_of: Vec<&'static str>,
    /// A shell reads its commands from its input (`… | sh`, `bash -s`) or
    /// from the words xargs or find put in (`sh -c {}`): the rest of the
    /// command line may be its script.
    pub runs_input: bool,
}

/// The programs that `words` (one subcommand, after quote removal) may run.
pub(crate) fn collect(words: &[String]) -> Invocations {
    let mut walker = Walker::default();
    walker.program(words, 0, false);
    walker.out
}

/// An option changes which programs or configuration the subcommand's own
/// program uses (`git -c …`, `git --git-dir …`, `npm --script-shell …`,
/// `cargo --config …`, `make SHELL=…`, `go test -exec …`; see `cli`): only
/// a rule naming the whole command verbatim may allow it.
pub(crate) fn changes_what_runs(words: &[String]) -> bool {
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    let base = basename(program);
    match base {
        "git" => {
            let globals = git::split_global_options(args);
            globals.changes_what_runs
                || globals.unknown_option
                || globals
                    .rest
                    .split_first()
                    .is_some_and(|(sub, rest)| git::sub_options_run_programs(sub, rest))
        }
        _ => cli::chooses_program(words),
    }
}

#[derive(Default)]
struct Walker {
    out: Invocations,
    run_bytes: usize,
}

/// Programs that read a command from a `-c` string.
fn is_shell(program: &str) -> bool {
    matches!(
        program,
        "sh" | "bash"
            | "zsh"
            | "dash"
            | "ksh"
            | "mksh"
            | "pdksh"
            | "ash"
            | "yash"
            | "rbash"
            | "fish"
            | "csh"
            | "tcsh"
    )
}

pub(crate) use super::cli::basename;

/// Directories whose programs are the system's own: `/usr/bin/grep` is
/// grep, `./grep` may be anything.
fn in_system_dir(program: &str) -> bool {
    match program.rsplit_once('/') {
        None => true,
        Some((dir, _)) => matches!(
            dir,
            "/bin" | "/usr/bin" | "/usr/local/bin" | "/sbin" | "/usr/sbin" | "/usr/local/sbin"
        ),
    }
}

/// A word a shell would split or interpret (`'rm -rf x'`, `a;b`).
fn looks_like_shell(word: &str) -> bool {
    word.contains([' ', '\t', '\n', ';', '&', '|', '`', '$', '(', '<', '>'])
}

impl Walker {
    fn full(&self) -> bool {
        self.out.runs.len() >= MAX_RUNS || self.run_bytes >= MAX_RUN_BYTES
    }

    fn push_run(&mut self, program: &str, args: &[String]) {
        let mut run =
            String::with_capacity(program.len() + args.iter().map(|a| a.len() + 1).sum::<usize>());
        run.push_str(program);
        for arg in args {
            run.push(' ');
            run.push_str(arg);
        }
        self.run_bytes += run.len();
        self.out.runs.push(run);
    }

    fn opaque(&mut self, text: &str, args: &[String]) {
        let mut t = text.to_string();
        for arg in args {
            t.push(' ');
            t.push_str(arg);
        }
        self.out.opaque.push(t);
    }

    fn any_rule_of(&mut self, program: &'static str) {
        if !self.out.any_rule_of.contains(&program) {
            self.out.any_rule_of.push(program);
        }
    }

    /// `words` may run as a program. `later_covered`: the caller already
    /// treats every later word as a possible program start.
    fn program(&mut self, words: &[String], depth: usize, later_covered: bool) {
        let Some((first, args)) = words.split_first() else {
            return;
        };
        if depth > MAX_DEPTH || self.full() {
            self.opaque(first, args);
            return;
        }
        let base = basename(first);
        self.push_run(base, args);
        if base != first {
            self.push_run(first, args);
        }
        match base {
            _ if is_shell(base) => self.shell_program(args, depth),
            "eval" => self.shell(&args.join(" "), &[], depth),
            "find" => self.find(args, depth),
            "git" => self.git(args, &[], depth),
            "busybox" => match args.first() {
                Some(a) if !a.starts_with('-') => self.program(args, depth + 1, false),
                _ => self.later_words(args, depth),
            },
            _ => {
                self.modelled(words, depth);
                if let Some(spec) = wrapper::spec(base) {
                    self.wrapper(spec, args, depth);
                } else if !later_covered && !is_inert(first, base, args) {
                    self.later_words(args, depth);
                }
            }
        }
    }

    /// A program with a model (see `cli`): each place its subcommand may
    /// start past options the model does not know, and the commands it
    /// runs from its options (`vim -c '!rm x'`, `man -P PAGER`).
    fn modelled(&mut self, words: &[String], depth: usize) {
        let Some((first, args)) = words.split_first() else {
            return;
        };
        let base = basename(first);
        let Some(model) = cli::model(base) else {
            return;
        };
        let starts = cli::subcommand_starts(model, args);
        if starts.len() > 1 {
            for start in starts {
                if self.full() {
                    self.opaque(base, &args[start..]);
                    break;
                }
                self.push_run(base, &args[start..]);
            }
        }
        if cli::defines_aliases(words) {
            self.any_rule_of(model.program);
        }
        for (kind, command) in cli::option_commands(words) {
            self.opaque(command, &[]);
            match kind {
                CommandKind::Shell => self.shell(command, &[], depth + 1),
                // `:!cmd`, `silent !cmd`, `r !cmd`, `w !cmd`, `+!cmd`,
                // `|Xcmd` (less pipes to a shell).
                CommandKind::Escape => {
                    if let Some((_, shell)) = command.split_once('!') {
                        self.shell(shell, &[], depth + 1);
                    } else if let Some(rest) = command.strip_prefix('|') {
                        let shell: String = rest.chars().skip(1).collect();
                        self.shell(&shell, &[], depth + 1);
                    }
                }
            }
        }
    }

    /// A program whose wrapped program is unknown: every later word may
    /// start one, a word a shell would interpret may be a shell command,
    /// and `--opt=VALUE` may name a program.
    fn later_words(&mut self, args: &[String], depth: usize) {
        for (i, word) in args.iter().enumerate() {
            if self.full() {
                self.opaque("", &args[i..]);
                return;
            }
            if looks_like_shell(word) {
                self.shell(word, &[], depth + 1);
            }
            // `--opt=PROG`, `RM=rm` (make), `alias x='rm -rf'`.
            if let Some((_, value)) = word.split_once('=')
                && !value.is_empty()
            {
                self.program(&[value.to_string()], depth + 1, true);
                if looks_like_shell(value) {
                    self.shell(value, &[], depth + 1);
                }
            }
            // `-Oprog`: a short option's attached value may be a program.
            if let Some(cluster) = word.strip_prefix('-').filter(|c| !c.starts_with('-')) {
                for (pos, _) in cluster.char_indices().skip(1) {
                    self.push_run(&cluster[pos..], &[]);
                }
            }
            self.program(&args[i..], depth + 1, true);
        }
    }

    /// `script` is run by a shell, with `args` as `$0 $1 …`.
    fn shell(&mut self, script: &str, args: &[String], depth: usize) {
        if depth > MAX_DEPTH {
            self.opaque(script, args);
            return;
        }
        let analysis = analyze(script);
        if !analysis.safe_parse {
            self.opaque(script, args);
            return;
        }
        for sub in &analysis.subcommands {
            if sub.dynamic.iter().any(|d| *d) {
                self.opaque(&sub.text, args);
            }
            self.program(&sub.words, depth + 1, false);
        }
    }

    /// `sh [options] -c STRING [ARG0 ARGS…]`, or a script file.
    fn shell_program(&mut self, args: &[String], depth: usize) {
        let mut command_mode = false;
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            if arg == "--" || arg == "-" {
                i += 1;
                break;
            }
            if let Some(long) = arg.strip_prefix("--") {
                i += 1;
                let (name, value) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (long, None),
                };
                match name {
                    "rcfile" | "init-file" if value.is_none() => i += 1,
                    // fish: `--command CMD`, `--init-command CMD`.
                    "command" | "init-command" | "comm" | "init" => {
                        let cmd = value.or_else(|| args.get(i).map(String::as_str));
                        if value.is_none() {
                            i += 1;
                        }
                        if let Some(cmd) = cmd {
                            self.shell(cmd, &[], depth + 1);
                        }
                    }
                    _ => {}
                }
                continue;
            }
            if arg.len() > 1 && (arg.starts_with('-') || arg.starts_with('+')) {
                i += 1;
                for c in arg[1..].chars() {
                    match c {
                        'c' => command_mode = true,
                        // `-o OPTION`, `-O SHOPT`: the value is the next word.
                        'o' | 'O' => i += 1,
                        _ => {}
                    }
                }
                continue;
            }
            break;
        }
        let rest = args.get(i..).unwrap_or(&[]);
        match rest.split_first() {
            Some((script, extra)) if command_mode => {
                if script.contains("{}") {
                    self.out.runs_input = true;
                }
                self.shell(script, extra, depth + 1)
            }
            // Commands from standard input.
            None => self.out.runs_input = true,
            // A script file and its arguments: unknown.
            _ => self.later_words(rest, depth),
        }
    }

    /// `find … -exec PROG ARGS… ;` (and `-execdir`, `-ok`, `-okdir`, `+`).
    fn find(&mut self, args: &[String], depth: usize) {
        let mut i = 0;
        while i < args.len() {
            let is_exec = matches!(args[i].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir");
            i += 1;
            if !is_exec {
                continue;
            }
            let start = i;
            while i < args.len() {
                let ends = args[i] == ";" || (args[i] == "+" && i > start && args[i - 1] == "{}");
                if ends {
                    break;
                }
                i += 1;
            }
            self.program(&args[start..i], depth + 1, false);
        }
    }

    /// A wrapper with a known option table.
    fn wrapper(&mut self, spec: &wrapper::Wrapper, args: &[String], depth: usize) {
        let parsed = wrapper::parse(spec, args);
        for cmd in parsed.shell_commands {
            self.shell(cmd, &[], depth + 1);
        }
        let Some(start) = parsed.program else {
            return self.later_words(args, depth);
        };
        // `GIT_PAGER=…`, `EDITOR=…` before the program (`env`, `sudo`): a
        // variable may name a command that the program runs.
        for word in args.get(..start).unwrap_or(&[]) {
            if let Some((_, value)) = word.split_once('=')
                && wrapper::is_assignment(word)
                && !value.is_empty()
            {
                self.shell(value, &[], depth + 1);
            }
        }
        let rest = args.get(start..).unwrap_or(&[]);
        match spec.rest {
            Rest::Program => self.program(rest, depth + 1, false),
            Rest::ProgramAndShell => {
                self.program(rest, depth + 1, false);
                if !rest.is_empty() {
                    self.shell(&rest.join(" "), &[], depth + 1);
                }
            }
            Rest::AnyWord => self.later_words(rest, depth),
        }
    }

    /// `git [global options] SUB ARGS…`: the subcommand without the global
    /// options, `-c alias.X=Y` expanded, configuration values that may be
    /// commands, and the subcommands that run programs.
    fn git(&mut self, args: &[String], outer_config: &[(String, String)], depth: usize) {
        if depth > MAX_DEPTH {
            self.any_rule_of("git");
            self.opaque("git", args);
            return;
        }
        let globals = git::split_global_options(args);
        if globals.unknown_option {
            // What the rest means is unknown.
            self.any_rule_of("git");
            self.later_words(args, depth);
            return;
        }
        if !globals.config_env.is_empty() {
            self.any_rule_of("git");
        }
        let mut config: Vec<(String, String)> = outer_config.to_vec();
        for (key, value) in &globals.config {
            config.push((key.to_string(), value.to_string()));
            // `core.pager`, `core.sshCommand`, `diff.x.textconv`, … are
            // commands; any value may be one.
            let command = value.strip_prefix('!').unwrap_or(value);
            if !command.is_empty() {
                self.shell(command, &[], depth + 1);
            }
        }
        let Some((sub, sub_args)) = globals.rest.split_first() else {
            return;
        };
        self.push_run("git", globals.rest);
        let pairs: Vec<(&str, &str)> = config
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        if let Some(value) = git::alias(&pairs, sub) {
            if let Some(command) = value.strip_prefix('!') {
                // A shell alias: git runs `sh -c 'VALUE "$@"'`.
                self.any_rule_of("git");
                self.shell(command, sub_args, depth + 1);
            } else {
                let analysis = analyze(value);
                match analysis.subcommands.as_slice() {
                    [expansion] if analysis.safe_parse && !expansion.has_assignments => {
                        let mut expanded = expansion.words.clone();
                        expanded.extend(sub_args.iter().cloned());
                        self.git(&expanded, &config, depth + 1);
                    }
                    _ => {
                        self.any_rule_of("git");
                        self.opaque(value, sub_args);
                    }
                }
            }
        } else if !git::is_builtin(sub) {
            // An alias from the configuration, `git-SUB` on the PATH or an
            // autocorrected typo: unseen.
            self.any_rule_of("git");
        }
        if git::runs_programs(sub) {
            self.later_words(sub_args, depth);
        }
    }
}

/// A read-only-listed program in a read-only form runs nothing else
/// (`grep rm file`, `echo rm`), when it is the system's own.
fn is_inert(first: &str, base: &str, args: &[String]) -> bool {
    if !in_system_dir(first) || !readonly::is_listed(base) {
        return false;
    }
    let mut words = Vec::with_capacity(args.len() + 1);
    words.push(base.to_string());
    words.extend(args.iter().cloned());
    let dynamic = vec![false; words.len()];
    readonly::is_read_only(&words, &dynamic, AnalyzeOptions::default())
}
