//! Questions and plan mode in the runtime, seen from the requests the model
//! received (ASK-3, ASK-4, PLAN-3..5, PLAN-7..9, TODO-less reminders).

#![cfg(unix)]

mod support;

use serde_json::json;
use support::runtime_harness::{Dialect, Harness, Setup};
use zcode::permission::mode::Mode;
use zcode::protocol::{Event, PermissionReply, RequestKind, TurnEnd};
use zcode::runtime::reminders::{PLAN_MODE_EXIT, PLAN_MODE_FULL, PLAN_MODE_SHORT};

const PLAN: &str = "1. Add the parser\n2. Test it";

fn count(h: &Harness, request: usize, text: &str) -> usize {
    h.user_texts(request)
        .iter()
        .filter(|t| t.contains(text))
        .count()
}

async fn plan_session() -> Harness {
    Setup::new(Dialect::OpenAi, Mode::Build)
        .plan()
        .start()
        .await
}

fn exit_plan_call(h: &Harness) {
    let args = json!({ "plan": PLAN }).to_string();
    h.enqueue_tool_calls(&[("call_plan", "ExitPlanMode", &args)]);
}

#[tokio::test(flavor = "multi_thread")]
async fn plan4_reminder_schedule_over_twelve_user_messages() {
    let mut h = plan_session().await;
    for k in 0..12 {
        h.enqueue_text(&format!("answer {k}"));
        h.input(&format!("message {k}"));
        assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    }
    let full_line = PLAN_MODE_FULL.lines().next().unwrap();
    let short_line = PLAN_MODE_SHORT.lines().next().unwrap();
    let mut seen = Vec::new();
    for r in 0..12 {
        let (full, short) = (count(&h, r, full_line), count(&h, r, short_line));
        let (prev_full, prev_short) = if r == 0 {
            (0, 0)
        } else {
            (count(&h, r - 1, full_line), count(&h, r - 1, short_line))
        };
        if full > prev_full {
            seen.push((r + 1, "full"));
        }
        if short > prev_short {
            seen.push((r + 1, "short"));
        }
    }
    assert_eq!(seen, vec![(1, "full"), (6, "short"), (11, "short")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn plan7_approval_writes_the_plan_file_turns_plan_off_and_plan5_reminds_once() {
    let mut h = plan_session().await;
    exit_plan_call(&h);
    h.enqueue_text("starting");
    h.enqueue_text("next");
    h.input("plan the parser");
    let request = h.permission_request().await;
    assert_eq!(request.kind, RequestKind::Plan);
    assert_eq!(request.input["plan"], PLAN);
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    let state = h
        .wait_for("SessionModeChanged", |e| match e {
            Event::SessionModeChanged { state } => Some(*state),
            _ => None,
        })
        .await;
    assert!(!state.plan_enabled);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);

    let file = h
        .workspace
        .join(".zcode/plans")
        .join(format!("plan-{}.md", h.session_id));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), PLAN);
    let result = &h.tool_results(1)[0].content;
    assert!(
        result.starts_with(
            "User has approved your plan. You can now start coding. Start with updating your todo list if applicable."
        ),
        "{result}"
    );
    assert!(
        result.contains("## Approved Plan:\n1. Add the parser"),
        "{result}"
    );
    // PLAN-5: the next request carries the exit reminder, once.
    let exit_line = PLAN_MODE_EXIT.lines().next().unwrap();
    assert_eq!(count(&h, 1, exit_line), 1);
    h.input("go on");
    h.turn_finished().await;
    assert_eq!(count(&h, 2, exit_line), 1, "only once");
}

