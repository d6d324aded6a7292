//! GNU programs whose read-only forms depend on their options or operands
//! (BASH-4), judged over the arguments as `getopt_long` reads them. The
//! tables follow the installed programs' sources (coreutils 9.1, file 5.44):
//! an option missing from a table is an error there, so not read-only here.

use super::getopt::{HasArg, LongOpt, OptSpec, Parsed, judge_all_orders, long};
use super::readonly::long_opt;

use HasArg::{No, Optional, Required};

const HELP: LongOpt = long("help", No, "help");
const VERSION: LongOpt = long("version", No, "version");

const DATE: OptSpec = OptSpec {
    short: "d:f:I::r:Rs:u",
    long: &[
        long("date", Required, "d"),
        long("debug", No, "debug"),
        long("file", Required, "f"),
        long("iso-8601", Optional, "I"),
        long("reference", Required, "r"),
        long("resolution", No, "resolution"),
        long("rfc-email", No, "R"),
        long("rfc-822", No, "R"),
        long("rfc-2822", No, "R"),
        long("rfc-3339", Required, "rfc-3339"),
        long("set", Required, "s"),
        long("uct", No, "u"),
        long("utc", No, "u"),
        long("universal", No, "u"),
        HELP,
        VERSION,
    ],
};

/// `date` prints unless told to set the clock: by `-s`/`--set`, or by an
/// operand that is not `+FORMAT` (`date 0101…`, `date -Id 0101…`). Two or
/// more operands are refused by date itself ("extra operand") before it
/// sets anything, as `date +%s -u` reads with `POSIXLY_CORRECT`.
pub(crate) fn date_is_read_only(args: &[String]) -> bool {
    judge_all_orders(&DATE, args, |p| {
        !p.has(&["s"]) && (p.operands.len() > 1 || p.operands.iter().all(|o| o.starts_with('+')))
    })
}

const SORT: OptSpec = OptSpec {
    short: "-bcCdfghik:mMno:rRsS:t:T:uVy:z",
    long: &[
        long("ignore-leading-blanks", No, "b"),
        long("check", Optional, "check"),
        long("compress-program", Required, "compress-program"),
        long("debug", No, "debug"),
        long("dictionary-order", No, "d"),
        long("ignore-case", No, "f"),
        long("files0-from", Required, "files0-from"),
        long("general-numeric-sort", No, "g"),
        long("ignore-nonprinting", No, "i"),
        long("key", Required, "k"),
        long("merge", No, "m"),
        long("month-sort", No, "M"),
        long("numeric-sort", No, "n"),
        long("human-numeric-sort", No, "h"),
        long("version-sort", No, "V"),
        long("random-sort", No, "R"),
        long("random-source", Required, "random-source"),
        long("sort", Required, "sort"),
        long("output", Required, "o"),
        long("reverse", No, "r"),
        long("stable", No, "s"),
        long("batch-size", Required, "batch-size"),
        long("buffer-size", Required, "S"),
        long("field-separator", Required, "t"),
        long("temporary-directory", Required, "T"),
        long("unique", No, "u"),
        long("zero-terminated", No, "z"),
        long("parallel", Required, "parallel"),
        HELP,
        VERSION,
    ],
};

/// `sort` writes with `-o`/`--output` and runs `--compress-program`.
pub(crate) fn sort_is_read_only(args: &[String]) -> bool {
    judge_all_orders(&SORT, args, |p| !p.has(&["o", "compress-program"]))
}

const UNIQ: OptSpec = OptSpec {
    short: "-0123456789Dcdf:is:uw:z",
    long: &[
        long("count", No, "c"),
        long("repeated", No, "d"),
        long("all-repeated", Optional, "D"),
        long("group", Optional, "group"),
        long("ignore-case", No, "i"),
        long("unique", No, "u"),
        long("skip-fields", Required, "f"),
        long("skip-chars", Required, "s"),
        long("check-chars", Required, "w"),
        long("zero-terminated", No, "z"),
        HELP,
        VERSION,
    ],
};

