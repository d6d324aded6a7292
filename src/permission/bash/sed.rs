//! `sed` as a read-only filter (BASH-4).
//!
//! The options are read the way GNU getopt reads them (bundled short
//! options, attached values, unique abbreviations of long options), and the
//! script must fit a small grammar with no command that writes a file, reads
//! one, runs a program, or has syntax whose extent GNU sed decides in ways
//! not modelled here (labels, text arguments, comments, bracket
//! expressions). Anything else is not read-only.

/// `args` are the words after `sed`, all static.
pub(crate) fn is_read_only(args: &[String]) -> bool {
    is_read_only_with_dynamic(args, &[])
}

/// `is_read_only` where `dynamic[i]` marks an argument the shell expands
/// (a glob, `$X`): it may become several words, options included (getopt
/// permutes), so it is accepted only as an input file after a static `--`,
/// never as an option, an option's value or the script.
pub(crate) fn is_read_only_with_dynamic(args: &[String], dynamic: &[bool]) -> bool {
    match invocation(args, dynamic) {
        // With or without `-n`: auto-printing is output, never a write.
        Some(Invocation { script }) => script_is_read_only(&script),
        None => false,
    }
}

/// What the options decide: `-n`, and the script (`-e` parts joined by
/// newlines, as sed joins them, else the first operand).
struct Invocation {
    script: String,
}

/// What a long option does (options with the same effect share one, so
/// `--quiet` and `--silent` are the same to the ambiguity check).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Effect {
    Quiet,
    Expression,
    LineLength,
    /// Harmless: changes only how input is read or output is made.
    Harmless(char),
    /// Writes files, reads a script file, or is not needed here.
    Refused(char),
}

const LONG_OPTIONS: &[(&str, Effect)] = &[
    ("binary", Effect::Harmless('b')),
    ("regexp-extended", Effect::Harmless('r')),
    ("debug", Effect::Harmless('D')),
    ("in-place", Effect::Refused('i')),
    ("expression", Effect::Expression),
    ("file", Effect::Refused('f')),
    ("line-length", Effect::LineLength),
    ("null-data", Effect::Harmless('z')),
    ("zero-terminated", Effect::Harmless('z')),
    ("quiet", Effect::Quiet),
    ("posix", Effect::Harmless('p')),
    ("silent", Effect::Quiet),
    ("sandbox", Effect::Harmless('S')),
    ("separate", Effect::Refused('s')),
    ("unbuffered", Effect::Harmless('u')),
    ("version", Effect::Refused('v')),
    ("help", Effect::Refused('h')),
    ("follow-symlinks", Effect::Refused('F')),
];

/// getopt_long's lookup: an exact name, else a prefix of exactly one
/// option (or of several with the same effect); `None` when ambiguous or
/// unknown.
fn long_option(name: &str) -> Option<Effect> {
    if name.is_empty() {
        return None;
    }
    if let Some((_, effect)) = LONG_OPTIONS.iter().find(|(n, _)| *n == name) {
        return Some(*effect);
    }
    let mut found: Option<Effect> = None;
    for (_, effect) in LONG_OPTIONS.iter().filter(|(n, _)| n.starts_with(name)) {
        match found {
            Some(f) if f != *effect => return None,
            _ => found = Some(*effect),
        }
    }
    found
}

