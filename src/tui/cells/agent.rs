//! A sub-agent's cell: what the Agent call `call_id` started (its label,
//! type, description and model), what it is doing now, its figures, and
//! its transcript, kept bounded; the Agent calls of one reply that run at
//! once form a group, drawn as one cell.

use super::{ToolStatus, first_line, input_summary, kept_lines};
use crate::model::Usage;
use crate::protocol::{
    Denial, Event, SubAgentInfo, SubAgentRecord, SubAgentStatus, SubAgentSummary, retry_line,
};
use std::time::{Duration, Instant};

/// Transcript entries an agent keeps; older ones are only counted.
const KEPT_ENTRIES: usize = 200;
/// Output lines kept per tool call of a sub-agent: its transcript is read
/// at a glance, the whole output is in its session.
const KEPT_TOOL_LINES: usize = 40;
/// Lines kept of its replies and of the result the parent read.
const KEPT_TEXT_LINES: usize = 500;

/// One entry of a sub-agent's transcript.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentEntry {
    /// The task it was given (its first user message).
    Task(String),
    Text {
        text: String,
        streaming: bool,
    },
    Tool {
        call_id: String,
        tool: String,
        summary: String,
        status: ToolStatus,
        /// The first line of the output, or the denial reason.
        detail: String,
        output: String,
    },
    Notice(String),
    Error(String),
}

/// One sub-agent.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentCell {
    /// The Agent call that started it.
    pub call_id: String,
    pub info: SubAgentInfo,
    /// How it ended: the runtime's summary, or one made here when its turn
    /// ended without it.
    pub finished: Option<SubAgentSummary>,
    /// Its tool calls so far.
    pub tool_calls: u32,
    /// Its tokens so far.
    pub usage: Usage,
    /// When it started, by the clock of the ticks (the first tick after,
    /// for a model that had seen none).
    pub started: Option<Instant>,
    /// Its time so far by that clock.
    pub elapsed: Duration,
    /// A request of one of its calls waits for the user.
    pub waiting: bool,
    pub entries: Vec<AgentEntry>,
    /// Entries dropped from the front to keep the transcript bounded.
    pub dropped: usize,
    /// What the parent model read: the Agent call's result (kept bounded).
    pub output: String,
}

impl AgentCell {
    pub fn new(call_id: String, info: SubAgentInfo, now: Option<Instant>) -> Self {
        Self {
            call_id,
            info,
            finished: None,
            tool_calls: 0,
            usage: Usage::default(),
            started: now,
            elapsed: Duration::ZERO,
            waiting: false,
            entries: Vec::new(),
            dropped: 0,
            output: String::new(),
        }
    }

    /// A finished sub-agent of a resumed session: its summary, and the
    /// result the parent model read as what expanding it shows.
    pub fn from_record(call_id: String, record: SubAgentRecord, output: &str) -> Self {
        let mut cell = Self::new(call_id, record.agent, None);
        cell.tool_calls = record.summary.tool_calls;
        cell.usage = record.summary.usage;
        cell.elapsed = Duration::from_millis(record.summary.elapsed_ms);
        cell.finished = Some(record.summary);
        cell.output = kept_lines(output, KEPT_TEXT_LINES);
        cell
    }

    pub fn is_running(&self) -> bool {
        self.finished.is_none()
    }

    /// Its time in milliseconds: the runtime's figure once it ended.
    pub fn elapsed_ms(&self) -> u64 {
        match &self.finished {
            Some(summary) => summary.elapsed_ms,
            None => u64::try_from(self.elapsed.as_millis()).unwrap_or(u64::MAX),
        }
    }

    /// The tool call it runs now, with whether it waits for the user.
    pub fn current_tool(&self) -> Option<(&str, &str)> {
        if !self.is_running() {
            return None;
        }
        self.entries.iter().rev().find_map(|e| match e {
            AgentEntry::Tool {
                tool,
                summary,
                status: ToolStatus::Running | ToolStatus::Waiting,
                ..
            } => Some((tool.as_str(), summary.as_str())),
            _ => None,
        })
    }

    /// The clock moved: returns whether the seconds shown changed.
    pub fn tick(&mut self, now: Instant) -> bool {
        if !self.is_running() {
            return false;
        }
        let started = *self.started.get_or_insert(now);
        let elapsed = now.saturating_duration_since(started);
        let changed = elapsed.as_secs() != self.elapsed.as_secs();
        self.elapsed = elapsed;
        changed
    }

