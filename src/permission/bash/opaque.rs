//! Readings of a command that could not be analysed (BASH-5): the ways its
//! text may spell a program name once the shell is done with it.
//!
//! A deny or ask rule applies to such a command when a reading names the
//! rule's program as a word. The readings are deliberately generous: a
//! wrong match costs a question or a refusal, a missed one runs the
//! program.

/// How many words one brace expansion may produce.
const MAX_BRACE_WORDS: usize = 64;

/// The readings of `text`:
/// 1. quotes and backslashes removed (`r\m`, `"rm"`, `r''m`), expansions
///    kept so that `$(rm x)` still shows `rm`;
/// 2. ANSI-C strings decoded (`$'\x72m'`), expansions removed so that the
///    letters around them join (`r$()m`, `r${X}m`), brace expansions
///    expanded (`{r,}m`).
pub(crate) fn readings(text: &str) -> [String; 2] {
    let plain: String = text
        .chars()
        .filter(|c| !matches!(c, '\\' | '\'' | '"'))
        .collect();
    let joined = expand_braces_in_words(&remove_expansions(text));
    [plain, joined]
}

/// Could a word in command position of `text` (a reading without quotes)
/// become `program` when the shell expands it: a glob whose last component
/// matches it (`/usr/bin/r?`, `/bin/[r]m`), or a parameter whose default or
/// alternative value names it (`${RM:-rm}`, `${X-rm}`, `${X:=/bin/rm}`,
/// `${X:+rm}`)? Command positions: the start of each command, after an
/// assignment and after the options of a program that runs another.
pub(crate) fn may_name_program(text: &str, program: &str) -> bool {
    text.split([';', '|', '&', '(', ')', '\n', '`'])
        .any(|segment| command_words(segment).any(|word| word_may_be(word, program)))
}

/// The words of one command that may be its program: the first one that
/// is not an assignment or `{`, and the next one after a program that
/// runs its arguments (`sudo`, `env`, `xargs`, …), past its options.
fn command_words(segment: &str) -> impl Iterator<Item = &str> {
    let mut take_next = true;
    segment.split_whitespace().filter(move |word| {
        if !take_next || *word == "{" || word.starts_with('-') {
            return false;
        }
        if is_assignment_word(word) || word.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        let base = word.rsplit('/').next().unwrap_or(word);
        take_next = matches!(
            base,
            "sudo"
                | "doas"
                | "env"
                | "exec"
                | "command"
                | "builtin"
                | "nohup"
                | "nice"
                | "time"
                | "timeout"
                | "xargs"
                | "setsid"
                | "stdbuf"
                | "ionice"
                | "chrt"
                | "taskset"
                | "flock"
                | "watch"
                | "busybox"
                | "!"
                | "then"
                | "do"
                | "else"
        );
        true
    })
}

fn is_assignment_word(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with('$')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn word_may_be(word: &str, program: &str) -> bool {
    let expanded = with_defaults(word);
    let word = expanded.as_deref().unwrap_or(word);
    let last = word.rsplit('/').next().unwrap_or(word);
    last == program
        || (last.contains(['*', '?', '[']) && glob_matches(last.as_bytes(), program.as_bytes()))
}

/// `word` with each `${NAME…}` replaced by its default or alternative
/// value (`${RM:-rm}`, `${X-r}m`, `${X:=rm}`, `${X:+rm}`), or by nothing;
/// `None` when the word has no such expansion.
fn with_defaults(word: &str) -> Option<String> {
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    let mut any = false;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            rest = "";
            break;
        };
        let inner = &after[..end];
        let name_end = inner
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(inner.len());
        let op = &inner[name_end..];
        let value = [":-", ":=", ":+", "-", "=", "+"]
            .iter()
            .find_map(|o| op.strip_prefix(o));
        out.push_str(value.unwrap_or(""));
        any = true;
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    any.then_some(out)
}

