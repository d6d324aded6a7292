//! Scripted sub-agents for the fake model server: a request whose system
//! prompt says it comes from a sub-agent is answered from that agent's
//! script (chosen by a word of its task, stepped by how many replies it
//! already has); the parent's requests take the server's queue.

use super::fake_model_server::{FakeModelServer, Gate, RecordedRequest, Reply, sse};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// The line every sub-agent's system prompt carries.
pub const SUB_AGENT_MARK: &str = "# Working as a sub-agent";

/// The system prompt of a request, in either dialect.
pub fn system_prompt(request: &RecordedRequest) -> String {
    let body = request.json();
    if let Some(system) = body["system"].as_str() {
        return system.to_string();
    }
    if let Some(blocks) = body["system"].as_array() {
        return blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
    }
    body["messages"]
        .as_array()
        .and_then(|m| m.first())
        .filter(|m| m["role"] == "system")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

pub fn is_sub_agent(request: &RecordedRequest) -> bool {
    system_prompt(request).contains(SUB_AGENT_MARK)
}

/// The text of the first user message (a sub-agent's task).
pub fn first_user_text(request: &RecordedRequest) -> String {
    let body = request.json();
    for m in body["messages"].as_array().into_iter().flatten() {
        if m["role"] != "user" {
            continue;
        }
        return match &m["content"] {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
    }
    String::new()
}

/// How many replies of its own the request's conversation already has.
pub fn assistant_turns(request: &RecordedRequest) -> usize {
    request.json()["messages"]
        .as_array()
        .map(|m| m.iter().filter(|m| m["role"] == "assistant").count())
        .unwrap_or(0)
}

/// The names of the tools a request offers.
pub fn tool_names(request: &RecordedRequest) -> Vec<String> {
    request.json()["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            t["function"]["name"]
                .as_str()
                .or_else(|| t["name"].as_str())
                .map(str::to_string)
        })
        .collect()
}

/// Answers sub-agents' requests from `scripts`: the key is a word of the
/// task, the replies its steps in order (the last repeats).
pub fn route(server: &FakeModelServer, scripts: HashMap<String, Vec<Reply>>) {
    server.guard(move |request| {
        if !is_sub_agent(request) {
            return None;
        }
        let task = first_user_text(request);
        let (_, steps) = scripts
            .iter()
            .find(|(key, _)| task.contains(key.as_str()))?;
        let step = assistant_turns(request).min(steps.len().saturating_sub(1));
        steps.get(step).cloned()
    });
}

/// The arguments of an Agent call starting `agent` on `topic`.
pub fn agent_args(agent: &str, topic: &str) -> String {
    serde_json::json!({
        "description": format!("find {topic}"),
        "prompt": format!("Find {topic} in the code."),
        "subagent_type": agent,
    })
    .to_string()
}

/// Queues the parent's reply starting these agents, each given as
/// `(call id, agent, topic)`.
pub fn enqueue_agent_calls(server: &FakeModelServer, calls: &[(&str, &str, &str)]) {
    let args: Vec<(String, String)> = calls
        .iter()
        .map(|(id, agent, topic)| (id.to_string(), agent_args(agent, topic)))
        .collect();
    let calls: Vec<(&str, &str, &str)> = args
        .iter()
        .map(|(id, args)| (id.as_str(), "Agent", args.as_str()))
        .collect();
    server.enqueue(Reply::sse(sse::openai_tool_calls("", &calls)));
}

/// Explore agents on `topics`: each greps for its topic once (that reply
/// held by `gate`, when given, until all of them asked), then reports
/// `{topic} lives in lib.rs:1`.
pub fn route_explorers(server: &FakeModelServer, topics: &[&str], gate: Option<&Arc<Gate>>) {
    let mut scripts = HashMap::new();
    for topic in topics {
        let grep = serde_json::json!({"pattern": topic}).to_string();
        let first = Reply::sse(sse::openai_tool_calls(
            "",
            &[(&format!("g_{topic}"), "Grep", &grep)],
        ));
        scripts.insert(
            topic.to_string(),
            vec![
                match gate {
                    Some(gate) => first.gated(gate),
                    None => first,
                },
                Reply::sse(sse::openai_text(&format!("{topic} lives in lib.rs:1"))),
            ],
        );
    }
    route(server, scripts);
}

/// Agents on `topics` whose first requests are held until the test ends
/// (an interrupt is what releases them).
pub fn route_held(server: &FakeModelServer, topics: &[&str]) {
    let never = Gate::new(usize::MAX);
    let scripts = topics
        .iter()
        .map(|topic| {
            let reply = Reply::sse(sse::openai_text("late")).gated(&never);
            (topic.to_string(), vec![reply])
        })
        .collect();
    route(server, scripts);
}

/// Starts two explore agents whose requests are held, waits until the
/// server has the parent's request and both of theirs, then interrupts
/// the turn and waits for its end.
#[cfg(unix)]
pub async fn interrupt_two_held_explorers(h: &mut super::runtime_harness::Harness) {
    route_held(&h.server, &["alpha", "beta"]);
    enqueue_agent_calls(
        &h.server,
        &[("a1", "explore", "alpha"), ("a2", "explore", "beta")],
    );
    h.input("go");
    assert!(
        h.server
            .wait_for_requests(3, std::time::Duration::from_secs(30))
            .await
    );
    h.interrupt();
    assert_eq!(
        h.turn_finished().await.0,
        zcode::protocol::TurnEnd::Interrupted
    );
}
