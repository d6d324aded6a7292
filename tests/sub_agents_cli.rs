//! Sub-agents through the real binary: `zcode -p` in plan mode runs three
//! explore agents at once and reports them in its stream; `zcode sessions
//! list --all` shows their transcripts under their parent.

#![cfg(unix)]

mod support;

use serde_json::{Value, json};
use std::collections::HashMap;
use support::fake_model_server::{FakeModelServer, Gate, Reply, sse};
use support::headless::{Harness, Run, openai_env};
use support::sub_agent_script;

/// Three explore agents whose first requests must overlap, each grepping
/// once, then reporting; the parent then answers with its plan.
fn script_three_explorers(server: &FakeModelServer) -> std::sync::Arc<Gate> {
    let gate = Gate::new(3);
    sub_agent_script::route_explorers(server, &["alpha", "beta", "gamma"], Some(&gate));
    sub_agent_script::enqueue_agent_calls(
        server,
        &[
            ("a1", "explore", "alpha"),
            ("a2", "explore", "beta"),
            ("a3", "explore", "gamma"),
        ],
    );
    server.enqueue(Reply::sse(sse::openai_text("Plan:\n1. Rename alpha.")));
    gate
}

/// A headless run in plan mode that starts the three explore agents.
async fn plan_with_three_explorers(h: &Harness, server: &FakeModelServer) -> Run {
    let run = h
        .run(
            &["-p", "plan the rename", "--mode", "plan"],
            &openai_env(server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    run
}

#[tokio::test(flavor = "multi_thread")]
async fn plan12_headless_plan_mode_runs_three_explore_agents_at_once() {
    let h = Harness::new();
    std::fs::write(h.project().join("lib.rs"), "fn alpha() {}\n").unwrap();
    let server = FakeModelServer::start().await;
    let gate = script_three_explorers(&server);
    let run = h
        .run(
            &[
                "-p",
                "plan the rename",
                "--mode",
                "plan",
                "--output-format",
                "stream-json",
            ],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(gate.all_met(), "the sub-agents' requests overlapped\n{run}");
    let events: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let of_type = |t: &str| -> Vec<&Value> { events.iter().filter(|e| e["type"] == t).collect() };
    let started = of_type("sub_agent_started");
    let mut parents: Vec<&str> = started
        .iter()
        .map(|e| e["parent_tool_use_id"].as_str().unwrap())
        .collect();
    parents.sort();
    assert_eq!(parents, ["a1", "a2", "a3"]);
    // Every event of a sub-agent names the call that started it.
    let inner = of_type("sub_agent_event");
    assert!(
        inner
            .iter()
            .any(|e| e["event"]["type"] == "tool_call_finished"
                && e["event"]["tool"] == "Grep"
                && e["parent_tool_use_id"].is_string())
    );
    assert!(inner.iter().all(|e| e["parent_tool_use_id"].is_string()));
    let done = of_type("sub_agent_finished");
    assert_eq!(done.len(), 3);
    assert!(done.iter().all(|e| e["summary"]["status"] == "completed"));
    let result = events.last().unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["result"], "Plan:\n1. Rename alpha.");
    // No question reached anyone, and nothing was denied.
    assert_eq!(result["denials"], json!([]), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_list_shows_sub_agents_under_their_parent_with_all_only() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let _gate = script_three_explorers(&server);
    plan_with_three_explorers(&h, &server).await;
    let list = h.run(&["sessions", "list"], &[]).await;
    assert_eq!(list.stdout.lines().count(), 1, "{list}");
    assert!(!list.stdout.contains("explore #"), "{list}");
    let all = h.run(&["sessions", "list", "--all"], &[]).await;
    let lines: Vec<&str> = all.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{all}");
    for line in &lines[1..] {
        assert!(
            line.starts_with("  └ sess_") && line.contains("explore #"),
            "{all}"
        );
    }
    let json_all = h.run(&["sessions", "list", "--all", "--json"], &[]).await;
    let rows: Value = serde_json::from_str(&json_all.stdout).unwrap();
    assert_eq!(rows[0]["subAgents"].as_array().unwrap().len(), 3);
    assert_eq!(rows[0]["subAgents"][0]["summary"]["status"], "completed");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sub_agents_transcript_cannot_be_resumed_as_a_session_of_its_own() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let _gate = script_three_explorers(&server);
    plan_with_three_explorers(&h, &server).await;
    let parent = h.sessions()[0].id.clone();
    let child = h.store().sub_agents_of(&parent).unwrap()[0]
        .link
        .session_id
        .clone();
    let resumed = h
        .run(&["-p", "go on", "--resume", &child], &openai_env(&server))
        .await;
    assert_ne!(resumed.code, Some(0), "{resumed}");
    assert!(
        resumed.stderr.contains(&format!(
            "session {child} is the transcript of the sub-agent explore #"
        )) && resumed.stderr.contains(&format!("resume {parent}")),
        "{resumed}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_claude_code_agent_file_is_listed_and_runs_with_its_own_tools() {
    let h = Harness::new();
    let agents = h.project().join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    // As Claude Code users write them: not valid YAML (an unquoted colon
    // and an example block), a model alias this catalog lacks, a color.
    std::fs::write(
        agents.join("reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews code for bugs. Examples: <example>user: \"review\" assistant: \"using reviewer\"</example>\ntools: Read, Grep\nmodel: sonnet\ncolor: blue\n---\nYou are a strict code reviewer. Report bugs with file:line.\n",
    )
    .unwrap();
    // A file taking a built-in agent's name is left out, and said.
    std::fs::write(
        agents.join("explore.md"),
        "---\nname: Explore\ndescription: mine\n---\nbody\n",
    )
    .unwrap();
    let server = FakeModelServer::start().await;
    let mut scripts = HashMap::new();
    scripts.insert(
        "lib.rs".to_string(),
        vec![Reply::sse(sse::openai_text("No bugs in lib.rs."))],
    );
    sub_agent_script::route(&server, scripts);
    let args = json!({
        "description": "review lib.rs",
        "prompt": "Review lib.rs.",
        "subagent_type": "reviewer",
    })
    .to_string();
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls("", &[("r1", "Agent", &args)])),
        Reply::sse(sse::openai_text("The reviewer found no bugs.")),
    ]);
    let run = h.run(&["-p", "review my code"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    let requests = server.requests();
    let parent = &requests[0];
    let body = parent.body_text();
    assert!(
        body.contains("- reviewer: Reviews code for bugs. Examples: <example>"),
        "{body}"
    );
    let sub = requests
        .iter()
        .find(|r| sub_agent_script::is_sub_agent(r))
        .expect("the reviewer made a request");
    let mut tools = sub_agent_script::tool_names(sub);
    tools.sort();
    assert_eq!(tools, ["Grep", "Read"]);
    assert!(sub_agent_script::system_prompt(sub).starts_with("You are a strict code reviewer."));
    assert!(run.stderr.contains("Agent left out: "), "{run}");
    assert!(run.stderr.contains("explore.md"), "{run}");
    assert!(
        run.stderr.contains("agent reviewer")
            && run.stderr.contains("model \"sonnet\" is not available"),
        "{run}"
    );
    assert!(run.stdout.contains("The reviewer found no bugs."), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn model3_an_unknown_model_for_a_sub_agent_is_an_error_pointing_to_list_models() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let args = json!({
        "description": "find alpha",
        "prompt": "Find alpha.",
        "subagent_type": "explore",
        "model": "no-such-model",
    })
    .to_string();
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls("", &[("a1", "Agent", &args)])),
        Reply::sse(sse::openai_text("No such model.")),
    ]);
    let run = h.run(&["-p", "go"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    let result = support::fake_model_server::openai_tool_result(&server.requests()[1].json(), "a1");
    assert!(
        result.starts_with("Cannot use model \"no-such-model\" for the sub-agent: ")
            && result.ends_with("Call ListModels to see the models you can choose."),
        "{result}"
    );
    // No sub-agent started.
    assert_eq!(server.request_count(), 2);
}
