//! Bad input and faults of `zcode acp`: malformed JSON, unknown methods,
//! wrong parameter types, an oversize message, a prompt for an unknown
//! session, a second prompt while one runs, a client that goes away in
//! the middle of a turn. Each gets the JSON-RPC error the protocol
//! defines (or the cancel), nothing is lost from the session, the process
//! never hangs or panics, and the connection still works afterwards.

#![cfg(unix)]

mod support;

use serde_json::{Value, json};
use std::process::ExitStatus;
use support::acp_client::{
    AcpClient, ClientOptions, PromptCall, RawAcp, WAIT, error_code, has_user_message,
    last_tool_result, stalled_reply, text_reply, tool_reply, which_question, write_reply,
};
use support::fake_model_server::FakeModelServer;
use support::headless::Harness;
use zcode::store::entry_kind;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

use support::acp_client::acp_setup as setup;

/// The connection still works: a new session is made.
async fn still_works(raw: &mut RawAcp, h: &Harness, id: i64) {
    let response = raw.new_session(h, id).await;
    assert!(
        response["result"]["sessionId"].is_string(),
        "{response}\n{}",
        raw.diagnostics()
    );
}

fn assert_no_panic(stderr: &str) {
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A yolo turn that has written `done.txt` (as `w1`) and is held in the
/// middle of its second reply, whose first words the client has seen (so
/// the slow reply is taken and not left for a next turn).
struct HeldTurn {
    h: Harness,
    server: FakeModelServer,
    client: AcpClient,
    session: String,
    turn: PromptCall,
}

async fn held_turn_after_a_write(slow: &str, prompt: &str) -> HeldTurn {
    let (h, server) = setup(json!({"permission": {"mode": "yolo"}})).await;
    server.enqueue_all([
        write_reply("w1", "done.txt", "done\n"),
        // An answer that would take two minutes after its first words.
        stalled_reply(slow, 120),
    ]);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let turn = client.prompt(&session, prompt);
    client.wait_tool_status("w1", "completed").await;
    client
        .wait_first_words("the slow reply's first words")
        .await;
    HeldTurn {
        h,
        server,
        client,
        session,
        turn,
    }
}

/// The client goes away; zcode exits on its own, without a panic.
async fn disconnect_and_exit(client: &mut AcpClient) -> ExitStatus {
    client.disconnect().await;
    let status = client.wait_exit().await;
    assert_no_panic(&client.stderr());
    status
}

// ------------------------------------------------------------ raw input

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_malformed_json_is_a_parse_error_and_the_connection_goes_on() {
    let (h, _server) = setup(json!({})).await;
    let mut raw = RawAcp::start_initialized(&h).await;
    for garbage in [
        "{not json",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"session/new\",",
        "\u{1b}[31mhello",
    ] {
        raw.send_line(garbage).await;
        let response = raw.next_response().await;
        assert_eq!(
            error_code(&response),
            Some(PARSE_ERROR),
            "{garbage}: {response}"
        );
        assert_eq!(response["id"], Value::Null, "{response}");
    }
    // Bytes that are not UTF-8.
    raw.send_bytes(b"\xff\xfe{\"a\":1}\n").await;
    let response = raw.next_response().await;
    assert_eq!(error_code(&response), Some(PARSE_ERROR), "{response}");
    still_works(&mut raw, &h, 2).await;
    assert_no_panic(&raw.stderr());
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_invalid_envelopes_are_invalid_request() {
    let (h, _server) = setup(json!({})).await;
    let mut raw = RawAcp::start_initialized(&h).await;
    for envelope in [
        json!({"jsonrpc": "2.0", "id": 2, "method": 7}),
        json!({"jsonrpc": "2.0", "id": {"nested": true}, "method": "session/new"}),
        json!([{"jsonrpc": "2.0", "id": 3, "method": "session/new", "params": {}}]),
        json!("just a string"),
    ] {
        raw.send(&envelope).await;
        let response = raw.next_response().await;
        assert_eq!(
            error_code(&response),
            Some(INVALID_REQUEST),
            "{envelope}: {response}"
        );
    }
    still_works(&mut raw, &h, 4).await;
    assert_no_panic(&raw.stderr());
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_unknown_method_is_method_not_found_and_an_unknown_notification_is_ignored() {
    let (h, _server) = setup(json!({})).await;
    let mut raw = RawAcp::start_initialized(&h).await;
    let response = raw
        .request(json!(2), "session/teleport", json!({"to": "mars"}))
        .await;
    assert_eq!(error_code(&response), Some(METHOD_NOT_FOUND), "{response}");
    // A notification gets no answer at all: the next response is the
    // next request's.
    raw.send(&json!({"jsonrpc": "2.0", "method": "session/teleported", "params": {}}))
        .await;
    raw.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "session/new",
        "params": {"cwd": h.project(), "mcpServers": []}}))
        .await;
    let next = raw.next_response().await;
    assert_eq!(next["id"], 3, "{next}");
    assert!(next["result"]["sessionId"].is_string(), "{next}");
    assert_no_panic(&raw.stderr());
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_wrong_parameter_types_are_invalid_params() {
    let (h, server) = setup(json!({})).await;
    let mut raw = RawAcp::start_initialized(&h).await;
    let cases = [
        ("session/new", json!({"cwd": 42, "mcpServers": []})),
        (
            "session/new",
            json!({"cwd": h.project(), "mcpServers": "none"}),
        ),
        // ACP requires an absolute cwd.
        (
            "session/new",
            json!({"cwd": "relative/dir", "mcpServers": []}),
        ),
        ("session/new", Value::Null),
        ("session/prompt", json!({"sessionId": 7, "prompt": "text"})),
        (
            "session/prompt",
            json!({"sessionId": "x", "prompt": [{"type": "text"}]}),
        ),
        (
            "session/set_mode",
            json!({"sessionId": ["a"], "modeId": true}),
        ),
    ];
    for (i, (method, params)) in cases.into_iter().enumerate() {
        let id = json!(10 + i);
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params.clone();
        }
        raw.send(&message).await;
        let response = raw.response_to(&id).await;
        assert_eq!(
            error_code(&response),
            Some(INVALID_PARAMS),
            "{method} {params}: {response}"
        );
    }
    // A notification with wrong types has nobody to answer: ignored.
    raw.send(&json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": {}}}))
        .await;
    still_works(&mut raw, &h, 2).await;
    assert_eq!(server.request_count(), 0, "nothing reached the model");
    assert_no_panic(&raw.stderr());
}

/// A single line far beyond any sane message: refused with an error, never
/// sent to the model, and the next line is read as usual.
#[tokio::test(flavor = "multi_thread")]
async fn bad_input_oversize_message_is_an_error_and_the_connection_goes_on() {
    let (h, server) = setup(json!({})).await;
    let mut raw = RawAcp::start_initialized(&h).await;
    let session = raw.new_session_id(&h, 2).await;
    let huge = "x".repeat(64 << 20);
    let line = json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": huge}]}})
    .to_string();
    drop(huge);
    raw.send_line(&line).await;
    drop(line);
    let response = raw.next_response().await;
    let code = error_code(&response);
    assert!(
        code == Some(INVALID_REQUEST) || code == Some(INVALID_PARAMS) || code == Some(PARSE_ERROR),
        "{}",
        response.to_string().chars().take(500).collect::<String>()
    );
    assert_eq!(server.request_count(), 0, "the model never saw it");
    still_works(&mut raw, &h, 4).await;
    assert_no_panic(&raw.stderr());
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_stdin_closed_while_idle_exits_cleanly() {
    let (h, _server) = setup(json!({})).await;
    let mut raw = RawAcp::start_initialized(&h).await;
    raw.close_stdin();
    let status = raw.wait_exit().await;
    assert_eq!(status.code(), Some(0), "{}", raw.diagnostics());
    assert_no_panic(&raw.stderr());
}

// ------------------------------------------------------------ sessions

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_prompt_for_an_unknown_session_is_session_not_found() {
    let (h, server) = setup(json!({})).await;
    let client = AcpClient::start(&h, ClientOptions::plain()).await;
    let error = client
        .prompt("sess_no_such_session", "hello?")
        .response()
        .await
        .expect_err("no such session");
    // The protocol's resource-not-found, naming the session.
    assert_eq!(error.code, -32002, "{error:?}");
    assert_eq!(
        error.data.as_ref().and_then(|d| d.get("sessionId")),
        Some(&json!("sess_no_such_session")),
        "{error:?}"
    );
    for (method, params) in [
        (
            "session/set_mode",
            json!({"sessionId": "sess_none", "modeId": "edit"}),
        ),
        (
            "session/set_config_option",
            json!({"sessionId": "sess_none", "configId": "auto_continue", "value": "off"}),
        ),
    ] {
        let error = client.request(method, params).await.expect_err(method);
        assert_eq!(error.code, -32002, "{method}: {error:?}");
    }
    // Cancel is a notification: nothing to answer, nothing breaks.
    client.cancel("sess_no_such_session").await;
    server.enqueue(text_reply("Here."));
    let session = client.new_session(h.project()).await;
    assert_eq!(client.run_turn(&session, "hello").await, "end_turn");
    assert_no_panic(&client.stderr());
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_second_prompt_while_one_runs_is_invalid_request() {
    let (h, server) = setup(json!({"permission": {"mode": "build"}})).await;
    server.enqueue_all([write_reply("w1", "a.txt", "a"), text_reply("First done.")]);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let first = client.prompt(&session, "write a");
    // The first turn is certainly running while it waits for the answer.
    let ask = client.next_permission().await;
    let error = client
        .prompt(&session, "and another thing")
        .response()
        .await
        .expect_err("one turn at a time");
    assert_eq!(error.code, INVALID_REQUEST as i32, "{error:?}");
    ask.select("allow_once");
    assert_eq!(first.stop_reason().await, "end_turn");
    assert_eq!(server.request_count(), 2);
    assert!(
        !server.requests()[1]
            .body_text()
            .contains("and another thing"),
        "the refused prompt never reached the model"
    );
    // Afterwards a prompt is taken again.
    server.enqueue(text_reply("Second."));
    assert_eq!(client.run_turn(&session, "now").await, "end_turn");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_session_new_in_a_missing_directory_is_invalid_params() {
    let (h, _server) = setup(json!({})).await;
    let client = AcpClient::start(&h, ClientOptions::plain()).await;
    let missing = h.project().join("no").join("such").join("dir");
    let error = client
        .request("session/new", json!({"cwd": missing, "mcpServers": []}))
        .await
        .expect_err("no such directory");
    assert_eq!(error.code, INVALID_PARAMS as i32, "{error:?}");
    client.new_session(h.project()).await;
}

/// A cancel sent right after the prompt, before any update, is not lost:
/// the turn ends cancelled instead of running on.
#[tokio::test(flavor = "multi_thread")]
async fn cancel_right_after_the_prompt_is_not_lost() {
    let (h, server) = setup(json!({})).await;
    // Should the cancel be lost, this reply holds the turn past the wait.
    server.guard(|request| {
        if request.body_text().contains("\"next\"") {
            return Some(text_reply("Next."));
        }
        Some(stalled_reply("slow", 600))
    });
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let turn = client.prompt(&session, "quick");
    client.cancel(&session).await;
    assert_eq!(turn.stop_reason().await, "cancelled");
    // A cancel with nothing running changes nothing.
    client.cancel(&session).await;
    assert_eq!(client.run_turn(&session, "next").await, "end_turn");
    assert!(
        client.agent_text().ends_with("Next."),
        "{}",
        client.diagnostics()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn client_disconnect_while_idle_exits_zero_with_the_session_saved() {
    let (h, server) = setup(json!({})).await;
    server.enqueue(text_reply("Idle now."));
    let (mut client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    assert_eq!(client.run_turn(&session, "hello").await, "end_turn");
    let status = disconnect_and_exit(&mut client).await;
    assert_eq!(status.code(), Some(0), "{}", client.diagnostics());
    let kinds: Vec<String> = saved(&h).into_iter().map(|e| e.kind).collect();
    assert!(
        kinds.contains(&entry_kind::ASSISTANT_MESSAGE.to_string()),
        "{kinds:?}"
    );
}

// ------------------------------------------------------------ disconnect

/// The store's only session and its entries.
fn saved(h: &Harness) -> Vec<zcode::store::EntryRecord> {
    let sessions = h.sessions();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    h.entries(&sessions[0].id)
}

#[tokio::test(flavor = "multi_thread")]
async fn client_disconnect_mid_turn_cancels_saves_what_was_done_and_exits() {
    let HeldTurn {
        h,
        server,
        mut client,
        session: _session,
        turn: _turn,
    } = held_turn_after_a_write("Now the long part", "write done.txt then explain").await;
    let status = disconnect_and_exit(&mut client).await;
    assert!(status.code().is_some(), "exited, not killed: {status:?}");
    assert!(
        server.wait_for_client_aborts(1, WAIT).await,
        "the model stream was closed"
    );
    let entries = saved(&h);
    let kinds: Vec<&str> = entries.iter().map(|e| e.kind.as_str()).collect();
    assert!(has_user_message(&entries, "write done.txt"), "{kinds:?}");
    // The call (kept with the assistant message that made it) and its result.
    assert!(
        entries.iter().any(
            |e| e.kind == entry_kind::ASSISTANT_MESSAGE && e.payload.to_string().contains("w1")
        ),
        "{entries:#?}"
    );
    assert!(
        entries
            .iter()
            .any(|e| e.kind == entry_kind::TOOL_RESULT && e.payload.to_string().contains("w1")),
        "{entries:#?}"
    );
    assert_eq!(
        std::fs::read_to_string(h.project().join("done.txt")).unwrap(),
        "done\n"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn client_disconnect_while_a_permission_is_open_denies_and_exits() {
    let (h, server) = setup(json!({"permission": {"mode": "build"}})).await;
    server.enqueue_all([write_reply("w1", "x.txt", "x"), text_reply("Never.")]);
    let (mut client, session) =
        AcpClient::start_with_session(&h, ClientOptions::with_forms()).await;
    let _turn = client.prompt(&session, "write x");
    client.next_permission().await.hold();
    let status = disconnect_and_exit(&mut client).await;
    assert!(status.code().is_some(), "{status:?}");
    assert!(!h.project().join("x.txt").exists());
    let entries = saved(&h);
    assert!(
        entries.iter().any(|e| e.kind == entry_kind::USER_MESSAGE),
        "{entries:#?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn client_disconnect_then_load_shows_the_saved_turn() {
    let HeldTurn {
        h,
        server,
        mut client,
        session,
        turn: _turn,
    } = held_turn_after_a_write("Half", "write and go on").await;
    client.disconnect().await;
    client.wait_exit().await;
    drop(client);

    let client = AcpClient::start(&h, ClientOptions::plain()).await;
    client.load_session(&session, h.project()).await;
    assert!(
        client
            .updates_of("tool_call")
            .iter()
            .any(|c| c["toolCallId"] == "w1"),
        "{:#?}",
        client.updates()
    );
    server.enqueue(text_reply("Resumed."));
    assert_eq!(client.run_turn(&session, "go on").await, "end_turn");
}

// ------------------------------------------------------------ late answers

#[tokio::test(flavor = "multi_thread")]
async fn late_permission_answer_after_cancel_is_ignored() {
    let (h, server) = setup(json!({"permission": {"mode": "build"}})).await;
    server.enqueue_all([
        write_reply("w1", "late.txt", "late"),
        text_reply("Never read."),
    ]);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let turn = client.prompt(&session, "write late");
    let ask = client.next_permission().await;
    client.cancel(&session).await;
    assert_eq!(turn.stop_reason().await, "cancelled");
    // The editor's dialog answers after the turn is gone.
    ask.select("allow_once");
    let guard = |request: &support::fake_model_server::RecordedRequest| {
        request
            .body_text()
            .contains("after")
            .then(|| text_reply("After."))
    };
    server.guard(guard);
    assert_eq!(client.run_turn(&session, "after").await, "end_turn");
    assert!(!h.project().join("late.txt").exists());
    assert_no_panic(&client.stderr());
}

#[tokio::test(flavor = "multi_thread")]
async fn late_question_answer_after_auto_continue_is_ignored() {
    let (h, server) = setup(json!({"acp": support::acp_client::auto_continue(1, 20)})).await;
    let questions = which_question();
    server.enqueue_all([
        tool_reply("q1", "AskUserQuestion", &questions),
        text_reply("Went on."),
        text_reply("Next turn."),
    ]);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::with_forms()).await;
    let turn = client.prompt(&session, "ask me");
    let form = client.next_elicitation().await;
    assert_eq!(turn.stop_reason().await, "end_turn");
    // The user answers the withdrawn form anyway.
    form.accept(json!({"q1": "A"}));
    assert_eq!(client.run_turn(&session, "next").await, "end_turn");
    assert!(client.agent_text().ends_with("Next turn."));
    assert_no_panic(&client.stderr());
}

// ------------------------------------------------------------ signals

/// An editor stopping its agent with a signal mid-turn: the turn is
/// interrupted and saved, and the process exits on its own.
#[tokio::test(flavor = "multi_thread")]
async fn signal_mid_turn_saves_the_session_and_exits() {
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        let HeldTurn {
            h,
            server: _server,
            mut client,
            session: _session,
            turn: _turn,
        } = held_turn_after_a_write("Slow part", "write then talk").await;
        let pid = client.pid().expect("running") as libc::pid_t;
        // SAFETY: signalling the child this test started.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
        let status = client.wait_exit().await;
        assert!(status.code().is_some(), "signal {signal}: {status:?}");
        assert_no_panic(&client.stderr());
        let entries = saved(&h);
        assert!(
            entries
                .iter()
                .any(|e| e.kind == entry_kind::TOOL_RESULT && e.payload.to_string().contains("w1")),
            "signal {signal}: {entries:#?}"
        );
    }
}

// ------------------------------------------------------------ client errors

/// A client whose permission dialog answers with an error: a deny, and the
/// turn goes on.
#[tokio::test(flavor = "multi_thread")]
async fn client_error_answering_a_permission_is_a_deny() {
    let (h, server) = setup(json!({"permission": {"mode": "build"}})).await;
    server.enqueue_all([write_reply("w1", "x.txt", "x"), text_reply("Not written.")]);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let turn = client.prompt(&session, "write x");
    client.next_permission().await.fail();
    assert_eq!(turn.stop_reason().await, "end_turn");
    assert!(!h.project().join("x.txt").exists());
    client.wait_tool_status("w1", "failed").await;
    assert_no_panic(&client.stderr());
}

/// A question form answered with an error or with an action zcode does
/// not know: the questionnaire is rejected, nothing is made up.
#[tokio::test(flavor = "multi_thread")]
async fn client_error_or_unknown_action_answering_a_question_rejects_it() {
    for answer in ["error", "unknown action"] {
        let (h, server) = setup(json!({})).await;
        let questions = which_question();
        server.enqueue_all([
            tool_reply("q1", "AskUserQuestion", &questions),
            text_reply("Went on."),
        ]);
        let (client, session) =
            AcpClient::start_with_session(&h, ClientOptions::with_forms()).await;
        let turn = client.prompt(&session, "ask me");
        let form = client.next_elicitation().await;
        match answer {
            "error" => form.fail(),
            _ => form.respond_raw(json!({"action": "_snooze", "until": "later"})),
        }
        assert_eq!(turn.stop_reason().await, "end_turn", "{answer}");
        let result = last_tool_result(&server, "q1");
        assert!(result.contains("NOT executed"), "{answer}: {result}");
        assert_no_panic(&client.stderr());
    }
}

/// A client asking for a newer protocol than v1 is answered with v1.
#[tokio::test(flavor = "multi_thread")]
async fn initialize_with_a_newer_protocol_version_is_answered_with_v1() {
    let (h, _server) = setup(json!({})).await;
    let mut raw = RawAcp::start(&h).await;
    let response = raw
        .request(
            json!(1),
            "initialize",
            json!({"protocolVersion": 99, "clientCapabilities": {}}),
        )
        .await;
    assert_eq!(response["result"]["protocolVersion"], 1, "{response}");
    still_works(&mut raw, &h, 2).await;
}

/// Two sessions mid-turn when the client goes: both are interrupted and
/// saved, and the process exits.
#[tokio::test(flavor = "multi_thread")]
async fn client_disconnect_with_two_sessions_mid_turn_saves_both() {
    let (h, server) = setup(json!({})).await;
    server.guard(|request| {
        let body = request.body_text();
        let word = if body.contains("first session") {
            "one"
        } else {
            "two"
        };
        Some(stalled_reply(&format!("partial {word}"), 120))
    });
    let mut client = AcpClient::start(&h, ClientOptions::plain()).await;
    let a = client.new_session(h.project()).await;
    let b = client.new_session(h.project()).await;
    let _ta = client.prompt(&a, "first session");
    let _tb = client.prompt(&b, "second session");
    for session in [&a, &b] {
        client
            .wait_for("both sessions streaming", |s| {
                s.updates_of_session(session, "agent_message_chunk")
            })
            .await;
    }
    disconnect_and_exit(&mut client).await;
    let sessions = h.sessions();
    assert_eq!(sessions.len(), 2);
    for (session, text) in [(&a, "first session"), (&b, "second session")] {
        let entries = h.entries(session);
        assert!(has_user_message(&entries, text), "{session}: {entries:#?}");
    }
    assert!(server.wait_for_client_aborts(2, WAIT).await);
}

/// A broken config file reaches the user, either as an error the client
/// can show or as an exit with the reason on stderr; never as text on
/// stdout, never as a hang.
#[tokio::test(flavor = "multi_thread")]
async fn broken_config_is_an_error_or_an_exit_with_the_reason_never_stdout_noise() {
    let h = Harness::new();
    std::fs::write(h.home().join("config.json"), "{ this is not json").unwrap();
    let mut raw = RawAcp::start(&h).await;
    raw.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {}}}))
        .await;
    raw.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
        "params": {"cwd": h.project(), "mcpServers": []}}))
        .await;
    // Every line must be JSON-RPC (next_line_or_end panics otherwise).
    let mut answer = None;
    while let Some(message) = raw.next_message_or_end().await {
        if message["id"] == 2 {
            answer = Some(message);
            break;
        }
    }
    match answer {
        Some(answer) => {
            assert!(answer.get("error").is_some(), "{answer}");
            assert!(answer.to_string().contains("config.json"), "{answer}");
        }
        None => {
            let status = raw.wait_exit().await;
            assert_ne!(status.code(), Some(0), "{}", raw.diagnostics());
            assert!(
                raw.stderr().contains("config.json"),
                "{}",
                raw.diagnostics()
            );
        }
    }
    assert_no_panic(&raw.stderr());
}