/// A shell glob (`*`, `?`, `[…]` with `!`/`^` and ranges) against a name,
/// in time linear in their product (backtracking only to the last `*`).
fn glob_matches(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if pattern.get(p) == Some(&b'*') {
            star = Some((p, n));
            p += 1;
            continue;
        }
        if let Some(len) = pattern.get(p..).and_then(|rest| one_char(rest, name[n])) {
            p += len;
            n += 1;
            continue;
        }
        match star {
            Some((sp, sn)) => {
                p = sp + 1;
                n = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    pattern[p.min(pattern.len())..].iter().all(|&b| b == b'*')
}

/// Does the pattern's first element (`?`, `[…]` or a byte) match `c`? How
/// many pattern bytes it spans.
fn one_char(pattern: &[u8], c: u8) -> Option<usize> {
    match pattern.split_first()? {
        (b'?', _) => Some(1),
        (b'[', rest) => {
            let (negated, body, skip) = match rest.first() {
                Some(b'!' | b'^') => (true, &rest[1..], 2),
                _ => (false, rest, 1),
            };
            // A `]` right after the opening is a member.
            let Some(close) = body.iter().skip(1).position(|&b| b == b']').map(|p| p + 1) else {
                return (c == b'[').then_some(1);
            };
            let set = &body[..close];
            let mut hit = false;
            let mut i = 0;
            while i < set.len() {
                if i + 2 < set.len() && set[i + 1] == b'-' {
                    hit |= set[i] <= c && c <= set[i + 2];
                    i += 3;
                } else {
                    hit |= set[i] == c;
                    i += 1;
                }
            }
            (hit != negated).then_some(skip + close + 1)
        }
        (&b, _) => (b == c).then_some(1),
    }
}

/// Decodes `$'…'`, drops quotes and backslashes, and removes `$(…)`,
/// `${…}`, `$NAME`, `$1`, `$@` and backquoted commands.
fn remove_expansions(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '$' if chars.get(i + 1) == Some(&'\'') => {
                i = decode_ansi_c(&chars, i + 2, &mut out);
            }
            '$' if matches!(chars.get(i + 1), Some('(' | '{')) => {
                let (open, close) = if chars[i + 1] == '(' {
                    ('(', ')')
                } else {
                    ('{', '}')
                };
                let mut depth = 0usize;
                i += 1;
                while i < chars.len() {
                    if chars[i] == open {
                        depth += 1;
                    } else if chars[i] == close {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                    i += 1;
                }
                i += 1;
            }
            '$' => {
                i += 1;
                if chars
                    .get(i)
                    .is_some_and(|c| matches!(c, '@' | '*' | '#' | '?' | '$' | '!' | '-'))
                {
                    i += 1;
                } else {
                    while chars
                        .get(i)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                    {
                        i += 1;
                    }
                }
            }
            '`' => {
                i += 1;
                while i < chars.len() && chars[i] != '`' {
                    i += 1;
                }
                i += 1;
            }
            '\\' | '\'' | '"' => i += 1,
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Decodes the body of `$'…'` from `start`; returns the index after the
/// closing quote.
fn decode_ansi_c(chars: &[char], start: usize, out: &mut String) -> usize {
    let mut i = start;
    while i < chars.len() {
        match chars[i] {
            '\'' => return i + 1,
            '\\' => {
                i += 1;
                let Some(&e) = chars.get(i) else {
                    return i;
                };
                i += 1;
                let (radix, max) = match e {
                    'x' => (16, 2),
                    'u' => (16, 4),
                    'U' => (16, 8),
                    '0'..='7' => {
                        i -= 1;
                        (8, 3)
                    }
                    'n' => {
                        out.push('\n');
                        continue;
                    }
                    't' => {
                        out.push('\t');
                        continue;
                    }
                    other => {
                        out.push(other);
                        continue;
                    }
                };
                let digits: String = chars[i..]
                    .iter()
                    .take(max)
                    .take_while(|c| c.is_digit(radix))
                    .collect();
                i += digits.chars().count();
                if let Some(c) = u32::from_str_radix(&digits, radix)
                    .ok()
                    .and_then(char::from_u32)
                {
                    out.push(c);
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    i
}

/// Brace-expands each whitespace-separated word (`{r,}m` → `rm m`).
fn expand_braces_in_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        for expanded in expand_braces(word, MAX_BRACE_WORDS) {
            out.push_str(&expanded);
            out.push(' ');
        }
    }
    out
}

/// The first `{…,…}` group of `word` expanded, recursively, up to `limit`
/// words (past that the word is kept as it is).
fn expand_braces(word: &str, limit: usize) -> Vec<String> {
    let Some((open, close)) = first_brace_group(word) else {
        return vec![word.to_string()];
    };
    let (prefix, body, suffix) = (&word[..open], &word[open + 1..close], &word[close + 1..]);
    let mut out = Vec::new();
    for alternative in split_top_level_commas(body) {
        if out.len() >= limit {
            break;
        }
        let candidate = format!("{prefix}{alternative}{suffix}");
        out.extend(expand_braces(&candidate, limit - out.len()));
    }
    out
}

/// Byte offsets of the first `{` with a top-level comma and its `}`.
fn first_brace_group(word: &str) -> Option<(usize, usize)> {
    let bytes = word.as_bytes();
    for (open, _) in word.match_indices('{') {
        let mut depth = 0usize;
        let mut comma = false;
        for (offset, &b) in bytes[open..].iter().enumerate() {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        if comma {
                            return Some((open, open + offset));
                        }
                        break;
                    }
                }
                b',' if depth == 1 => comma = true,
                _ => {}
            }
        }
    }
    None
}

fn split_top_level_commas(body: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, b) in body.bytes().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&body[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::readings;

    fn spells(text: &str, word: &str) -> bool {
        readings(text).iter().any(|r| {
            r.split(|c: char| !c.is_alphanumeric() && c != '-')
                .any(|w| w == word)
        })
    }

    #[test]
    fn bash5_opaque_readings_spell_the_program() {
        for text in [
            "r\\m x $(id)",
            "\"rm\" $X",
            "r''m $X",
            "r$()m x",
            "r${X}m x",
            "r$@m x",
            "r`true`m x",
            "$'\\x72\\x6d' -rf x",
            "$'\\162\\155' x",
            "$'\\u0072m' x",
            "{r,}m x",
            "{a,r}m x",
            "{x,{y,r}}m x",
            "echo $(rm x)",
        ] {
            assert!(spells(text, "rm"), "{text}");
        }
        for text in ["echo $HOME > x", "ls {a,b}", "arm $X", "r m $X"] {
            assert!(!spells(text, "rm"), "{text}");
        }
    }

    #[test]
    fn bash5_opaque_globs_and_defaults_may_name_the_program() {
        use super::may_name_program;
        for text in [
            "/usr/bin/r? -rf x",
            "/bin/[r]m x",
            "/bin/[!a]m x",
            "/bin/[q-s]m x",
            "r* x",
            "ls; ${RM:-rm} x",
            "${X-rm} x",
            "${X:=/bin/rm} x",
            "${X:+rm} x",
            "${X:-r}m x",
            "r${X-m} x",
            "A=1 /bin/r? x",
            "sudo -n /bin/r? x",
        ] {
            assert!(may_name_program(text, "rm"), "{text}");
        }
        for text in [
            "ls *",
            "/usr/bin/l? x",
            "${X:-ls} x",
            "echo r?",
            "/bin/[!r]m x",
        ] {
            assert!(!may_name_program(text, "rm"), "{text}");
        }
    }

    #[test]
    fn bash5_opaque_brace_expansion_is_bounded() {
        let word = "{a,b}".repeat(40);
        let r = readings(&word);
        assert!(r[1].len() < 64 * 100, "{}", r[1].len());
    }
}
