//! Which files the model has read, and what they looked like then (TOOL-2).
//!
//! A file read from the disk is remembered by its disk stamp (modification
//! time and length). A file whose text an editor served (`client_files`)
//! is remembered by that text: the buffer, unsaved edits included, is what
//! the model saw and what an edit replaces, and the disk's stamp says
//! nothing about it (the editor saves when it likes). So the stale-file
//! guard compares the buffer's text now with the text the model last read
//! there, and a change typed in the editor since then refuses the write
//! just as a change on disk does.

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

/// Texts up to this size are kept, so a call can be checked and previewed
/// before it runs without asking the editor again; bigger ones, and any
/// past [`KEEP_TOTAL_MAX`] kept in all, are remembered by their digest
/// only (the run still checks them; the approval shows no preview).
const KEEP_TEXT_MAX: usize = 2 * 1024 * 1024;
const KEEP_TOTAL_MAX: usize = 64 * 1024 * 1024;

/// The state of a file when it was last read or written by a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileStamp {
    pub modified: Option<SystemTime>,
    pub len: u64,
}

impl FileStamp {
    pub fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path).ok()?;
        Some(Self {
            modified: meta.modified().ok(),
            len: meta.len(),
        })
    }
}

/// How a file was seen.
#[derive(Debug, Clone)]
enum Seen {
    Disk(FileStamp),
    /// Its text as the editor served it (or as a tool last wrote it there).
    Text {
        digest: [u8; 32],
        text: Option<Arc<str>>,
    },
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

#[derive(Debug, Clone, Default)]
pub struct FileStateTracker {
    seen: HashMap<PathBuf, Seen>,
    /// The bytes of the texts kept in `seen`.
    kept: usize,
}

impl FileStateTracker {
    /// Records that `path` was read (or written) as it is on disk now.
    pub fn record(&mut self, path: &Path) {
        if let Some(stamp) = FileStamp::of(path) {
            self.insert(path, Seen::Disk(stamp));
        }
    }

    /// Records `path` with a stamp taken earlier (e.g. before its content
    /// was read, so a change during the read makes the stamp stale).
    pub(crate) fn record_stamp(&mut self, path: &Path, stamp: FileStamp) {
        self.insert(path, Seen::Disk(stamp));
    }

    /// Records that `path` was read through the editor (or written there)
    /// with this text.
    pub(crate) fn record_text(&mut self, path: &Path, text: &str) {
        self.forget(path);
        let keep =
            text.len() <= KEEP_TEXT_MAX && self.kept.saturating_add(text.len()) <= KEEP_TOTAL_MAX;
        let seen = Seen::Text {
            digest: digest(text.as_bytes()),
            text: keep.then(|| Arc::from(text)),
        };
        self.insert(path, seen);
    }

    fn insert(&mut self, path: &Path, seen: Seen) {
        self.forget(path);
        if let Seen::Text {
            text: Some(text), ..
        } = &seen
        {
            self.kept += text.len();
        }
        self.seen.insert(path.to_path_buf(), seen);
    }

    fn forget(&mut self, path: &Path) {
        if let Some(Seen::Text {
            text: Some(text), ..
        }) = self.seen.remove(path)
        {
            self.kept = self.kept.saturating_sub(text.len());
        }
    }

    /// Whether `path` was read or written in this session.
    pub fn was_seen(&self, path: &Path) -> bool {
        self.seen.contains_key(path)
    }

    /// For a file last seen through the editor: the text seen, if it was
    /// small enough to keep (`Some(None)` otherwise). `None`: not seen
    /// through the editor.
    pub(crate) fn seen_text(&self, path: &Path) -> Option<Option<Arc<str>>> {
        match self.seen.get(path)? {
            Seen::Text { text, .. } => Some(text.clone()),
            Seen::Disk(_) => None,
        }
    }

