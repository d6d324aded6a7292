//! The text a headless run sends: the task from the command line, or from
//! stdin, or both (the task, then what was piped, framed so the model can
//! tell the request from the data).

use super::stdin_input::{FIRST_BYTE_WAIT, FirstByte, Piped, StdinKind, read_stdin};
use super::task_args::TaskArg;
use super::usage_error::UsageError;

const HOW_TO_GIVE_A_TASK: &str = "give it as an argument (zcode -p \"fix the failing test\"), \
pipe it in (echo \"fix the failing test\" | zcode -p), or read it from stdin with -p -";

/// Resolves the task of `zcode -p` against stdin, which is `stdin`.
pub fn headless_task(arg: TaskArg, stdin: StdinKind) -> anyhow::Result<String> {
    let wait = FirstByte::WaitAtMost(FIRST_BYTE_WAIT);
    match arg {
        TaskArg::Text(task) => {
            if task.trim().is_empty() {
                return Err(UsageError::new("the task given to -p is empty").into());
            }
            Ok(match read_stdin(stdin, wait)? {
                Piped::Text(data) if !data.trim().is_empty() => with_piped_input(&task, &data),
                Piped::Silent => {
                    eprintln!(
                        "zcode: nothing arrived on stdin in {} s, so the task runs without piped input \
                         (redirect stdin from /dev/null to skip this wait)",
                        FIRST_BYTE_WAIT.as_secs()
                    );
                    task
                }
                _ => task,
            })
        }
        TaskArg::FromStdin => {
            if stdin == StdinKind::Terminal {
                return Err(UsageError::new(
                    "-p - reads the task from stdin, but stdin is a terminal; pipe the task in \
                     (echo \"fix the failing test\" | zcode -p -) or give it as an argument",
                )
                .into());
            }
            match read_stdin(stdin, FirstByte::WaitForever)? {
                Piped::Text(text) if !text.trim().is_empty() => Ok(text.trim().to_string()),
                _ => Err(UsageError::new(
                    "no task: stdin is empty (-p - reads the task from stdin)",
                )
                .into()),
            }
        }
        TaskArg::None => match read_stdin(stdin, wait)? {
            Piped::Text(text) if !text.trim().is_empty() => Ok(text.trim().to_string()),
            Piped::Silent => Err(UsageError::new(format!(
                "no task: nothing arrived on stdin in {} s; {HOW_TO_GIVE_A_TASK} (which waits for as long as stdin takes)",
                FIRST_BYTE_WAIT.as_secs()
            ))
            .into()),
            _ => Err(UsageError::new(format!("no task: {HOW_TO_GIVE_A_TASK}")).into()),
        },
    }
}

/// The task first (it names the session), then the piped data in a block
/// of its own.
pub fn with_piped_input(task: &str, data: &str) -> String {
    let data = data.trim_end_matches(['\n', '\r']);
    format!("{task}\n\nPiped input (stdin):\n<stdin>\n{data}\n</stdin>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ux_piped_data_follows_the_task_in_its_own_block() {
        assert_eq!(
            with_piped_input("summarise this", "line 1\nline 2\n"),
            "summarise this\n\nPiped input (stdin):\n<stdin>\nline 1\nline 2\n</stdin>"
        );
    }

    #[test]
    fn ux_a_terminal_is_never_read() {
        // Each would block on a read of the terminal if it tried one.
        assert_eq!(
            headless_task(TaskArg::Text("hi".into()), StdinKind::Terminal).unwrap(),
            "hi"
        );
        let err = headless_task(TaskArg::None, StdinKind::Terminal).unwrap_err();
        assert!(err.to_string().starts_with("no task: give it"), "{err}");
        assert!(err.downcast_ref::<UsageError>().is_some());
        let err = headless_task(TaskArg::FromStdin, StdinKind::Terminal).unwrap_err();
        assert!(err.to_string().contains("stdin is a terminal"), "{err}");
    }
}
