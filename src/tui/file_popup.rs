//! `@file` completion in the composer: typing `@` at the start of a word
//! opens a list of the workspace's paths matching what follows it; Tab or
//! Enter inserts the highlighted one, Esc closes the list until the text
//! changes.
//!
//! The runtime does not read `@path` itself: the model reads it in the
//! message and opens the file with its tools, as it does for a path in an
//! ACP prompt or a command file. A path with a space (or a quote) is
//! inserted as `@"docs/my notes.md"`, so that where it ends is plain.
//!
//! The paths come from one walk of the workspace per session (the `ignore`
//! walker, honouring `.gitignore` as Glob and Grep do), made a bounded
//! number of entries at a time: a keystroke never walks more than the
//! index's budget, so a huge tree fills the list over a few keystrokes
//! instead of freezing the prompt. The walk starts again after each turn,
//! whose tools may have added or removed files.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// Entries walked at most per update.
pub const WALK_PER_STEP: usize = 2_000;
/// The index stops growing here (the list then offers what it has).
pub const MAX_ENTRIES: usize = 100_000;
/// Matches offered at most.
const MAX_MATCHES: usize = 100;

/// The `@` word at the cursor: where it starts and what was typed after
/// the `@` (and the opening quote, when `quoted`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtQuery {
    /// Char column of the `@` on the cursor's line.
    pub start: usize,
    pub query: String,
    /// Typed as `@"…`.
    pub quoted: bool,
}

/// The `@` word ending at char column `col` of `line`, if the cursor is in
/// one: an `@` at the start of the line or after a space, followed by a
/// word without spaces, or by `"` and text without another quote. An
/// address such as `me@example.com` opens nothing.
pub fn at_query(line: &str, col: usize) -> Option<AtQuery> {
    let before: Vec<char> = line.chars().take(col).collect();
    let word_start = before
        .iter()
        .rposition(|c| c.is_whitespace())
        .map_or(0, |i| i + 1);
    let word = &before[word_start..];
    if word.first() == Some(&'@') && word.get(1) != Some(&'"') {
        return Some(AtQuery {
            start: word_start,
            query: word[1..].iter().collect(),
            quoted: false,
        });
    }
    // `@"…` may hold spaces: the nearest opening before the cursor, with
    // no closing quote yet.
    let open = (0..before.len().saturating_sub(1)).rev().find(|&i| {
        before[i] == '@' && before[i + 1] == '"' && (i == 0 || before[i - 1].is_whitespace())
    })?;
    let query: String = before[open + 2..].iter().collect();
    if query.contains('"') {
        return None;
    }
    Some(AtQuery {
        start: open,
        query,
        quoted: true,
    })
}

/// One path of the workspace, relative, with `/` separators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    pub path: String,
    pub dir: bool,
}

impl FileEntry {
    /// As shown and inserted: a directory ends with `/`.
    pub fn shown(&self) -> String {
        if self.dir {
            format!("{}/", self.path)
        } else {
            self.path.clone()
        }
    }

    /// What replaces the `@` word: `@path` and a space for a file, so
    /// typing goes on; `@dir/` for a directory, so the list goes on inside
    /// it. A path with a space or a quote is quoted, closed once a file is
    /// chosen.
    pub fn insertion(&self) -> String {
        let shown = self.shown();
        let quote = shown.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'');
        match (quote, self.dir) {
            (false, false) => format!("@{shown} "),
            (false, true) => format!("@{shown}"),
            (true, false) => format!("@\"{shown}\" "),
            (true, true) => format!("@\"{shown}"),
        }
    }
}

/// The walk so far, shared by the model's clones (a model is cloned by
/// tests and compared; the index is a cache, not state that counts).
#[derive(Clone)]
pub struct FileIndex {
    inner: Arc<Mutex<IndexState>>,
    budget: usize,
}

struct IndexState {
    /// The workspace walked; another one starts over.
    root: Option<PathBuf>,
    walk: Option<ignore::Walk>,
    entries: Vec<FileEntry>,
    done: bool,
}

