//! Parsing a command line into simple subcommands (BASH-1..3, BASH-8).
//!
//! The command is tokenized and parsed once with brush-parser, and its tokens
//! are checked against an independent scanner of Bash's word and operator
//! boundaries (`scan`): where the two disagree one of them misreads the
//! command, so the parse is unsafe. A parse is *safe* only when the program
//! is a list of simple commands, possibly inside `if` and `for` compounds
//! (their conditions and bodies are simple commands too), whose words are
//! all static (or, for a sandboxed analysis, plain parameters and globs in
//! argument positions) and whose redirections cannot touch a file other
//! than `/dev/null`; anything else yields `None` (one opaque command).

use super::scan::{ScanToken, scan};
use super::word::{is_plain_dynamic, static_value};
use brush_parser::ast::{
    AndOr, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, IoFileRedirectKind,
    IoFileRedirectTarget, IoRedirect, Pipeline, PipelineTimed, Program, RedirectList,
    SimpleCommand,
};
use brush_parser::{
    ParserOptions, SourceInfo, Token, TokenLocation, TokenizerOptions, parse_tokens,
    uncached_tokenize_str,
};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Commands longer than this are opaque without being parsed (BASH-8).
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;

/// Deeper bracket nesting than this is opaque without being parsed: the
/// tokenizer recurses into `$(…)` and `${…}`, and a stack overflow cannot be
/// caught (BASH-8).
pub const MAX_NESTING_DEPTH: usize = 24;

/// One simple command of a safe parse, before the read-only judgment.
#[derive(Debug)]
pub(crate) struct ParsedSubcommand {
    pub text: String,
    pub words: Vec<String>,
    pub has_assignments: bool,
    /// Per word: expanded by the shell (see `Subcommand::dynamic`).
    pub dynamic: Vec<bool>,
}

/// Parses `command`; `None` when the parse is not safe (BASH-1, BASH-3).
pub(crate) fn parse_safe(
    command: &str,
    options: super::AnalyzeOptions,
) -> Option<Vec<ParsedSubcommand>> {
    if command.len() > MAX_COMMAND_BYTES || !within_static_limits(command) {
        return None;
    }
    let tokens = catch_unwind(|| uncached_tokenize_str(command, &TokenizerOptions::default()))
        .ok()?
        .ok()?;
    let spans = simple_command_spans(&tokens)?;
    if !agrees_with_bash(command, &tokens) {
        return None;
    }
    let program = catch_unwind(AssertUnwindSafe(|| {
        parse_tokens(&tokens, &ParserOptions::default(), &SourceInfo::default())
    }))
    .ok()?
    .ok()?;

    let mut commands = Vec::new();
    collect_simple_commands(&program, options, &mut commands)?;
    if spans.len() != commands.len() {
        return None;
    }
    let offsets = CharOffsets::new(command);
    commands
        .into_iter()
        .zip(spans)
        .map(|(cmd, (start, end))| {
            // Each command must lie in its own segment.
            let anchor = anchor_index(cmd.simple)?;
            if anchor < start || anchor >= end {
                return None;
            }
            let text = command.get(offsets.byte(start)?..offsets.byte(end)?)?;
            build_subcommand(cmd, text.trim(), options)
        })
        .collect()
}

/// brush-parser's tokens must be the ones Bash reads: the same words with
/// the same text, the same operators, the same descriptor numbers (see
/// `scan`). Any difference means one of the two misreads the command.
fn agrees_with_bash(command: &str, tokens: &[Token]) -> bool {
    let Some(scanned) = scan(command) else {
        return false;
    };
    scanned.len() == tokens.len()
        && scanned
            .iter()
            .zip(tokens)
            .enumerate()
            .all(|(i, (mine, theirs))| match (mine, theirs) {
                (ScanToken::Word { text, io_number }, Token::Word(word, loc)) => {
                    // The parser's own test for a descriptor number.
                    let brush_io_number = word.bytes().all(|b| b.is_ascii_digit())
                        && is_redirect_right_after(tokens.get(i + 1), loc);
                    text == word && *io_number == brush_io_number
                }
                (ScanToken::Operator(op), Token::Operator(theirs, _)) => op == theirs,
                _ => false,
            })
}

