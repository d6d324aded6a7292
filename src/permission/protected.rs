//! Files whose contents make a tool run a program (PERM-10): writes to them
//! are never auto-allowed, not by edit mode, an allow rule or
//! `allowedTools`. Deny rules still deny; yolo still allows (PERM-4).
//!
//! The list covers what runs without the user choosing to build or run the
//! project: programs git starts from its own read-only commands or on
//! commit, zcode's own hooks, toolchain pins that make a version query run
//! another binary, and environment or editor files that run on `cd` or on
//! opening the folder. Build files (`Makefile`, `build.rs`, `package.json`
//! scripts) are left out on purpose: edit mode exists to change the
//! project, and building it runs its code whatever the build configuration.

use std::path::{Component, Path};

/// Why a write target is protected; `reason` is shown with the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtectedPath {
    /// Anything under a `.git` directory, a `.git` file (a `gitdir:` link)
    /// or a directory that git treats as a repository.
    GitDir,
    /// `.gitmodules`, `.gitconfig`: git configuration outside `.git/`.
    GitConfig,
    /// `.husky/`, `.pre-commit-config.yaml`: hooks run on `git commit`.
    CommitHook,
    /// `$ZCODE_HOME/config.json` (hooks, allowed tools) and the store.
    ZcodeConfig,
    /// `rust-toolchain(.toml)`, `.tool-versions`, `.cargo/config(.toml)`,
    /// `.npmrc`, `.yarnrc(.yml)`: choose the program a command runs.
    ToolchainConfig,
    /// `.envrc`, `.vscode/tasks.json`, `.vscode/settings.json`: run on
    /// entering the directory or opening it in the editor.
    EnvironmentHook,
}

impl ProtectedPath {
    pub fn reason(self) -> &'static str {
        match self {
            ProtectedPath::GitDir => {
                "writes inside a git directory (.git/config, hooks), which git runs programs from"
            }
            ProtectedPath::GitConfig => "writes git configuration, which git runs programs from",
            ProtectedPath::CommitHook => "writes a commit hook, which runs on git commit",
            ProtectedPath::ZcodeConfig => {
                "writes zcode's own configuration, which sets its hooks and permissions"
            }
            ProtectedPath::ToolchainConfig => {
                "writes a toolchain setting that chooses which program a command runs"
            }
            ProtectedPath::EnvironmentHook => {
                "writes a file that runs commands when the directory is entered or opened"
            }
        }
    }
}

/// Code points HFS+ ignores in file names (`.g\u{200c}it` is `.git`
/// there).
fn hfs_ignorable(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}')
}

/// A file name as case-insensitive file systems compare it: ASCII case
/// folded (macOS, Windows: `.GIT/config` is `.git/config`; on Linux the
/// extra question for a `.GIT` directory costs nothing), HFS+-ignorable
/// code points dropped, and trailing dots and spaces trimmed (Windows:
/// `.git.` is `.git`).
fn fold_name(name: &str) -> String {
    let kept: String = name.chars().filter(|c| !hfs_ignorable(*c)).collect();
    kept.trim_end_matches(['.', ' ']).to_ascii_lowercase()
}

/// Equality of a folded name with a lower-case expected name.
fn is(folded: &str, expected: &str) -> bool {
    folded == expected
}

/// `.git`, also as its NTFS short name `git~1`.
fn is_dot_git(folded: &str) -> bool {
    folded == ".git" || folded == "git~1"
}

/// The protection that applies to `path` by its names alone (no I/O).
/// `path` is the resolved absolute target; `zcode_home` the resolved home.
pub fn protected_by_name(path: &Path, zcode_home: Option<&Path>) -> Option<ProtectedPath> {
    if let Some(home) = zcode_home
        && let Ok(rest) = path.strip_prefix(home)
        && zcode_home_file_is_protected(rest)
    {
        return Some(ProtectedPath::ZcodeConfig);
    }
    let names: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(fold_name(&n.to_string_lossy())),
            _ => None,
        })
        .collect();
    let (file, dirs) = names.split_last()?;
    let file = file.as_str();
    // A directory component anywhere above the file.
    for dir in dirs {
        if is_dot_git(dir) {
            return Some(ProtectedPath::GitDir);
        }
        if is(dir, ".husky") {
            return Some(ProtectedPath::CommitHook);
        }
    }
    let parent = dirs.last().map_or("", String::as_str);
    if is_dot_git(file) {
        return Some(ProtectedPath::GitDir);
    }
    if [".gitmodules", ".gitconfig"].iter().any(|n| is(file, n)) {
        return Some(ProtectedPath::GitConfig);
    }
    if is(file, ".pre-commit-config.yaml") || is(file, ".pre-commit-config.yml") {
        return Some(ProtectedPath::CommitHook);
    }
    let toolchain = [
        "rust-toolchain",
        "rust-toolchain.toml",
        ".tool-versions",
        ".npmrc",
        ".yarnrc",
        ".yarnrc.yml",
    ];
    if toolchain.iter().any(|n| is(file, n))
        || (is(parent, ".cargo") && (is(file, "config") || is(file, "config.toml")))
    {
        return Some(ProtectedPath::ToolchainConfig);
    }
    if is(file, ".envrc")
        || (is(parent, ".vscode") && (is(file, "tasks.json") || is(file, "settings.json")))
    {
        return Some(ProtectedPath::EnvironmentHook);
    }
    None
}

