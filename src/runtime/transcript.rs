//! The conversation as persisted entries and as model messages (RUN-1,
//! RUN-5): every message is written as an entry when it happens, and a
//! resumed session rebuilds its messages from those entries.

use super::reminders::is_wrapped;
use super::tool_pairing::repair_tool_pairing;
use crate::model::{Message, ToolCall};
use crate::protocol::{HistoryDenial, HistoryItem};
use crate::store::{EntryRecord, NewEntry, entry_kind};
use serde_json::{Value, json};

const SUMMARY_PREFIX: &str = "This session continues an earlier conversation that was compacted to save context. Summary of the earlier part:";

/// The message that stands for summarised history (RUN-4): the history
/// after a compaction is this, then the kept messages.
pub fn summary_message(summary: &str) -> Message {
    Message::User {
        content: format!("{SUMMARY_PREFIX}\n\n{}", summary.trim()),
    }
}

pub fn new_entry_id() -> String {
    format!("ent_{}", uuid::Uuid::new_v4().simple())
}

pub fn user_entry(text: &str) -> NewEntry {
    NewEntry::new(
        new_entry_id(),
        entry_kind::USER_MESSAGE,
        json!({ "text": text }),
    )
}

pub fn assistant_entry(text: &str, reasoning: &str, tool_calls: &[ToolCall]) -> NewEntry {
    let mut payload = json!({ "text": text, "toolCalls": tool_calls });
    if !reasoning.is_empty() {
        payload["reasoning"] = json!(reasoning);
    }
    NewEntry::new(new_entry_id(), entry_kind::ASSISTANT_MESSAGE, payload)
}

pub fn tool_result_entry(call_id: &str, tool: &str, content: &str, is_error: bool) -> NewEntry {
    NewEntry::new(
        new_entry_id(),
        entry_kind::TOOL_RESULT,
        json!({ "callId": call_id, "tool": tool, "content": content, "isError": is_error }),
    )
}

/// How a call's result was shown live, where that can differ from what
/// the model read (`isError`): a command that exited non-zero and a plan
/// sent back are plain results to the model but failures to the user; a
/// refused call shows its denial. Saved with the result so that a resumed
/// session shows the call as the live one did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShownResult {
    pub failed: bool,
    pub exit_code: Option<i32>,
    pub denial: Option<HistoryDenial>,
}

/// [`tool_result_entry`] with how the result was shown live.
pub fn shown_result_entry(
    call_id: &str,
    tool: &str,
    content: &str,
    is_error: bool,
    shown: &ShownResult,
) -> NewEntry {
    let mut entry = tool_result_entry(call_id, tool, content, is_error);
    entry.payload["failed"] = json!(shown.failed);
    if let Some(code) = shown.exit_code {
        entry.payload["exitCode"] = json!(code);
    }
    if let Some(denial) = &shown.denial {
        entry.payload["denial"] = json!({ "ruleId": denial.rule_id, "reason": denial.reason });
    }
    entry
}

/// What a saved result says about how it was shown; an entry written
/// before this was saved falls back to what the model read.
fn shown_of(p: &Value) -> ShownResult {
    let is_error = p.get("isError").and_then(Value::as_bool).unwrap_or(false);
    ShownResult {
        failed: p.get("failed").and_then(Value::as_bool).unwrap_or(is_error),
        exit_code: p
            .get("exitCode")
            .and_then(Value::as_i64)
            .and_then(|c| i32::try_from(c).ok()),
        denial: p.get("denial").map(|d| HistoryDenial {
            rule_id: text_field(d, "ruleId"),
            reason: text_field(d, "reason"),
        }),
    }
}

/// How the call id of a `!command`'s cell starts.
pub const USER_SHELL_CALL_PREFIX: &str = "shell_";

/// Whether `call_id` is a `!command` the user ran (not the model's call).
pub fn is_user_shell_call(call_id: &str) -> bool {
    call_id.starts_with(USER_SHELL_CALL_PREFIX)
}

/// The field of a user entry that holds the `!command` it came from
/// (`user_shell`).
const SHELL_FIELD: &str = "shell";

