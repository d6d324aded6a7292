//! CTX-2's transcript material: another session's conversation as numbered
//! messages, the recent part of it that fits an auxiliary request, and the
//! local selection used when no model can do the extraction.
//!
//! Every length here is in characters; a token is estimated as
//! [`CHARS_PER_TOKEN`] characters.

use crate::store::{EntryRecord, entry_kind};
use serde_json::Value;
use std::collections::BTreeMap;

/// The token estimate: this many characters make one token.
pub(crate) const CHARS_PER_TOKEN: usize = 4;
/// Characters of one tool call's arguments shown in a transcript.
pub(crate) const TOOL_ARGUMENTS_CAP: usize = 300;
/// Characters of one message sent to the model, by kind.
pub(crate) const MODEL_TOOL_RESULT_CAP: usize = 4_000;
pub(crate) const MODEL_MESSAGE_CAP: usize = 12_000;
/// Characters of one message in the local selection, by kind.
pub(crate) const LOCAL_TOOL_RESULT_CAP: usize = 1_500;
pub(crate) const LOCAL_MESSAGE_CAP: usize = 4_000;
/// A message is only shortened to fill leftover room when at least this
/// much room is left; less would say nothing useful.
pub(crate) const MIN_PIECE: usize = 200;
/// Search terms taken from a query at most, and characters of a message
/// searched for them, so that a long query over a long session stays cheap.
pub(crate) const MAX_QUERY_TERMS: usize = 64;
pub(crate) const SCORED_CHARS: usize = 20_000;
/// What separates two rendered messages.
const SEPARATOR: &str = "\n\n";

/// `tokens` as characters, by the estimate.
pub(crate) fn tokens_to_chars(tokens: u64) -> usize {
    usize::try_from(tokens)
        .unwrap_or(usize::MAX)
        .saturating_mul(CHARS_PER_TOKEN)
}

/// Who wrote a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    ToolResult {
        tool: String,
        is_error: bool,
    },
    /// A summary that replaced earlier messages (context compaction).
    Summary,
}

/// One message of a session's conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct TranscriptMessage {
    /// 1-based position among the session's messages.
    pub number: usize,
    pub role: Role,
    /// The prose (for a tool result, its content).
    pub text: String,
    /// An assistant message's tool calls, one line each: `→ Name {args}`.
    pub tool_calls: Vec<String>,
}

impl TranscriptMessage {
    /// `[#3 user]`, `[#4 assistant]`, `[#5 tool result: Read]`,
    /// `[#6 tool error: Bash]`, `[#1 summary of earlier conversation]`.
    pub fn label(&self) -> String {
        let n = self.number;
        match &self.role {
            Role::User => format!("[#{n} user]"),
            Role::Assistant => format!("[#{n} assistant]"),
            Role::ToolResult {
                tool,
                is_error: false,
            } => format!("[#{n} tool result: {tool}]"),
            Role::ToolResult {
                tool,
                is_error: true,
            } => format!("[#{n} tool error: {tool}]"),
            Role::Summary => format!("[#{n} summary of earlier conversation]"),
        }
    }

    /// The text and the tool-call lines, as one text.
    pub fn body(&self) -> String {
        let mut body = self.text.trim().to_string();
        for call in &self.tool_calls {
            if !body.is_empty() {
                body.push('\n');
            }
            body.push_str(call);
        }
        body
    }

    /// The label line, then the body shortened to at most `cap` characters.
    pub fn render(&self, cap: usize) -> String {
        format!("{}\n{}", self.label(), clip(&self.body(), cap))
    }

    /// Whether this is an assistant message with prose (not only calls).
    pub(crate) fn is_answer(&self) -> bool {
        self.role == Role::Assistant && !self.text.trim().is_empty()
    }

    fn is_tool_result(&self) -> bool {
        matches!(self.role, Role::ToolResult { .. })
    }
}