impl Default for FileIndex {
    fn default() -> Self {
        Self::with_budget(WALK_PER_STEP)
    }
}

impl std::fmt::Debug for FileIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileIndex")
            .field("entries", &self.len())
            .finish_non_exhaustive()
    }
}

/// A cache: two models are equal whatever their indexes hold.
impl PartialEq for FileIndex {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl FileIndex {
    /// An index that walks at most `budget` entries per [`Self::advance`].
    pub fn with_budget(budget: usize) -> Self {
        Self {
            inner: Arc::new(Mutex::new(IndexState {
                root: None,
                walk: None,
                entries: Vec::new(),
                done: false,
            })),
            budget: budget.max(1),
        }
    }

    fn state(&self) -> MutexGuard<'_, IndexState> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Paths indexed so far.
    pub fn len(&self) -> usize {
        self.state().entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the walk of the workspace is complete.
    pub fn is_done(&self) -> bool {
        self.state().done
    }

    /// Forgets the walk: the next [`Self::advance`] starts again.
    pub fn invalidate(&self) {
        let mut state = self.state();
        state.root = None;
        state.walk = None;
        state.entries.clear();
        state.done = false;
    }

    /// Walks on from where it stopped, at most the budget's entries;
    /// returns whether it found any.
    pub fn advance(&self, root: &Path) -> bool {
        let mut state = self.state();
        if state.root.as_deref() != Some(root) {
            state.root = Some(root.to_path_buf());
            state.walk = Some(walker(root));
            state.entries.clear();
            state.done = false;
        }
        if state.done {
            return false;
        }
        let before = state.entries.len();
        for _ in 0..self.budget {
            let next = state.walk.as_mut().and_then(Iterator::next);
            let Some(next) = next else {
                state.done = true;
                state.walk = None;
                break;
            };
            // An unreadable directory is left out; the walk goes on.
            let Ok(entry) = next else { continue };
            if entry.depth() == 0 {
                continue;
            }
            let Ok(relative) = entry.path().strip_prefix(root) else {
                continue;
            };
            let path = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            let dir = entry.file_type().is_some_and(|t| t.is_dir());
            state.entries.push(FileEntry { path, dir });
            if state.entries.len() >= MAX_ENTRIES {
                state.done = true;
                state.walk = None;
                break;
            }
        }
        state.entries.len() > before
    }

    /// The indexed paths matching `query`, best first: the name starting
    /// with it, then the path, then the path containing it, then its
    /// letters in order; shallower and shorter paths first within each.
    /// Case is ignored.
    pub fn matches(&self, query: &str) -> Vec<FileEntry> {
        let query = query.to_lowercase();
        let state = self.state();
        let mut ranked: Vec<(u8, usize, usize, &FileEntry)> = state
            .entries
            .iter()
            .filter_map(|e| {
                let class = rank(&e.path.to_lowercase(), &query)?;
                Some((class, e.path.matches('/').count(), e.path.len(), e))
            })
            .collect();
        ranked.sort_by(|a, b| (a.0, a.1, a.2, &a.3.path).cmp(&(b.0, b.1, b.2, &b.3.path)));
        ranked
            .into_iter()
            .take(MAX_MATCHES)
            .map(|(.., e)| e.clone())
            .collect()
    }
}

/// How well `path` matches `query` (both lower case); `None`: not at all.
fn rank(path: &str, query: &str) -> Option<u8> {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name.starts_with(query) {
        Some(0)
    } else if path.starts_with(query) {
        Some(1)
    } else if path.contains(query) {
        Some(2)
    } else {
        let mut letters = path.chars();
        query.chars().all(|q| letters.any(|c| c == q)).then_some(3)
    }
}

/// The walker Glob and Grep use too: `.gitignore` (inside a repository or
/// not), `.ignore`, git's global excludes, no hidden files, no symlinks
/// followed, in name order.
fn walker(root: &Path) -> ignore::Walk {
    ignore::WalkBuilder::new(root)
        .standard_filters(true)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .build()
}

/// The list as shown: the matches for the `@` word at the cursor and the
/// highlighted row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMenu {
    pub at: AtQuery,
    pub items: Vec<FileEntry>,
    pub selected: usize,
}

/// The list's state between keys. `key` is the composer's text and cursor
/// it was made for, so typing or moving makes it again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilePopupState {
    pub menu: Option<FileMenu>,
    /// (text, row, col, entries indexed) the menu was made on.
    made_on: Option<(String, usize, usize, usize)>,
    /// The text Esc closed the list on; it opens again once that changes.
    closed_on: Option<String>,
}

