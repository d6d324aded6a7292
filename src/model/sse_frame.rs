//! Server-sent-event framing: bytes in, events out, in one pass over each
//! chunk (nothing already read is scanned or copied again), with a cap on
//! the size of one event so that a server cannot make the client buffer
//! without end. Also [`sniff`], which tells from the first bytes whether a
//! body is an event stream at all.
//!
//! Lines end with LF, CRLF or CR (a CRLF split across chunks included);
//! `data` lines are joined with LF; `event` names the event; comments,
//! `id`, `retry` and unknown fields are skipped; a UTF-8 byte-order mark
//! at the start is dropped. An event is dispatched at a blank line when it
//! has data.

use std::collections::VecDeque;

/// One SSE event as the dialect parsers see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field; `message` when absent.
    pub event: String,
    pub data: String,
    /// True when the server closed the stream before terminating this
    /// event with a blank line: its data may be cut short.
    pub at_eof: bool,
}

/// Why framing stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// A field that is not UTF-8.
    NotUtf8(String),
    /// One event (or line) passed this many bytes.
    TooLarge(usize),
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The framer's state between chunks.
#[derive(Debug)]
pub struct SseFramer {
    /// The unfinished line.
    line: Vec<u8>,
    /// The last line ended with CR: an LF first in the next chunk is part
    /// of that line break.
    skip_lf: bool,
    /// No line has been completed yet (the byte-order mark may lead it).
    first_line: bool,
    event: String,
    data: String,
    has_data: bool,
    max_event_bytes: usize,
}

impl SseFramer {
    pub fn new(max_event_bytes: usize) -> Self {
        SseFramer {
            line: Vec::new(),
            skip_lf: false,
            first_line: true,
            event: String::new(),
            data: String::new(),
            has_data: false,
            max_event_bytes,
        }
    }

    /// Frames one chunk, appending finished events to `out`.
    pub fn push(&mut self, chunk: &[u8], out: &mut VecDeque<SseEvent>) -> Result<(), FrameError> {
        let mut at = 0;
        if self.skip_lf && !chunk.is_empty() {
            self.skip_lf = false;
            if chunk[0] == b'\n' {
                at = 1;
            }
        }
        while let Some(offset) = chunk[at..].iter().position(|&b| b == b'\n' || b == b'\r') {
            let end = at + offset;
            if self.line.is_empty() {
                self.complete_line(&chunk[at..end], false, out)?;
            } else {
                self.line.extend_from_slice(&chunk[at..end]);
                let line = std::mem::take(&mut self.line);
                self.complete_line(&line, false, out)?;
            }
            at = end + 1;
            if chunk[end] == b'\r' {
                match chunk.get(at) {
                    Some(b'\n') => at += 1,
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
        }
        self.line.extend_from_slice(&chunk[at..]);
        self.check_size(self.line.len())
    }

    /// The stream ended: an unfinished line and event are completed as if
    /// the blank line had come; such an event is marked `at_eof`.
    pub fn finish(&mut self, out: &mut VecDeque<SseEvent>) -> Result<(), FrameError> {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.complete_line(&line, true, out)?;
        }
        self.dispatch(true, out);
        Ok(())
    }

    fn check_size(&self, pending_line: usize) -> Result<(), FrameError> {
        if self.data.len() + pending_line > self.max_event_bytes {
            return Err(FrameError::TooLarge(self.max_event_bytes));
        }
        Ok(())
    }

    fn complete_line(
        &mut self,
        mut line: &[u8],
        at_eof: bool,
        out: &mut VecDeque<SseEvent>,
    ) -> Result<(), FrameError> {
        if std::mem::take(&mut self.first_line) {
            line = line.strip_prefix(BOM).unwrap_or(line);
        }
        if line.is_empty() {
            self.dispatch(at_eof, out);
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &line[line.len()..]),
        };
        match field {
            b"data" => {
                self.check_size(value.len() + 1)?;
                self.data.push_str(utf8(value)?);
                self.data.push('\n');
                self.has_data = true;
            }
            b"event" => {
                self.check_size(value.len())?;
                self.event = utf8(value)?.to_string();
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, at_eof: bool, out: &mut VecDeque<SseEvent>) {
        let event = std::mem::take(&mut self.event);
        let mut data = std::mem::take(&mut self.data);
        if !std::mem::take(&mut self.has_data) {
            return;
        }
        if data.ends_with('\n') {
            data.pop();
        }
        out.push_back(SseEvent {
            event: if event.is_empty() {
                "message".to_string()
            } else {
                event
            },
            data,
            at_eof,
        });
    }
}

fn utf8(bytes: &[u8]) -> Result<&str, FrameError> {
    std::str::from_utf8(bytes).map_err(|e| FrameError::NotUtf8(e.to_string()))
}

/// What the first bytes of a body say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniff {
    EventStream,
    NotEventStream,
    /// Too few bytes to tell.
    NeedMore,
}

/// The fields a model server's event stream starts with.
const FIELDS: [&[u8]; 4] = [b"data", b"event", b"id", b"retry"];

/// Whether a body starting with `prefix` is an event stream: its first
/// line that is not blank must be a comment or one of the fields `data`,
/// `event`, `id`, `retry` (an HTML page, JSON or plain text is none of
/// these).
pub fn sniff(prefix: &[u8]) -> Sniff {
    let body = prefix.strip_prefix(BOM).unwrap_or(prefix);
    let start = body.iter().position(|&b| b != b'\n' && b != b'\r');
    let Some(start) = start else {
        return Sniff::NeedMore;
    };
    let line = &body[start..];
    if line[0] == b':' {
        return Sniff::EventStream;
    }
    let name_end = line
        .iter()
        .position(|&b| b == b':' || b == b'\n' || b == b'\r');
    match name_end {
        Some(end) if FIELDS.contains(&&line[..end]) => Sniff::EventStream,
        Some(_) => Sniff::NotEventStream,
        None if FIELDS.iter().any(|f| f.starts_with(line)) => Sniff::NeedMore,
        None => Sniff::NotEventStream,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(chunks: &[&[u8]]) -> Result<Vec<SseEvent>, FrameError> {
        let mut f = SseFramer::new(1024);
        let mut out = VecDeque::new();
        for c in chunks {
            f.push(c, &mut out)?;
        }
        f.finish(&mut out)?;
        Ok(out.into_iter().collect())
    }

    fn ev(event: &str, data: &str, at_eof: bool) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
            at_eof,
        }
    }

