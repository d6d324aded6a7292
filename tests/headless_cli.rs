//! `zcode -p` end to end: the real binary against the fake model server
//! (HEAD-1, HEAD-2, PERM-8, APPR-5, DIS-1, DIS-2, RUN-1, RUN-5, HOOK-2,
//! HOOK-3, EXEC-6), in a temporary project with a temporary `ZCODE_HOME`.
//!
//! Each test starts its own fake server, project and home, so they run in
//! parallel.

mod support;

use serde_json::{Value, json};
use std::time::Duration;
use support::fake_model_server::{
    FakeModelServer, Reply, openai_tool_result, openai_tool_results, sse,
};
use support::headless::{Harness, RUN_TIMEOUT, Run, openai_env};
use zcode::permission::mode::Mode;

/// stderr's lines after the first, which says the run is in yolo (the
/// default of `-p`, EXEC-6).
fn stderr_without_yolo_line(stderr: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = stderr.lines().collect();
    assert!(
        lines
            .first()
            .is_some_and(|l| l.starts_with(zcode::headless::YOLO_LINE_START)),
        "{stderr}"
    );
    lines.remove(0);
    lines
}

/// The Anthropic shortcut pointed at the fake server.
fn anthropic_env(server: &FakeModelServer) -> Vec<(&'static str, String)> {
    vec![
        ("ANTHROPIC_BASE_URL", server.anthropic_base_url()),
        ("ANTHROPIC_API_KEY", "test".to_string()),
    ]
}

/// An OpenAI body with a usage chunk added before `[DONE]`
/// (`sse::openai_tool_calls` sends none).
fn with_openai_usage(body: String, prompt: u64, completion: u64) -> String {
    let usage =
        json!({"choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion}});
    body.replace(
        "data: [DONE]\n\n",
        &format!("data: {usage}\n\ndata: [DONE]\n\n"),
    )
}

/// The tool names of an OpenAI request.
fn tool_names_openai(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The tool names of an Anthropic request.
fn tool_names_anthropic(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn parse_json_result(run: &Run) -> Value {
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one JSON object on stdout: {run}");
    serde_json::from_str(lines[0]).unwrap_or_else(|e| panic!("not JSON ({e}): {run}"))
}

// ---------------------------------------------------------------- HEAD-1

#[tokio::test(flavor = "multi_thread")]
async fn head1_openai_write_then_bash_then_answer() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "I'll create the file.",
            &[(
                "call_w",
                "Write",
                r#"{"file_path":"hello.txt","content":"hi\n"}"#,
            )],
        )),
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("call_b", "Bash", r#"{"command":"cat hello.txt"}"#)],
        )),
        Reply::sse(sse::openai_text("Created hello.txt; it contains hi.")),
    ]);
    let task = "create hello.txt containing hi, then show it with cat";
    let run = h.run(&["-p", task], &openai_env(&server)).await;

    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout, "Created hello.txt; it contains hi.\n", "{run}");
    assert_eq!(
        std::fs::read_to_string(h.project().join("hello.txt")).unwrap(),
        "hi\n"
    );
    // Diagnostics go to stderr: the two calls, no denial.
    assert!(run.stderr.contains("• Write"), "{run}");
    assert!(run.stderr.contains("• Bash cat hello.txt"), "{run}");
    assert!(!run.stderr.contains("denied"), "{run}");

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    for req in &requests {
        assert_eq!(req.path, "/v1/chat/completions");
        let body = req.json();
        assert_eq!(body["stream"], true);
        assert_eq!(body["model"], "gpt-4.1");
        // A base URL alone: no key is sent.
        assert_eq!(req.header("authorization"), None);
        let tools = tool_names_openai(&body);
        assert!(tools.contains(&"Write".to_string()), "{tools:?}");
        assert!(tools.contains(&"Bash".to_string()), "{tools:?}");
    }
    let first = requests[0].json();
    let users: Vec<&Value> = first["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .collect();
    assert_eq!(users.len(), 1);
    assert_eq!(users[0]["content"], task);

    // Request 3 carries both results; the Bash one is the file's content.
    let third = requests[2].json();
    assert_eq!(openai_tool_results(&third).len(), 2, "{third:#}");
    let write = openai_tool_result(&third, "call_w");
    assert!(!write.contains("NOT executed"), "{write}");
    let bash = openai_tool_result(&third, "call_b");
    assert!(bash.contains("hi"), "{bash}");
    assert!(!bash.contains("NOT executed"), "{bash}");
    // The assistant's calls are replayed before their results.
    let calls: Vec<&str> = third["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .map(|c| c["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(calls, ["Write", "Bash"]);

    // RUN-1: the session and its transcript are in the store, in order.
    let sessions = h.sessions();
    assert_eq!(sessions.len(), 1);
    let session = &sessions[0];
    assert!(session.id.starts_with("sess_"), "{}", session.id);
    // EXEC-6: headless starts in yolo.
    assert_eq!(session.execution.mode, Mode::Yolo);
    assert!(!session.execution.plan_enabled);
    assert_eq!(
        std::path::Path::new(&session.workspace),
        h.project().canonicalize().unwrap()
    );
    let entries = h.entries(&session.id);
    let kinds: Vec<&str> = entries.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "user_message",
            "assistant_message",
            "tool_result",
            "assistant_message",
            "tool_result",
            "assistant_message",
        ]
    );
    assert_eq!(entries[0].payload["text"], task);
    assert_eq!(entries[1].payload["toolCalls"][0]["name"], "Write");
    assert_eq!(entries[2].payload["callId"], "call_w");
    assert_eq!(entries[2].payload["isError"], false);
    assert_eq!(entries[4].payload["tool"], "Bash");
    assert_eq!(entries[4].payload["isError"], false);
    assert_eq!(
        entries[5].payload["text"],
        "Created hello.txt; it contains hi."
    );
}

