//! The sub-agent cells fed with what the runtime really sends: three
//! explore agents at once in plan mode, a general-purpose agent's Bash
//! call asking in the session's queue, an interrupt cancelling agents.
//! The runtime's events (recorded by the harness) go through `update`
//! as the TUI's loop would pass them.

#![cfg(unix)]

mod support;

use serde_json::json;
use std::collections::HashMap;
use support::fake_model_server::Gate;
use support::runtime_harness::{Dialect, Setup};
use support::sub_agent_script;
use support::tui::screen;
use zcode::permission::mode::Mode;
use zcode::protocol::{Event, PermissionReply, SubAgentStatus, TurnEnd};
use zcode::tui::cells::{AgentGroup, Cell};
use zcode::tui::{Model, Msg, update};

/// A TUI model that has seen `events`.
fn shown(events: &[Event], width: u16, height: u16) -> Model {
    let mut m = Model::new(width, height);
    update(&mut m, Msg::Tick(std::time::Instant::now()));
    for event in events {
        update(&mut m, Msg::Runtime(event.clone()));
    }
    m
}

fn groups(m: &Model) -> Vec<&AgentGroup> {
    m.cells
        .iter()
        .filter_map(|c| match c {
            Cell::Agents(g) => Some(g),
            _ => None,
        })
        .collect()
}

fn agent_tool_cells(m: &Model) -> usize {
    m.cells
        .iter()
        .filter(|c| matches!(c, Cell::Tool { tool, .. } if tool == "Agent"))
        .count()
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_three_parallel_explore_agents_show_as_one_finished_group() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build)
        .plan()
        .start()
        .await;
    std::fs::write(h.workspace.join("lib.rs"), "fn alpha() {}\nfn beta() {}\n").unwrap();
    let gate = Gate::new(3);
    sub_agent_script::route_explorers(&h.server, &["alpha", "beta", "gamma"], Some(&gate));
    sub_agent_script::enqueue_agent_calls(
        &h.server,
        &[
            ("a1", "explore", "alpha"),
            ("a2", "explore", "beta"),
            ("a3", "explore", "gamma"),
        ],
    );
    h.enqueue_text("Plan: 1. rename alpha");
    h.input("plan the rename");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);

    let m = shown(&h.log, 100, 30);
    let groups = groups(&m);
    assert_eq!(groups.len(), 1, "{:#?}", m.cells);
    let group = groups[0];
    assert_eq!(group.agents.len(), 3);
    for agent in &group.agents {
        let summary = agent.finished.as_ref().expect("ended");
        assert_eq!(summary.status, SubAgentStatus::Completed);
        assert_eq!(agent.tool_calls, 1, "{}", agent.info.label);
        assert!(!agent.output.is_empty(), "the result the model read");
    }
    assert_eq!(agent_tool_cells(&m), 0, "each Agent call became its agent");
    let text = screen(&m, 100, 30);
    assert!(text.contains("3 agents · 3 done"), "{text}");
    assert!(text.contains("lives in lib.rs:1"), "{text}");
    // The todo sidebar and the status line's context stay the session's.
    assert!(m.todos.is_empty());
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_a_general_purpose_agents_bash_asks_with_its_label_in_the_panel() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    let touch = json!({"command": "touch made-by-agent"}).to_string();
    let mut scripts = HashMap::new();
    scripts.insert(
        "alpha".to_string(),
        vec![
            h.tool_calls_reply(&[("t1", "Bash", &touch)]),
            h.text_reply("made it"),
        ],
    );
    sub_agent_script::route(&h.server, scripts);
    sub_agent_script::enqueue_agent_calls(&h.server, &[("a1", "general-purpose", "alpha")]);
    h.enqueue_text("ok");
    h.input("go");
    let request = h.permission_request().await;

    let m = shown(&h.log, 80, 24);
    assert_eq!(
        m.approvals.len(),
        1,
        "the request is in the session's queue"
    );
    let text = screen(&m, 80, 24);
    assert!(
        text.contains("general-purpose #1 · Bash runs"),
        "the panel names the agent: {text}"
    );
    assert!(!text.contains("Full access"), "{text}");
    assert!(text.contains("waiting for you"), "{text}");
    assert!(groups(&m)[0].agents[0].waiting);

    h.reply(&request.request_id, PermissionReply::AllowOnce);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let m = shown(&h.log, 80, 24);
    assert!(m.approvals.is_empty(), "the panel closed");
    let agent = &groups(&m)[0].agents[0];
    assert!(!agent.waiting);
    assert_eq!(
        agent.finished.as_ref().map(|s| s.status),
        Some(SubAgentStatus::Completed)
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_interrupting_shows_every_running_agent_cancelled() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    sub_agent_script::interrupt_two_held_explorers(&mut h).await;

    let m = shown(&h.log, 80, 24);
    let group = groups(&m)[0];
    assert_eq!(group.agents.len(), 2);
    assert!(
        group
            .agents
            .iter()
            .all(|a| { a.finished.as_ref().map(|s| s.status) == Some(SubAgentStatus::Cancelled) })
    );
    let text = screen(&m, 80, 24);
    assert!(text.contains("2 agents · 2 cancelled"), "{text}");
    h.shutdown().await;
}
