//! A model of GNU `getopt_long` (BASH-4): reads a program's arguments the
//! way the program will, so a judgment sees the options and operands the
//! program sees (`date -Id 0101…`: `d` is `-I`'s argument and `0101…` an
//! operand that sets the clock).
//!
//! What is modelled, as glibc does it: bundled short flags (`-nf`), a
//! required argument attached (`-n5`) or in the next word (`-n 5`, even when
//! that word starts with `-`), an optional argument only attached (`-Id`,
//! `--iso-8601=d`), `--name=value`, unique abbreviations of long options
//! (`--outp` is `--output`; several candidates that are not aliases of one
//! option are an error), `--` ending the options, a lone `-` as an operand,
//! and permutation (options after operands count) or, with `+` at the head
//! of the optstring or `POSIXLY_CORRECT` set, options ending at the first
//! operand. An unknown option or a missing argument is an error: the caller
//! then judges the command not read-only.

/// Does an option take an argument?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HasArg {
    No,
    /// Attached (`-ofile`, `--output=file`) or the next word.
    Required,
    /// Attached only (`-Id`, `--iso-8601=d`); never the next word.
    Optional,
}

/// One long option: its full name, its argument, and the id a judgment
/// checks. Aliases of a short option carry that option's letter as id
/// (`--set` has id `s`), so `-s` and `--set` read the same.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LongOpt {
    pub name: &'static str,
    pub arg: HasArg,
    pub id: &'static str,
}

/// A `LongOpt`, short to write in tables.
pub(crate) const fn long(name: &'static str, arg: HasArg, id: &'static str) -> LongOpt {
    LongOpt { name, arg, id }
}

/// A program's options, as its source declares them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OptSpec {
    /// GNU optstring: `c` a flag, `c:` a required argument, `c::` an
    /// optional one; a leading `+` stops at the first operand, a leading `-`
    /// returns operands in order (for this model: like permutation).
    pub short: &'static str,
    pub long: &'static [LongOpt],
}

/// One option as read: its id (the short letter or the long option's id)
/// and its argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Opt<'a> {
    pub id: &'static str,
    pub value: Option<&'a str>,
}

/// The arguments read into options and operands, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Parsed<'a> {
    pub options: Vec<Opt<'a>>,
    pub operands: Vec<&'a str>,
}

impl Parsed<'_> {
    /// Was any option with one of these ids given?
    pub(crate) fn has(&self, ids: &[&str]) -> bool {
        self.options.iter().any(|o| ids.contains(&o.id))
    }
}

/// Where options end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// GNU's default: options anywhere before `--`.
    Permute,
    /// `POSIXLY_CORRECT` (or `+` in the optstring): options end at the
    /// first operand.
    PosixStop,
}

/// Reads `args` (the words after the program name) as `getopt_long` would.
/// `None`: the program would reject them (unknown option, ambiguous
/// abbreviation, missing or unexpected argument).
pub(crate) fn parse<'a>(spec: &OptSpec, args: &'a [String], order: Order) -> Option<Parsed<'a>> {
    let (short, order) = match spec.short.strip_prefix('+') {
        Some(rest) => (rest, Order::PosixStop),
        None => (spec.short.strip_prefix('-').unwrap_or(spec.short), order),
    };
    let mut parsed = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if arg == "--" {
            parsed.operands.extend(args[i..].iter().map(String::as_str));
            break;
        }
        if let Some(body) = arg.strip_prefix("--") {
            let (name, attached) = match body.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (body, None),
            };
            let opt = find_long(spec.long, name)?;
            let value = match (opt.arg, attached) {
                (HasArg::No, Some(_)) => return None,
                (HasArg::No, None) | (HasArg::Optional, None) => None,
                (_, Some(value)) => Some(value),
                (HasArg::Required, None) => {
                    let value = args.get(i)?;
                    i += 1;
                    Some(value.as_str())
                }
            };
            parsed.options.push(Opt { id: opt.id, value });
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (pos, letter) in cluster.char_indices() {
                let (id, has_arg) = find_short(short, letter)?;
                let rest = &cluster[pos + letter.len_utf8()..];
                match has_arg {
                    HasArg::No => parsed.options.push(Opt { id, value: None }),
                    HasArg::Optional => {
                        let value = (!rest.is_empty()).then_some(rest);
                        parsed.options.push(Opt { id, value });
                        break;
                    }
                    HasArg::Required => {
                        let value = if rest.is_empty() {
                            let value = args.get(i)?;
                            i += 1;
                            value.as_str()
                        } else {
                            rest
                        };
                        parsed.options.push(Opt {
                            id,
                            value: Some(value),
                        });
                        break;
                    }
                }
            }
        } else {
            // An operand (a lone `-` included).
            parsed.operands.push(arg);
            if order == Order::PosixStop {
                parsed.operands.extend(args[i..].iter().map(String::as_str));
                break;
            }
        }
    }
    Some(parsed)
}