fn str_field<'a>(payload: &'a Value, key: &str) -> &'a str {
    payload.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn call_line(call: &Value) -> String {
    let name = match str_field(call, "name") {
        "" => "(unnamed tool)",
        name => name,
    };
    let arguments = match call.get("arguments") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    let arguments = clip_end(arguments.trim(), TOOL_ARGUMENTS_CAP);
    if arguments.is_empty() {
        format!("→ {name}")
    } else {
        format!("→ {name} {arguments}")
    }
}

/// The conversation held in a session's entries, numbered from 1. Other
/// entries (mode changes, receipts, reminders) are left out, and so are the
/// model's reasoning and empty messages.
pub fn transcript(entries: &[EntryRecord]) -> Vec<TranscriptMessage> {
    let mut out: Vec<TranscriptMessage> = Vec::new();
    for entry in entries {
        let p = &entry.payload;
        let (role, text, tool_calls) = match entry.kind.as_str() {
            entry_kind::USER_MESSAGE => (Role::User, str_field(p, "text"), Vec::new()),
            entry_kind::ASSISTANT_MESSAGE => {
                let calls = p
                    .get("toolCalls")
                    .and_then(Value::as_array)
                    .map(|calls| calls.iter().map(call_line).collect())
                    .unwrap_or_default();
                (Role::Assistant, str_field(p, "text"), calls)
            }
            entry_kind::TOOL_RESULT => (
                Role::ToolResult {
                    tool: match str_field(p, "tool") {
                        "" => "tool".to_string(),
                        tool => tool.to_string(),
                    },
                    is_error: p.get("isError").and_then(Value::as_bool).unwrap_or(false),
                },
                str_field(p, "content"),
                Vec::new(),
            ),
            entry_kind::COMPACTION_SUMMARY => {
                let text = ["text", "summary", "content"]
                    .iter()
                    .map(|k| str_field(p, k))
                    .find(|t| !t.trim().is_empty())
                    .unwrap_or_default();
                (Role::Summary, text, Vec::new())
            }
            _ => continue,
        };
        if text.trim().is_empty() && tool_calls.is_empty() {
            continue;
        }
        out.push(TranscriptMessage {
            number: out.len() + 1,
            role,
            text: text.to_string(),
            tool_calls,
        });
    }
    out
}

/// `[… 3 messages omitted …]`.
pub fn omission_marker(count: usize) -> String {
    let s = if count == 1 { "" } else { "s" };
    format!("[… {count} message{s} omitted …]")
}

/// `text` cut to its first `max` characters.
pub(crate) fn clip_end(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => text[..at].to_string(),
        None => text.to_string(),
    }
}

/// `text` shortened to at most `max` characters: its beginning and its end,
/// with `[… N characters cut …]` between them (or just its beginning when
/// `max` is too small for that).
pub(crate) fn clip(text: &str, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return text.to_string();
    }
    // The note with `total` as the count is at least as long as the real one.
    let reserve = format!("\n[… {total} characters cut …]\n").chars().count();
    if max < reserve + 40 {
        return clip_end(text, max);
    }
    let keep = max - reserve;
    let head = keep * 2 / 3;
    let tail = keep - head;
    let cut = total - head - tail;
    let head_text: String = text.chars().take(head).collect();
    let tail_text: String = text.chars().skip(total - tail).collect();
    format!("{head_text}\n[… {cut} characters cut …]\n{tail_text}")
}

/// Some of the messages, each already rendered, by index.
struct Selection<'a> {
    messages: &'a [TranscriptMessage],
    kept: BTreeMap<usize, (String, usize)>,
}

impl<'a> Selection<'a> {
    fn new(messages: &'a [TranscriptMessage]) -> Self {
        Self {
            messages,
            kept: BTreeMap::new(),
        }
    }

    fn keep(&mut self, index: usize, rendered: String) {
        let len = rendered.chars().count();
        self.kept.insert(index, (rendered, len));
    }

    /// The gaps between kept messages, as (position before which the gap
    /// lies, messages left out); the last may lie at the end.
    fn gaps(&self) -> Vec<(usize, usize)> {
        let mut gaps = Vec::new();
        let mut next = 0;
        for &index in self.kept.keys() {
            if index > next {
                gaps.push((index, index - next));
            }
            next = index + 1;
        }
        if self.messages.len() > next {
            gaps.push((self.messages.len(), self.messages.len() - next));
        }
        gaps
    }

