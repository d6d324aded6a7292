//! Slash commands from files: `commands/*.md` in `.zcode/`, `.claude/` and
//! `$ZCODE_HOME/` (see `files` for the order). `/name args` sends the
//! file's body with its placeholders replaced (`arguments`).
//!
//! - The name is the file's stem; a file in a subdirectory is named with
//!   the directory first, joined by `:` (`commands/frontend/lint.md` is
//!   `/frontend:lint`), so two folders' files never clash. Subdirectories
//!   are read two levels deep.
//! - Frontmatter (all optional): `description` (default: the body's first
//!   line), `argument-hint` (shown after the name in the popup). Other
//!   keys (`allowed-tools`, `model`, …) are ignored: a command file only
//!   supplies text; what the model then does passes the permission system.
//! - A name a built-in slash command has is refused, as is one already
//!   taken in the same directory; a project file wins over a user one.
//! - Nothing in a command file runs: Claude Code's `!` backtick lines and
//!   `@file` references are sent as written.

use super::arguments::substitute;
use super::by_name::ByName;
use super::files::{
    Budget, Kind, Scope, Source, entries, is_markdown, read_found, resolve, sources,
};
use super::frontmatter;
use super::{Problem, invalid_name_reason, valid_name};
use std::path::{Path, PathBuf};

const KEYS: &[&str] = &[
    "description",
    "argument-hint",
    "allowed-tools",
    "model",
    "disable-model-invocation",
];

/// How deep subdirectories of a commands directory are read.
const MAX_DEPTH: usize = 2;

/// The longest description shown (a first line can be long).
const MAX_DESCRIPTION_CHARS: usize = 100;

/// One command file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandFile {
    /// Without the `/`; `frontend:lint` for a file in a subdirectory.
    pub name: String,
    pub description: String,
    /// `argument-hint`, as the popup shows it.
    pub argument_hint: Option<String>,
    /// The text sent, before its placeholders are replaced.
    pub body: String,
    pub path: PathBuf,
    pub scope: Scope,
}

impl CommandFile {
    /// What `/name args` sends to the model.
    pub fn expand(&self, args: &str) -> String {
        substitute(&self.body, args)
    }
}

/// Every command file, sorted by name, with the files left out; `reserved`
/// are the built-in slash commands' names.
pub fn load_commands(
    workspace: &Path,
    zcode_home: &Path,
    reserved: &[&str],
) -> (Vec<CommandFile>, Vec<Problem>) {
    load_from(&sources(workspace, zcode_home, "commands"), reserved)
}

/// [`load_commands`] over the given directories.
pub(crate) fn load_from(sources: &[Source], reserved: &[&str]) -> (Vec<CommandFile>, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut commands = ByName::default();
    let mut budget = Budget::default();
    for source in sources {
        let mut here = Vec::new();
        let mut walker = Walker {
            source,
            budget: &mut budget,
            out: &mut here,
            problems: &mut problems,
        };
        walker.walk(&source.dir, "", 0);
        commands.next_directory();
        for command in here {
            if reserved
                .iter()
                .any(|r| r.eq_ignore_ascii_case(&command.name))
            {
                problems.push(Problem::new(
                    &command.path,
                    format!(
                        "/{} is a built-in command; rename the file to use it",
                        command.name
                    ),
                ));
                continue;
            }
            let (name, path) = (command.name.clone(), command.path.clone());
            if let Err(first) = commands.add(&name, &path, command) {
                problems.push(Problem::new(
                    &path,
                    format!("/{name} is already defined by {}", first.display()),
                ));
            }
        }
    }
    (commands.into_values(), problems)
}

/// One directory's walk: its files read within the kind's budget.
struct Walker<'a> {
    source: &'a Source,
    budget: &'a mut Budget,
    out: &'a mut Vec<CommandFile>,
    problems: &'a mut Vec<Problem>,
}

impl Walker<'_> {
    /// The commands under `dir`, named with `prefix` (`""` or `frontend:`).
    fn walk(&mut self, dir: &Path, prefix: &str, depth: usize) {
        let source = self.source;
        for path in entries(dir, self.problems) {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !is_markdown(&path) {
                // A subdirectory is a namespace; anything else is not ours.
                if depth < MAX_DEPTH
                    && let Ok((_, Kind::Dir)) = resolve(&path, source)
                {
                    let name = path
                        .file_name()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    self.walk(&path, &format!("{prefix}{name}:"), depth + 1);
                }
                continue;
            }
            let name = format!("{prefix}{stem}");
            if !valid_name(&name) {
                self.problems
                    .push(Problem::new(&path, invalid_name_reason(&name)));
                continue;
            }
            let Some(found) = read_found(&path, source, self.budget, self.problems) else {
                continue;
            };
            let doc = match frontmatter::parse(&found.text, KEYS) {
                Ok(doc) => doc,
                Err(reason) => {
                    self.problems.push(Problem::new(&path, reason));
                    continue;
                }
            };
            let body = doc.body.trim().to_string();
            let description = doc
                .text("description")
                .map(str::to_string)
                .unwrap_or_else(|| first_line(&body));
            self.out.push(CommandFile {
                name,
                description: cap(&description),
                argument_hint: argument_hint(&doc),
                body,
                path,
                scope: source.scope,
            });
        }
    }
}

