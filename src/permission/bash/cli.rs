//! One reading of a command-line program's words through its model (see
//! `cli_tables`), for the rule policy (BASH-5) and the suggestions
//! (BASH-7).
//!
//! A model holds a program's options with their arguments, its own
//! aliases (`cargo t`, `npm rum`, `docker container rm`, `helm un`), how
//! many words name its subcommand, its implicit `run` (`yarn build`), and
//! the options that choose the program or configuration that runs
//! (`cargo --config`, `make -f`, `go test -exec`, `ssh -o`). The options
//! are read by the one tolerant getopt reader, so global options, bundled
//! short flags, attached values and abbreviations read as the program
//! reads them.
//!
//! Deny and ask rules are compared with readings: a rule `rm -rf:*` is the
//! program `rm`, the options `-r` and `-f` and no operand, and it covers
//! every command whose reading has that program and subcommand, at least
//! those options in any spelling and order, and its operands first.

use super::cli_tables::{self, Cli, CommandKind, Depth};
use super::getopt::{HasArg, OptName, Order, Syntax, read_tolerant};
use super::wrapper::is_assignment;

/// The last path component (`/bin/rm` → `rm`).
pub(crate) fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// The model of a program, by its basename (`pip3` and `python3.12` read
/// as `pip` and `python`).
pub(crate) fn model(base: &str) -> Option<&'static Cli> {
    cli_tables::find(canonical_program(base))
}

/// The name a program is compared under: a versioned name is its family
/// (`pip3` → `pip`, `python3.12` → `python`).
pub(crate) fn canonical_program(base: &str) -> &str {
    if is_python(base) {
        "python"
    } else if base == "pip" || is_versioned(base, "pip") {
        "pip"
    } else if base == "py.test" {
        "pytest"
    } else {
        base
    }
}

/// `pip3`, `pip3.12`, `python2`: the name followed by a version.
fn is_versioned(base: &str, name: &str) -> bool {
    base.strip_prefix(name)
        .is_some_and(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

fn is_python(base: &str) -> bool {
    base == "python" || is_versioned(base, "python")
}

/// A program's words read through its model.
#[derive(Debug, Clone)]
pub(crate) struct Reading<'a> {
    pub program: &'a str,
    /// The subcommand, after the model's aliases (`npm rum` → `run`).
    pub path: Vec<&'a str>,
    pub operands: Vec<&'a str>,
    pub options: Vec<(OptName<'a>, Option<&'a str>)>,
    pub model: Option<&'static Cli>,
}

/// Reads one program's words (program first). `python -m MODULE …` reads
/// as the module (`pytest`, `pip`).
pub(crate) fn read(words: &[String]) -> Option<Reading<'_>> {
    let (first, args) = words.split_first()?;
    let program = canonical_program(basename(first));
    if program == "python" {
        return python_module(args).and_then(|start| read(&args[start..]));
    }
    let model = cli_tables::find(program);
    let Some(cli) = model else {
        // Unmodelled: every option unknown, every operand an operand.
        let read = read_tolerant(&cli_tables::NO_OPTIONS, Syntax::Gnu, args, Order::Permute);
        return Some(Reading {
            program,
            path: Vec::new(),
            operands: read.operands.into_iter().map(|(_, o)| o).collect(),
            options: read.options,
            model: None,
        });
    };
    let mut read = read_tolerant(&cli.options, cli.syntax, args, Order::Permute);
    for (name, _) in &mut read.options {
        if let OptName::Id(id) = name
            && let Some((_, same)) = cli.same.iter().find(|(letter, _)| letter == id)
        {
            *name = OptName::Id(same);
        }
    }
    let mut positionals: Vec<&str> = read.operands.iter().map(|(_, o)| *o).collect();
    if cli.plus_toolchain && positionals.first().is_some_and(|p| p.starts_with('+')) {
        positionals.remove(0);
    }
    let (path, used) = subcommand_path(cli, &positionals);
    let mut operands = positionals.split_off(used.min(positionals.len()));
    let path = implicit_run(cli, path, &mut operands);
    let mut options = read.options;
    if let Some((sub, id)) = cli.plus_operand
        && path.first() == Some(&sub)
        && operands.iter().any(|o| o.starts_with('+'))
    {
        options.push((OptName::Id(id), None));
    }
    Some(Reading {
        program: cli.program,
        path,
        operands,
        options,
        model,
    })
}