    /// Why an existing file may not be overwritten, if it may not: it was
    /// never read in this session, or it changed on disk since.
    pub fn check_overwrite(&self, path: &Path) -> Result<(), String> {
        let Some(now) = FileStamp::of(path) else {
            return Ok(()); // a new file
        };
        match self.seen.get(path) {
            None => Err(not_read(path)),
            Some(Seen::Disk(stamp)) if *stamp != now => Err(format!(
                "{} changed on disk since it was last read. Read it again, then write.",
                path.display()
            )),
            Some(Seen::Disk(_)) => Ok(()),
            // Seen through the editor, written to the disk now (a client
            // that does not write): the disk must hold what was seen.
            Some(Seen::Text { digest: seen, .. }) => {
                match super::special_files::read_regular(path) {
                    Ok(bytes) if digest(&bytes) == *seen => Ok(()),
                    _ => Err(format!(
                        "{} on disk differs from what was last read. Read it again, then write.",
                        path.display()
                    )),
                }
            }
        }
    }

    /// [`Self::check_overwrite`] as far as it can be told before the call
    /// runs: a file seen through the editor is compared with the editor's
    /// text when the call runs ([`Self::check_text`]).
    pub(crate) fn precheck_overwrite(&self, path: &Path) -> Result<(), String> {
        match self.seen.get(path) {
            Some(Seen::Text { .. }) => Ok(()),
            _ => self.check_overwrite(path),
        }
    }

    /// Why `path`, whose text the editor holds as `current`, may not be
    /// overwritten, if it may not: not read in this session, or its text
    /// is not what was last read there.
    pub(crate) fn check_text(&self, path: &Path, current: &str) -> Result<(), String> {
        match self.seen.get(path) {
            None => Err(not_read(path)),
            Some(Seen::Text { digest: seen, .. }) if *seen == digest(current.as_bytes()) => Ok(()),
            Some(Seen::Text { .. }) => Err(format!(
                "{} changed in the editor since it was last read. Read it again, then write.",
                path.display()
            )),
            // Read from the disk, now served by the editor: what the model
            // saw may not be the buffer.
            Some(Seen::Disk(_)) => Err(format!(
                "{} was last read from the disk, and the editor now serves its content. Read it again, then write.",
                path.display()
            )),
        }
    }
}

fn not_read(path: &Path) -> String {
    format!(
        "{} exists but was not read in this session. Read it first, then write.",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_seen_in_the_editor_is_compared_with_the_editor_text_not_the_disk() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "disk\n").unwrap();
        let mut files = FileStateTracker::default();
        assert!(files.check_text(&path, "buffer\n").is_err());
        files.record_text(&path, "buffer\n");
        assert_eq!(files.check_text(&path, "buffer\n"), Ok(()));
        assert_eq!(files.precheck_overwrite(&path), Ok(()));
        let err = files.check_text(&path, "buffer, typed on\n").unwrap_err();
        assert!(err.contains("changed in the editor"), "{err}");
        // Written to the disk instead: the disk must hold what was seen.
        assert!(files.check_overwrite(&path).is_err());
        std::fs::write(&path, "buffer\n").unwrap();
        assert_eq!(files.check_overwrite(&path), Ok(()));
        assert_eq!(files.seen_text(&path), Some(Some(Arc::from("buffer\n"))));
    }

    #[test]
    fn kept_texts_stay_within_their_budget_and_big_ones_are_still_guarded() {
        let mut files = FileStateTracker::default();
        let big = "x".repeat(KEEP_TEXT_MAX);
        let count = KEEP_TOTAL_MAX / KEEP_TEXT_MAX;
        for i in 0..count + 2 {
            files.record_text(Path::new(&format!("/f{i}")), &big);
        }
        assert_eq!(files.kept, KEEP_TOTAL_MAX);
        let last = Path::new("/f0").with_file_name(format!("f{}", count + 1));
        assert_eq!(files.seen_text(&last), Some(None));
        assert_eq!(files.check_text(&last, &big), Ok(()));
        assert!(files.check_text(&last, "y").is_err());
        // Seen again, the first file's text is counted once.
        files.record_text(Path::new("/f0"), "small");
        assert_eq!(files.kept, KEEP_TOTAL_MAX - KEEP_TEXT_MAX + 5);
    }

    #[test]
    fn a_file_read_from_disk_is_read_again_before_an_editor_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "disk\n").unwrap();
        let mut files = FileStateTracker::default();
        files.record(&path);
        assert!(files.check_text(&path, "disk\n").is_err());
        assert_eq!(files.seen_text(&path), None);
    }
}