    #[test]
    fn fields_comments_and_line_endings() {
        let text = b"\xEF\xBB\xBF: hi\r\nevent: a\r\ndata: 1\r\ndata:2\r\n\r\nid: 3\nretry: 5\nx\n\ndata: \rdata\r\r";
        let whole = frame(&[text]).unwrap();
        assert_eq!(
            whole,
            vec![ev("a", "1\n2", false), ev("message", "\n", false)]
        );
        // Byte by byte (CRLF split across chunks included).
        let bytes: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(frame(&bytes).unwrap(), whole);
    }

    #[test]
    fn unterminated_last_event_is_marked() {
        assert_eq!(
            frame(&[b"data: a\n\ndata: b"]).unwrap(),
            vec![ev("message", "a", false), ev("message", "b", true)]
        );
        assert_eq!(frame(&[b"event: x\n\n"]).unwrap(), vec![]);
    }

    #[test]
    fn a_long_line_or_event_is_refused_before_it_is_buffered() {
        let mut f = SseFramer::new(1024);
        let mut out = VecDeque::new();
        f.push(b"data: ", &mut out).unwrap();
        let piece = [b'y'; 600];
        f.push(&piece, &mut out).unwrap();
        assert_eq!(f.push(&piece, &mut out), Err(FrameError::TooLarge(1024)));
        // Many data lines add up too.
        let mut f = SseFramer::new(1024);
        let line = format!("data: {}\n", "z".repeat(300));
        let mut result = Ok(());
        for _ in 0..4 {
            result = result.and_then(|_| f.push(line.as_bytes(), &mut out));
        }
        assert_eq!(result, Err(FrameError::TooLarge(1024)));
    }

    #[test]
    fn not_utf8_data_is_an_error() {
        assert!(matches!(
            frame(&[b"data: \xff\xfe\n\n"]),
            Err(FrameError::NotUtf8(_))
        ));
    }

    #[test]
    fn sniffing_the_first_bytes() {
        assert_eq!(sniff(b"data: {}"), Sniff::EventStream);
        assert_eq!(sniff(b"\xEF\xBB\xBF\r\n: ping\n"), Sniff::EventStream);
        assert_eq!(sniff(b"event:message_start"), Sniff::EventStream);
        assert_eq!(sniff(b"retry\n"), Sniff::EventStream);
        assert_eq!(sniff(b"da"), Sniff::NeedMore);
        assert_eq!(sniff(b"\n\n"), Sniff::NeedMore);
        assert_eq!(sniff(b""), Sniff::NeedMore);
        assert_eq!(sniff(b"<!DOCTYPE html>"), Sniff::NotEventStream);
        assert_eq!(sniff(b"{\"choices\":[]}"), Sniff::NotEventStream);
        assert_eq!(sniff(b"dat\n"), Sniff::NotEventStream);
        assert_eq!(sniff(b"database: x"), Sniff::NotEventStream);
        assert_eq!(sniff(b"  data: x"), Sniff::NotEventStream);
    }
}
