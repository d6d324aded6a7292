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
    /// `.bashrc`, `.profile`, `.ssh/config` …: run by the user's shell or
    /// ssh (a workspace that is the home directory, a dotfiles checkout).
    ShellConfig,
    /// An existing file with more than one hard link: it may be a protected
    /// file under another name (`ln .git/config notes.txt`).
    HardLink,
    /// `.zcode/settings.json`, `.claude/settings.json`,
    /// `.claude/settings.local.json` (or their directory written whole):
    /// their deny and ask rules apply without trust, so an edit could
    /// remove a team's deny rule.
    ProjectSettings,
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
            ProtectedPath::ShellConfig => {
                "writes a shell or ssh configuration file, which runs commands"
            }
            ProtectedPath::HardLink => {
                "writes a file with several hard links, which may be a protected file under another name"
            }
            ProtectedPath::ProjectSettings => {
                "writes a project settings file, whose permission rules zcode applies"
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
pub(crate) fn protected_by_name(path: &Path, zcode_home: Option<&Path>) -> Option<ProtectedPath> {
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
        // Mercurial's and Jujutsu's repository directories hold their
        // configuration and hooks, as `.git` does.
        if is_dot_git(dir) || is(dir, ".hg") || is(dir, ".jj") {
            return Some(ProtectedPath::GitDir);
        }
        // Hook directories: husky, lefthook's scripts, and `.githooks`,
        // the usual target of `core.hooksPath`.
        if is(dir, ".husky") || is(dir, ".lefthook") || is(dir, ".githooks") {
            return Some(ProtectedPath::CommitHook);
        }
    }
    let parent = dirs.last().map_or("", String::as_str);
    let grandparent = dirs.len().checked_sub(2).and_then(|i| dirs.get(i));
    let grandparent = grandparent.map_or("", String::as_str);
    if is_dot_git(file) || is(file, ".hg") || is(file, ".jj") {
        return Some(ProtectedPath::GitDir);
    }
    // A directory that holds protected files, written whole
    // (`cp -r hooks .githooks`, `mv x .vscode`).
    if [".husky", ".lefthook", ".githooks"]
        .iter()
        .any(|n| is(file, n))
    {
        return Some(ProtectedPath::CommitHook);
    }
    if [".cargo", ".mise"].iter().any(|n| is(file, n)) {
        return Some(ProtectedPath::ToolchainConfig);
    }
    if [".vscode", ".devcontainer"].iter().any(|n| is(file, n)) {
        return Some(ProtectedPath::EnvironmentHook);
    }
    if is(file, ".ssh") {
        return Some(ProtectedPath::ShellConfig);
    }
    // The directories of the project settings files, written whole
    // (`mv x .claude`, `rm -r .zcode`), and the files themselves.
    if [".zcode", ".claude"].iter().any(|n| is(file, n))
        || (is(parent, ".zcode") && is(file, "settings.json"))
        || (is(parent, ".claude") && (is(file, "settings.json") || is(file, "settings.local.json")))
    {
        return Some(ProtectedPath::ProjectSettings);
    }
    // `.gitattributes` chooses filter and diff drivers, which git runs.
    if [".gitmodules", ".gitconfig", ".gitattributes"]
        .iter()
        .any(|n| is(file, n))
        || (is(parent, "git") && is(grandparent, ".config"))
    {
        return Some(ProtectedPath::GitConfig);
    }
    let commit_hooks = [
        ".pre-commit-config.yaml",
        ".pre-commit-config.yml",
        "lefthook.yml",
        "lefthook.yaml",
        "lefthook.json",
        "lefthook.toml",
        ".lefthook.yml",
        ".lefthook.yaml",
        ".lefthook.json",
        ".lefthook.toml",
        "lefthook-local.yml",
        "lefthook-local.yaml",
        ".lefthook-local.yml",
        ".lefthook-local.yaml",
    ];
    if commit_hooks.iter().any(|n| is(file, n)) {
        return Some(ProtectedPath::CommitHook);
    }
    let toolchain = [
        "rust-toolchain",
        "rust-toolchain.toml",
        ".tool-versions",
        ".npmrc",
        ".yarnrc",
        ".yarnrc.yml",
        ".pnpmfile.cjs",
        ".pnpmfile.mjs",
        "mise.toml",
        ".mise.toml",
        "mise.local.toml",
        ".mise.local.toml",
        ".python-version",
        ".node-version",
        ".nvmrc",
        ".ruby-version",
    ];
    if toolchain.iter().any(|n| is(file, n))
        || (is(parent, ".cargo") && (is(file, "config") || is(file, "config.toml")))
        || ((is(parent, ".mise") || is(parent, "mise"))
            && (is(file, "config.toml") || is(file, "config.local.toml")))
        || (is(parent, "mise") && is(grandparent, ".config"))
    {
        return Some(ProtectedPath::ToolchainConfig);
    }
    let vscode_runs = ["tasks.json", "settings.json", "launch.json"];
    if is(file, ".envrc")
        || (is(parent, ".vscode") && vscode_runs.iter().any(|n| is(file, n)))
        || file.ends_with(".code-workspace")
        || is(file, ".devcontainer.json")
        || (is(parent, ".devcontainer") && file.ends_with(".json"))
    {
        return Some(ProtectedPath::EnvironmentHook);
    }
    let shell = [
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".inputrc",
    ];
    if shell.iter().any(|n| is(file, n))
        || (is(parent, ".ssh")
            && (is(file, "config") || is(file, "authorized_keys") || is(file, "rc")))
        || (is(parent, "fish") && is(file, "config.fish"))
    {
        return Some(ProtectedPath::ShellConfig);
    }
    None
}