/// `$ZCODE_HOME/config.json` (config::CONFIG_FILE_NAME; named here so
/// that the permission engine does not depend on the config loader).
pub const ZCODE_CONFIG_FILE: &str = "config.json";
/// `$ZCODE_HOME/cli/`, where the database with the saved rules lives.
pub const ZCODE_STORE_DIR: &str = "cli";

/// Inside `$ZCODE_HOME`: the config file (hooks, allowedTools) and the
/// database directory (saved rules) are protected; project memory files
/// (`projects/<id>/memory/`) are not, they are meant to be edited.
fn zcode_home_file_is_protected(rest: &Path) -> bool {
    let mut parts = rest.components();
    match parts.next() {
        Some(Component::Normal(first)) => {
            let first = fold_name(&first.to_string_lossy());
            is(&first, ZCODE_CONFIG_FILE) || is(&first, ZCODE_STORE_DIR)
        }
        // The home directory itself (e.g. replaced by a file).
        None => true,
        _ => false,
    }
}

/// A directory git would use as a repository: `HEAD` plus `objects/` (a
/// repository, bare or a submodule's `.git/modules/x`) or `commondir` (a
/// linked worktree's `.git/worktrees/x`). Catches git directories that are
/// not named `.git`, such as the target of a `gitdir:` link or a bare
/// `vendor/x.git`.
fn looks_like_git_dir(dir: &Path) -> bool {
    dir.join("HEAD").is_file() && (dir.join("objects").is_dir() || dir.join("commondir").is_file())
}

/// The protection of a resolved absolute target: by name, else by being
/// inside a directory that git treats as a repository (a few `stat`s per
/// existing ancestor).
pub fn protected_path(path: &Path, zcode_home: Option<&Path>) -> Option<ProtectedPath> {
    if let Some(found) = protected_by_name(path, zcode_home) {
        return Some(found);
    }
    // The target itself may be such a directory (writing `HEAD` into it
    // is covered by its parent below).
    path.ancestors()
        .skip(1)
        .filter(|dir| dir.parent().is_some())
        .any(looks_like_git_dir)
        .then_some(ProtectedPath::GitDir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_name(p: &str) -> Option<ProtectedPath> {
        protected_by_name(Path::new(p), Some(Path::new("/home/u/.zcode")))
    }

    #[test]
    fn perm10_protected_names() {
        for (path, want) in [
            ("/ws/.git/config", ProtectedPath::GitDir),
            ("/ws/.git/hooks/pre-commit", ProtectedPath::GitDir),
            ("/ws/vendor/x/.git/config", ProtectedPath::GitDir),
            ("/ws/.GIT/config", ProtectedPath::GitDir),
            ("/ws/sub/.git", ProtectedPath::GitDir),
            ("/ws/.g\u{200c}it/config", ProtectedPath::GitDir),
            ("/ws/\u{feff}.git/hooks/pre-commit", ProtectedPath::GitDir),
            ("/ws/GIT~1/config", ProtectedPath::GitDir),
            ("/ws/.git./config", ProtectedPath::GitDir),
            ("/ws/.git /config", ProtectedPath::GitDir),
            ("/ws/.GITMODULES", ProtectedPath::GitConfig),
            ("/ws/.gitmodules", ProtectedPath::GitConfig),
            ("/home/u/.gitconfig", ProtectedPath::GitConfig),
            ("/ws/.husky/pre-commit", ProtectedPath::CommitHook),
            ("/ws/.pre-commit-config.yaml", ProtectedPath::CommitHook),
            ("/home/u/.zcode/config.json", ProtectedPath::ZcodeConfig),
            (
                "/home/u/.zcode/cli/db/db.sqlite",
                ProtectedPath::ZcodeConfig,
            ),
            ("/ws/rust-toolchain.toml", ProtectedPath::ToolchainConfig),
            ("/ws/.cargo/config.toml", ProtectedPath::ToolchainConfig),
            ("/ws/.cargo/config", ProtectedPath::ToolchainConfig),
            ("/ws/.yarnrc.yml", ProtectedPath::ToolchainConfig),
            ("/ws/.npmrc", ProtectedPath::ToolchainConfig),
            ("/ws/.tool-versions", ProtectedPath::ToolchainConfig),
            ("/ws/.envrc", ProtectedPath::EnvironmentHook),
            ("/ws/.vscode/tasks.json", ProtectedPath::EnvironmentHook),
        ] {
            assert_eq!(by_name(path), Some(want), "{path}");
        }
    }

    #[test]
    fn perm10_ordinary_files_are_not_protected() {
        for path in [
            "/ws/src/main.rs",
            "/ws/.gitignore",
            "/ws/.gitattributes",
            "/ws/git/config",
            "/ws/.github/workflows/ci.yml",
            "/ws/docs/.git-notes.md",
            "/ws/config",
            "/ws/cargo/config.toml",
            "/ws/.vscode/extensions.json",
            "/home/u/.zcode/projects/p/memory/notes.md",
            "/home/u/.zcode-other/config.json",
            "/",
        ] {
            assert_eq!(by_name(path), None, "{path}");
        }
    }

    #[test]
    fn perm10_protected_git_dir_by_shape() {
        let dir = tempfile::tempdir().unwrap();
        let bare = dir.path().join("vendor/x.git");
        std::fs::create_dir_all(bare.join("objects")).unwrap();
        std::fs::write(bare.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        assert_eq!(
            protected_path(&bare.join("config"), None),
            Some(ProtectedPath::GitDir)
        );
        assert_eq!(
            protected_path(&bare.join("hooks/new/post-checkout"), None),
            Some(ProtectedPath::GitDir)
        );
        assert_eq!(protected_path(&dir.path().join("vendor/y"), None), None);
    }
}