    /// It ended: the runtime's summary, whose figures are the ones shown
    /// from now on.
    pub fn finish(&mut self, summary: SubAgentSummary) {
        self.tool_calls = summary.tool_calls;
        self.usage = summary.usage;
        self.finished = Some(summary);
        self.waiting = false;
        self.settle_entries(ToolStatus::Done);
    }

    /// Its turn or the parent's ended without a summary (interrupted, or
    /// the Agent call failed): ended as `status`, saying `why`.
    pub fn end_without_summary(&mut self, status: SubAgentStatus, why: String) {
        if !self.is_running() {
            return;
        }
        let summary = SubAgentSummary {
            status,
            tool_calls: self.tool_calls,
            usage: self.usage,
            elapsed_ms: self.elapsed_ms(),
            summary: why,
        };
        self.finish(summary);
    }

    /// The Agent call's result: what the parent model read.
    pub fn set_output(&mut self, output: &str) {
        self.output = kept_lines(output, KEPT_TEXT_LINES);
    }

    /// Applies one of its own events. Returns whether its collapsed rows
    /// changed (streamed text shows only in the expanded transcript).
    pub fn apply(&mut self, event: Event) -> bool {
        match event {
            Event::TurnStarted { text, .. } => {
                self.push(AgentEntry::Task(kept_lines(&text, KEPT_TEXT_LINES)));
                false
            }
            Event::AssistantDelta { text } => {
                match self.entries.last_mut() {
                    Some(AgentEntry::Text {
                        text: current,
                        streaming: true,
                    }) => current.push_str(&text),
                    _ => self.push(AgentEntry::Text {
                        text,
                        streaming: true,
                    }),
                }
                false
            }
            Event::AssistantMessage { text } => {
                let text = kept_lines(&text, KEPT_TEXT_LINES);
                match self.entries.last_mut() {
                    Some(AgentEntry::Text {
                        text: current,
                        streaming,
                    }) if *streaming => {
                        *current = text;
                        *streaming = false;
                    }
                    _ if text.is_empty() => {}
                    _ => self.push(AgentEntry::Text {
                        text,
                        streaming: false,
                    }),
                }
                false
            }
            Event::ToolCallStarted {
                call_id,
                tool,
                input,
            } => {
                self.end_streaming();
                self.tool_calls = self.tool_calls.saturating_add(1);
                self.push(AgentEntry::Tool {
                    call_id,
                    tool,
                    summary: input_summary(&input),
                    status: ToolStatus::Running,
                    detail: String::new(),
                    output: String::new(),
                });
                true
            }
            Event::ToolCallFinished {
                call_id,
                output,
                is_error,
                ..
            } => {
                let status = if is_error {
                    ToolStatus::Failed
                } else {
                    ToolStatus::Done
                };
                self.set_tool(
                    &call_id,
                    status,
                    first_line(&output),
                    kept_lines(&output, KEPT_TOOL_LINES),
                );
                true
            }
            Event::ToolCallDenied { denial } => {
                self.denied(denial);
                true
            }
            Event::Usage { usage, .. } => {
                self.usage.add(usage);
                usage.input_tokens > 0 || usage.output_tokens > 0
            }
            Event::Notice { message } => {
                self.push(AgentEntry::Notice(message));
                false
            }
            Event::Retrying {
                attempt,
                max_attempts,
                delay_ms,
                reason,
            } => {
                let line = retry_line(attempt, max_attempts, delay_ms, &reason);
                self.push(AgentEntry::Notice(line));
                false
            }
            Event::Error { message } => {
                self.push(AgentEntry::Error(message));
                false
            }
            Event::TurnFinished { .. } => {
                self.end_streaming();
                self.settle_entries(ToolStatus::Failed);
                true
            }
            // Its todo list is its own: the session's sidebar stays the
            // session's. Approvals come as the parent's own requests.
            _ => false,
        }
    }

    /// A call of it the runtime refused.
    pub fn denied(&mut self, denial: Denial) {
        let found = self.set_tool(
            &denial.call_id,
            ToolStatus::Denied,
            denial.reason.clone(),
            String::new(),
        );
        if !found {
            self.tool_calls = self.tool_calls.saturating_add(1);
            self.push(AgentEntry::Tool {
                call_id: denial.call_id,
                tool: denial.tool,
                summary: input_summary(&denial.input),
                status: ToolStatus::Denied,
                detail: denial.reason,
                output: String::new(),
            });
        }
    }