    /// The length of [`Self::text`], without building it.
    fn len(&self) -> usize {
        let pieces = self.kept.len() + self.gaps().len();
        let kept: usize = self.kept.values().map(|(_, len)| len).sum();
        let markers: usize = self
            .gaps()
            .iter()
            .map(|(_, n)| omission_marker(*n).chars().count())
            .sum();
        kept + markers + pieces.saturating_sub(1) * SEPARATOR.len()
    }

    /// The kept messages in order, with a marker for every gap.
    fn text(&self) -> String {
        let mut pieces: Vec<String> = Vec::new();
        let mut gaps = self.gaps().into_iter().peekable();
        for (&index, (rendered, _)) in &self.kept {
            if let Some((_, n)) = gaps.next_if(|(at, _)| *at <= index) {
                pieces.push(omission_marker(n));
            }
            pieces.push(rendered.clone());
        }
        if let Some((_, n)) = gaps.next() {
            pieces.push(omission_marker(n));
        }
        pieces.join(SEPARATOR)
    }

    /// Keeps `rendered` for `index` if the whole stays within `budget`;
    /// else, when at least [`MIN_PIECE`] characters of room are left,
    /// keeps it shortened to that room. Returns whether it was kept.
    fn try_keep(&mut self, index: usize, rendered: String, budget: usize) -> bool {
        self.keep(index, rendered);
        let len = self.len();
        if len <= budget {
            return true;
        }
        let Some((rendered, own)) = self.kept.remove(&index) else {
            return false;
        };
        let room = budget.saturating_sub(len - own);
        if room < MIN_PIECE {
            return false;
        }
        self.keep(index, clip(&rendered, room));
        if self.len() <= budget {
            true
        } else {
            self.kept.remove(&index);
            false
        }
    }

    /// The text, cut hard to `budget` in the rare case it is still longer
    /// (a budget too small even for the mandatory messages).
    fn finish(&self, budget: usize) -> String {
        clip_end(&self.text(), budget)
    }
}

fn first_user(messages: &[TranscriptMessage]) -> Option<usize> {
    messages.iter().position(|m| m.role == Role::User)
}

fn last_answer(messages: &[TranscriptMessage]) -> Option<usize> {
    messages.iter().rposition(TranscriptMessage::is_answer)
}

/// The transcript for the auxiliary request, within `budget` characters:
/// the first user message (the session's goal), then the newest messages
/// that fit, older ones dropped first, gaps marked with
/// [`omission_marker`].
pub(crate) fn recent_within(messages: &[TranscriptMessage], budget: usize) -> String {
    let mut selection = Selection::new(messages);
    if let Some(goal) = first_user(messages) {
        selection.keep(
            goal,
            messages[goal].render(MODEL_MESSAGE_CAP.min(budget / 4)),
        );
    }
    for index in (0..messages.len()).rev() {
        if selection.kept.contains_key(&index) {
            continue;
        }
        let message = &messages[index];
        let cap = if message.is_tool_result() {
            MODEL_TOOL_RESULT_CAP
        } else {
            MODEL_MESSAGE_CAP
        };
        if !selection.try_keep(index, message.render(cap), budget) {
            break;
        }
    }
    selection.finish(budget)
}

/// What the local selection aims for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// Messages that answer the query.
    Relevant,
    /// What someone continuing the work needs: the user's requests, the
    /// answers, the latest state.
    Handoff,
}

/// Stop words left out of a query (besides words under three letters).
const STOP_WORDS: &[&str] = &[
    "about", "above", "after", "again", "all", "also", "and", "any", "are", "because", "been",
    "before", "being", "below", "between", "both", "but", "can", "could", "did", "does", "doing",
    "done", "during", "each", "few", "for", "from", "further", "get", "got", "had", "has", "have",
    "having", "her", "here", "hers", "him", "his", "how", "into", "its", "itself", "just", "let",
    "like", "made", "make", "more", "most", "not", "now", "off", "once", "one", "only", "other",
    "our", "ours", "out", "over", "own", "please", "same", "she", "should", "some", "such", "than",
    "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those",
    "through", "too", "under", "until", "very", "want", "was", "were", "what", "when", "where",
    "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours",
];

fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}'
        | '\u{ac00}'..='\u{d7af}' | '\u{f900}'..='\u{faff}')
}

fn is_word_char(c: char) -> bool {
    (c.is_alphanumeric() && !is_cjk(c)) || matches!(c, '_' | '.' | '-' | '/')
}

/// The query's search terms, lowercase and without repeats: words of three
/// characters or more that are not stop words (a word with a digit counts
/// from two), and the character pairs of CJK text. File names and paths
/// stay whole (`main.rs`, `src/lib.rs`). At most [`MAX_QUERY_TERMS`], the
/// first ones.
pub(crate) fn query_terms(query: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    for c in query.to_lowercase().chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut terms);
            cjk.push(c);
        } else if is_word_char(c) {
            flush_cjk(&mut cjk, &mut terms);
            word.push(c);
        } else {
            flush_word(&mut word, &mut terms);
            flush_cjk(&mut cjk, &mut terms);
        }
    }
    flush_word(&mut word, &mut terms);
    flush_cjk(&mut cjk, &mut terms);
    terms.truncate(MAX_QUERY_TERMS);
    terms
}

fn push_term(term: String, terms: &mut Vec<String>) {
    if !terms.contains(&term) {
        terms.push(term);
    }
}

fn flush_word(word: &mut String, terms: &mut Vec<String>) {
    let w = word
        .trim_matches(|c: char| matches!(c, '.' | '-' | '/'))
        .to_string();
    word.clear();
    let len = w.chars().count();
    let has_digit = w.chars().any(|c| c.is_ascii_digit());
    if (len >= 3 || (has_digit && len >= 2)) && !STOP_WORDS.contains(&w.as_str()) {
        push_term(w, terms);
    }
}

fn flush_cjk(cjk: &mut Vec<char>, terms: &mut Vec<String>) {
    for pair in cjk.windows(2) {
        push_term(pair.iter().collect(), terms);
    }
    cjk.clear();
}

/// How well each message matches `terms`: for every term found, its
/// rarity across the messages (`ln(1 + n/df)`) times `1 + ln(count)`,
/// scaled by the share of the terms found and damped for long messages.
/// Only the first [`SCORED_CHARS`] of a message are searched.
pub(crate) fn overlap_scores(messages: &[TranscriptMessage], terms: &[String]) -> Vec<f64> {
    if terms.is_empty() {
        return vec![0.0; messages.len()];
    }
    let texts: Vec<String> = messages
        .iter()
        .map(|m| clip_end(&m.body(), SCORED_CHARS).to_lowercase())
        .collect();
    let counts: Vec<Vec<usize>> = texts
        .iter()
        .map(|text| {
            terms
                .iter()
                .map(|t| text.matches(t.as_str()).count())
                .collect()
        })
        .collect();
    let n = messages.len() as f64;
    let idf: Vec<f64> = (0..terms.len())
        .map(|t| {
            let df = counts.iter().filter(|c| c[t] > 0).count();
            if df == 0 {
                0.0
            } else {
                (1.0 + n / df as f64).ln()
            }
        })
        .collect();
    counts
        .iter()
        .zip(&texts)
        .map(|(count, text)| {
            let mut score = 0.0;
            let mut found = 0;
            for (t, &tf) in count.iter().enumerate() {
                if tf > 0 {
                    found += 1;
                    score += idf[t] * (1.0 + (tf as f64).ln());
                }
            }
            let coverage = found as f64 / terms.len() as f64;
            let length = text.chars().count() as f64;
            score * (0.5 + 0.5 * coverage) / (1.0 + (1.0 + length / 2_000.0).ln())
        })
        .collect()
}