// ---------------------------------------------------------------- HEAD-2

#[tokio::test(flavor = "multi_thread")]
async fn head2_json_prints_one_result_object() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(with_openai_usage(
            sse::openai_tool_calls("", &[("c1", "Bash", r#"{"command":"echo ok"}"#)]),
            7,
            3,
        )),
        Reply::sse(sse::openai_text("All done.")),
    ]);
    let run = h
        .run(
            &["-p", "say ok", "--output-format", "json"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let result = parse_json_result(&run);
    assert_eq!(result["type"], "result");
    assert_eq!(result["result"], "All done.");
    assert_eq!(result["end"], "completed");
    assert_eq!(result["is_error"], false);
    let session_id = result["session_id"].as_str().expect("session_id");
    assert!(session_id.starts_with("sess_"), "{session_id}");
    assert_eq!(h.sessions()[0].id, session_id);
    // The sum of both requests: 7 + 10 in, 3 + 5 out.
    assert_eq!(result["usage"]["input_tokens"], 17, "{result}");
    assert_eq!(result["usage"]["output_tokens"], 8, "{result}");
    assert_eq!(result["denials"], json!([]));
    assert_eq!(result["errors"], json!([]));
    // No progress lines on stderr in json mode.
    assert!(!run.stderr.contains("• Bash"), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn head2_stream_json_prints_one_event_per_line_then_the_result() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "Looking.",
            &[("c1", "Bash", r#"{"command":"ls"}"#)],
        )),
        Reply::sse(sse::openai_text("Nothing here.")),
    ]);
    let run = h
        .run(
            &["-p", "look", "--output-format", "stream-json"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let events: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("line not JSON ({e}): {l}")))
        .collect();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    let pos = |t: &str| {
        types
            .iter()
            .position(|x| *x == t)
            .unwrap_or_else(|| panic!("no {t} in {types:?}"))
    };
    assert_eq!(types[0], "session_started", "{types:?}");
    assert!(pos("turn_started") < pos("tool_call_started"), "{types:?}");
    assert!(pos("tool_call_started") < pos("tool_call_finished"));
    assert!(pos("tool_call_finished") < pos("turn_finished"));
    assert!(types.contains(&"assistant_delta"), "{types:?}");
    assert!(types.contains(&"usage"), "{types:?}");
    let started = &events[pos("tool_call_started")];
    assert_eq!(started["tool"], "Bash");
    assert_eq!(started["call_id"], "c1");
    assert_eq!(started["input"]["command"], "ls");
    let finished = &events[pos("tool_call_finished")];
    assert_eq!(finished["is_error"], false);
    assert_eq!(events[pos("turn_finished")]["answer"], "Nothing here.");

    let last = events.last().unwrap();
    assert_eq!(types.len() - 1, pos("turn_finished") + 1, "{types:?}");
    assert_eq!(last["type"], "result");
    assert_eq!(last["result"], "Nothing here.");
    assert_eq!(last["session_id"], events[0]["session_id"]);
    assert!(last["session_id"].as_str().unwrap().starts_with("sess_"));
}

// ---------------------------------------------------------------- PERM-8

#[tokio::test(flavor = "multi_thread")]
async fn perm8_plan_mode_denies_write_and_the_json_result_lists_it() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[(
                "call_w",
                "Write",
                r#"{"file_path":"plan.txt","content":"x"}"#,
            )],
        )),
        Reply::sse(sse::openai_text("I could not write it in plan mode.")),
    ]);
    let run = h
        .run(
            &[
                "-p",
                "write plan.txt",
                "--mode",
                "plan",
                "--output-format",
                "json",
            ],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(!h.project().join("plan.txt").exists());

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let denied = openai_tool_result(&requests[1].json(), "call_w");
    assert!(
        denied.contains("Plan mode only allows read-only, non-destructive tools"),
        "{denied}"
    );
    assert!(denied.contains("NOT executed"), "{denied}");

    let result = parse_json_result(&run);
    assert_eq!(result["result"], "I could not write it in plan mode.");
    let denials = result["denials"].as_array().expect("denials");
    assert_eq!(denials.len(), 1, "{result}");
    let d = &denials[0];
    assert_eq!(d["tool"], "Write");
    assert_eq!(d["rule_id"], "mode.plan.restricted", "{d}");
    assert!(
        d["reason"]
            .as_str()
            .unwrap()
            .contains("Plan mode only allows"),
        "{d}"
    );
    assert_eq!(d["input"]["file_path"], "plan.txt");

    let entries = h.entries(&h.sessions()[0].id);
    let result_entry = entries.iter().find(|e| e.kind == "tool_result").unwrap();
    assert_eq!(result_entry.payload["isError"], true);
    assert!(h.sessions()[0].execution.plan_enabled);
}

