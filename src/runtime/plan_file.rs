//! PLAN-7, PLAN-11: the approved plan on disk, and the reminder that points
//! back to it after context compaction.

use crate::tools::write::atomic_write;
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// PLAN-11: the most of a plan file put back into context: 20000
/// characters of up to 4 bytes each, plus 1024.
pub const MAX_REFERENCE_BYTES: usize = 81_024;
/// The reminder kind of [`plan_file_reference`].
pub const PLAN_FILE_REFERENCE_KIND: &str = "plan_file_reference";

/// `<workspace>/.zcode/plans/plan-<id>.md`, every character of the session
/// id outside `[A-Za-z0-9_-]` replaced by `-`.
pub fn plan_file_path(workspace: &Path, session_id: &str) -> PathBuf {
    let id: String = session_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    workspace
        .join(super::zcode_dir::DIR_NAME)
        .join("plans")
        .join(format!("plan-{id}.md"))
}

/// Writes the approved plan to [`plan_file_path`]: the directory is
/// created (a new `.zcode/` with its `.gitignore`, see `zcode_dir`), then
/// the file is written to a temporary file in the same directory and
/// renamed into place, so a reader never sees half a plan.
pub fn write_plan_file(workspace: &Path, session_id: &str, plan: &str) -> std::io::Result<PathBuf> {
    let path = plan_file_path(workspace, session_id);
    // `.zcode/` first, so a new one gets its `.gitignore`.
    super::zcode_dir::ensure(workspace)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    atomic_write(&path, plan.as_bytes())?;
    Ok(path)
}

/// The plan file's content for [`plan_file_reference`]: at most
/// [`MAX_REFERENCE_BYTES`], cut at a character boundary. `None` when the
/// file is missing, unreadable or blank.
pub fn read_plan_file_for_reference(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_REFERENCE_BYTES as u64)
        .read_to_end(&mut bytes)
        .ok()?;
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => text.to_string(),
        // Cut inside the last character: drop its first bytes.
        Err(e) if e.error_len().is_none() => {
            String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned()
        }
        Err(_) => {
            // Not UTF-8 in the middle: keep what can be shown, without a
            // partial character at the end.
            let end = utf8_prefix_end(&bytes);
            String::from_utf8_lossy(&bytes[..end]).into_owned()
        }
    };
    (!text.trim().is_empty()).then_some(text)
}

/// The end of `bytes` without a trailing incomplete UTF-8 sequence.
fn utf8_prefix_end(bytes: &[u8]) -> usize {
    let mut end = bytes.len();
    // A sequence is at most 4 bytes: look back over continuation bytes.
    for back in 1..=4.min(bytes.len()) {
        let b = bytes[bytes.len() - back];
        if b & 0b1100_0000 == 0b1000_0000 {
            continue;
        }
        let width = match b {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        if width > back {
            end = bytes.len() - back;
        }
        break;
    }
    end
}

/// PLAN-11: the `plan_file_reference` reminder put into context after
/// compaction.
pub fn plan_file_reference(path: &Path, content: &str) -> String {
    format!(
        "A plan file exists from plan mode at: {}\n\nPlan contents:\n\n{}\n\nIf this plan is relevant to the current work and not already complete, continue working on it.",
        path.display(),
        content.trim_end()
    )
}

#[cfg(test)]
mod tests {
    use super::utf8_prefix_end;

    #[test]
    fn plan11_incomplete_tail_is_dropped() {
        let s = "a€".as_bytes(); // € is 3 bytes
        assert_eq!(utf8_prefix_end(s), 4);
        assert_eq!(utf8_prefix_end(&s[..3]), 1);
        assert_eq!(utf8_prefix_end(&s[..2]), 1);
        assert_eq!(utf8_prefix_end(b"ab"), 2);
        assert_eq!(utf8_prefix_end(b""), 0);
    }
}
