//! What the working tree's git repository says about itself, read from the
//! files under `.git` without running git: the status line shows the
//! branch, and reading a file costs nothing next to spawning a process.

use std::path::{Path, PathBuf};

/// The `HEAD` files are tiny; anything bigger is not one.
const MAX_HEAD_BYTES: u64 = 4096;

/// Where `HEAD` lives for the repository holding `dir`: `.git/HEAD`, or
/// for a linked worktree or submodule (whose `.git` is a file saying
/// `gitdir: …`) the `HEAD` in that directory.
fn head_file(dir: &Path) -> Option<PathBuf> {
    for ancestor in dir.ancestors() {
        let dot_git = ancestor.join(".git");
        let Ok(meta) = std::fs::metadata(&dot_git) else {
            continue;
        };
        if meta.is_dir() {
            return Some(dot_git.join("HEAD"));
        }
        if meta.is_file() {
            let text = read_small(&dot_git)?;
            let gitdir = text.lines().next()?.strip_prefix("gitdir:")?.trim();
            let gitdir = Path::new(gitdir);
            let gitdir = if gitdir.is_absolute() {
                gitdir.to_path_buf()
            } else {
                ancestor.join(gitdir)
            };
            return Some(gitdir.join("HEAD"));
        }
        return None;
    }
    None
}

/// The git directory of the repository holding `dir` (`.git`, or where a
/// `.git` file points), when there is one.
pub fn git_dir(dir: &Path) -> Option<PathBuf> {
    head_file(dir)?.parent().map(Path::to_path_buf)
}

fn read_small(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_HEAD_BYTES {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The checked-out branch of the repository holding `dir`, or `detached
/// at <short sha>`; `None` outside a repository or when `HEAD` cannot be
/// read.
pub fn current_branch(dir: &Path) -> Option<String> {
    let head = read_small(&head_file(dir)?)?;
    let head = head.trim();
    if let Some(reference) = head.strip_prefix("ref:") {
        let reference = reference.trim();
        let name = reference.strip_prefix("refs/heads/").unwrap_or(reference);
        return (!name.is_empty() && !name.chars().any(char::is_control)).then(|| name.to_string());
    }
    let is_sha = head.len() >= 7 && head.chars().all(|c| c.is_ascii_hexdigit());
    is_sha.then(|| format!("detached at {}", &head[..7]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo_with_head(head: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/HEAD"), head).unwrap();
        dir
    }

    #[test]
    fn ux_branch_is_read_from_head_in_the_workspace_or_above() {
        let repo = repo_with_head("ref: refs/heads/feature/login\n");
        assert_eq!(
            current_branch(repo.path()).as_deref(),
            Some("feature/login")
        );
        let sub = repo.path().join("src/deep");
        std::fs::create_dir_all(&sub).unwrap();
        assert_eq!(current_branch(&sub).as_deref(), Some("feature/login"));
    }

    #[test]
    fn ux_a_detached_head_shows_its_short_sha() {
        let repo = repo_with_head("0123456789abcdef0123456789abcdef01234567\n");
        assert_eq!(
            current_branch(repo.path()).as_deref(),
            Some("detached at 0123456")
        );
    }

    #[test]
    fn ux_a_linked_worktree_follows_its_gitdir_file() {
        let main = repo_with_head("ref: refs/heads/main\n");
        let wt_git = main.path().join(".git/worktrees/wt");
        std::fs::create_dir_all(&wt_git).unwrap();
        std::fs::write(wt_git.join("HEAD"), "ref: refs/heads/topic\n").unwrap();
        let wt = tempfile::tempdir().unwrap();
        std::fs::write(
            wt.path().join(".git"),
            format!("gitdir: {}\n", wt_git.display()),
        )
        .unwrap();
        assert_eq!(current_branch(wt.path()).as_deref(), Some("topic"));
    }

    #[test]
    fn ux_no_repository_or_a_garbage_head_is_none() {
        let dir = tempfile::tempdir().unwrap();
        // tempdirs may sit inside a repository on a developer machine; the
        // check that matters is the garbage HEAD below.
        let garbage = repo_with_head("not a head\x1b[2J");
        assert_eq!(current_branch(garbage.path()), None);
        let big = repo_with_head(&"ref: refs/heads/x".repeat(1000));
        assert_eq!(current_branch(big.path()), None);
        let _ = current_branch(dir.path());
    }
}