/// Is `judge` true of the arguments however the program reads them: with
/// permutation and, since `POSIXLY_CORRECT` may be set in the environment,
/// with options ending at the first operand? An unreadable argument list is
/// never judged true.
pub(crate) fn judge_all_orders(
    spec: &OptSpec,
    args: &[String],
    judge: impl Fn(&Parsed<'_>) -> bool,
) -> bool {
    [Order::Permute, Order::PosixStop]
        .into_iter()
        .all(|order| parse(spec, args, order).is_some_and(|p| judge(&p)))
}

/// How a program spells its options, for the tolerant reading of a CLI
/// whose option table is only partly modelled (see `cli`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// GNU `getopt_long` (and optparse, nopt): bundled short flags, unique
    /// abbreviations of long options.
    Gnu,
    /// clap, cobra/pflag, argparse without abbreviations: bundled short
    /// flags, long names only in full.
    Exact,
    /// Go's `flag` package (and terraform): `-name` or `--name`, never
    /// bundled, never abbreviated; every name is in the long table.
    Go,
}

/// The name of an option as a tolerant reading found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OptName<'a> {
    /// An option of the table, by its id.
    Id(&'static str),
    /// A short option the table does not know.
    Short(char),
    /// A long option the table does not know (its name, without dashes).
    Long(&'a str),
}

/// A tolerant reading: options and operands, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tolerant<'a> {
    pub options: Vec<(OptName<'a>, Option<&'a str>)>,
    /// Operands with their index in the arguments.
    pub operands: Vec<(usize, &'a str)>,
}

/// Reads `args` the way a program of `syntax` would, never failing: an
/// option the table does not know is a flag (the words after it stay
/// options or operands, so an option hidden behind it is still seen), an
/// ambiguous abbreviation is unknown, a missing argument is none. Options
/// may follow operands (permutation) unless `order` stops at the first.
pub(crate) fn read_tolerant<'a>(
    spec: &OptSpec,
    syntax: Syntax,
    args: &'a [String],
    order: Order,
) -> Tolerant<'a> {
    let short = spec.short.trim_start_matches(['+', '-']);
    let mut out = Tolerant::default();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let at = i;
        i += 1;
        if arg == "--" {
            out.operands.extend(
                args[i..]
                    .iter()
                    .enumerate()
                    .map(|(k, a)| (i + k, a.as_str())),
            );
            break;
        }
        let long_body = match syntax {
            Syntax::Go => arg
                .strip_prefix("--")
                .or_else(|| arg.strip_prefix('-'))
                .filter(|b| !b.is_empty() && !b.starts_with('-')),
            _ => arg.strip_prefix("--").filter(|b| !b.is_empty()),
        };
        if let Some(body) = long_body {
            let (name, attached) = match body.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (body, None),
            };
            let found = match syntax {
                Syntax::Gnu => find_long(spec.long, name),
                _ => spec.long.iter().find(|o| o.name == name),
            };
            match found {
                Some(opt) => {
                    let value = match (opt.arg, attached) {
                        (_, Some(value)) => Some(value),
                        (HasArg::Required, None) => {
                            let value = args.get(i).map(String::as_str);
                            i += 1;
                            value
                        }
                        _ => None,
                    };
                    out.options.push((OptName::Id(opt.id), value));
                }
                None => out.options.push((OptName::Long(name), attached)),
            }
            continue;
        }
        let cluster = arg
            .strip_prefix('-')
            .filter(|c| !c.is_empty() && syntax != Syntax::Go);
        let Some(cluster) = cluster else {
            out.operands.push((at, arg));
            if order == Order::PosixStop {
                out.operands.extend(
                    args[i..]
                        .iter()
                        .enumerate()
                        .map(|(k, a)| (i + k, a.as_str())),
                );
                break;
            }
            continue;
        };
        for (pos, letter) in cluster.char_indices() {
            let rest = &cluster[pos + letter.len_utf8()..];
            let Some((id, has_arg)) = find_short(short, letter) else {
                out.options.push((OptName::Short(letter), None));
                continue;
            };
            let value = match has_arg {
                HasArg::No => {
                    out.options.push((OptName::Id(id), None));
                    continue;
                }
                HasArg::Optional => (!rest.is_empty()).then_some(rest),
                HasArg::Required if rest.is_empty() => {
                    let value = args.get(i).map(String::as_str);
                    i += 1;
                    value
                }
                HasArg::Required => Some(rest),
            };
            out.options.push((OptName::Id(id), value));
            break;
        }
    }
    out
}