/// `argument-hint`: `[number]` is a YAML list to a YAML reader, so a
/// list is shown back as the bracketed words it was written as.
fn argument_hint(doc: &frontmatter::Document) -> Option<String> {
    match doc.fields.get("argument-hint")? {
        frontmatter::Value::Text(text) => Some(text.trim().to_string()),
        frontmatter::Value::List(items) => Some(
            items
                .iter()
                .map(|item| format!("[{}]", item.trim()))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        frontmatter::Value::Other => None,
    }
    .filter(|hint| !hint.is_empty())
}

/// The body's first non-empty line, its Markdown heading marks removed.
fn first_line(body: &str) -> String {
    body.lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .unwrap_or("(empty)")
        .to_string()
}

/// One line without control characters, at most [`MAX_DESCRIPTION_CHARS`].
fn cap(text: &str) -> String {
    let one_line: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    match one_line.char_indices().nth(MAX_DESCRIPTION_CHARS) {
        Some((at, _)) => format!("{}…", &one_line[..at]),
        None => one_line,
    }
}

/// The command `name` (without `/`, any case).
pub fn find<'a>(commands: &'a [CommandFile], name: &str) -> Option<&'a CommandFile> {
    commands.iter().find(|c| c.name.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESERVED: &[&str] = &["help", "mode", "quit"];

    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Vec<Source>) {
        crate::extensions::test_files::workspace(files, "commands")
    }

    use crate::extensions::test_files::reasons;

    #[test]
    fn command_files_become_commands_with_descriptions() {
        let (_ws, sources) = workspace(&[
            (
                ".zcode/commands/fix-issue.md",
                "---\ndescription: Fix a GitHub issue\nargument-hint: [number]\n---\nFix issue #$1.\n",
            ),
            (
                ".claude/commands/frontend/lint.md",
                "# Lint the UI\n\nRun the linter on $ARGUMENTS.\n",
            ),
            ("home/commands/standup.md", "\n\nWrite my standup notes.\n"),
            (".claude/commands/notes.txt", "not a command"),
        ]);
        let (commands, problems) = load_from(&sources, RESERVED);
        assert!(problems.is_empty(), "{}", reasons(&problems));
        let rows: Vec<(&str, &str, Option<&str>)> = commands
            .iter()
            .map(|c| {
                (
                    c.name.as_str(),
                    c.description.as_str(),
                    c.argument_hint.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("fix-issue", "Fix a GitHub issue", Some("[number]")),
                ("frontend:lint", "Lint the UI", None),
                ("standup", "Write my standup notes.", None),
            ]
        );
        assert_eq!(commands[0].expand("123"), "Fix issue #123.");
        assert_eq!(
            find(&commands, "Frontend:Lint").unwrap().expand("src/ui"),
            "# Lint the UI\n\nRun the linter on src/ui."
        );
    }

    #[test]
    fn bad_input_command_named_like_a_builtin_is_skipped() {
        let (_ws, sources) = workspace(&[
            (".zcode/commands/Help.md", "my help"),
            (".zcode/commands/ok.md", "fine"),
        ]);
        let (commands, problems) = load_from(&sources, RESERVED);
        assert_eq!(commands.len(), 1);
        assert!(reasons(&problems).contains("Help.md: /Help is a built-in command"));
    }

    #[test]
    fn command_project_file_wins_over_user_file() {
        let (_ws, sources) = workspace(&[
            ("home/commands/review.md", "user review"),
            (".claude/commands/review.md", "project review"),
        ]);
        let (commands, problems) = load_from(&sources, RESERVED);
        assert!(problems.is_empty());
        assert_eq!(commands.len(), 1);
        assert_eq!(commands[0].body, "project review");
        assert_eq!(commands[0].scope, Scope::Project);
    }

    #[test]
    fn bad_input_command_files_are_reported_once_each() {
        let (ws, sources) = workspace(&[
            (
                ".zcode/commands/open.md",
                "---\ndescription: never closed\n",
            ),
            (".zcode/commands/two words.md", "x"),
            (".zcode/commands/big.md", &"x".repeat(257 * 1024)),
        ]);
        std::fs::create_dir(ws.path().join(".zcode/commands/dir.md")).unwrap();
        let (commands, problems) = load_from(&sources, RESERVED);
        assert!(commands.is_empty());
        let text = reasons(&problems);
        assert_eq!(problems.len(), 4, "{text}");
        assert!(text.contains("open.md: the frontmatter opened with --- is never closed"));
        assert!(text.contains("two words.md: the name \"two words\" is not usable"));
        assert!(text.contains("big.md: is larger than 256 KiB"));
        assert!(text.contains("dir.md: is a directory, not a file"));
    }

    #[test]
    fn command_description_is_one_capped_line() {
        let long = "word ".repeat(60);
        let (_ws, sources) = workspace(&[(".zcode/commands/long.md", &long)]);
        let (commands, _) = load_from(&sources, RESERVED);
        assert!(commands[0].description.ends_with('…'));
        assert_eq!(
            commands[0].description.chars().count(),
            MAX_DESCRIPTION_CHARS + 1
        );
    }

    #[test]
    fn command_argument_hint_in_claude_code_style_is_shown_as_written() {
        let (_ws, sources) = workspace(&[(
            ".claude/commands/pr.md",
            "---\nargument-hint: [pr-number] [priority]\ndescription: Review: a PR\n---\nReview PR $1 at $2.\n",
        )]);
        let (commands, problems) = load_from(&sources, RESERVED);
        assert!(problems.is_empty(), "{}", reasons(&problems));
        assert_eq!(
            commands[0].argument_hint.as_deref(),
            Some("[pr-number] [priority]")
        );
        assert_eq!(commands[0].description, "Review: a PR");
        assert_eq!(commands[0].expand("7 high"), "Review PR 7 at high.");
    }

    #[test]
    fn command_bang_lines_are_left_as_text() {
        let (_ws, sources) = workspace(&[(".zcode/commands/st.md", "Status: !`git status`\n")]);
        let (commands, _) = load_from(&sources, RESERVED);
        assert_eq!(commands[0].expand(""), "Status: !`git status`");
    }
}
