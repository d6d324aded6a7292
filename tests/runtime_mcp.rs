//! MCP tools inside the running agent: approval choices save the tool's
//! rule, a server rule decides for all its tools, interrupting a call
//! tells the server to cancel it, and `/mcp` (`Op::ShowMcp`, `Op::TrustMcpServer`)
//! shows servers and trusts a project's, with the test as the front end.

#![cfg(unix)]

mod support;

use serde_json::json;
use std::path::Path;
use support::mcp_server::{log_lines, test_server};
use support::runtime_harness::{Dialect, Harness, Setup};
use support::wait::{WAIT, until, within};
use zcode::permission::mode::Mode;
use zcode::permission::rules::{Rule, RuleKind};
use zcode::protocol::{AlwaysOption, Event, Op, PermissionReply, TurnEnd};

fn with_server(mode: Mode) -> (Setup, std::path::PathBuf) {
    let mut setup = Setup::new(Dialect::OpenAi, mode);
    let log = setup.home_dir().join("mcp.log");
    setup.mcp_servers.insert(
        "t".into(),
        json!({"command": test_server(), "env": {"MCP_TEST_LOG": log.to_string_lossy()}}),
    );
    (setup, log)
}

async fn wait_log(log: &Path, line: &str) {
    let logged = until(WAIT, || log_lines(log).iter().any(|l| l == line)).await;
    assert!(logged, "{line} never logged: {:?}", log_lines(log));
}

async fn notice_containing(h: &mut Harness, text: &str) -> String {
    h.wait_for(text, |e| match e {
        Event::Notice { message } if message.contains(text) => Some(message.clone()),
        _ => None,
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_always_allow_in_this_project_saves_the_tools_rule() {
    let (setup, log) = with_server(Mode::Build);
    let mut h = setup.start().await;
    h.enqueue_tool_calls(&[("c1", "mcp__t__echo", r#"{"text":"one"}"#)]);
    h.enqueue_text("first");
    h.input("echo once");
    let request = h.permission_request().await;
    assert_eq!(request.tool, "mcp__t__echo");
    assert_eq!(request.always, AlwaysOption::Project);
    assert_eq!(request.suggestions, vec![Rule::tool("mcp__t__echo")]);
    h.reply(
        &request.request_id,
        PermissionReply::AlwaysAllowProject { rules: vec![] },
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert_eq!(
        h.project_rules(RuleKind::Allow),
        vec![Rule::tool("mcp__t__echo")]
    );
    assert_eq!(h.tool_results(1)[0].content, "echo: one");

    // The next call of that tool is not asked about; another tool is.
    let before = h.log.len();
    h.enqueue_tool_calls(&[("c2", "mcp__t__echo", r#"{"text":"two"}"#)]);
    h.enqueue_text("second");
    h.input("echo again");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(
        !h.since(before)
            .iter()
            .any(|e| matches!(e, Event::PermissionRequested { .. })),
        "{}",
        h.log_text()
    );
    assert_eq!(
        log_lines(&log).iter().filter(|l| *l == "call echo").count(),
        2
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_a_server_deny_rule_denies_its_tools_in_build_mode() {
    let (setup, log) = with_server(Mode::Build);
    let mut h = setup
        .rule(RuleKind::Deny, Rule::tool("mcp__t"))
        .start()
        .await;
    h.enqueue_tool_calls(&[
        ("c1", "mcp__t__echo", r#"{"text":"a"}"#),
        ("c2", "mcp__t__write_note", r#"{"text":"b"}"#),
    ]);
    h.enqueue_text("done");
    h.input("go");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    for result in h.tool_results(1) {
        assert!(
            result.content.contains("Denied by project rule mcp__t"),
            "{}",
            result.content
        );
    }
    assert!(!log_lines(&log).iter().any(|l| l.starts_with("call ")));
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_interrupting_a_call_sends_notifications_cancelled() {
    let (setup, log) = with_server(Mode::Yolo);
    let mut h = setup.start().await;
    h.enqueue_tool_calls(&[("c1", "mcp__t__sleep", "{}")]);
    h.enqueue_text("never");
    h.input("sleep");
    wait_log(&log, "call sleep").await;
    h.interrupt();
    assert_eq!(h.turn_finished().await.0, TurnEnd::Interrupted);
    wait_log(&log, "cancelled sleep").await;
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_show_lists_servers_and_trust_starts_a_project_server() {
    let (setup, _log) = with_server(Mode::Build);
    std::fs::write(
        setup.workspace_dir().join(".mcp.json"),
        json!({"mcpServers": {"proj": {"command": test_server()}}}).to_string(),
    )
    .unwrap();
    let mut h = setup.start().await;
    let warned = notice_containing(&mut h, "have not trusted: proj").await;
    assert!(warned.contains("/mcp trust NAME"), "{warned}");
    // t may still be starting: ask again after each answer until it is
    // connected.
    let shown = within("t connected", async {
        loop {
            h.send(Op::ShowMcp);
            let shown = notice_containing(&mut h, "MCP servers").await;
            if shown.contains("t: connected") {
                break shown;
            }
        }
    })
    .await;
    assert!(shown.contains("t: connected"), "{shown}");
    assert!(shown.contains("  - mcp__t__echo (read-only)"), "{shown}");
    assert!(shown.contains("proj: not trusted: not started"), "{shown}");

    h.send(Op::TrustMcpServer {
        name: "nope".into(),
    });
    notice_containing(&mut h, "No project MCP server named 'nope'").await;
    h.send(Op::TrustMcpServer {
        name: "proj".into(),
    });
    notice_containing(&mut h, "MCP server proj is trusted").await;
    h.enqueue_text("hello");
    h.input("hi");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let requests = h.server.requests();
    let tools: Vec<String> = requests[0].json()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(tools.contains(&"mcp__proj__echo".to_string()), "{tools:?}");
    h.shutdown().await;
}
