//! Runtime events as ACP session updates: what the editor shows of a turn.
//! One [`UpdateMapper`] per session remembers what the mapping needs from
//! earlier events (each call's tool and input, whether the reply streamed,
//! the context window).

use super::tool_calls;
use crate::permission::mode::{ExecutionState, Mode};
use crate::protocol::{Event, HistoryItem};
use crate::store::{TimerRecord, TodoItem, TodoPriority, TodoStatus};
use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, CurrentModeUpdate, Diff, Notice, NoticeSeverity, Plan, PlanEntry,
    PlanEntryPriority, PlanEntryStatus, SessionMode, SessionModeState, SessionUpdate, ToolCall,
    ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, UsageUpdate,
};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The session's modes (`session/set_mode` ids) and the current one.
pub fn mode_state(state: ExecutionState) -> SessionModeState {
    let modes = [
        ("build", "Build", Mode::Build.description()),
        ("edit", "Edit", Mode::Edit.description()),
        ("yolo", "Yolo", Mode::Yolo.description()),
        (
            "plan",
            "Plan",
            ExecutionState::new(Mode::Build, true).description(),
        ),
    ];
    SessionModeState::new(
        state.label(),
        modes
            .into_iter()
            .map(|(id, name, description)| SessionMode::new(id, name).description(description))
            .collect(),
    )
}

pub fn text_chunk(text: impl Into<String>) -> ContentChunk {
    ContentChunk::new(ContentBlock::from(text.into()))
}

/// The todo list as the ACP plan (entries in order).
pub fn plan(todos: &[TodoItem]) -> Plan {
    Plan::new(
        todos
            .iter()
            .map(|t| {
                PlanEntry::new(
                    t.content.clone(),
                    match t.priority {
                        TodoPriority::High => PlanEntryPriority::High,
                        TodoPriority::Medium => PlanEntryPriority::Medium,
                        TodoPriority::Low => PlanEntryPriority::Low,
                    },
                    match t.status {
                        TodoStatus::Pending => PlanEntryStatus::Pending,
                        TodoStatus::InProgress => PlanEntryStatus::InProgress,
                        TodoStatus::Completed => PlanEntryStatus::Completed,
                    },
                )
            })
            .collect(),
    )
}

/// A question's saved clock, as a replayed call carries it: the same
/// absolute deadline as when it was asked, and how the clock ended.
fn timer_meta(record: &TimerRecord) -> serde_json::Map<String, Value> {
    let deadline = crate::acp::auto_continue::from_unix_ms(record.deadline_ms);
    let mut meta = serde_json::Map::new();
    meta.insert(
        "zcode".into(),
        json!({"autoContinue": {
            "deadlineMs": record.deadline_ms,
            "deadline": crate::acp::auto_continue::rfc3339_utc(deadline),
            "askedAtMs": record.asked_at_ms,
            "state": record.state,
        }}),
    );
    meta
}

/// A notice: its first line is the title, the rest its description.
fn notice(severity: NoticeSeverity, message: &str) -> SessionUpdate {
    let (title, rest) = message.split_once('\n').unwrap_or((message, ""));
    let mut notice = Notice::new(severity, title.to_string());
    if !rest.trim().is_empty() {
        notice = notice.description(rest.trim().to_string());
    }
    SessionUpdate::Notice(notice)
}

/// A tool call as it starts: pending until it runs (or the user allows it).
pub fn tool_call_started(call_id: &str, tool: &str, input: &Value, workspace: &Path) -> ToolCall {
    ToolCall::new(
        call_id.to_string(),
        tool_calls::title(tool, input, workspace),
    )
    .kind(tool_calls::kind(tool))
    .status(ToolCallStatus::Pending)
    .raw_input(input.clone())
    .locations(tool_calls::locations(tool, input, workspace))
}

