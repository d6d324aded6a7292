//! Command-line entry: argument definitions and subcommands (CLI-1..7).

mod acp_cmd;
pub mod args;
mod command_task;
mod environment;
mod headless_cmd;
mod headless_task;
mod mcp_cmd;
mod models_cmd;
mod permission_cmd;
mod permission_mode_args;
mod sandbox_cmd;
mod session_choice;
mod sessions_cmd;
mod stdin_input;
mod stdout;
mod task_args;
pub mod tool_list_args;
mod tui_cmd;
mod unknown_flag;
mod usage_error;

use args::{Cli, Command};
use clap::Parser;
use std::ffi::OsString;
use std::process::ExitCode;
use task_args::TaskArg;
use tool_list_args::extract_tool_lists;
use usage_error::{USAGE_EXIT_CODE, UsageError};

/// How long the async runtime waits, at exit, for blocking work still
/// running (a tool abandoned on a hung file system) before it lets go.
const RUNTIME_EXIT_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// Runs zcode with `args` (without the program name) and returns the exit
/// code. Errors are one line on stderr (CLI-7); a usage error exits 2.
pub fn run(args: Vec<OsString>) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("zcode: error: {}", error_line(&err));
            if err.downcast_ref::<UsageError>().is_some() {
                ExitCode::from(USAGE_EXIT_CODE)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// An error with its causes, each said once: a cause whose text is already
/// part of the line (errors that quote their source) is left out.
pub fn error_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        let text = text.trim();
        if text.is_empty() || line.contains(text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(text);
    }
    line
}

fn run_inner(args: Vec<OsString>) -> anyhow::Result<ExitCode> {
    let started = std::time::Instant::now();
    let args = args
        .into_iter()
        .map(|a| {
            a.into_string().map_err(|a| {
                anyhow::anyhow!("argument is not valid UTF-8: {}", a.to_string_lossy())
            })
        })
        .collect::<anyhow::Result<Vec<String>>>()?;
    let lists = extract_tool_lists(&args)?;
    let mut cli = match Cli::try_parse_from(
        std::iter::once("zcode".to_string()).chain(lists.rest.iter().cloned()),
    ) {
        Ok(cli) => cli,
        Err(e) => {
            // Never clap's "use -- -x" tip: that sends the flag as the task.
            if let Some(usage) = unknown_flag::unknown_flag_error(&e, &lists.rest) {
                return Err(usage.into());
            }
            // clap formats help, version and usage errors itself.
            let _ = e.print();
            return Ok(if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            });
        }
    };
    if let Some(dir) = &cli.cd {
        std::env::set_current_dir(dir)
            .map_err(|e| anyhow::anyhow!("cannot change to directory {}: {e}", dir.display()))?;
    }
    let tool_lists = environment::ToolLists {
        disallowed: lists.disallowed,
        allowed: lists.allowed,
    };
    permission_mode_args::resolve_mode(&mut cli)?;
    task_args::check_resume(&cli)?;
    let task = task_args::task_arg(&cli)?;
    // `--prompt TASK` has always meant a headless run.
    if cli.print || cli.prompt.is_some() {
        if let Some(command) = &cli.command {
            return Err(task_args::subcommand_with_print(&cli, command.name()).into());
        }
        // A command file is expanded before piped input is added to it; a
        // task read from stdin is expanded as read.
        let (task, from_stdin) = match task {
            TaskArg::Text(text) => (TaskArg::Text(expand_command(&text)?), false),
            other => (other, true),
        };
        let mut task = headless_task::headless_task(task, stdin_input::stdin_kind())?;
        if from_stdin {
            task = expand_command(&task)?;
        }
        return headless_cmd::run(&cli, task, &tool_lists, started);
    }
    let first_message = match task {
        TaskArg::None => None,
        TaskArg::Text(text) if text.trim().is_empty() => {
            return Err(UsageError::new("the task is empty").into());
        }
        TaskArg::Text(text) => Some(text),
        TaskArg::FromStdin => {
            return Err(UsageError::new(
                "`-` reads the task from stdin, which is for headless runs: use zcode -p -",
            )
            .into());
        }
    };
    match cli.command {
        Some(Command::Permission(cmd)) => permission_cmd::run(cmd, cli.mode, &tool_lists),
        Some(Command::Sessions(cmd)) => sessions_cmd::run(cmd),
        Some(Command::Models) => models_cmd::run(cli.model.as_deref()),
        Some(Command::Sandbox(args)) => sandbox_cmd::run(args),
        Some(Command::Mcp(cmd)) => mcp_cmd::run(cmd, &tool_lists),
        Some(Command::Acp) => acp_cmd::run(&cli, &tool_lists),
        Some(Command::Tui) | None => tui_cmd::run(&cli, &tool_lists, first_message),
    }
}

/// `zcode -p "/name args"`: the command file's text (`command_task`).
fn expand_command(task: &str) -> anyhow::Result<String> {
    if !task.starts_with('/') {
        return Ok(task.to_string());
    }
    let workspace = environment::Project::resolve(None)?.workspace;
    let home = crate::config::zcode_home(|k| std::env::var(k).ok())?;
    command_task::expand(task, &workspace, &home)
}

#[cfg(test)]
mod tests {
    use super::error_line;

    #[derive(Debug, thiserror::Error)]
    #[error("database x: {0}")]
    struct Quoting(#[source] std::io::Error);

    #[test]
    fn cli7_a_cause_quoted_by_its_error_is_printed_once() {
        let io = std::io::Error::other("database disk image is malformed");
        let err = anyhow::Error::from(Quoting(io)).context("cannot list the sessions");
        assert_eq!(
            error_line(&err),
            "cannot list the sessions: database x: database disk image is malformed"
        );
        // A cause that adds something is kept.
        let err = anyhow::Error::from(std::io::Error::other("no such file"))
            .context("cannot read config.json");
        assert_eq!(error_line(&err), "cannot read config.json: no such file");
    }
}
