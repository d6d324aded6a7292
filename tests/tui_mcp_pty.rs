//! MCP servers in the real TUI, in a pseudo-terminal: a server that never
//! answers does not hold up the first frame, `/mcp` shows each server's
//! state and tools, and the first request waits for the servers within
//! their bound, then offers the tools of those that started.
#![cfg(unix)]

mod support;

use serde_json::json;
use support::fake_model_server::{FakeModelServer, Reply, sse};
use support::mcp_server::test_server;
use support::pty::{Pty, PtyOptions, WAIT};

#[test]
fn mcp_tui_first_frame_is_not_held_up_and_slash_mcp_shows_the_servers() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(FakeModelServer::start());
    std::fs::write(
        home.path().join("config.json"),
        json!({"mcpServers": {
            "t": {"command": test_server()},
            "hang": {"command": test_server(), "args": ["--hang"]}
        }})
        .to_string(),
    )
    .unwrap();
    server.enqueue(Reply::sse(sse::openai_text("hello there")));
    let mut pty = Pty::spawn(
        PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home.path(), project.path())
            .env("OPENAI_BASE_URL", &server.openai_base_url())
            .env("ZCODE_MCP_TIMEOUT", "4"),
    );
    // Drawn while `hang` is still starting (it has 4 s).
    pty.wait_for_mode("build");
    // The first /mcp may come before `t` has answered: ask again after
    // each answer is drawn, until one shows it connected.
    let answers = |raw: &[u8]| String::from_utf8_lossy(raw).matches("MCP servers").count();
    for asked in 1.. {
        let before = answers(&pty.raw_output());
        pty.submit("/mcp");
        pty.wait_for_output("the /mcp answer", WAIT, |raw| answers(raw) > before);
        if pty.screen_text().contains("t: connected") {
            break;
        }
        assert!(asked < 1000, "{}", pty.screen_text());
    }
    let screen = pty.screen_text();
    assert!(screen.contains("- mcp__t__echo (read-only)"), "{screen}");
    pty.submit("hi");
    pty.wait_for_text("hello there");
    let screen = pty.screen_text();
    assert!(
        screen.contains("MCP server hang failed: did not start within 4 s"),
        "{screen}"
    );
    let request = server.requests()[0].json();
    let tools: Vec<String> = request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
        .collect();
    assert!(tools.contains(&"mcp__t__echo".to_string()), "{tools:?}");
    pty.quit();
}
