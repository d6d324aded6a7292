//! One word's raw token text: static or dynamic (BASH-1), and its value after
//! quote removal (BASH-2).

/// Quote removal for a word that contains nothing the shell would expand.
///
/// Returns `None` when the word is dynamic: parameter, command, arithmetic or
/// process substitution (`$…`, backticks), an unquoted glob (`* ? [`), an
/// extended glob or stray parenthesis, brace expansion (`{a,b}`, `{1..3}`), or
/// a tilde expansion other than a leading `~/`. A `$` inside single quotes is
/// literal; inside double quotes it expands, so it is dynamic there too.
pub(crate) fn static_value(raw: &str) -> Option<String> {
    // A lone `[` has no closing bracket, so no glob can match it: the shell
    // keeps it as it is (the `[ -d x ]` form of `test`).
    if raw == "[" {
        return Some(raw.to_string());
    }
    match read(raw, false)? {
        Reading::Static(value) => Some(value),
        Reading::Dynamic => None,
    }
}

/// A word whose only expansions are plain parameters (`$NAME`, `${NAME}`,
/// `$1`, `$@`, also in double quotes), a lone `~` and unquoted globs (`*`,
/// `?`, `[…]`):
/// what a sandboxed analysis accepts as an argument. `false` for a static
/// word and for every other expansion (operators such as `${X:=a}`,
/// command, arithmetic and process substitution, brace and tilde
/// expansion).
pub(crate) fn is_plain_dynamic(raw: &str) -> bool {
    matches!(read(raw, true), Some(Reading::Dynamic))
}

enum Reading {
    Static(String),
    /// Only plain parameters and globs expand (when they were accepted).
    Dynamic,
}

/// Reads a word's quoting; plain parameters and globs make it `Dynamic`
/// when `accept_plain` holds and refuse it otherwise; every other
/// expansion refuses it.
fn read(raw: &str, accept_plain: bool) -> Option<Reading> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    let mut quote = Quote::None;
    let mut dynamic = false;
    // The previous character was an unquoted, unescaped one of these.
    let mut prev_unquoted: Option<char> = None;
    let mut at_start = true;
    // Brace expansion needs an unquoted `{`, then `,` or `..`, then `}`.
    let mut open_braces = 0usize;
    let mut brace_separator = false;

    while let Some(c) = chars.next() {
        let first = at_start;
        at_start = false;
        match quote {
            Quote::Single => {
                if c == '\'' {
                    quote = Quote::None;
                } else {
                    out.push(c);
                }
                prev_unquoted = None;
            }
            Quote::Double => {
                match c {
                    '"' => quote = Quote::None,
                    '$' if accept_plain => {
                        plain_parameter(&mut chars)?;
                        dynamic = true;
                    }
                    '$' | '`' => return None,
                    '\\' => match chars.next() {
                        Some(e @ ('$' | '`' | '"' | '\\')) => out.push(e),
                        Some('\n') => {}
                        Some(e) => {
                            out.push('\\');
                            out.push(e);
                        }
                        None => return None,
                    },
                    _ => out.push(c),
                }
                prev_unquoted = None;
            }
            Quote::None => {
                match c {
                    '\\' => match chars.next() {
                        Some('\n') => {}
                        Some(e) => out.push(e),
                        None => return None,
                    },
                    '\'' => quote = Quote::Single,
                    '"' => quote = Quote::Double,
                    '$' if accept_plain => {
                        plain_parameter(&mut chars)?;
                        dynamic = true;
                    }
                    '*' | '?' | '[' if accept_plain => dynamic = true,
                    '$' | '`' | '*' | '?' | '[' | '(' | ')' => return None,
                    '~' => {
                        let expands = first || matches!(prev_unquoted, Some('=' | ':'));
                        if expands && chars.peek() != Some(&'/') {
                            // A lone `~` is the home directory: a path, like
                            // `$HOME`, where plain parameters are accepted.
                            if !(accept_plain && chars.peek().is_none()) {
                                return None;
                            }
                            dynamic = true;
                        }
                        out.push(c);
                    }
                    '{' => {
                        open_braces += 1;
                        out.push(c);
                    }
                    '}' => {
                        if open_braces > 0 {
                            if brace_separator {
                                return None;
                            }
                            open_braces -= 1;
                        }
                        out.push(c);
                    }
                    ',' => {
                        brace_separator |= open_braces > 0;
                        out.push(c);
                    }
                    '.' => {
                        brace_separator |= open_braces > 0 && chars.peek() == Some(&'.');
                        out.push(c);
                    }
                    _ => out.push(c),
                }
                prev_unquoted = (c != '\\').then_some(c);
            }
        }
    }
    if quote != Quote::None {
        return None;
    }
    Some(if dynamic {
        Reading::Dynamic
    } else {
        Reading::Static(out)
    })
}