/// Cheap byte-level guards run before the tokenizer (BASH-8). A quoted `<<`
/// is refused too: a wrong "unsafe" only costs a question.
fn within_static_limits(command: &str) -> bool {
    let mut depth = 0usize;
    let mut prev = 0u8;
    for &b in command.as_bytes() {
        match b {
            b'(' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING_DEPTH {
                    return false;
                }
            }
            b')' | b'}' => depth = depth.saturating_sub(1),
            // `<<` starts a here-document (`<<<` a here-string), both
            // unsafe; the tokenizer's here-document handling can loop
            // forever on malformed input (`<<` followed by a carriage return
            // at the end), so it is never reached.
            b'<' if prev == b'<' => return false,
            // Bash reads its command as a C string: a NUL cuts it short.
            0 => return false,
            _ => {}
        }
        prev = b;
    }
    true
}

/// Words that open or close a compound command when in command position.
fn is_reserved(word: &str) -> bool {
    matches!(
        word,
        "if" | "then"
            | "else"
            | "elif"
            | "fi"
            | "do"
            | "done"
            | "case"
            | "esac"
            | "while"
            | "until"
            | "for"
            | "select"
            | "in"
            | "function"
            | "{"
            | "}"
            | "[["
            | "]]"
            | "coproc"
    )
}

/// The compound-command words a safe parse may use: `if … then … elif …
/// else … fi` and `for NAME [in WORDS]; do … done`. Their conditions and
/// bodies are simple commands like any other.
fn is_accepted_keyword(word: &str) -> bool {
    matches!(
        word,
        "if" | "then" | "elif" | "else" | "fi" | "for" | "do" | "done"
    )
}

/// `if` and `for` nest at most this deep (the parser recurses into them).
const MAX_COMPOUND_DEPTH: usize = 8;

fn is_separator(op: &str) -> bool {
    matches!(op, "&&" | "||" | ";" | "|" | "|&" | "&" | "\n")
}