/// The index in `args` of `python`'s module after `-m`, when its own
/// options before it are flags.
fn python_module(args: &[String]) -> Option<usize> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "-m" => return (i + 1 < args.len()).then_some(i + 1),
            // Options with a value in the next word.
            "-W" | "-X" => i += 2,
            a if a.starts_with('-') && a.len() > 1 && !a.contains(['c', 'm']) => i += 1,
            _ => return None,
        }
    }
    None
}

/// The subcommand words among the leading positionals, aliases resolved,
/// and how many positionals they used.
fn subcommand_path<'a>(cli: &Cli, positionals: &[&'a str]) -> (Vec<&'a str>, usize) {
    let mut depth = match cli.depth {
        Depth::Zero => 0,
        Depth::One => 1,
        Depth::Two => 2,
        Depth::All => usize::MAX,
    };
    let mut path: Vec<&'a str> = Vec::new();
    let mut used = 0;
    while path.len() < depth && used < positionals.len() {
        let rest = &positionals[used..];
        if let Some((consumed, target)) = alias(cli, rest) {
            path.extend(target.iter().copied());
            used += consumed;
        } else {
            let word = rest[0];
            path.push(abbreviation(cli, word).unwrap_or(word));
            used += 1;
        }
        if path.len() == 1 && depth == 1 && cli.groups.contains(&path[0]) {
            depth = 2;
        }
    }
    (path, used)
}

/// A model alias at the head of `words`: how many words it takes and what
/// they mean. Two-word aliases (`container rm`) come first.
fn alias(cli: &Cli, words: &[&str]) -> Option<(usize, &'static [&'static str])> {
    let two = words.get(..2).map(|w| (w[0], w[1]));
    for (from, to) in cli.aliases {
        match from.split_once(' ') {
            Some(pair) if Some(pair) == two => return Some((2, to)),
            None if words.first() == Some(from) => return Some((1, to)),
            _ => {}
        }
    }
    None
}

/// A unique abbreviation of one of the model's commands (npm accepts
/// them), resolved through its aliases.
fn abbreviation(cli: &Cli, word: &str) -> Option<&'static str> {
    if cli.commands.is_empty() || cli.commands.contains(&word) {
        return None;
    }
    let mut found = cli
        .commands
        .iter()
        .copied()
        .chain(cli.aliases.iter().map(|(from, _)| *from))
        .filter(|c| !c.contains(' ') && c.starts_with(word));
    let only = found.next()?;
    if found.next().is_some() {
        return None;
    }
    match alias(cli, &[only]) {
        Some((_, [target])) => Some(target),
        Some(_) => None,
        None => Some(only),
    }
}

/// yarn and pnpm run a script for a word that is not one of their
/// commands: `yarn build` is `yarn run build`.
fn implicit_run<'a>(cli: &Cli, path: Vec<&'a str>, operands: &mut Vec<&'a str>) -> Vec<&'a str> {
    match path.first() {
        Some(first) if !cli.builtins.is_empty() && !cli.builtins.contains(first) => {
            operands.splice(0..0, path);
            vec!["run"]
        }
        _ => path,
    }
}

/// An option's name, owned (a rule's reading outlives its words).
#[derive(Debug, Clone, PartialEq, Eq)]
enum OwnedName {
    Id(&'static str),
    Short(char),
    Long(String),
}

impl OwnedName {
    fn new(name: &OptName<'_>) -> Self {
        match name {
            OptName::Id(id) => Self::Id(id),
            OptName::Short(c) => Self::Short(*c),
            OptName::Long(l) => Self::Long(l.to_string()),
        }
    }

