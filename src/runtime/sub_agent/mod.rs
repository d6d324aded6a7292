//! Sub-agents: an Agent call runs a turn loop of its own in a fresh
//! context (its own system prompt, tools, transcript and usage) on the
//! parent's provider, and its final answer becomes the call's result.
//!
//! A sub-agent is a [`SessionCore`] of its own, built from the parent's
//! ([`child`]): the same store, approval broker, mode and (unless it is
//! read-only) permission rules and grants. Its events are tagged with the
//! Agent call and passed on to the front end ([`forward`]); its approvals
//! reach the front end directly, labelled with the agent.

mod child;
mod forward;

use super::agent_catalog::AgentKind;
use super::core::{SessionCore, lock};
use crate::model::select::SelectedModel;
use crate::protocol::{Event, SubAgentInfo, SubAgentStatus, SubAgentSummary};
use crate::tools::agent::{AgentInput, SubAgentRunner};
use crate::tools::{ToolContext, ToolOutput};
use futures_util::future::BoxFuture;
use std::sync::Weak;
use std::time::Instant;

/// Starts sub-agents for the Agent calls of one session.
pub struct Launcher {
    parent: Weak<SessionCore>,
}

impl Launcher {
    pub fn new(parent: Weak<SessionCore>) -> Self {
        Self { parent }
    }
}

impl SubAgentRunner for Launcher {
    fn run<'a>(&'a self, input: AgentInput, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            match self.parent.upgrade() {
                Some(parent) => run(&parent, input, ctx).await,
                None => ToolOutput::error("The session has ended; no sub-agent was started."),
            }
        })
    }
}

/// Runs one sub-agent to its end and gives the parent its report.
async fn run(parent: &SessionCore, input: AgentInput, ctx: &ToolContext) -> ToolOutput {
    let Some(kind) = parent.agents.find(&input.subagent_type).cloned() else {
        return ToolOutput::error(format!(
            "Unknown subagent_type \"{}\". Available agents: {}.",
            input.subagent_type,
            parent.agents.names().join(", ")
        ));
    };
    let model = match choose_model(parent, &kind, input.model.as_deref()) {
        Ok(model) => model,
        Err(e) => return ToolOutput::error(e),
    };
    // The others wait their turn (`agents.maxParallel`); an interrupt
    // ends the wait.
    let slots = parent.agents.slots();
    let _permit = tokio::select! {
        permit = slots.acquire_owned() => match permit {
            Ok(permit) => permit,
            Err(_) => return ToolOutput::error("Sub-agents cannot start any more (the session is ending)."),
        },
        _ = ctx.cancel.cancelled() => {
            return ToolOutput::error("Interrupted by the user before the sub-agent started.");
        }
    };
    let stored = lock(&parent.store)
        .sub_agents_of(&parent.session_id)
        .map(|rows| {
            rows.iter()
                .filter(|r| r.link.agent_type == kind.name)
                .count()
        })
        .unwrap_or(0);
    let number = parent
        .agents
        .next_number(&kind.name, u32::try_from(stored).unwrap_or(u32::MAX));
    let info = SubAgentInfo {
        label: format!("{} #{number}", kind.name),
        agent_type: kind.name.clone(),
        description: input.description.clone(),
        model: format!("{}/{}", model.provider_id, model.model_id),
        session_id: super::session::new_session_id(),
    };
    let (events, received) = tokio::sync::mpsc::unbounded_channel();
    let child = match child::build(parent, &kind, &info, &ctx.call_id, model, events) {
        Ok(child) => child,
        Err(e) => return ToolOutput::error(format!("The sub-agent could not start: {e}")),
    };
    parent.emit(Event::SubAgentStarted {
        parent_tool_use_id: ctx.call_id.clone(),
        agent: info.clone(),
    });
    let started = Instant::now();
    let cancel = ctx.cancel.child_token();
    let turn = async move {
        let end = super::turn::run_turn(&child, 1, input.prompt, cancel).await;
        let found = forward::last_text(&child);
        // `child` (and with it the sending side of its events) ends here,
        // which ends the forwarding below.
        (end, found)
    };
    let forwarding = forward::forward(parent, &ctx.call_id, &info.label, received);
    let ((end, found), progress) = tokio::join!(turn, forwarding);
    let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let status = match end {
        crate::protocol::TurnEnd::Completed => SubAgentStatus::Completed,
        crate::protocol::TurnEnd::Interrupted => SubAgentStatus::Cancelled,
        _ if ctx.cancel.is_cancelled() => SubAgentStatus::Cancelled,
        _ => SubAgentStatus::Failed,
    };
    let answer = progress.answer.clone().or(found).unwrap_or_default();
    let summary = SubAgentSummary {
        status,
        tool_calls: progress.tool_calls,
        usage: progress.usage,
        elapsed_ms,
        summary: summary_line(status, &answer, progress.last_error.as_deref()),
    };
    let saved = serde_json::to_value(&summary).unwrap_or_default();
    if let Err(e) = lock(&parent.store).finish_sub_agent(&info.session_id, &saved) {
        parent.emit(Event::Notice {
            message: format!("{}: how it ended could not be saved: {e}", info.label),
        });
    }
    parent.emit(Event::SubAgentFinished {
        parent_tool_use_id: ctx.call_id.clone(),
        label: info.label.clone(),
        summary: summary.clone(),
    });
    report(&info, &summary, &answer, progress.last_error.as_deref())
}

