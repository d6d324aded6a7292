//! What a finished tool call's cell says: its status, its one-line detail
//! and the output it keeps. Made the same way from a live
//! `ToolCallFinished` and from a resumed session's history, so that both
//! show a call alike.

use super::{ToolStatus, first_line, kept_output};
use crate::store::TodoItem;
use crate::tools::plan_mode::PLAN_NOT_APPROVED;
use serde_json::Value;

/// A finished call as its cell shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub status: ToolStatus,
    /// The row under the call's heading.
    pub detail: String,
    /// What Ctrl+O shows.
    pub output: String,
}

/// What a plan cell says once the user sent the plan back with feedback.
pub const PLAN_SENT_BACK: &str = "plan sent back";

/// The cell of a finished call: `failed` as the runtime reported it (a
/// command that exited non-zero included), `exit_code` a command's.
pub fn finished(tool: &str, output: &str, failed: bool, exit_code: Option<i32>) -> Shown {
    let status = if failed {
        ToolStatus::Failed
    } else {
        ToolStatus::Done
    };
    if tool == crate::tools::bash::NAME
        && let Some(result) = BashResult::parse(output)
    {
        // A session saved before exit codes were recorded: its result
        // still says the code.
        let exit_code = exit_code.or_else(|| result.stated_exit_code());
        let failed = failed || exit_code.is_some_and(|c| c != 0);
        return Shown {
            status: if failed {
                ToolStatus::Failed
            } else {
                ToolStatus::Done
            },
            detail: result.summary(exit_code),
            output: result.shown_output(exit_code),
        };
    }
    if tool == crate::tools::plan_mode::EXIT_NAME && failed && output == PLAN_NOT_APPROVED {
        return Shown {
            status,
            detail: PLAN_SENT_BACK.to_string(),
            output: String::new(),
        };
    }
    if tool == crate::tools::todo_write::NAME
        && !failed
        && let Some(list) = todo_list(output)
    {
        return Shown {
            status,
            detail: first_line(output),
            output: list,
        };
    }
    Shown {
        status,
        detail: finished_detail(output, exit_code),
        output: kept_output(output),
    }
}

/// Whether a cell's detail is a one-line summary of its output (a
/// finished Bash command): collapsed, it shows that line alone. A Bash
/// result that is no command's (it could not start) has its first line
/// as the detail, as other tools do.
pub fn summarised(tool: &str, status: ToolStatus, detail: &str, output: &str) -> bool {
    tool == crate::tools::bash::NAME
        && matches!(status, ToolStatus::Done | ToolStatus::Failed)
        && detail != first_line(output)
}

/// The detail line of a finished call: its output's first line, after the
/// exit code of a command that failed ("exit 3 · no such file"), said once
/// when the output has nothing else.
fn finished_detail(output: &str, exit_code: Option<i32>) -> String {
    let line = first_line(output);
    match exit_code {
        Some(code) if code != 0 => {
            let exit = format!("exit {code}");
            if line.is_empty() || line.starts_with("Exit code:") {
                exit
            } else {
                format!("{exit} · {line}")
            }
        }
        _ => line,
    }
}

/// How Bash's result ends, after a blank line: how the command ended.
const BASH_ENDINGS: [&str; 5] = [
    "Exit code: ",
    "Killed by signal ",
    "Exit status unknown",
    "Command timed out",
    "Command was interrupted",
];

/// What Bash's result says when the command printed nothing.
const NO_OUTPUT: &str = "(no output)";

/// A Bash result split into what the command printed and how it ended.
struct BashResult<'a> {
    body: &'a str,
    ending: &'a str,
}

impl<'a> BashResult<'a> {
    fn parse(output: &'a str) -> Option<Self> {
        let (body, ending) = output.rsplit_once("\n\n")?;
        BASH_ENDINGS
            .iter()
            .any(|e| ending.starts_with(e))
            .then_some(Self { body, ending })
    }