impl FilePopupState {
    /// Makes the list again for the composer's `line` and cursor, walking
    /// on first while an `@` word is being typed.
    pub fn refresh(
        &mut self,
        text: &str,
        line: &str,
        (row, col): (usize, usize),
        index: &FileIndex,
        root: &Path,
    ) {
        let at = at_query(line, col).filter(|_| self.closed_on.as_deref() != Some(text));
        let Some(at) = at else {
            self.menu = None;
            self.made_on = None;
            if self.closed_on.as_deref() != Some(text) {
                self.closed_on = None;
            }
            return;
        };
        if !root.as_os_str().is_empty() {
            index.advance(root);
        }
        let key = (text.to_string(), row, col, index.len());
        if self.made_on.as_ref() == Some(&key) {
            return;
        }
        let selected = match (&self.menu, &self.made_on) {
            // More paths arrived for the same text: the row stays.
            (Some(menu), Some((t, r, c, _))) if (t.as_str(), *r, *c) == (text, row, col) => {
                menu.selected
            }
            _ => 0,
        };
        let items = index.matches(&at.query);
        self.made_on = Some(key);
        self.menu = (!items.is_empty()).then(|| FileMenu {
            selected: selected.min(items.len().saturating_sub(1)),
            at,
            items,
        });
    }

    /// Moves the highlight by `delta` rows, wrapping.
    pub fn move_by(&mut self, delta: isize) {
        if let Some(menu) = self.menu.as_mut() {
            let len = menu.items.len().max(1);
            let at = menu.selected as isize + delta;
            menu.selected = at.rem_euclid(len as isize) as usize;
        }
    }

    /// Esc: closed until the text changes.
    pub fn close_on(&mut self, text: &str) {
        self.closed_on = Some(text.to_string());
        self.menu = None;
        self.made_on = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_word_at_the_cursor_is_found_plain_or_quoted() {
        let q = at_query("look at @src/ma", 15).map(|q| (q.start, q.query, q.quoted));
        assert_eq!(q, Some((8, "src/ma".to_string(), false)));
        let q = at_query("@\"my dir/a b", 12).map(|q| (q.start, q.query, q.quoted));
        assert_eq!(q, Some((0, "my dir/a b".to_string(), true)));
        assert_eq!(at_query("mail me@example.com", 19), None);
        assert_eq!(at_query("@src/main.rs done", 17), None);
        assert_eq!(at_query("@\"a b\" then", 11), None);
        // Only the text before the cursor counts.
        let q = at_query("@src then", 4).map(|q| q.query);
        assert_eq!(q.as_deref(), Some("src"));
    }

    #[test]
    fn insertion_quotes_names_with_spaces_and_keeps_directories_open() {
        let file = |path: &str, dir| FileEntry {
            path: path.into(),
            dir,
        };
        assert_eq!(file("src/main.rs", false).insertion(), "@src/main.rs ");
        assert_eq!(file("src", true).insertion(), "@src/");
        assert_eq!(
            file("docs/my notes.md", false).insertion(),
            "@\"docs/my notes.md\" "
        );
        assert_eq!(file("my dir", true).insertion(), "@\"my dir/");
    }

    #[test]
    fn ranking_prefers_names_then_paths_then_letters() {
        assert_eq!(rank("src/main.rs", "ma"), Some(0));
        assert_eq!(rank("src/main.rs", "src/m"), Some(1));
        assert_eq!(rank("src/main.rs", "ain"), Some(2));
        assert_eq!(rank("src/main.rs", "smr"), Some(3));
        assert_eq!(rank("src/main.rs", "zz"), None);
    }
}