    fn is(&self, name: &OptName<'_>) -> bool {
        match (self, name) {
            (Self::Id(a), OptName::Id(b)) => a == b,
            (Self::Short(a), OptName::Short(b)) => a == b,
            (Self::Long(a), OptName::Long(b)) => a == b,
            _ => false,
        }
    }
}

/// A deny or ask rule's content read as a command once: `None` when it is
/// not plain words (a wildcard inside, shell syntax), so only its text is
/// compared.
pub(crate) struct RuleReading {
    prefix: bool,
    /// The program as compared (`rm`, `pip`, `pytest` for `python -m
    /// pytest`).
    program: String,
    path: Vec<String>,
    operands: Vec<String>,
    options: Vec<(OwnedName, Option<String>)>,
}

impl RuleReading {
    pub(crate) fn new(content: &str) -> Option<Self> {
        let (literal, prefix) = match content.strip_suffix(":*") {
            Some(literal) => (literal, true),
            None => (content, false),
        };
        if literal.contains([
            '*', '$', '`', '\'', '"', '\\', ';', '|', '&', '<', '>', '(', ')',
        ]) {
            return None;
        }
        let words: Vec<String> = literal.split_whitespace().map(str::to_string).collect();
        let reading = read(&words)?;
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        Some(Self {
            prefix,
            program: reading.program.to_string(),
            path: owned(&reading.path),
            operands: owned(&reading.operands),
            options: reading
                .options
                .iter()
                .map(|(n, v)| (OwnedName::new(n), v.map(str::to_string)))
                .collect(),
        })
    }

    /// Could a command whose first word is `first` be covered? (Cheap: most
    /// candidate programs are not the rule's.)
    pub(crate) fn may_cover(&self, first: &str) -> bool {
        let base = canonical_program(basename(first));
        base == self.program || base == "python"
    }

    fn has_option(&self, subject: &(OptName<'_>, Option<&str>)) -> bool {
        self.options
            .iter()
            .any(|(n, v)| n.is(&subject.0) && v.as_deref() == subject.1)
    }

    /// Does the rule cover `words` (one program's words)?
    pub(crate) fn covers(&self, words: &[String]) -> bool {
        if !self.may_cover(words.first().map_or("", String::as_str)) {
            return false;
        }
        let Some(subject) = read(words) else {
            return false;
        };
        if subject.program != self.program {
            return false;
        }
        let rule_options_in_subject = self.options.iter().all(|(n, v)| {
            subject
                .options
                .iter()
                .any(|(sn, sv)| n.is(sn) && v.as_deref() == *sv)
        });
        let unordered = subject.model.is_some_and(|m| m.unordered_operands);
        let path_is = |exact: bool| {
            (subject.path.len() == self.path.len() || !exact)
                && subject.path.len() >= self.path.len()
                && self.path.iter().zip(&subject.path).all(|(a, b)| a == b)
        };
        if self.prefix {
            path_is(false)
                && rule_options_in_subject
                && if unordered {
                    self.operands
                        .iter()
                        .all(|o| subject.operands.contains(&o.as_str()))
                } else {
                    subject.operands.len() >= self.operands.len()
                        && self
                            .operands
                            .iter()
                            .zip(&subject.operands)
                            .all(|(a, b)| a == b)
                }
        } else {
            let same_options =
                rule_options_in_subject && subject.options.iter().all(|o| self.has_option(o));
            path_is(true) && same_options && {
                let mut a: Vec<&str> = self.operands.iter().map(String::as_str).collect();
                let mut b = subject.operands.clone();
                if unordered {
                    a.sort_unstable();
                    b.sort_unstable();
                }
                a == b
            }
        }
    }
}

/// The positions in `args` (the words after the program) where a
/// modelled program's subcommand may start: the first word that is not an
/// option, and each later one that every earlier non-option word could be
/// the value of an option the model does not know (`npm --prefix x
/// publish`: `x` or `publish`).
pub(crate) fn subcommand_starts(cli: &Cli, args: &[String]) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut prev_takes_value = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "--" {
            if i < args.len() {
                starts.push(i);
            }
            break;
        }
        if arg.starts_with('-') && arg.len() > 1 {
            match option_arity(cli, arg) {
                Some(true) => {
                    i += 1;
                    prev_takes_value = false;
                }
                Some(false) => prev_takes_value = false,
                None => prev_takes_value = !arg.contains('='),
            }
            continue;
        }
        starts.push(i - 1);
        if !prev_takes_value {
            break;
        }
        prev_takes_value = false;
    }
    starts
}