/// What a finished call shows: its output, and for Write and Edit the
/// change as a diff the editor can render. `unified` is the diff the tool
/// made from the text it really changed (the editor's buffer, where the
/// editor serves the file): its hunks, with their context, become the old
/// and new text, so nothing is read again after the fact. Without it, the
/// call's own strings stand in.
pub fn finished_content(
    tool: &str,
    input: &Value,
    output: &str,
    workspace: &Path,
    unified: Option<&str>,
) -> Vec<ToolCallContent> {
    let mut content = Vec::new();
    if let Some(diff) = diff_of(tool, input, workspace, unified) {
        content.push(ToolCallContent::Diff(diff));
    }
    if !output.is_empty() {
        content.push(ToolCallContent::from(output.to_string()));
    }
    content
}

fn target_path(input: &Value, workspace: &Path) -> Option<PathBuf> {
    let path = input.get("file_path")?.as_str()?;
    Some(if Path::new(path).is_absolute() {
        PathBuf::from(path)
    } else {
        workspace.join(path)
    })
}

fn diff_of(tool: &str, input: &Value, workspace: &Path, unified: Option<&str>) -> Option<Diff> {
    if tool != "Write" && tool != "Edit" {
        return None;
    }
    let path = target_path(input, workspace)?;
    if let Some((old, new)) = unified.and_then(sides_of_unified) {
        return Some(Diff::new(path, new).old_text(old));
    }
    let text = |key: &str| input.get(key).and_then(Value::as_str).map(str::to_string);
    match tool {
        "Write" => Some(Diff::new(path, text("content")?)),
        _ => Some(Diff::new(path, text("new_string")?).old_text(text("old_string")?)),
    }
}

/// Between two hunks of a diff shown as old and new text: the lines left
/// out, unchanged on both sides.
const HUNK_GAP: &str = "⋯\n";

/// The old and new text of a unified diff's hunks, context included; the
/// old text is `None` for a new file (`--- /dev/null`). `None` when it has
/// no hunk.
fn sides_of_unified(unified: &str) -> Option<(Option<String>, String)> {
    let mut new_file = false;
    let (mut old, mut new) = (String::new(), String::new());
    let mut hunks = 0;
    for line in unified.split_inclusive('\n') {
        if let Some(from) = line.strip_prefix("--- ") {
            new_file = from.trim_end() == "/dev/null";
        } else if line.starts_with("+++ ") {
        } else if line.starts_with("@@") {
            if hunks > 0 {
                old.push_str(HUNK_GAP);
                new.push_str(HUNK_GAP);
            }
            hunks += 1;
        } else if let Some(both) = line.strip_prefix(' ') {
            old.push_str(both);
            new.push_str(both);
        } else if let Some(removed) = line.strip_prefix('-') {
            old.push_str(removed);
        } else if let Some(added) = line.strip_prefix('+') {
            new.push_str(added);
        }
        // "\ No newline at end of file" and anything else: not text.
    }
    (hunks > 0).then(|| ((!new_file).then_some(old), new))
}

pub fn status_update(call_id: &str, status: ToolCallStatus) -> SessionUpdate {
    SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
        call_id.to_string(),
        ToolCallUpdateFields::new().status(status),
    ))
}

/// Turns one session's events into updates.
pub struct UpdateMapper {
    workspace: PathBuf,
    /// Each call's tool and input, for its result's diff.
    calls: HashMap<String, (String, Value)>,
    /// Text streamed since the last whole message: the message itself then
    /// adds nothing.
    streamed: bool,
    pub context_window: Option<u64>,
    /// The client shows notices (`session.notices`): notices, retries and
    /// errors go to it; otherwise they are only logged.
    pub notices: bool,
    /// The saved clocks of the session's questions (ASK-7), by call id: a
    /// replayed question shows the deadline it had.
    pub question_timers: HashMap<String, TimerRecord>,
}

impl UpdateMapper {
    pub fn new(workspace: PathBuf) -> Self {
        Self {
            workspace,
            calls: HashMap::new(),
            streamed: false,
            context_window: None,
            notices: false,
            question_timers: HashMap::new(),
        }
    }

    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// The tool and input of call `call_id`, once it started.
    pub fn call(&self, call_id: &str) -> Option<&(String, Value)> {
        self.calls.get(call_id)
    }

