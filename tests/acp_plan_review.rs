//! The plan review (ExitPlanMode) through ACP: with form elicitation the
//! questionnaire "Review this implementation plan." with Approve and a
//! feedback text (PLAN-7, PLAN-8, PLAN-9); without it, a permission
//! request for a `switch_mode` tool call with Approve and Deny.

#![cfg(unix)]

mod support;

use serde_json::json;
use support::acp_client::{
    AcpClient, ClientOptions, acp_config, last_user_texts, text_reply, tool_reply,
};
use support::fake_model_server::{FakeModelServer, openai_tool_result};
use support::headless::Harness;

const PLAN: &str = "1. Add a parser.\n2. Test it.";
const NOT_APPROVED: &str = "The plan was not approved by the user.";

async fn setup() -> (Harness, FakeModelServer) {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    h.write_config(&acp_config(
        &server,
        json!({"permission": {"mode": "build"}}),
    ));
    (h, server)
}

/// The model presents the plan (call `p1`), then says something.
fn script_plan(server: &FakeModelServer) {
    let args = json!({"plan": PLAN}).to_string();
    server.enqueue_all([
        tool_reply("p1", "ExitPlanMode", &args),
        text_reply("Going on."),
    ]);
}

/// A session in plan mode, on top of build.
async fn plan_session(h: &Harness, options: ClientOptions) -> (AcpClient, String) {
    let client = AcpClient::start(h, options).await;
    let session = client.new_session(h.project()).await;
    client
        .request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "plan"}),
        )
        .await
        .unwrap_or_else(|e| panic!("set_mode plan: {e:?}\n{}", client.diagnostics()));
    (client, session)
}

fn plan_file(h: &Harness, session: &str) -> std::path::PathBuf {
    h.project()
        .join(".zcode")
        .join("plans")
        .join(format!("plan-{session}.md"))
}

fn plan_result(server: &FakeModelServer) -> String {
    let requests = server.requests();
    openai_tool_result(&requests.last().unwrap().json(), "p1")
}

#[tokio::test(flavor = "multi_thread")]
async fn plan7_review_form_approve_writes_the_plan_and_leaves_plan_mode() {
    let (h, server) = setup().await;
    script_plan(&server);
    let (client, session) = plan_session(&h, ClientOptions::with_forms()).await;
    let turn = client.prompt(&session, "plan a parser");
    let form = client.next_elicitation().await;
    assert_eq!(
        form.message(),
        format!("Review this implementation plan.\n\n{PLAN}"),
        "{:#}",
        form.request
    );
    assert_eq!(form.request["sessionId"], session.as_str());
    let decision = &form.properties()["decision"];
    assert_eq!(decision["type"], "string", "{decision:#}");
    assert_eq!(
        decision["oneOf"],
        json!([{"const": "approve", "title": "Approve"},
               {"const": "revise", "title": "Request changes"}]),
        "{decision:#}"
    );
    assert_eq!(form.properties()["feedback"]["type"], "string");
    assert!(
        client.permission_log().is_empty(),
        "no permission request as well"
    );

    form.accept(json!({"decision": "approve"}));
    assert_eq!(turn.stop_reason().await, "end_turn");
    let result = plan_result(&server);
    assert!(result.contains("## Approved Plan:"), "{result}");
    assert!(result.contains(PLAN), "{result}");
    assert_eq!(
        std::fs::read_to_string(plan_file(&h, &session)).unwrap_or_default(),
        PLAN
    );
    client
        .wait_update("back to build", |u| {
            u["sessionUpdate"] == "current_mode_update" && u["currentModeId"] == "build"
        })
        .await;
    assert!(!h.sessions()[0].execution.plan_enabled);
}

#[tokio::test(flavor = "multi_thread")]
async fn plan8_review_form_feedback_reaches_the_model_and_plan_stays_on() {
    let (h, server) = setup().await;
    script_plan(&server);
    let (client, session) = plan_session(&h, ClientOptions::with_forms()).await;
    let turn = client.prompt(&session, "plan a parser");
    client
        .next_elicitation()
        .await
        .accept(json!({"decision": "revise", "feedback": "Add error handling first."}));
    assert_eq!(turn.stop_reason().await, "end_turn");
    let result = plan_result(&server);
    assert!(result.contains(NOT_APPROVED), "{result}");
    let users = last_user_texts(&server);
    assert!(
        users
            .iter()
            .any(|u| u.contains("Add error handling first.")),
        "the feedback is a user message: {users:?}"
    );
    assert!(!plan_file(&h, &session).exists());
    assert!(h.sessions()[0].execution.plan_enabled);
}

#[tokio::test(flavor = "multi_thread")]
async fn plan9_review_form_declined_or_empty_denies_and_ends_the_turn() {
    for answer in [json!(null), json!({}), json!({"decision": "revise"})] {
        let (h, server) = setup().await;
        script_plan(&server);
        let (client, session) = plan_session(&h, ClientOptions::with_forms()).await;
        let turn = client.prompt(&session, "plan a parser");
        let form = client.next_elicitation().await;
        if answer.is_null() {
            form.decline();
        } else {
            form.accept(answer.clone());
        }
        assert_eq!(turn.stop_reason().await, "end_turn", "{answer}");
        // PLAN-9: no retry by the model after the result.
        assert_eq!(server.request_count(), 1, "{answer}");
        assert!(!plan_file(&h, &session).exists(), "{answer}");
        assert!(h.sessions()[0].execution.plan_enabled, "{answer}");
        client.wait_tool_status("p1", "failed").await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn plan_review_without_forms_is_a_switch_mode_permission_approve() {
    let (h, server) = setup().await;
    script_plan(&server);
    let (client, session) = plan_session(&h, ClientOptions::plain()).await;
    let turn = client.prompt(&session, "plan a parser");
    let ask = client.next_permission().await;
    assert_eq!(
        ask.request["toolCall"]["kind"], "switch_mode",
        "{:#}",
        ask.request
    );
    assert_eq!(ask.tool_call_id(), "p1");
    assert_eq!(
        ask.options(),
        vec![
            (
                "approve".to_string(),
                "allow_once".to_string(),
                "Approve".to_string()
            ),
            (
                "deny".to_string(),
                "reject_once".to_string(),
                "Deny".to_string()
            ),
        ]
    );
    ask.select("approve");
    assert_eq!(turn.stop_reason().await, "end_turn");
    assert!(plan_result(&server).contains("## Approved Plan:"));
    assert!(plan_file(&h, &session).exists());
    assert!(!h.sessions()[0].execution.plan_enabled);
}

#[tokio::test(flavor = "multi_thread")]
async fn plan_review_without_forms_deny_or_unknown_option_is_plan9() {
    for answer in ["deny", "allow_once"] {
        let (h, server) = setup().await;
        script_plan(&server);
        let (client, session) = plan_session(&h, ClientOptions::plain()).await;
        let turn = client.prompt(&session, "plan a parser");
        // `allow_once` is an id of tool requests, not offered here.
        client.next_permission().await.select(answer);
        assert_eq!(turn.stop_reason().await, "end_turn", "{answer}");
        assert_eq!(server.request_count(), 1, "{answer}");
        assert!(!plan_file(&h, &session).exists(), "{answer}");
        assert!(h.sessions()[0].execution.plan_enabled, "{answer}");
    }
}
