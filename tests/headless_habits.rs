//! The habits of `zcode -p` that users of other agents bring: `-p` as a
//! flag with the task as an argument, piped input as the task or next to
//! it, and a JSON result whose names scripts already read. The real binary
//! runs against the fake model server, with its stdin a pipe, a file,
//! `/dev/null` or a terminal.

mod support;

use serde_json::Value;
use support::fake_model_server::{FakeModelServer, Reply, sse};
use support::headless::{Harness, Input, Run, openai_env};
use support::pty::{Pty, PtyOptions, WAIT};

/// The text of the user messages of a recorded OpenAI request.
fn user_texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The task the model was given: the user message of the first request
/// (besides reminders such as plan mode's).
fn sent_task(server: &FakeModelServer) -> String {
    let requests = server.requests();
    assert!(!requests.is_empty(), "no request reached the model");
    let mut users = user_texts(&requests[0].json());
    users.retain(|u| !u.starts_with("<system-reminder>"));
    assert_eq!(users.len(), 1, "{users:?}");
    users[0].clone()
}

fn json_result(run: &Run) -> Value {
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one JSON object on stdout: {run}");
    serde_json::from_str(lines[0]).unwrap_or_else(|e| panic!("not JSON ({e}): {run}"))
}

/// One answer, then a run of `args` with `input` as stdin.
async fn answered_run(args: &[&str], input: Input) -> (Harness, FakeModelServer, Run) {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("Done.")));
    let run = h.run_with_input(args, &openai_env(&server), input).await;
    (h, server, run)
}

/// How piped data reaches the model next to a task given as an argument.
fn with_piped(task: &str, data: &str) -> String {
    format!("{task}\n\nPiped input (stdin):\n<stdin>\n{data}\n</stdin>")
}

// ------------------------------------------------------- -p is a flag

