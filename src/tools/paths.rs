//! Resolving a tool's path argument against the workspace.
//!
//! A relative path is taken relative to `ctx.workspace`; an absolute path is
//! used as it is (whether the tool may reach outside the workspace is the
//! permission layer's decision, not the tool's). Existing components are
//! canonicalised, so a file reached through a symlink or `..` has one key in
//! the [`FileStateTracker`](super::FileStateTracker).

use std::path::{Path, PathBuf};

/// The absolute path a tool acts on.
pub fn resolve(workspace: &Path, raw: &str) -> PathBuf {
    crate::permission::paths::resolve_path(workspace, Path::new(raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_join_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(ws.join("src")).unwrap();
        assert_eq!(resolve(&ws, "src/a.rs"), ws.join("src/a.rs"));
        assert_eq!(resolve(&ws, "./src/../b.rs"), ws.join("b.rs"));
        assert_eq!(resolve(&ws, "/etc/hosts"), PathBuf::from("/etc/hosts"));
    }
}