    /// The updates `event` shows as; events that are not part of the
    /// conversation (approvals, turn bounds) map to none here.
    pub fn map(&mut self, event: &Event) -> Vec<SessionUpdate> {
        match event {
            Event::SessionStarted { context_window, .. } => {
                self.context_window = *context_window;
                Vec::new()
            }
            Event::ModelChanged { context_window, .. } => {
                self.context_window = *context_window;
                Vec::new()
            }
            Event::ContextWindowFound { context_window, .. } => {
                self.context_window = Some(*context_window);
                Vec::new()
            }
            Event::AssistantDelta { text } => {
                self.streamed = true;
                vec![SessionUpdate::AgentMessageChunk(text_chunk(text.clone()))]
            }
            Event::ReasoningDelta { text } => {
                vec![SessionUpdate::AgentThoughtChunk(text_chunk(text.clone()))]
            }
            Event::AssistantMessage { text } => {
                let streamed = std::mem::take(&mut self.streamed);
                if streamed || text.is_empty() {
                    Vec::new()
                } else {
                    vec![SessionUpdate::AgentMessageChunk(text_chunk(text.clone()))]
                }
            }
            Event::ToolCallStarted {
                call_id,
                tool,
                input,
            } => {
                self.streamed = false;
                self.calls
                    .insert(call_id.clone(), (tool.clone(), input.clone()));
                vec![SessionUpdate::ToolCall(tool_call_started(
                    call_id,
                    tool,
                    input,
                    &self.workspace,
                ))]
            }
            // Pending while it waits for its checks and approval.
            Event::ToolCallRunning { call_id } => {
                vec![status_update(call_id, ToolCallStatus::InProgress)]
            }
            Event::ToolCallFinished {
                call_id,
                tool,
                output,
                is_error,
                diff,
                ..
            } => {
                let input = self
                    .calls
                    .get(call_id)
                    .map(|(_, input)| input.clone())
                    .unwrap_or(Value::Null);
                let status = if *is_error {
                    ToolCallStatus::Failed
                } else {
                    ToolCallStatus::Completed
                };
                vec![SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                    call_id.clone(),
                    ToolCallUpdateFields::new()
                        .status(status)
                        .content(if *is_error {
                            vec![ToolCallContent::from(output.clone())]
                        } else {
                            finished_content(tool, &input, output, &self.workspace, diff.as_deref())
                        })
                        .raw_output(json!({ "output": output, "isError": is_error })),
                ))]
            }
            Event::ToolCallDenied { denial } => {
                let mut updates = Vec::new();
                if !self.calls.contains_key(&denial.call_id) {
                    // Refused before it started: the editor has not seen it.
                    self.calls.insert(
                        denial.call_id.clone(),
                        (denial.tool.clone(), denial.input.clone()),
                    );
                    updates.push(SessionUpdate::ToolCall(tool_call_started(
                        &denial.call_id,
                        &denial.tool,
                        &denial.input,
                        &self.workspace,
                    )));
                }
                updates.push(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                    denial.call_id.clone(),
                    ToolCallUpdateFields::new()
                        .status(ToolCallStatus::Failed)
                        .content(vec![ToolCallContent::from(format!(
                            "Denied: {}",
                            denial.reason
                        ))]),
                )));
                updates
            }
            Event::PlanFeedback { text, .. } => {
                vec![SessionUpdate::UserMessageChunk(text_chunk(text.clone()))]
            }
            Event::TodosChanged { todos } => vec![SessionUpdate::Plan(plan(todos))],
            Event::SessionModeChanged { state } => vec![SessionUpdate::CurrentModeUpdate(
                CurrentModeUpdate::new(state.label()),
            )],
            // Without a known window an editor could only show the context
            // as full or empty; the update waits for the window.
            Event::Usage { .. } if self.context_window.is_none() => Vec::new(),
            Event::Usage { usage, total } => {
                let used = usage.input_tokens + usage.output_tokens;
                let size = self.context_window.unwrap_or(0).max(used);
                let mut meta = serde_json::Map::new();
                meta.insert(
                    "zcode".into(),
                    json!({
                        "inputTokens": usage.input_tokens,
                        "outputTokens": usage.output_tokens,
                        "sessionInputTokens": total.input_tokens,
                        "sessionOutputTokens": total.output_tokens,
                    }),
                );
                vec![SessionUpdate::UsageUpdate(
                    UsageUpdate::new(used, size).meta(meta),
                )]
            }
            Event::History { items } => self.history(items),
            Event::Notice { message } if self.notices => {
                vec![notice(NoticeSeverity::Info, message)]
            }
            Event::Retrying {
                attempt,
                max_attempts,
                delay_ms,
                reason,
            } if self.notices => vec![notice(
                NoticeSeverity::Warning,
                &crate::protocol::retry_line(*attempt, *max_attempts, *delay_ms, reason),
            )],
            Event::Error { message } if self.notices => {
                vec![notice(NoticeSeverity::Error, message)]
            }
            _ => Vec::new(),
        }
    }

    /// A resumed session's conversation, replayed as it happened.
    fn history(&mut self, items: &[HistoryItem]) -> Vec<SessionUpdate> {
        let mut updates = Vec::new();
        for item in items {
            match item {
                HistoryItem::User { text } => {
                    updates.push(SessionUpdate::UserMessageChunk(text_chunk(text.clone())))
                }
                HistoryItem::Assistant { text } => {
                    updates.push(SessionUpdate::AgentMessageChunk(text_chunk(text.clone())))
                }
                HistoryItem::Tool {
                    call_id,
                    tool,
                    input,
                    output,
                    is_error,
                    ..
                } => {
                    self.calls
                        .insert(call_id.clone(), (tool.clone(), input.clone()));
                    let status = if *is_error {
                        ToolCallStatus::Failed
                    } else {
                        ToolCallStatus::Completed
                    };
                    let mut call = tool_call_started(call_id, tool, input, &self.workspace)
                        .status(status)
                        .content(finished_content(tool, input, output, &self.workspace, None));
                    if let Some(record) = self.question_timers.get(call_id) {
                        call = call.meta(timer_meta(record));
                    }
                    updates.push(SessionUpdate::ToolCall(call));
                }
                HistoryItem::Summary => updates.push(SessionUpdate::AgentMessageChunk(text_chunk(
                    "(Earlier conversation summarised.)",
                ))),
            }
        }
        updates
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acp_a_streamed_reply_is_not_sent_twice() {
        let mut m = UpdateMapper::new("/w".into());
        assert_eq!(m.map(&Event::AssistantDelta { text: "Hi".into() }).len(), 1);
        assert!(
            m.map(&Event::AssistantMessage { text: "Hi".into() })
                .is_empty()
        );
        // A reply that came whole is sent whole.
        assert_eq!(
            m.map(&Event::AssistantMessage {
                text: "Again".into()
            })
            .len(),
            1
        );
    }

    #[test]
    fn acp_an_edit_finishes_with_its_diff() {
        let mut m = UpdateMapper::new("/w".into());
        let input = json!({"file_path": "a.txt", "old_string": "x", "new_string": "y"});
        m.map(&Event::ToolCallStarted {
            call_id: "c1".into(),
            tool: "Edit".into(),
            input,
        });
        let updates = m.map(&Event::ToolCallFinished {
            call_id: "c1".into(),
            tool: "Edit".into(),
            output: "edited".into(),
            is_error: false,
            diff: None,
            exit_code: None,
        });
        let wire = serde_json::to_value(&updates[0]).unwrap();
        assert_eq!(wire["status"], "completed");
        assert_eq!(wire["content"][0]["type"], "diff");
        assert_eq!(wire["content"][0]["path"], "/w/a.txt");
        assert_eq!(wire["content"][0]["oldText"], "x");
        assert_eq!(wire["content"][0]["newText"], "y");
    }

    #[test]
    fn ask7_a_replayed_question_shows_the_deadline_it_had() {
        let mut m = UpdateMapper::new("/w".into());
        m.question_timers.insert(
            "q1".into(),
            TimerRecord {
                call_id: "q1".into(),
                asked_at_ms: 1_000,
                deadline_ms: 301_000,
                state: crate::store::TimerState::Expired,
            },
        );
        let updates = m.map(&Event::History {
            items: vec![HistoryItem::Tool {
                call_id: "q1".into(),
                tool: "AskUserQuestion".into(),
                input: json!({"questions": []}),
                output: "none answered".into(),
                is_error: false,
                sub_agent: None,
                exit_code: None,
                denial: None,
            }],
        });
        let wire = serde_json::to_value(&updates[0]).unwrap();
        let timer = &wire["_meta"]["zcode"]["autoContinue"];
        assert_eq!(timer["deadlineMs"], 301_000);
        assert_eq!(timer["deadline"], "1970-01-01T00:05:01.000Z");
        assert_eq!(timer["state"], "expired");
    }

    #[test]
    fn acp_a_write_or_edit_shows_the_change_the_tool_made_with_its_context() {
        let mut m = UpdateMapper::new("/w".into());
        let mut diff_of_call = |call: &str, tool: &str, input: Value, unified: Option<String>| {
            m.map(&Event::ToolCallStarted {
                call_id: call.into(),
                tool: tool.into(),
                input,
            });
            let updates = m.map(&Event::ToolCallFinished {
                call_id: call.into(),
                tool: tool.into(),
                output: "done".into(),
                is_error: false,
                diff: unified,
                exit_code: None,
            });
            serde_json::to_value(&updates[0]).unwrap()["content"][0].clone()
        };
        let path = Path::new("/w/old.txt");
        let unified =
            |old: Option<&str>, new: &str| Some(crate::tools::diff::unified(path, old, new));
        // A Write over a file shows what it replaced.
        let write = diff_of_call(
            "w1",
            "Write",
            json!({"file_path": "/w/old.txt", "content": "after\n"}),
            unified(Some("before\n"), "after\n"),
        );
        assert_eq!(write["oldText"], "before\n");
        assert_eq!(write["newText"], "after\n");
        // A new file has no old text at all.
        let created = diff_of_call(
            "w2",
            "Write",
            json!({"file_path": "/w/old.txt", "content": "x\n"}),
            unified(None, "x\n"),
        );
        assert!(created.get("oldText").is_none(), "{created}");
        assert_eq!(created["newText"], "x\n");
        // An Edit: the changed lines with their context, hunks apart.
        let before: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let after = before
            .replace("line 2\n", "line two\n")
            .replace("line 19\n", "line nineteen\n");
        let edit = diff_of_call(
            "e1",
            "Edit",
            json!({"file_path": "/w/old.txt", "old_string": "line 2", "new_string": "line two"}),
            unified(Some(&before), &after),
        );
        let old = edit["oldText"].as_str().unwrap();
        let new = edit["newText"].as_str().unwrap();
        assert!(old.starts_with("line 1\nline 2\nline 3\n"), "{old}");
        assert!(new.starts_with("line 1\nline two\nline 3\n"), "{new}");
        assert!(old.contains("⋯\n") && new.contains("⋯\n"), "{old}");
        assert!(
            new.contains("line nineteen\n") && !new.contains("line 10\n"),
            "{new}"
        );
        // No diff from the tool: the call's own strings.
        let bare = diff_of_call(
            "e2",
            "Edit",
            json!({"file_path": "a.txt", "old_string": "x", "new_string": "y"}),
            None,
        );
        assert_eq!(
            (bare["oldText"].as_str(), bare["newText"].as_str()),
            (Some("x"), Some("y"))
        );
    }

    #[test]
    fn acp_modes_are_the_four_choices_and_plan_reads_as_plan() {
        let state = mode_state(ExecutionState::new(Mode::Edit, true));
        let wire = serde_json::to_value(&state).unwrap();
        assert_eq!(wire["currentModeId"], "plan");
        let ids: Vec<_> = wire["availableModes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(ids, ["build", "edit", "yolo", "plan"]);
    }
}
