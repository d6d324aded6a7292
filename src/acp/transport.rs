//! stdin and stdout as the protocol's lines. The SDK's own stdio transport
//! reads a line of any length; here a line longer than [`MAX_LINE_BYTES`]
//! is dropped as it streams in (never held whole) and handed on as text
//! that is not JSON, so the client gets JSON-RPC's parse error for it and
//! the connection goes on.

use futures_util::{Sink, Stream};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

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

/// Lines written to `output`, each followed by a newline and flushed.
pub fn outgoing_lines<W: AsyncWrite + Unpin + Send + 'static>(
    output: W,
) -> impl Sink<String, Error = std::io::Error> + Send + 'static {
    futures_util::sink::unfold(output, |mut output, line: String| async move {
        output.write_all(line.as_bytes()).await?;
        output.write_all(b"\n").await?;
        output.flush().await?;
        Ok::<_, std::io::Error>(output)
    })
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
    async fn acp_a_line_of_exactly_the_limit_is_kept() {
        assert_eq!(lines_of(b"12345678\n", 8).await, vec!["12345678"]);
    }
}
