//! The sandbox from the real entry points: `zcode -p` against the fake
//! model server (a `readOnlyCommands` entry that tries to write, plan mode,
//! the fallbacks), `zcode permission check` (how a command would run) and
//! `zcode sandbox` (one command in exactly the Bash tool's sandbox).
#![cfg(target_os = "linux")]

mod support;

use serde_json::{Value, json};
use support::fake_model_server::{FakeModelServer, Reply, openai_tool_result, sse};
use support::headless::{Harness, openai_env};

/// One Bash call by the model, then a closing answer; returns the tool
/// result the model was sent and the run's stderr.
async fn one_bash_call(h: &Harness, command: &str, mode: &str, env: &[(&str, String)]) -> String {
    let server = FakeModelServer::start().await;
    let args = json!({ "command": command }).to_string();
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls("", &[("c1", "Bash", &args)])),
        Reply::sse(sse::openai_text("done")),
    ]);
    let mut all_env = openai_env(&server);
    all_env.extend(env.iter().cloned());
    let run = h.run(&["-p", "go", "--mode", mode], &all_env).await;
    assert_eq!(run.code, Some(0), "{run}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{run}");
    openai_tool_result(&requests[1].json(), "c1")
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_read_only_commands_entry_that_writes_fails_and_the_model_learns_it() {
    let h = Harness::new();
    h.write_config(&json!({"permission": {"readOnlyCommands": ["touch:*"]}}));
    let result = one_bash_call(&h, "touch made.txt", "build", &[]).await;
    assert!(!h.project().join("made.txt").exists(), "{result}");
    assert!(result.contains("Permission denied"), "{result}");
    assert!(result.contains("read-only sandbox"), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_read_only_commands_are_asked_without_the_sandbox() {
    for (config, env) in [
        (json!({"sandbox": {"mode": "off"}}), vec![]),
        (
            json!({"sandbox": {"mode": "auto"}}),
            vec![("ZCODE_SANDBOX_UNAVAILABLE", "1".to_string())],
        ),
    ] {
        let h = Harness::new();
        let mut config = config;
        config["permission"] = json!({"readOnlyCommands": ["touch:*"]});
        h.write_config(&config);
        let result = one_bash_call(&h, "touch made.txt", "build", &env).await;
        // Asked, and nobody can answer a headless run.
        assert!(result.contains("NOT executed"), "{config}: {result}");
        assert!(!h.project().join("made.txt").exists());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_plan_mode_runs_read_only_commands_sandboxed_with_their_output() {
    let h = Harness::new();
    std::fs::write(h.project().join("present.txt"), "hello\n").unwrap();
    let result = one_bash_call(&h, "ls && cat present.txt", "plan", &[]).await;
    assert!(result.contains("present.txt"), "{result}");
    assert!(result.contains("hello"), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_required_without_a_sandbox_asks_even_read_only_commands() {
    let h = Harness::new();
    h.write_config(&json!({"sandbox": {"mode": "required"}}));
    std::fs::write(h.project().join("present.txt"), "").unwrap();
    let env = [("ZCODE_SANDBOX_UNAVAILABLE", "1".to_string())];
    let result = one_bash_call(&h, "ls", "build", &env).await;
    assert!(result.contains("NOT executed"), "{result}");
    // In `auto` the strict analysis still lets `ls` run (unsandboxed).
    let h = Harness::new();
    std::fs::write(h.project().join("present.txt"), "").unwrap();
    let result = one_bash_call(&h, "ls", "build", &env).await;
    assert!(result.contains("present.txt"), "{result}");
}

async fn check(h: &Harness, command: &str, env: &[(&str, String)]) -> (Value, String) {
    let input = json!({ "command": command }).to_string();
    let run = h
        .run(
            &["permission", "check", "--tool", "Bash", "--input", &input],
            env,
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run}"));
    (value, run.stderr)
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_permission_check_reports_how_a_command_would_run() {
    let h = Harness::new();
    let (out, stderr) = check(&h, "ls", &[]).await;
    assert_eq!(out["behavior"], "allow", "{out}");
    assert_eq!(out["sandbox"], "read-only", "{out}");
    assert!(out.get("sandboxNotice").is_none(), "{out}");
    assert!(stderr.is_empty(), "{stderr}");
    let (out, _) = check(&h, "touch x", &[]).await;
    assert_eq!(out["behavior"], "ask", "{out}");
    assert_eq!(out["sandbox"], "none", "{out}");

    h.write_config(&json!({"sandbox": {"approvedCommands": "workspace-write"}}));
    let (out, _) = check(&h, "touch x", &[]).await;
    assert_eq!(out["sandbox"], "workspace-write", "{out}");
    let (out, _) = check(&h, "ls", &[]).await;
    assert_eq!(out["sandbox"], "read-only", "{out}");

    h.write_config(&json!({"sandbox": {"mode": "off"}}));
    let (out, stderr) = check(&h, "ls", &[]).await;
    assert_eq!(out["behavior"], "allow", "{out}");
    assert_eq!(out["sandbox"], "none", "{out}");
    assert!(stderr.is_empty(), "{stderr}");

    // `auto` on a kernel without the sandbox says so, once per run.
    h.write_config(&json!({}));
    let env = [("ZCODE_SANDBOX_UNAVAILABLE", "1".to_string())];
    let (out, stderr) = check(&h, "ls", &env).await;
    assert_eq!(out["behavior"], "allow", "{out}");
    assert_eq!(out["sandbox"], "none", "{out}");
    let notice = out["sandboxNotice"].as_str().unwrap_or_default();
    assert!(notice.contains("no kernel sandbox"), "{out}");
    assert_eq!(stderr.matches("no kernel sandbox").count(), 1, "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_config_keys_are_validated() {
    let h = Harness::new();
    for (config, needle) in [
        (json!({"sandbox": {"mode": "sometimes"}}), "sandbox.mode"),
        (
            json!({"sandbox": {"approvedCommands": "all"}}),
            "sandbox.approvedCommands",
        ),
        (
            json!({"permission": {"readOnlyCommands": ["*"]}}),
            "permission.readOnlyCommands[0]",
        ),
    ] {
        h.write_config(&config);
        let run = h
            .run(
                &[
                    "permission",
                    "check",
                    "--tool",
                    "Bash",
                    "--input",
                    r#"{"command":"ls"}"#,
                ],
                &[],
            )
            .await;
        assert_eq!(run.code, Some(1), "{config}: {run}");
        assert!(run.stderr.contains(needle), "{config}: {run}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_command_runs_one_command_in_the_bash_tools_sandbox() {
    let h = Harness::new();
    let run = h.run(&["sandbox", "--", "touch", "x"], &[]).await;
    assert_eq!(run.code, Some(1), "{run}");
    assert!(run.stderr.contains("Permission denied"), "{run}");
    assert!(!h.project().join("x").exists());

    let run = h
        .run(&["sandbox", "--read-only", "--", "cat", "/etc/passwd"], &[])
        .await;
    assert_eq!(run.code, Some(0), "{run}");

    let run = h
        .run(&["sandbox", "--workspace-write", "--", "touch", "x"], &[])
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(h.project().join("x").exists());

    // Exit codes pass through; a signal is 128+N.
    let run = h.run(&["sandbox", "--", "sh", "-c", "exit 7"], &[]).await;
    assert_eq!(run.code, Some(7), "{run}");
    let run = h
        .run(&["sandbox", "--", "sh", "-c", "kill -9 $$"], &[])
        .await;
    assert_eq!(run.code, Some(137), "{run}");

    let run = h.run(&["sandbox", "--", "no-such-program-here"], &[]).await;
    assert_eq!(run.code, Some(1), "{run}");
    assert!(run.stderr.contains("no-such-program-here"), "{run}");

    let run = h
        .run(
            &["sandbox", "--read-only", "--workspace-write", "--", "true"],
            &[],
        )
        .await;
    assert_eq!(run.code, Some(2), "{run}");
}
