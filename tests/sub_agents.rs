//! Sub-agents in the runtime: the Agent tool's explore and general-purpose
//! agents, run in parallel, under the parent's permissions, cancelled with
//! it, persisted as sessions of their own.

#![cfg(unix)]

mod support;

use serde_json::json;
use std::collections::HashMap;
use support::fake_model_server::{Gate, Reply};
use support::runtime_harness::{Dialect, Harness, Setup};
use support::sub_agent_script::{self, SUB_AGENT_MARK};
use zcode::permission::mode::Mode;
use zcode::protocol::{Event, PermissionReply, SubAgentStatus, TurnEnd};

fn started(h: &Harness) -> Vec<(String, String)> {
    h.log
        .iter()
        .filter_map(|e| match e {
            Event::SubAgentStarted {
                parent_tool_use_id,
                agent,
            } => Some((parent_tool_use_id.clone(), agent.label.clone())),
            _ => None,
        })
        .collect()
}

fn finished(h: &Harness) -> Vec<(String, SubAgentStatus)> {
    h.log
        .iter()
        .filter_map(|e| match e {
            Event::SubAgentFinished {
                parent_tool_use_id,
                summary,
                ..
            } => Some((parent_tool_use_id.clone(), summary.status)),
            _ => None,
        })
        .collect()
}

/// The parent's requests (not the sub-agents'), in order.
fn parent_requests(h: &Harness) -> Vec<usize> {
    h.server
        .requests()
        .iter()
        .enumerate()
        .filter(|(_, r)| r.method == "POST" && !sub_agent_script::is_sub_agent(r))
        .map(|(i, _)| i)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn plan12_three_explore_agents_run_in_parallel_in_plan_mode_and_report_back() {
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
            ("a3", "Explore", "gamma"),
        ],
    );
    h.enqueue_text("Plan: 1. rename alpha");
    h.input("plan the rename");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);

    assert!(gate.all_met(), "the three sub-agents' requests overlapped");
    let mut labels: Vec<String> = started(&h).into_iter().map(|(_, l)| l).collect();
    labels.sort();
    assert_eq!(labels, ["explore #1", "explore #2", "explore #3"]);
    let ends = finished(&h);
    assert_eq!(ends.len(), 3);
    assert!(ends.iter().all(|(_, s)| *s == SubAgentStatus::Completed));
    // Nothing a read-only agent ran was put to the user, and plan stayed on.
    assert_eq!(
        h.count(|e| matches!(e, Event::PermissionRequested { .. })),
        0
    );
    assert!(h.log.iter().any(|e| matches!(e,
        Event::SubAgentEvent { event, .. }
            if matches!(&**event, Event::ToolCallFinished { tool, is_error: false, .. } if tool == "Grep"))));
    // The parent's second request carries the three reports, in call order.
    let parent = parent_requests(&h);
    assert_eq!(parent.len(), 2);
    let results = h.tool_results(parent[1]);
    let ids: Vec<&str> = results.iter().map(|r| r.call_id.as_str()).collect();
    assert_eq!(ids, ["a1", "a2", "a3"]);
    for (result, topic) in results.iter().zip(["alpha", "beta", "gamma"]) {
        assert!(
            result
                .content
                .starts_with(&format!("{topic} lives in lib.rs:1\n\n[explore #")),
            "{}",
            result.content
        );
        assert!(
            result.content.contains(" · 1 tool call · "),
            "{}",
            result.content
        );
    }
    // Each is a session of its own, linked to its call, and not listed.
    let store = h.store();
    let rows = store.sub_agents_of(&h.session_id).unwrap();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r.summary.is_some()));
    let listed = store
        .list_sessions(&Default::default(), 100)
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect::<Vec<_>>();
    assert_eq!(listed, vec![h.session_id.clone()]);
    let child = &rows[0].link.session_id;
    assert!(
        store
            .entries(child)
            .unwrap()
            .iter()
            .any(|e| e.kind == "tool_result")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn plan12_sub_agents_get_neither_plan_mode_tools_nor_agent() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    let mut scripts = HashMap::new();
    scripts.insert("alpha".to_string(), vec![h.text_reply("done")]);
    scripts.insert("beta".to_string(), vec![h.text_reply("done")]);
    sub_agent_script::route(&h.server, scripts);
    sub_agent_script::enqueue_agent_calls(
        &h.server,
        &[
            ("a1", "explore", "alpha"),
            ("a2", "general-purpose", "beta"),
        ],
    );
    h.enqueue_text("ok");
    h.input("go");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let requests = h.server.requests();
    let tools_of = |word: &str| {
        requests
            .iter()
            .find(|r| {
                sub_agent_script::is_sub_agent(r)
                    && sub_agent_script::first_user_text(r).contains(word)
            })
            .map(sub_agent_script::tool_names)
            .expect("the sub-agent made a request")
    };
    let mut explore = tools_of("alpha");
    explore.sort();
    assert_eq!(explore, ["Bash", "Glob", "Grep", "Read", "TodoRead"]);
    let general = tools_of("beta");
    for absent in ["Agent", "EnterPlanMode", "ExitPlanMode"] {
        assert!(
            !general.iter().any(|t| t == absent),
            "{absent} in {general:?}"
        );
    }
    for present in ["Write", "Edit", "Bash", "WebFetch", "TodoWrite"] {
        assert!(general.iter().any(|t| t == present), "{present} missing");
    }
    // The parent is offered the Agent tool, listing both agents.
    let parent = &requests[parent_requests(&h)[0]];
    assert!(sub_agent_script::tool_names(parent).contains(&"Agent".to_string()));
    let body = parent.body_text();
    assert!(body.contains("- explore: ") && body.contains("- general-purpose: "));
    // Its own system prompt is the agent's, with the environment facts.
    let sub = requests
        .iter()
        .find(|r| sub_agent_script::is_sub_agent(r))
        .unwrap();
    let system = sub_agent_script::system_prompt(sub);
    assert!(system.contains(SUB_AGENT_MARK) && system.contains("# Environment"));
}