/// Rejects, before the recursive-descent parser sees them, the token shapes
/// that can only make the parse unsafe: parentheses (subshells, functions,
/// arithmetic, process substitution, arrays), here-documents, case
/// terminators, and compound-command keywords in command position other
/// than `if` and `for` (nested at most `MAX_COMPOUND_DEPTH` deep, so the
/// parser's recursion is bounded). Returns the character spans of the
/// simple commands, in source order: the token runs between separators and
/// keywords, without a `for` header (`for f in a b;`).
fn simple_command_spans(tokens: &[Token]) -> Option<Vec<(usize, usize)>> {
    let mut spans = Vec::new();
    let mut current: Option<(usize, usize)> = None;
    let mut command_position = true;
    // Command position right after a separator or a keyword (not after
    // `!` or `time`, where a keyword would start a compound pipeline).
    let mut keyword_position = true;
    let mut depth = 0usize;
    // Inside a `for` header: the loop variable, then `in` and words.
    let mut header: Option<ForHeader> = None;
    // A compound command just ended: only a separator (or the end) may
    // follow, never a redirection or a word.
    let mut closed = false;
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::Operator(op, loc) => {
                if matches!(op.as_str(), "(" | ")" | "<<" | "<<-" | ";;" | ";&" | ";;&") {
                    return None;
                }
                let separator = is_separator(op);
                if closed && !separator {
                    return None;
                }
                closed = false;
                if let Some(h) = header.as_mut() {
                    // Only `;` or a newline ends a header, after its words.
                    if !matches!(op.as_str(), ";" | "\n") || *h == ForHeader::Variable {
                        return None;
                    }
                    *h = ForHeader::Done;
                    command_position = true;
                    keyword_position = true;
                    continue;
                }
                if separator {
                    spans.extend(current.take());
                } else {
                    let start = current.map_or(loc.start.index, |(s, _)| s);
                    current = Some((start, loc.end.index));
                }
                command_position = separator;
                keyword_position = separator;
            }
            Token::Word(word, loc) => {
                if closed {
                    return None;
                }
                // The parser unwraps an I/O number that does not fit an i32.
                if word.bytes().all(|b| b.is_ascii_digit())
                    && word.parse::<i32>().is_err()
                    && is_redirect_right_after(tokens.get(i + 1), loc)
                {
                    return None;
                }
                if let Some(h) = header {
                    match h {
                        ForHeader::Variable => {
                            if !is_loop_variable(word) {
                                return None;
                            }
                            header = Some(ForHeader::AfterVariable);
                        }
                        ForHeader::AfterVariable if word == "in" => {
                            header = Some(ForHeader::Words);
                        }
                        ForHeader::AfterVariable | ForHeader::Done if word == "do" => {
                            header = None;
                            command_position = true;
                            keyword_position = true;
                        }
                        ForHeader::Words if !is_reserved(word) => {}
                        _ => return None,
                    }
                    continue;
                }
                if command_position && is_reserved(word) {
                    if !keyword_position || !is_accepted_keyword(word) {
                        return None;
                    }
                    spans.extend(current.take());
                    match word.as_str() {
                        "if" | "for" => {
                            depth += 1;
                            if depth > MAX_COMPOUND_DEPTH {
                                return None;
                            }
                        }
                        "fi" | "done" => {
                            depth = depth.checked_sub(1)?;
                            closed = true;
                        }
                        _ => {}
                    }
                    if word == "for" {
                        header = Some(ForHeader::Variable);
                    }
                    command_position = !closed;
                    keyword_position = !closed;
                    continue;
                }
                let start = current.map_or(loc.start.index, |(s, _)| s);
                current = Some((start, loc.end.index));
                command_position = command_position && matches!(word.as_str(), "!" | "time" | "-p");
                keyword_position = false;
            }
        }
    }
    if header.is_some() || depth != 0 {
        return None;
    }
    spans.extend(current);
    Some(spans)
}

/// Where a `for` header is: before the loop variable, after it, among the
/// words after `in`, or past the `;` that ends them (before `do`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum ForHeader {
    Variable,
    AfterVariable,
    Words,
    Done,
}

/// A loop variable the analysis accepts: a short lowercase name, never one
/// of the variables that steer the shell or the programs it runs (`PATH`,
/// `IFS`, `LD_PRELOAD`, `http_proxy`, …), which are upper case or have an
/// underscore.
fn is_loop_variable(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name.len() <= 8
        && !is_reserved(name)
}

fn is_redirect_right_after(next: Option<&Token>, loc: &TokenLocation) -> bool {
    matches!(next, Some(Token::Operator(op, next_loc))
        if op.starts_with(['<', '>']) && next_loc.start.index == loc.end.index)
}

/// A simple command and the pipeline words the parser folded away.
struct FoundCommand<'a> {
    simple: &'a SimpleCommand,
    /// `time`, `time -p` and `!` in front of the first command of a pipeline.
    leading: &'static [&'static str],
}

fn collect_simple_commands<'a>(
    program: &'a Program,
    options: super::AnalyzeOptions,
    out: &mut Vec<FoundCommand<'a>>,
) -> Option<()> {
    for complete in &program.complete_commands {
        collect_list(complete, options, out)?;
    }
    Some(())
}

fn collect_list<'a>(
    list: &'a CompoundList,
    options: super::AnalyzeOptions,
    out: &mut Vec<FoundCommand<'a>>,
) -> Option<()> {
    for item in &list.0 {
        let and_or = &item.0;
        collect_pipeline(&and_or.first, options, out)?;
        for next in &and_or.additional {
            let (AndOr::And(p) | AndOr::Or(p)) = next;
            collect_pipeline(p, options, out)?;
        }
    }
    Some(())
}

