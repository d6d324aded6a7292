//! Tool calls and approvals of `zcode acp` as an editor sees them: the
//! tool call's story (tool_call, pending, the permission request, the
//! answer, completed with its output; Write/Edit with a diff), and every
//! answer a client can give `session/request_permission` (APPR-6, FULL-1):
//! each offered option, an option id zcode did not offer, `cancelled`,
//! no answer at all, and the deny feedback form (APPR-7).

#![cfg(unix)]

mod support;

use serde_json::{Value, json};
use support::acp_client::{
    AcpClient, ClientOptions, PromptCall, acp_setup, assert_tool_call_story, bash_reply, diff_of,
    last_tool_result, read_reply, text_reply, tool_reply, write_reply,
};
use support::fake_model_server::FakeModelServer;
use support::headless::Harness;

async fn setup() -> (Harness, FakeModelServer) {
    acp_setup(json!({"permission": {"mode": "build"}})).await
}

/// One Write of `content` to `file`, then a closing text.
fn script_write(server: &FakeModelServer, id: &str, file: &str, content: &str) {
    server.enqueue_all([write_reply(id, file, content), text_reply("Done.")]);
}

/// A build session whose running turn asks to Write `x.txt` (as `w1`).
async fn write_x_asked(
    options: ClientOptions,
) -> (Harness, FakeModelServer, AcpClient, String, PromptCall) {
    let (h, server) = setup().await;
    script_write(&server, "w1", "x.txt", "x");
    let (client, session) = AcpClient::start_with_session(&h, options).await;
    let turn = client.prompt(&session, "write x");
    (h, server, client, session, turn)
}

const NOT_EXECUTED: &str = "NOT executed";

// ------------------------------------------------------------ round trips

