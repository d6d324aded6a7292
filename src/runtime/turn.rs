//! One turn (RUN-2): stream the reply, run the requested tools through the
//! approval pipeline, feed the results back, until the model answers, a
//! turn-control result stops it, or the user interrupts.

use super::compaction;
use super::core::{SaveFailed, SessionCore, lock};
use super::injection;
use super::mode_note;
use super::model_events;
use super::small_window;
use super::tool_call::{CallOutcome, execute_call};
use super::transcript::{
    assistant_entry, new_entry_id, shown_result_entry, tool_result_entry, user_entry,
};
use crate::model::accumulate::ReplyBuilder;
use crate::model::{AssistantReply, FinishReason, Message, ModelRequest, StreamEvent};
use crate::protocol::{Event, TurnEnd};
use crate::store::{NewEntry, entry_kind};
use futures_util::StreamExt;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// A turn that keeps calling tools this many times is stopped: a model in a
/// loop must not run forever unattended.
pub const MAX_ROUNDS: usize = 200;

const INTERRUPTED_RESULT: &str = "Interrupted by the user. The tool call did not complete.";

/// What the model reads after a turn the user interrupted, as a user
/// message right after the cut answer (and the results of its calls), so
/// that it knows the answer is incomplete and why.
pub const INTERRUPTED_NOTE: &str =
    "[The user interrupted your previous answer; it was cut off here and is incomplete.]";
/// The `kind` of [`INTERRUPTED_NOTE`]'s entry.
pub const INTERRUPTED_NOTE_KIND: &str = "interrupted";
const SKIPPED_RESULT: &str = "Not executed: the turn was stopped before this call.";

enum StreamResult {
    Reply(AssistantReply),
    Interrupted(AssistantReply),
    /// The request failed; `partial` is what arrived before (kept, like
    /// an interrupted reply).
    Failed {
        message: String,
        partial: AssistantReply,
    },
    /// What precedes the request (a reminder, a summary) could not be
    /// saved; no request was sent.
    NotSaved,
}

/// Told when the server itself stopped a reply at the output limit.
const CUT_AT_LIMIT_NOTICE: &str = "the reply stopped at the model's output limit and may be incomplete; \
     raise maxOutputTokens for this model in config.json to allow longer replies";

/// Runs one turn for `text` and reports how it ended.
pub async fn run_turn(
    core: &SessionCore,
    turn: u64,
    text: String,
    cancel: CancellationToken,
) -> TurnEnd {
    core.emit(Event::TurnStarted {
        turn,
        text: text.clone(),
    });
    if let Some(reason) = core.save_failure() {
        // An earlier entry was lost: this session takes no more turns.
        core.emit(Event::Error { message: reason });
        return failed(core);
    }
    if core.persist(user_entry(&text)).is_err() {
        return failed(core);
    }
    let first_message = {
        let mut conversation = core.conversation();
        let first = conversation.history.is_empty();
        conversation.history.push(Message::User {
            content: text.clone(),
        });
        conversation.reminders.on_real_user_message();
        first
    };
    if first_message {
        // The first line of the first message names the session in lists.
        let title: String = text
            .lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(80)
            .collect();
        let _ = lock(&core.store).set_session_title(&core.session_id, Some(title.trim()));
    }

    let mut last_text = String::new();
    for _ in 0..MAX_ROUNDS {
        let reply = match stream_reply(core, &cancel).await {
            StreamResult::Reply(reply) => reply,
            StreamResult::Interrupted(partial) => {
                if record_assistant(core, &partial, false).is_err() {
                    return failed(core);
                }
                return interrupted(core);
            }
            StreamResult::Failed { message, partial } => {
                // The turn fails either way; a partial that cannot be saved
                // has already said so.
                let _ = record_assistant(core, &partial, false);
                core.emit(Event::Error { message });
                return failed(core);
            }
            StreamResult::NotSaved => return failed(core),
        };
        if record_assistant(core, &reply, true).is_err() {
            // Its tool calls are not run: the transcript would not have them.
            return failed(core);
        }
        if reply.finish_reason == Some(FinishReason::Length) {
            core.emit(Event::Notice {
                message: CUT_AT_LIMIT_NOTICE.into(),
            });
        }
        core.conversation().reminders.on_assistant_reply(&reply);
        if !reply.text.trim().is_empty() {
            last_text = reply.text.clone();
        }
        if reply.tool_calls.is_empty() {
            let answer = if reply.text.trim().is_empty() {
                last_text
            } else {
                reply.text
            };
            core.finish_turn(
                TurnEnd::Completed,
                Some(answer).filter(|a| !a.trim().is_empty()),
            );
            return TurnEnd::Completed;
        }
        if let Some(end) = run_tool_calls(core, &reply, &cancel).await {
            if end == TurnEnd::Interrupted {
                return interrupted(core);
            }
            let answer = (end == TurnEnd::Stopped && !last_text.is_empty()).then_some(last_text);
            core.finish_turn(end, answer);
            return end;
        }
    }
    core.emit(Event::Error {
        message: format!("stopped after {MAX_ROUNDS} rounds of tool calls in one turn"),
    });
    core.finish_turn(
        TurnEnd::RoundLimit,
        Some(last_text).filter(|t| !t.is_empty()),
    );
    TurnEnd::RoundLimit
}

