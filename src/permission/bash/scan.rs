//! An independent scanner of Bash word and operator boundaries (BASH-1).
//!
//! brush-parser and Bash disagree on some inputs (brush opens ANSI-C quoting
//! after an *escaped* `$`, and does not join an operator split by a line
//! continuation), and one disagreement is enough to hide a command inside
//! what the analysis takes for a quoted argument. This scanner follows
//! Bash's lexer for the small subset of the language a safe parse may use;
//! its tokens are compared with brush's, and any difference, or anything the
//! scanner does not fully model, makes the parse unsafe.
//!
//! Modelled: blanks (space, tab), comments (`#` at the start of a word, to
//! the newline), line continuations (backslash-newline, removed outside
//! single quotes and comments, also inside operators), backslash escapes,
//! single and double quotes, `$NAME`, `${NAME}`, special parameters, and the
//! operators `;` `&` `&&` `|` `||` `|&` newline `<` `>` `>>` `>|` `<>` `<&`
//! `>&` `&>` `&>>`. Refused: parentheses, backticks, `$(`, `$[`, `$'`,
//! `$"`, any other `${…}`, here-documents and here-strings, case
//! terminators, `{var}>` redirections, and subscripted words (`a[x y]=1`,
//! which Bash reads through blanks).

/// One token as Bash reads it. A word's text is its source text without
/// line continuations (what brush-parser reports too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ScanToken {
    Word {
        text: String,
        /// A digit word directly followed by `<` or `>`: a descriptor number.
        io_number: bool,
    },
    Operator(&'static str),
}

/// Operators a safe parse may contain, longest first for maximal munch.
const OPERATORS: &[&str] = &[
    "&>>", "&&", "&>", "||", "|&", ">>", ">|", ">&", "<>", "<&", "&", "|", ";", "<", ">", "\n",
];

/// Operator spellings Bash reads but a safe parse refuses (here-documents,
/// here-strings, case terminators). Every prefix of an operator is an
/// operator, so munching stops at the first longer spelling not listed.
const REFUSED_OPERATORS: &[&str] = &["<<", "<<-", "<<<", ";;", ";&", ";;&"];

/// Scans `command`; `None` when it uses anything outside the modelled subset.
pub(crate) fn scan(command: &str) -> Option<Vec<ScanToken>> {
    let mut s = Scanner {
        chars: command.chars().collect(),
        pos: 0,
    };
    let mut tokens = Vec::new();
    loop {
        s.skip_blanks();
        let Some(c) = s.peek() else {
            return Some(tokens);
        };
        match c {
            '#' => s.skip_comment(),
            '(' | ')' => return None,
            _ if is_operator_start(c) => tokens.push(ScanToken::Operator(s.operator()?)),
            _ => {
                let text = s.word()?;
                let next = s.peek();
                let redirect_follows = matches!(next, Some('<' | '>'));
                // `{fd}>file` allocates a descriptor in Bash; brush reads a word.
                if redirect_follows && text.starts_with('{') && text.ends_with('}') {
                    return None;
                }
                let io_number = redirect_follows && text.bytes().all(|b| b.is_ascii_digit());
                tokens.push(ScanToken::Word { text, io_number });
            }
        }
    }
}

fn is_operator_start(c: char) -> bool {
    matches!(c, '&' | ';' | '|' | '<' | '>' | '\n')
}

/// Characters that end an unquoted word.
fn ends_word(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')'
    )
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

struct Scanner {
    chars: Vec<char>,
    pos: usize,
}

impl Scanner {
    /// Skips line continuations; Bash removes them before it looks at a
    /// character anywhere but in single quotes and comments.
    fn skip_continuations(&mut self) {
        while self.chars.get(self.pos) == Some(&'\\') && self.chars.get(self.pos + 1) == Some(&'\n')
        {
            self.pos += 2;
        }
    }

    /// The next character after any line continuations.
    fn peek(&mut self) -> Option<char> {
        self.skip_continuations();
        self.chars.get(self.pos).copied()
    }