/// The user entry of a `!command` the user ran, and the text the model
/// reads from it.
pub fn user_shell_entry(command: &str, output: &str, failed: bool) -> (NewEntry, String) {
    let text = model_text(command, output);
    let entry = NewEntry::new(
        new_entry_id(),
        entry_kind::USER_MESSAGE,
        json!({
            "text": text,
            SHELL_FIELD: { "command": command, "output": output, "failed": failed },
        }),
    );
    (entry, text)
}

/// What the model reads: the command and its output, marked as the user's
/// own (Claude Code's tags), so it is not taken for a request.
fn model_text(command: &str, output: &str) -> String {
    format!(
        "The user ran a shell command in the workspace themselves (not a tool call of yours):\n\
         <bash-input>{command}</bash-input>\n<bash-output>\n{output}\n</bash-output>"
    )
}

/// A user entry's payload that came from `!command`, as a resumed session
/// replays it: the line typed, then the command's cell.
fn shell_history_items(payload: &Value, entry_id: &str) -> Option<Vec<HistoryItem>> {
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
            call_id: format!("{USER_SHELL_CALL_PREFIX}{entry_id}"),
            tool: crate::tools::bash::NAME.to_string(),
            input: json!({ "command": command }),
            output,
            is_error,
            sub_agent: None,
            exit_code: None,
            denial: None,
        },
    ])
}

