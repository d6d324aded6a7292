//! Sub-agents in the real TUI, in a pseudo-terminal: a general-purpose
//! agent's Bash call asks in the session's approval queue under the
//! agent's label and runs once allowed; Esc cancels every running agent.
//! Waits are on what the screen shows and what the server received, never
//! on the clock.
#![cfg(unix)]

mod support;

use serde_json::json;
use std::collections::HashMap;
use support::fake_model_server::{FakeModelServer, Reply, sse};
use support::pty::{Pty, PtyOptions, WAIT};
use support::sub_agent_script;
use tokio::runtime::Runtime;

fn start(server: &FakeModelServer, home: &std::path::Path, project: &std::path::Path) -> Pty {
    let options = PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home, project)
        .env("OPENAI_BASE_URL", &server.openai_base_url())
        .arg("--mode")
        .arg("build");
    Pty::spawn(options)
}

#[test]
fn a_general_purpose_agents_bash_asks_in_the_tui_queue_with_its_label() {
    let rt = Runtime::new().expect("a tokio runtime");
    let server = rt.block_on(FakeModelServer::start());
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let touch = json!({"command": "touch made-by-agent.txt"}).to_string();
    let mut scripts = HashMap::new();
    scripts.insert(
        "alpha".to_string(),
        vec![
            Reply::sse(sse::openai_tool_calls("", &[("t1", "Bash", &touch)])),
            Reply::sse(sse::openai_text("Made the file.")),
        ],
    );
    sub_agent_script::route(&server, scripts);
    let args = sub_agent_script::agent_args("general-purpose", "alpha");
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls("", &[("a1", "Agent", &args)])),
        Reply::sse(sse::openai_text("The agent made it.")),
    ]);
    let mut pty = start(&server, home.path(), project.path());
    pty.wait_for_mode("build");
    pty.submit("make the file through an agent");
    pty.wait_for_text("general-purpose #1 · Bash");
    pty.wait_for_text("Allow once");
    // FULL-1: never offered for a sub-agent's request.
    assert!(
        !pty.screen_text().contains("Full access"),
        "{}",
        pty.screen_text()
    );
    assert!(!project.path().join("made-by-agent.txt").exists());
    pty.send("1");
    pty.wait_for_text("The agent made it.");
    assert!(project.path().join("made-by-agent.txt").exists());
    pty.wait_for("the finished agent's summary", WAIT, |s| {
        s.contents().contains("✓ general-purpose #1")
    });
    assert!(pty.quit().success());
}

#[test]
fn esc_cancels_every_running_agent() {
    let rt = Runtime::new().expect("a tokio runtime");
    let server = rt.block_on(FakeModelServer::start());
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    // Their first requests are held until the interrupt.
    sub_agent_script::route_held(&server, &["alpha", "beta"]);
    let (a, b) = (
        sub_agent_script::agent_args("explore", "alpha"),
        sub_agent_script::agent_args("explore", "beta"),
    );
    server.enqueue(Reply::sse(sse::openai_tool_calls(
        "",
        &[("a1", "Agent", &a), ("a2", "Agent", &b)],
    )));
    let mut pty = start(&server, home.path(), project.path());
    pty.wait_for_mode("build");
    pty.submit("explore two things");
    pty.wait_for_text("2 agents · 2 running");
    assert!(rt.block_on(server.wait_for_requests(3, WAIT)));
    pty.send("\x1b");
    pty.wait_for("both agents cancelled", WAIT, |s| {
        let text = s.contents();
        text.matches("cancelled").count() >= 2 && !text.contains("running")
    });
    assert!(pty.quit().success());
}
