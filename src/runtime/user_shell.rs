//! `!command` in the terminal UI: a shell command the user runs in the
//! workspace, as Claude Code's bash mode does. The user typed it, so it is
//! neither checked by the permission engine nor asked about nor put in the
//! kernel sandbox: it runs as a command typed in the user's own terminal
//! would, through the same runner as the Bash tool (the workspace as its
//! directory, its own process group, the output budget, interrupted by
//! Esc or Ctrl+C). It runs as a turn of its own that asks the model
//! nothing: the command and its output are shown as a Bash cell and become
//! a user message of the conversation, so the model reads them with the
//! next prompt. A resumed session shows it the same way.

use super::core::SessionCore;
use super::transcript::new_entry_id;
use crate::model::Message;
use crate::protocol::{Event, HistoryItem, TurnEnd};
use crate::store::{NewEntry, entry_kind};
use crate::tools::bash;
use serde_json::{Value, json};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The longest a user's command runs (the Bash tool's own maximum); Esc
/// stops it sooner.
pub const USER_SHELL_TIMEOUT: Duration = Duration::from_millis(bash::MAX_TIMEOUT_MS);

/// The field of a user entry that holds the command it came from.
const SHELL_FIELD: &str = "shell";

/// Runs `command` as turn `turn` and records it; see the module docs.
pub async fn run_user_shell(
    core: &SessionCore,
    turn: u64,
    command: String,
    cancel: CancellationToken,
) -> TurnEnd {
    core.emit(Event::TurnStarted {
        turn,
        text: format!("!{command}"),
    });
    if let Some(reason) = core.save_failure() {
        core.emit(Event::Error { message: reason });
        core.finish_turn(TurnEnd::Failed, None);
        return TurnEnd::Failed;
    }
    let call_id = format!("shell_{}", uuid::Uuid::new_v4().simple());
    core.emit(Event::ToolCallStarted {
        call_id: call_id.clone(),
        tool: bash::NAME.to_string(),
        input: json!({ "command": command }),
    });
    core.emit(Event::ToolCallRunning {
        call_id: call_id.clone(),
    });
    let ctx = core.tool_context(&cancel);
    let output = bash::run_command(&command, USER_SHELL_TIMEOUT, &ctx).await;
    core.emit(Event::ToolCallFinished {
        call_id,
        tool: bash::NAME.to_string(),
        output: output.content.clone(),
        is_error: output.failed(),
        diff: None,
        exit_code: output.exit_code,
    });
    let end = if cancel.is_cancelled() {
        TurnEnd::Interrupted
    } else {
        TurnEnd::Completed
    };
    // Interrupted or not, what ran is the user's message: they saw it.
    let text = model_text(&command, &output.content);
    let entry = NewEntry::new(
        new_entry_id(),
        entry_kind::USER_MESSAGE,
        json!({
            "text": text,
            SHELL_FIELD: {
                "command": command,
                "output": output.content,
                "failed": output.failed(),
            },
        }),
    );
    if core.persist(entry).is_err() {
        core.finish_turn(TurnEnd::Failed, None);
        return TurnEnd::Failed;
    }
    core.conversation()
        .history
        .push(Message::User { content: text });
    core.finish_turn(end, None);
    end
}

/// What the model reads: the command and its output, marked as the user's
/// own (Claude Code's tags), so it is not taken for a request.
pub fn model_text(command: &str, output: &str) -> String {
    format!(
        "The user ran a shell command in the workspace themselves (not a tool call of yours):\n\
         <bash-input>{command}</bash-input>\n<bash-output>\n{output}\n</bash-output>"
    )
}

/// A user entry's payload that came from `!command`, as a resumed session
/// replays it: the line typed, then the command's cell.
pub fn history_items(payload: &Value, entry_id: &str) -> Option<Vec<HistoryItem>> {
    let shell = payload.get(SHELL_FIELD)?;
    let command = shell.get("command").and_then(Value::as_str)?.to_string();
    let output = shell
        .get("output")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let is_error = shell
        .get("failed")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Some(vec![
        HistoryItem::User {
            text: format!("!{command}"),
        },
        HistoryItem::Tool {
            call_id: format!("shell_{entry_id}"),
            tool: bash::NAME.to_string(),
            input: json!({ "command": command }),
            output,
            is_error,
            sub_agent: None,
        },
    ])
}
