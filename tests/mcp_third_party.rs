//! A real third-party MCP server end to end: the reference filesystem
//! server, pinned in tests/mcp-third-party/package.json and installed
//! from the package registry with `npm ci` (by `.ci/run`, or here when it
//! is missing), run by the real `zcode` binary over stdio: its tools
//! listed with their annotations, a call, plan mode deciding by those
//! annotations, and an error result.

mod support;

use serde_json::json;
use std::path::PathBuf;
use std::sync::OnceLock;
use support::fake_model_server::{FakeModelServer, Reply, openai_tool_result, sse};
use support::headless::{Harness, openai_env};

/// The installed server's entry point; installs it the first time.
fn filesystem_server() -> String {
    static ENTRY: OnceLock<PathBuf> = OnceLock::new();
    ENTRY
        .get_or_init(|| {
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp-third-party");
            let entry =
                dir.join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
            if !entry.exists() {
                let status = std::process::Command::new("npm")
                    .args(["ci", "--no-audit", "--no-fund", "--prefix"])
                    .arg(&dir)
                    .status()
                    .expect("npm runs (Node.js and npm are needed for this test)");
                assert!(status.success(), "npm ci in {} succeeds", dir.display());
            }
            assert!(entry.exists(), "{} is installed", entry.display());
            entry
        })
        .to_string_lossy()
        .into_owned()
}

fn harness() -> Harness {
    let h = Harness::new();
    let allowed = std::fs::canonicalize(h.project()).unwrap();
    h.write_config(&json!({"mcpServers": {
        "fs": {"command": "node", "args": [filesystem_server(), allowed.to_string_lossy()]}
    }}));
    std::fs::write(allowed.join("hello.txt"), "hello from mcp\nsecond line\n").unwrap();
    h
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_third_party_list_shows_its_tools_and_annotations() {
    let h = harness();
    let list = h.run(&["mcp", "list"], &[]).await;
    assert_eq!(list.code, Some(0), "{list}");
    assert!(list.stdout.contains("fs: connected"), "{list}");
    assert!(
        list.stdout
            .contains("  - mcp__fs__read_text_file (read-only)\n"),
        "{list}"
    );
    assert!(
        list.stdout
            .contains("  - mcp__fs__write_file (destructive)\n"),
        "{list}"
    );
    assert!(
        list.stdout.contains("  - mcp__fs__create_directory\n"),
        "{list}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_third_party_plan_mode_follows_its_annotations_and_errors_reach_the_model() {
    let h = harness();
    let project = std::fs::canonicalize(h.project()).unwrap();
    let file = project.join("hello.txt");
    let outside = std::env::temp_dir().join("zcode-mcp-outside.txt");
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[
                (
                    "read",
                    "mcp__fs__read_text_file",
                    &json!({"path": file}).to_string(),
                ),
                (
                    "write",
                    "mcp__fs__write_file",
                    &json!({"path": project.join("new.txt"), "content": "x"}).to_string(),
                ),
                (
                    "mkdir",
                    "mcp__fs__create_directory",
                    &json!({"path": project.join("d")}).to_string(),
                ),
                (
                    "outside",
                    "mcp__fs__read_text_file",
                    &json!({"path": outside}).to_string(),
                ),
            ],
        )),
        Reply::sse(sse::openai_text("planned")),
    ]);
    let run = h
        .run(
            &["-p", "look around", "--mode", "plan"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let second = server.requests()[1].json();
    assert_eq!(
        openai_tool_result(&second, "read"),
        "hello from mcp\nsecond line\n"
    );
    for denied in ["write", "mkdir"] {
        let text = openai_tool_result(&second, denied);
        assert!(
            text.contains("Plan mode only allows read-only"),
            "{denied}: {text}"
        );
    }
    assert!(!project.join("new.txt").exists());
    assert!(!project.join("d").exists());
    let error = openai_tool_result(&second, "outside");
    assert!(
        error.contains("Access denied - path outside allowed directories"),
        "{error}"
    );
    let entries = h.entries(&h.sessions()[0].id);
    let saved = entries
        .iter()
        .filter(|e| e.kind == "tool_result")
        .find(|e| e.payload.to_string().contains("Access denied"))
        .expect("the error result is saved");
    assert_eq!(saved.payload["isError"], true, "{}", saved.payload);
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_third_party_write_runs_once_allowed() {
    let h = harness();
    let project = std::fs::canonicalize(h.project()).unwrap();
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[(
                "write",
                "mcp__fs__write_file",
                &json!({"path": project.join("new.txt"), "content": "written over MCP"})
                    .to_string(),
            )],
        )),
        Reply::sse(sse::openai_text("written")),
    ]);
    let run = h
        .run(
            &[
                "-p",
                "write",
                "--mode",
                "build",
                "--allowedTools",
                "mcp__fs__write_file",
            ],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let text = openai_tool_result(&server.requests()[1].json(), "write");
    assert!(text.contains("Successfully wrote to"), "{text}");
    assert_eq!(
        std::fs::read_to_string(project.join("new.txt")).unwrap(),
        "written over MCP"
    );
}