#[tokio::test(flavor = "multi_thread")]
async fn ux_print_flag_takes_the_task_as_an_argument_anywhere() {
    let (_h, server, run) =
        answered_run(&["-p", "--output-format", "json", "say hi"], Input::Null).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(json_result(&run)["result"], "Done.", "{run}");
    assert_eq!(sent_task(&server), "say hi");

    let (h, server, run) = answered_run(&["-p", "plan it", "--mode", "plan"], Input::Null).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout, "Done.\n", "{run}");
    assert_eq!(sent_task(&server), "plan it");
    assert!(h.sessions()[0].execution.plan_enabled);

    let (_h, server, run) = answered_run(&["--print", "long form"], Input::Null).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(sent_task(&server), "long form");

    let (_h, server, run) = answered_run(&["--prompt", "old form"], Input::Null).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(sent_task(&server), "old form");
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_a_task_starting_with_a_dash_goes_after_double_dash() {
    let (_h, server, run) = answered_run(
        &["-p", "--mode", "plan", "--", "-v: what does it do?"],
        Input::Null,
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(sent_task(&server), "-v: what does it do?");

    // A task that is a subcommand's name, too.
    let (_h, server, run) = answered_run(&["-p", "--", "models"], Input::Null).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(sent_task(&server), "models");
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_a_task_given_twice_is_refused_with_a_hint_to_quote() {
    for args in [
        &["-p", "fix", "the bug"][..],
        &["--prompt", "fix", "the bug"][..],
        &["-p", "fix", "--prompt", "the bug"][..],
    ] {
        let (_h, server, run) = answered_run(args, Input::Null).await;
        assert_eq!(run.code, Some(2), "{args:?}: {run}");
        assert_eq!(run.stdout, "", "{run}");
        assert!(run.stderr.contains("task was given twice"), "{run}");
        assert!(run.stderr.contains("\"fix\""), "{run}");
        assert!(run.stderr.contains("\"the bug\""), "{run}");
        assert!(run.stderr.contains("quote"), "{run}");
        assert_eq!(server.request_count(), 0, "{run}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_print_without_a_task_says_how_to_give_one() {
    let (_h, server, run) = answered_run(&["-p"], Input::Null).await;
    assert_eq!(run.code, Some(2), "{run}");
    assert_eq!(run.stdout, "", "{run}");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {run}");
    assert!(lines[0].starts_with("zcode: error: no task"), "{run}");
    assert!(lines[0].contains("zcode -p \""), "{run}");
    assert!(lines[0].contains("| zcode -p"), "{run}");
    assert!(lines[0].contains("-p -"), "{run}");
    assert_eq!(server.request_count(), 0);
}

#[test]
fn ux_print_without_a_task_at_a_terminal_does_not_wait_for_typing() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let mut pty = Pty::spawn(
        PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home.path(), project.path()).arg("-p"),
    );
    // Nothing is typed: zcode must not read the terminal as the task.
    pty.wait_for_text("no task");
    let status = pty.wait_exit(WAIT);
    assert_eq!(status.exit_code(), 2, "{}", pty.screen_text());
    assert!(pty.screen_text().contains("-p -"), "{}", pty.screen_text());

    // `-p -` at a terminal: stdin is no pipe to read the task from.
    let mut pty = Pty::spawn(
        PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home.path(), project.path())
            .arg("-p")
            .arg("-"),
    );
    pty.wait_for_text("stdin is a terminal");
    let status = pty.wait_exit(WAIT);
    assert_eq!(status.exit_code(), 2, "{}", pty.screen_text());
}

// ------------------------------------------------------- piped input

#[tokio::test(flavor = "multi_thread")]
async fn ux_piped_stdin_is_the_task() {
    let (_h, server, run) = answered_run(
        &["-p", "--output-format", "json"],
        Input::Piped(b"list the files here\n".to_vec()),
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(json_result(&run)["result"], "Done.");
    assert_eq!(sent_task(&server), "list the files here");
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_piped_data_is_sent_with_the_task() {
    let data = "def main():\n    print(\"hi\")\n";
    let (_h, server, run) = answered_run(
        &["-p", "summarise this"],
        Input::Piped(data.as_bytes().to_vec()),
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(
        sent_task(&server),
        with_piped("summarise this", data.trim_end())
    );
    // Nothing piped: the task alone.
    let (_h, server, run) = answered_run(&["-p", "summarise this"], Input::Piped(Vec::new())).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(sent_task(&server), "summarise this");
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_stdin_redirected_from_a_file_is_sent_with_the_task() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("build.log");
    std::fs::write(&file, "error[E0308]: mismatched types\n").unwrap();
    let (_h, server, run) = answered_run(&["-p", "why?"], Input::File(file)).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(
        sent_task(&server),
        with_piped("why?", "error[E0308]: mismatched types")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_dash_reads_the_task_from_stdin() {
    for args in [&["-p", "-"][..], &["--prompt", "-"][..]] {
        let (_h, server, run) = answered_run(
            args,
            Input::Piped(b"explain the build\nin two lines\n".to_vec()),
        )
        .await;
        assert_eq!(run.code, Some(0), "{args:?}: {run}");
        assert_eq!(sent_task(&server), "explain the build\nin two lines");
    }
    // An empty stdin is no task.
    let (_h, server, run) = answered_run(&["-p", "-"], Input::Piped(Vec::new())).await;
    assert_eq!(run.code, Some(2), "{run}");
    assert!(run.stderr.contains("stdin is empty"), "{run}");
    assert_eq!(server.request_count(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_a_pipe_that_never_closes_does_not_hold_a_task_given_as_argument() {
    let (_h, server, run) = answered_run(&["-p", "say hi"], Input::OpenPipe).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout, "Done.\n", "{run}");
    assert_eq!(sent_task(&server), "say hi");
    assert!(run.stderr.contains("nothing arrived on stdin"), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_a_pipe_that_never_closes_is_no_task() {
    let (_h, server, run) = answered_run(&["-p"], Input::OpenPipe).await;
    assert_eq!(run.code, Some(2), "{run}");
    assert!(run.stderr.contains("no task"), "{run}");
    assert!(run.stderr.contains("nothing arrived on stdin"), "{run}");
    assert_eq!(server.request_count(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_piped_input_over_the_cap_is_refused() {
    let big = vec![b'x'; 1024 * 1024 + 1];
    let (_h, server, run) = answered_run(&["-p", "count the x"], Input::Piped(big)).await;
    assert_eq!(run.code, Some(2), "{run}");
    assert_eq!(run.stdout, "", "{run}");
    assert!(run.stderr.contains("more than 1 MiB"), "{run}");
    assert_eq!(server.request_count(), 0);
    // Exactly at the cap is fine.
    let at_cap = vec![b'x'; 1024 * 1024];
    let (_h, _server, run) = answered_run(&["-p", "count the x"], Input::Piped(at_cap)).await;
    assert_eq!(run.code, Some(0), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_non_utf8_piped_input_is_replaced_with_a_note() {
    let (_h, server, run) = answered_run(
        &["-p", "translate"],
        Input::Piped(b"caf\xe9 cr\xe8me\n".to_vec()),
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(
        sent_task(&server),
        with_piped("translate", "caf\u{FFFD} cr\u{FFFD}me")
    );
    assert!(run.stderr.contains("not valid UTF-8"), "{run}");
    assert!(run.stderr.contains("2 invalid bytes"), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_binary_piped_input_is_refused() {
    let (_h, server, run) = answered_run(
        &["-p", "what is this?"],
        Input::Piped(b"\x7fELF\x02\x01\x01\x00\x00\x00".to_vec()),
    )
    .await;
    assert_eq!(run.code, Some(2), "{run}");
    assert!(run.stderr.contains("binary"), "{run}");
    assert_eq!(server.request_count(), 0);
}

// ------------------------------------------------------- JSON result

/// Every field of the result object, in one naming convention.
const RESULT_FIELDS: &[&str] = &[
    "type",
    "subtype",
    "is_error",
    "result",
    "session_id",
    "model",
    "num_turns",
    "duration_ms",
    "usage",
    "total_cost_usd",
    "end",
    "denials",
    "errors",
];

fn field_names(v: &Value) -> Vec<String> {
    let mut names: Vec<String> = v.as_object().expect("an object").keys().cloned().collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_json_result_has_the_fields_scripts_read() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("call_w", "Write", r#"{"file_path":"a.txt","content":"x"}"#)],
        )),
        Reply::sse(sse::openai_text("Could not write in plan mode.")),
    ]);
    let run = h
        .run(
            &[
                "-p",
                "--mode",
                "plan",
                "--output-format",
                "json",
                "write a.txt",
            ],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let r = json_result(&run);
    let mut want: Vec<String> = RESULT_FIELDS.iter().map(|s| s.to_string()).collect();
    // A run in plan mode says its plan was not approved.
    want.push("plan_approved".to_string());
    want.sort();
    assert_eq!(field_names(&r), want, "{r}");
    assert_eq!(r["plan_approved"], false);
    assert_eq!(r["type"], "result");
    assert_eq!(r["subtype"], "success");
    assert_eq!(r["is_error"], false);
    assert_eq!(r["result"], "Could not write in plan mode.");
    assert_eq!(r["session_id"], h.sessions()[0].id.as_str());
    // Two model replies: the tool call and the answer.
    assert_eq!(r["num_turns"], 2, "{r}");
    assert!(r["duration_ms"].is_u64(), "{r}");
    assert!(r["usage"]["input_tokens"].is_u64(), "{r}");
    assert!(r["usage"]["output_tokens"].is_u64(), "{r}");
    assert!(r["usage"]["cache_read_input_tokens"].is_u64(), "{r}");
    assert!(r["usage"]["cache_creation_input_tokens"].is_u64(), "{r}");
    // A local server's model has no known price: the cost is not known.
    assert_eq!(r["total_cost_usd"], Value::Null, "{r}");
    assert_eq!(r["end"], "completed");
    assert_eq!(r["errors"], Value::Array(Vec::new()));
    let d = &r["denials"][0];
    assert_eq!(
        field_names(d),
        ["call_id", "input", "reason", "rule_id", "tool"],
        "{d}"
    );
    assert_eq!(d["call_id"], "call_w");
    assert_eq!(d["rule_id"], "mode.plan.restricted");
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_stream_json_ends_with_the_same_result_object() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_text("Same.")),
        Reply::sse(sse::openai_text("Same.")),
    ]);
    let json_run = h
        .run(
            &["-p", "--output-format", "json", "hi"],
            &openai_env(&server),
        )
        .await;
    let stream_run = h
        .run(
            &["-p", "--output-format", "stream-json", "hi"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(stream_run.code, Some(0), "{stream_run}");
    let json = json_result(&json_run);
    let last: Value = serde_json::from_str(stream_run.stdout.lines().last().unwrap()).unwrap();
    assert_eq!(field_names(&last), field_names(&json), "{last}");
    let first: Value = serde_json::from_str(stream_run.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(last["session_id"], first["session_id"], "{last}");
    assert_eq!(last["result"], "Same.");
    assert_eq!(last["num_turns"], 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_a_failed_run_says_so_on_stderr_in_every_format() {
    for format in ["text", "json", "stream-json"] {
        let h = Harness::new();
        let server = FakeModelServer::start().await;
        server.enqueue(Reply::status(401));
        let run = h
            .run(
                &["-p", "--output-format", format, "hello"],
                &openai_env(&server),
            )
            .await;
        assert_eq!(run.code, Some(1), "{format}: {run}");
        let errors: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.starts_with("zcode: error: "))
            .collect();
        assert_eq!(errors.len(), 1, "{format}: {run}");
        assert!(errors[0].contains("401"), "{format}: {run}");
        if format != "text" {
            let last: Value = serde_json::from_str(run.stdout.lines().last().unwrap()).unwrap();
            assert_eq!(last["type"], "result");
            assert_eq!(last["subtype"], "error_during_execution", "{last}");
            assert_eq!(last["is_error"], true);
            assert_eq!(last["result"], Value::Null);
            assert_eq!(last["end"], "failed");
            assert_eq!(last["num_turns"], 0);
            assert!(
                last["errors"][0].as_str().unwrap().contains("401"),
                "{last}"
            );
        }
    }
}

// ------------------------------------------------------- without -p

#[test]
fn ux_a_task_without_print_opens_the_terminal_ui_with_it() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(FakeModelServer::start());
    server.enqueue(Reply::sse(sse::openai_text("Hello from the model.")));
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let mut pty = Pty::spawn(
        PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home.path(), project.path())
            .env("OPENAI_BASE_URL", &server.openai_base_url())
            .arg("explain this project"),
    );
    pty.wait_for_text("Hello from the model.");
    assert!(
        pty.screen_text().contains("explain this project"),
        "{}",
        pty.screen_text()
    );
    assert_eq!(sent_task(&server), "explain this project");
    pty.quit();
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_resume_taking_the_task_as_its_id_gets_a_hint() {
    let (_h, server, run) = answered_run(&["-p", "--resume", "fix the bug"], Input::Null).await;
    assert_eq!(run.code, Some(2), "{run}");
    assert!(
        run.stderr.contains("--resume took \"fix the bug\""),
        "{run}"
    );
    assert!(run.stderr.contains("--resume=ID"), "{run}");
    assert_eq!(server.request_count(), 0);
}
