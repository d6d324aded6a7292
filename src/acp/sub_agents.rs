//! Sub-agents in the client. A client that supports ACP's sub-agent
//! sessions gets each one as a child session: announced on the parent with
//! a `subagent_update`, then its own messages and tool calls as updates of
//! the child's session id, then its end. Any other client sees the
//! sub-agent's progress as the content of the Agent call: one line per
//! tool call, so the call does not look stuck.

use super::updates::UpdateMapper;
use crate::protocol::{Event, SubAgentInfo, SubAgentStatus, SubAgentSummary};
use agent_client_protocol::v1::schema::{
    ErrorStopReason, IdleStateUpdate, IdleStopReason, RunningStateUpdate, SessionUpdate,
    StateUpdate, SubagentUpdate, ToolCallContent, ToolCallUpdate, ToolCallUpdateFields,
};
use serde_json::json;
use std::collections::HashMap;
use std::path::PathBuf;

/// How many of a sub-agent's lines the Agent call shows (the latest).
const PROGRESS_LINES: usize = 12;

/// One running sub-agent, by the Agent call that started it.
struct Child {
    info: SubAgentInfo,
    mapper: UpdateMapper,
    lines: Vec<String>,
}

/// Updates bound for a session: the parent's or a child's.
pub struct Routed {
    /// `None`: the parent session.
    pub session_id: Option<String>,
    pub update: SessionUpdate,
}

/// The sub-agents of one session.
pub struct SubAgents {
    child_sessions: bool,
    workspace: PathBuf,
    children: HashMap<String, Child>,
}

impl SubAgents {
    /// `child_sessions`: the client announced ACP sub-agent support.
    pub fn new(child_sessions: bool, workspace: PathBuf) -> Self {
        Self {
            child_sessions,
            workspace,
            children: HashMap::new(),
        }
    }

    /// The updates of a sub-agent event; other events give none.
    pub fn map(&mut self, event: &Event) -> Vec<Routed> {
        match event {
            Event::SubAgentStarted {
                parent_tool_use_id,
                agent,
            } => {
                self.children.insert(
                    parent_tool_use_id.clone(),
                    Child {
                        info: agent.clone(),
                        mapper: UpdateMapper::new(self.workspace.clone()),
                        lines: Vec::new(),
                    },
                );
                if self.child_sessions {
                    vec![parent(SessionUpdate::SubagentUpdate(
                        announce(agent, parent_tool_use_id)
                            .state(StateUpdate::Running(RunningStateUpdate::new())),
                    ))]
                } else {
                    Vec::new()
                }
            }
            Event::SubAgentEvent {
                parent_tool_use_id,
                event,
                ..
            } => {
                let child_sessions = self.child_sessions;
                let Some(child) = self.children.get_mut(parent_tool_use_id) else {
                    return Vec::new();
                };
                if child_sessions {
                    let id = child.info.session_id.clone();
                    child
                        .mapper
                        .map(event)
                        .into_iter()
                        .map(|update| Routed {
                            session_id: Some(id.clone()),
                            update,
                        })
                        .collect()
                } else {
                    match progress_line(&mut child.mapper, event) {
                        Some(line) => {
                            child.lines.push(line);
                            vec![parent(progress(parent_tool_use_id, child))]
                        }
                        None => Vec::new(),
                    }
                }
            }
            Event::SubAgentFinished {
                parent_tool_use_id,
                summary,
                ..
            } => {
                let Some(child) = self.children.remove(parent_tool_use_id) else {
                    return Vec::new();
                };
                if self.child_sessions {
                    vec![parent(SessionUpdate::SubagentUpdate(
                        SubagentUpdate::new(child.info.session_id.clone())
                            .state(StateUpdate::Idle(finished(summary))),
                    ))]
                } else {
                    Vec::new()
                }
            }
            _ => Vec::new(),
        }
    }
}

fn parent(update: SessionUpdate) -> Routed {
    Routed {
        session_id: None,
        update,
    }
}

/// The child's announcement: its title, what it was asked, and the call
/// that started it.
fn announce(agent: &SubAgentInfo, parent_call: &str) -> SubagentUpdate {
    let mut meta = serde_json::Map::new();
    meta.insert(
        "zcode".into(),
        json!({
            "parentToolCallId": parent_call,
            "agentType": agent.agent_type,
            "model": agent.model,
        }),
    );
    SubagentUpdate::new(agent.session_id.clone())
        .title(agent.label.clone())
        .description(agent.description.clone())
        .meta(meta)
}

