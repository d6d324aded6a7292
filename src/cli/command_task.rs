//! `zcode -p "/name args"`: a task that names a command file is that
//! file's text, expanded as the TUI expands it (`extensions::commands`).
//!
//! The line is read with the TUI's rules (`tui::slash::parse`): text that
//! is no command (`/usr/bin/env …`, `/ …`) is sent as typed, `//…` is sent
//! with one `/` removed, and a built-in TUI command (`/init`, …) is sent
//! as typed, as before command files existed. A `/name` that neither a
//! built-in nor a command file defines is a usage error listing the
//! command files, so a typo never costs a model request.

use super::usage_error::UsageError;
use crate::extensions::commands::{CommandFile, find, load_commands};
use crate::tui::slash::{COMMANDS, Parsed, parse};
use std::path::Path;

/// The names of the TUI's own commands, which a command file cannot take.
pub fn reserved_names() -> Vec<&'static str> {
    COMMANDS.iter().map(|c| c.name).collect()
}

/// `task` with a command file's text in place of `/name args`. The files
/// are read only for a task starting with `/`; those left out are told on
/// stderr then.
pub fn expand(task: &str, workspace: &Path, zcode_home: &Path) -> anyhow::Result<String> {
    if !task.starts_with('/') {
        return Ok(task.to_string());
    }
    let (commands, problems) = load_commands(workspace, zcode_home, &reserved_names());
    for problem in problems {
        eprintln!("zcode: command file left out: {problem}");
    }
    Ok(expand_with(task, &commands)?)
}

/// [`expand`] over loaded commands.
pub fn expand_with(task: &str, commands: &[CommandFile]) -> Result<String, UsageError> {
    match parse(task) {
        Parsed::Text | Parsed::Command { .. } => Ok(task.to_string()),
        Parsed::Escaped(text) => Ok(text),
        Parsed::Unknown(name) => {
            let Some(command) = find(commands, &name) else {
                return Err(unknown(&name, commands));
            };
            let args = task
                .strip_prefix('/')
                .and_then(|rest| rest.get(name.len()..))
                .unwrap_or("");
            Ok(command.expand(args))
        }
    }
}

fn unknown(name: &str, commands: &[CommandFile]) -> UsageError {
    let known = if commands.is_empty() {
        "there are no command files (.zcode/commands/, .claude/commands/ or $ZCODE_HOME/commands/)"
            .to_string()
    } else {
        let names: Vec<String> = commands.iter().map(|c| format!("/{}", c.name)).collect();
        format!("the command files are {}", names.join(", "))
    };
    UsageError::new(format!(
        "unknown command /{name}: {known}; start the task with // to send it as text"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extensions::files::Scope;
    use std::path::PathBuf;

    fn review() -> Vec<CommandFile> {
        vec![CommandFile {
            name: "review".into(),
            description: "Review".into(),
            argument_hint: None,
            body: "Review $1 for $ARGUMENTS.".into(),
            path: PathBuf::from("/w/.zcode/commands/review.md"),
            scope: Scope::Project,
        }]
    }

    #[test]
    fn headless_command_file_is_expanded() {
        assert_eq!(
            expand_with("/Review src/a.rs  bugs", &review()).unwrap(),
            "Review src/a.rs for src/a.rs  bugs."
        );
        assert_eq!(expand_with("/review", &review()).unwrap(), "Review  for .");
    }

    #[test]
    fn headless_non_commands_are_sent_as_typed() {
        for task in ["fix it", "/usr/bin/env python", "/ leading slash", "/init"] {
            assert_eq!(expand_with(task, &review()).unwrap(), task);
        }
        assert_eq!(expand_with("//review x", &review()).unwrap(), "/review x");
    }

    #[test]
    fn headless_unknown_command_is_a_usage_error_listing_the_files() {
        let err = expand_with("/reveiw x", &review()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown command /reveiw: the command files are /review; start the task with // to send it as text"
        );
        let err = expand_with("/x", &[]).unwrap_err();
        assert!(
            err.to_string().contains("there are no command files"),
            "{err}"
        );
    }
}
