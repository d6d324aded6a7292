//! What the runtime's events do to the model: the transcript's cells, the
//! approval queue, the status line's state.

use crate::protocol::{CompactionOutcome, Denial, Event, HistoryItem, TurnEnd, retry_line};
use crate::tui::cells::{
    Cell, PLAN_SENT_BACK, ToolStatus, denial_words, finished, input_summary, push_live,
};
use crate::tui::model::Model;
use crate::tui::picker::Picker;

pub(super) fn on_event(model: &mut Model, event: Event) {
    model.dirty = true;
    match event {
        Event::SessionStarted {
            session_id,
            workspace,
            model: label,
            offline_demo,
            state,
            resumed,
            context_window,
            sandbox_notice,
            mode_source,
            ..
        } => {
            // 0: unknown (the status line says so).
            model.context_window = context_window.unwrap_or(0);
            // A resumed session welcomes below its history (`History`),
            // where the user looks.
            if !resumed {
                model.cells.push(Cell::Welcome);
            }
            if let Some(notice) = &sandbox_notice {
                push_notice(model, notice);
            }
            model.sandbox_missing = sandbox_notice.is_some();
            model.session_id = session_id;
            model.workspace = workspace;
            // After /new or /resume the label still names the model that was
            // in use: say so when the new session could not keep it.
            let previous = std::mem::replace(&mut model.model_label, label);
            if !previous.is_empty() && previous != model.model_label {
                let note = format!(
                    "{previous} is not available any more; this session uses {}",
                    model.model_label
                );
                push_notice(model, &note);
            }
            super::mode::started(model, state, mode_source);
            if offline_demo {
                push_notice(
                    model,
                    "offline demo provider (scripted replies): no model is configured. Set OPENAI_BASE_URL \
                     (e.g. http://127.0.0.1:8080/v1) or OPENAI_API_KEY or ANTHROPIC_API_KEY, or add a provider \
                     to $ZCODE_HOME/config.json; see the README.",
                );
            }
            if resumed {
                push_notice(model, "resumed session");
            }
        }
        Event::TurnStarted { text, .. } => {
            model.busy = true;
            model.retry = None;
            if model.turn_started.is_none() {
                model.turn_started = model.now;
            }
            if let Some(i) = model.queued.iter().position(|q| *q == text) {
                model.queued.remove(i);
            }
            model.cells.push(Cell::User { text });
        }
        Event::InputQueued { text, .. } => model.queued.push(text),
        Event::InputsReturned { inputs } => {
            // Not sent: back into the composer, ahead of what is there.
            for input in &inputs {
                if let Some(i) = model.queued.iter().position(|q| *q == input.text) {
                    model.queued.remove(i);
                }
            }
            let returned = inputs.len();
            let mut texts: Vec<String> = inputs.into_iter().map(|i| i.text).collect();
            if !model.composer.is_empty() {
                texts.push(model.composer.text().to_string());
            }
            model.composer.set(&texts.join("\n"));
            let noun = if returned == 1 { "message" } else { "messages" };
            if returned > 0 {
                push_notice(
                    model,
                    &format!("{returned} queued {noun} returned to the prompt"),
                );
            }
        }
        Event::PlanFeedback { call_id, text } => {
            // The plan's cell says what became of it; the feedback is the
            // user's message from here on.
            set_detail(model, &call_id, PLAN_SENT_BACK);
            model.cells.push(Cell::User { text });
        }
        Event::AssistantDelta { text } => match model.cells.last_mut() {
            Some(Cell::Assistant {
                text: current,
                streaming: true,
            }) => current.push_str(&text),
            _ => model.cells.push(Cell::Assistant {
                text,
                streaming: true,
            }),
        },
        Event::ReasoningDelta { .. } => model.dirty = false,
        // The last request's input is what the context holds now; a
        // provider that reports none leaves the last figure.
        // While sub-agents run, the usage the session reports is theirs
        // (added to its total): the context shown stays the session's own.
        Event::Usage { total, .. } if super::agents::any_running(model) => {
            model.usage = total;
            model.dirty = false;
        }
        Event::Usage { usage, total } => {
            model.usage = total;
            model.dirty = usage.input_tokens > 0
                && (usage.input_tokens != model.context_tokens
                    || usage.cache_read_input_tokens != model.context_cached);
            if usage.input_tokens > 0 {
                model.context_tokens = usage.input_tokens;
                model.context_cached = usage.cache_read_input_tokens;
            }
        }
        Event::TodosChanged { todos } => {
            // An emptied list closes its overlay for good.
            model.todos_open &= !todos.is_empty();
            model.todos = todos;
        }
        Event::AssistantMessage { text } => match model.cells.last_mut() {
            Some(Cell::Assistant {
                text: current,
                streaming,
            }) if *streaming => {
                *current = text;
                *streaming = false;
            }
            _ => {
                if !text.is_empty() {
                    model.cells.push(Cell::Assistant {
                        text,
                        streaming: false,
                    });
                }
            }
        },
        Event::ToolCallStarted {
            call_id,
            tool,
            input,
        } => {
            finish_streaming(model);
            let waiting = model.approvals.iter().any(|r| r.call_id == call_id);
            model.cells.push(Cell::Tool {
                call_id,
                tool,
                summary: input_summary(&input),
                status: if waiting {
                    ToolStatus::Waiting
                } else {
                    ToolStatus::Running
                },
                detail: String::new(),
                output: String::new(),
                diff: None,
                expanded: model.tools_expanded,
            });
        }
        Event::PermissionRequested { request } => {
            // A sub-agent's call is in its agent's cell, not the session's.
            match &request.agent {
                Some(label) => super::agents::set_waiting(model, label, true),
                None => set_waiting(model, &request.call_id, true),
            }
            model.approvals.push_back(request);
        }
        // The cell already shows the call as running.
        Event::ToolCallRunning { .. } => {}
        Event::ToolOutputDelta { call_id, text } => live_output(model, &call_id, &text),
        Event::PermissionResolved { request_id, .. } => {
            if let Some(i) = model
                .approvals
                .iter()
                .position(|r| r.request_id == request_id)
            {
                if let Some(request) = model.approvals.remove(i) {
                    match &request.agent {
                        Some(label) => super::agents::set_waiting(model, label, false),
                        None => set_waiting(model, &request.call_id, false),
                    }
                }
                // Resolved elsewhere (a hook, a cancel): nothing the user
                // did on its panel carries over to the next request.
                if i == 0 {
                    model.approval = None;
                }
            }
        }
        Event::ToolCallFinished {
            call_id,
            tool,
            output,
            is_error,
            diff,
            exit_code,
        } => {
            let shown = finished(&tool, &output, is_error, exit_code);
            if !set_tool(
                model,
                &call_id,
                shown.status,
                shown.detail,
                shown.output,
                diff,
            ) {
                super::agents::call_finished(model, &call_id, &output, is_error);
            }
        }
        Event::ToolCallDenied { denial } => {
            // A sub-agent's call: its agent's transcript says so; with its
            // agent gone, a cell of its own names the agent.
            if let Some(label) = denial.agent.clone() {
                if !super::agents::denied(model, &label, denial.clone()) {
                    push_denied(model, format!("{label} · {}", denial.tool), denial);
                }
                return;
            }
            if !set_tool(
                model,
                &denial.call_id,
                ToolStatus::Denied,
                denial_words(&denial.rule_id, &denial.reason),
                String::new(),
                None,
            ) {
                let tool = denial.tool.clone();
                push_denied(model, tool, denial);
            }
        }
        Event::CompactionStarted => {
            // Busy like a turn: the spinner runs and Esc cancels it.
            model.busy = true;
            if model.turn_started.is_none() {
                model.turn_started = model.now;
            }
            push_notice(model, "compacting the conversation (Esc cancels)");
        }
        Event::CompactionFinished { outcome } => {
            match outcome {
                CompactionOutcome::Interrupted => push_notice(model, "compaction cancelled"),
                CompactionOutcome::NothingToCompact => push_notice(
                    model,
                    "nothing to compact yet: there is no earlier turn to summarise",
                ),
                // A notice before it said why it failed.
                CompactionOutcome::Compacted | CompactionOutcome::Failed => {}
            }
            model.busy = false;
            model.turn_started = None;
        }
        Event::ContextCompacted {
            kept_messages,
            summary,
        } => model.cells.push(Cell::Compaction {
            summary,
            kept_messages,
            expanded: model.tools_expanded,
        }),
        Event::SessionModeChanged { state } => super::mode::changed(model, state),
        Event::History { items } => {
            replay_history(model, items);
            model.cells.push(Cell::Welcome);
        }
        Event::ModelChanged {
            model: label,
            context_window,
            ..
        } => {
            push_notice(model, &format!("model: {label} (from the next request on)"));
            model.model_label = label;
            // The context use shown so far was measured against the old
            // window; the next request's usage replaces the count.
            model.context_window = context_window.unwrap_or(0);
        }
        Event::ContextWindowFound {
            model: label,
            context_window,
            ..
        } => {
            if label == model.model_label {
                model.context_window = context_window;
            }
        }
        // The status line names the model the server serves.
        Event::ServedModelFound {
            model: label,
            served,
        } => {
            if label == model.model_label {
                model.model_label = served;
            }
        }
        Event::ProjectRules { rules } => {
            let selected = model.picker.as_ref().map_or(0, |p| p.selected);
            let mut picker = Picker::rules(rules);
            picker.selected = selected.min(picker.items.len().saturating_sub(1));
            model.picker = Some(picker);
        }
        Event::BackgroundProcesses { count, .. } => model.background = count,
        Event::Notice { message } => push_notice(model, &message),
        Event::Retrying {
            attempt,
            max_attempts,
            delay_ms,
            reason,
        } => push_notice(model, &retry_line(attempt, max_attempts, delay_ms, &reason)),
        Event::Error { message } => broken_reply_or_error(model, message),
        Event::SubAgentStarted {
            parent_tool_use_id,
            agent,
        } => super::agents::started(model, parent_tool_use_id, agent),
        Event::SubAgentEvent {
            parent_tool_use_id,
            event,
            ..
        } => super::agents::inner_event(model, &parent_tool_use_id, *event),
        Event::SubAgentFinished {
            parent_tool_use_id,
            summary,
            ..
        } => super::agents::finished(model, &parent_tool_use_id, summary),
        Event::TurnFinished { end, .. } => {
            finish_streaming(model);
            // The turn's tools may have added or removed files: `@file`
            // completion walks the workspace again.
            model.files.invalidate();
            super::agents::turn_finished(model, end);
            match end {
                TurnEnd::Interrupted => push_notice(model, "interrupted"),
                TurnEnd::RoundLimit => push_notice(model, "stopped: tool-call round limit reached"),
                TurnEnd::Failed => offer_retry(model),
                TurnEnd::Completed | TurnEnd::Stopped => {}
            }
            // A tool still "running" (or waiting) when its turn ends was cut
            // off.
            model.cells.update_where(
                |cell| {
                    matches!(
                        cell,
                        Cell::Tool {
                            status: ToolStatus::Running | ToolStatus::Waiting,
                            ..
                        }
                    )
                },
                |cell| {
                    if let Cell::Tool { status, .. } = cell {
                        *status = ToolStatus::Failed;
                    }
                },
            );
            model.busy = false;
            model.turn_started = None;
            model.waited = std::time::Duration::ZERO;
            model.waiting_since = None;
        }
    }
}

