//! What the model is told about the project before it starts: the
//! instruction files (`AGENTS.md`, the cross-agent convention; `CLAUDE.md`
//! where a directory has none) and facts about the environment (today's
//! date, the git branch and a short `git status`, the shell). Read once at
//! session start, so a file the model edits takes effect in the next
//! session, as in other agents.

use crate::child_wait::wait_with_deadline;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// One file's text is cut after this many bytes, with a notice.
pub const MAX_FILE_BYTES: usize = 32 * 1024;
/// All instruction files together; files past it are left out, with a
/// notice.
pub const MAX_TOTAL_BYTES: usize = 64 * 1024;
/// `MEMORY.md`, the index of the project's memory, is shown up to this
/// many lines (and bytes); the model is asked to keep it shorter.
pub const MAX_MEMORY_LINES: usize = 200;
pub const MAX_MEMORY_BYTES: usize = 16 * 1024;
/// For a model with a small context window (see the small_window module): the
/// instruction files together get this many bytes (the files closest to
/// the working directory first), `MEMORY.md` this many, each with the
/// usual notice of what was left out.
pub const COMPACT_MAX_INSTRUCTION_BYTES: usize = 2 * 1024;
pub const COMPACT_MAX_MEMORY_BYTES: usize = 1024;
/// `git status` gets this long; a larger repository goes without it.
const GIT_STATUS_TIMEOUT: Duration = Duration::from_secs(1);

/// An instruction file as it goes into the system prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstructionFile {
    pub path: PathBuf,
    pub text: String,
    /// Bytes left out past the cap.
    pub cut_bytes: usize,
}

/// What the system prompt says about the project, gathered at start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectContext {
    pub files: Vec<InstructionFile>,
    /// Files found but left out (over the total cap, unreadable).
    pub skipped: Vec<String>,
    pub date: String,
    pub git_branch: Option<String>,
    pub git_status: Option<String>,
    pub shell: Option<String>,
    /// The project's memory directory and its `MEMORY.md`, if any.
    pub memory_dir: Option<PathBuf>,
    pub memory_index: Option<String>,
}

impl ProjectContext {
    /// Everything for `workspace`, the global file under `zcode_home`.
    pub fn gather(workspace: &Path, zcode_home: &Path) -> Self {
        let (files, skipped) = load_instruction_files(workspace, zcode_home);
        Self {
            files,
            skipped,
            date: today_utc(),
            git_branch: crate::git_info::current_branch(workspace),
            git_status: git_status_summary(workspace),
            shell: std::env::var("SHELL").ok().filter(|s| !s.is_empty()),
            memory_dir: None,
            memory_index: None,
        }
    }

    /// Adds the project's memory: where it lives and its index as it is.
    pub fn with_memory(mut self, memory_dir: &Path) -> Self {
        self.memory_index = read_memory_index(memory_dir);
        self.memory_dir = Some(memory_dir.to_path_buf());
        self
    }

    /// The environment lines and the instruction files, for the prompt.
    pub fn prompt_section(&self) -> String {
        self.render(memory_section)
    }

    /// [`Self::prompt_section`] for a model with a small context window:
    /// the instruction files and the memory index under the `COMPACT_`
    /// caps, and a one-line note about the memory.
    pub fn compact_prompt_section(&self) -> String {
        let mut budget = COMPACT_MAX_INSTRUCTION_BYTES;
        let mut files = Vec::new();
        let mut skipped = Vec::new();
        // The closest file wins where they disagree: it is kept first.
        for file in self.files.iter().rev() {
            let text = cut_at_char(&file.text, budget);
            if text.trim().is_empty() {
                skipped.push(format!(
                    "{} (over {COMPACT_MAX_INSTRUCTION_BYTES} bytes of instructions for this model's small context window; read the file if it matters)",
                    file.path.display()
                ));
                continue;
            }
            budget -= text.len();
            files.push(InstructionFile {
                path: file.path.clone(),
                text: text.to_string(),
                cut_bytes: file.cut_bytes + (file.text.len() - text.len()),
            });
        }
        files.reverse();
        skipped.reverse();
        skipped.extend(self.skipped.iter().cloned());
        let compact = ProjectContext {
            files,
            skipped,
            memory_index: self.memory_index.as_deref().map(compact_memory_index),
            ..self.clone()
        };
        compact.render(compact_memory_section)
    }

