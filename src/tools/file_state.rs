//! Which files the model has read, and what they looked like then (TOOL-2).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The state of a file when it was last read or written by a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
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

#[derive(Debug, Clone, Default)]
pub struct FileStateTracker {
    seen: HashMap<PathBuf, FileStamp>,
}

impl FileStateTracker {
    /// Records that `path` was read (or written) as it is on disk now.
    pub fn record(&mut self, path: &Path) {
        if let Some(stamp) = FileStamp::of(path) {
            self.seen.insert(path.to_path_buf(), stamp);
        }
    }

    /// Records `path` with a stamp taken earlier (e.g. before its content
    /// was read, so a change during the read makes the stamp stale).
    pub fn record_stamp(&mut self, path: &Path, stamp: FileStamp) {
        self.seen.insert(path.to_path_buf(), stamp);
    }

    /// Whether `path` was read or written in this session.
    pub fn was_seen(&self, path: &Path) -> bool {
        self.seen.contains_key(path)
    }

    /// Why an existing file may not be overwritten, if it may not: it was
    /// never read in this session, or it changed on disk since.
    pub fn check_overwrite(&self, path: &Path) -> Result<(), String> {
        let Some(now) = FileStamp::of(path) else {
            return Ok(()); // a new file
        };
        match self.seen.get(path) {
            None => Err(format!(
                "{} exists but was not read in this session. Read it first, then write.",
                path.display()
            )),
            Some(stamp) if *stamp != now => Err(format!(
                "{} changed on disk since it was last read. Read it again, then write.",
                path.display()
            )),
            Some(_) => Ok(()),
        }
    }
}