/// A call whose request waits for the user says so; once answered it runs.
pub(super) fn set_waiting(model: &mut Model, id: &str, waiting: bool) {
    let (from, to) = if waiting {
        (ToolStatus::Running, ToolStatus::Waiting)
    } else {
        (ToolStatus::Waiting, ToolStatus::Running)
    };
    let found = model.cells.rfind_mut(
        |cell| matches!(cell, Cell::Tool { call_id, status, .. } if call_id == id && *status == from),
    );
    if let Some(Cell::Tool { status, .. }) = found {
        *status = to;
    }
}

/// A resumed session's conversation as cells.
fn replay_history(model: &mut Model, items: Vec<HistoryItem>) {
    for item in items {
        let cell = match item {
            HistoryItem::User { text } => Cell::User { text },
            HistoryItem::Assistant { text } => Cell::Assistant {
                text,
                streaming: false,
            },
            HistoryItem::Tool {
                call_id,
                output,
                sub_agent: Some(record),
                ..
            } => {
                super::agents::replay(model, call_id, *record, &output);
                continue;
            }
            // As the live session showed it: the same status and lines.
            HistoryItem::Tool {
                call_id,
                tool,
                input,
                output,
                is_error,
                exit_code,
                denial,
                ..
            } => {
                let shown = match denial {
                    Some(d) => crate::tui::cells::Shown {
                        status: ToolStatus::Denied,
                        detail: denial_words(&d.rule_id, &d.reason),
                        output: String::new(),
                    },
                    None => finished(&tool, &output, is_error, exit_code),
                };
                Cell::Tool {
                    call_id,
                    tool,
                    summary: input_summary(&input),
                    status: shown.status,
                    detail: shown.detail,
                    output: shown.output,
                    diff: None,
                    expanded: model.tools_expanded,
                }
            }
            HistoryItem::Summary => Cell::Notice {
                text: "earlier conversation compacted".into(),
            },
        };
        model.cells.push(cell);
    }
}

