//! AskUserQuestion through ACP form elicitation (ASK-3, ASK-4) and ASK-7's
//! auto-continue, from the editor's side: one form per questionnaire, a
//! field per question plus an Other text, answers keyed by question text,
//! skipped questions, decline and cancel, and a question nobody answers
//! continuing on its own after the configured (short) timers. No test
//! sleeps or measures time: each waits for the notification that says
//! what happened.

#![cfg(unix)]

mod support;

use serde_json::{Value, json};
use support::acp_client::{
    AcpClient, ClientOptions, Dir, ElicitationAsk, acp_setup, auto_continue, last_tool_result,
    text_reply, tool_names, two_questions,
};
use support::fake_model_server::{FakeModelServer, Reply, sse};
use support::headless::Harness;

const ALL_ANSWERED: &str = "User has answered your questions: ";
const NONE_ANSWERED: &str = "The user did not answer any of your questions";

async fn setup(acp: Value) -> (Harness, FakeModelServer) {
    acp_setup(json!({"acp": acp})).await
}

/// The model asks the two questions (call `q1`), then answers.
fn script_question(server: &FakeModelServer) {
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("q1", "AskUserQuestion", &two_questions())],
        )),
        text_reply("Thanks."),
    ]);
}

/// The question's result as the model read it.
fn question_result(server: &FakeModelServer) -> String {
    last_tool_result(server, "q1")
}