/// The local fallback (CTX-2): the most relevant material of the
/// conversation within `budget` characters, in chronological order. The
/// first user message (the goal) and the last assistant answer are always
/// in; the others are ranked by [`overlap_scores`] with the query (for
/// [`Focus::Handoff`] also by kind and recency; when no message matches the
/// query at all, by recency), and every gap is marked with
/// [`omission_marker`].
pub(crate) fn select_local(
    messages: &[TranscriptMessage],
    query: &str,
    focus: Focus,
    budget: usize,
) -> String {
    let mut selection = Selection::new(messages);
    let mut mandatory: Vec<usize> = first_user(messages).into_iter().collect();
    if let Some(answer) = last_answer(messages).filter(|a| !mandatory.contains(a)) {
        mandatory.push(answer);
    }
    for &index in &mandatory {
        selection.keep(
            index,
            messages[index].render(LOCAL_MESSAGE_CAP.min(budget / 3)),
        );
    }
    let overlap = overlap_scores(messages, &query_terms(query));
    let any_match = overlap.iter().any(|s| *s > 0.0);
    let n = messages.len().max(1) as f64;
    let mut ranked: Vec<(usize, f64)> = messages
        .iter()
        .enumerate()
        .filter(|(i, _)| !mandatory.contains(i))
        .map(|(i, m)| {
            let recency = (i + 1) as f64 / n;
            let score = match focus {
                Focus::Relevant if any_match => {
                    if overlap[i] > 0.0 {
                        overlap[i] + 0.01 * recency
                    } else {
                        0.0
                    }
                }
                Focus::Relevant => recency,
                Focus::Handoff => {
                    let base = match &m.role {
                        Role::Summary => 1.5,
                        Role::User => 1.0,
                        Role::Assistant if m.is_answer() => 0.8,
                        Role::Assistant => 0.2,
                        Role::ToolResult { is_error: true, .. } => 0.3,
                        Role::ToolResult { .. } => 0.1,
                    };
                    overlap[i] + base + 0.5 * recency
                }
            };
            (i, score)
        })
        .filter(|(_, score)| *score > 0.0)
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    for (index, _) in ranked {
        let message = &messages[index];
        let cap = if message.is_tool_result() {
            LOCAL_TOOL_RESULT_CAP
        } else {
            LOCAL_MESSAGE_CAP
        };
        selection.try_keep(index, message.render(cap), budget);
        if selection.len() + MIN_PIECE > budget {
            break;
        }
    }
    selection.finish(budget)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(number: usize, role: Role, text: &str) -> TranscriptMessage {
        TranscriptMessage {
            number,
            role,
            text: text.to_string(),
            tool_calls: Vec::new(),
        }
    }

    #[test]
    fn ctx2_clip_keeps_both_ends_within_max() {
        let text = "a".repeat(500) + &"b".repeat(500);
        let clipped = clip(&text, 200);
        assert!(clipped.chars().count() <= 200, "{}", clipped.len());
        assert!(clipped.starts_with('a') && clipped.ends_with('b'));
        assert!(clipped.contains("characters cut"));
        assert_eq!(clip("short", 200), "short");
        assert_eq!(clip(&text, 10), "a".repeat(10));
    }

    #[test]
    fn ctx2_query_terms_drop_short_and_stop_words() {
        assert_eq!(
            query_terms("What did we decide about the Parser in src/lib.rs, v2?"),
            ["decide", "parser", "src/lib.rs", "v2"]
        );
        assert_eq!(query_terms("数据库迁移"), ["数据", "据库", "库迁", "迁移"]);
        assert!(query_terms("a an the of").is_empty());
    }

    #[test]
    fn ctx2_selection_marks_gaps() {
        let messages: Vec<_> = (1..=5)
            .map(|n| msg(n, Role::User, &format!("m{n}")))
            .collect();
        let mut s = Selection::new(&messages);
        s.keep(1, "two".into());
        s.keep(3, "four".into());
        let text = s.text();
        assert_eq!(
            text,
            "[… 1 message omitted …]\n\ntwo\n\n[… 1 message omitted …]\n\nfour\n\n[… 1 message omitted …]"
        );
        assert_eq!(s.len(), text.chars().count());
    }
}
