//! Resolving a tool's target path before the pure check (PERM-10, PERM-13).
//!
//! "Inside the workspace" is decided on the absolute path with `..` and
//! symlinks resolved; for a path that does not exist yet, its nearest
//! existing ancestor is resolved, so neither `../` nor a symlink can escape.
//! The same resolved path decides whether the target is protected (PERM-10)
//! and is what path rules are compared with (RULE-3).

use super::check::TargetLocation;
use super::declaration::ToolDeclaration;
use super::path_rules::{PathSubject, raw_path_subject};
use super::protected::protected_path;
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

/// Resolves `raw` (absolute, or relative to `base`) the way the OS would:
/// each existing component is canonicalised (following symlinks); components
/// below the first missing one are applied lexically, which is exact because
/// a missing directory cannot be a symlink.
pub(crate) fn resolve_path(base: &Path, raw: &Path) -> PathBuf {
    let joined = if raw.is_absolute() {
        raw.to_path_buf()
    } else {
        base.join(raw)
    };
    let mut current = PathBuf::new();
    let mut exists = true;
    for component in joined.components() {
        match component {
            Component::Prefix(p) => current.push(p.as_os_str()),
            Component::RootDir => current.push(component.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                current.pop();
                // Popping may land back on an existing (canonical) directory.
                exists = current.exists();
            }
            Component::Normal(name) => {
                current.push(name);
                if exists {
                    match std::fs::canonicalize(&current) {
                        Ok(real) => current = real,
                        Err(_) => exists = false,
                    }
                }
            }
        }
    }
    current
}

/// A directory resolved once, to compare many targets against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResolvedDir(PathBuf);

