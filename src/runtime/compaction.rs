//! Context compaction (RUN-4): when the conversation nears the model's
//! window, older history is summarised through the model, recent turns are
//! kept, and the plan file and todos are put back (PLAN-11).

use super::core::{SessionCore, lock};
use super::injection::inject;
use super::plan_file::{plan_file_path, plan_file_reference, read_plan_file_for_reference};
use super::reminders::reminder_kind;
use super::transcript::{new_entry_id, summary_message};
use crate::model::accumulate::collect_reply;
use crate::model::{Message, ModelRequest, ToolSpec};
use crate::protocol::{CompactionOutcome, Event};
use crate::store::{NewEntry, entry_kind};
use crate::tools::todo_reminder::reminder_text;
use serde_json::json;
use tokio_util::sync::CancellationToken;

const INSTRUCTIONS: &str = include_str!("../../assets/prompts/compaction.md");

/// Compact when the estimate passes this share of the window.
pub const THRESHOLD_PERCENT: u64 = 80;
/// The recent part kept verbatim is at most this share of the window.
pub const KEEP_PERCENT: u64 = 25;

/// A rough token estimate (4 characters a token) of what a request sends.
pub fn estimate_tokens(system: &str, messages: &[Message]) -> u64 {
    let chars: usize = system.len() + messages.iter().map(message_chars).sum::<usize>();
    (chars / 4) as u64
}

/// [`estimate_tokens`] with the tool definitions the request offers:
/// their names, descriptions and schemas count against the window too.
pub fn estimate_request_tokens(system: &str, messages: &[Message], tools: &[ToolSpec]) -> u64 {
    let tool_chars: usize = tools
        .iter()
        .map(|t| t.name.len() + t.description.len() + t.input_schema.to_string().len())
        .sum();
    estimate_tokens(system, messages) + (tool_chars / 4) as u64
}

fn message_chars(m: &Message) -> usize {
    match m {
        Message::User { content } => content.len(),
        Message::Assistant { text, tool_calls } => {
            text.len()
                + tool_calls
                    .iter()
                    .map(|c| c.name.len() + c.arguments.len())
                    .sum::<usize>()
        }
        Message::Tool { content, .. } => content.len(),
    }
}

pub fn over_threshold(tokens: u64, context_window: u64) -> bool {
    context_window > 0 && tokens * 100 > context_window * THRESHOLD_PERCENT
}

/// Where the kept part starts: the earliest user message such that what
/// follows fits `keep_tokens`, never cutting between a call and its result.
/// `None` when nothing before it could be summarised.
pub fn split_point(messages: &[Message], keep_tokens: u64) -> Option<usize> {
    let mut kept = 0u64;
    let mut split = None;
    for (i, m) in messages.iter().enumerate().rev() {
        kept += (message_chars(m) / 4) as u64;
        if matches!(m, Message::User { .. }) {
            if kept > keep_tokens && split.is_some() {
                break;
            }
            split = Some(i);
        }
    }
    split.filter(|&i| i > 0)
}

/// Longest tool result quoted in the summary request.
const MAX_QUOTED_RESULT: usize = 4000;

/// The messages as plain text, tool calls and (shortened) results included.
pub fn transcript_text(messages: &[Message]) -> String {
    let mut out = String::new();
    for m in messages {
        match m {
            Message::User { content } => out.push_str(&format!("[user]\n{content}\n\n")),
            Message::Assistant { text, tool_calls } => {
                if !text.is_empty() {
                    out.push_str(&format!("[assistant]\n{text}\n\n"));
                }
                for call in tool_calls {
                    out.push_str(&format!("[tool call {}] {}\n\n", call.name, call.arguments));
                }
            }
            Message::Tool {
                content, is_error, ..
            } => {
                let label = if *is_error {
                    "tool error"
                } else {
                    "tool result"
                };
                let shown: String = content.chars().take(MAX_QUOTED_RESULT).collect();
                let cut = if shown.len() < content.len() {
                    " […]"
                } else {
                    ""
                };
                out.push_str(&format!("[{label}]\n{shown}{cut}\n\n"));
            }
        }
    }
    out
}