#[tokio::test(flavor = "multi_thread")]
async fn explore_denies_what_is_not_read_only_and_never_asks() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Yolo).start().await;
    let touch = json!({"command": "touch made-by-explore"}).to_string();
    let write = json!({"file_path": "w.txt", "content": "x"}).to_string();
    let mut scripts = HashMap::new();
    scripts.insert(
        "alpha".to_string(),
        vec![
            h.tool_calls_reply(&[("t1", "Bash", &touch)]),
            h.tool_calls_reply(&[("t2", "Write", &write)]),
            h.text_reply("could not write"),
        ],
    );
    sub_agent_script::route(&h.server, scripts);
    sub_agent_script::enqueue_agent_calls(&h.server, &[("a1", "explore", "alpha")]);
    h.enqueue_text("ok");
    h.input("go");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(!h.workspace.join("made-by-explore").exists());
    assert!(!h.workspace.join("w.txt").exists());
    assert_eq!(
        h.count(|e| matches!(e, Event::PermissionRequested { .. })),
        0
    );
    let denials: Vec<_> = h
        .log
        .iter()
        .filter_map(|e| match e {
            Event::SubAgentEvent { event, label, .. } => match &**event {
                Event::ToolCallDenied { denial } => Some((label.clone(), denial.clone())),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        denials.len(),
        1,
        "Write is not an explore tool: {denials:?}"
    );
    assert_eq!(denials[0].0, "explore #1");
    assert_eq!(denials[0].1.agent.as_deref(), Some("explore #1"));
    assert_eq!(denials[0].1.rule_id, "agent.readOnly");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_general_purpose_agents_bash_asks_in_the_parents_queue_with_its_label() {
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
    assert_eq!(request.tool, "Bash");
    assert_eq!(request.agent.as_deref(), Some("general-purpose #1"));
    assert!(
        !request.full_access_available,
        "FULL-1: never for a sub-agent"
    );
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(h.workspace.join("made-by-agent").exists());
    let parent = parent_requests(&h);
    let result = &h.tool_results(parent[1])[0];
    assert!(
        result
            .content
            .starts_with("made it\n\n[general-purpose #1 · 1 tool call")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn interrupting_the_parent_cancels_every_running_agent() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    // Their first requests are held until the interrupt.
    sub_agent_script::interrupt_two_held_explorers(&mut h).await;
    let ends = finished(&h);
    assert_eq!(ends.len(), 2);
    assert!(ends.iter().all(|(_, s)| *s == SubAgentStatus::Cancelled));
    let results: Vec<String> = h
        .conversation()
        .iter()
        .filter(|e| e.kind == "tool_result")
        .map(|e| {
            e.payload["content"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(results.len(), 2);
    for r in results {
        assert!(r.contains("was cancelled (the user interrupted)"), "{r}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sub_agent_tokens_count_in_the_parents_usage() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    let mut scripts = HashMap::new();
    scripts.insert("alpha".to_string(), vec![h.text_reply("done")]);
    sub_agent_script::route(&h.server, scripts);
    sub_agent_script::enqueue_agent_calls(&h.server, &[("a1", "explore", "alpha")]);
    h.enqueue_text("ok");
    h.input("go");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let sub_usage = h
        .log
        .iter()
        .find_map(|e| match e {
            Event::SubAgentFinished { summary, .. } => Some(summary.usage),
            _ => None,
        })
        .unwrap();
    let total = h
        .log
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::Usage { total, .. } => Some(*total),
            _ => None,
        })
        .unwrap();
    let own: u64 = h
        .log
        .iter()
        .filter_map(|e| match e {
            Event::Usage { usage, .. } => Some(usage.input_tokens + usage.output_tokens),
            _ => None,
        })
        .sum();
    assert_eq!(
        total.input_tokens + total.output_tokens,
        own,
        "the total adds every request's usage, the sub-agent's included"
    );
    assert!(sub_usage.input_tokens + sub_usage.output_tokens > 0 || own == 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_agent_type_is_a_tool_error_naming_the_agents() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    sub_agent_script::enqueue_agent_calls(&h.server, &[("a1", "reviewer", "alpha")]);
    h.enqueue_text("ok");
    h.input("go");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let result = &h.tool_results(1)[0];
    assert_eq!(
        result.content,
        "Unknown subagent_type \"reviewer\". Available agents: explore, general-purpose."
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn agents_max_parallel_makes_the_others_wait_their_turn() {
    let mut setup = Setup::new(Dialect::OpenAi, Mode::Build);
    setup.agents = zcode::config::AgentsConfig { max_parallel: 1 };
    let mut h = setup.start().await;
    let mut scripts = HashMap::new();
    for topic in ["alpha", "beta", "gamma"] {
        let glob = json!({"pattern": format!("{topic}*")}).to_string();
        scripts.insert(
            topic.to_string(),
            vec![
                h.tool_calls_reply(&[(&format!("g_{topic}"), "Glob", &glob)]),
                h.text_reply(&format!("{topic} done")),
            ],
        );
    }
    sub_agent_script::route(&h.server, scripts);
    sub_agent_script::enqueue_agent_calls(
        &h.server,
        &[
            ("a1", "explore", "alpha"),
            ("a2", "explore", "beta"),
            ("a3", "explore", "gamma"),
        ],
    );
    h.enqueue_text("ok");
    h.input("go");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    // One at a time: each agent's two requests come together.
    let order: Vec<String> = h
        .server
        .requests()
        .iter()
        .filter(|r| sub_agent_script::is_sub_agent(r))
        .map(|r| {
            let task = sub_agent_script::first_user_text(r);
            ["alpha", "beta", "gamma"]
                .into_iter()
                .find(|t| task.contains(t))
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(order.len(), 6);
    for pair in order.chunks(2) {
        assert_eq!(pair[0], pair[1], "interleaved: {order:?}");
    }
    assert_eq!(finished(&h).len(), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_resumed_parent_replays_its_finished_sub_agents() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    let mut scripts = HashMap::new();
    scripts.insert("alpha".to_string(), vec![h.text_reply("alpha found")]);
    sub_agent_script::route(&h.server, scripts);
    sub_agent_script::enqueue_agent_calls(&h.server, &[("a1", "explore", "alpha")]);
    h.enqueue_text("ok");
    h.input("go");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let (session_id, workspace, project_id) = (
        h.session_id.clone(),
        h.workspace.clone(),
        h.project_id.clone(),
    );
    let mut store = h.store();
    h.shutdown().await;
    let opened = zcode::runtime::session::open_session(
        &mut store,
        zcode::runtime::session::OpenRequest {
            start: &zcode::runtime::session::SessionStart::Resume(session_id),
            workspace: &workspace,
            project_id: &project_id,
            model_label: "fake/fake-model",
            explicit_mode: None,
            config_mode: None,
            headless: true,
        },
    );
    let opened = opened.expect("the session resumes");
    let record = opened
        .replay
        .iter()
        .find_map(|item| match item {
            zcode::protocol::HistoryItem::Tool { sub_agent, .. } => sub_agent.clone(),
            _ => None,
        })
        .expect("the Agent call carries its sub-agent");
    assert_eq!(record.agent.label, "explore #1");
    assert_eq!(record.summary.status, SubAgentStatus::Completed);
    assert_eq!(record.summary.summary, "alpha found");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sub_agent_writes_nothing_the_parents_mode_and_rules_refuse() {
    use zcode::permission::rules::{Rule, RuleKind};
    // Plan mode: a general-purpose agent cannot write; a deny rule holds
    // for every agent.
    let mut h = Setup::new(Dialect::OpenAi, Mode::Yolo)
        .plan()
        .rule(RuleKind::Deny, Rule::with_content("Read", "secret.txt"))
        .start()
        .await;
    std::fs::write(h.workspace.join("secret.txt"), "s3cr3t").unwrap();
    let write = json!({"file_path": "w.txt", "content": "x"}).to_string();
    let read = json!({"file_path": "secret.txt"}).to_string();
    let mut scripts = HashMap::new();
    scripts.insert(
        "alpha".to_string(),
        vec![
            h.tool_calls_reply(&[("w1", "Write", &write)]),
            h.text_reply("could not"),
        ],
    );
    scripts.insert(
        "beta".to_string(),
        vec![
            h.tool_calls_reply(&[("r1", "Read", &read)]),
            h.text_reply("could not"),
        ],
    );
    sub_agent_script::route(&h.server, scripts);
    sub_agent_script::enqueue_agent_calls(
        &h.server,
        &[
            ("a1", "general-purpose", "alpha"),
            ("a2", "explore", "beta"),
        ],
    );
    h.enqueue_text("ok");
    h.input("go");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(!h.workspace.join("w.txt").exists());
    let mut denied: Vec<(String, String)> = h
        .log
        .iter()
        .filter_map(|e| match e {
            Event::SubAgentEvent { event, .. } => match &**event {
                Event::ToolCallDenied { denial } => {
                    Some((denial.tool.clone(), denial.rule_id.clone()))
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    denied.sort();
    assert_eq!(
        denied,
        [
            ("Read".to_string(), "rule.project.deny".to_string()),
            ("Write".to_string(), "mode.plan.restricted".to_string()),
        ]
    );
    assert!(!h.log_text().contains("s3cr3t"));
    assert_eq!(
        h.count(|e| matches!(e, Event::PermissionRequested { .. })),
        0
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sub_agent_whose_provider_fails_reports_it_and_the_parent_goes_on() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    let mut scripts = HashMap::new();
    scripts.insert(
        "alpha".to_string(),
        vec![Reply::json(
            400,
            &json!({"error": {"message": "model overloaded with nonsense"}}),
        )],
    );
    sub_agent_script::route(&h.server, scripts);
    sub_agent_script::enqueue_agent_calls(&h.server, &[("a1", "explore", "alpha")]);
    h.enqueue_text("carrying on");
    h.input("go");
    assert_eq!(
        h.turn_finished().await,
        (TurnEnd::Completed, Some("carrying on".to_string()))
    );
    assert_eq!(finished(&h), [("a1".to_string(), SubAgentStatus::Failed)]);
    let parent = parent_requests(&h);
    let result = &h.tool_results(parent[1])[0];
    assert!(
        result
            .content
            .starts_with("The sub-agent explore #1 failed: "),
        "{}",
        result.content
    );
    assert!(
        result
            .content
            .contains("It reported nothing before it stopped.")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn read_session_context_reads_a_sub_agents_transcript_named_in_its_footer() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    sub_agent_script::route_explorers(&h.server, &["alpha"], None);
    sub_agent_script::enqueue_agent_calls(&h.server, &[("a1", "explore", "alpha")]);
    h.enqueue_text("ok");
    h.input("go");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let report = &h.tool_results(parent_requests(&h)[1])[0].content;
    let child = report
        .rsplit("session ")
        .next()
        .and_then(|rest| rest.strip_suffix(']'))
        .expect("the footer names the session")
        .to_string();
    assert_eq!(
        child,
        h.store().sub_agents_of(&h.session_id).unwrap()[0]
            .link
            .session_id
    );
    // The parent reads it: the extraction request carries its transcript.
    let args = json!({"sessionId": child, "query": "where is alpha?"}).to_string();
    h.enqueue_tool_calls(&[("r1", "ReadSessionContext", &args)]);
    h.enqueue_text("alpha lives in lib.rs:1, says the agent");
    h.enqueue_text("done");
    let before = h.server.request_count();
    h.input("what did the agent find?");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let extraction = &h.server.requests()[before + 1];
    let body = extraction.body_text();
    assert!(body.contains("Find alpha in the code."), "{body}");
    assert!(body.contains("alpha lives in lib.rs:1"), "{body}");
}