/// The model of a sub-agent: the call's `model`, else the definition's,
/// else the parent's. A definition's model that does not resolve falls
/// back to the parent's (said once as a notice): a file written for
/// another product names models this catalog may not have.
fn choose_model(
    parent: &SessionCore,
    kind: &AgentKind,
    requested: Option<&str>,
) -> Result<SelectedModel, String> {
    let current = parent.model();
    let resolve = |reference: &str| match &parent.model_resolver {
        Some(resolver) => resolver(reference, &current),
        None => Err("this session cannot switch models".to_string()),
    };
    if let Some(reference) = requested {
        return resolve(reference).map_err(|e| {
            format!("Cannot use model \"{reference}\" for the sub-agent: {e}. Call ListModels to see the models you can choose.")
        });
    }
    match kind.model.as_deref() {
        None => Ok(current),
        Some(reference) => match resolve(reference) {
            Ok(model) => Ok(model),
            Err(e) => {
                let place = kind
                    .source
                    .as_ref()
                    .map(|p| format!(" ({})", p.display()))
                    .unwrap_or_default();
                parent.emit(Event::Notice {
                    message: format!(
                        "agent {}{place}: model \"{reference}\" is not available ({e}); it runs on {}/{}",
                        kind.name, current.provider_id, current.model_id
                    ),
                });
                Ok(current)
            }
        },
    }
}

/// The cell's one line: the answer's first line, or why it stopped.
fn summary_line(status: SubAgentStatus, answer: &str, error: Option<&str>) -> String {
    let first = answer.lines().map(str::trim).find(|l| !l.is_empty());
    let line = match (status, first, error) {
        (SubAgentStatus::Completed, Some(line), _) => line.to_string(),
        (SubAgentStatus::Completed, None, _) => "finished without a report".into(),
        (SubAgentStatus::Cancelled, _, _) => "cancelled".into(),
        (SubAgentStatus::Failed, _, Some(error)) => format!("failed: {error}"),
        (SubAgentStatus::Failed, _, None) => "failed".into(),
    };
    line.chars().take(200).collect()
}

/// What the parent model reads: the report, then a footer with what the
/// sub-agent used.
fn report(
    info: &SubAgentInfo,
    summary: &SubAgentSummary,
    answer: &str,
    error: Option<&str>,
) -> ToolOutput {
    let footer = footer(info, summary);
    let answer = answer.trim();
    match summary.status {
        SubAgentStatus::Completed if !answer.is_empty() => {
            ToolOutput::ok(format!("{answer}\n\n{footer}"))
        }
        SubAgentStatus::Completed => ToolOutput::ok(format!(
            "The sub-agent {} finished without a report.\n\n{footer}",
            info.label
        )),
        status => {
            let why = match (status, error) {
                (SubAgentStatus::Cancelled, _) => {
                    "was cancelled (the user interrupted)".to_string()
                }
                (_, Some(error)) => format!("failed: {error}"),
                _ => "failed".to_string(),
            };
            let found = if answer.is_empty() {
                "It reported nothing before it stopped.".to_string()
            } else {
                format!("What it had found so far:\n\n{answer}")
            };
            ToolOutput::error(format!(
                "The sub-agent {} {why} before it finished. {found}\n\n{footer}",
                info.label
            ))
        }
    }
}

/// `[explore #1 · 7 tool calls · 12,345 tokens · 14.2 s · session sess_…]`:
/// the session names its transcript, which ReadSessionContext reads.
pub fn footer(info: &SubAgentInfo, summary: &SubAgentSummary) -> String {
    let tokens = summary.usage.input_tokens + summary.usage.output_tokens;
    let calls = match summary.tool_calls {
        1 => "1 tool call".to_string(),
        n => format!("{n} tool calls"),
    };
    format!(
        "[{} · {calls} · {} tokens · {:.1} s · session {}]",
        info.label,
        thousands(tokens),
        summary.elapsed_ms as f64 / 1000.0,
        info.session_id
    )
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Usage;

    fn info() -> SubAgentInfo {
        SubAgentInfo {
            label: "explore #2".into(),
            agent_type: "explore".into(),
            description: "find auth".into(),
            model: "p/m".into(),
            session_id: "sess_x".into(),
        }
    }

    fn summary(status: SubAgentStatus) -> SubAgentSummary {
        SubAgentSummary {
            status,
            tool_calls: 7,
            usage: Usage {
                input_tokens: 12_000,
                output_tokens: 345,
                ..Default::default()
            },
            elapsed_ms: 14_230,
            summary: String::new(),
        }
    }

    #[test]
    fn the_report_ends_with_a_footer_of_what_it_used() {
        let out = report(
            &info(),
            &summary(SubAgentStatus::Completed),
            "Found it at a.rs:3",
            None,
        );
        assert!(!out.is_error);
        assert_eq!(
            out.content,
            "Found it at a.rs:3\n\n[explore #2 · 7 tool calls · 12,345 tokens · 14.2 s · session sess_x]"
        );
    }

    #[test]
    fn a_cancelled_or_failed_sub_agent_says_so_and_what_it_had_found() {
        let out = report(&info(), &summary(SubAgentStatus::Cancelled), "half", None);
        assert!(out.is_error);
        assert!(out.content.starts_with(
            "The sub-agent explore #2 was cancelled (the user interrupted) before it finished. What it had found so far:\n\nhalf"
        ));
        let out = report(
            &info(),
            &summary(SubAgentStatus::Failed),
            "",
            Some("HTTP 500"),
        );
        assert!(
            out.content
                .contains("failed: HTTP 500 before it finished. It reported nothing")
        );
        assert_eq!(
            summary_line(SubAgentStatus::Failed, "", Some("HTTP 500")),
            "failed: HTTP 500"
        );
        assert_eq!(
            summary_line(SubAgentStatus::Completed, "\n  first\nsecond", None),
            "first"
        );
    }
}
