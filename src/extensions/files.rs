//! Where agent, skill and command files are, and reading one safely.
//!
//! A kind's directories, highest precedence first: `<workspace>/.zcode/<kind>`,
//! `<workspace>/.claude/<kind>` (so a Claude Code project's files work
//! unchanged), then `$ZCODE_HOME/<kind>`. `~/.claude/<kind>` is not read:
//! the user's own zcode files live in `$ZCODE_HOME`.
//!
//! Reading is bounded: a file over [`MAX_FILE_BYTES`] is refused, only
//! regular files are read (a FIFO or `/dev/zero` named `x.md` is refused
//! without blocking), a symbolic link is followed only when it resolves
//! (no loop) to a regular file, and in a project directory only to one
//! inside the workspace (a repository cannot make zcode hand, say, a key
//! file to the model as a skill). Links in `$ZCODE_HOME` may point
//! anywhere: they are the user's own.

use super::Problem;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest file read (256 KiB): more is no prompt but a mistake.
pub(crate) const MAX_FILE_BYTES: u64 = 256 * 1024;

/// How many entries of one directory are looked at: the rest is reported.
pub(crate) const MAX_ENTRIES: usize = 1000;

/// How many files of one kind are read, and how many bytes in all: a
/// repository cannot make the start read gigabytes through many files
/// that are each under the per-file cap.
pub(crate) const MAX_FILES: usize = 500;
pub(crate) const MAX_TOTAL_BYTES: u64 = 16 * 1024 * 1024;

/// What is left of a kind's reading allowance ([`MAX_FILES`],
/// [`MAX_TOTAL_BYTES`]); once spent, the files after are reported once
/// and left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Budget {
    files: usize,
    bytes: u64,
    told: bool,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            files: MAX_FILES,
            bytes: MAX_TOTAL_BYTES,
            told: false,
        }
    }
}

impl Budget {
    /// Whether one more file may be read; the first refusal is a problem.
    fn take(&mut self, path: &Path, problems: &mut Vec<Problem>) -> bool {
        if self.files > 0 && self.bytes > 0 {
            self.files -= 1;
            return true;
        }
        if !self.told {
            self.told = true;
            problems.push(Problem::new(
                path,
                format!(
                    "and the files after it are not read: at most {MAX_FILES} files or {} MiB of one kind are",
                    MAX_TOTAL_BYTES / 1024 / 1024
                ),
            ));
        }
        false
    }

    fn spend(&mut self, bytes: usize) {
        self.bytes = self.bytes.saturating_sub(bytes as u64);
    }
}

/// Whose a directory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// The workspace's `.zcode/` or `.claude/`.
    Project,
    /// `$ZCODE_HOME`.
    User,
}

impl Scope {
    pub fn label(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
        }
    }
}

/// One directory of a kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub dir: PathBuf,
    pub scope: Scope,
    /// Links must resolve inside this directory; `None`: anywhere.
    pub confine: Option<PathBuf>,
}

/// The directories of `kind` (`agents`, `skills`, `commands`), highest
/// precedence first.
pub fn sources(workspace: &Path, zcode_home: &Path, kind: &str) -> Vec<Source> {
    let root = workspace
        .canonicalize()
        .unwrap_or_else(|_| workspace.to_path_buf());
    vec![
        Source {
            dir: workspace.join(".zcode").join(kind),
            scope: Scope::Project,
            confine: Some(root.clone()),
        },
        Source {
            dir: workspace.join(".claude").join(kind),
            scope: Scope::Project,
            confine: Some(root),
        },
        Source {
            dir: zcode_home.join(kind),
            scope: Scope::User,
            confine: None,
        },
    ]
}

/// A directory's entries, sorted by name, capped at [`MAX_ENTRIES`]; a
/// missing directory has none, an unreadable one is a problem.
pub fn entries(dir: &Path, problems: &mut Vec<Problem>) -> Vec<PathBuf> {
    let read = match std::fs::read_dir(dir) {
        Ok(read) => read,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            problems.push(Problem::new(dir, "is not a directory"));
            return Vec::new();
        }
        Err(e) => {
            problems.push(Problem::new(dir, format!("cannot be read: {e}")));
            return Vec::new();
        }
    };
    let mut paths: Vec<PathBuf> = read
        .flatten()
        .map(|e| e.path())
        .take(MAX_ENTRIES + 1)
        .collect();
    if paths.len() > MAX_ENTRIES {
        paths.truncate(MAX_ENTRIES);
        problems.push(Problem::new(
            dir,
            format!("has more than {MAX_ENTRIES} entries; only the first {MAX_ENTRIES} are read"),
        ));
    }
    paths.sort();
    paths
}

/// Whether `path` names a Markdown file by its extension.
pub(crate) fn is_markdown(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"))
}

/// What `path` is once links are resolved, for walking directories.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    /// Anything else (a device, a FIFO, a socket).
    Special,
}

