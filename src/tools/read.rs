//! TOOL-1 Read: a text file with numbered lines, `cat -n` style.

use super::client_files::{ClientFiles, read_through, served_as_text};
use super::file_state::FileStamp;
use super::input::{self, Fields};
use super::special_files::{OpenFailure, open_regular};
use super::{Tool, ToolContext, ToolOutput, blocking_cancellable, paths};
use crate::permission::capability::Capability;
use crate::permission::declaration::{AskReason, CoveredBy, ToolDeclaration};
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read as _};
use std::path::Path;

pub const NAME: &str = "Read";
/// Lines shown when no `limit` is given.
pub(crate) const DEFAULT_LIMIT: u64 = 2000;
/// Characters of one line shown before it is cut.
pub(crate) const MAX_LINE_CHARS: usize = 2000;
/// Bytes inspected to tell text from binary.
pub(crate) const SNIFF_BYTES: usize = 8192;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadInput {
    pub file_path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
}

impl ReadInput {
    pub fn parse(input: Value) -> Result<Self, String> {
        let mut fields = Fields::new(NAME, input)?;
        fields.int("offset", 1, None)?;
        fields.int("limit", 1, None)?;
        let parsed: Self = fields.parse()?;
        input::non_empty(NAME, "file_path", &parsed.file_path)?;
        Ok(parsed)
    }
}

#[derive(Debug, Default)]
pub struct ReadTool;

/// A Read deny or ask rule is about file contents, which Grep reads and
/// whose names Glob lists: it covers them too.
pub(crate) const COVERS_SEARCHES: &[CoveredBy] = &[CoveredBy {
    tool: NAME,
    allow_too: false,
}];

/// What Read is to the permission engine, the approval and the TUI.
pub(crate) static DECLARATION: ToolDeclaration =
    ToolDeclaration::builtin(NAME, Capability::read_only_low("read"))
        .with_wording("read a file", AskReason::Effect);

impl Tool for ReadTool {
    fn description(&self) -> &'static str {
        include_str!("../../assets/tools/read.md")
    }

    fn compact_description(&self) -> std::borrow::Cow<'static, str> {
        include_str!("../../assets/tools/compact/read.md").into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "file_path": {
                    "type": "string",
                    "description": "The file to read: an absolute path, or a path relative to the workspace root"
                },
                "offset": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "The 1-based line number to start reading at. Only give it for files too long to read at once"
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "How many lines to read (default 2000). Only give it for files too long to read at once"
                }
            },
            "required": ["file_path"],
            "additionalProperties": false
        })
    }

    fn declaration(&self) -> &ToolDeclaration {
        &DECLARATION
    }

    fn validate(&self, input: Value) -> Result<Value, String> {
        input::normalized(NAME, &ReadInput::parse(input)?)
    }

    fn run<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input = match ReadInput::parse(input) {
                Ok(input) => input,
                Err(e) => return ToolOutput::error(e),
            };
            let path = paths::resolve(&ctx.workspace, &input.file_path);
            if let Some(client) = ctx.client_files.as_ref().filter(|c| c.can_read()) {
                let probe = path.clone();
                match blocking_cancellable(NAME, &ctx.cancel, move || served_as_text(&probe)).await
                {
                    Ok(true) => return read_from_client(client.as_ref(), ctx, &path, &input).await,
                    Ok(false) => {}
                    Err(e) => return ToolOutput::error(e),
                }
            }
            let read_path = path.clone();
            let read = blocking_cancellable(NAME, &ctx.cancel, move || {
                read_numbered(&read_path, input.offset, input.limit)
            })
            .await;
            // Recorded only once the model is given the text: an abandoned
            // read does not count as one.
            match read.and_then(|read| read) {
                Ok((text, stamp)) => {
                    ctx.lock_files().record_stamp(&path, stamp);
                    ToolOutput::ok(text)
                }
                Err(e) => ToolOutput::error(e),
            }
        })
    }
}

/// Reads the editor's text of `path` (its unsaved buffer, if any) as
/// numbered lines, and remembers that text for the stale-file guard.
async fn read_from_client(
    client: &dyn ClientFiles,
    ctx: &ToolContext,
    path: &Path,
    input: &ReadInput,
) -> ToolOutput {
    let text = match read_through(client, path, &ctx.cancel, NAME).await {
        Ok(text) => text,
        Err(e) => return ToolOutput::error(e),
    };
    match number_lines(text.as_bytes(), path, input.offset, input.limit) {
        Ok(numbered) => {
            ctx.lock_files().record_text(path, &text);
            ToolOutput::ok(numbered)
        }
        Err(e) => ToolOutput::error(e),
    }
}

/// Reads `path` as numbered lines; also returns the file's stamp taken
/// before reading (for the overwrite guard).
pub(crate) fn read_numbered(
    path: &Path,
    offset: Option<u64>,
    limit: Option<u64>,
) -> Result<(String, FileStamp), String> {
    let shown = path.display();
    let stamp = FileStamp::of(path);
    let file = match open_regular(path) {
        Ok(file) => file,
        Err(OpenFailure::Directory) => {
            return Err(format!(
                "{shown} is a directory, not a file. Use Glob (for example pattern \"*\" with path \"{shown}\") to list its files, or Grep to search them."
            ));
        }
        Err(e) => return Err(e.message(path, NAME)),
    };
    let stamp = stamp.ok_or_else(|| format!("Cannot read {shown}"))?;
    let reader = BufReader::with_capacity(64 * 1024, file);
    Ok((number_lines(reader, path, offset, limit)?, stamp))
}