/// The simple commands of an `if` or `for` compound, in source order. A
/// redirection of the whole compound is refused; the `for` words must be
/// static (or, sandboxed, plain parameters and globs).
fn collect_compound<'a>(
    compound: &'a CompoundCommand,
    redirects: Option<&RedirectList>,
    options: super::AnalyzeOptions,
    out: &mut Vec<FoundCommand<'a>>,
) -> Option<()> {
    if redirects.is_some_and(|r| !r.0.is_empty()) {
        return None;
    }
    match compound {
        CompoundCommand::IfClause(clause) => {
            collect_list(&clause.condition, options, out)?;
            collect_list(&clause.then, options, out)?;
            for other in clause.elses.iter().flatten() {
                if let Some(condition) = &other.condition {
                    collect_list(condition, options, out)?;
                }
                collect_list(&other.body, options, out)?;
            }
            Some(())
        }
        CompoundCommand::ForClause(clause) => {
            if !is_loop_variable(&clause.variable_name) {
                return None;
            }
            for word in clause.values.iter().flatten() {
                let mut words = Vec::new();
                let mut dynamic = Vec::new();
                argument(&word.value, options, &mut words, &mut dynamic)?;
            }
            collect_list(&clause.body.list, options, out)
        }
        _ => None,
    }
}

fn collect_pipeline<'a>(
    pipeline: &'a Pipeline,
    options: super::AnalyzeOptions,
    out: &mut Vec<FoundCommand<'a>>,
) -> Option<()> {
    let leading: &'static [&'static str] = match (&pipeline.timed, pipeline.bang) {
        (None, false) => &[],
        (None, true) => &["!"],
        (Some(PipelineTimed::Timed(_)), false) => &["time"],
        (Some(PipelineTimed::Timed(_)), true) => &["time", "!"],
        (Some(PipelineTimed::TimedWithPosixOutput(_)), false) => &["time", "-p"],
        (Some(PipelineTimed::TimedWithPosixOutput(_)), true) => &["time", "-p", "!"],
    };
    for (i, command) in pipeline.seq.iter().enumerate() {
        match command {
            Command::Simple(simple) => out.push(FoundCommand {
                simple,
                leading: if i == 0 { leading } else { &[] },
            }),
            // `! if …` or `time for …`: the words would be lost.
            Command::Compound(compound, redirects) if leading.is_empty() => {
                collect_compound(compound, redirects.as_ref(), options, out)?;
            }
            _ => return None,
        }
    }
    Some(())
}

/// The character index of a word of the command (its name, else the first
/// assignment or redirection target), used to check that the parser's
/// commands and the token segments line up.
fn anchor_index(simple: &SimpleCommand) -> Option<usize> {
    let word = match &simple.word_or_name {
        Some(name) => name,
        None => match simple.prefix.as_ref()?.0.first()? {
            CommandPrefixOrSuffixItem::AssignmentWord(_, w)
            | CommandPrefixOrSuffixItem::Word(w)
            | CommandPrefixOrSuffixItem::IoRedirect(
                IoRedirect::File(
                    _,
                    _,
                    IoFileRedirectTarget::Filename(w) | IoFileRedirectTarget::Duplicate(w),
                )
                | IoRedirect::OutputAndError(w, _),
            ) => w,
            _ => return None,
        },
    };
    Some(word.loc.as_ref()?.start.index)
}

/// Token positions count characters; slicing needs bytes.
struct CharOffsets(Option<Vec<usize>>);

impl CharOffsets {
    fn new(s: &str) -> Self {
        if s.is_ascii() {
            return Self(None);
        }
        let mut v: Vec<usize> = s.char_indices().map(|(b, _)| b).collect();
        v.push(s.len());
        Self(Some(v))
    }

