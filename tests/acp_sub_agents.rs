//! Sub-agents in an ACP client: a client that understands ACP's sub-agent
//! sessions gets each as a child session (announced on the parent, its
//! own updates under its own session id, then its end); any other client
//! sees the sub-agent's progress in its Agent call and nothing under
//! another session id.

#![cfg(unix)]

mod support;

use serde_json::{Value, json};
use support::acp_client::{AcpClient, ClientOptions, acp_config, text_reply, tool_reply};
use support::fake_model_server::FakeModelServer;
use support::headless::Harness;
use support::sub_agent_script;

/// The parent starts one explore agent on `alpha` (call `a1`), which greps
/// once and reports; the parent then answers.
async fn setup() -> (Harness, FakeModelServer) {
    let h = Harness::new();
    std::fs::write(h.project().join("lib.rs"), "fn alpha() {}\n").unwrap();
    let server = FakeModelServer::start().await;
    h.write_config(&acp_config(
        &server,
        json!({"permission": {"mode": "build"}}),
    ));
    sub_agent_script::route_explorers(&server, &["alpha"], None);
    sub_agent_script::enqueue_agent_calls(&server, &[("a1", "explore", "alpha")]);
    server.enqueue(text_reply("alpha is in lib.rs."));
    (h, server)
}

#[tokio::test(flavor = "multi_thread")]
async fn sub_agents_are_child_sessions_for_a_client_that_has_them() {
    let (h, _server) = setup().await;
    let (client, session) =
        AcpClient::start_with_session(&h, ClientOptions::plain().with_subagents()).await;
    assert_eq!(client.run_turn(&session, "find alpha").await, "end_turn");
    let updates = client.updates();
    let announced: Vec<&Value> = updates
        .iter()
        .filter(|u| u["sessionId"] == session && u["update"]["sessionUpdate"] == "subagent_update")
        .collect();
    assert!(!announced.is_empty(), "{updates:#?}");
    let child = announced[0]["update"]["sessionId"]
        .as_str()
        .unwrap_or_else(|| panic!("the child's id: {:#}", announced[0]))
        .to_string();
    assert_ne!(child, session);
    let child_calls: Vec<&Value> = updates
        .iter()
        .filter(|u| u["sessionId"] == child.as_str())
        .filter(|u| u["update"]["sessionUpdate"] == "tool_call")
        .collect();
    assert!(
        child_calls.iter().any(|u| u["update"]["title"]
            .as_str()
            .unwrap_or("")
            .contains("alpha")),
        "the child's Grep under the child's id: {updates:#?}"
    );
    // The parent's own Agent call completes with the report.
    client.wait_tool_status("a1", "completed").await;
    client.assert_clean_wire();
}

#[tokio::test(flavor = "multi_thread")]
async fn sub_agents_are_their_agent_calls_progress_for_any_other_client() {
    let (h, _server) = setup().await;
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    assert_eq!(client.run_turn(&session, "find alpha").await, "end_turn");
    let updates = client.updates();
    assert!(
        updates.iter().all(|u| u["sessionId"] == session),
        "nothing under another session id: {updates:#?}"
    );
    assert!(client.updates_of("subagent_update").is_empty());
    let progress = client
        .updates_of("tool_call_update")
        .into_iter()
        .filter(|u| u["toolCallId"] == "a1")
        .map(|u| u["content"].to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(progress.contains("alpha"), "{progress}");
    client.wait_tool_status("a1", "completed").await;
    client.assert_clean_wire();
}

/// FULL-1: a sub-agent's approval is put to the client on the parent's
/// session, without the Full access option.
#[tokio::test(flavor = "multi_thread")]
async fn full1_a_sub_agents_permission_request_offers_no_full_access() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    h.write_config(&acp_config(
        &server,
        json!({"permission": {"mode": "build"}}),
    ));
    let write = json!({"file_path": "from-agent.txt", "content": "x"}).to_string();
    sub_agent_script::route(
        &server,
        std::collections::HashMap::from([(
            "notes".to_string(),
            vec![
                tool_reply("sw1", "Write", &write),
                text_reply("Wrote the notes."),
            ],
        )]),
    );
    sub_agent_script::enqueue_agent_calls(&server, &[("a1", "general-purpose", "notes")]);
    server.enqueue(text_reply("The agent is done."));
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let turn = client.prompt(&session, "let an agent write notes");
    let ask = client.next_permission().await;
    assert_eq!(
        ask.request["sessionId"],
        session.as_str(),
        "{:#}",
        ask.request
    );
    let ids = ask.option_ids();
    assert!(ids.contains(&"allow_once".to_string()), "{ids:?}");
    assert!(!ids.contains(&"full_access".to_string()), "{ids:?}");
    ask.select("allow_once");
    assert_eq!(turn.stop_reason().await, "end_turn");
    assert!(h.project().join("from-agent.txt").exists());
}