/// `$ZCODE_HOME/config.json` (config::CONFIG_FILE_NAME; named here so
/// that the permission engine does not depend on the config loader).
pub const ZCODE_CONFIG_FILE: &str = "config.json";
/// `$ZCODE_HOME/cli/`, where the database with the saved rules lives.
pub const ZCODE_STORE_DIR: &str = "cli";
/// `$ZCODE_HOME/mcp/`, where the user's MCP servers start
/// (`mcp::SERVER_DIR`): a `node_modules/.bin` planted there would stand
/// in for their programs.
pub(crate) const ZCODE_MCP_DIR: &str = "mcp";

/// Inside `$ZCODE_HOME`: the config file (hooks, allowedTools) and the
/// database directory (saved rules) are protected; project memory files
/// (`projects/<id>/memory/`) are not, they are meant to be edited.
fn zcode_home_file_is_protected(rest: &Path) -> bool {
    let mut parts = rest.components();
    match parts.next() {
        Some(Component::Normal(first)) => {
            let first = fold_name(&first.to_string_lossy());
            is(&first, ZCODE_CONFIG_FILE)
                || is(&first, ZCODE_STORE_DIR)
                || is(&first, ZCODE_MCP_DIR)
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
///
/// Judged on the state after writing `target`: a write that completes
/// the shape (the `HEAD`, or the first file under `objects/`, of a
/// directory built file by file) is one into a git directory.
fn is_git_dir_after_writing(dir: &Path, target: &Path) -> bool {
    let rest = target.strip_prefix(dir).ok();
    let first = rest.and_then(|r| r.components().next());
    let writes = |name: &str| rest.is_some_and(|r| r == Path::new(name));
    let writes_under = |name: &str| {
        first.is_some_and(|c| c.as_os_str() == name)
            && rest.is_some_and(|r| r.components().count() > 1)
    };
    let head = writes("HEAD") || dir.join("HEAD").is_file();
    head && (writes_under("objects")
        || dir.join("objects").is_dir()
        || writes("commondir")
        || dir.join("commondir").is_file())
}

/// Is `path` inside the directory `core.hooksPath` names in the
/// configuration of the repository holding it? A scan of the repository's
/// own config file (its common one, for a linked worktree): the usual
/// place for the setting. `[core] hooksPath = x` on one line, quotes and
/// comments are read as git reads them.
fn in_configured_hooks_dir(path: &Path) -> bool {
    let Some(git_dir) = path.parent().and_then(crate::git_info::git_dir) else {
        return false;
    };
    // A linked worktree's git directory names the shared one.
    let common = std::fs::read_to_string(git_dir.join("commondir"))
        .ok()
        .map(|c| git_dir.join(c.trim()))
        .unwrap_or_else(|| git_dir.clone());
    let Ok(config) = std::fs::read_to_string(common.join("config")) else {
        return false;
    };
    // Relative values are relative to the working tree's root: where the
    // `.git` directory or file is.
    let Some(worktree) = path.ancestors().skip(1).find(|a| a.join(".git").exists()) else {
        return false;
    };
    config.lines().any(|line| {
        // `[core] hooksPath = x`: the part after a section header.
        let line = line.rsplit_once(']').map_or(line, |(_, rest)| rest);
        let Some((key, value)) = line.split_once('=') else {
            return false;
        };
        if !key.trim().eq_ignore_ascii_case("hookspath") {
            return false;
        }
        let value = value.trim();
        let value = match value.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next().unwrap_or(""),
            None => value.split(['#', ';']).next().unwrap_or("").trim(),
        };
        if value.is_empty() {
            return false;
        }
        let dir = crate::permission::paths::resolve_path(worktree, Path::new(value));
        let target = crate::permission::paths::resolve_path(Path::new("/"), path);
        target.starts_with(&dir) || path.starts_with(worktree.join(value))
    })
}

/// A regular file that exists with more than one hard link.
fn has_other_hard_links(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.nlink() > 1)
}

/// The protection of a resolved absolute target: by name, else by being
/// inside a directory that git treats as a repository (a few `stat`s per
/// existing ancestor), or would treat as one once the target is written,
/// or inside the configured hooks directory, or by being a hard link.
pub(crate) fn protected_path(path: &Path, zcode_home: Option<&Path>) -> Option<ProtectedPath> {
    if let Some(found) = protected_by_name(path, zcode_home) {
        return Some(found);
    }
    if path
        .ancestors()
        .skip(1)
        .filter(|dir| dir.parent().is_some())
        .any(|dir| is_git_dir_after_writing(dir, path))
    {
        return Some(ProtectedPath::GitDir);
    }
    if in_configured_hooks_dir(path) {
        return Some(ProtectedPath::CommitHook);
    }
    has_other_hard_links(path).then_some(ProtectedPath::HardLink)
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
            ("/ws/.gitattributes", ProtectedPath::GitConfig),
            ("/ws/sub/.gitattributes", ProtectedPath::GitConfig),
            ("/ws/.hg/hgrc", ProtectedPath::GitDir),
            ("/ws/.jj/repo/config.toml", ProtectedPath::GitDir),
            ("/ws/lefthook.yml", ProtectedPath::CommitHook),
            ("/ws/.lefthook/pre-commit/x.sh", ProtectedPath::CommitHook),
            ("/ws/.githooks/pre-commit", ProtectedPath::CommitHook),
            ("/ws/mise.toml", ProtectedPath::ToolchainConfig),
            ("/ws/.mise.toml", ProtectedPath::ToolchainConfig),
            (
                "/ws/.config/mise/config.toml",
                ProtectedPath::ToolchainConfig,
            ),
            ("/ws/.pnpmfile.cjs", ProtectedPath::ToolchainConfig),
            ("/ws/.python-version", ProtectedPath::ToolchainConfig),
            ("/ws/app.code-workspace", ProtectedPath::EnvironmentHook),
            ("/ws/.vscode/launch.json", ProtectedPath::EnvironmentHook),
            (
                "/ws/.devcontainer/devcontainer.json",
                ProtectedPath::EnvironmentHook,
            ),
            ("/ws/.devcontainer.json", ProtectedPath::EnvironmentHook),
            ("/home/u/.bashrc", ProtectedPath::ShellConfig),
            ("/home/u/.zshenv", ProtectedPath::ShellConfig),
            ("/home/u/.ssh/config", ProtectedPath::ShellConfig),
            ("/home/u/.ssh/authorized_keys", ProtectedPath::ShellConfig),
            ("/home/u/.config/git/config", ProtectedPath::GitConfig),
        ] {
            assert_eq!(by_name(path), Some(want), "{path}");
        }
    }

    #[test]
    fn team_rules_settings_files_are_protected_paths() {
        for path in [
            "/ws/.zcode/settings.json",
            "/ws/.claude/settings.json",
            "/ws/.claude/settings.local.json",
            "/ws/.CLAUDE/Settings.json",
            "/ws/.claude",
            "/ws/.zcode",
        ] {
            assert_eq!(
                by_name(path),
                Some(ProtectedPath::ProjectSettings),
                "{path}"
            );
        }
        for path in ["/ws/.claude/commands/x.md", "/ws/.zcode/agents/a.md"] {
            assert_eq!(by_name(path), None, "{path}");
        }
    }

    #[test]
    fn perm10_ordinary_files_are_not_protected() {
        for path in [
            "/ws/src/main.rs",
            "/ws/.gitignore",
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

    /// A directory built file by file into a bare repository: each write
    /// is judged on the state after it, so the one that completes the
    /// shape is protected, in any order.
    #[test]
    fn perm10_a_write_that_makes_a_git_dir_is_protected() {
        let orders: [&[&str]; 3] = [
            &["config", "refs/heads/.keep", "HEAD", "objects/.keep"],
            &["objects/.keep", "refs/heads/.keep", "config", "HEAD"],
            &["HEAD", "commondir"],
        ];
        for order in orders {
            let dir = tempfile::tempdir().unwrap();
            let repo = dir.path().join("sub");
            let mut protected_at = None;
            for (i, file) in order.iter().enumerate() {
                let target = repo.join(file);
                if protected_path(&target, None).is_some() {
                    protected_at.get_or_insert(i);
                    continue;
                }
                std::fs::create_dir_all(target.parent().unwrap()).unwrap();
                std::fs::write(&target, "x").unwrap();
            }
            assert!(protected_at.is_some(), "{order:?}: never protected");
            let head = repo.join("HEAD").is_file();
            let shaped = repo.join("objects").is_dir() || repo.join("commondir").is_file();
            assert!(!(head && shaped), "{order:?}: the git directory was built");
        }
    }

    #[test]
    fn perm10_a_hard_link_to_git_config_is_protected() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/config"), "[core]\n").unwrap();
        std::fs::hard_link(dir.path().join(".git/config"), dir.path().join("notes.txt")).unwrap();
        assert_eq!(
            protected_path(&dir.path().join("notes.txt"), None),
            Some(ProtectedPath::HardLink)
        );
        std::fs::write(dir.path().join("plain.txt"), "x").unwrap();
        assert_eq!(protected_path(&dir.path().join("plain.txt"), None), None);
    }

    #[test]
    fn perm10_the_configured_hooks_dir_is_protected() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(
            dir.path().join(".git/config"),
            "[core] hooksPath = \"tools/hooks\" # shared hooks\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("tools/hooks")).unwrap();
        assert_eq!(
            protected_path(&dir.path().join("tools/hooks/pre-commit"), None),
            Some(ProtectedPath::CommitHook)
        );
        assert_eq!(
            protected_path(&dir.path().join("tools/other.sh"), None),
            None
        );
    }
}