/// Starts the question turn; returns the client, the session, the turn
/// and the form.
async fn ask(
    h: &Harness,
    server: &FakeModelServer,
) -> (
    AcpClient,
    String,
    support::acp_client::PromptCall,
    ElicitationAsk,
) {
    script_question(server);
    let client = AcpClient::start(h, ClientOptions::with_forms()).await;
    let session = client.new_session(h.project()).await;
    let turn = client.prompt(&session, "set up the project");
    let form = client.next_elicitation().await;
    (client, session, turn, form)
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_user_question_is_offered_only_to_clients_with_form_elicitation() {
    for (options, offered) in [
        (ClientOptions::plain(), false),
        (ClientOptions::with_forms(), true),
    ] {
        let (h, server) = setup(json!({})).await;
        server.enqueue(text_reply("Hi."));
        let (client, session) = AcpClient::start_with_session(&h, options).await;
        assert_eq!(client.run_turn(&session, "hello").await, "end_turn");
        let names = tool_names(&server.requests()[0].json());
        assert_eq!(
            names.contains(&"AskUserQuestion".to_string()),
            offered,
            "{names:?}"
        );
        assert!(names.contains(&"Read".to_string()), "{names:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn question_form_has_a_field_per_question_and_an_other_text_none_required() {
    let (h, server) = setup(json!({})).await;
    let (client, session, turn, form) = ask(&h, &server).await;
    let request = form.request.clone();
    assert_eq!(request["mode"], "form", "{request:#}");
    assert_eq!(request["sessionId"], session.as_str(), "{request:#}");
    assert_eq!(
        request["toolCallId"], "q1",
        "scoped to the call: {request:#}"
    );
    let props = form.properties().clone();

    let q1 = &props["q1"];
    assert_eq!(q1["type"], "string", "{q1:#}");
    assert_eq!(q1["title"], "Language", "{q1:#}");
    assert_eq!(q1["description"], "Which language?", "{q1:#}");
    let choices: Vec<(&str, &str)> = q1["oneOf"]
        .as_array()
        .unwrap_or_else(|| panic!("oneOf in {q1:#}"))
        .iter()
        .map(|c| (c["const"].as_str().unwrap(), c["title"].as_str().unwrap()))
        .collect();
    assert_eq!(choices, [("Rust", "Rust"), ("Go", "Go")]);

    let q2 = &props["q2"];
    assert_eq!(q2["type"], "array", "{q2:#}");
    assert_eq!(q2["title"], "Extras", "{q2:#}");
    assert_eq!(q2["description"], "What to add?", "{q2:#}");
    let items = q2["items"].to_string();
    for label in ["Tests", "Docs", "CI"] {
        assert!(items.contains(label), "{q2:#}");
    }
    for other in ["q1_other", "q2_other"] {
        assert_eq!(props[other]["type"], "string", "{props:#}");
    }
    let required = &request["requestedSchema"]["required"];
    assert!(
        required.is_null() || required == &json!([]),
        "a question may be skipped: {request:#}"
    );

    form.accept(json!({"q1": "Rust", "q2": ["Tests", "Docs"]}));
    assert_eq!(turn.stop_reason().await, "end_turn");
    let result = question_result(&server);
    assert!(result.starts_with(ALL_ANSWERED), "{result}");
    assert!(result.contains(r#""Which language?"="Rust""#), "{result}");
    assert!(
        result.contains(r#""What to add?"="Tests, Docs""#),
        "{result}"
    );
    let done = client.wait_tool_status("q1", "completed").await;
    assert_eq!(done["toolCallId"], "q1");
}

#[tokio::test(flavor = "multi_thread")]
async fn question_other_text_wins_over_a_choice() {
    let (h, server) = setup(json!({})).await;
    let (_client, _session, turn, form) = ask(&h, &server).await;
    form.accept(json!({"q1": "Rust", "q1_other": "Zig", "q2": ["CI"]}));
    assert_eq!(turn.stop_reason().await, "end_turn");
    let result = question_result(&server);
    assert!(result.contains(r#""Which language?"="Zig""#), "{result}");
    assert!(result.contains(r#""What to add?"="CI""#), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn question_skipped_an_empty_accepted_form_is_none_answered() {
    let (h, server) = setup(json!({})).await;
    let (_client, _session, turn, form) = ask(&h, &server).await;
    form.accept(json!({}));
    assert_eq!(turn.stop_reason().await, "end_turn");
    let result = question_result(&server);
    assert!(result.starts_with(NONE_ANSWERED), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn question_one_answered_one_skipped_names_the_skipped_one() {
    let (h, server) = setup(json!({})).await;
    let (_client, _session, turn, form) = ask(&h, &server).await;
    form.accept(json!({"q1": "Go"}));
    assert_eq!(turn.stop_reason().await, "end_turn");
    let result = question_result(&server);
    assert!(result.contains(r#""Which language?"="Go""#), "{result}");
    assert!(
        result.contains(r#"The user skipped 1 question: "What to add?""#),
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn question_declined_or_cancelled_rejects_the_questionnaire() {
    for answer in ["decline", "cancel"] {
        let (h, server) = setup(json!({})).await;
        let (client, _session, turn, form) = ask(&h, &server).await;
        match answer {
            "decline" => form.decline(),
            _ => form.cancel(),
        }
        assert_eq!(turn.stop_reason().await, "end_turn", "{answer}");
        let result = question_result(&server);
        assert!(result.contains("NOT executed"), "{answer}: {result}");
        assert!(!result.contains(NONE_ANSWERED), "{answer}: {result}");
        client.wait_tool_status("q1", "failed").await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn question_answers_a_client_made_up_are_not_taken_as_choices() {
    let (h, server) = setup(json!({})).await;
    let (_client, _session, turn, form) = ask(&h, &server).await;
    // Wrong types and a label not offered: never a crash, never "Rust".
    form.accept(json!({"q1": 42, "q2": "Tests", "q9": "x", "q1_other": ""}));
    let stop = turn.stop_reason().await;
    assert_eq!(stop, "end_turn");
    let result = question_result(&server);
    assert!(!result.contains(r#""Which language?"="Rust""#), "{result}");
}

// ------------------------------------------------------------ ASK-7

/// The `_meta.zcode.autoContinue` of an update, if it carries one.
fn countdown(update: &Value) -> Option<Value> {
    let meta = &update["_meta"]["zcode"]["autoContinue"];
    (!meta.is_null()).then(|| meta.clone())
}

#[tokio::test(flavor = "multi_thread")]
async fn ask7_unanswered_question_shows_a_countdown_then_continues_as_none_answered() {
    let (h, server) = setup(auto_continue(20, 200)).await;
    let (client, _session, turn, form) = ask(&h, &server).await;
    let elicitation_id = client
        .wire()
        .iter()
        .rev()
        .filter(|(dir, _)| *dir == Dir::Received)
        .filter_map(|(_, line)| serde_json::from_str::<Value>(line).ok())
        .find(|m| m["method"] == "elicitation/create")
        .map(|m| m["id"].clone())
        .expect("the elicitation request on the wire");
    form.hold();

    let shown = client
        .wait_update("the auto-continue countdown", |u| {
            u["sessionUpdate"] == "tool_call_update"
                && u["toolCallId"] == "q1"
                && countdown(u).is_some()
        })
        .await;
    let meta = countdown(&shown).unwrap();
    assert!(meta["deadlineMs"].as_u64().is_some(), "{shown:#}");
    let deadline = meta["deadline"].as_str().unwrap_or_default();
    assert!(
        deadline.len() >= 20 && deadline.as_bytes()[4] == b'-' && deadline.contains('T'),
        "an RFC 3339 time: {shown:#}"
    );
    assert!(
        deadline.ends_with('Z') || deadline.ends_with("+00:00"),
        "in UTC: {shown:#}"
    );
    assert!(
        !shown["content"].is_null(),
        "the content says when it continues: {shown:#}"
    );

    assert_eq!(
        turn.stop_reason().await,
        "end_turn",
        "{}",
        client.diagnostics()
    );
    let result = question_result(&server);
    assert!(result.starts_with(NONE_ANSWERED), "{result}");
    // The form the client still shows was withdrawn.
    let cancelled = client.wire().iter().any(|(dir, line)| {
        *dir == Dir::Received
            && serde_json::from_str::<Value>(line).is_ok_and(|m| {
                m["method"] == "$/cancel_request" && m["params"]["requestId"] == elicitation_id
            })
    });
    assert!(
        cancelled,
        "the elicitation is cancelled\n{}",
        client.diagnostics()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn ask7_an_answer_during_the_countdown_stops_the_clock_for_good() {
    // The deadline is far enough that only a broken clock reaches it.
    let (h, server) = setup(auto_continue(10, 50_000)).await;
    let (client, _session, turn, form) = ask(&h, &server).await;
    client
        .wait_update("the auto-continue countdown", |u| {
            u["toolCallId"] == "q1" && countdown(u).is_some()
        })
        .await;
    form.accept(json!({"q1": "Go", "q2": ["Docs"]}));
    assert_eq!(turn.stop_reason().await, "end_turn");
    let result = question_result(&server);
    assert!(result.contains(r#""Which language?"="Go""#), "{result}");
    assert!(
        !client
            .wire()
            .iter()
            .any(|(_, line)| line.contains("$/cancel_request")),
        "nothing withdrawn"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn ask7_auto_continue_is_a_session_config_option_on_and_off() {
    let (h, _server) = setup(auto_continue(20, 200)).await;
    let client = AcpClient::start(&h, ClientOptions::with_forms()).await;
    let response = client.new_session_response(h.project()).await;
    let session = response["sessionId"].as_str().unwrap().to_string();
    let option = response["configOptions"]
        .as_array()
        .and_then(|options| options.iter().find(|o| o["id"] == "auto_continue"))
        .cloned()
        .unwrap_or_else(|| panic!("an auto_continue option: {response:#}"));
    assert_eq!(option["type"], "select", "{option:#}");
    assert_eq!(option["currentValue"], "on", "{option:#}");
    let values: Vec<&str> = option["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| o["value"].as_str())
        .collect();
    assert_eq!(values, ["on", "off"], "{option:#}");

    let set = client
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "auto_continue", "value": "off"}),
        )
        .await
        .unwrap_or_else(|e| panic!("set_config_option: {e:?}\n{}", client.diagnostics()));
    let now = set["configOptions"]
        .as_array()
        .and_then(|options| options.iter().find(|o| o["id"] == "auto_continue"))
        .cloned()
        .unwrap_or_else(|| panic!("the options after the change: {set:#}"));
    assert_eq!(now["currentValue"], "off", "{set:#}");

    let error = client
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "auto_continue", "value": "sometimes"}),
        )
        .await
        .expect_err("not a value of the option");
    assert_eq!(error.code, -32602, "{error:?}");
}

/// With the option off, the question waits for the user: the answer given
/// after the (tiny) deadline still counts. This can only miss a bug when
/// the answer arrives within 5 ms, never fail a correct build.
#[tokio::test(flavor = "multi_thread")]
async fn ask7_turned_off_the_question_waits_for_the_answer() {
    let (h, server) = setup(auto_continue(1, 5)).await;
    script_question(&server);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::with_forms()).await;
    client
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "auto_continue", "value": "off"}),
        )
        .await
        .unwrap();
    let turn = client.prompt(&session, "set up the project");
    let form = client.next_elicitation().await;
    // A round trip the agent must answer, so its clock had its chance.
    client.set_mode(&session, "build").await;
    form.accept(json!({"q1": "Rust"}));
    assert_eq!(turn.stop_reason().await, "end_turn");
    let result = question_result(&server);
    assert!(result.contains(r#""Which language?"="Rust""#), "{result}");
    assert!(
        client
            .updates()
            .iter()
            .all(|u| countdown(&u["update"]).is_none()),
        "no countdown while off"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn ask7_a_never_answered_question_then_session_cancel_ends_cancelled() {
    // Auto-continue off in the config: only the cancel ends it.
    let (h, server) = setup(json!({"autoContinue": {"enabled": false}})).await;
    let (client, session, turn, form) = ask(&h, &server).await;
    form.hold();
    client.cancel(&session).await;
    assert_eq!(turn.stop_reason().await, "cancelled");
    assert_eq!(server.request_count(), 1);
}

/// ASK-7: the timer's state is saved with the session, so a session loaded
/// after a restart shows the same absolute deadline.
#[tokio::test(flavor = "multi_thread")]
async fn ask7_a_reloaded_session_shows_the_same_absolute_deadline() {
    let (h, server) = setup(auto_continue(10, 600_000)).await;
    let (mut client, session, _turn, form) = ask(&h, &server).await;
    form.hold();
    let shown = client
        .wait_update("the auto-continue countdown", |u| {
            u["toolCallId"] == "q1" && countdown(u).is_some()
        })
        .await;
    let deadline = countdown(&shown).unwrap();
    client.disconnect().await;
    client.wait_exit().await;
    drop(client);

    let client = AcpClient::start(&h, ClientOptions::with_forms()).await;
    client.load_session(&session, h.project()).await;
    let replayed: Vec<Value> = client
        .updates()
        .iter()
        .map(|u| u["update"].clone())
        .filter(|u| u["toolCallId"] == "q1")
        .filter_map(|u| countdown(&u))
        .collect();
    assert!(
        replayed
            .iter()
            .any(|c| c["deadlineMs"] == deadline["deadlineMs"]
                && c["deadline"] == deadline["deadline"]),
        "the saved deadline {deadline} is shown again: {:#?}",
        client.updates()
    );
}