    fn byte(&self, char_index: usize) -> Option<usize> {
        match &self.0 {
            None => Some(char_index),
            Some(v) => v.get(char_index).copied(),
        }
    }
}

fn build_subcommand(
    found: FoundCommand<'_>,
    text: &str,
    options: super::AnalyzeOptions,
) -> Option<ParsedSubcommand> {
    let simple = found.simple;
    let mut words: Vec<String> = found.leading.iter().map(|w| (*w).to_string()).collect();
    let mut dynamic = vec![false; words.len()];
    let mut has_assignments = false;
    let push_static = |words: &mut Vec<String>, dynamic: &mut Vec<bool>, raw: &str| {
        words.push(static_value(raw)?);
        dynamic.push(false);
        Some(())
    };
    if let Some(prefix) = &simple.prefix {
        for item in &prefix.0 {
            match item {
                CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
                    static_value(&word.value)?;
                    has_assignments = true;
                }
                CommandPrefixOrSuffixItem::IoRedirect(r) => check_redirect(r)?,
                CommandPrefixOrSuffixItem::Word(word) => {
                    push_static(&mut words, &mut dynamic, &word.value)?;
                }
                CommandPrefixOrSuffixItem::ProcessSubstitution(..) => return None,
            }
        }
    }
    // The program word is never dynamic.
    if let Some(name) = &simple.word_or_name {
        push_static(&mut words, &mut dynamic, &name.value)?;
    }
    if let Some(suffix) = &simple.suffix {
        for item in &suffix.0 {
            match item {
                // `echo a=b`: an assignment-shaped argument is just a word.
                CommandPrefixOrSuffixItem::Word(word)
                | CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
                    argument(&word.value, options, &mut words, &mut dynamic)?;
                }
                CommandPrefixOrSuffixItem::IoRedirect(r) => check_redirect(r)?,
                CommandPrefixOrSuffixItem::ProcessSubstitution(..) => return None,
            }
        }
    }
    Some(ParsedSubcommand {
        text: text.to_string(),
        dynamic,
        words,
        has_assignments,
    })
}

/// An argument word: static, or (sandboxed only) a word whose expansions
/// are plain parameters and globs, kept as its source text.
fn argument(
    raw: &str,
    options: super::AnalyzeOptions,
    words: &mut Vec<String>,
    dynamic: &mut Vec<bool>,
) -> Option<()> {
    if let Some(value) = static_value(raw) {
        words.push(value);
        dynamic.push(false);
    } else if options.sandboxed && is_plain_dynamic(raw) {
        words.push(raw.to_string());
        dynamic.push(true);
    } else {
        return None;
    }
    Some(())
}

/// Only descriptor duplication and `/dev/null` are safe redirections.
fn check_redirect(redirect: &IoRedirect) -> Option<()> {
    match redirect {
        IoRedirect::File(_, kind, target) => match (kind, target) {
            (_, IoFileRedirectTarget::Fd(_)) => Some(()),
            (
                IoFileRedirectKind::DuplicateInput | IoFileRedirectKind::DuplicateOutput,
                IoFileRedirectTarget::Duplicate(word),
            ) => {
                let value = static_value(&word.value)?;
                // `>&file` writes to a file; only descriptors (and closing
                // or moving one: `-`, `2-`) and /dev/null are safe.
                let fd = value.strip_suffix('-').unwrap_or(&value);
                (fd.bytes().all(|b| b.is_ascii_digit()) || value == "/dev/null").then_some(())
            }
            (_, IoFileRedirectTarget::Filename(word)) => is_dev_null(&word.value),
            _ => None,
        },
        IoRedirect::OutputAndError(word, _) => is_dev_null(&word.value),
        IoRedirect::HereDocument(..) | IoRedirect::HereString(..) => None,
    }
}

fn is_dev_null(raw: &str) -> Option<()> {
    (static_value(raw)? == "/dev/null").then_some(())
}