/// The short option `letter` in an optstring: its id (a one-letter slice of
/// the optstring) and its argument. `:` is never an option letter.
fn find_short(optstring: &'static str, letter: char) -> Option<(&'static str, HasArg)> {
    if letter == ':' {
        return None;
    }
    let pos = optstring.find(letter)?;
    let end = pos + letter.len_utf8();
    let rest = &optstring[end..];
    let has_arg = if rest.starts_with("::") {
        HasArg::Optional
    } else if rest.starts_with(':') {
        HasArg::Required
    } else {
        HasArg::No
    };
    Some((&optstring[pos..end], has_arg))
}

/// The long option `name` names: an exact match, else the only option it
/// abbreviates. Several candidates are ambiguous unless they are aliases of
/// one option (same id and argument), as glibc decides.
fn find_long(options: &'static [LongOpt], name: &str) -> Option<&'static LongOpt> {
    if name.is_empty() {
        return None;
    }
    if let Some(exact) = options.iter().find(|o| o.name == name) {
        return Some(exact);
    }
    let mut candidates = options.iter().filter(|o| o.name.starts_with(name));
    let first = candidates.next()?;
    candidates
        .all(|o| o.id == first.id && o.arg == first.arg)
        .then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: OptSpec = OptSpec {
        short: "abo:I::",
        long: &[
            long("output", HasArg::Required, "o"),
            long("out-of-band", HasArg::No, "out-of-band"),
            long("iso", HasArg::Optional, "I"),
            long("utc", HasArg::No, "u"),
            long("universal", HasArg::No, "u"),
            long("unique", HasArg::No, "unique"),
        ],
    };

    fn words(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| a.to_string()).collect()
    }

    /// Options as (id, value) and operands, owned.
    type Read = (Vec<(String, Option<String>)>, Vec<String>);

    fn read(args: &[&str], order: Order) -> Option<Read> {
        let args = words(args);
        let parsed = parse(&SPEC, &args, order)?;
        Some((
            parsed
                .options
                .iter()
                .map(|o| (o.id.to_string(), o.value.map(str::to_string)))
                .collect(),
            parsed.operands.iter().map(|o| o.to_string()).collect(),
        ))
    }

    fn opts(list: &[(&str, Option<&str>)]) -> Vec<(String, Option<String>)> {
        list.iter()
            .map(|(id, v)| (id.to_string(), v.map(str::to_string)))
            .collect()
    }

    #[test]
    fn bash4_getopt_bundles_and_attached_arguments() {
        let (o, rest) = read(&["-abofile", "x"], Order::Permute).unwrap();
        assert_eq!(o, opts(&[("a", None), ("b", None), ("o", Some("file"))]));
        assert_eq!(rest, ["x"]);
        // A required argument in the next word, even when it looks like an option.
        let (o, rest) = read(&["-o", "-a", "x"], Order::Permute).unwrap();
        assert_eq!(o, opts(&[("o", Some("-a"))]));
        assert_eq!(rest, ["x"]);
        assert_eq!(read(&["-o"], Order::Permute), None);
        assert_eq!(read(&["-ax"], Order::Permute), None);
        assert_eq!(read(&["-:"], Order::Permute), None);
    }

    #[test]
    fn bash4_getopt_optional_argument_only_attached() {
        let (o, rest) = read(&["-Id", "0101"], Order::Permute).unwrap();
        assert_eq!(o, opts(&[("I", Some("d"))]));
        assert_eq!(rest, ["0101"]);
        let (o, rest) = read(&["-I", "d"], Order::Permute).unwrap();
        assert_eq!(o, opts(&[("I", None)]));
        assert_eq!(rest, ["d"]);
        let (o, rest) = read(&["--iso=d", "x"], Order::Permute).unwrap();
        assert_eq!(o, opts(&[("I", Some("d"))]));
        assert_eq!(rest, ["x"]);
        let (o, rest) = read(&["--is", "d"], Order::Permute).unwrap();
        assert_eq!(o, opts(&[("I", None)]));
        assert_eq!(rest, ["d"]);
    }

    #[test]
    fn bash4_getopt_long_abbreviations() {
        let (o, _) = read(&["--outp=f"], Order::Permute).unwrap();
        assert_eq!(o, opts(&[("o", Some("f"))]));
        let (o, rest) = read(&["--output", "f", "g"], Order::Permute).unwrap();
        assert_eq!(o, opts(&[("o", Some("f"))]));
        assert_eq!(rest, ["g"]);
        // `--out` fits `output` and `out-of-band`: ambiguous.
        assert_eq!(read(&["--out=f"], Order::Permute), None);
        assert_eq!(read(&["--o", "f"], Order::Permute), None);
        // `--u` fits `utc`, `universal` (aliases) and `unique`: ambiguous;
        // `--un` fits `universal` and `unique`: ambiguous; `--univ` is one.
        assert_eq!(read(&["--u"], Order::Permute), None);
        assert_eq!(read(&["--un"], Order::Permute), None);
        let (o, _) = read(&["--univ"], Order::Permute).unwrap();
        assert_eq!(o, opts(&[("u", None)]));
        assert_eq!(read(&["--nope"], Order::Permute), None);
        assert_eq!(read(&["--utc=x"], Order::Permute), None);
        assert_eq!(read(&["--=x"], Order::Permute), None);
        assert_eq!(read(&["--output"], Order::Permute), None);
    }

    #[test]
    fn bash4_getopt_aliases_are_not_ambiguous() {
        const ALIASES: OptSpec = OptSpec {
            short: "u",
            long: &[
                long("utc", HasArg::No, "u"),
                long("universal", HasArg::No, "u"),
                long("uct", HasArg::No, "u"),
            ],
        };
        let args = words(&["--u"]);
        let parsed = parse(&ALIASES, &args, Order::Permute).unwrap();
        assert!(parsed.has(&["u"]));
    }

    #[test]
    fn bash4_getopt_double_dash_lone_dash_and_permutation() {
        let (o, rest) = read(&["x", "-a", "--", "-o", "-"], Order::Permute).unwrap();
        assert_eq!(o, opts(&[("a", None)]));
        assert_eq!(rest, ["x", "-o", "-"]);
        let (o, rest) = read(&["-", "-b"], Order::Permute).unwrap();
        assert_eq!(o, opts(&[("b", None)]));
        assert_eq!(rest, ["-"]);
        // POSIXLY_CORRECT: options end at the first operand.
        let (o, rest) = read(&["-a", "x", "-o", "f"], Order::PosixStop).unwrap();
        assert_eq!(o, opts(&[("a", None)]));
        assert_eq!(rest, ["x", "-o", "f"]);
    }

    #[test]
    fn bash4_getopt_plus_optstring_stops_at_first_operand() {
        const PLUS: OptSpec = OptSpec {
            short: "+a",
            long: &[],
        };
        let args = words(&["-a", "x", "-a"]);
        let parsed = parse(&PLUS, &args, Order::Permute).unwrap();
        assert_eq!(parsed.operands, ["x", "-a"]);
    }

    #[test]
    fn bash4_getopt_judged_in_both_orders() {
        let args = words(&["x", "-o", "f"]);
        // Permuted, `-o f` is an option; with POSIXLY_CORRECT three operands.
        assert!(!judge_all_orders(&SPEC, &args, |p| !p.has(&["o"])));
        assert!(!judge_all_orders(&SPEC, &args, |p| p.operands.len() < 2));
        assert!(judge_all_orders(&SPEC, &words(&["-a", "x"]), |p| {
            p.operands.len() < 2
        }));
        assert!(!judge_all_orders(&SPEC, &words(&["-z"]), |_| true));
    }

    #[test]
    fn bash5_tolerant_reading_keeps_unknown_options_as_flags() {
        let args = words(&["-zo", "f", "--nope=1", "x", "--outp", "g", "-b"]);
        let read = read_tolerant(&SPEC, Syntax::Gnu, &args, Order::Permute);
        assert_eq!(
            read.options,
            [
                (OptName::Short('z'), None),
                (OptName::Id("o"), Some("f")),
                (OptName::Long("nope"), Some("1")),
                (OptName::Id("o"), Some("g")),
                (OptName::Id("b"), None),
            ]
        );
        assert_eq!(read.operands, [(3, "x")]);
        // Exact names only, and Go's single-dash long names.
        let read = read_tolerant(&SPEC, Syntax::Exact, &args, Order::Permute);
        assert!(read.options.contains(&(OptName::Long("outp"), None)));
        const GO: OptSpec = OptSpec {
            short: "",
            long: &[long("exec", HasArg::Required, "exec")],
        };
        let args = words(&["-exec", "sh", "./...", "--exec=x", "-v"]);
        let read = read_tolerant(&GO, Syntax::Go, &args, Order::Permute);
        assert_eq!(
            read.options,
            [
                (OptName::Id("exec"), Some("sh")),
                (OptName::Id("exec"), Some("x")),
                (OptName::Long("v"), None),
            ]
        );
        assert_eq!(read.operands, [(2, "./...")]);
    }
}