impl ResolvedDir {
    pub fn new(dir: &Path) -> Self {
        let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        Self(resolve_path(&base, dir))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn contains(&self, resolved: &Path) -> bool {
        resolved.starts_with(&self.0)
    }
}

/// The target path of an edit-family tool call, if the input names one.
pub(crate) fn target_path(input: &Value) -> Option<&str> {
    ["file_path", "path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .filter(|p| !p.is_empty())
}

/// The directories a call's paths are judged against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PathContext<'a> {
    pub workspace: &'a ResolvedDir,
    /// The project's memory directory (PERM-13).
    pub memory_dir: Option<&'a ResolvedDir>,
    /// `$ZCODE_HOME`, whose config and store are protected (PERM-10).
    pub zcode_home: Option<&'a ResolvedDir>,
}

/// A call's paths, resolved once: the edit target (PERM-10, PERM-13) and
/// the path subject of rules (RULE-3).
#[derive(Debug, Clone, Default)]
pub(crate) struct ResolvedCall {
    pub target: TargetLocation,
    pub path_subject: Option<PathSubject>,
}

/// Resolves the paths of one call (I/O: `canonicalize`, a few `stat`s).
pub(crate) fn resolve_call(
    tool: &ToolDeclaration,
    input: &Value,
    ctx: PathContext<'_>,
) -> ResolvedCall {
    let workspace = ctx.workspace.path();
    let subject_raw = raw_path_subject(tool.subject, input);
    let target_raw = tool
        .capability
        .edits_files()
        .then(|| target_path(input))
        .flatten();
    let subject_resolved = subject_raw.map(|raw| resolve_path(workspace, Path::new(raw)));
    let target = match target_raw {
        None => TargetLocation::default(),
        Some(raw) => {
            let resolved = match (subject_raw, &subject_resolved) {
                (Some(s), Some(r)) if s == raw => r.clone(),
                _ => resolve_path(workspace, Path::new(raw)),
            };
            target_location(&resolved, ctx)
        }
    };
    let path_subject = subject_raw
        .zip(subject_resolved)
        .map(|(raw, resolved)| PathSubject::new(raw, &resolved, workspace));
    ResolvedCall {
        target,
        path_subject,
    }
}

fn target_location(resolved: &Path, ctx: PathContext<'_>) -> TargetLocation {
    let is_md = resolved
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"));
    TargetLocation {
        inside_workspace: ctx.workspace.contains(resolved),
        memory_file: is_md && ctx.memory_dir.is_some_and(|m| m.contains(resolved)),
        protected: protected_path(resolved, ctx.zcode_home.map(ResolvedDir::path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::capability::Capability;
    use serde_json::json;

    /// Where a Write/Edit call's target lies (PERM-10, PERM-13 memory files).
    fn locate_target(
        capability: &Capability,
        input: &Value,
        workspace: &ResolvedDir,
        memory_dir: Option<&ResolvedDir>,
    ) -> TargetLocation {
        if !capability.edits_files() {
            return TargetLocation::default();
        }
        let Some(raw) = target_path(input) else {
            return TargetLocation::default();
        };
        let resolved = resolve_path(workspace.path(), Path::new(raw));
        let ctx = PathContext {
            workspace,
            memory_dir,
            zcode_home: None,
        };
        target_location(&resolved, ctx)
    }

    /// A tool of the edit family.
    const EDITS: Capability =
        Capability::read_only_low(crate::permission::capability::EDIT_PERMISSION);

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn perm10_relative_and_new_paths_are_inside() {
        let dir = tmp();
        let ws = ResolvedDir::new(dir.path());
        let loc = locate_target(&EDITS, &json!({"file_path": "src/new/file.rs"}), &ws, None);
        assert!(loc.inside_workspace);
        let abs = dir.path().join("a.txt");
        let loc = locate_target(&EDITS, &json!({"file_path": abs}), &ws, None);
        assert!(loc.inside_workspace);
    }

    #[test]
    fn perm10_dotdot_cannot_escape() {
        let dir = tmp();
        std::fs::create_dir(dir.path().join("ws")).unwrap();
        let ws = ResolvedDir::new(&dir.path().join("ws"));
        for p in ["../x", "new/../../x", "./../ws2/x", "a/b/../../../x"] {
            let loc = locate_target(&EDITS, &json!({"file_path": p}), &ws, None);
            assert!(!loc.inside_workspace, "{p}");
        }
        let loc = locate_target(&EDITS, &json!({"file_path": "a/../b"}), &ws, None);
        assert!(loc.inside_workspace);
    }

    #[cfg(unix)]
    #[test]
    fn perm10_symlinks_cannot_escape() {
        let dir = tmp();
        let ws_path = dir.path().join("ws");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&ws_path).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, ws_path.join("link")).unwrap();
        let ws = ResolvedDir::new(&ws_path);
        for p in ["link/x", "link/new/dir/x", "link"] {
            let loc = locate_target(&EDITS, &json!({"file_path": p}), &ws, None);
            assert!(!loc.inside_workspace, "{p}");
        }
        // A workspace reached through a symlink is still itself.
        std::os::unix::fs::symlink(&ws_path, dir.path().join("wslink")).unwrap();
        let ws2 = ResolvedDir::new(&dir.path().join("wslink"));
        let loc = locate_target(&EDITS, &json!({"file_path": ws_path.join("f")}), &ws2, None);
        assert!(loc.inside_workspace);
    }

    #[test]
    fn perm13_memory_files_are_md_inside_the_memory_dir() {
        let dir = tmp();
        let ws = ResolvedDir::new(&dir.path().join("ws"));
        let mem = ResolvedDir::new(&dir.path().join("home/projects/p/memory"));
        let md = dir.path().join("home/projects/p/memory/notes.md");
        let loc = locate_target(&EDITS, &json!({"file_path": md}), &ws, Some(&mem));
        assert!(loc.memory_file && !loc.inside_workspace);
        let txt = dir.path().join("home/projects/p/memory/notes.txt");
        let loc = locate_target(&EDITS, &json!({"file_path": txt}), &ws, Some(&mem));
        assert!(!loc.memory_file);
        let esc = dir.path().join("home/projects/p/memory/../evil.md");
        let loc = locate_target(&EDITS, &json!({"file_path": esc}), &ws, Some(&mem));
        assert!(!loc.memory_file);
    }
}