/// Does a known option word take the next word as its value? `None` for
/// an option the model does not know.
fn option_arity(cli: &Cli, arg: &str) -> Option<bool> {
    let one = [arg.to_string()];
    let read = read_tolerant(&cli.options, cli.syntax, &one, Order::Permute);
    let (name, value) = read.options.last()?;
    match name {
        OptName::Id(id) => {
            let required = cli
                .options
                .long
                .iter()
                .any(|o| o.id == *id && o.arg == HasArg::Required)
                || short_requires(cli.options.short, id);
            Some(required && value.is_none())
        }
        _ => None,
    }
}

fn short_requires(optstring: &str, id: &str) -> bool {
    id.chars().count() == 1
        && optstring.find(id).is_some_and(|p| {
            optstring[p + id.len()..].starts_with(':')
                && !optstring[p + id.len()..].starts_with("::")
        })
}

/// An option (or operand) of a modelled program chooses the program or
/// configuration that runs (`cargo --config`, `cargo +toolchain`,
/// `make SHELL=…`, `go test -exec`, `pytest -p`, `ssh -o`, `vim -c`): only
/// a rule naming the whole command verbatim may allow it.
pub(crate) fn chooses_program(words: &[String]) -> bool {
    let Some(reading) = read(words) else {
        return false;
    };
    let Some(cli) = reading.model else {
        // `python -c`, an unmodelled module: nothing known to choose.
        return false;
    };
    let args = words.get(1..).unwrap_or(&[]);
    if cli.plus_toolchain && args.iter().any(|a| a.starts_with('+')) {
        return true;
    }
    if cli.assignments_choose && reading.operands.iter().any(|o| is_assignment(o)) {
        return true;
    }
    if cli.at_files && reading.operands.iter().any(|o| o.starts_with('@')) {
        return true;
    }
    if cli.plus_commands.is_some() && reading.operands.iter().any(|o| o.starts_with('+')) {
        return true;
    }
    let long_names = || {
        cli.options
            .long
            .iter()
            .filter(|o| cli.chooses.contains(&o.id))
            .map(|o| o.name)
    };
    // Any word spelled as a choosing long option, even where the reading
    // took it for another option's value: the program may read it
    // otherwise.
    let spelled = args.iter().take_while(|a| *a != "--").any(|a| {
        let body = match cli.syntax {
            Syntax::Go => a.strip_prefix("--").or_else(|| a.strip_prefix('-')),
            _ => a.strip_prefix("--"),
        };
        body.map(|b| b.split_once('=').map_or(b, |(n, _)| n))
            .is_some_and(|name| {
                !name.is_empty()
                    && long_names().any(|full| {
                        full == name || (cli.syntax == Syntax::Gnu && full.starts_with(name))
                    })
            })
    });
    if spelled {
        return true;
    }
    reading.options.iter().any(|(name, _)| match name {
        OptName::Id(id) => {
            cli.chooses.contains(id) || cli.commands_in_options.iter().any(|(c, _)| c == id)
        }
        // An abbreviation this reading could not resolve may still be one
        // of a choosing option.
        OptName::Long(name) => {
            cli.syntax == Syntax::Gnu && long_names().any(|full| full.starts_with(name))
        }
        OptName::Short(_) => false,
    })
}

/// Does a modelled program's command define its own aliases on the line
/// (`cargo --config alias.x=publish x`)?
pub(crate) fn defines_aliases(words: &[String]) -> bool {
    let Some((first, args)) = words.split_first() else {
        return false;
    };
    let Some(cli) = model(basename(first)) else {
        return false;
    };
    if cli.defines_aliases.is_empty() {
        return false;
    }
    let own =
        read(words).is_some_and(|r| r.path.first().is_some_and(|p| cli.own_commands.contains(p)));
    let options = read_tolerant(&cli.options, cli.syntax, args, Order::Permute).options;
    !own && options
        .iter()
        .any(|(name, _)| matches!(name, OptName::Id(id) if cli.defines_aliases.contains(id)))
}