/// A cell for a refused call that had none.
fn push_denied(model: &mut Model, tool: String, denial: Denial) {
    model.cells.push(Cell::Tool {
        call_id: denial.call_id,
        tool,
        summary: input_summary(&denial.input),
        status: ToolStatus::Denied,
        detail: denial_words(&denial.rule_id, &denial.reason),
        output: String::new(),
        diff: None,
        expanded: model.tools_expanded,
    });
}

fn push_notice(model: &mut Model, text: &str) {
    model.cells.push(Cell::Notice {
        text: text.to_string(),
    });
}

fn finish_streaming(model: &mut Model) {
    if let Some(Cell::Assistant { streaming, .. }) = model.cells.last_mut() {
        *streaming = false;
    }
}

/// Updates the tool cell of `call_id` (its status, detail line, kept
/// output and diff); false when there is none.
fn set_tool(
    model: &mut Model,
    id: &str,
    new_status: ToolStatus,
    new_detail: String,
    new_output: String,
    new_diff: Option<String>,
) -> bool {
    let found = model
        .cells
        .rfind_mut(|cell| matches!(cell, Cell::Tool { call_id, .. } if call_id == id));
    if let Some(Cell::Tool {
        status,
        detail,
        output,
        diff,
        ..
    }) = found
    {
        *status = new_status;
        *detail = new_detail;
        *output = new_output;
        *diff = new_diff;
        return true;
    }
    false
}

