//! Reading what is piped to `zcode -p`, without hanging: a terminal is
//! never read, only a pipe, a socket or a regular file is; a pipe that
//! stays silent is given up on after a short wait when the task does not
//! depend on it; the size is capped; the text is decoded with a note for
//! bytes that are not UTF-8, and binary data is refused.

use super::usage_error::UsageError;
use std::io::{IsTerminal, Read};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

/// The most zcode reads from stdin. More would not fit a model's context
/// anyway; the model can read a large file itself when the task names it.
pub const MAX_STDIN_BYTES: usize = 1024 * 1024;

/// How long a pipe may stay silent before zcode stops waiting for it, when
/// the task was given as an argument (or none was): long enough for a
/// command that is starting up, short enough for a CI runner whose stdin
/// is an open pipe that never closes.
pub const FIRST_BYTE_WAIT: Duration = Duration::from_secs(3);

/// What stdin is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StdinKind {
    /// A person types here: never read.
    Terminal,
    /// A pipe or a socket: may be slow or never close.
    Pipe,
    /// `< file`: read at once.
    File,
    /// `/dev/null`, another device, or closed: nothing to read.
    Other,
}

pub fn stdin_kind() -> StdinKind {
    use std::os::unix::fs::FileTypeExt;
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return StdinKind::Terminal;
    }
    let Ok(fd) = stdin.as_fd().try_clone_to_owned() else {
        return StdinKind::Other;
    };
    let Ok(meta) = std::fs::File::from(fd).metadata() else {
        return StdinKind::Other;
    };
    let kind = meta.file_type();
    if kind.is_fifo() || kind.is_socket() {
        StdinKind::Pipe
    } else if kind.is_file() {
        StdinKind::File
    } else {
        StdinKind::Other
    }
}

/// How long to wait for the first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstByte {
    /// The task is on stdin (`-p -`): wait as long as it takes (Ctrl+C
    /// ends the wait).
    WaitForever,
    /// Give up after this long.
    WaitAtMost(Duration),
}

/// What was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piped {
    /// Stdin ended without a byte.
    Empty,
    /// Nothing arrived within the wait.
    Silent,
    Text(String),
}

/// Reads stdin to its end, at most `MAX_STDIN_BYTES`. A terminal or a
/// device is not read unless `first_byte` is `WaitForever`.
pub fn read_stdin(kind: StdinKind, first_byte: FirstByte) -> anyhow::Result<Piped> {
    let silent = match (kind, first_byte) {
        (StdinKind::Terminal, _) | (StdinKind::Other, FirstByte::WaitAtMost(_)) => {
            return Ok(Piped::Empty);
        }
        (StdinKind::Pipe, FirstByte::WaitAtMost(wait)) => {
            !wait_readable(Some(wait)).map_err(read_error)?
        }
        _ => false,
    };
    if silent {
        return Ok(Piped::Silent);
    }
    let bytes = read_capped(&mut std::io::stdin().lock())?;
    if bytes.is_empty() {
        return Ok(Piped::Empty);
    }
    let decoded = decode(&bytes)?;
    if decoded.invalid_bytes > 0 {
        let n = decoded.invalid_bytes;
        let bytes = if n == 1 { "byte was" } else { "bytes were" };
        eprintln!("zcode: stdin is not valid UTF-8: {n} invalid {bytes} replaced with U+FFFD");
    }
    Ok(Piped::Text(decoded.text))
}

fn read_error(e: std::io::Error) -> anyhow::Error {
    anyhow::anyhow!("cannot read stdin: {e}")
}

/// Everything `reader` gives, refused past `MAX_STDIN_BYTES`. A stdin left
/// non-blocking by whoever started zcode is waited on, not spun on.
fn read_capped(reader: &mut impl Read) -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => {
                bytes.extend_from_slice(&chunk[..n]);
                if bytes.len() > MAX_STDIN_BYTES {
                    return Err(UsageError::new(format!(
                        "stdin carries more than {} MiB; pipe less, or save it to a file and name the file in the task so the model reads what it needs",
                        MAX_STDIN_BYTES / (1024 * 1024)
                    ))
                    .into());
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                wait_readable(None).map_err(read_error)?;
            }
            Err(e) => return Err(read_error(e)),
        }
    }
}

/// Waits until stdin has something to read (or has ended); false when
/// `timeout` passed first.
fn wait_readable(timeout: Option<Duration>) -> std::io::Result<bool> {
    let deadline = timeout.map(|t| Instant::now() + t);
    loop {
        let millis = match deadline {
            None => -1,
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now()).as_millis();
                i32::try_from(left).unwrap_or(i32::MAX)
            }
        };
        let mut fd = libc::pollfd {
            fd: libc::STDIN_FILENO,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, and its count is 1.
        let ready = unsafe { libc::poll(&mut fd, 1, millis) };
        match ready {
            // Readable, ended or failed: the read says which.
            n if n > 0 => return Ok(true),
            0 => return Ok(false),
            _ => {
                let err = std::io::Error::last_os_error();
                if err.kind() != std::io::ErrorKind::Interrupted {
                    return Err(err);
                }
            }
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
struct Decoded {
    text: String,
    /// Bytes that were not UTF-8, each run replaced by U+FFFD.
    invalid_bytes: usize,
}

/// Text as UTF-8; stray bytes (a Latin-1 log line) are replaced, but data
/// with NUL bytes is binary and refused: the model could do nothing with it.
fn decode(bytes: &[u8]) -> Result<Decoded, UsageError> {
    if bytes.contains(&0) {
        return Err(UsageError::new(
            "stdin looks like binary data (it contains NUL bytes); pipe text, or name the file in the task",
        ));
    }
    let invalid_bytes = bytes.utf8_chunks().map(|c| c.invalid().len()).sum();
    Ok(Decoded {
        text: String::from_utf8_lossy(bytes).into_owned(),
        invalid_bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ux_stray_bytes_are_replaced_and_counted() {
        let d = decode(b"caf\xe9 cr\xe8me").unwrap();
        assert_eq!(d.text, "caf\u{FFFD} cr\u{FFFD}me");
        assert_eq!(d.invalid_bytes, 2);
        assert_eq!(decode("grüße".as_bytes()).unwrap().invalid_bytes, 0);
    }

    #[test]
    fn ux_nul_bytes_mean_binary() {
        assert!(decode(b"ELF\x00\x01").is_err());
    }

    #[test]
    fn ux_reading_stops_just_past_the_cap() {
        let mut at_cap = std::io::repeat(b'x').take(MAX_STDIN_BYTES as u64);
        assert_eq!(read_capped(&mut at_cap).unwrap().len(), MAX_STDIN_BYTES);
        // An endless source is refused, not read forever.
        let err = read_capped(&mut std::io::repeat(b'x')).unwrap_err();
        assert!(err.downcast_ref::<UsageError>().is_some(), "{err}");
        assert!(err.to_string().contains("more than 1 MiB"), "{err}");
    }
}
