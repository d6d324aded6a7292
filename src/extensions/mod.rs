//! What a project or the user adds to zcode with Markdown files: custom
//! agent definitions (`agents/*.md`), skills (`skills/NAME/SKILL.md`) and
//! slash commands (`commands/*.md`), each found in `<workspace>/.zcode/`,
//! `<workspace>/.claude/` and `$ZCODE_HOME/`.
//!
//! - [`frontmatter`]: splits a file into its YAML frontmatter and body,
//!   with a lenient reading for the not-quite-YAML Claude Code files use.
//! - [`files`]: where the files are, in precedence order, and reading one
//!   safely (bounded, regular files only, links that stay where they may).
//! - [`agents`], [`skills`], [`commands`]: one kind each.
//! - [`arguments`]: a command's `$ARGUMENTS`, `$1`, `$2` … substitution.
//!
//! A bad file never stops anything: it is a [`Problem`] (path and reason),
//! reported once by whoever loads the kind, and left out.

pub mod agents;
pub mod arguments;
pub mod by_name;
pub mod commands;
pub mod files;
pub mod frontmatter;
pub mod skills;

use std::path::PathBuf;

/// A file left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub path: PathBuf,
    pub reason: String,
}

impl Problem {
    pub fn new(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            reason: reason.into(),
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

/// Whether `name` can name an agent, a skill or a command: 1 to 64
/// letters, digits, `-`, `_`, `.` or `:` (a command's namespace), not
/// starting with a `.`, `-` or `:`.
pub(crate) fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
        && !name.starts_with(['.', '-', ':'])
}

/// The reason given for a name [`valid_name`] refuses.
pub(crate) fn invalid_name_reason(name: &str) -> String {
    format!("the name {name:?} is not usable: use 1 to 64 letters, digits, '-', '_' or '.'")
}

/// What the loaders' tests share: a workspace of files, and the problems
/// as one text.
#[cfg(test)]
pub(crate) mod test_files {
    use super::Problem;
    use super::files::{Source, sources};

    /// A temporary workspace holding `files` (its `home` is the user's
    /// directory), and the directories of `kind` a session reads there.
    pub fn workspace(files: &[(&str, &str)], kind: &str) -> (tempfile::TempDir, Vec<Source>) {
        let ws = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = ws.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let sources = sources(ws.path(), &ws.path().join("home"), kind);
        (ws, sources)
    }

    pub fn reasons(problems: &[Problem]) -> String {
        problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }
}