fn text_field(payload: &Value, key: &str) -> String {
    payload
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Rebuilds the model messages from a session's entries. Entries of other
/// kinds (mode changes, receipts) are not part of the conversation. Calls
/// and results are then paired up as both dialects require (a crash
/// mid-call, or an older transcript written by two runs at once, breaks
/// that): see [`repair_tool_pairing`].
pub fn messages_from_entries(entries: &[EntryRecord]) -> Vec<Message> {
    let mut messages = Vec::new();
    for entry in entries {
        let p = &entry.payload;
        match entry.kind.as_str() {
            entry_kind::USER_MESSAGE => {
                messages.push(Message::User {
                    content: text_field(p, "text"),
                });
            }
            entry_kind::ASSISTANT_MESSAGE => {
                let tool_calls: Vec<ToolCall> = p
                    .get("toolCalls")
                    .cloned()
                    .and_then(|v| serde_json::from_value(v).ok())
                    .unwrap_or_default();
                let text = text_field(p, "text");
                // A reply cut short with reasoning only: nothing to send.
                if text.is_empty() && tool_calls.is_empty() {
                    continue;
                }
                messages.push(Message::Assistant { text, tool_calls });
            }
            // Injected reminders are user messages the model saw (RUN-1).
            entry_kind::REMINDER | entry_kind::NOTIFICATION => {
                let text = text_field(p, "text");
                if !text.is_empty() {
                    messages.push(Message::User { content: text });
                }
            }
            // RUN-4: the summary replaces what came before the kept part.
            entry_kind::COMPACTION_SUMMARY => {
                let kept = p.get("keptMessages").and_then(Value::as_u64).unwrap_or(0) as usize;
                let tail = messages.split_off(messages.len().saturating_sub(kept));
                messages = vec![summary_message(&text_field(p, "summary"))];
                messages.extend(tail);
            }
            entry_kind::TOOL_RESULT => {
                messages.push(Message::Tool {
                    call_id: text_field(p, "callId"),
                    content: text_field(p, "content"),
                    is_error: p.get("isError").and_then(Value::as_bool).unwrap_or(false),
                });
            }
            _ => {}
        }
    }
    repair_tool_pairing(messages)
}

/// The conversation as a UI replays it on resume: what the user typed,
/// what the model answered, tool calls with their results, and where
/// history was summarised. What the runtime added for the model alone is
/// left out: reminders and notifications (their own entry kinds, such as
/// the note that an answer was interrupted) and a user entry that holds
/// only an injected block.
pub fn history_items(entries: &[EntryRecord]) -> Vec<HistoryItem> {
    let mut items = Vec::new();
    for entry in entries {
        let p = &entry.payload;
        match entry.kind.as_str() {
            entry_kind::USER_MESSAGE => {
                if let Some(shell) = shell_history_items(p, &entry.id) {
                    items.extend(shell);
                    continue;
                }
                let text = text_field(p, "text");
                if !is_wrapped(&text) {
                    items.push(HistoryItem::User { text });
                }
            }
            entry_kind::ASSISTANT_MESSAGE => {
                let text = text_field(p, "text");
                if !text.trim().is_empty() {
                    items.push(HistoryItem::Assistant { text });
                }
                let calls: Vec<ToolCall> = p
                    .get("toolCalls")
                    .cloned()
                    .and_then(|v| serde_json::from_value(v).ok())
                    .unwrap_or_default();
                for call in calls {
                    let input = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
                    items.push(HistoryItem::Tool {
                        call_id: call.id,
                        tool: call.name,
                        input,
                        output: String::new(),
                        is_error: false,
                        sub_agent: None,
                        exit_code: None,
                        denial: None,
                    });
                }
            }
            entry_kind::TOOL_RESULT => {
                let call_id = text_field(p, "callId");
                let result = items.iter_mut().rev().find_map(|item| match item {
                    HistoryItem::Tool {
                        call_id: id,
                        output,
                        is_error,
                        exit_code,
                        denial,
                        ..
                    } if *id == call_id => Some((output, is_error, exit_code, denial)),
                    _ => None,
                });
                if let Some((output, is_error, exit_code, denial)) = result {
                    let shown = shown_of(p);
                    *output = text_field(p, "content");
                    *is_error = shown.failed;
                    *exit_code = shown.exit_code;
                    *denial = shown.denial;
                }
            }
            entry_kind::COMPACTION_SUMMARY => items.push(HistoryItem::Summary),
            _ => {}
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(kind: &str, payload: Value, seq: i64) -> EntryRecord {
        EntryRecord {
            id: format!("e{seq}"),
            session_id: "sess_1".into(),
            seq,
            kind: kind.into(),
            payload,
            created_at: 0,
        }
    }

    #[test]
    fn run4_resume_after_compaction_keeps_the_summary_and_the_kept_tail() {
        let entries = vec![
            record("user_message", user_entry("old request").payload, 1),
            record(
                "assistant_message",
                assistant_entry("old answer", "", &[]).payload,
                2,
            ),
            record("user_message", user_entry("recent request").payload, 3),
            record(
                "compaction_summary",
                json!({"summary": "S", "keptMessages": 1}),
                4,
            ),
            record(
                "reminder",
                json!({"kind": "plan_file_reference", "text": "<system-reminder>\nP\n</system-reminder>"}),
                5,
            ),
            record(
                "assistant_message",
                assistant_entry("new answer", "", &[]).payload,
                6,
            ),
        ];
        let messages = messages_from_entries(&entries);
        assert_eq!(messages.len(), 4);
        assert!(matches!(&messages[0], Message::User { content } if content.ends_with("\n\nS")));
        assert_eq!(
            messages[1],
            Message::User {
                content: "recent request".into()
            }
        );
        assert!(matches!(&messages[2], Message::User { content } if content.contains("P")));
        assert!(matches!(&messages[3], Message::Assistant { text, .. } if text == "new answer"));
    }

    #[test]
    fn run5_messages_round_trip_and_unanswered_calls_are_closed() {
        let call = ToolCall {
            id: "c1".into(),
            name: "Read".into(),
            arguments: "{}".into(),
        };
        let entries = vec![
            record("user_message", user_entry("hi").payload, 1),
            record("runtime/execution_state", json!({"mode": "yolo"}), 2),
            record(
                "assistant_message",
                assistant_entry("", "", std::slice::from_ref(&call)).payload,
                3,
            ),
            record(
                "tool_result",
                tool_result_entry("c1", "Read", "ok", false).payload,
                4,
            ),
            record(
                "assistant_message",
                assistant_entry("done", "", &[call]).payload,
                5,
            ),
        ];
        let messages = messages_from_entries(&entries);
        assert_eq!(messages.len(), 5);
        assert_eq!(
            messages[0],
            Message::User {
                content: "hi".into()
            }
        );
        assert!(
            matches!(&messages[2], Message::Tool { call_id, is_error: false, .. } if call_id == "c1")
        );
        assert!(matches!(&messages[4], Message::Tool { is_error: true, .. }));
    }
}
