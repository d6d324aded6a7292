//! The directory walk shared by Glob and Grep: ripgrep's `ignore` walker,
//! honouring `.gitignore` (also outside a git repository), `.ignore` and
//! git's global excludes, and skipping hidden files and directories.

use ignore::WalkBuilder;
use std::path::Path;
use std::time::SystemTime;

pub(crate) fn walker(root: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .standard_filters(true)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b));
    builder
}

/// A file's modification time (the epoch when unknown), for newest-first
/// ordering.
pub(crate) fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// Sorts paths newest first; equal times by path, so the order is stable.
pub(crate) fn sort_newest_first(paths: &mut [(std::path::PathBuf, SystemTime)]) {
    paths.sort_by(|(pa, ta), (pb, tb)| tb.cmp(ta).then_with(|| pa.cmp(pb)));
}