#[tokio::test(flavor = "multi_thread")]
async fn plan8_feedback_keeps_plan_on_and_reaches_the_model_as_a_user_message() {
    let mut h = plan_session().await;
    exit_plan_call(&h);
    h.enqueue_text("I will revise it");
    h.input("plan the parser");
    let request = h.permission_request().await;
    h.reply(
        &request.request_id,
        PermissionReply::PlanFeedback {
            feedback: "use a hand-written lexer".into(),
        },
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert_eq!(
        h.tool_results(1)[0].content,
        "The plan was not approved by the user."
    );
    let users = h.user_texts(1);
    assert_eq!(
        users.last().map(String::as_str),
        Some("use a hand-written lexer")
    );
    assert!(
        h.store()
            .get_session(&h.session_id)
            .unwrap()
            .unwrap()
            .execution
            .plan_enabled
    );
    assert!(!h.workspace.join(".zcode/plans").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn plan9_plain_deny_ends_the_turn_and_keeps_plan_on() {
    let mut h = plan_session().await;
    exit_plan_call(&h);
    h.input("plan the parser");
    let request = h.permission_request().await;
    h.reply(
        &request.request_id,
        PermissionReply::Deny { feedback: None },
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Stopped);
    assert_eq!(
        h.server.requests().len(),
        1,
        "no model retry after a refused plan"
    );
    assert!(
        h.store()
            .get_session(&h.session_id)
            .unwrap()
            .unwrap()
            .execution
            .plan_enabled
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn plan3_enter_plan_mode_needs_no_approval_and_then_writes_are_denied() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Yolo).start().await;
    h.enqueue_tool_calls(&[("c1", "EnterPlanMode", "{}")]);
    h.enqueue_tool_calls(&[("c2", "Write", r#"{"file_path":"a.txt","content":"x"}"#)]);
    h.enqueue_text("planning");
    h.input("big refactor");
    let state = h
        .wait_for("SessionModeChanged", |e| match e {
            Event::SessionModeChanged { state } => Some(*state),
            _ => None,
        })
        .await;
    assert!(state.plan_enabled);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(
        h.tool_results(1)[0]
            .content
            .ends_with("DO NOT write or edit any files yet")
    );
    assert_eq!(count(&h, 1, PLAN_MODE_FULL.lines().next().unwrap()), 1);
    let denied = &h.tool_results(2)[1].content;
    assert!(
        denied.contains("Plan mode only allows read-only, non-destructive tools"),
        "{denied}"
    );
    assert!(!h.workspace.join("a.txt").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn ask3_answers_come_from_the_reply_and_ask4_the_model_reads_them() {
    let mut h = Setup::new(Dialect::Anthropic, Mode::Build).start().await;
    let question = r#"{"questions":[{"question":"Which database?","header":"DB","multiSelect":false,"options":[{"label":"SQLite (Recommended)","description":"one file"},{"label":"Postgres","description":"a server"}]}]}"#;
    h.enqueue_tool_calls(&[("q1", "AskUserQuestion", question)]);
    h.enqueue_text("Postgres it is");
    h.input("set up storage");
    let request = h.permission_request().await;
    assert_eq!(request.kind, RequestKind::Question);
    assert_eq!(
        request.input["questions"][0]["options"][1]["label"],
        "Postgres"
    );
    let mut answers = serde_json::Map::new();
    answers.insert("Which database?".into(), json!("Postgres"));
    h.reply(
        &request.request_id,
        PermissionReply::Answers {
            answers,
            annotations: None,
        },
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let result = &h.tool_results(1)[0].content;
    assert!(
        result.starts_with("User has answered your questions: "),
        "{result}"
    );
    assert!(result.contains("Postgres"), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn plan11_plan_file_is_reinjected_after_a_forced_compaction() {
    let mut h = plan_session().await;
    exit_plan_call(&h);
    h.enqueue_text("starting");
    h.input("plan the parser");
    let request = h.permission_request().await;
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);

    // RUN-4: the summary request, then the turn's own request.
    h.enqueue_text("SUMMARY: the user asked for a parser plan; it was approved.");
    h.enqueue_text("continuing with step 1");
    h.send(zcode::protocol::Op::Compact);
    h.input("continue");
    h.wait_for("ContextCompacted", |e| match e {
        Event::ContextCompacted { kept_messages, .. } => Some(*kept_messages),
        _ => None,
    })
    .await;
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);

    let summary_request = h.server.requests()[2].json();
    assert!(
        summary_request["tools"]
            .as_array()
            .is_none_or(|t| t.is_empty())
    );
    // The old part travels as one transcript text, never as tool blocks.
    let sent = summary_request["messages"].as_array().unwrap();
    assert!(
        sent.iter()
            .all(|m| m["role"] != "tool" && m.get("tool_calls").is_none()),
        "{sent:?}"
    );
    let text = sent.last().unwrap()["content"].as_str().unwrap();
    assert!(text.contains("[tool call ExitPlanMode]"), "{text}");
    let users = h.user_texts(3);
    assert!(
        users[0].contains("SUMMARY: the user asked for a parser plan"),
        "{users:?}"
    );
    assert!(
        !users.iter().any(|u| u == "plan the parser"),
        "old messages are summarised"
    );
    let reference = users
        .iter()
        .find(|u| u.contains("A plan file exists from plan mode at: "))
        .expect("plan_file_reference");
    assert!(reference.contains("1. Add the parser"), "{reference}");
    assert!(users.iter().any(|u| u == "continue"), "{users:?}");
    // Persisted: a resumed session rebuilds the compacted history.
    let kinds: Vec<String> = h.entries().into_iter().map(|e| e.kind).collect();
    assert!(
        kinds.contains(&"compaction_summary".to_string()),
        "{kinds:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn run4_compaction_starts_by_itself_near_the_context_window() {
    let mut setup = Setup::new(Dialect::OpenAi, Mode::Build);
    setup.context_window = 4_000;
    let mut h = setup.start().await;
    // Turn 1: a long answer (about 3,000 tokens) fills most of the window.
    h.enqueue_text(&"long answer ".repeat(1_000));
    h.input("first request");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    // Turn 2: past 80 % of the window, older history is summarised first.
    h.enqueue_text("SUMMARY: the user asked a first question and got a long answer.");
    h.enqueue_text("second answer");
    h.input("second request");
    h.wait_for("ContextCompacted", |e| match e {
        Event::ContextCompacted { kept_messages, .. } => Some(*kept_messages),
        _ => None,
    })
    .await;
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert_eq!(h.server.requests().len(), 3, "turn 1, the summary, turn 2");
    let users = h.user_texts(2);
    assert!(
        users[0].contains("SUMMARY: the user asked a first question"),
        "{users:?}"
    );
    assert!(!users.iter().any(|u| u == "first request"), "{users:?}");
    assert!(users.iter().any(|u| u == "second request"), "{users:?}");
    assert!(
        h.assistant_texts(2)
            .iter()
            .all(|t| !t.contains("long answer"))
    );
}