#[tokio::test(flavor = "multi_thread")]
async fn tool_round_trip_write_is_announced_pending_asked_allowed_and_completed_with_a_diff() {
    let (h, server) = setup().await;
    script_write(&server, "w1", "hello.txt", "hi\n");
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let turn = client.prompt(&session, "create hello.txt");

    let ask = client.next_permission().await;
    assert_eq!(ask.request["sessionId"], session.as_str());
    assert_eq!(ask.tool_call_id(), "w1");
    // Announced before the question, pending, with what it touches.
    let call = client
        .wait_update("tool_call w1", |u| {
            u["sessionUpdate"] == "tool_call" && u["toolCallId"] == "w1"
        })
        .await;
    assert!(
        call["status"].is_null() || call["status"] == "pending",
        "{call:#}"
    );
    assert_eq!(call["kind"], "edit", "{call:#}");
    assert!(
        call["title"].as_str().is_some_and(|t| !t.is_empty()),
        "{call:#}"
    );
    assert_eq!(
        call["rawInput"],
        json!({"file_path": "hello.txt", "content": "hi\n"}),
        "{call:#}"
    );
    let location = call["locations"][0]["path"].as_str().unwrap_or_default();
    assert!(location.ends_with("hello.txt"), "{call:#}");
    assert!(
        std::path::Path::new(location).is_absolute(),
        "ACP paths are absolute: {call:#}"
    );
    assert!(
        !h.project().join("hello.txt").exists(),
        "nothing before the answer"
    );
    // Awaiting approval is `pending` in ACP; `in_progress` means running.
    let before: Vec<Value> = client
        .updates_of("tool_call_update")
        .into_iter()
        .filter(|u| u["toolCallId"] == "w1")
        .collect();
    assert!(
        before.iter().all(|u| u["status"] != "in_progress"),
        "w1 is not running before it is allowed: {before:#?}"
    );

    ask.select("allow_once");
    let done = client.wait_tool_status("w1", "completed").await;
    assert_eq!(turn.stop_reason().await, "end_turn");
    assert_eq!(
        std::fs::read_to_string(h.project().join("hello.txt")).unwrap(),
        "hi\n"
    );
    // The result carries the diff of the new file.
    let updates = client.update_bodies();
    let diff =
        diff_of(&updates, "w1").unwrap_or_else(|| panic!("a diff for w1: {done:#} {updates:#?}"));
    assert!(
        diff["path"].as_str().unwrap().ends_with("hello.txt"),
        "{diff:#}"
    );
    assert_eq!(diff["newText"], "hi\n", "{diff:#}");
    assert!(
        diff["oldText"].is_null(),
        "a new file has no old text: {diff:#}"
    );
    assert_tool_call_story(&updates, "w1");
    assert!(!last_tool_result(&server, "w1").contains(NOT_EXECUTED));
    client.assert_clean_wire();
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_round_trip_edit_carries_the_old_and_new_text() {
    let (h, server) = setup().await;
    std::fs::write(h.project().join("a.txt"), "one\ntwo\n").unwrap();
    server.enqueue_all([
        read_reply("r1", "a.txt"),
        tool_reply(
            "e1",
            "Edit",
            r#"{"file_path":"a.txt","old_string":"two","new_string":"three"}"#,
        ),
        text_reply("Edited."),
    ]);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let turn = client.prompt(&session, "change two to three");
    let ask = client.next_permission().await;
    assert_eq!(ask.tool_call_id(), "e1", "Read is not asked in build");
    ask.select("allow_once");
    assert_eq!(turn.stop_reason().await, "end_turn");
    assert_eq!(
        std::fs::read_to_string(h.project().join("a.txt")).unwrap(),
        "one\nthree\n"
    );
    let updates = client.update_bodies();
    let read = updates
        .iter()
        .find(|u| u["sessionUpdate"] == "tool_call" && u["toolCallId"] == "r1")
        .expect("the Read is announced");
    assert_eq!(read["kind"], "read", "{read:#}");
    let diff = diff_of(&updates, "e1").unwrap_or_else(|| panic!("a diff for e1: {updates:#?}"));
    // The whole file or the changed part, as long as it is the change.
    let old = diff["oldText"].as_str().unwrap_or_default();
    let new = diff["newText"].as_str().unwrap_or_default();
    assert!(old.contains("two") && !old.contains("three"), "{diff:#}");
    assert!(new.contains("three") && !new.contains("two"), "{diff:#}");
    assert_tool_call_story(&updates, "r1");
    assert_tool_call_story(&updates, "e1");
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_round_trip_bash_is_an_execute_call_whose_output_reaches_the_client() {
    let (h, server) = setup().await;
    server.enqueue_all([
        bash_reply("b1", "echo made-by-bash > out.txt && cat out.txt"),
        text_reply("Ran it."),
    ]);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let turn = client.prompt(&session, "run it");
    let ask = client.next_permission().await;
    assert_eq!(ask.tool_call_id(), "b1");
    ask.select("allow_once");
    let done = client.wait_tool_status("b1", "completed").await;
    assert_eq!(turn.stop_reason().await, "end_turn");
    let call = &client.updates_of("tool_call")[0];
    assert_eq!(call["kind"], "execute", "{call:#}");
    let output = done["content"].to_string();
    assert!(output.contains("made-by-bash"), "{done:#}");
}

// ------------------------------------------------------------ the options

/// `(id, kind, name)` sorted by id.
fn sorted(mut options: Vec<(String, String, String)>) -> Vec<(String, String, String)> {
    options.sort();
    options
}

fn option(id: &str, kind: &str, name: &str) -> (String, String, String) {
    (id.to_string(), kind.to_string(), name.to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn permission_options_of_a_write_in_build_are_the_decided_ids_kinds_and_names() {
    let (_h, _server, client, _session, turn) = write_x_asked(ClientOptions::plain()).await;
    let ask = client.next_permission().await;
    let options = ask.options();
    assert_eq!(options.first().unwrap().0, "allow_once", "{options:?}");
    assert_eq!(options.last().unwrap().0, "deny", "{options:?}");
    // The project option may name the rule it saves after the decided text.
    let options = options
        .into_iter()
        .map(|(id, kind, name)| {
            let name = match name.split_once(": ") {
                Some((head, _)) if id == "allow_always_project" => head.to_string(),
                _ => name,
            };
            (id, kind, name)
        })
        .collect();
    assert_eq!(
        sorted(options),
        sorted(vec![
            option("allow_once", "allow_once", "Allow once"),
            option(
                "allow_always_project",
                "allow_always",
                "Always allow in this project"
            ),
            option(
                "allow_edits_session",
                "allow_always",
                "Allow edits for the rest of this session"
            ),
            option(
                "full_access",
                "allow_always",
                "Full access: allow everything for this session"
            ),
            option("deny", "reject_once", "Deny"),
        ])
    );
    ask.select("deny");
    turn.stop_reason().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn permission_options_of_a_command_offer_no_edit_mode() {
    let (h, server) = setup().await;
    server.enqueue_all([bash_reply("b1", "touch made"), text_reply("Done.")]);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let turn = client.prompt(&session, "touch");
    let ask = client.next_permission().await;
    assert_eq!(
        sorted(
            ask.option_ids()
                .into_iter()
                .map(|id| (id, String::new(), String::new()))
                .collect()
        ),
        sorted(
            ["allow_once", "allow_always_project", "full_access", "deny"]
                .iter()
                .map(|id| option(id, "", ""))
                .collect()
        )
    );
    ask.select("deny");
    turn.stop_reason().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn permission_allow_always_project_saves_a_rule_that_answers_the_next_call() {
    let (h, server) = setup().await;
    let args = r#"{"file_path":"p.txt","content":"one"}"#;
    server.enqueue_all([tool_reply("w1", "Write", args), text_reply("First.")]);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let turn = client.prompt(&session, "write p");
    client
        .next_permission()
        .await
        .select("allow_always_project");
    assert_eq!(turn.stop_reason().await, "end_turn");
    client.wait_tool_status("w1", "completed").await;

    // A new session of the same project: the rule answers (after the
    // Read that writing an existing file needs).
    let again = client.new_session(h.project()).await;
    server.enqueue_all([
        read_reply("r2", "p.txt"),
        write_reply("w2", "p.txt", "two"),
        text_reply("Second."),
    ]);
    assert_eq!(client.run_turn(&again, "write p again").await, "end_turn");
    assert_eq!(
        client.permission_log().len(),
        1,
        "{:#?}",
        client.permission_log()
    );
    assert_eq!(
        std::fs::read_to_string(h.project().join("p.txt")).unwrap(),
        "two"
    );
    let listed = h.run(&["permission", "list"], &[]).await;
    assert!(listed.stdout.contains("Write"), "{listed}");
}

#[tokio::test(flavor = "multi_thread")]
async fn permission_allow_edits_session_switches_to_edit_mode() {
    let (h, server) = setup().await;
    server.enqueue_all([
        write_reply("w1", "a.txt", "a"),
        write_reply("w2", "b.txt", "b"),
        text_reply("Both."),
    ]);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let turn = client.prompt(&session, "write a and b");
    client.next_permission().await.select("allow_edits_session");
    assert_eq!(turn.stop_reason().await, "end_turn");
    client.wait_mode("edit").await;
    assert_eq!(client.permission_log().len(), 1, "b.txt was not asked");
    assert!(h.project().join("a.txt").exists());
    assert!(h.project().join("b.txt").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn permission_full_access_switches_the_session_to_yolo() {
    let (h, server) = setup().await;
    server.enqueue_all([
        bash_reply("b1", "touch one"),
        bash_reply("b2", "touch two"),
        text_reply("Both."),
    ]);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let turn = client.prompt(&session, "touch both");
    client.next_permission().await.select("full_access");
    assert_eq!(turn.stop_reason().await, "end_turn");
    client.wait_mode("yolo").await;
    assert_eq!(client.permission_log().len(), 1, "two was not asked");
    assert!(h.project().join("one").exists());
    assert!(h.project().join("two").exists());
    assert_eq!(h.sessions()[0].execution.mode.to_string(), "yolo");
}

/// A denied call: not run, told to the model, `failed` for the client.
async fn assert_denied(client: &AcpClient, server: &FakeModelServer, h: &Harness, call: &str) {
    let failed = client.wait_tool_status(call, "failed").await;
    assert!(!h.project().join("x.txt").exists(), "{failed:#}");
    let result = last_tool_result(server, call);
    assert!(result.contains(NOT_EXECUTED), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn permission_deny_without_forms_denies_and_asks_nothing_more() {
    let (h, server, client, _session, turn) = write_x_asked(ClientOptions::plain()).await;
    client.next_permission().await.select("deny");
    assert_eq!(turn.stop_reason().await, "end_turn");
    assert_denied(&client, &server, &h, "w1").await;
    assert!(
        client.other_requests().is_empty(),
        "{:?}",
        client.other_requests()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn permission_deny_with_forms_asks_what_instead_and_the_model_reads_it() {
    let (h, server, client, session, turn) = write_x_asked(ClientOptions::with_forms()).await;
    client.next_permission().await.select("deny");
    let form = client.next_elicitation().await;
    assert!(
        form.message().ends_with("What should it do instead?"),
        "{:#}",
        form.request
    );
    assert_eq!(form.request["mode"], "form", "{:#}", form.request);
    assert_eq!(
        form.request["sessionId"],
        session.as_str(),
        "{:#}",
        form.request
    );
    assert_eq!(
        form.properties()["instead"]["type"],
        "string",
        "{:#}",
        form.request
    );
    let required = form.request["requestedSchema"]["required"].clone();
    assert!(
        required.is_null() || required == json!([]),
        "the feedback is optional: {:#}",
        form.request
    );
    form.accept(json!({"instead": "write it to y.txt instead"}));
    assert_eq!(turn.stop_reason().await, "end_turn");
    assert_denied(&client, &server, &h, "w1").await;
    assert!(
        last_tool_result(&server, "w1").contains("write it to y.txt instead"),
        "{}",
        last_tool_result(&server, "w1")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn permission_deny_feedback_form_declined_is_a_plain_deny() {
    let (h, server, client, _session, turn) = write_x_asked(ClientOptions::with_forms()).await;
    client.next_permission().await.select("deny");
    client.next_elicitation().await.decline();
    assert_eq!(turn.stop_reason().await, "end_turn");
    assert_denied(&client, &server, &h, "w1").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn permission_option_id_not_offered_is_a_deny() {
    let (h, server, client, session, turn) = write_x_asked(ClientOptions::plain()).await;
    let ask = client.next_permission().await;
    assert!(
        !ask.option_ids()
            .contains(&"allow_always_session".to_string())
    );
    // Neither an id of another request's options nor a made-up one counts.
    ask.select("allow_always_session");
    assert_eq!(turn.stop_reason().await, "end_turn");
    assert_denied(&client, &server, &h, "w1").await;

    script_write(&server, "w2", "x.txt", "x");
    let turn = client.prompt(&session, "write x again");
    client.next_permission().await.select("yes-please-anything");
    assert_eq!(turn.stop_reason().await, "end_turn");
    assert_denied(&client, &server, &h, "w2").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn permission_cancelled_outcome_is_a_deny_without_the_feedback_form() {
    let (h, _server, client, _session, turn) = write_x_asked(ClientOptions::with_forms()).await;
    client.next_permission().await.cancel();
    let stop = turn.stop_reason().await;
    assert!(stop == "end_turn" || stop == "cancelled", "{stop}");
    assert!(!h.project().join("x.txt").exists());
    assert!(
        client.elicitation_log().is_empty(),
        "a cancel is not the user's deny: {:#?}",
        client.elicitation_log()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn permission_never_answered_then_session_cancel_ends_the_turn_cancelled() {
    let (h, server, client, session, turn) = write_x_asked(ClientOptions::plain()).await;
    client.next_permission().await.hold();
    client.cancel(&session).await;
    assert_eq!(turn.stop_reason().await, "cancelled");
    assert!(!h.project().join("x.txt").exists());
    assert_eq!(server.request_count(), 1, "the model was not asked again");
    // The session takes the next prompt.
    server.enqueue(text_reply("Fine."));
    assert_eq!(client.run_turn(&session, "never mind").await, "end_turn");
}