    /// Its running call waits for the user's answer, or runs again.
    pub fn set_waiting(&mut self, waiting: bool) {
        self.waiting = waiting;
        let (from, to) = if waiting {
            (ToolStatus::Running, ToolStatus::Waiting)
        } else {
            (ToolStatus::Waiting, ToolStatus::Running)
        };
        if let Some(AgentEntry::Tool { status, .. }) = self
            .entries
            .iter_mut()
            .rev()
            .find(|e| matches!(e, AgentEntry::Tool { status, .. } if *status == from))
        {
            *status = to;
        }
    }

    fn set_tool(&mut self, id: &str, to: ToolStatus, line: String, kept: String) -> bool {
        let found = self
            .entries
            .iter_mut()
            .rev()
            .find(|e| matches!(e, AgentEntry::Tool { call_id, .. } if call_id == id));
        if let Some(AgentEntry::Tool {
            status,
            detail,
            output,
            ..
        }) = found
        {
            *status = to;
            *detail = line;
            *output = kept;
            return true;
        }
        false
    }

    /// Calls still running when it ended were cut off (`to`); a finished
    /// agent's calls all ended.
    fn settle_entries(&mut self, to: ToolStatus) {
        for entry in &mut self.entries {
            if let AgentEntry::Tool { status, .. } = entry
                && matches!(status, ToolStatus::Running | ToolStatus::Waiting)
            {
                *status = to;
            }
        }
        self.end_streaming();
    }

    fn end_streaming(&mut self) {
        if let Some(AgentEntry::Text { streaming, .. }) = self.entries.last_mut() {
            *streaming = false;
        }
    }

    fn push(&mut self, entry: AgentEntry) {
        if self.entries.len() >= KEPT_ENTRIES {
            self.entries.remove(0);
            self.dropped += 1;
        }
        self.entries.push(entry);
    }
}

/// The sub-agents of one reply that ran at once, as one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentGroup {
    pub agents: Vec<AgentCell>,
    /// Showing each agent's transcript (Ctrl+O, like the tool outputs).
    pub expanded: bool,
}

impl AgentGroup {
    pub fn new(agent: AgentCell, expanded: bool) -> Self {
        Self {
            agents: vec![agent],
            expanded,
        }
    }

    pub fn running(&self) -> usize {
        self.agents.iter().filter(|a| a.is_running()).count()
    }

    /// How many ended as `status`.
    pub fn ended(&self, status: SubAgentStatus) -> usize {
        self.agents
            .iter()
            .filter(|a| a.finished.as_ref().is_some_and(|s| s.status == status))
            .count()
    }

    pub fn agent_mut(&mut self, call_id: &str) -> Option<&mut AgentCell> {
        self.agents.iter_mut().find(|a| a.call_id == call_id)
    }

    pub fn holds(&self, call_id: &str) -> bool {
        self.agents.iter().any(|a| a.call_id == call_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn info() -> SubAgentInfo {
        SubAgentInfo {
            label: "explore #1".into(),
            agent_type: "explore".into(),
            description: "find auth code".into(),
            model: "p/m".into(),
            session_id: "sess_sub".into(),
        }
    }

    #[test]
    fn ux_a_sub_agents_transcript_stays_bounded() {
        let mut agent = AgentCell::new("c1".into(), info(), None);
        for i in 0..(KEPT_ENTRIES + 30) {
            agent.apply(Event::ToolCallStarted {
                call_id: format!("t{i}"),
                tool: "Read".into(),
                input: json!({"file_path": "a.rs"}),
            });
            agent.apply(Event::ToolCallFinished {
                call_id: format!("t{i}"),
                tool: "Read".into(),
                output: "x\n".repeat(1000),
                is_error: false,
                diff: None,
                exit_code: None,
            });
        }
        assert_eq!(agent.entries.len(), KEPT_ENTRIES);
        assert_eq!(agent.dropped, 30);
        assert_eq!(agent.tool_calls as usize, KEPT_ENTRIES + 30);
        let AgentEntry::Tool { output, .. } = &agent.entries[0] else {
            panic!("a tool entry");
        };
        assert!(output.lines().count() <= KEPT_TOOL_LINES + 1);
    }

    #[test]
    fn ux_elapsed_time_follows_the_given_clock_only() {
        let t0 = Instant::now();
        let mut agent = AgentCell::new("c1".into(), info(), None);
        assert!(!agent.tick(t0), "the first tick starts the clock");
        assert!(agent.tick(t0 + Duration::from_millis(1500)));
        assert!(!agent.tick(t0 + Duration::from_millis(1900)));
        assert_eq!(agent.elapsed_ms(), 1900);
    }
}