/// Resolves `path` under `source`'s rules: `Err` is the reason it is
/// refused (a loop, a dangling link, a link out of the project).
pub fn resolve(path: &Path, source: &Source) -> Result<(PathBuf, Kind), String> {
    let real = path.canonicalize().map_err(|e| {
        if e.raw_os_error() == Some(libc::ELOOP) {
            "is a symbolic link loop".to_string()
        } else if path
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
        {
            "is a symbolic link to nothing".to_string()
        } else {
            format!("cannot be read: {e}")
        }
    })?;
    if let Some(root) = &source.confine
        && !real.starts_with(root)
    {
        return Err(format!(
            "is a link out of the project (to {}); only links inside the workspace are followed",
            real.display()
        ));
    }
    let meta = std::fs::metadata(&real).map_err(|e| format!("cannot be read: {e}"))?;
    let kind = if meta.is_file() {
        Kind::File
    } else if meta.is_dir() {
        Kind::Dir
    } else {
        Kind::Special
    };
    Ok((real, kind))
}

/// Reads the regular file at `path` (already resolved) as UTF-8, at most
/// [`MAX_FILE_BYTES`]. Opened without blocking and checked on the open
/// handle, so a FIFO swapped in after `resolve` cannot hang the read.
pub fn read_text(path: &Path) -> Result<String, String> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| format!("cannot be read: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot be read: {e}"))?;
    if meta.is_dir() {
        return Err("is a directory, not a file".to_string());
    }
    if !meta.is_file() {
        return Err("is not a regular file".to_string());
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot be read: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_big());
    }
    String::from_utf8(bytes).map_err(|_| "is not UTF-8 text".to_string())
}

fn too_big() -> String {
    format!(
        "is larger than {} KiB; such a file is not read",
        MAX_FILE_BYTES / 1024
    )
}

/// One Markdown file of a kind, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// As found (not resolved): what problems and listings name.
    pub path: PathBuf,
    pub scope: Scope,
    pub text: String,
}

/// The `*.md` files directly in `source`'s directory, read; what cannot
/// be read is a problem (a directory named `x.md` too).
pub(crate) fn markdown_files(
    source: &Source,
    budget: &mut Budget,
    problems: &mut Vec<Problem>,
) -> Vec<Found> {
    let mut found = Vec::new();
    for path in entries(&source.dir, problems) {
        if !is_markdown(&path) {
            continue;
        }
        if let Some(file) = read_found(&path, source, budget, problems) {
            found.push(file);
        }
    }
    found
}