    /// The next character as is (single quotes, comments).
    fn next_raw(&mut self) -> Option<char> {
        let c = self.chars.get(self.pos).copied()?;
        self.pos += 1;
        Some(c)
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.pos += 1;
        }
    }

    /// A comment runs to the newline (which stays: it separates commands);
    /// a backslash does not continue it.
    fn skip_comment(&mut self) {
        while let Some(&c) = self.chars.get(self.pos) {
            if c == '\n' {
                return;
            }
            self.pos += 1;
        }
    }

    fn operator(&mut self) -> Option<&'static str> {
        let mut spelled = String::new();
        while let Some(c) = self.peek() {
            let mut longer = spelled.clone();
            longer.push(c);
            let known = OPERATORS.contains(&longer.as_str())
                || REFUSED_OPERATORS.contains(&longer.as_str());
            if !known {
                break;
            }
            spelled = longer;
            self.pos += 1;
        }
        OPERATORS.iter().copied().find(|op| *op == spelled)
    }

    fn word(&mut self) -> Option<String> {
        let mut text = String::new();
        // The word so far is an unquoted name: a `[` would open a subscript.
        let mut name_so_far = true;
        while let Some(c) = self.peek() {
            if ends_word(c) {
                if matches!(c, '(' | ')') {
                    return None;
                }
                break;
            }
            self.pos += 1;
            match c {
                '`' => return None,
                '\\' => {
                    text.push(c);
                    // A trailing backslash: brush errs, Bash keeps it.
                    text.push(self.next_raw()?);
                }
                '\'' => {
                    // brush reads `$'` as ANSI-C quoting even after `\$` or `$$`.
                    if text.ends_with('$') {
                        return None;
                    }
                    text.push(c);
                    loop {
                        let q = self.next_raw()?;
                        text.push(q);
                        if q == '\'' {
                            break;
                        }
                    }
                }
                '"' => {
                    text.push(c);
                    self.double_quoted(&mut text)?;
                }
                '$' => {
                    text.push(c);
                    self.dollar(&mut text, false)?;
                }
                '[' if name_so_far && !text.is_empty() => return None,
                _ => text.push(c),
            }
            name_so_far = name_so_far
                && (if text.len() == 1 {
                    is_name_start(c)
                } else {
                    is_name_char(c)
                });
        }
        Some(text)
    }

    /// The rest of a double-quoted string, closing quote included.
    fn double_quoted(&mut self, text: &mut String) -> Option<()> {
        loop {
            let c = self.peek()?;
            self.pos += 1;
            match c {
                '"' => {
                    text.push(c);
                    return Some(());
                }
                '`' => return None,
                '\\' => {
                    text.push(c);
                    text.push(self.next_raw()?);
                }
                '$' => {
                    text.push(c);
                    self.dollar(text, true)?;
                }
                _ => text.push(c),
            }
        }
    }

    /// After a `$`: a parameter name, a special parameter, `${NAME}`, or a
    /// literal `$`. Every other expansion is refused.
    fn dollar(&mut self, text: &mut String, in_double_quotes: bool) -> Option<()> {
        match self.peek() {
            Some('(' | '[' | '`' | '\'') => None,
            Some('"') if !in_double_quotes => None,
            Some('{') => {
                self.pos += 1;
                text.push('{');
                let first = self.peek()?;
                if !(is_name_start(first) || first.is_ascii_digit()) {
                    return None;
                }
                while let Some(c) = self.peek() {
                    self.pos += 1;
                    text.push(c);
                    if c == '}' {
                        return Some(());
                    }
                    let fits = if is_name_start(first) {
                        is_name_char(c)
                    } else {
                        c.is_ascii_digit()
                    };
                    if !fits {
                        return None;
                    }
                }
                None
            }
            Some(c) if is_name_start(c) => {
                while let Some(c) = self.peek().filter(|c| is_name_char(*c)) {
                    self.pos += 1;
                    text.push(c);
                }
                Some(())
            }
            Some(c @ ('0'..='9' | '@' | '*' | '#' | '?' | '$' | '!' | '-')) => {
                self.pos += 1;
                text.push(c);
                Some(())
            }
            // A `$` before a blank, a slash, the end, …: literal.
            _ => Some(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ScanToken, scan};

    fn words(command: &str) -> Option<Vec<String>> {
        scan(command).map(|tokens| {
            tokens
                .into_iter()
                .map(|t| match t {
                    ScanToken::Word { text, .. } => text,
                    ScanToken::Operator(op) => format!("<{op}>"),
                })
                .collect()
        })
    }

    #[test]
    fn bash1_scan_words_and_operators() {
        let cases: &[(&str, &[&str])] = &[
            ("ls -la", &["ls", "-la"]),
            (
                "a&&b||c|d|&e;f&g",
                &[
                    "a", "<&&>", "b", "<||>", "c", "<|>", "d", "<|&>", "e", "<;>", "f", "<&>", "g",
                ],
            ),
            (
                "echo 'a b' \"c d\" e\\ f",
                &["echo", "'a b'", "\"c d\"", "e\\ f"],
            ),
            (
                r"echo \$ '\' ; touch x ; echo '\'",
                &[
                    "echo", r"\$", r"'\'", "<;>", "touch", "x", "<;>", "echo", r"'\'",
                ],
            ),
            ("echo a#b #c d\nls", &["echo", "a#b", "<\n>", "ls"]),
            ("echo \\\n#x", &["echo"]),
            ("echo a # b \\\nls", &["echo", "a", "<\n>", "ls"]),
            ("true &\\\n& ls", &["true", "<&&>", "ls"]),
            ("ec\\\nho 'a\\\nb'", &["echo", "'a\\\nb'"]),
            (
                "ls 2>&1 >/dev/null &>/dev/null &>>x >|y <>z <&0",
                &[
                    "ls",
                    "2",
                    "<>&>",
                    "1",
                    "<>>",
                    "/dev/null",
                    "<&>>",
                    "/dev/null",
                    "<&>>>",
                    "x",
                    "<>|>",
                    "y",
                    "<<>>",
                    "z",
                    "<<&>",
                    "0",
                ],
            ),
            (
                "echo $HOME ${X} \"$Y\" $1 $@ $# a$ $",
                &[
                    "echo", "$HOME", "${X}", "\"$Y\"", "$1", "$@", "$#", "a$", "$",
                ],
            ),
            ("echo \"a'b\" 'a\"b'", &["echo", "\"a'b\"", "'a\"b'"]),
            ("echo \"\\\"\" x", &["echo", "\"\\\"\"", "x"]),
            ("echo a\rb", &["echo", "a\rb"]),
            ("echo a\u{a0}b；c", &["echo", "a\u{a0}b；c"]),
        ];
        for (command, expected) in cases {
            let expected: Vec<String> = expected.iter().map(|w| (*w).to_string()).collect();
            assert_eq!(words(command), Some(expected), "{command:?}");
        }
    }

    #[test]
    fn bash1_scan_io_numbers() {
        let io = |c: &str| {
            scan(c).map(|t| {
                t.iter()
                    .filter(|t| {
                        matches!(
                            t,
                            ScanToken::Word {
                                io_number: true,
                                ..
                            }
                        )
                    })
                    .count()
            })
        };
        assert_eq!(io("ls 2>&1"), Some(1));
        assert_eq!(io("ls 2 >&1"), Some(0));
        assert_eq!(io("ls 2\\\n>&1"), Some(1));
        assert_eq!(io("ls a2>&1"), Some(0));
    }

    #[test]
    fn bash1_scan_refuses_what_it_does_not_model() {
        for command in [
            "echo $(id)",
            "echo `id`",
            "echo \"`id`\"",
            "echo $((1))",
            "echo $[1]",
            "echo $'a'",
            "echo $\"a\"",
            "echo $\\\n'a'",
            "echo ${X:-a}",
            "echo ${#X}",
            "echo ${X/a/b}",
            "echo ${!X}",
            "echo ${X",
            "echo \\$'a'",
            "echo $$'a'",
            "(ls)",
            "ls <(x)",
            "echo @(a)",
            "cat <<EOF",
            "cat <<<x",
            "a;;b",
            "echo {fd}>&2",
            "a[x y]=1 ls",
            "echo 'unterminated",
            "echo \"unterminated",
            "echo \\",
        ] {
            assert_eq!(words(command), None, "{command:?}");
        }
    }
}
