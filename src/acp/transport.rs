//! stdin and stdout as the protocol's lines. The SDK's own stdio transport
//! reads a line of any length; here a line longer than [`MAX_LINE_BYTES`]
//! is dropped as it streams in (never held whole) and handed on as text
//! that is not JSON, so the client gets JSON-RPC's parse error for it and
//! the connection goes on.

use futures_util::{Sink, Stream};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// The longest message accepted: a prompt with a large embedded file fits
/// many times over; anything longer is a fault, not a message.
pub const MAX_LINE_BYTES: usize = 32 * 1024 * 1024;

/// What an oversize line becomes: not JSON, so the SDK answers with a
/// parse error.
pub const OVERSIZE_MARKER: &str = "{ message longer than the limit of zcode acp";

/// Lines read from `input`; each at most `max` bytes, an oversize one
/// replaced by [`OVERSIZE_MARKER`]. Ends at end of input.
pub fn incoming_lines<R: AsyncRead + Unpin + Send + 'static>(
    input: R,
    max: usize,
) -> impl Stream<Item = std::io::Result<String>> + Send + 'static {
    futures_util::stream::unfold(
        (BufReader::with_capacity(64 * 1024, input), false),
        move |(mut reader, done)| async move {
            if done {
                return None;
            }
            match read_line_capped(&mut reader, max).await {
                Ok(Some(line)) => Some((Ok(line), (reader, false))),
                Ok(None) => None,
                Err(e) => Some((Err(e), (reader, true))),
            }
        },
    )
}

/// One line without its end; `None` at end of input.
async fn read_line_capped<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    max: usize,
) -> std::io::Result<Option<String>> {
    let mut line: Vec<u8> = Vec::new();
    let mut oversize = false;
    let mut seen_any = false;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            if !seen_any {
                return Ok(None);
            }
            break;
        }
        seen_any = true;
        let (chunk, found_end) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !oversize {
            if line.len() + chunk.len() > max {
                oversize = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = found_end.unwrap_or(buf.len());
        reader.consume(used);
        if found_end.is_some() {
            break;
        }
    }
    if oversize {
        return Ok(Some(OVERSIZE_MARKER.to_string()));
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    // Text that is not UTF-8 cannot be JSON: the SDK answers it with a
    // parse error, as for any other garbage.
    Ok(Some(String::from_utf8_lossy(&line).into_owned()))
}

/// Lines for stdout, written by a thread of their own. tokio's stdout
/// hands every write to its blocking pool, a thread wake per streamed
/// delta; here a line costs a channel send, and the writer flushes once
/// per burst (whatever queued while it wrote), so a fast stream becomes
/// few large writes (measured in benches/acp_stream.rs).
pub struct StdoutLines {
    sender: std::sync::mpsc::Sender<String>,
    writer: std::thread::JoinHandle<()>,
}

impl StdoutLines {
    pub fn start<W: std::io::Write + Send + 'static>(output: W) -> Self {
        let (sender, lines) = std::sync::mpsc::channel::<String>();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let mut out = std::io::BufWriter::with_capacity(64 * 1024, output);
            while let Ok(line) = lines.recv() {
                let mut burst = Some(line);
                while let Some(line) = burst {
                    if out.write_all(line.as_bytes()).is_err() || out.write_all(b"\n").is_err() {
                        return;
                    }
                    burst = lines.try_recv().ok();
                }
                if out.flush().is_err() {
                    return;
                }
            }
        });
        Self { sender, writer }
    }

    /// The sink the connection writes to; it fails once stdout is gone.
    pub fn sink(&self) -> impl Sink<String, Error = std::io::Error> + Send + 'static {
        futures_util::sink::unfold(self.sender.clone(), |sender, line: String| async move {
            sender
                .send(line)
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
            Ok::<_, std::io::Error>(sender)
        })
    }

    /// Waits until every line sent so far is written (the sinks must be
    /// gone).
    pub fn finish(self) {
        drop(self.sender);
        let _ = self.writer.join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;

    async fn lines_of(input: &'static [u8], max: usize) -> Vec<String> {
        incoming_lines(input, max)
            .map(|l| l.unwrap())
            .collect()
            .await
    }

    #[tokio::test]
    async fn acp_lines_are_split_on_newlines_with_cr_dropped() {
        assert_eq!(
            lines_of(b"{\"a\":1}\r\n{\"b\":2}\n\n{\"c\":3}", 100).await,
            vec!["{\"a\":1}", "{\"b\":2}", "", "{\"c\":3}"]
        );
    }

    #[tokio::test]
    async fn acp_an_oversize_line_becomes_a_parse_error_and_the_next_line_is_read() {
        let lines = lines_of(b"0123456789abcdef\n{\"ok\":true}\n", 12).await;
        assert_eq!(lines, vec![OVERSIZE_MARKER, "{\"ok\":true}"]);
        assert!(serde_json::from_str::<serde_json::Value>(OVERSIZE_MARKER).is_err());
    }

    #[tokio::test]
    async fn acp_lines_reach_stdout_in_order_and_all_before_finish_returns() {
        use futures_util::SinkExt;
        #[derive(Clone, Default)]
        struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Shared {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let out = Shared::default();
        let lines = StdoutLines::start(out.clone());
        let mut sink = Box::pin(lines.sink());
        for i in 0..1000 {
            sink.send(format!("{{\"n\":{i}}}")).await.unwrap();
        }
        drop(sink);
        lines.finish();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let got: Vec<_> = text.lines().collect();
        assert_eq!(got.len(), 1000);
        assert_eq!(got[0], "{\"n\":0}");
        assert_eq!(got[999], "{\"n\":999}");
    }

    #[tokio::test]
    async fn acp_a_line_of_exactly_the_limit_is_kept() {
        assert_eq!(lines_of(b"12345678\n", 8).await, vec!["12345678"]);
    }
}