/// Reads one file of `source` within `budget`, or records why not.
pub(crate) fn read_found(
    path: &Path,
    source: &Source,
    budget: &mut Budget,
    problems: &mut Vec<Problem>,
) -> Option<Found> {
    if !budget.take(path, problems) {
        return None;
    }
    let read = resolve(path, source).and_then(|(real, kind)| match kind {
        Kind::File => read_text(&real),
        Kind::Dir => Err("is a directory, not a file".to_string()),
        Kind::Special => Err("is not a regular file".to_string()),
    });
    match read {
        Ok(text) => {
            budget.spend(text.len());
            Some(Found {
                path: path.to_path_buf(),
                scope: source.scope,
                text,
            })
        }
        Err(reason) => {
            problems.push(Problem::new(path, reason));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(dir: &Path, root: &Path) -> Source {
        Source {
            dir: dir.to_path_buf(),
            scope: Scope::Project,
            confine: Some(root.canonicalize().unwrap()),
        }
    }

    fn reasons(problems: &[Problem]) -> Vec<String> {
        problems.iter().map(|p| p.to_string()).collect()
    }

    /// The files of the project directory `dir` (the workspace `root`), with
    /// the reasons of what was left out.
    fn scan(dir: &Path, root: &Path) -> (Vec<Found>, Vec<String>) {
        let mut problems = Vec::new();
        let found = markdown_files(&project(dir, root), &mut Budget::default(), &mut problems);
        (found, reasons(&problems))
    }

    #[test]
    fn discovery_reads_markdown_files_sorted_and_skips_others() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("b.md"), "b").unwrap();
        std::fs::write(tmp.path().join("a.MD"), "a").unwrap();
        std::fs::write(tmp.path().join("notes.txt"), "x").unwrap();
        let (found, reasons) = scan(tmp.path(), tmp.path());
        let texts: Vec<&str> = found.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(texts, ["a", "b"]);
        assert!(reasons.is_empty());
    }

    #[test]
    fn discovery_missing_directory_is_no_problem() {
        let tmp = tempfile::tempdir().unwrap();
        let (found, reasons) = scan(&tmp.path().join("none"), tmp.path());
        assert!(found.is_empty() && reasons.is_empty());
    }

    #[test]
    fn bad_input_huge_file_is_reported_and_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("big.md"), "x".repeat(300 * 1024)).unwrap();
        let (found, reasons) = scan(tmp.path(), tmp.path());
        assert!(found.is_empty());
        assert!(
            reasons[0].contains("big.md: is larger than 256 KiB"),
            "{reasons:?}"
        );
    }

    #[test]
    fn bad_input_non_utf8_is_reported() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("bin.md"), [0xff, 0xfe, 0x00, 0x41]).unwrap();
        let (found, reasons) = scan(tmp.path(), tmp.path());
        assert!(found.is_empty());
        assert!(reasons[0].ends_with("bin.md: is not UTF-8 text"));
    }

    #[test]
    fn bad_input_directory_named_md_is_reported() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("dir.md")).unwrap();
        let (found, reasons) = scan(tmp.path(), tmp.path());
        assert!(found.is_empty());
        assert!(reasons[0].ends_with("dir.md: is a directory, not a file"));
    }

    #[test]
    fn bad_input_symlink_loop_is_reported_not_followed_forever() {
        let tmp = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("loop-b.md", tmp.path().join("loop-a.md")).unwrap();
        std::os::unix::fs::symlink("loop-a.md", tmp.path().join("loop-b.md")).unwrap();
        std::os::unix::fs::symlink("missing.md", tmp.path().join("dangling.md")).unwrap();
        let (found, reasons) = scan(tmp.path(), tmp.path());
        assert!(found.is_empty());
        assert!(
            reasons[0].ends_with("dangling.md: is a symbolic link to nothing"),
            "{reasons:?}"
        );
        assert!(
            reasons[1].ends_with("loop-a.md: is a symbolic link loop"),
            "{reasons:?}"
        );
        assert!(
            reasons[2].ends_with("loop-b.md: is a symbolic link loop"),
            "{reasons:?}"
        );
    }

    #[test]
    fn bad_input_project_link_out_of_the_workspace_is_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "key").unwrap();
        let ws = tempfile::tempdir().unwrap();
        let dir = ws.path().join(".claude/commands");
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.join("leak.md")).unwrap();
        std::fs::write(ws.path().join("shared.md"), "inside").unwrap();
        std::os::unix::fs::symlink(ws.path().join("shared.md"), dir.join("ok.md")).unwrap();
        let mut problems = Vec::new();
        let found = markdown_files(
            &project(&dir, ws.path()),
            &mut Budget::default(),
            &mut problems,
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].text, "inside");
        assert!(reasons(&problems)[0].contains("leak.md: is a link out of the project"));
        // The same link in the user's own directory is followed.
        let user = Source {
            dir: dir.clone(),
            scope: Scope::User,
            confine: None,
        };
        let mut problems = Vec::new();
        assert_eq!(
            markdown_files(&user, &mut Budget::default(), &mut problems).len(),
            2
        );
    }

    #[test]
    fn bad_input_fifo_and_dev_zero_are_refused_without_blocking() {
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("pipe.md");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        std::os::unix::fs::symlink("/dev/zero", tmp.path().join("zero.md")).unwrap();
        let user = Source {
            dir: tmp.path().to_path_buf(),
            scope: Scope::User,
            confine: None,
        };
        let mut problems = Vec::new();
        assert!(markdown_files(&user, &mut Budget::default(), &mut problems).is_empty());
        let reasons = reasons(&problems);
        assert!(
            reasons[0].ends_with("pipe.md: is not a regular file"),
            "{reasons:?}"
        );
        assert!(
            reasons[1].ends_with("zero.md: is not a regular file"),
            "{reasons:?}"
        );
        // Reading the FIFO directly does not block either.
        assert_eq!(read_text(&fifo).unwrap_err(), "is not a regular file");
    }

    #[test]
    fn bad_input_many_files_stop_at_the_budget_reported_once() {
        let tmp = tempfile::tempdir().unwrap();
        for i in 0..MAX_FILES + 5 {
            std::fs::write(tmp.path().join(format!("c{i:04}.md")), "x").unwrap();
        }
        let (found, reasons) = scan(tmp.path(), tmp.path());
        assert_eq!(found.len(), MAX_FILES);
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        assert!(reasons[0].contains("c0500.md: and the files after it are not read"));
        // Bytes count too: one file that spends the allowance ends it.
        let mut budget = Budget::default();
        budget.spend(MAX_TOTAL_BYTES as usize);
        let mut problems = Vec::new();
        assert!(
            markdown_files(&project(tmp.path(), tmp.path()), &mut budget, &mut problems).is_empty()
        );
    }

    #[test]
    fn discovery_order_is_zcode_then_claude_then_home() {
        let ws = Path::new("/w");
        let dirs: Vec<PathBuf> = sources(ws, Path::new("/h"), "agents")
            .into_iter()
            .map(|s| s.dir)
            .collect();
        assert_eq!(
            dirs,
            [
                PathBuf::from("/w/.zcode/agents"),
                PathBuf::from("/w/.claude/agents"),
                PathBuf::from("/h/agents")
            ]
        );
    }
}