    fn render(&self, memory: fn(&Path, Option<&str>) -> String) -> String {
        let mut out = format!("- Today's date: {}\n", self.date);
        if let Some(branch) = &self.git_branch {
            out.push_str(&format!("- Git branch: {branch}\n"));
        }
        if let Some(status) = &self.git_status {
            out.push_str(&format!("- Git status at session start: {status}\n"));
        }
        if let Some(shell) = &self.shell {
            out.push_str(&format!("- Shell: {shell}\n"));
        }
        if let Some(dir) = &self.memory_dir {
            out.push_str(&memory(dir, self.memory_index.as_deref()));
        }
        if self.files.is_empty() && self.skipped.is_empty() {
            return out;
        }
        out.push_str(
            "\n# Project instructions\nThe user's instructions for this project, from these files (the closest to the working directory last, and winning where they disagree). Follow them.\n",
        );
        for file in &self.files {
            out.push_str(&format!(
                "\n<instructions path=\"{}\">\n{}\n",
                file.path.display(),
                file.text.trim_end()
            ));
            if file.cut_bytes > 0 {
                out.push_str(&format!(
                    "[{} more bytes of this file were left out; read the file for the rest]\n",
                    file.cut_bytes
                ));
            }
            out.push_str("</instructions>\n");
        }
        for skipped in &self.skipped {
            out.push_str(&format!("\n[left out: {skipped}]\n"));
        }
        out
    }
}

/// `/memory`: what this session loaded, and the memory directory's files
/// as they are now (the model may have written some since the start).
pub fn memory_report(context: &ProjectContext) -> String {
    let mut out = String::from("instructions loaded at session start:");
    if context.files.is_empty() {
        out.push_str(
            "\n  none (AGENTS.md or CLAUDE.md in the repository, or $ZCODE_HOME/AGENTS.md)",
        );
    }
    for file in &context.files {
        let cut = if file.cut_bytes > 0 {
            format!(", {} bytes left out", file.cut_bytes)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "\n  {} ({} bytes{cut})",
            file.path.display(),
            file.text.len()
        ));
    }
    for skipped in &context.skipped {
        out.push_str(&format!("\n  left out: {skipped}"));
    }
    let Some(dir) = &context.memory_dir else {
        return out;
    };
    out.push_str(&format!("\nproject memory: {}", dir.display()));
    let mut notes: Vec<(String, u64)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            let name = e.file_name().to_string_lossy().into_owned();
            (meta.is_file() && name.ends_with(".md")).then_some((name, meta.len()))
        })
        .collect();
    notes.sort();
    if notes.is_empty() {
        out.push_str("\n  no notes yet (ask the model to remember something)");
    }
    for (name, len) in &notes {
        out.push_str(&format!("\n  {name} ({len} bytes)"));
    }
    if let Some(index) = read_memory_index(dir) {
        out.push_str("\nMEMORY.md:\n");
        out.push_str(&index);
    }
    out
}

/// How the model is told about its memory across sessions.
fn memory_section(dir: &Path, index: Option<&str>) -> String {
    let mut out = format!(
        "\n# Project memory\nYou keep notes for this project across sessions in {dir}. When the user asks you to remember something (\"remember that we use pnpm\"), or you learn a durable fact worth keeping (a build quirk, a convention, a decision), write it to a Markdown file there and keep {index} as a short index (one line per note, under {MAX_MEMORY_LINES} lines). Writing and editing `.md` files in that directory is allowed in every mode, plan included. Do not store secrets there.\n",
        dir = dir.display(),
        index = dir.join("MEMORY.md").display(),
    );
    match index {
        Some(text) => out.push_str(&format!(
            "\n<memory path=\"{}\">\n{}\n</memory>\n",
            dir.join("MEMORY.md").display(),
            text.trim_end()
        )),
        None => out.push_str("There is no MEMORY.md yet.\n"),
    }
    out
}

/// [`memory_section`] in a few words, for a small context window.
fn compact_memory_section(dir: &Path, index: Option<&str>) -> String {
    let index_path = dir.join("MEMORY.md");
    let mut out = format!(
        "\n# Project memory\nTo remember something for later sessions, write a short Markdown note in {} and add a line for it to {}. Never store secrets there.\n",
        dir.display(),
        index_path.display(),
    );
    if let Some(text) = index {
        out.push_str(&format!(
            "<memory path=\"{}\">\n{}\n</memory>\n",
            index_path.display(),
            text.trim_end()
        ));
    }
    out
}

