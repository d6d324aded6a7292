//! The directory a project is keyed by (GRANT-3): the top of the git work
//! tree that holds the start directory, else the start directory itself.
//!
//! Found from the file system alone, the way git discovers a repository,
//! so that nothing in the environment (`GIT_DIR`, `GIT_WORK_TREE`,
//! `GIT_CEILING_DIRECTORIES`) can point two repositories at one project:
//!
//! - the nearest ancestor holding a valid `.git` wins, so a repository
//!   nested in another (or a submodule) is a project of its own;
//! - a `.git` file (a linked worktree, a submodule) makes its directory a
//!   root: each worktree is a project of its own;
//! - inside a git directory (`.git/…`, a bare repository) there is no work
//!   tree: the start directory stays its own project;
//! - a `.git` that is neither a git directory nor a `gitdir:` file is
//!   skipped, as git skips it;
//! - a repository at the home directory or at `/` (a dotfiles checkout)
//!   would make every directory under it one project: it is not taken.
//!
//! The path given must be canonical (symbolic links resolved), so a link
//! into a repository belongs to the repository it points into.

use std::path::{Path, PathBuf};

/// The `.git` files are tiny; anything bigger is not one.
const MAX_GITDIR_FILE: u64 = 4096;

/// The project root of the canonical directory `start`, with the user's
/// home directory read from `$HOME`.
pub fn project_root_of(start: &Path) -> PathBuf {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .and_then(|h| std::fs::canonicalize(h).ok());
    project_root(start, home.as_deref())
}

/// The project root of the canonical directory `start`; `home` is the
/// user's home directory, canonical (`None`: unknown).
pub fn project_root(start: &Path, home: Option<&Path>) -> PathBuf {
    for dir in start.ancestors() {
        if is_git_dir(dir) {
            // Inside `.git/` or a bare repository: not in a work tree.
            return start.to_path_buf();
        }
        if has_valid_dot_git(dir) {
            let too_wide = dir.parent().is_none() || home == Some(dir);
            return if too_wide && dir != start {
                start.to_path_buf()
            } else {
                dir.to_path_buf()
            };
        }
    }
    start.to_path_buf()
}

/// `dir/.git` is a git directory, or a file saying `gitdir: …`.
fn has_valid_dot_git(dir: &Path) -> bool {
    let dot_git = dir.join(".git");
    let Ok(meta) = std::fs::metadata(&dot_git) else {
        return false;
    };
    if meta.is_dir() {
        return is_git_dir(&dot_git);
    }
    if !meta.is_file() || meta.len() > MAX_GITDIR_FILE {
        return false;
    }
    std::fs::read_to_string(&dot_git).is_ok_and(|text| {
        text.lines()
            .next()
            .and_then(|line| line.strip_prefix("gitdir:"))
            .is_some_and(|target| !target.trim().is_empty())
    })
}

/// `dir` looks like a git directory: a `HEAD` file beside `objects/` and
/// `refs/` (what git itself checks before taking a directory as one).
fn is_git_dir(dir: &Path) -> bool {
    dir.join("HEAD").is_file() && dir.join("objects").is_dir() && dir.join("refs").is_dir()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn git_dir_at(dir: &Path) {
        fs::create_dir_all(dir.join("objects")).unwrap();
        fs::create_dir_all(dir.join("refs")).unwrap();
        fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    }

    fn repo(dir: &Path) {
        git_dir_at(&dir.join(".git"));
    }

    fn canon(p: &Path) -> PathBuf {
        fs::canonicalize(p).unwrap()
    }

    #[test]
    fn project_is_git_root() {
        let t = tempfile::tempdir().unwrap();
        let root = canon(t.path()).join("proj");
        let sub = root.join("src/deep");
        fs::create_dir_all(&sub).unwrap();
        repo(&root);
        assert_eq!(project_root(&sub, None), root);
        assert_eq!(project_root(&root, None), root);
    }

    #[test]
    fn project_outside_a_work_tree_is_the_start_directory() {
        let t = tempfile::tempdir().unwrap();
        let dir = canon(t.path()).join("plain/sub");
        fs::create_dir_all(&dir).unwrap();
        // A tempdir may sit inside a checkout on a developer machine; the
        // root found is never above the nearest `.git`.
        let found = project_root(&dir, None);
        assert!(dir.starts_with(&found), "{}", found.display());
        assert!(found == dir || found.join(".git").exists());
    }

    #[test]
    fn project_root_of_a_nested_repository_is_its_own() {
        let t = tempfile::tempdir().unwrap();
        let outer = canon(t.path()).join("outer");
        let inner = outer.join("vendor/inner");
        fs::create_dir_all(inner.join("src")).unwrap();
        repo(&outer);
        repo(&inner);
        assert_eq!(project_root(&inner.join("src"), None), inner);
        assert_eq!(project_root(&outer.join("vendor"), None), outer);
    }

    #[test]
    fn project_root_of_a_worktree_is_the_worktree() {
        let t = tempfile::tempdir().unwrap();
        let base = canon(t.path());
        let main = base.join("main");
        fs::create_dir_all(&main).unwrap();
        repo(&main);
        let wt = main.join("wt");
        git_dir_at(&main.join(".git/worktrees/wt"));
        fs::create_dir_all(wt.join("src")).unwrap();
        fs::write(
            wt.join(".git"),
            format!("gitdir: {}\n", main.join(".git/worktrees/wt").display()),
        )
        .unwrap();
        assert_eq!(project_root(&wt.join("src"), None), wt);
    }

    #[test]
    fn project_root_inside_a_git_directory_or_bare_repository_is_the_start() {
        let t = tempfile::tempdir().unwrap();
        let base = canon(t.path());
        let proj = base.join("proj");
        fs::create_dir_all(&proj).unwrap();
        repo(&proj);
        let refs = proj.join(".git/refs");
        assert_eq!(project_root(&refs, None), refs);
        let bare = proj.join("mirror.git");
        git_dir_at(&bare);
        let hooks = bare.join("hooks");
        fs::create_dir_all(&hooks).unwrap();
        assert_eq!(project_root(&hooks, None), hooks);
        assert_eq!(project_root(&bare, None), bare);
    }

    #[test]
    fn project_root_skips_a_dot_git_that_is_not_a_repository() {
        let t = tempfile::tempdir().unwrap();
        let proj = canon(t.path()).join("proj");
        let sub = proj.join("sub");
        fs::create_dir_all(sub.join(".git")).unwrap();
        repo(&proj);
        assert_eq!(project_root(&sub, None), proj);
        fs::remove_dir(sub.join(".git")).unwrap();
        fs::write(sub.join(".git"), "not a pointer\n").unwrap();
        assert_eq!(project_root(&sub, None), proj);
    }

    #[test]
    fn project_root_is_never_the_home_directory() {
        let t = tempfile::tempdir().unwrap();
        let home = canon(t.path()).join("home");
        let a = home.join("scratch/a");
        fs::create_dir_all(&a).unwrap();
        repo(&home);
        assert_eq!(project_root(&a, Some(&home)), a);
        // Started at the home directory itself, it is its own project.
        assert_eq!(project_root(&home, Some(&home)), home);
    }
}