fn invocation(args: &[String], dynamic: &[bool]) -> Option<Invocation> {
    let is_dynamic = |i: usize| dynamic.get(i).copied().unwrap_or(false);
    // The first operand and whether it is dynamic.
    let mut first_operand: Option<(&str, bool)> = None;
    let mut options_done = false;
    let mut i = 0;
    // The value of an option: attached, else the next (static) argument.
    let value_of = |attached: Option<&'_ str>, i: &mut usize| -> Option<String> {
        if let Some(v) = attached {
            return Some(v.to_string());
        }
        let v = args.get(*i).filter(|_| !is_dynamic(*i))?;
        *i += 1;
        Some(v.clone())
    };
    let mut scripts: Vec<String> = Vec::new();
    while i < args.len() {
        let arg = args[i].as_str();
        let arg_is_dynamic = is_dynamic(i);
        i += 1;
        if arg_is_dynamic && !options_done {
            return None;
        }
        if options_done || arg == "-" || !arg.starts_with('-') {
            first_operand.get_or_insert((arg, arg_is_dynamic));
            continue;
        }
        if arg == "--" {
            options_done = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            match long_option(name)? {
                Effect::Quiet if attached.is_none() => {}
                Effect::Harmless(_) if attached.is_none() => {}
                Effect::Expression => scripts.push(value_of(attached, &mut i)?),
                Effect::LineLength => line_length(&value_of(attached, &mut i)?)?,
                _ => return None,
            }
            continue;
        }
        // A short-option cluster such as `-ne` or `-nl5`.
        let cluster = &arg[1..];
        for (pos, c) in cluster.char_indices() {
            let rest = &cluster[pos + c.len_utf8()..];
            let attached = (!rest.is_empty()).then_some(rest);
            match c {
                'n' => {}
                'E' | 'r' | 'u' | 'z' | 'b' => {}
                'e' => {
                    scripts.push(value_of(attached, &mut i)?);
                    break;
                }
                'l' => {
                    line_length(&value_of(attached, &mut i)?)?;
                    break;
                }
                // -i (in place), -f (script file), -s (separate), unknown.
                _ => return None,
            }
        }
    }
    let script = if scripts.is_empty() {
        match first_operand? {
            (script, false) => script.to_string(),
            (_, true) => return None,
        }
    } else {
        scripts.join("\n")
    };
    Some(Invocation { script })
}

fn line_length(value: &str) -> Option<()> {
    (!value.is_empty() && value.bytes().all(|b| b.is_ascii_digit())).then_some(())
}

/// The script fits this grammar (GNU sed syntax), and nothing else does:
///
/// ```text
/// script   := (sep* command)* sep*          sep := blank | newline | ';'
/// command  := address? ('!' blank*)? body
/// address  := single (blank* ',' blank* (single | '+' N | '~' N))?
/// single   := N | N '~' N | '$' | regex (blank* ('I' | 'M'))*
/// regex    := '/' text '/' | '\' c text c
/// body     := '{' | '}' end | [=dDgGhHnNpPx] end | [lqQ] blank* N? end
///           | 's' c text c text c (blank* flag)* end | 'y' c text c text c end
/// flag     := g | p | N | i | I | m | M
/// end      := blank* (';' | newline | EOF | before '}')
/// ```
///
/// A `text` has no newline, no `[` (a bracket expression may contain the
/// delimiter) and no `\c`; a backslash escapes the next character.
/// Delimiters are ASCII punctuation other than `\`, `[` and `]`. Blocks
/// must balance, `}` takes no address. Carriage returns, vertical tabs and
/// form feeds are refused anywhere.
pub(crate) fn script_is_read_only(script: &str) -> bool {
    if script.bytes().any(|b| matches!(b, b'\r' | 0x0b | 0x0c)) {
        return false;
    }
    Script {
        b: script.as_bytes(),
        i: 0,
    }
    .program()
    .is_some()
}

struct Script<'a> {
    b: &'a [u8],
    i: usize,
}