/// The memory index cut to [`COMPACT_MAX_MEMORY_BYTES`] at a line's end,
/// with a notice when something was left out.
fn compact_memory_index(index: &str) -> String {
    if index.len() <= COMPACT_MAX_MEMORY_BYTES {
        return index.to_string();
    }
    let head = cut_at_char(index, COMPACT_MAX_MEMORY_BYTES);
    let head = head.rfind('\n').map_or(head, |end| &head[..end]);
    format!(
        "{head}\n[{} more bytes of MEMORY.md were left out; read the file for the rest]",
        index.len() - head.len()
    )
}

/// The memory directory's `MEMORY.md` up to the caps, with a note when it
/// is longer; only where it resolves inside the memory directory.
fn read_memory_index(memory_dir: &Path) -> Option<String> {
    let path = resolved_inside(&memory_dir.join("MEMORY.md"), memory_dir).ok()?;
    let meta = std::fs::metadata(&path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let bytes = read_prefix(&path, MAX_MEMORY_BYTES).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let shown = lines.len().min(MAX_MEMORY_LINES);
    let mut out = lines[..shown].join("\n");
    let size = usize::try_from(meta.len()).unwrap_or(usize::MAX);
    if shown < lines.len() || size > bytes.len() {
        out.push_str(&format!(
            "\n[MEMORY.md goes on past {MAX_MEMORY_LINES} lines or {MAX_MEMORY_BYTES} bytes: shorten it, keeping details in the other files]"
        ));
    }
    (!out.trim().is_empty()).then_some(out)
}

/// The repository root: the nearest ancestor of `workspace` holding
/// `.git`; the workspace itself outside a repository.
fn repository_root(workspace: &Path) -> &Path {
    workspace
        .ancestors()
        .find(|a| a.join(".git").exists())
        .unwrap_or(workspace)
}

/// The directories from the repository root down to `workspace`.
fn instruction_dirs(workspace: &Path) -> Vec<PathBuf> {
    let root = repository_root(workspace);
    let mut dirs: Vec<PathBuf> = workspace
        .ancestors()
        .take_while(|a| a.starts_with(root))
        .map(Path::to_path_buf)
        .collect();
    dirs.reverse();
    dirs
}

/// `path` with every link resolved, when it resolves inside `root` (also
/// resolved). An instruction or memory file is sent to the model provider:
/// a link out of the repository (`AGENTS.md -> ~/.ssh/id_ed25519`) must
/// not send whatever it points to.
pub(crate) fn resolved_inside(path: &Path, root: &Path) -> Result<PathBuf, String> {
    let root = std::fs::canonicalize(root)
        .map_err(|e| format!("{} (cannot be resolved: {e})", root.display()))?;
    let resolved = std::fs::canonicalize(path)
        .map_err(|e| format!("{} (cannot be resolved: {e})", path.display()))?;
    let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let markdown = resolved
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"));
    if linked && !markdown {
        // A link to a key or a `.env` inside a home directory that is
        // itself a repository stays inside the tree: only a link to
        // Markdown is an instruction file.
        return Err(format!(
            "{} (a link to {}, which is not a Markdown file; not read)",
            path.display(),
            resolved.display()
        ));
    }
    if resolved.starts_with(&root) {
        Ok(resolved)
    } else {
        Err(format!(
            "{} (a link to {}, outside {}; not read)",
            path.display(),
            resolved.display(),
            root.display()
        ))
    }
}

/// The global file, then one file per directory from the root down:
/// `AGENTS.md`, else `CLAUDE.md`. Each is read only where it resolves
/// inside its own tree: the repository, or `zcode_home` for the global one.
pub fn load_instruction_files(
    workspace: &Path,
    zcode_home: &Path,
) -> (Vec<InstructionFile>, Vec<String>) {
    let repository = repository_root(workspace);
    let mut candidates = vec![(zcode_home.join("AGENTS.md"), zcode_home)];
    for dir in instruction_dirs(workspace) {
        let agents = dir.join("AGENTS.md");
        if agents.is_file() {
            candidates.push((agents, repository));
        } else {
            candidates.push((dir.join("CLAUDE.md"), repository));
        }
    }
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    let mut total = 0usize;
    for (path, root) in candidates {
        // Only regular files: a FIFO named AGENTS.md must not hang the start.
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let readable = match resolved_inside(&path, root) {
            Ok(resolved) => resolved,
            Err(why) => {
                skipped.push(why);
                continue;
            }
        };
        let bytes = match read_prefix(&readable, MAX_FILE_BYTES) {
            Ok(b) => b,
            Err(e) => {
                skipped.push(format!("{} (cannot be read: {e})", path.display()));
                continue;
            }
        };
        let size = usize::try_from(meta.len()).unwrap_or(usize::MAX);
        let text = String::from_utf8_lossy(&bytes);
        let text = cut_at_char(&text, MAX_FILE_BYTES).to_string();
        if text.trim().is_empty() {
            continue;
        }
        if total + text.len() > MAX_TOTAL_BYTES {
            skipped.push(format!(
                "{} (the instruction files together are over {MAX_TOTAL_BYTES} bytes)",
                path.display()
            ));
            continue;
        }
        total += text.len();
        let cut_bytes = size.saturating_sub(text.len());
        files.push(InstructionFile {
            path,
            text,
            cut_bytes,
        });
    }
    (files, skipped)
}

fn read_prefix(path: &Path, max: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(max as u64).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn cut_at_char(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `git status --porcelain` summed up ("clean", "2 modified, 1 untracked"),
/// given at most a second; `None` outside a repository, without git, or
/// without the kernel sandbox.
///
/// The repository is untrusted: its configuration and attributes may name
/// programs (an fsmonitor hook, a filter driver named from a worktree's
/// common directory or a submodule's `info/attributes`). git runs with
/// the settings that name programs neutralised (`git_env::own_read_env`)
/// and inside the read-only sandbox; where there is no sandbox, a
/// neutralising that is complete on every git version and layout cannot
/// be promised, so the status is left out.
fn git_status_summary(workspace: &Path) -> Option<String> {
    if !crate::sandbox::support().available() {
        return None;
    }
    let git_dir = crate::git_info::git_dir(workspace)?;
    let mut command = Command::new("git");
    command
        .args(["status", "--porcelain=v1", "--untracked-files=normal"])
        .envs(crate::git_env::own_read_env(&git_dir))
        .current_dir(workspace)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // Its own process group, so whatever git starts ends with it.
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    crate::sandbox::apply_to_std(&mut command, &crate::sandbox::SandboxPolicy::read_only()).ok()?;
    let mut child = command.spawn().ok()?;
    let group = i32::try_from(child.id()).ok();
    let stdout = child.stdout.take()?;
    // Read on a thread: a large status must not fill the pipe and stall.
    let (sender, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::Read;
        let mut out = Vec::new();
        let _ = stdout.take(4 * 1024 * 1024).read_to_end(&mut out);
        let _ = sender.send(out);
    });
    let status = wait_with_deadline(&mut child, GIT_STATUS_TIMEOUT);
    if let Some(group) = group {
        // SAFETY: a signal to the group this call created; nothing else
        // is in it (the sandbox refuses setpgid and setsid).
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
    if !status.ok()??.success() {
        return None;
    }
    // A process that kept the pipe open is gone with the group; the wait
    // is bounded all the same.
    let out = received.recv_timeout(GIT_STATUS_TIMEOUT).ok()?;
    Some(summarize_porcelain(&String::from_utf8_lossy(&out)))
}

/// Counts of a porcelain v1 status.
pub fn summarize_porcelain(porcelain: &str) -> String {
    let (mut staged, mut modified, mut untracked) = (0usize, 0usize, 0usize);
    for line in porcelain.lines() {
        let mut chars = line.chars();
        let (x, y) = (chars.next().unwrap_or(' '), chars.next().unwrap_or(' '));
        if x == '?' {
            untracked += 1;
            continue;
        }
        if x != ' ' {
            staged += 1;
        }
        if y != ' ' {
            modified += 1;
        }
    }
    let parts: Vec<String> = [
        (staged, "staged"),
        (modified, "modified"),
        (untracked, "untracked"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    if parts.is_empty() {
        "clean".to_string()
    } else {
        parts.join(", ")
    }
}

/// Today's date in UTC, `YYYY-MM-DD` (days since 1970 to a civil date).
fn today_utc() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days(i64::try_from(secs / 86_400).unwrap_or(0));
    format!("{y:04}-{m:02}-{d:02}")
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let m = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_files_load_root_first_closest_last_with_claude_md_as_fallback() {
        let home = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("crates/app")).unwrap();
        std::fs::write(home.path().join("AGENTS.md"), "global rule").unwrap();
        std::fs::write(root.join("AGENTS.md"), "root rule").unwrap();
        std::fs::write(root.join("CLAUDE.md"), "ignored: AGENTS.md is here").unwrap();
        std::fs::write(root.join("crates/CLAUDE.md"), "crates rule").unwrap();
        std::fs::write(root.join("crates/app/AGENTS.md"), "app rule").unwrap();
        let (files, skipped) = load_instruction_files(&root.join("crates/app"), home.path());
        let texts: Vec<&str> = files.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(
            texts,
            ["global rule", "root rule", "crates rule", "app rule"]
        );
        assert!(skipped.is_empty());
        assert_eq!(files[2].path, root.join("crates/CLAUDE.md"));
    }

    #[test]
    fn a_huge_file_is_cut_at_the_cap_with_a_notice_and_a_fifo_is_skipped() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(ws.path().join("AGENTS.md"), "é".repeat(MAX_FILE_BYTES)).unwrap();
        let (files, _) = load_instruction_files(ws.path(), home.path());
        assert_eq!(files.len(), 1);
        assert!(files[0].text.len() <= MAX_FILE_BYTES);
        assert!(files[0].cut_bytes > 0);
        let context = ProjectContext {
            files,
            ..Default::default()
        };
        assert!(
            context
                .prompt_section()
                .contains("more bytes of this file were left out")
        );
        // A FIFO in place of the file does not block the start.
        let fifo_dir = tempfile::tempdir().unwrap();
        let fifo = fifo_dir.path().join("AGENTS.md");
        let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let (files, _) = load_instruction_files(fifo_dir.path(), home.path());
        assert!(files.is_empty());
    }

    #[test]
    fn memory_is_located_and_its_index_shown_capped() {
        let dir = tempfile::tempdir().unwrap();
        let context = ProjectContext::default().with_memory(dir.path());
        let section = context.prompt_section();
        assert!(
            section.contains(&dir.path().display().to_string()),
            "{section}"
        );
        assert!(section.contains("There is no MEMORY.md yet."), "{section}");
        let index: String = (0..500).map(|i| format!("- note {i}\n")).collect();
        std::fs::write(dir.path().join("MEMORY.md"), index).unwrap();
        let context = ProjectContext::default().with_memory(dir.path());
        let section = context.prompt_section();
        assert!(
            section.contains("- note 199") && !section.contains("- note 200"),
            "{section}"
        );
        assert!(section.contains("shorten it"), "{section}");
    }

    #[test]
    fn small1_compact_section_caps_instructions_closest_first_and_the_memory_index() {
        let file = |path: &str, text: String| InstructionFile {
            path: PathBuf::from(path),
            text,
            cut_bytes: 0,
        };
        let context = ProjectContext {
            files: vec![
                file("/home/AGENTS.md", "global rule\n".repeat(300)),
                file("/repo/AGENTS.md", "closest rule\n".repeat(100)),
            ],
            memory_dir: Some(PathBuf::from("/mem")),
            memory_index: Some("- a note\n".repeat(500)),
            ..Default::default()
        };
        let section = context.compact_prompt_section();
        // The closest file is whole; the global one gets what is left.
        assert!(section.contains(&"closest rule\n".repeat(100)), "{section}");
        assert!(
            section.contains("more bytes of this file were left out"),
            "{section}"
        );
        assert!(section.contains("more bytes of MEMORY.md were left out"));
        let full = context.prompt_section();
        assert!(section.len() < COMPACT_MAX_INSTRUCTION_BYTES + COMPACT_MAX_MEMORY_BYTES + 1500);
        assert!(full.len() > section.len() * 2);
        // With no room left, a file is named as left out.
        let mut crowded = context.clone();
        crowded.files[1].text = "x".repeat(COMPACT_MAX_INSTRUCTION_BYTES);
        let section = crowded.compact_prompt_section();
        assert!(
            section.contains("[left out: /home/AGENTS.md (over"),
            "{section}"
        );
    }

    #[test]
    fn porcelain_is_summed_up() {
        assert_eq!(summarize_porcelain(""), "clean");
        assert_eq!(
            summarize_porcelain("M  a.rs\n M b.rs\nMM c.rs\n?? new.txt\n"),
            "2 staged, 2 modified, 1 untracked"
        );
    }

    #[test]
    fn civil_dates_are_right() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_789), (2026, 12, 2));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }
}