    /// The code an `Exit code: N` ending states.
    fn stated_exit_code(&self) -> Option<i32> {
        let rest = self.ending.strip_prefix("Exit code: ")?;
        let digits: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '-')
            .collect();
        digits.parse().ok()
    }

    fn lines(&self) -> usize {
        if self.body.trim() == NO_OUTPUT {
            return 0;
        }
        self.body
            .lines()
            .skip_while(|l| l.trim().is_empty())
            .count()
    }

    /// `exit 0 · 12 lines`, `exit 1 · no output`, `timed out · 3 lines`.
    fn summary(&self, exit_code: Option<i32>) -> String {
        let status = match exit_code {
            Some(code) => format!("exit {code}"),
            None if self.ending.starts_with("Command timed out") => "timed out".into(),
            None if self.ending.starts_with("Command was interrupted") => "interrupted".into(),
            None => first_line(self.ending),
        };
        let count = match self.lines() {
            0 => "no output".to_string(),
            1 => "1 line".to_string(),
            n => format!("{n} lines"),
        };
        format!("{status} · {count}")
    }

    /// What the command printed; how it ended too when that says more
    /// than the summary (the sandbox's note, a timeout).
    fn shown_output(&self, exit_code: Option<i32>) -> String {
        let plain_exit = exit_code.is_some_and(|c| self.ending == format!("Exit code: {c}"));
        let mut text = if self.lines() == 0 {
            String::new()
        } else {
            self.body.to_string()
        };
        if !plain_exit {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(self.ending);
        }
        kept_output(&text)
    }
}

/// TodoWrite's result as the list it set: one row an item, with the
/// marks the sidebar and `/todos` use.
fn todo_list(output: &str) -> Option<String> {
    let json = output.lines().find(|l| l.trim_start().starts_with('{'))?;
    let value: Value = serde_json::from_str(json).ok()?;
    let todos: Vec<TodoItem> = serde_json::from_value(value.get("todos")?.clone()).ok()?;
    if todos.is_empty() {
        return Some("(the list is empty)".to_string());
    }
    let rows: Vec<String> = todos
        .iter()
        .map(|t| format!("{} {}", t.status.mark(), t.content))
        .collect();
    Some(kept_output(&rows.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapsed_bash_cell_summarises_exit_status_and_line_count() {
        let ok = finished("Bash", "a\nb\nc\n\nExit code: 0", false, Some(0));
        assert_eq!(ok.detail, "exit 0 · 3 lines");
        assert_eq!(ok.output, "a\nb\nc");
        let none = finished("Bash", "(no output)\n\nExit code: 1", true, Some(1));
        assert_eq!(none.detail, "exit 1 · no output");
        assert_eq!(none.status, ToolStatus::Failed);
        assert_eq!(none.output, "");
        let slow = finished(
            "Bash",
            "x\n\nCommand timed out after 5 ms; its process group was killed.",
            true,
            None,
        );
        assert_eq!(slow.detail, "timed out · 1 line");
        assert!(slow.output.ends_with("its process group was killed."));
        // A result saved without its exit code: the ending says it.
        let old = finished("Bash", "boom\n\nExit code: 2", false, None);
        assert_eq!(old.status, ToolStatus::Failed);
        assert_eq!(old.detail, "exit 2 · 1 line");
        // Not a command's result (it never started): its first line.
        let broken = finished("Bash", "Cannot start bash", true, None);
        assert_eq!(broken.detail, "Cannot start bash");
    }

    #[test]
    fn expanded_todowrite_cell_lists_the_items_not_json() {
        let output = r#"Todo list updated: 2 items: 1 pending, 0 in progress, 1 completed.
{"oldTodos":[],"todos":[{"content":"Write it","status":"completed","priority":"high"},{"content":"Test it","status":"pending","priority":"low"}],"summary":{}}"#;
        let shown = finished("TodoWrite", output, false, None);
        assert_eq!(shown.output, "✓ Write it\n☐ Test it");
        assert!(shown.detail.starts_with("Todo list updated"));
    }
}
