//! A command file's placeholders: `$ARGUMENTS` is the whole argument text,
//! `$1`, `$2` … its words, split as a shell would split them (quotes group,
//! a backslash escapes) but never expanded or run; a missing word is empty.
//! A body with no placeholder gets the arguments appended as a last
//! `ARGUMENTS: …` paragraph, so what the user typed is never lost.

/// `args` split into words: whitespace separates, `'…'` is literal,
/// `"…"` groups with `\"` and `\\` escapes, a backslash outside quotes
/// takes the next character as it is. An unclosed quote runs to the end.
pub(crate) fn split_words(args: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = args.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some(next @ ('"' | '\\')) => word.push(next),
                            Some(next) => {
                                word.push('\\');
                                word.push(next);
                            }
                            None => word.push('\\'),
                        },
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// `body` with its placeholders replaced from `args`, in one pass (a word
/// holding `$1` is not expanded again).
pub(crate) fn substitute(body: &str, args: &str) -> String {
    let args = args.trim();
    let words = split_words(args);
    let mut out = String::with_capacity(body.len() + args.len());
    let mut used = false;
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(args);
            used = true;
            rest = tail;
            continue;
        }
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        match after[..digits].parse::<usize>() {
            Ok(n) if n >= 1 => {
                out.push_str(words.get(n - 1).map_or("", String::as_str));
                used = true;
                rest = &after[digits..];
            }
            _ => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    if !used && !args.is_empty() {
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        out.push_str(&format!("\n\nARGUMENTS: {args}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_args_split_like_a_shell_without_running_anything() {
        assert_eq!(split_words("a  b\tc"), ["a", "b", "c"]);
        assert_eq!(
            split_words(r#""two words" 'it''s' x\ y"#),
            ["two words", "its", "x y"]
        );
        assert_eq!(
            split_words(r#""say \"hi\"" '$(rm -rf /)'"#),
            [r#"say "hi""#, "$(rm -rf /)"]
        );
        assert_eq!(split_words(r#""unclosed"#), ["unclosed"]);
        assert_eq!(split_words("''"), [""]);
        assert!(split_words("   ").is_empty());
    }

    #[test]
    fn command_arguments_and_positionals_are_replaced() {
        let body = "Fix issue #$1 in $2 ($3). All: $ARGUMENTS. Cost: $5, $$, $0.";
        assert_eq!(
            substitute(body, " 42 \"src/main rs\" "),
            "Fix issue #42 in src/main rs (). All: 42 \"src/main rs\". Cost: , $$, $0."
        );
    }

    #[test]
    fn command_substitution_is_one_pass() {
        assert_eq!(substitute("[$1] [$2]", "$2 x"), "[$2] [x]");
        assert_eq!(substitute("$ARGUMENTS$1", "$1"), "$1$1");
    }

    #[test]
    fn command_without_placeholder_gets_arguments_appended() {
        assert_eq!(
            substitute("Review the code.\n", "src/a.rs"),
            "Review the code.\n\nARGUMENTS: src/a.rs"
        );
        assert_eq!(substitute("Review the code.\n", "  "), "Review the code.\n");
    }
}