/// Changes only the detail line of the tool cell of `id`.
fn set_detail(model: &mut Model, id: &str, text: &str) {
    if let Some(Cell::Tool { detail, .. }) = model
        .cells
        .rfind_mut(|cell| matches!(cell, Cell::Tool { call_id, .. } if call_id == id))
    {
        *detail = text.to_string();
    }
}

/// Output a running call produced: its cell keeps the tail it shows.
fn live_output(model: &mut Model, id: &str, text: &str) {
    // Only a call still running: a late delta never overwrites a result.
    let found = model.cells.rfind_mut(|cell| {
        matches!(cell, Cell::Tool { call_id, status: ToolStatus::Running, .. } if call_id == id)
    });
    match found {
        Some(Cell::Tool { output, .. }) => push_live(output, text),
        _ => model.dirty = false,
    }
}

/// How the model layer words a stream that broke off mid-body.
const STREAM_BROKE: &str = ": the stream broke off";

/// An error. When a reply was streaming, it was cut off: its cursor goes,
/// a mark says where it ends, and a broken connection is said in plain
/// words rather than as the transport's error.
fn broken_reply_or_error(model: &mut Model, message: String) {
    let streaming = model.cells.rfind_mut(|cell| {
        matches!(
            cell,
            Cell::Assistant {
                streaming: true,
                ..
            }
        )
    });
    let cut = match streaming {
        Some(Cell::Assistant { streaming, .. }) => {
            *streaming = false;
            true
        }
        _ => false,
    };
    if cut {
        push_notice(model, REPLY_CUT_OFF);
    }
    let text = match (message.contains(STREAM_BROKE), cut) {
        (true, true) => "The connection to the model broke mid-reply".to_string(),
        (true, false) => "The connection to the model broke before it replied".to_string(),
        (false, _) => message,
    };
    model.cells.push(Cell::Error { text });
}

/// What marks a reply that an error cut off.
pub const REPLY_CUT_OFF: &str = "reply cut off here";

/// The hint after a failed turn.
pub const RETRY_HINT: &str = "press Enter on an empty prompt to send your message again";

/// A failed turn: Enter on an empty prompt sends its message again.
fn offer_retry(model: &mut Model) {
    let last = model.cells.iter().rev().find_map(|cell| match cell {
        Cell::User { text } => Some(text.clone()),
        _ => None,
    });
    if let Some(text) = last {
        model.retry = Some(text);
        push_notice(model, RETRY_HINT);
    }
}