/// Ends the turn as interrupted, after noting the cut for the model.
fn interrupted(core: &SessionCore) -> TurnEnd {
    // Kept as a notification: the model reads it, the user never typed it.
    let entry = NewEntry::new(
        new_entry_id(),
        entry_kind::NOTIFICATION,
        json!({ "kind": INTERRUPTED_NOTE_KIND, "text": INTERRUPTED_NOTE }),
    );
    if core.persist(entry).is_err() {
        return failed(core);
    }
    core.conversation().history.push(Message::User {
        content: INTERRUPTED_NOTE.to_string(),
    });
    core.finish_turn(TurnEnd::Interrupted, None);
    TurnEnd::Interrupted
}

/// Ends the turn as failed (the reason was already reported).
fn failed(core: &SessionCore) -> TurnEnd {
    core.finish_turn(TurnEnd::Failed, None);
    TurnEnd::Failed
}

/// Persists the assistant's reply and appends it to the history. A reply
/// cut short (interrupted, failed) keeps its text and reasoning but drops
/// unfinished tool calls; one with reasoning only is saved but not sent
/// back to the model.
fn record_assistant(
    core: &SessionCore,
    reply: &AssistantReply,
    complete: bool,
) -> Result<(), SaveFailed> {
    let tool_calls = if complete {
        reply.tool_calls.clone()
    } else {
        Vec::new()
    };
    if reply.text.is_empty() && reply.reasoning.is_empty() && tool_calls.is_empty() {
        return Ok(());
    }
    core.persist(assistant_entry(&reply.text, &reply.reasoning, &tool_calls))?;
    if complete && !reply.text.trim().is_empty() {
        core.emit(Event::AssistantMessage {
            text: reply.text.clone(),
        });
    }
    if reply.text.is_empty() && tool_calls.is_empty() {
        return Ok(());
    }
    core.conversation().history.push(Message::Assistant {
        text: reply.text.clone(),
        tool_calls,
    });
    Ok(())
}

async fn stream_reply(core: &SessionCore, cancel: &CancellationToken) -> StreamResult {
    let forced = core
        .compact_requested
        .swap(false, std::sync::atomic::Ordering::SeqCst);
    // Read once: a `/model` switch applies from the next request on.
    let mut model = core.model();
    if model.context_window.is_none() {
        // The prompt is chosen for the window (small_window), so a lookup
        // under way is waited for; once it has ended this returns at once.
        model_events::wait_for_window(core, cancel).await;
        model = core.model();
    }
    // The tools offered are complete once every MCP server has started or
    // failed (each within its bound); the user can interrupt the wait.
    core.mcp.wait_started(cancel).await;
    let prompt = small_window::request_prompt(
        &core.workspace,
        mode_note::prompt_state(core),
        &core.context,
        &core.registry,
        model.context_window,
        core.prompt_base.as_deref(),
    );
    let estimate = compaction::estimate_request_tokens(
        &prompt.system,
        &core.conversation().history,
        &prompt.tools,
    );
    let window = model_events::window_for_compaction(&model);
    if forced || compaction::over_threshold(estimate, window) {
        compaction::compact(core, cancel, forced).await;
    }
    mode_note::announce_change(core);
    injection::before_request(core, false);
    if core.save_failure().is_some() {
        return StreamResult::NotSaved;
    }
    let request = ModelRequest {
        model: model.model_id.clone(),
        system: prompt.system,
        messages: core.conversation().history.clone(),
        tools: prompt.tools,
        max_output_tokens: None,
        context_window: model.context_window,
        reasoning: model.reasoning.clone(),
        cache_key: Some(core.session_id.clone()),
    };
    let mut builder = ReplyBuilder::default();
    let stream = tokio::select! {
        biased;
        _ = cancel.cancelled() => return StreamResult::Interrupted(builder.finish()),
        result = model.provider.stream_observed(&request, model_events::retry_observer(core)) => result,
    };
    let mut stream = match stream {
        Ok(s) => s,
        Err(e) => {
            return StreamResult::Failed {
                message: e.to_string(),
                partial: builder.finish(),
            };
        }
    };
    loop {
        let next = tokio::select! {
            biased;
            _ = cancel.cancelled() => return StreamResult::Interrupted(builder.finish()),
            next = stream.next() => next,
        };
        match next {
            None => break,
            Some(Err(e)) => {
                return StreamResult::Failed {
                    message: e.to_string(),
                    partial: builder.finish(),
                };
            }
            Some(Ok(event)) => {
                match &event {
                    StreamEvent::TextDelta(t) => {
                        core.emit(Event::AssistantDelta { text: t.clone() })
                    }
                    StreamEvent::ReasoningDelta(t) => {
                        core.emit(Event::ReasoningDelta { text: t.clone() })
                    }
                    _ => {}
                }
                builder.push(event);
            }
        }
    }
    let reply = builder.finish();
    core.add_usage(crate::model::cost::with_cost(
        reply.usage,
        model.prices.as_ref(),
    ));
    StreamResult::Reply(reply)
}