/// Summarises and replaces older history. A failed summary request is
/// reported as a notice and changes nothing. `forced` (`/compact`) keeps
/// only the latest user turn.
pub async fn compact(
    core: &SessionCore,
    cancel: &CancellationToken,
    forced: bool,
) -> CompactionOutcome {
    let history = core.conversation().history.clone();
    let model = core.model();
    let keep_tokens = if forced {
        0
    } else {
        super::model_events::window_for_compaction(&model) * KEEP_PERCENT / 100
    };
    let Some(split) = split_point(&history, keep_tokens) else {
        return CompactionOutcome::NothingToCompact;
    };
    // The old part goes as one transcript text: both dialects reject tool
    // calls and results in a request that defines no tools.
    let transcript = transcript_text(&history[..split]);
    let request = ModelRequest {
        model: model.model_id.clone(),
        system: INSTRUCTIONS.to_string(),
        messages: vec![Message::User {
            content: format!(
                "<conversation>\n{transcript}</conversation>\n\nSummarise the conversation above as instructed."
            ),
        }],
        tools: Vec::new(),
        max_output_tokens: None,
        context_window: model.context_window,
        reasoning: None,
        // Shares no prefix with the session's requests.
        cache_key: None,
    };
    let reply = tokio::select! {
        biased;
        _ = cancel.cancelled() => return CompactionOutcome::Interrupted,
        reply = async {
            let on_retry = super::model_events::retry_observer(core);
            let stream = model.provider.stream_observed(&request, on_retry).await?;
            collect_reply(stream).await
        } => reply,
    };
    let summary = match reply {
        Ok(r) if !r.text.trim().is_empty() => r.text,
        Ok(_) => {
            core.emit(Event::Notice {
                message: "context compaction skipped: the model returned an empty summary".into(),
            });
            return CompactionOutcome::Failed;
        }
        Err(e) => {
            core.emit(Event::Notice {
                message: format!("context compaction failed: {e}"),
            });
            return CompactionOutcome::Failed;
        }
    };
    let kept = history.len() - split;
    let entry = NewEntry::new(
        new_entry_id(),
        entry_kind::COMPACTION_SUMMARY,
        json!({ "summary": summary, "keptMessages": kept }),
    );
    if core.persist(entry).is_err() {
        return CompactionOutcome::Failed;
    }
    {
        let mut conversation = core.conversation();
        let h = &mut conversation.history;
        let tail = h.split_off(split);
        *h = vec![summary_message(&summary)];
        h.extend(tail);
    }
    reinject_state(core);
    core.emit(Event::ContextCompacted {
        kept_messages: kept,
        summary: summary.trim().to_string(),
    });
    CompactionOutcome::Compacted
}

/// PLAN-11: the plan file and the current todos go back into context.
fn reinject_state(core: &SessionCore) {
    let path = plan_file_path(&core.workspace, &core.session_id);
    if let Some(content) = read_plan_file_for_reference(&path) {
        inject(
            core,
            entry_kind::REMINDER,
            reminder_kind::PLAN_FILE,
            &plan_file_reference(&path, &content),
        );
    }
    let todos = lock(&core.store)
        .todos(&core.session_id)
        .unwrap_or_default();
    if !todos.is_empty() {
        inject(
            core,
            entry_kind::REMINDER,
            reminder_kind::TODOS_AFTER_COMPACTION,
            &reminder_text(&todos),
        );
    }
    // In plan mode the next reminder is the full text again; outside it the
    // pending one-time exit reminder (PLAN-5) must not be lost.
    if core.state().plan_enabled {
        core.conversation().reminders.reset_plan();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(n: usize) -> Message {
        Message::User {
            content: "u".repeat(n),
        }
    }
    fn tool(n: usize) -> Message {
        Message::Tool {
            call_id: "c".into(),
            content: "t".repeat(n),
            is_error: false,
        }
    }

    #[test]
    fn run4_split_keeps_recent_turns_and_never_orphans_tool_results() {
        let msgs = vec![user(400), tool(4000), user(400), tool(400), user(40)];
        // 250 tokens hold the last two user turns (100 + 100 + 10), not
        // the first with its 1000-token tool result.
        assert_eq!(split_point(&msgs, 250), Some(2));
        assert_eq!(split_point(&msgs, 150), Some(4));
        // A tiny budget still keeps the last user message.
        assert_eq!(split_point(&msgs, 1), Some(4));
        // Nothing before the only user message: nothing to compact.
        assert_eq!(split_point(&[user(10), tool(10)], 1), None);
    }

    #[test]
    fn run4_threshold() {
        assert!(over_threshold(81, 100));
        assert!(!over_threshold(80, 100));
        assert!(!over_threshold(1000, 0));
    }
}
