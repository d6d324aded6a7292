//! The sub-agents of a `zcode -p` run: the stderr lines of their start and
//! end (never their inner tool calls), and their figures for the result
//! object, whose `usage` stays the run's total.

use crate::figures::agent_figures;
use crate::model::Usage;
use crate::protocol::{Event, SubAgentInfo, SubAgentStatus, SubAgentSummary};
use crate::terminal_text::neutralize_controls;
use serde::Serialize;

/// One sub-agent as the result object reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SubAgentResult {
    pub label: String,
    pub agent_type: String,
    /// `completed`, `failed` or `cancelled` (one the run ended before it
    /// did counts as cancelled).
    pub status: SubAgentStatus,
    pub tool_calls: u32,
    pub usage: Usage,
    pub elapsed_ms: u64,
}

#[derive(Debug)]
struct Run {
    call_id: String,
    result: SubAgentResult,
    finished: bool,
}

/// The sub-agents seen so far, in the order they started.
#[derive(Debug, Default)]
pub struct SubAgents {
    runs: Vec<Run>,
}

impl SubAgents {
    /// `SubAgentStarted`: its stderr line, "▸ explore #1: find auth code
    /// (provider/model)".
    pub fn started(&mut self, call_id: &str, info: &SubAgentInfo) -> String {
        self.runs.push(Run {
            call_id: call_id.to_string(),
            result: SubAgentResult {
                label: info.label.clone(),
                agent_type: info.agent_type.clone(),
                status: SubAgentStatus::Cancelled,
                tool_calls: 0,
                usage: Usage::default(),
                elapsed_ms: 0,
            },
            finished: false,
        });
        neutralize_controls(&format!(
            "▸ {}: {} ({})",
            info.label,
            one_line(&info.description),
            info.model
        ))
    }

    /// One of its own events: its tool calls and tokens so far, for an
    /// agent the run ends before.
    pub fn inner(&mut self, call_id: &str, event: &Event) {
        let Some(run) = self.run_mut(call_id) else {
            return;
        };
        match event {
            Event::ToolCallStarted { .. } => {
                run.result.tool_calls = run.result.tool_calls.saturating_add(1)
            }
            Event::Usage { usage, .. } => run.result.usage.add(*usage),
            _ => {}
        }
    }

    /// `SubAgentFinished`: its stderr line, "◂ explore #1 done: 7 tool
    /// calls · 12k tokens · 14 s", with why it stopped when it failed or
    /// was cancelled.
    pub fn finished(&mut self, call_id: &str, label: &str, summary: &SubAgentSummary) -> String {
        if let Some(run) = self.run_mut(call_id) {
            run.finished = true;
            run.result.status = summary.status;
            run.result.tool_calls = summary.tool_calls;
            run.result.usage = summary.usage;
            run.result.elapsed_ms = summary.elapsed_ms;
        }
        let figures = agent_figures(summary.tool_calls, summary.usage, summary.elapsed_ms);
        let line = match summary.status {
            SubAgentStatus::Completed => format!("◂ {label} done: {figures}"),
            SubAgentStatus::Failed => format!("◂ {label} failed: {figures}"),
            SubAgentStatus::Cancelled => format!("◂ {label} cancelled: {figures}"),
        };
        let why = one_line(&summary.summary);
        let line = if summary.status == SubAgentStatus::Completed || why.is_empty() {
            line
        } else {
            format!("{line} · {why}")
        };
        neutralize_controls(&line)
    }

    /// Whether one runs now: the session's usage reports are then its
    /// requests, not replies of the session's own model.
    pub fn any_running(&self) -> bool {
        self.runs.iter().any(|r| !r.finished)
    }

    /// Every sub-agent of the run, in the order they started.
    pub fn results(&self) -> Vec<SubAgentResult> {
        self.runs.iter().map(|r| r.result.clone()).collect()
    }

    fn run_mut(&mut self, call_id: &str) -> Option<&mut Run> {
        self.runs.iter_mut().rev().find(|r| r.call_id == call_id)
    }
}

/// A text on one line: its lines joined with spaces.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