/// Runs the calls in order; a run of calls whose tool may run in parallel
/// (Agent) runs at the same time, their results recorded in call order.
/// Returns how the turn ends if it must end now.
async fn run_tool_calls(
    core: &SessionCore,
    reply: &AssistantReply,
    cancel: &CancellationToken,
) -> Option<TurnEnd> {
    let mut end = None;
    let mut follow_ups = Vec::new();
    let calls = &reply.tool_calls;
    let mut next = 0;
    while next < calls.len() {
        let batch = parallel_run(core, &calls[next..]).max(1);
        let group = &calls[next..next + batch];
        next += batch;
        let outcomes: Vec<CallOutcome> = match end {
            Some(TurnEnd::Interrupted) => group
                .iter()
                .map(|_| CallOutcome::error(INTERRUPTED_RESULT))
                .collect(),
            Some(_) => group
                .iter()
                .map(|_| CallOutcome::error(SKIPPED_RESULT))
                .collect(),
            None if cancel.is_cancelled() => {
                end = Some(TurnEnd::Interrupted);
                group
                    .iter()
                    .map(|_| CallOutcome::error(INTERRUPTED_RESULT))
                    .collect()
            }
            // Something the call wrote (or an earlier entry) was lost: no
            // further call runs.
            None if core.save_failure().is_some() => return Some(TurnEnd::Failed),
            None => {
                let outcomes = futures_util::future::join_all(
                    group.iter().map(|call| execute_call(core, call, cancel)),
                )
                .await;
                if cancel.is_cancelled() {
                    end = Some(TurnEnd::Interrupted);
                } else if outcomes.iter().any(|o| o.stop_turn) {
                    end = Some(TurnEnd::Stopped);
                }
                outcomes
            }
        };
        for (call, outcome) in group.iter().zip(outcomes) {
            if core
                .persist(shown_result_entry(
                    &call.id,
                    &call.name,
                    &outcome.content,
                    outcome.is_error,
                    &outcome.shown,
                ))
                .is_err()
            {
                return Some(TurnEnd::Failed);
            }
            core.conversation().history.push(Message::Tool {
                call_id: call.id.clone(),
                content: outcome.content,
                is_error: outcome.is_error,
            });
            if let Some(text) = outcome.follow_up {
                follow_ups.push((call.id.clone(), text));
            }
        }
    }
    // PLAN-8: feedback on a plan is a real user message of this turn, after
    // every tool result (both dialects need results right after the calls).
    for (call_id, text) in follow_ups {
        if core.persist(user_entry(&text)).is_err() {
            return Some(TurnEnd::Failed);
        }
        core.emit(Event::PlanFeedback {
            call_id,
            text: text.clone(),
        });
        let mut conversation = core.conversation();
        conversation.history.push(Message::User { content: text });
        conversation.reminders.on_real_user_message();
    }
    end
}

/// How many calls from the start of `calls` run together: the run of
/// calls whose tool's declaration says they may run in parallel, else 1.
fn parallel_run(core: &SessionCore, calls: &[crate::model::ToolCall]) -> usize {
    calls
        .iter()
        .take_while(|call| {
            core.registry
                .get(&call.name)
                .is_some_and(|tool| tool.declaration().parallel)
        })
        .count()
}

/// After a turn task died (a panic), every call of the last reply gets a
/// result, since both dialects reject a history with an unanswered call.
pub fn close_unanswered_calls(core: &SessionCore) {
    let missing: Vec<(String, String)> = {
        let conversation = core.conversation();
        let history = &conversation.history;
        let Some(at) = history
            .iter()
            .rposition(|m| matches!(m, Message::Assistant { .. }))
        else {
            return;
        };
        let Message::Assistant { tool_calls, .. } = &history[at] else {
            return;
        };
        let answered: Vec<&str> = history[at + 1..]
            .iter()
            .filter_map(|m| match m {
                Message::Tool { call_id, .. } => Some(call_id.as_str()),
                _ => None,
            })
            .collect();
        tool_calls
            .iter()
            .filter(|c| !answered.contains(&c.id.as_str()))
            .map(|c| (c.id.clone(), c.name.clone()))
            .collect()
    };
    for (call_id, tool) in missing {
        let text = "The tool call was interrupted by an internal error; its effect is unknown.";
        let _ = core.persist(tool_result_entry(&call_id, &tool, text, true));
        core.conversation().history.push(Message::Tool {
            call_id,
            content: text.into(),
            is_error: true,
        });
    }
}
