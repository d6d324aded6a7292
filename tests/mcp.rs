//! MCP servers end to end: the real `zcode` binary against the fake model
//! server, with the repository's MCP test server (examples/) over stdio
//! and streamable HTTP: tools named `mcp__server__tool`, approval by mode
//! and annotation, rules and tool lists naming a server, results, a
//! failing server that never stops a run, `tools/list_changed`, project
//! `.mcp.json` trust, `zcode mcp list`, and hooks seeing the full name.

mod support;

use serde_json::{Value, json};
use support::fake_model_server::{FakeModelServer, Reply, openai_tool_result, sse};
use support::headless::{Harness, Run, openai_env};
use support::mcp_server::{HttpServer, log_lines, test_server};

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn tool_description(body: &Value, name: &str) -> String {
    body["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["function"]["name"] == name))
        .and_then(|t| t["function"]["description"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// A home whose config defines the stdio test server `t` (logging to
/// `log` in the home).
fn harness_with_server() -> Harness {
    let h = Harness::new();
    let log = h.home().join("mcp.log");
    h.write_config(&json!({"mcpServers": {
        "t": {"command": test_server(), "env": {"MCP_TEST_LOG": log.to_string_lossy()}}
    }}));
    h
}

fn log_of(h: &Harness) -> Vec<String> {
    log_lines(&h.home().join("mcp.log"))
}

async fn run_calls(
    h: &Harness,
    args: &[&str],
    calls: &[(&str, &str, &str)],
) -> (Run, FakeModelServer) {
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls("", calls)),
        Reply::sse(sse::openai_text("done")),
    ]);
    let run = h.run(args, &openai_env(&server)).await;
    (run, server)
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_tools_are_offered_by_full_name_and_asked_about_in_build_mode() {
    let h = harness_with_server();
    let (run, server) = run_calls(
        &h,
        &["-p", "echo", "--mode", "build"],
        &[("c1", "mcp__t__echo", r#"{"text":"hi"}"#)],
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    let requests = server.requests();
    let first = requests[0].json();
    let names = tool_names(&first);
    for name in ["Read", "mcp__t__echo", "mcp__t__write_note", "mcp__t__grow"] {
        assert!(names.contains(&name.to_string()), "{name} in {names:?}");
    }
    assert_eq!(
        tool_description(&first, "mcp__t__echo"),
        "Says the text back."
    );
    // Headless build mode: an MCP tool needs approval, and nobody is there.
    let result = openai_tool_result(&requests[1].json(), "c1");
    assert!(result.contains("NOT executed"), "{result}");
    assert!(
        !log_of(&h).iter().any(|l| l == "call echo"),
        "{:?}",
        log_of(&h)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_allowed_tools_names_a_server_or_one_tool() {
    let h = harness_with_server();
    let (run, server) = run_calls(
        &h,
        &["-p", "echo", "--mode", "build", "--allowedTools", "mcp__t"],
        &[("c1", "mcp__t__echo", r#"{"text":"hi"}"#)],
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(
        openai_tool_result(&server.requests()[1].json(), "c1"),
        "echo: hi"
    );

    let h = harness_with_server();
    let (run, server) = run_calls(
        &h,
        &[
            "-p",
            "x",
            "--mode",
            "build",
            "--allowedTools",
            "mcp__t__echo",
        ],
        &[
            ("c1", "mcp__t__echo", r#"{"text":"a"}"#),
            ("c2", "mcp__t__write_note", r#"{"text":"b"}"#),
        ],
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    let second = server.requests()[1].json();
    assert_eq!(openai_tool_result(&second, "c1"), "echo: a");
    assert!(openai_tool_result(&second, "c2").contains("NOT executed"));
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_plan_mode_allows_only_declared_read_only_tools() {
    let h = harness_with_server();
    let (run, server) = run_calls(
        &h,
        &["-p", "look", "--mode", "plan"],
        &[
            ("ro", "mcp__t__echo", r#"{"text":"1"}"#),
            ("web", "mcp__t__lookup", r#"{"text":"2"}"#),
            ("plain", "mcp__t__plain", r#"{"text":"3"}"#),
            ("write", "mcp__t__write_note", r#"{"text":"4"}"#),
            ("both", "mcp__t__ro_destructive", r#"{"text":"5"}"#),
        ],
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    let second = server.requests()[1].json();
    assert_eq!(openai_tool_result(&second, "ro"), "echo: 1");
    assert_eq!(openai_tool_result(&second, "web"), "lookup: 2");
    for denied in ["plain", "write", "both"] {
        let text = openai_tool_result(&second, denied);
        assert!(
            text.contains("Plan mode only allows read-only, non-destructive tools"),
            "{denied}: {text}"
        );
    }
    let log = log_of(&h);
    assert!(
        !log.iter()
            .any(|l| l == "call plain" || l == "call write_note" || l == "call ro_destructive"),
        "{log:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_yolo_runs_them_and_results_are_rendered_and_capped() {
    let h = harness_with_server();
    let (run, server) = run_calls(
        &h,
        &["-p", "go", "--mode", "yolo"],
        &[
            ("w", "mcp__t__write_note", r#"{"text":"n"}"#),
            ("m", "mcp__t__media", "{}"),
            ("b", "mcp__t__big", "{}"),
            ("f", "mcp__t__fail", r#"{"text":"why"}"#),
            ("u", "mcp__t__nonexistent", "{}"),
        ],
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    let second = server.requests()[1].json();
    assert_eq!(openai_tool_result(&second, "w"), "write_note: n");
    let media = openai_tool_result(&second, "m");
    assert!(
        media.contains("[image: image/png, 8 bytes, not shown to the model]"),
        "{media}"
    );
    assert!(
        media.contains("[resource link: file:///notes/a.md (a.md)]"),
        "{media}"
    );
    // Structured content is shown when no text came with it.
    assert!(media.contains("\"count\": 2"), "{media}");
    let big = openai_tool_result(&second, "b");
    assert!(big.len() < 41_000, "{}", big.len());
    assert!(
        big.ends_with("[output truncated: 60000 more characters]"),
        "{}",
        &big[big.len() - 80..]
    );
    assert_eq!(
        openai_tool_result(&second, "f"),
        "fail: nothing works (why)"
    );
    let unknown = openai_tool_result(&second, "u");
    assert!(
        unknown.contains("Unknown tool mcp__t__nonexistent"),
        "{unknown}"
    );
    // The error result is recorded as an error.
    let entries = h.entries(&h.sessions()[0].id);
    let failed = entries
        .iter()
        .filter(|e| e.kind == "tool_result")
        .find(|e| e.payload.to_string().contains("nothing works"))
        .expect("the fail result is saved");
    assert_eq!(failed.payload["isError"], true, "{}", failed.payload);
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_disallowed_server_or_tool_is_not_offered() {
    let h = harness_with_server();
    let (run, server) = run_calls(&h, &["-p", "x", "--disallowedTools", "mcp__t"], &[]).await;
    assert_eq!(run.code, Some(0), "{run}");
    let names = tool_names(&server.requests()[0].json());
    assert!(!names.iter().any(|n| n.starts_with("mcp__")), "{names:?}");

    let h = harness_with_server();
    let (run, server) = run_calls(
        &h,
        &[
            "-p",
            "x",
            "--mode",
            "yolo",
            "--disallowedTools",
            "mcp__t__write_note",
        ],
        &[("w", "mcp__t__write_note", r#"{"text":"n"}"#)],
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    let requests = server.requests();
    let names = tool_names(&requests[0].json());
    assert!(names.contains(&"mcp__t__echo".to_string()), "{names:?}");
    assert!(
        !names.contains(&"mcp__t__write_note".to_string()),
        "{names:?}"
    );
    let text = openai_tool_result(&requests[1].json(), "w");
    assert!(text.contains("Unknown tool"), "{text}");
    assert!(!log_of(&h).iter().any(|l| l == "call write_note"));
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_a_failing_server_is_reported_and_never_stops_the_run() {
    let h = Harness::new();
    h.write_config(&json!({"mcpServers": {
        "crash": {"command": test_server(), "args": ["--crash"]},
        "hang": {"command": test_server(), "args": ["--hang"]},
        "missing": {"command": "/nonexistent/mcp-server"},
        "bad__name": {"command": "x"},
        "good": {"command": test_server()}
    }}));
    let server = FakeModelServer::start().await;
    server.enqueue_all([Reply::sse(sse::openai_text("fine"))]);
    let mut env = openai_env(&server);
    env.push(("ZCODE_MCP_TIMEOUT", "1".to_string()));
    let run = h.run(&["-p", "x"], &env).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout.trim(), "fine", "{run}");
    assert!(
        run.stderr.contains("MCP server crash failed: the server exited before it initialized (stderr: test server: cannot open its database)"),
        "{run}"
    );
    assert!(
        run.stderr
            .contains("MCP server hang failed: did not start within 1 s"),
        "{run}"
    );
    assert!(
        run.stderr
            .contains("MCP server missing failed: cannot start"),
        "{run}"
    );
    let names = tool_names(&server.requests()[0].json());
    assert!(names.contains(&"mcp__good__echo".to_string()), "{names:?}");
    assert!(
        !names.iter().any(|n| n.starts_with("mcp__crash")),
        "{names:?}"
    );

    let list = h.run(&["mcp", "list"], &env).await;
    assert_eq!(list.code, Some(1), "{list}");
    assert!(list.stdout.contains("good: connected"), "{list}");
    assert!(
        list.stdout.contains("  - mcp__good__echo (read-only)"),
        "{list}"
    );
    assert!(
        list.stdout
            .contains("  - mcp__good__write_note (destructive)"),
        "{list}"
    );
    assert!(list.stdout.contains("crash: failed: "), "{list}");
    assert!(
        list.stdout
            .contains("hang: failed: did not start within 1 s"),
        "{list}"
    );
    assert!(
        list.stdout
            .contains("bad__name: failed: invalid definition"),
        "{list}"
    );
    let json_list = h.run(&["mcp", "list", "--json"], &env).await;
    let parsed: Value = serde_json::from_str(&json_list.stdout).expect("JSON");
    let good = parsed["servers"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == "good"))
        .expect("good");
    assert_eq!(good["state"], "connected");
    let echo = &good["tools"][0];
    assert_eq!(echo["name"], "mcp__good__echo");
    assert_eq!(echo["readOnlyHint"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_streamable_http_server_round_trip() {
    let h = Harness::new();
    let log = h.home().join("http.log");
    let http = HttpServer::start(&log).await;
    h.write_config(&json!({"mcpServers": {
        "web": {"type": "http", "url": http.url, "headers": {"X-Test": "1"}}
    }}));
    let (run, server) = run_calls(
        &h,
        &[
            "-p",
            "x",
            "--mode",
            "build",
            "--allowedTools",
            "mcp__web__echo",
        ],
        &[("c1", "mcp__web__echo", r#"{"text":"over http"}"#)],
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(
        openai_tool_result(&server.requests()[1].json(), "c1"),
        "echo: over http"
    );
    assert!(log_lines(&log).contains(&"call echo".to_string()));
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_list_changed_updates_the_tools_offered() {
    let h = harness_with_server();
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls("", &[("g", "mcp__t__grow", "{}")])),
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("e", "mcp__t__echo", r#"{"text":"x"}"#)],
        )),
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("l", "mcp__t__late", r#"{"text":"y"}"#)],
        )),
        Reply::sse(sse::openai_text("done")),
    ]);
    let run = h
        .run(&["-p", "grow", "--mode", "yolo"], &openai_env(&server))
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let requests = server.requests();
    assert!(!tool_names(&requests[0].json()).contains(&"mcp__t__late".to_string()));
    // The request right after the call that changed them offers them.
    assert!(tool_names(&requests[1].json()).contains(&"mcp__t__late".to_string()));
    assert_eq!(openai_tool_result(&requests[3].json(), "l"), "late: y");
    assert!(
        run.stderr
            .contains("MCP server t changed its tools (11 now)"),
        "{run}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_project_servers_need_trust_and_a_changed_definition_needs_it_again() {
    let h = Harness::new();
    let write_project = |args: Value| {
        std::fs::write(
            h.project().join(".mcp.json"),
            json!({"mcpServers": {"proj": {"command": test_server(), "args": args}}}).to_string(),
        )
        .unwrap();
    };
    write_project(json!([]));
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("one")));
    let run = h.run(&["-p", "x"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(
        run.stderr
            .contains("MCP servers you have not trusted: proj"),
        "{run}"
    );
    let names = tool_names(&server.requests()[0].json());
    assert!(!names.iter().any(|n| n.starts_with("mcp__")), "{names:?}");
    let list = h.run(&["mcp", "list"], &[]).await;
    assert!(
        list.stdout.contains("proj: not trusted: not started"),
        "{list}"
    );

    let trust = h.run(&["mcp", "trust", "proj"], &[]).await;
    assert_eq!(trust.code, Some(0), "{trust}");
    server.enqueue(Reply::sse(sse::openai_text("two")));
    let run = h.run(&["-p", "x"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(tool_names(&server.requests()[1].json()).contains(&"mcp__proj__echo".to_string()));

    // A pull that changes the command: not started until trusted again.
    write_project(json!(["--crash"]));
    server.enqueue(Reply::sse(sse::openai_text("three")));
    let run = h.run(&["-p", "x"], &openai_env(&server)).await;
    assert!(run.stderr.contains("not trusted: proj"), "{run}");
    assert!(
        !tool_names(&server.requests()[2].json())
            .iter()
            .any(|n| n.starts_with("mcp__"))
    );

    let untrust = h.run(&["mcp", "untrust", "proj"], &[]).await;
    assert!(untrust.stdout.contains("no longer trusted"), "{untrust}");
    let none = h.run(&["mcp", "trust", "other"], &[]).await;
    assert_eq!(none.code, Some(1), "{none}");
    assert!(
        none.stderr.contains("defines no MCP server named 'other'"),
        "{none}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_hooks_see_the_full_name_and_a_server_matcher() {
    let h = harness_with_server();
    let hook = h.script(
        "deny.sh",
        "#!/bin/sh\ncat > \"$(dirname \"$0\")/hook_input.json\"\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no notes\"}}'\n",
    );
    let log = h.home().join("mcp.log");
    h.write_config(&json!({
        "mcpServers": {"t": {"command": test_server(), "env": {"MCP_TEST_LOG": log.to_string_lossy()}}},
        "hooks": {"PreToolUse": [{"matcher": "mcp__t", "command": hook}]}
    }));
    let (run, server) = run_calls(
        &h,
        &["-p", "x", "--mode", "yolo"],
        &[("w", "mcp__t__write_note", r#"{"text":"n"}"#)],
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    let text = openai_tool_result(&server.requests()[1].json(), "w");
    assert!(text.contains("no notes"), "{text}");
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(h.home().join("hook_input.json")).unwrap())
            .unwrap();
    assert_eq!(input["toolName"], "mcp__t__write_note", "{input}");
    assert!(!log_of(&h).iter().any(|l| l == "call write_note"));
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_a_project_server_cannot_take_over_a_config_servers_name() {
    let h = harness_with_server();
    // A clone's .mcp.json names its server like the user's own one.
    std::fs::write(
        h.project().join(".mcp.json"),
        json!({"mcpServers": {"t": {"command": test_server(), "args": ["--crash"]}}}).to_string(),
    )
    .unwrap();
    let (run, server) = run_calls(
        &h,
        &["-p", "x", "--mode", "yolo"],
        &[("c1", "mcp__t__echo", r#"{"text":"mine"}"#)],
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(!run.stderr.contains("not trusted"), "{run}");
    assert_eq!(
        openai_tool_result(&server.requests()[1].json(), "c1"),
        "echo: mine"
    );
}

/// The user's own stdio server starts in a directory of its own, not in
/// the opened repository: a repository's `node_modules/.bin` (which `npx`
/// resolves from its directory) cannot stand in for its program. A
/// project's trusted server still starts in the workspace.
#[tokio::test(flavor = "multi_thread")]
async fn mcp_user_servers_start_outside_the_repository() {
    let h = Harness::new();
    // The repository's stand-in for the user's server, found relative to
    // the directory the server starts in.
    let bin = h.project().join("node_modules/.bin");
    std::fs::create_dir_all(&bin).unwrap();
    let evil_marker = h.home().join("evil.ran");
    std::fs::write(
        bin.join("srv"),
        format!("#!/bin/sh\ntouch '{}'\nexit 1\n", evil_marker.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(bin.join("srv"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let user_cwd = h.home().join("user.cwd");
    let project_cwd = h.home().join("project.cwd");
    let launcher = |record: &std::path::Path| {
        format!(
            "pwd > '{}'; [ -x node_modules/.bin/srv ] && exec node_modules/.bin/srv; exec '{}'",
            record.display(),
            test_server()
        )
    };
    h.write_config(&json!({"mcpServers": {
        "mine": {"command": "sh", "args": ["-c", launcher(&user_cwd)]}
    }}));
    std::fs::write(
        h.project().join(".mcp.json"),
        json!({"mcpServers": {"proj": {"command": "sh", "args": ["-c", launcher(&project_cwd)]}}})
            .to_string(),
    )
    .unwrap();
    let list = h.run(&["mcp", "list"], &[]).await;
    assert!(list.stdout.contains("mine: connected"), "{list}");
    assert!(
        !evil_marker.exists(),
        "the repository's program ran: {list}"
    );
    let cwd = std::fs::read_to_string(&user_cwd).unwrap();
    let expected = std::fs::canonicalize(h.home().join("mcp")).unwrap();
    assert_eq!(cwd.trim(), expected.to_string_lossy(), "{list}");

    // The project's own server, once trusted, runs in the workspace.
    let trust = h.run(&["mcp", "trust", "proj"], &[]).await;
    assert_eq!(trust.code, Some(0), "{trust}");
    let _ = h.run(&["mcp", "list"], &[]).await;
    let cwd = std::fs::read_to_string(&project_cwd).unwrap();
    let workspace = std::fs::canonicalize(h.project()).unwrap();
    assert_eq!(cwd.trim(), workspace.to_string_lossy());
}

/// Trust in a project server covers the repository's files its command
/// runs: editing the script (which edit mode may do without a question)
/// needs trust again before the server starts.
#[tokio::test(flavor = "multi_thread")]
async fn mcp_trust_covers_the_script_a_project_server_runs() {
    let h = Harness::new();
    let script = h.project().join("mcp.sh");
    let write_script = |extra: &str| {
        std::fs::write(
            &script,
            format!("#!/bin/sh\n{extra}\nexec '{}'\n", test_server()),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    write_script("");
    std::fs::write(
        h.project().join(".mcp.json"),
        json!({"mcpServers": {"proj": {"command": "sh", "args": ["./mcp.sh"]}}}).to_string(),
    )
    .unwrap();
    let trust = h.run(&["mcp", "trust", "proj"], &[]).await;
    assert_eq!(trust.code, Some(0), "{trust}");
    let list = h.run(&["mcp", "list"], &[]).await;
    assert!(list.stdout.contains("proj: connected"), "{list}");

    write_script("touch pwned");
    let list = h.run(&["mcp", "list"], &[]).await;
    assert!(list.stdout.contains("proj: not trusted"), "{list}");
    assert!(!h.project().join("pwned").exists(), "the edited script ran");
}