/// `uniq IN OUT` writes OUT. (`+N` may be uniq's obsolete skip option or a
/// file: counted as a file, the judgment errs toward "writes".)
pub(crate) fn uniq_is_read_only(args: &[String]) -> bool {
    judge_all_orders(&UNIQ, args, |p| p.operands.len() <= 1)
}

const TAIL: OptSpec = OptSpec {
    short: "c:n:fFqs:vz0123456789",
    long: &[
        long("bytes", Required, "c"),
        long("follow", Optional, "follow"),
        long("lines", Required, "n"),
        long("max-unchanged-stats", Required, "max-unchanged-stats"),
        long("-disable-inotify", No, "-disable-inotify"),
        long("pid", Required, "pid"),
        long("-presume-input-pipe", No, "-presume-input-pipe"),
        long("quiet", No, "q"),
        long("retry", No, "retry"),
        long("silent", No, "q"),
        long("sleep-interval", Required, "s"),
        long("verbose", No, "v"),
        long("zero-terminated", No, "z"),
        HELP,
        VERSION,
    ],
};

/// `tail` never ends with `-f`, `-F` or `--follow`, nor with the obsolete
/// first-argument form (`-5f`, `+5f`, `-cf`, `-lf`), which tail reads
/// before getopt does.
pub(crate) fn tail_is_read_only(args: &[String]) -> bool {
    if args.first().is_some_and(|a| is_obsolete_follow(a)) {
        return false;
    }
    judge_all_orders(&TAIL, args, |p| !p.has(&["f", "F", "follow"]))
}

/// `[-+][0-9]*[bcl]?f`: tail's obsolete syntax with follow. Any `f` among
/// such characters counts (a malformed one is an error, not a write).
fn is_obsolete_follow(arg: &str) -> bool {
    let Some(rest) = arg.strip_prefix(['-', '+']) else {
        return false;
    };
    rest.contains('f')
        && rest
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, 'b' | 'c' | 'l' | 'f'))
}

const FILE: OptSpec = OptSpec {
    short: "bcCde:Ef:F:hiklLm:nNpP:rsSvzZ0",
    long: &[
        HELP,
        long("version", No, "v"),
        long("magic-file", Required, "m"),
        long("uncompress", No, "z"),
        long("uncompress-noreport", No, "Z"),
        long("brief", No, "b"),
        long("checking-printout", No, "c"),
        long("exclude", Required, "e"),
        long("exclude-quiet", Required, "exclude-quiet"),
        long("files-from", Required, "f"),
        long("separator", Required, "F"),
        long("mime", No, "i"),
        long("apple", No, "apple"),
        long("extension", No, "extension"),
        long("mime-type", No, "mime-type"),
        long("mime-encoding", No, "mime-encoding"),
        long("keep-going", No, "k"),
        long("list", No, "l"),
        long("dereference", No, "L"),
        long("no-dereference", No, "h"),
        long("no-buffer", No, "n"),
        long("no-pad", No, "N"),
        long("print0", No, "0"),
        long("preserve-date", No, "p"),
        long("parameter", Required, "P"),
        long("raw", No, "r"),
        long("special-files", No, "s"),
        long("no-sandbox", No, "S"),
        long("compile", No, "C"),
        long("debug", No, "d"),
    ],
};

/// `file` writes a compiled magic file with `-C`, resets access times with
/// `-p`, runs decompressors with `-z`/`-Z`, and `-S` turns off its own
/// system-call sandbox around the parsing of untrusted files.
pub(crate) fn file_is_read_only(args: &[String]) -> bool {
    judge_all_orders(&FILE, args, |p: &Parsed<'_>| {
        !p.has(&["C", "p", "z", "Z", "S"])
    })
}

/// `diff` (diffutils 3.8) writes nothing; `-l`/`--paginate` runs `pr`
/// (other diff implementations have `--output`). Its option table is large,
/// so this scan is wider than getopt: any single-dash word containing `l`
/// and any long option that could abbreviate those names count (a value
/// that merely looks so costs a question, never a write).
pub(crate) fn diff_is_read_only(args: &[String]) -> bool {
    !args.iter().any(|a| {
        long_opt(a, "paginate")
            || long_opt(a, "output")
            || a.strip_prefix('-')
                .is_some_and(|c| !c.starts_with('-') && c.contains('l'))
    })
}
