//! `/copy`: text onto the system clipboard through the terminal (OSC 52),
//! which reaches the local clipboard over SSH too. Inside tmux, whose
//! default `set-clipboard external` drops an application's OSC 52, the
//! text also goes through `tmux load-buffer -w`, which hands it to the
//! outer terminal the same way.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// Terminals cap OSC 52 payloads (some near 100 KB of base64); above this
/// the copy is refused with a pointer to `/export` instead of being cut.
pub const MAX_COPY_BYTES: usize = 74_000;

/// Why a text cannot be copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopyError {
    Empty,
    TooLarge { bytes: usize },
}

impl std::fmt::Display for CopyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CopyError::Empty => write!(f, "there is nothing to copy"),
            CopyError::TooLarge { bytes } => write!(
                f,
                "the text is {bytes} bytes, more than the {MAX_COPY_BYTES} a terminal clipboard takes; write it to a file with /export instead"
            ),
        }
    }
}

impl std::error::Error for CopyError {}

/// The OSC 52 sequence that sets the clipboard (`c`) to `text`.
pub fn osc52(text: &str) -> Result<String, CopyError> {
    if text.is_empty() {
        return Err(CopyError::Empty);
    }
    if text.len() > MAX_COPY_BYTES {
        return Err(CopyError::TooLarge { bytes: text.len() });
    }
    // BEL ends the sequence: every terminal with OSC 52 takes it, where
    // ST (`ESC \`) is missing from a few older ones.
    Ok(format!("\x1b]52;c;{}\x07", STANDARD.encode(text)))
}

/// Whether zcode runs inside tmux (its client sets `TMUX`).
pub fn in_tmux() -> bool {
    std::env::var_os("TMUX").is_some_and(|v| !v.is_empty())
}

/// Hands `text` to tmux's buffer and, with `-w`, to the outer terminal's
/// clipboard. Gives tmux at most two seconds, writing from another thread
/// so that a tmux that does not read cannot hold the caller past them.
pub fn tmux_load_buffer(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    use std::time::Duration;
    let mut child = Command::new("tmux")
        .args(["load-buffer", "-w", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        let bytes = text.as_bytes().to_vec();
        // Ends when tmux has read it all or exits (the pipe breaks).
        std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
    }
    match crate::child_wait::wait_with_deadline(&mut child, Duration::from_secs(2))? {
        Some(status) if status.success() => Ok(()),
        Some(status) => Err(std::io::Error::other(format!("tmux load-buffer {status}"))),
        None => Err(std::io::Error::other(
            "tmux load-buffer did not answer within 2 s",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ux_osc52_carries_the_text_base64_encoded() {
        let seq = osc52("héllo\n`code`").unwrap();
        assert!(seq.starts_with("\x1b]52;c;") && seq.ends_with('\x07'));
        let payload = &seq["\x1b]52;c;".len()..seq.len() - 1];
        let decoded = STANDARD.decode(payload).unwrap();
        assert_eq!(String::from_utf8(decoded).unwrap(), "héllo\n`code`");
        // Nothing in the payload can end the sequence early.
        assert!(!payload.contains('\x07') && !payload.contains('\x1b'));
    }

    #[test]
    fn ux_osc52_refuses_empty_and_oversized_text() {
        assert_eq!(osc52(""), Err(CopyError::Empty));
        let big = "x".repeat(MAX_COPY_BYTES + 1);
        let err = osc52(&big).unwrap_err();
        assert!(err.to_string().contains("/export"), "{err}");
        assert!(osc52(&"x".repeat(MAX_COPY_BYTES)).is_ok());
    }
}