fn finished(summary: &SubAgentSummary) -> IdleStateUpdate {
    let reason = match summary.status {
        SubAgentStatus::Completed => IdleStopReason::EndTurn,
        SubAgentStatus::Cancelled => IdleStopReason::Cancelled,
        SubAgentStatus::Failed => IdleStopReason::Error(ErrorStopReason::new()),
    };
    let mut meta = serde_json::Map::new();
    meta.insert(
        "zcode".into(),
        json!({
            "summary": summary.summary,
            "toolCalls": summary.tool_calls,
            "inputTokens": summary.usage.input_tokens,
            "outputTokens": summary.usage.output_tokens,
            "elapsedMs": summary.elapsed_ms,
        }),
    );
    IdleStateUpdate::new().stop_reason(reason).meta(meta)
}

/// A line for a client without child sessions: a tool call started or
/// refused.
fn progress_line(mapper: &mut UpdateMapper, event: &Event) -> Option<String> {
    match event {
        Event::ToolCallStarted { tool, input, .. } => Some(format!(
            "▸ {}",
            super::tool_calls::title(tool, input, mapper.workspace())
        )),
        Event::ToolCallDenied { denial } => {
            Some(format!("✗ {} denied: {}", denial.tool, denial.reason))
        }
        _ => None,
    }
}

fn progress(parent_call: &str, child: &Child) -> SessionUpdate {
    let start = child.lines.len().saturating_sub(PROGRESS_LINES);
    let text = format!("{}\n{}", child.info.label, child.lines[start..].join("\n"));
    SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
        parent_call.to_string(),
        ToolCallUpdateFields::new().content(vec![ToolCallContent::from(text)]),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Usage;
    use serde_json::Value;

    fn info() -> SubAgentInfo {
        SubAgentInfo {
            label: "explore #1".into(),
            agent_type: "explore".into(),
            description: "find the parser".into(),
            model: "p/m".into(),
            session_id: "sess_child".into(),
        }
    }

    fn child_event(event: Event) -> Event {
        Event::SubAgentEvent {
            parent_tool_use_id: "call_agent".into(),
            label: "explore #1".into(),
            event: Box::new(event),
        }
    }

    fn run(child_sessions: bool) -> Vec<(Option<String>, Value)> {
        let mut agents = SubAgents::new(child_sessions, "/w".into());
        let mut out = Vec::new();
        let events = [
            Event::SubAgentStarted {
                parent_tool_use_id: "call_agent".into(),
                agent: info(),
            },
            child_event(Event::AssistantDelta {
                text: "Looking".into(),
            }),
            child_event(Event::ToolCallStarted {
                call_id: "c1".into(),
                tool: "Grep".into(),
                input: serde_json::json!({"pattern": "fn parse"}),
            }),
            Event::SubAgentFinished {
                parent_tool_use_id: "call_agent".into(),
                label: "explore #1".into(),
                summary: SubAgentSummary {
                    status: SubAgentStatus::Completed,
                    tool_calls: 1,
                    usage: Usage::default(),
                    elapsed_ms: 10,
                    summary: "found it".into(),
                },
            },
        ];
        for e in &events {
            for r in agents.map(e) {
                out.push((r.session_id, serde_json::to_value(&r.update).unwrap()));
            }
        }
        out
    }

    #[test]
    fn acp_a_sub_agent_is_a_child_session_where_the_client_has_them() {
        let out = run(true);
        assert_eq!(out[0].0, None);
        assert_eq!(out[0].1["sessionUpdate"], "subagent_update");
        assert_eq!(out[0].1["sessionId"], "sess_child");
        assert_eq!(out[0].1["title"], "explore #1");
        assert_eq!(out[0].1["_meta"]["zcode"]["parentToolCallId"], "call_agent");
        // Its own traffic goes to its own session id.
        assert!(
            out[1..out.len() - 1]
                .iter()
                .all(|(id, _)| id.as_deref() == Some("sess_child"))
        );
        assert_eq!(out[1].1["sessionUpdate"], "agent_message_chunk");
        let last = &out[out.len() - 1];
        assert_eq!(last.0, None);
        assert_eq!(last.1["state"]["stopReason"], "end_turn");
    }

    #[test]
    fn acp_a_sub_agent_shows_as_progress_of_its_call_elsewhere() {
        let out = run(false);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].0, None);
        assert_eq!(out[0].1["toolCallId"], "call_agent");
        let text = out[0].1["content"][0]["content"]["text"].as_str().unwrap();
        assert_eq!(text, "explore #1\n▸ Grep fn parse");
    }
}