impl Script<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    /// One or more digits.
    fn number(&mut self) -> Option<()> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        (self.i > start).then_some(())
    }

    fn program(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b';')) {
                self.i += 1;
            }
            if self.peek().is_none() {
                return (depth == 0).then_some(());
            }
            let addressed = self.addresses()?;
            self.skip_blanks();
            let negated = self.peek() == Some(b'!');
            if negated {
                self.i += 1;
                self.skip_blanks();
            }
            match self.next()? {
                b'{' => depth += 1,
                b'}' => {
                    if addressed || negated || depth == 0 {
                        return None;
                    }
                    depth -= 1;
                    self.end_of_command()?;
                }
                b'=' | b'd' | b'D' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p' | b'P'
                | b'x' => self.end_of_command()?,
                b'l' | b'q' | b'Q' => {
                    self.skip_blanks();
                    if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        self.number()?;
                    }
                    self.end_of_command()?;
                }
                b's' => {
                    let delim = self.delimiter()?;
                    self.text(delim, true)?;
                    self.text(delim, false)?;
                    self.substitute_flags()?;
                    self.end_of_command()?;
                }
                b'y' => {
                    let delim = self.delimiter()?;
                    self.text(delim, true)?;
                    self.text(delim, true)?;
                    self.end_of_command()?;
                }
                // Labels and branches, a/i/c text, r/R/w/W/e/v/F/z,
                // comments (`#n` even sets -n), anything unknown.
                _ => return None,
            }
        }
    }

    /// An optional address or range; `Some(true)` when one was read.
    fn addresses(&mut self) -> Option<bool> {
        if !self.address()? {
            return Some(false);
        }
        let before = self.i;
        self.skip_blanks();
        if self.peek() != Some(b',') {
            self.i = before;
            return Some(true);
        }
        self.i += 1;
        self.skip_blanks();
        match self.peek() {
            Some(b'+' | b'~') => {
                self.i += 1;
                self.number()?;
            }
            _ => {
                if !self.address()? {
                    return None;
                }
            }
        }
        Some(true)
    }

    /// One address; `Some(false)` when there is none here.
    fn address(&mut self) -> Option<bool> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() => {
                self.number()?;
                if self.peek() == Some(b'~') {
                    self.i += 1;
                    self.number()?;
                }
            }
            Some(b'$') => self.i += 1,
            Some(b'/') => {
                self.i += 1;
                self.text(b'/', true)?;
                self.regex_flags();
            }
            Some(b'\\') => {
                self.i += 1;
                let delim = self.delimiter()?;
                self.text(delim, true)?;
                self.regex_flags();
            }
            _ => return Some(false),
        }
        Some(true)
    }

    /// `I` and `M` after an address regex; GNU skips blanks between them.
    fn regex_flags(&mut self) {
        loop {
            let before = self.i;
            self.skip_blanks();
            if matches!(self.peek(), Some(b'I' | b'M')) {
                self.i += 1;
            } else {
                self.i = before;
                return;
            }
        }
    }

    fn delimiter(&mut self) -> Option<u8> {
        let c = self.next()?;
        (c.is_ascii_punctuation() && !matches!(c, b'\\' | b'[' | b']')).then_some(c)
    }

    /// A regex, replacement or `y` part up to and including `delim`.
    /// `no_brackets`: a `[` is refused (regexes and `y`).
    fn text(&mut self, delim: u8, no_brackets: bool) -> Option<()> {
        loop {
            match self.next()? {
                c if c == delim => return Some(()),
                b'\n' => return None,
                b'[' if no_brackets => return None,
                b'\\' => match self.next()? {
                    b'\n' | b'c' => return None,
                    _ => {}
                },
                _ => {}
            }
        }
    }

    /// The `s` flags; `w` (write a file) and `e` (run a command) are not
    /// among them.
    fn substitute_flags(&mut self) -> Option<()> {
        loop {
            self.skip_blanks();
            match self.peek() {
                Some(b'g' | b'p' | b'i' | b'I' | b'm' | b'M') => self.i += 1,
                Some(c) if c.is_ascii_digit() => self.number()?,
                _ => return Some(()),
            }
        }
    }

    /// After a command: blanks, then `;`, a newline, the end, or a `}`
    /// (left for the next command).
    fn end_of_command(&mut self) -> Option<()> {
        self.skip_blanks();
        match self.peek() {
            None | Some(b'}') => Some(()),
            Some(b';' | b'\n') => {
                self.i += 1;
                Some(())
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{is_read_only, is_read_only_with_dynamic, script_is_read_only as ok};

    fn sed(args: &[&str]) -> bool {
        let args: Vec<String> = args.iter().map(|a| (*a).to_string()).collect();
        is_read_only(&args)
    }

    #[test]
    fn bash4_sed_grammar_accepts_the_small_language() {
        for s in [
            "p",
            "1,5p",
            "/foo/p",
            "/a\\/b/Ip",
            "/a/ I p",
            "/a/IM,/b/Mp",
            "$p",
            "1~2p",
            "0~3p",
            "/x/,+3p",
            "/x/,~4p",
            "1 , 3 ! p",
            "1!G;h;$p",
            "s/a/b/gp",
            "s/a/b/ g p",
            "s|a|b|2",
            "s/a/b/3g;p",
            "s,x,[y],p",
            "s/a\\|b/&&/Ip",
            "y/abc/xyz/",
            "y,a\\,b,xyz,",
            "/x/{p;q}",
            "/x/{p};p",
            "{p;};p",
            "{\n/a/ {\np\n}\n}",
            "l",
            "l 40",
            "l;p",
            "q",
            "q5",
            "Q 3",
            "=",
            "n;N;d;D;g;G;h;H;x;P",
            "\\,x,p",
            "\\%a/b%p",
            ";;p;;",
            "  p  ",
            "p\n\np",
            "s/é/ü/p",
        ] {
            assert!(ok(s), "{s:?}");
        }
    }

    #[test]
    fn bash4_sed_grammar_refuses_everything_else() {
        for s in [
            // The attack: GNU ends the label at the blank, so `e` runs.
            ":a e touch /tmp/x",
            ":a;e touch /tmp/x",
            ":a\ne touch /tmp/x",
            ":a",
            "ba",
            "b",
            "t",
            "T x",
            ":a;N;ba",
            // Writes, reads, runs.
            "w out",
            "1w out",
            "/x/W out",
            "e",
            "1e id",
            "e touch /tmp/x",
            "r /etc/passwd",
            "R f",
            "v",
            "F",
            "z",
            "s/a/b/w out",
            "s/a/b/e",
            "s/a/b/gw out",
            "s/a/b/ w out",
            "s/a/b/ e",
            "p;w out",
            "p w out",
            // Text commands and comments run to the newline in GNU.
            "a text; w out",
            "i\\\nx",
            "c x",
            "# comment\ne id",
            "#n\np",
            "p # c",
            "p;# c",
            // A bracket expression can hide the delimiter.
            "s/[/]/e;/x/",
            "/[/]/p",
            "s/[a]/b/p",
            "\\,[,],p",
            "y/[/x/",
            // Newlines and escapes not modelled.
            "s/a/b\\\nw x/",
            "s/a/b\nc/",
            "s/\\c//x/",
            "/a\nb/p",
            "p\r",
            "p\x0bp",
            // Malformed.
            "s/a/b",
            "s/a",
            "/unterminated",
            "k",
            "1!!p",
            "1,p",
            ",2p",
            "1~p",
            "}",
            "{p",
            "1}",
            "{p;1}",
            "pp",
            "p x",
            "q x",
            "l 4 5",
            "s\\a\\b\\",
            "s\na\nb\n",
            "sxaxbx",
            "s[a[b[",
            "s/a/b/x",
            "y/a/",
        ] {
            assert!(!ok(s), "{s:?}");
        }
        // An empty script does nothing.
        assert!(ok("") && sed(&["-n", ""]));
    }

    #[test]
    fn bash4_sed_exact_attack_is_not_read_only() {
        assert!(!sed(&["-n", ":a e touch /tmp/x", "README.md"]));
        assert!(!sed(&["-n", "-e", ":a e touch /tmp/x", "README.md"]));
    }

    #[test]
    fn bash4_sed_getopt_bundled_and_attached_options() {
        for args in [
            &["-n", "p", "f"][..],
            &["-n", "-e", "p", "f"],
            &["-ne", "p", "f"],
            &["-nep", "f"],
            &["-ne", "p"],
            &["-En", "s/a+/b/p"],
            &["-nrzu", "p"],
            &["-nl5", "l"],
            &["-n", "-l", "5", "l"],
            &["-e", "p", "-n", "f"],
            &["p", "-n", "f"],
            &["-n", "--", "p", "-i"],
            &["-n", "p", "-"],
            &["-n", "-e", "/a/{", "-e", "p", "-e", "}"],
            &["-n", "-e", "1p", "-e", "$p"],
            // `-e'p'` in the shell: `-ep` after quote removal.
            &["-ep", "-n"],
            // Without `-n` sed prints every line too: output, no write.
            &["p", "f"],
            &["-e", "p"],
            &["s/a/b/", "file"],
            // `-en p`: the script is `n`, `p` a file to read.
            &["-en", "p"],
        ] {
            assert!(sed(args), "{args:?}");
        }
        for args in [
            &["-n"][..],
            &["-n", "-e"],
            &["-n", "-l"],
            &["-n", "-l", "x", "p"],
            &["-ni", "p", "f"],
            &["-n", "-i", "p", "f"],
            &["-n", "-i.bak", "p", "f"],
            &["-in", "p", "f"],
            &["-s", "-n", "p"],
            &["-ns", "p"],
            &["-n", "-f", "script.sed"],
            &["-nf", "script.sed"],
            &["-n", "-x", "p"],
            &["-n5", "p"],
            &["s/a/b/w out", "f"],
            &["-i", "s/a/b/", "f"],
            // Joined -e parts: the second completes an `s` replacement.
            &["-n", "-e", "s/a/b\\", "-e", "w x/"],
            &["-n", "-e", "p", "-e", "w out"],
            &["-n", "-e", "/a/{", "-e", "p"],
            &["-n", "p", "-e", "w out"],
        ] {
            assert!(!sed(args), "{args:?}");
        }
    }

    #[test]
    fn bash4_sed_getopt_long_option_abbreviations() {
        for args in [
            &["--quiet", "p"][..],
            &["--qui", "p"],
            &["--q", "p"],
            &["--silent", "p"],
            &["--si", "p"],
            &["-n", "--expression=p"],
            &["-n", "--expr=p"],
            &["-n", "--e=p"],
            &["-n", "--expression", "p"],
            &["-n", "--e", "p", "f"],
            &["-n", "--line-length=5", "l"],
            &["-n", "--line", "5", "l"],
            &["-n", "--regexp-extended", "p"],
            &["-n", "--r", "p"],
            &["-n", "--null-data", "p"],
            &["-n", "--zero-terminated", "p"],
            &["-n", "--posix", "p"],
            &["-n", "--debug", "p"],
            &["-n", "--sandbox", "p"],
            &["-n", "--sa", "p"],
            &["-n", "--unbuffered", "p"],
        ] {
            assert!(sed(args), "{args:?}");
        }
        for args in [
            // `--s` is ambiguous (silent, separate, sandbox).
            &["--s", "p"][..],
            &["-n", "--se", "p"],
            &["-n", "--separate", "p"],
            &["-n", "--in-place", "p", "f"],
            &["-n", "--in-place=.bak", "p", "f"],
            &["-n", "--i", "p", "f"],
            &["-n", "--in", "p", "f"],
            &["-n", "--file=x.sed"],
            &["-n", "--fi", "x.sed"],
            // `--f`: file or follow-symlinks.
            &["-n", "--f", "x.sed"],
            &["-n", "--follow-symlinks", "p"],
            &["-n", "--quiet=1", "p"],
            &["-n", "--expression"],
            &["-n", "--expression=w out"],
            &["-n", "--e=e id"],
            &["-n", "--", "p", "--in-place"],
            &["-n", "--help"],
            &["-n", "--version"],
            &["-n", "--", "-i"],
            &["-n", "--unknown", "p"],
            &["-n", "---", "p"],
        ] {
            // `-n -- p --in-place`: `--in-place` is a file; still read-only.
            let expected = args == ["-n", "--", "p", "--in-place"];
            assert_eq!(sed(args), expected, "{args:?}");
        }
    }

    #[test]
    fn bash4_sed_dynamic_words_only_as_files_after_double_dash() {
        let run = |args: &[&str], dynamic: &[bool]| {
            let args: Vec<String> = args.iter().map(|a| (*a).to_string()).collect();
            is_read_only_with_dynamic(&args, dynamic)
        };
        assert!(run(&["-n", "p", "--", "$F"], &[false, false, false, true]));
        assert!(run(
            &["-n", "-e", "p", "--", "*.rs"],
            &[false, false, false, false, true]
        ));
        // `$X` may expand to `-e 1e id`: getopt would read it as options.
        assert!(!run(&["-n", "p", "$X"], &[false, false, true]));
        assert!(!run(&["-n", "p", "*.rs"], &[false, false, true]));
        assert!(!run(&["-n", "$X", "f"], &[false, true, false]));
        assert!(!run(&["-n", "-e", "$X", "f"], &[false, false, true, false]));
        assert!(!run(&["-n", "--", "$X", "f"], &[false, false, true, false]));
        assert!(!run(&["-n", "-l", "$X", "p"], &[false, false, true, false]));
        // Missing flags mean static.
        assert!(run(&["-n", "p", "f"], &[]));
    }
}
