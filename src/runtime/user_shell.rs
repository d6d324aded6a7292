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
use super::transcript::user_shell_entry;
use crate::model::Message;
use crate::protocol::{Event, TurnEnd};
use crate::tools::bash;
use serde_json::json;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The longest a user's command runs (the Bash tool's own maximum); Esc
/// stops it sooner.
pub const USER_SHELL_TIMEOUT: Duration = Duration::from_millis(bash::MAX_TIMEOUT_MS);

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
    let call_id = format!(
        "{}{}",
        super::transcript::USER_SHELL_CALL_PREFIX,
        uuid::Uuid::new_v4().simple()
    );
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
    let (entry, text) = user_shell_entry(&command, &output.content, output.failed());
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