#[tokio::test(flavor = "multi_thread")]
async fn head2_json_denials_use_snake_case_keys() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("call_w", "Write", r#"{"file_path":"a.txt","content":"x"}"#)],
        )),
        Reply::sse(sse::openai_text("ok")),
    ]);
    let run = h
        .run(
            &["-p", "write", "--mode", "plan", "--output-format", "json"],
            &openai_env(&server),
        )
        .await;
    let result = parse_json_result(&run);
    let d = &result["denials"][0];
    assert_eq!(d["rule_id"], "mode.plan.restricted", "{d}");
    assert_eq!(d["call_id"], "call_w", "{d}");
}

// ------------------------------------------------------------ errors

#[tokio::test(flavor = "multi_thread")]
async fn head1_unauthorized_exits_1_with_one_line_naming_the_key() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::json(
        401,
        &json!({"error": {"message": "Incorrect API key provided"}}),
    ));
    let mut env = openai_env(&server);
    env.push(("OPENAI_API_KEY", "bad-key".into()));
    let run = h.run(&["-p", "hello"], &env).await;
    assert_eq!(run.code, Some(1), "{run}");
    assert_eq!(run.stdout, "", "{run}");
    let lines = stderr_without_yolo_line(&run.stderr);
    assert_eq!(lines.len(), 1, "{run}");
    assert!(lines[0].contains("authentication failed"), "{run}");
    assert!(lines[0].contains("401"), "{run}");
    assert!(lines[0].contains("OPENAI_API_KEY"), "{run}");
    // Not retried.
    assert_eq!(server.request_count(), 1);
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer bad-key")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn head1_unauthorized_json_reports_the_error_in_the_result() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::status(401));
    let run = h
        .run(
            &["-p", "hello", "--output-format", "json"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(1), "{run}");
    let result = parse_json_result(&run);
    assert_eq!(result["is_error"], true);
    assert_eq!(result["end"], "failed");
    assert_eq!(result["result"], Value::Null);
    let errors = result["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{result}");
    // Without a key the hint says the variable is not set.
    assert!(
        errors[0]
            .as_str()
            .unwrap()
            .contains("OPENAI_API_KEY is not set"),
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn head1_unreachable_server_exits_1_with_a_clear_message() {
    let h = Harness::new();
    // A port that was just free: nothing listens there.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let base = format!("http://127.0.0.1:{port}/v1");
    // A run that retried for ever would hit the harness's limit.
    let run = h
        .run(&["-p", "hello"], &[("OPENAI_BASE_URL", base.clone())])
        .await;
    assert_eq!(run.code, Some(1), "{run}");
    assert_eq!(run.stdout, "", "{run}");
    assert!(run.stderr.contains("cannot connect"), "{run}");
    assert!(run.stderr.contains(&base), "{run}");
    assert!(run.stderr.contains("gave up after"), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn head1_unknown_model_lists_the_available_ones() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let run = h
        .run(&["-p", "hello", "--model", "nope/x"], &openai_env(&server))
        .await;
    assert_ne!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout, "", "{run}");
    assert!(run.stderr.contains("--model nope/x"), "{run}");
    assert!(run.stderr.contains("openai/gpt-4.1"), "{run}");
    assert_eq!(server.request_count(), 0);
    assert!(h.sessions().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn head1_empty_task_is_refused() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    for task in ["", "   "] {
        let run = h.run(&["-p", task], &openai_env(&server)).await;
        assert_ne!(run.code, Some(0), "{run}");
        assert_eq!(run.stdout, "", "{run}");
        assert!(run.stderr.contains("empty"), "{run}");
    }
    assert_eq!(server.request_count(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn head1_ctrl_c_interrupts_the_request_and_exits_130() {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

    let h = Harness::new();
    let server = FakeModelServer::start().await;
    // The reply starts, then stalls long enough to be interrupted.
    let head = sse::openai_text("never finished")
        .split("data: [DONE]")
        .next()
        .unwrap()
        .to_string();
    server.enqueue(Reply::sse_chunks([head]).delay(Duration::from_secs(20)));
    let mut child = h
        .command(
            &["-p", "wait", "--output-format", "stream-json"],
            &openai_env(&server),
        )
        .spawn()
        .unwrap();
    // Interrupt once the first text has reached zcode.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut seen = Vec::new();
    let saw_delta = tokio::time::timeout(RUN_TIMEOUT, async {
        let mut line = String::new();
        while stdout.read_line(&mut line).await.unwrap() > 0 {
            seen.push(line.trim_end().to_string());
            if line.contains(r#""type":"assistant_delta""#) {
                return true;
            }
            line.clear();
        }
        false
    })
    .await
    .expect("zcode streams the reply");
    assert!(saw_delta, "{seen:#?}");
    let pid = child.id().unwrap() as libc::pid_t;
    // SAFETY: signalling our own child by its pid.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).await.unwrap();
    let out = tokio::time::timeout(RUN_TIMEOUT, child.wait_with_output())
        .await
        .expect("zcode ends after Ctrl+C")
        .unwrap();
    let mut run = Run::from(out);
    run.stdout = seen.join("\n") + "\n" + &rest;
    assert_eq!(run.code, Some(130), "{run}");
    assert!(run.stderr.contains("interrupting"), "{run}");
    let result: Value = serde_json::from_str(rest.lines().last().unwrap()).unwrap();
    assert_eq!(result["type"], "result", "{run}");
    assert_eq!(result["end"], "interrupted", "{run}");
    assert_eq!(result["is_error"], true, "{run}");
    assert_eq!(result["result"], Value::Null, "{run}");
    assert!(
        server
            .wait_for_client_aborts(1, Duration::from_secs(5))
            .await,
        "the request was not aborted"
    );
    // The partial answer is kept in the transcript, with the note that
    // tells a resumed session's model it was cut.
    let entries = h.entries(&h.sessions()[0].id);
    let kinds: Vec<&str> = entries.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["user_message", "assistant_message", "notification"],
        "{run}"
    );
    assert_eq!(
        entries[2].payload["text"],
        zcode::runtime::turn::INTERRUPTED_NOTE
    );
    assert_eq!(entries[1].payload["toolCalls"], json!([]));
    assert!(
        entries[1].payload["text"]
            .as_str()
            .unwrap()
            .starts_with("never"),
        "{:?}",
        entries[1].payload
    );
}

// ------------------------------------------------- APPR-5, HOOK-2 in build

#[tokio::test(flavor = "multi_thread")]
async fn appr5_build_mode_headless_denies_what_needs_a_person() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[
                ("c_touch", "Bash", r#"{"command":"touch x"}"#),
                ("c_ls", "Bash", r#"{"command":"ls"}"#),
            ],
        )),
        Reply::sse(sse::openai_text("Could not create x.")),
    ]);
    std::fs::write(h.project().join("present.txt"), "").unwrap();
    let run = h
        .run(
            &[
                "-p",
                "touch x",
                "--mode",
                "build",
                "--output-format",
                "json",
            ],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(!h.project().join("x").exists());

    let second = server.requests()[1].json();
    let touch = openai_tool_result(&second, "c_touch");
    assert!(touch.contains("No permission client configured"), "{touch}");
    assert!(touch.contains("NOT executed"), "{touch}");
    let ls = openai_tool_result(&second, "c_ls");
    assert!(ls.contains("present.txt"), "{ls}");

    let result = parse_json_result(&run);
    let denials = result["denials"].as_array().unwrap();
    assert_eq!(denials.len(), 1, "{result}");
    assert_eq!(denials[0]["tool"], "Bash");
    assert_eq!(denials[0]["input"]["command"], "touch x");
    assert_eq!(denials[0]["reason"], "No permission client configured");
    assert_eq!(h.sessions()[0].execution.mode, Mode::Build);
}

#[tokio::test(flavor = "multi_thread")]
async fn hook2_permission_request_hook_approves_in_build_headless() {
    let h = Harness::new();
    let log = h.home().join("hook-input.json");
    let script = h.script(
        "allow.sh",
        &format!(
            "#!/bin/sh\ncat > '{}'\necho '{{\"decision\":\"allow\"}}'\n",
            log.display()
        ),
    );
    h.write_config(&json!({
        "hooks": {"PermissionRequest": [{"matcher": "Bash", "command": script}]}
    }));
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("c_touch", "Bash", r#"{"command":"touch x"}"#)],
        )),
        Reply::sse(sse::openai_text("Created x.")),
    ]);
    let run = h
        .run(
            &[
                "-p",
                "touch x",
                "--mode",
                "build",
                "--output-format",
                "json",
            ],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(h.project().join("x").exists(), "{run}");
    let result = parse_json_result(&run);
    assert_eq!(result["denials"], json!([]), "{result}");
    let touch = openai_tool_result(&server.requests()[1].json(), "c_touch");
    assert!(!touch.contains("NOT executed"), "{touch}");

    // The hook heard the request.
    let input: Value = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert_eq!(input["hookEventName"], "PermissionRequest");
    assert_eq!(input["toolName"], "Bash");
    assert_eq!(input["toolInput"]["command"], "touch x");
    assert_eq!(input["sessionId"], result["session_id"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn hook2_permission_request_hook_deny_or_failure_in_build_headless() {
    let h = Harness::new();
    let deny = h.script(
        "deny.sh",
        "#!/bin/sh\ncat > /dev/null\necho '{\"decision\":\"deny\",\"message\":\"no shell writes\"}'\n",
    );
    let broken = h.script("broken.sh", "#!/bin/sh\ncat > /dev/null\nexit 1\n");
    h.write_config(&json!({
        "hooks": {"PermissionRequest": [
            {"matcher": "Write", "command": deny},
            {"matcher": "Bash", "command": broken},
        ]}
    }));
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[
                ("c_w", "Write", r#"{"file_path":"w.txt","content":"x"}"#),
                ("c_b", "Bash", r#"{"command":"touch b"}"#),
            ],
        )),
        Reply::sse(sse::openai_text("Neither ran.")),
    ]);
    let run = h
        .run(
            &["-p", "go", "--mode", "build", "--output-format", "json"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(!h.project().join("w.txt").exists());
    assert!(!h.project().join("b").exists());
    let second = server.requests()[1].json();
    // The hook's deny message reaches the model.
    let w = openai_tool_result(&second, "c_w");
    assert!(w.contains("no shell writes"), "{w}");
    assert!(w.contains("NOT executed"), "{w}");
    // A failing hook decides nothing: the deny broker answers.
    let b = openai_tool_result(&second, "c_b");
    assert!(b.contains("No permission client configured"), "{b}");
    let result = parse_json_result(&run);
    let reasons: Vec<&str> = result["denials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["reason"].as_str().unwrap())
        .collect();
    assert_eq!(
        reasons,
        ["no shell writes", "No permission client configured"],
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn hook1_failing_pre_tool_use_hook_is_reported_on_stderr() {
    let h = Harness::new();
    let broken = h.script("broken.sh", "#!/bin/sh\ncat > /dev/null\nexit 1\n");
    h.write_config(&json!({
        "hooks": {"PreToolUse": [{"matcher": "Bash", "command": broken}]}
    }));
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("c1", "Bash", r#"{"command":"touch ran"}"#)],
        )),
        Reply::sse(sse::openai_text("Done.")),
    ]);
    let run = h.run(&["-p", "go"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    // A broken hook decides nothing: yolo runs the call, and says why the
    // hook did not count.
    assert!(h.project().join("ran").exists(), "{run}");
    assert!(run.stderr.contains("PreToolUse hook"), "{run}");
    assert!(run.stderr.contains("broken.sh"), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn hook1_failing_permission_request_hook_is_reported_on_stderr() {
    let h = Harness::new();
    let broken = h.script("broken.sh", "#!/bin/sh\ncat > /dev/null\nexit 1\n");
    h.write_config(&json!({
        "hooks": {"PermissionRequest": [{"matcher": "Bash", "command": broken}]}
    }));
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("c1", "Bash", r#"{"command":"touch x"}"#)],
        )),
        Reply::sse(sse::openai_text("Denied.")),
    ]);
    let run = h
        .run(&["-p", "go", "--mode", "build"], &openai_env(&server))
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(!h.project().join("x").exists());
    assert!(
        run.stderr.contains("No permission client configured"),
        "{run}"
    );
    // The user must learn why their hook did not approve.
    assert!(run.stderr.contains("PermissionRequest hook"), "{run}");
    assert!(run.stderr.contains("broken.sh"), "{run}");
}

// ---------------------------------------------------------------- HOOK-3

#[tokio::test(flavor = "multi_thread")]
async fn hook3_pre_tool_use_deny_in_yolo_blocks_the_call_and_tells_the_model() {
    let h = Harness::new();
    let script = h.script(
        "deny.sh",
        "#!/bin/sh\ncat > /dev/null\necho '{\"decision\":\"deny\",\"reason\":\"blocked by policy\"}'\n",
    );
    h.write_config(&json!({
        "hooks": {"PreToolUse": [{"matcher": "Bash", "command": script}]}
    }));
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("c1", "Bash", r#"{"command":"touch blocked"}"#)],
        )),
        Reply::sse(sse::openai_text("The hook blocked it.")),
    ]);
    let run = h
        .run(
            &["-p", "touch blocked", "--output-format", "json"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(!h.project().join("blocked").exists());
    let text = openai_tool_result(&server.requests()[1].json(), "c1");
    assert!(text.contains("blocked by policy"), "{text}");
    assert!(text.contains("NOT executed"), "{text}");
    let result = parse_json_result(&run);
    let denials = result["denials"].as_array().unwrap();
    assert_eq!(denials.len(), 1, "{result}");
    assert_eq!(denials[0]["reason"], "blocked by policy");
    assert_eq!(h.sessions()[0].execution.mode, Mode::Yolo);
}

// ----------------------------------------------------------- DIS-1, DIS-2

#[tokio::test(flavor = "multi_thread")]
async fn dis2_disallowed_bash_is_not_offered_and_a_call_is_unknown() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("c1", "Bash", r#"{"command":"touch x"}"#)],
        )),
        Reply::sse(sse::openai_text("No shell here.")),
    ]);
    // DIS-1: the list ends at the next argument starting with '-'.
    let run = h
        .run(
            &["--disallowedTools", "Bash", "-p", "touch x"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout, "No shell here.\n");
    assert!(!h.project().join("x").exists());
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for req in &requests {
        let tools = tool_names_openai(&req.json());
        assert!(!tools.contains(&"Bash".to_string()), "{tools:?}");
        assert!(tools.contains(&"Read".to_string()), "{tools:?}");
    }
    let text = openai_tool_result(&requests[1].json(), "c1");
    assert!(text.starts_with("Unknown tool Bash"), "{text}");
    assert!(!text.contains("Bash,"), "{text}");
    assert!(
        run.stderr.contains("Bash failed: Unknown tool Bash"),
        "{run}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn dis1_comma_list_with_equals_removes_every_named_tool() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("ok")));
    let run = h
        .run(
            &["-p", "hi", "--disallowed-tools=Bash(git *),Write"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let tools = tool_names_openai(&server.requests()[0].json());
    // `Bash(git *)` is a deny rule for those commands, not all of Bash;
    // `Write` removes Edit too, as a Write deny rule covers Edit.
    assert!(tools.contains(&"Bash".to_string()), "{tools:?}");
    assert!(!tools.contains(&"Write".to_string()), "{tools:?}");
    assert!(!tools.contains(&"Edit".to_string()), "{tools:?}");
    assert!(tools.contains(&"Read".to_string()), "{tools:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn dis2_disallowed_edit_also_removes_write() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("ok")));
    let run = h
        .run(
            &["--disallowedTools", "Edit", "-p", "hi"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let tools = tool_names_openai(&server.requests()[0].json());
    assert!(!tools.contains(&"Edit".to_string()), "{tools:?}");
    assert!(!tools.contains(&"Write".to_string()), "{tools:?}");
}

/// Runs `-p` with `args`, the model calling Bash with `command` once.
async fn headless_bash(h: &Harness, args: &[&str], command: &str) -> Run {
    let server = FakeModelServer::start().await;
    let input = json!({ "command": command }).to_string();
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls("", &[("c1", "Bash", &input)])),
        Reply::sse(sse::openai_text("Done.")),
    ]);
    let mut all = vec!["-p", "go"];
    all.extend_from_slice(args);
    h.run(&all, &openai_env(&server)).await
}

#[tokio::test(flavor = "multi_thread")]
async fn perm4_saved_deny_rule_holds_in_headless_yolo() {
    let h = Harness::new();
    std::fs::write(h.project().join("victim"), "keep").unwrap();
    let add = h
        .run(&["permission", "add", "deny", "Bash", "rm:*"], &[])
        .await;
    assert_eq!(add.code, Some(0), "{add}");
    let run = headless_bash(&h, &["--mode", "yolo"], "rm -f victim").await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(h.project().join("victim").exists(), "{run}");
    assert!(run.stderr.contains("rm:*"), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn perm4_disallowed_tools_rule_holds_in_headless_yolo() {
    let h = Harness::new();
    std::fs::write(h.project().join("victim"), "keep").unwrap();
    let run = headless_bash(&h, &["--disallowedTools", "Bash(rm:*)"], "rm -f victim").await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(h.project().join("victim").exists(), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn allowed_tools_bash_content_does_not_allow_other_commands_headless() {
    let h = Harness::new();
    let run = headless_bash(
        &h,
        &["--mode", "build", "--allowedTools", "Bash(git diff:*)"],
        "touch pwned",
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(!h.project().join("pwned").exists(), "{run}");
    let h = Harness::new();
    let run = headless_bash(
        &h,
        &["--mode", "build", "--allowedTools", "Bash(touch made:*)"],
        "touch made",
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(h.project().join("made").exists(), "{run}");
}

// ---------------------------------------------------------------- RUN-5

/// Runs a first session that answers "The answer is 42." and returns its id.
async fn first_session(h: &Harness, server: &FakeModelServer) -> String {
    server.enqueue(Reply::sse(sse::openai_text("The answer is 42.")));
    let run = h
        .run(
            &["-p", "what is the answer?", "--output-format", "json"],
            &openai_env(server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    parse_json_result(&run)["session_id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn assert_replayed(body: &Value, new_task: &str) {
    let msgs: Vec<(String, String)> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = [
        ("user", "what is the answer?"),
        ("assistant", "The answer is 42."),
        ("user", new_task),
    ]
    .iter()
    .map(|(r, c)| (r.to_string(), c.to_string()))
    .collect();
    assert_eq!(msgs, expected, "{body:#}");
}

#[tokio::test(flavor = "multi_thread")]
async fn run5_continue_reloads_the_latest_transcript() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let id = first_session(&h, &server).await;
    server.enqueue(Reply::sse(sse::openai_text("Still 42.")));
    let run = h
        .run(
            &["--continue", "-p", "and again?", "--output-format", "json"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let result = parse_json_result(&run);
    assert_eq!(result["session_id"], id.as_str());
    assert_eq!(result["result"], "Still 42.");
    assert_replayed(&server.requests()[1].json(), "and again?");
    // `--resume` without an id also takes the latest session here.
    server.enqueue(Reply::sse(sse::openai_text("42 once more.")));
    let bare = h
        .run(
            &["-p", "last time?", "--output-format", "json", "--resume"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(bare.code, Some(0), "{bare}");
    assert_eq!(parse_json_result(&bare)["session_id"], id.as_str());
    let msgs = server.requests()[2].json()["messages"].clone();
    assert_eq!(msgs.as_array().unwrap().len(), 1 + 5, "{msgs:#}");
    // One session, now with all three exchanges.
    assert_eq!(h.sessions().len(), 1);
    let kinds: Vec<String> = h.entries(&id).into_iter().map(|e| e.kind).collect();
    assert_eq!(kinds, ["user_message", "assistant_message"].repeat(3));
}

#[tokio::test(flavor = "multi_thread")]
async fn run5_resume_by_id_reloads_that_transcript() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let id = first_session(&h, &server).await;
    // A later session in the same project: --resume ID must not pick it.
    server.enqueue(Reply::sse(sse::openai_text("Other.")));
    let other = h.run(&["-p", "other task"], &openai_env(&server)).await;
    assert_eq!(other.code, Some(0), "{other}");

    server.enqueue(Reply::sse(sse::openai_text("Yes, 42.")));
    let run = h
        .run(
            &["-p", "sure?", "--resume", &id, "--output-format", "json"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(parse_json_result(&run)["session_id"], id.as_str());
    assert_replayed(&server.requests()[2].json(), "sure?");
    assert_eq!(h.sessions().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn run5_resume_keeps_the_session_mode() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("planned")));
    let first = h
        .run(
            &["-p", "plan it", "--mode", "plan", "--output-format", "json"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(first.code, Some(0), "{first}");
    let id = parse_json_result(&first)["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    // EXEC-6: the resumed session's own state wins over headless yolo.
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("c1", "Write", r#"{"file_path":"p.txt","content":"x"}"#)],
        )),
        Reply::sse(sse::openai_text("still planning")),
    ]);
    let run = h
        .run(
            &["-p", "write it", "--resume", &id, "--output-format", "json"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(!h.project().join("p.txt").exists());
    let result = parse_json_result(&run);
    assert_eq!(result["denials"][0]["tool"], "Write", "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn run5_resume_unknown_or_nothing_to_continue_is_a_clear_error() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let run = h
        .run(
            &["-p", "x", "--resume", "sess_missing"],
            &openai_env(&server),
        )
        .await;
    assert_ne!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout, "", "{run}");
    assert!(run.stderr.contains("no session sess_missing"), "{run}");
    assert!(run.stderr.contains("zcode sessions list"), "{run}");

    let run = h
        .run(&["-p", "x", "--continue"], &openai_env(&server))
        .await;
    assert_ne!(run.code, Some(0), "{run}");
    assert!(run.stderr.contains("no earlier session"), "{run}");
    assert_eq!(server.request_count(), 0);
    assert!(h.sessions().is_empty());
}

// --------------------------------------------------------- offline demo

#[tokio::test(flavor = "multi_thread")]
async fn head1_offline_demo_without_any_provider() {
    let h = Harness::new();
    std::fs::write(h.project().join("demo.txt"), "").unwrap();
    let run = h.run(&["-p", "hi"], &[]).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(run.stderr.contains("offline demo provider"), "{run}");
    assert!(run.stderr.contains("OPENAI_BASE_URL"), "{run}");
    assert!(run.stderr.contains("ANTHROPIC_API_KEY"), "{run}");
    // The demo's real Glob call.
    assert!(run.stderr.contains("• Glob *"), "{run}");
    assert!(
        run.stdout
            .starts_with("That was a real `Glob` call in your workspace."),
        "{run}"
    );
    assert!(
        run.stdout.contains("**This is the offline demo provider**"),
        "{run}"
    );
    assert!(
        run.stdout.ends_with("`--model openai/gpt-4.1`).\n"),
        "{run}"
    );
    let sessions = h.sessions();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].model.as_deref(), Some("demo/scripted"));
    // The Glob result the demo saw lists the project's file.
    let entries = h.entries(&sessions[0].id);
    let glob = entries.iter().find(|e| e.kind == "tool_result").unwrap();
    assert!(
        glob.payload["content"]
            .as_str()
            .unwrap()
            .contains("demo.txt"),
        "{:?}",
        glob.payload
    );
}

// ------------------------------------------------ HEAD-1, Anthropic dialect

/// The `tool_result` blocks of an Anthropic request, as
/// `(tool_use_id, content, is_error)`.
fn anthropic_tool_results(body: &Value) -> Vec<(String, String, bool)> {
    body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            (
                b["tool_use_id"].as_str().unwrap_or_default().to_string(),
                b["content"].as_str().unwrap_or_default().to_string(),
                b["is_error"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn head1_anthropic_write_then_bash_then_answer() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::anthropic_tool_uses(
            "I'll create the file.",
            &[(
                "toolu_w",
                "Write",
                r#"{"file_path":"hello.txt","content":"hi\n"}"#,
            )],
        )),
        Reply::sse(sse::anthropic_tool_uses(
            "",
            &[("toolu_b", "Bash", r#"{"command":"cat hello.txt"}"#)],
        )),
        Reply::sse(sse::anthropic_text("Created hello.txt; it contains hi.")),
    ]);
    let task = "create hello.txt containing hi, then show it with cat";
    let run = h.run(&["-p", task], &anthropic_env(&server)).await;

    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout, "Created hello.txt; it contains hi.\n", "{run}");
    assert_eq!(
        std::fs::read_to_string(h.project().join("hello.txt")).unwrap(),
        "hi\n"
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    for req in &requests {
        assert_eq!(req.path, "/v1/messages");
        assert_eq!(req.header("x-api-key"), Some("test"));
        assert!(req.header("anthropic-version").is_some());
        assert_eq!(req.header("authorization"), None);
        let body = req.json();
        assert_eq!(body["model"], "claude-sonnet-4-5");
        assert_eq!(body["stream"], true);
        let tools = tool_names_anthropic(&body);
        assert!(tools.contains(&"Write".to_string()), "{tools:?}");
        assert!(tools.contains(&"Bash".to_string()), "{tools:?}");
    }
    let third = requests[2].json();
    let results = anthropic_tool_results(&third);
    assert_eq!(results.len(), 2, "{third:#}");
    assert_eq!(results[0].0, "toolu_w");
    assert!(!results[0].2, "{results:?}");
    assert_eq!(results[1].0, "toolu_b");
    assert!(results[1].1.contains("hi"), "{results:?}");
    assert!(!results[1].2, "{results:?}");
    // Each tool_use is replayed in an assistant message before its result.
    let uses: Vec<&str> = third["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(uses, ["Write", "Bash"]);

    let sessions = h.sessions();
    assert_eq!(sessions.len(), 1);
    assert_eq!(
        sessions[0].model.as_deref(),
        Some("anthropic/claude-sonnet-4-5")
    );
    assert_eq!(sessions[0].execution.mode, Mode::Yolo);
    let kinds: Vec<String> = h
        .entries(&sessions[0].id)
        .into_iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(
        kinds,
        [
            "user_message",
            "assistant_message",
            "tool_result",
            "assistant_message",
            "tool_result",
            "assistant_message",
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn head1_anthropic_unauthorized_names_the_key_variable() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::json(
        401,
        &json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
    ));
    let run = h.run(&["-p", "hello"], &anthropic_env(&server)).await;
    assert_eq!(run.code, Some(1), "{run}");
    assert_eq!(run.stdout, "");
    let lines = stderr_without_yolo_line(&run.stderr);
    assert_eq!(lines.len(), 1, "{run}");
    assert!(lines[0].contains("ANTHROPIC_API_KEY"), "{run}");
}

// ------------------------------------------------- questions and plans

const QUESTION: &str = r#"{"questions":[{"question":"Which database?","header":"DB","multiSelect":false,"options":[{"label":"SQLite (Recommended)","description":"one file"},{"label":"Postgres","description":"a server"}]}]}"#;

#[tokio::test(flavor = "multi_thread")]
async fn ask5_headless_denies_ask_user_question_with_the_exact_text() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("call_q", "AskUserQuestion", QUESTION)],
        )),
        Reply::sse(sse::openai_text("I picked SQLite myself.")),
    ]);
    let run = h.run(&["-p", "set up storage"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    let requests = server.requests();
    assert!(tool_names_openai(&requests[0].json()).contains(&"AskUserQuestion".to_string()));
    let result = openai_tool_result(&requests[1].json(), "call_q");
    assert!(
        result.contains("No permission client configured for AskUserQuestion"),
        "{result}"
    );
    assert_eq!(run.stdout, "I picked SQLite myself.\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn plan9_headless_exit_plan_mode_in_plan_ends_the_turn_without_a_plan_file() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue_all([Reply::sse(sse::openai_tool_calls(
        "Here is my plan.",
        &[(
            "call_p",
            "ExitPlanMode",
            r#"{"plan":"1. Add the parser\n2. Test it"}"#,
        )],
    ))]);
    let run = h
        .run(
            &["-p", "plan the parser", "--mode", "plan"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    // No second request: the refused plan ended the turn (PLAN-9).
    assert_eq!(server.requests().len(), 1);
    assert!(!h.project().join(".zcode/plans").exists());
    let session = &h.sessions()[0];
    assert!(session.execution.plan_enabled, "plan stays on");
    let entries = h.entries(&session.id);
    let result = entries.iter().find(|e| e.kind == "tool_result").unwrap();
    assert!(
        result.payload["content"]
            .as_str()
            .unwrap()
            .contains("NOT executed"),
        "{:?}",
        result.payload
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn perm1_exit_plan_mode_outside_plan_is_denied_with_the_exact_reason() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("call_p", "ExitPlanMode", r#"{"plan":"x"}"#)],
        )),
        Reply::sse(sse::openai_text("ok")),
    ]);
    let run = h.run(&["-p", "go"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    let result = openai_tool_result(&server.requests()[1].json(), "call_p");
    assert!(
        result.contains("ExitPlanMode can only be used while plan mode is active"),
        "{result}"
    );
}

// ---------------------------------------------------------------- EXEC-6

#[tokio::test(flavor = "multi_thread")]
async fn exec6_headless_yolo_says_so_on_stderr_in_every_format() {
    let yolo_line = "zcode: running in yolo mode";
    for (args, expected) in [
        (vec!["-p", "hi"], Some("the default of -p")),
        (vec!["-p", "hi", "--mode", "yolo"], Some("--mode yolo")),
        (
            vec!["-p", "hi", "--output-format", "json"],
            Some("the default of -p"),
        ),
        (vec!["-p", "hi", "--mode", "build"], None),
        (vec!["-p", "hi", "--mode", "plan"], None),
    ] {
        let h = Harness::new();
        let server = FakeModelServer::start().await;
        server.enqueue(Reply::sse(sse::openai_text("ok")));
        let run = h.run(&args, &openai_env(&server)).await;
        assert_eq!(run.code, Some(0), "{args:?}: {run}");
        let lines: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.starts_with(yolo_line))
            .collect();
        match expected {
            Some(why) => {
                assert_eq!(lines.len(), 1, "{args:?}: {run}");
                assert!(lines[0].contains(why), "{args:?}: {run}");
                assert!(lines[0].contains("deny rules"), "{args:?}: {run}");
            }
            None => assert!(lines.is_empty(), "{args:?}: {run}"),
        }
    }
}
