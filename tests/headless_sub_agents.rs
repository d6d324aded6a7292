//! What `zcode -p` says of sub-agents, through the real binary: one
//! stderr line per agent start and end in text output (never their own
//! tool calls), and each agent's figures in the JSON result, whose usage
//! and turn count stay the run's.

#![cfg(unix)]

mod support;

use serde_json::Value;
use support::fake_model_server::{FakeModelServer, Reply, sse};
use support::headless::{Harness, openai_env};
use support::sub_agent_script;

/// Two explore agents, each grepping once then reporting; the parent then
/// answers.
fn script_two_explorers(server: &FakeModelServer) {
    sub_agent_script::route_explorers(server, &["alpha", "beta"], None);
    sub_agent_script::enqueue_agent_calls(
        server,
        &[("a1", "explore", "alpha"), ("a2", "explore", "beta")],
    );
    server.enqueue(Reply::sse(sse::openai_text("Both live in lib.rs.")));
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_text_output_has_one_line_per_sub_agent_start_and_end() {
    let h = Harness::new();
    std::fs::write(h.project().join("lib.rs"), "fn alpha() {}\nfn beta() {}\n").unwrap();
    let server = FakeModelServer::start().await;
    script_two_explorers(&server);
    let run = h
        .run(&["-p", "where are alpha and beta?"], &openai_env(&server))
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout.trim(), "Both live in lib.rs.", "{run}");
    let lines: Vec<&str> = run.stderr.lines().collect();
    for label in ["explore #1", "explore #2"] {
        let starts = lines
            .iter()
            .filter(|l| l.starts_with(&format!("▸ {label}: find ")))
            .count();
        let ends = lines
            .iter()
            .filter(|l| l.starts_with(&format!("◂ {label} done: 1 tool call · ")))
            .count();
        assert_eq!((starts, ends), (1, 1), "{run}");
    }
    // Their own calls are theirs: only the session's Agent calls show.
    assert!(!lines.iter().any(|l| l.starts_with("• Grep")), "{run}");
    assert!(lines.contains(&"• Agent find alpha"), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_json_result_reports_each_sub_agent_and_the_total() {
    let h = Harness::new();
    std::fs::write(h.project().join("lib.rs"), "fn alpha() {}\nfn beta() {}\n").unwrap();
    let server = FakeModelServer::start().await;
    script_two_explorers(&server);
    let run = h
        .run(
            &["-p", "where are alpha and beta?", "--output-format", "json"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let result: Value = serde_json::from_str(run.stdout.trim()).expect("one JSON object");
    // The session's own model replied twice; the agents' four requests are
    // theirs.
    assert_eq!(result["num_turns"], 2, "{result}");
    let agents = result["sub_agents"].as_array().expect("sub_agents");
    assert_eq!(agents.len(), 2, "{result}");
    let mut labels: Vec<&str> = agents
        .iter()
        .map(|a| a["label"].as_str().unwrap())
        .collect();
    labels.sort();
    assert_eq!(labels, ["explore #1", "explore #2"]);
    let mut theirs = 0;
    for agent in agents {
        assert_eq!(agent["agent_type"], "explore");
        assert_eq!(agent["status"], "completed");
        assert_eq!(agent["tool_calls"], 1);
        assert!(agent["elapsed_ms"].is_u64());
        theirs += agent["usage"]["input_tokens"].as_u64().unwrap();
    }
    // The total counts theirs as well as the session's own.
    let total = result["usage"]["input_tokens"].as_u64().unwrap();
    assert!(theirs > 0 && total > theirs, "{result}");
}