/// Commands a modelled program runs from its options (`vim -c CMD`,
/// `vim +CMD`, `less +CMD`, `man -P PAGER`), with their kind.
pub(crate) fn option_commands(words: &[String]) -> Vec<(CommandKind, &str)> {
    let Some((first, args)) = words.split_first() else {
        return Vec::new();
    };
    let Some(cli) = model(basename(first)) else {
        return Vec::new();
    };
    if cli.commands_in_options.is_empty() && cli.plus_commands.is_none() {
        return Vec::new();
    }
    let read = read_tolerant(&cli.options, cli.syntax, args, Order::Permute);
    let mut out = Vec::new();
    for (name, value) in &read.options {
        if let (OptName::Id(id), Some(value)) = (name, value)
            && let Some((_, kind)) = cli.commands_in_options.iter().find(|(c, _)| c == id)
        {
            out.push((*kind, *value));
        }
    }
    if let Some(kind) = cli.plus_commands {
        for (_, operand) in &read.operands {
            if let Some(command) = operand.strip_prefix('+') {
                out.push((kind, command.trim_start_matches('+')));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    fn path(text: &str) -> Vec<String> {
        let w = words(text);
        let r = read(&w).unwrap();
        let mut out = vec![r.program.to_string()];
        out.extend(r.path.iter().map(|p| p.to_string()));
        out
    }

    #[test]
    fn bash5_cli_readings_resolve_aliases_and_globals() {
        assert_eq!(path("cargo +nightly -q t --release"), ["cargo", "test"]);
        assert_eq!(path("npm --prefix x rum build"), ["npm", "run"]);
        assert_eq!(path("npm pub"), ["npm", "publish"]);
        assert_eq!(path("yarn build"), ["yarn", "run"]);
        assert_eq!(path("docker --context c container rm x"), ["docker", "rm"]);
        assert_eq!(path("docker compose up -d"), ["docker", "compose", "up"]);
        assert_eq!(path("kubectl -n x delete pod"), ["kubectl", "delete"]);
        assert_eq!(path("helm -n x un r"), ["helm", "uninstall"]);
        assert_eq!(path("aws --profile p s3 rm s3://b"), ["aws", "s3", "rm"]);
        assert_eq!(path("terraform -chdir=x destroy"), ["terraform", "destroy"]);
        assert_eq!(path("python3 -m pytest -x"), ["pytest"]);
        assert_eq!(path("pip3 install x"), ["pip", "install"]);
    }

    #[test]
    fn bash5_rule_readings_match_flags_as_a_set() {
        let rule = RuleReading::new("rm -rf:*").unwrap();
        for yes in [
            "rm -fr x",
            "rm -r -f",
            "rm --recursive --force x",
            "rm x -Rf",
        ] {
            assert!(rule.covers(&words(yes)), "{yes}");
        }
        for no in ["rm -r x", "rm -- -rf", "rmdir -rf"] {
            assert!(!rule.covers(&words(no)), "{no}");
        }
        assert!(RuleReading::new("rm -rf *").is_none());
        let exact = RuleReading::new("git push -f").unwrap();
        assert!(exact.covers(&words("git push --force")));
        assert!(!exact.covers(&words("git push --force origin")));
    }

    #[test]
    fn bash5_cli_tables_name_their_own_options() {
        for cli in cli_tables::all() {
            let ids = cli
                .chooses
                .iter()
                .chain(cli.commands_in_options.iter().map(|(id, _)| id));
            for id in ids {
                let known = cli.options.long.iter().any(|o| o.id == *id)
                    || (id.len() == 1 && cli.options.short.contains(id));
                assert!(known, "{}: {id}", cli.program);
            }
            assert!(cli.names.contains(&cli.program), "{}", cli.program);
        }
    }

    #[test]
    fn bash5_subcommand_starts_follow_unknown_options() {
        let npm = model("npm").unwrap();
        assert_eq!(subcommand_starts(npm, &words("--foo x publish")), [1, 2]);
        assert_eq!(subcommand_starts(npm, &words("--prefix x publish")), [2]);
        assert_eq!(subcommand_starts(npm, &words("-g publish")), [1]);
    }
}