/// The text `reader` gives, as numbered lines from `offset` (1-based) for
/// `limit` lines; binary content is refused. `path` names it in messages.
fn number_lines(
    mut reader: impl BufRead,
    path: &Path,
    offset: Option<u64>,
    limit: Option<u64>,
) -> Result<String, String> {
    let shown = path.display();
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    (&mut reader)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(|e| format!("Cannot read {shown}: {e}"))?;
    if let Some(why) = binary_reason(&head) {
        return Err(format!(
            "Cannot read {shown}: it looks like a binary file ({why}). Read shows text files only; inspect binary files with Bash (e.g. `file` or `xxd | head`)."
        ));
    }
    if head.is_empty() {
        return Ok(format!("(The file {shown} exists but is empty.)"));
    }

    let start = offset.unwrap_or(1);
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    let end = start.saturating_add(limit); // exclusive
    let mut out = String::new();
    let mut total: u64 = 0;
    let mut cut_lines = 0u64;
    let mut lossy = false;
    let mut line = Vec::new();
    let mut chained = std::io::Cursor::new(head).chain(reader);
    loop {
        // Lines outside the range are counted, not kept; a kept line keeps
        // enough bytes for MAX_LINE_CHARS characters, so a huge line costs
        // no memory.
        let in_range = total + 1 >= start && total + 1 < end;
        let keep = if in_range { MAX_LINE_CHARS * 4 } else { 0 };
        let Some(dropped) = next_line(&mut chained, &mut line, keep)
            .map_err(|e| format!("Cannot read {shown}: {e}"))?
        else {
            break;
        };
        total += 1;
        if !in_range {
            continue;
        }
        let mut bytes = trim_line_end(&line);
        let mut more = dropped;
        if dropped > 0 {
            // The kept bytes may end inside a character.
            if let Err(e) = std::str::from_utf8(bytes)
                && e.error_len().is_none()
            {
                bytes = &bytes[..e.valid_up_to()];
                more += 1;
            }
        }
        let text = match std::str::from_utf8(bytes) {
            Ok(s) => std::borrow::Cow::Borrowed(s),
            Err(_) => {
                lossy = true;
                String::from_utf8_lossy(bytes)
            }
        };
        out.push_str(&format!("{total:>6}\t"));
        let cut = text.char_indices().nth(MAX_LINE_CHARS).map(|(i, _)| i);
        if cut.is_some() || more > 0 {
            let cut = cut.unwrap_or(text.len());
            more += text[cut..].chars().count() as u64;
            out.push_str(&text[..cut]);
            out.push_str(&format!("… [line truncated: {more} more characters]"));
            cut_lines += 1;
        } else {
            out.push_str(&text);
        }
        out.push('\n');
    }

    if start > total {
        return Err(format!(
            "offset {start} is past the end of {shown}, which has {total} line{}.",
            plural(total)
        ));
    }
    let last_shown = total.min(end - 1);
    let mut notes = Vec::new();
    if last_shown < total || start > 1 {
        let mut note = format!("Showing lines {start}-{last_shown} of {total}.");
        if last_shown < total {
            note.push_str(&format!(
                " To read more, call Read with offset={}.",
                last_shown + 1
            ));
        }
        notes.push(note);
    }
    if cut_lines > 0 {
        notes.push(format!(
            "{cut_lines} line{} longer than {MAX_LINE_CHARS} characters {} cut.",
            plural(cut_lines),
            if cut_lines == 1 { "was" } else { "were" }
        ));
    }
    if lossy {
        notes.push("Some bytes are not valid UTF-8 and are shown as \u{FFFD}.".to_string());
    }
    if !notes.is_empty() {
        out.push_str(&format!("\n({})\n", notes.join(" ")));
    }
    Ok(out)
}

/// Why `head` (the first bytes of a file) is not text, if it is not: a NUL
/// byte, or mostly bytes that are neither UTF-8 nor printable. A text file
/// in another encoding with a few non-UTF-8 bytes (Latin-1 accents) is
/// still shown, those bytes as U+FFFD.
pub(crate) fn binary_reason(head: &[u8]) -> Option<&'static str> {
    if head.contains(&0) {
        return Some("its first 8 KiB contain NUL bytes");
    }
    if std::str::from_utf8(head).is_ok() {
        return None;
    }
    let text = String::from_utf8_lossy(head);
    let (mut odd, mut all) = (0usize, 0usize);
    for c in text.chars() {
        all += 1;
        let control = c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c' | '\x1b');
        if c == '\u{FFFD}' || control {
            odd += 1;
        }
    }
    // A multi-byte character cut off by the end of the sample is one U+FFFD.
    (odd > 1 && odd * 10 > all).then_some("most of its first 8 KiB is not UTF-8 text")
}

/// Reads one line (with its `\n`) into `buf`, keeping at most `keep` bytes;
/// returns how many characters beyond those were skipped (line ends not
/// counted), or `None` at the end of the file.
fn next_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    keep: usize,
) -> std::io::Result<Option<u64>> {
    buf.clear();
    let mut dropped = 0u64;
    let mut any = false;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(any.then_some(dropped));
        }
        any = true;
        let (part, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (&chunk[..=i], true),
            None => (chunk, false),
        };
        let take = part.len().min(keep.saturating_sub(buf.len()));
        buf.extend_from_slice(&part[..take]);
        dropped += part[take..]
            .iter()
            .filter(|b| (**b & 0b1100_0000) != 0b1000_0000 && !matches!(**b, b'\n' | b'\r'))
            .count() as u64;
        let used = part.len();
        reader.consume(used);
        if done {
            return Ok(Some(dropped));
        }
    }
}

fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}