/// After a `$`: consumes `NAME`, `{NAME}`, `{N}`, one digit or one special
/// parameter; `None` for anything else (an operator form, `$(`, a literal
/// `$`).
fn plain_parameter(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<()> {
    let is_name_start = |c: char| c.is_ascii_alphabetic() || c == '_';
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
    match chars.next()? {
        '{' => {
            let first = chars.next()?;
            let fits = |c: char| {
                if is_name_start(first) {
                    is_name_char(c)
                } else {
                    c.is_ascii_digit()
                }
            };
            if !fits(first) || !(is_name_start(first) || first.is_ascii_digit()) {
                return None;
            }
            loop {
                match chars.next()? {
                    '}' => return Some(()),
                    c if fits(c) => {}
                    _ => return None,
                }
            }
        }
        c if is_name_start(c) => {
            while chars.peek().is_some_and(|c| is_name_char(*c)) {
                chars.next();
            }
            Some(())
        }
        '0'..='9' | '@' | '*' | '#' | '?' | '$' | '!' | '-' => Some(()),
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Single,
    Double,
}

#[cfg(test)]
mod tests {
    use super::{is_plain_dynamic, static_value};

    #[test]
    fn bash1_quote_removal() {
        assert_eq!(static_value("'a b'").as_deref(), Some("a b"));
        assert_eq!(static_value(r#""a\"b""#).as_deref(), Some("a\"b"));
        assert_eq!(static_value(r#""a\nb""#).as_deref(), Some("a\\nb"));
        assert_eq!(static_value(r"a\ b").as_deref(), Some("a b"));
        assert_eq!(static_value("'$HOME'").as_deref(), Some("$HOME"));
        assert_eq!(static_value("'*.rs'").as_deref(), Some("*.rs"));
        assert_eq!(static_value(r"\*").as_deref(), Some("*"));
        assert_eq!(static_value("~/x").as_deref(), Some("~/x"));
        assert_eq!(static_value("HEAD~3").as_deref(), Some("HEAD~3"));
        assert_eq!(static_value("HEAD@{1}").as_deref(), Some("HEAD@{1}"));
        assert_eq!(static_value("{}").as_deref(), Some("{}"));
        assert_eq!(static_value("[").as_deref(), Some("["));
        assert_eq!(static_value("[a").as_deref(), None);
    }

    #[test]
    fn bash1_dynamic_words() {
        for w in [
            "$HOME",
            "${X}",
            "\"$X\"",
            "`id`",
            "\"`id`\"",
            "$(id)",
            "$((1+2))",
            "*.rs",
            "a?",
            "[ab]",
            "{a,b}",
            "x{1..3}",
            "~",
            "~root",
            "~+",
            "A=~x",
            "$'a'",
            "@(a|b)",
            "'unterminated",
        ] {
            assert_eq!(static_value(w), None, "{w}");
        }
    }

    #[test]
    fn bash1_plain_dynamic_words() {
        for w in [
            "$HOME",
            "${HOME}",
            "\"$HOME\"",
            "\"$HOME/.config\"",
            "$1",
            "${10}",
            "\"$@\"",
            "$#",
            "*.rs",
            "src/*",
            "?",
            "[ab]",
            "src/$DIR/*.rs",
            "'*'$X",
            "a${B}c",
            "\"${X}\"*",
            // The home directory alone; `~user`, `~+` stay refused.
            "~",
        ] {
            assert!(is_plain_dynamic(w), "{w}");
        }
        for w in [
            "plain",
            "'$HOME'",
            "\\$HOME",
            "${X:=a}",
            "${X:-a}",
            "${X/a/b}",
            "${#X}",
            "${!X}",
            "${X[0]}",
            "${}",
            "${X",
            "$(id)",
            "\"$(id)\"",
            "$((1))",
            "`id`",
            "\"`id`\"",
            "{a,b}",
            "$X{a,b}",
            "x{1..3}*",
            "$'a'",
            "$\"a\"",
            "a$",
            "$",
            "@(a)",
            "*(a)",
            "\"$X",
            "~root",
            "~+",
        ] {
            assert!(!is_plain_dynamic(w), "{w}");
        }
    }
}
