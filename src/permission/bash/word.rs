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
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    let mut quote = Quote::None;
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
                    '$' | '`' | '*' | '?' | '[' | '(' | ')' => return None,
                    '~' => {
                        let expands = first || matches!(prev_unquoted, Some('=' | ':'));
                        if expands && chars.peek() != Some(&'/') {
                            return None;
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
    (quote == Quote::None).then_some(out)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Single,
    Double,
}

#[cfg(test)]
mod tests {
    use super::static_value;

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
}
