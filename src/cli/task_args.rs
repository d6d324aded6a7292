//! What the command line says about the task: given as the argument, with
//! `--prompt`, as `-` (read it from stdin), or not at all. A task given
//! more than once, or swallowed by `--resume`, is a usage error with a hint.

use super::args::Cli;
use super::usage_error::UsageError;

/// The task as the command line gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskArg {
    None,
    Text(String),
    /// `-`: the task is what comes on stdin.
    FromStdin,
}

/// The one task of the command line.
pub fn task_arg(cli: &Cli) -> Result<TaskArg, UsageError> {
    let given: Vec<&String> = cli
        .prompt
        .iter()
        .chain(cli.task.iter())
        .chain(cli.more_tasks.iter())
        .collect();
    match given.as_slice() {
        [] => Ok(TaskArg::None),
        [one] if one.as_str() == "-" => Ok(TaskArg::FromStdin),
        [one] => Ok(TaskArg::Text(one.to_string())),
        many => {
            let times = match many.len() {
                2 => "twice".to_string(),
                n => format!("{n} times"),
            };
            let joined: Vec<&str> = many.iter().map(|t| t.as_str()).collect();
            // The hint keeps the way zcode was started: headless or the UI.
            let command = if cli.print || cli.prompt.is_some() {
                "zcode -p"
            } else {
                "zcode"
            };
            Err(UsageError::new(format!(
                "the task was given {times} ({}); quote a task of several words as one argument: {command} {:?}",
                quoted_list(&joined),
                joined.join(" ")
            )))
        }
    }
}

/// `"a" and "b"`, `"a", "b" and "c"`.
fn quoted_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|t| format!("{t:?}")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}

/// With -p, a word that names a subcommand ends the task: `zcode -p fix
/// tui` is a task and a subcommand. Says which words were taken how.
pub fn subcommand_with_print(cli: &Cli, subcommand: &str) -> UsageError {
    match &cli.task {
        Some(task) => UsageError::new(format!(
            "{task:?} was taken as the task and {subcommand:?} as a subcommand, which -p cannot run; \
             quote a task of several words as one argument: zcode -p \"{task} {subcommand} ...\""
        )),
        None => UsageError::new(format!(
            "-p runs a task on its own; it cannot be combined with the subcommand `{subcommand}` \
             (a task that is a subcommand's name goes after --: zcode -p -- {subcommand})"
        )),
    }
}

/// `zcode -p --resume "fix the bug"` hands the task to `--resume` as a
/// session id (its id is optional); ids have no spaces, so say what happened.
pub fn check_resume(cli: &Cli) -> Result<(), UsageError> {
    match &cli.resume {
        Some(id) if id.chars().any(char::is_whitespace) => Err(UsageError::new(format!(
            "--resume took {id:?} as a session id; put the task before --resume, or give the id as --resume=ID"
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(args: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("zcode").chain(args.iter().copied()))
            .unwrap_or_else(|e| panic!("{args:?}: {e}"))
    }

    #[test]
    fn ux_the_task_may_come_before_or_after_the_options() {
        for args in [
            &["-p", "fix it", "--mode", "plan"][..],
            &["-p", "--mode", "plan", "fix it"][..],
            &["--mode", "plan", "fix it", "-p"][..],
            &["--print", "--output-format", "json", "fix it"][..],
            &["--prompt", "fix it", "-p"][..],
            &["--prompt=fix it"][..],
        ] {
            let cli = parse(args);
            assert_eq!(
                task_arg(&cli).unwrap(),
                TaskArg::Text("fix it".into()),
                "{args:?}"
            );
        }
        assert!(parse(&["-p", "x"]).print);
        assert!(!parse(&["x"]).print);
    }

    #[test]
    fn ux_dash_and_double_dash() {
        assert_eq!(task_arg(&parse(&["-p", "-"])).unwrap(), TaskArg::FromStdin);
        assert_eq!(
            task_arg(&parse(&["--prompt", "-"])).unwrap(),
            TaskArg::FromStdin
        );
        assert_eq!(
            task_arg(&parse(&["-p", "--", "-x means?"])).unwrap(),
            TaskArg::Text("-x means?".into())
        );
        assert_eq!(task_arg(&parse(&["-p"])).unwrap(), TaskArg::None);
    }

    #[test]
    fn ux_a_task_given_twice_names_both_and_shows_the_quoted_form() {
        let err = task_arg(&parse(&["-p", "fix", "the bug"])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the task was given twice (\"fix\" and \"the bug\"); quote a task of several words as one argument: zcode -p \"fix the bug\""
        );
        let err = task_arg(&parse(&["--prompt", "a", "b", "c"])).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("the task was given 3 times (\"a\", \"b\" and \"c\")"),
            "{err}"
        );
    }

    #[test]
    fn ux_resume_with_spaces_is_a_task_taken_for_an_id() {
        let cli = parse(&["-p", "--resume", "fix the bug"]);
        assert!(check_resume(&cli).is_err());
        assert!(check_resume(&parse(&["-p", "x", "--resume", "sess_1"])).is_ok());
        assert!(check_resume(&parse(&["-p", "x", "--resume"])).is_ok());
    }

    #[test]
    fn ux_the_twice_hint_keeps_headless_or_the_ui() {
        let ui = task_arg(&parse(&["fix", "the bug"]))
            .unwrap_err()
            .to_string();
        assert!(ui.contains(": zcode \"fix the bug\""), "{ui}");
        let headless = task_arg(&parse(&["-p", "fix", "the bug"]))
            .unwrap_err()
            .to_string();
        assert!(headless.contains("zcode -p \"fix the bug\""), "{headless}");
    }
}
