//! `sed -n` as a read-only filter (BASH-4): options and script are checked so
//! that no form can write a file (`-i`, `w`, `W`, `s///w`) or run a program
//! (`e`, `s///e`). Anything not understood is not read-only.

/// `args` are the words after `sed`.
pub(crate) fn is_read_only(args: &[String]) -> bool {
    let mut quiet = false;
    let mut has_expression = false;
    let mut first_operand: Option<&str> = None;
    let mut options_done = false;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if options_done || arg == "-" || !arg.starts_with('-') {
            first_operand.get_or_insert(arg);
            continue;
        }
        if arg == "--" {
            options_done = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            match (name, value) {
                ("quiet" | "silent", None) => quiet = true,
                (
                    "regexp-extended" | "separate" | "unbuffered" | "null-data" | "posix" | "debug"
                    | "sandbox",
                    None,
                ) => {}
                ("line-length", Some(_)) => {}
                ("line-length", None) => i += 1,
                ("expression", value) => {
                    let script = match value {
                        Some(v) => v,
                        None => match args.get(i) {
                            Some(next) => {
                                i += 1;
                                next.as_str()
                            }
                            None => return false,
                        },
                    };
                    if !script_is_read_only(script) {
                        return false;
                    }
                    has_expression = true;
                }
                // --in-place, --file, --follow-symlinks, abbreviations, …
                _ => return false,
            }
            continue;
        }
        // A short-option cluster such as `-ne`.
        let cluster = &arg[1..];
        for (pos, c) in cluster.char_indices() {
            match c {
                'n' => quiet = true,
                'E' | 'r' | 's' | 'u' | 'z' => {}
                'e' | 'l' => {
                    let rest = &cluster[pos + 1..];
                    let value = if rest.is_empty() {
                        match args.get(i) {
                            Some(next) => {
                                i += 1;
                                next.as_str()
                            }
                            None => return false,
                        }
                    } else {
                        rest
                    };
                    if c == 'e' {
                        if !script_is_read_only(value) {
                            return false;
                        }
                        has_expression = true;
                    }
                    break;
                }
                // -i (in place), -f (script file), anything unknown.
                _ => return false,
            }
        }
    }
    if !has_expression {
        match first_operand {
            Some(script) if script_is_read_only(script) => {}
            _ => return false,
        }
    }
    quiet
}

/// GNU sed script syntax, conservatively: every command is recognised, and
/// `w`, `W`, `e` and the `s` flags `w`/`e` are refused.
pub(crate) fn script_is_read_only(script: &str) -> bool {
    let b = script.as_bytes();
    let mut i = 0;
    loop {
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b';') {
            i += 1;
        }
        if i >= b.len() {
            return true;
        }
        let Some(next) = address(b, i) else {
            return false;
        };
        i = skip_blanks(b, next);
        if b.get(i) == Some(&b',') {
            i = skip_blanks(b, i + 1);
            i = match b.get(i) {
                Some(b'+' | b'~') => skip_digits(b, i + 1),
                _ => match address(b, i) {
                    Some(n) => n,
                    None => return false,
                },
            };
            i = skip_blanks(b, i);
        }
        while b.get(i) == Some(&b'!') {
            i = skip_blanks(b, i + 1);
        }
        let Some(&cmd) = b.get(i) else {
            return false;
        };
        i += 1;
        i = match cmd {
            b'{' | b'}' | b'=' | b'd' | b'D' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p'
            | b'P' | b'x' | b'z' | b'F' => i,
            b'l' | b'q' | b'Q' => skip_digits(b, skip_blanks(b, i)),
            b'#' => skip_to(b, i, false),
            // Labels, text and file names to read end at `;` or a newline
            // here, so whatever follows is still checked.
            b':' | b'b' | b't' | b'T' | b'a' | b'i' | b'c' | b'r' | b'R' | b'v' => {
                skip_to(b, i, true)
            }
            b'y' => match delimited(b, i, 2) {
                Some(n) => n,
                None => return false,
            },
            b's' => match substitute(b, i) {
                Some(n) => n,
                None => return false,
            },
            // w, W, e and everything unknown.
            _ => return false,
        };
    }
}

fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

fn skip_digits(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    i
}

/// Skips to the end of the line (or `;`), honouring backslash escapes.
fn skip_to(b: &[u8], mut i: usize, stop_at_semicolon: bool) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\n' => return i,
            b';' if stop_at_semicolon => return i,
            _ => i += 1,
        }
    }
    b.len()
}

/// An optional address at `i`; returns the index after it.
fn address(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i) {
        Some(c) if c.is_ascii_digit() => {
            let mut j = skip_digits(b, i);
            if b.get(j) == Some(&b'~') {
                j = skip_digits(b, j + 1);
            }
            Some(j)
        }
        Some(b'$') => Some(i + 1),
        Some(b'/') => regex_flags(b, delimited(b, i, 1)?),
        Some(b'\\') => {
            let delim = *b.get(i + 1)?;
            if delim == b'\n' || delim == b'\\' {
                return None;
            }
            regex_flags(b, delimited(b, i + 1, 1)?)
        }
        _ => Some(i),
    }
}

fn regex_flags(b: &[u8], mut i: usize) -> Option<usize> {
    while matches!(b.get(i), Some(b'I' | b'M')) {
        i += 1;
    }
    Some(i)
}

/// `parts` delimited sections starting at the delimiter at `i`; returns the
/// index after the last delimiter.
fn delimited(b: &[u8], i: usize, parts: usize) -> Option<usize> {
    let delim = *b.get(i)?;
    if matches!(delim, b'\n' | b'\\') {
        return None;
    }
    let mut j = i + 1;
    let mut seen = 0;
    while seen < parts {
        match b.get(j)? {
            b'\\' => j += 2,
            c if *c == delim => {
                seen += 1;
                j += 1;
            }
            _ => j += 1,
        }
    }
    Some(j)
}

/// `s/regex/replacement/flags` after the `s`; refuses the `w` and `e` flags.
fn substitute(b: &[u8], i: usize) -> Option<usize> {
    let mut j = delimited(b, i, 2)?;
    while let Some(&c) = b.get(j) {
        match c {
            b'g' | b'p' | b'i' | b'I' | b'm' | b'M' | b'0'..=b'9' => j += 1,
            b';' | b'\n' | b' ' | b'\t' | b'}' => return Some(j),
            _ => return None,
        }
    }
    Some(j)
}

#[cfg(test)]
mod tests {
    use super::script_is_read_only as ok;

    #[test]
    fn bash4_sed_scripts() {
        for s in [
            "p",
            "1,5p",
            "/foo/p",
            "/a\\/b/Ip",
            "$p",
            "1~2p",
            "/x/,+3p",
            "s/a/b/gp",
            "s|a|b|2",
            "y/abc/xyz/",
            "/x/{p;q}",
            "1!G;h;$p",
            "l 40",
            ":a;N;ba",
            "\\,x,p",
            "# comment w x\np",
        ] {
            assert!(ok(s), "{s}");
        }
        for s in [
            "w out",
            "1w out",
            "/x/W out",
            "e",
            "1e id",
            "s/a/b/w out",
            "s/a/b/e",
            "s/a/b/gw out",
            "p;w out",
            "ba;w out",
            "r in; w out",
            "a text; w out",
            "s/a/b",
            "/unterminated",
            "k",
        ] {
            assert!(!ok(s), "{s}");
        }
    }
}
