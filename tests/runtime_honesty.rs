//! Approvals that mean what they say, results that say what happened, and
//! interrupts that hand back what was not sent: the runtime and its
//! protocol, end to end in-process (the real HTTP providers against the
//! fake model server, the real tools, the real store; the test plays the
//! front end).

#![cfg(unix)]

mod support;

use std::time::Duration;

use serde_json::json;
use support::fake_model_server::Reply;
use support::runtime_harness::{Dialect, Harness, Setup};
use zcode::permission::mode::Mode;
use zcode::permission::rules::RuleKind;
use zcode::protocol::{Event, PermissionReply, RequestKind, ReturnedInput, TurnEnd};
use zcode::store::{InputStatus, entry_kind};
use zcode::tools::plan_mode::AllowedPrompt;

fn build() -> Setup {
    Setup::new(Dialect::OpenAi, Mode::Build)
}

/// `(call_id, output, is_error, exit_code)` of every `ToolCallFinished`.
fn finished(h: &Harness) -> Vec<(String, String, bool, Option<i32>)> {
    h.log
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallFinished {
                call_id,
                output,
                is_error,
                exit_code,
                ..
            } => Some((call_id.clone(), output.clone(), *is_error, *exit_code)),
            _ => None,
        })
        .collect()
}

fn asked(h: &Harness) -> usize {
    h.count(|e| matches!(e, Event::PermissionRequested { .. }))
}

fn edit_args(file: &str, old: &str, new: &str) -> String {
    json!({ "file_path": file, "old_string": old, "new_string": new }).to_string()
}

// ---- checks that would fail the call come before the question -------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_edit_of_an_unread_file_fails_before_anyone_is_asked() {
    let mut h = build().start().await;
    std::fs::write(h.path("notes.txt"), "hello\n").unwrap();
    h.enqueue_tool_calls(&[("c1", "Edit", &edit_args("notes.txt", "hello", "bye"))]);
    // After the failure the model reads the file and edits again: now the
    // edit can succeed, so the user is asked.
    h.enqueue_tool_calls(&[("c2", "Read", &json!({"file_path": "notes.txt"}).to_string())]);
    h.enqueue_tool_calls(&[("c3", "Edit", &edit_args("notes.txt", "hello", "bye"))]);
    h.enqueue_text("done");
    h.input("change the greeting");

    let request = h.permission_request().await;
    assert_eq!(request.call_id, "c3", "{}", h.log_text());
    let first = &finished(&h)[0];
    assert_eq!(first.0, "c1");
    assert!(first.2, "an edit that cannot apply is a failure: {first:?}");
    assert!(
        first.1.contains("was not read in this session"),
        "{}",
        first.1
    );
    // The model was told why, as the tool's result.
    let results = h.tool_results(1);
    assert_eq!(results[0].call_id, "c1");
    assert!(
        results[0].content.contains("Read it first, then edit."),
        "{}",
        results[0].content
    );
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert_eq!(asked(&h), 1, "{}", h.log_text());
    assert_eq!(
        std::fs::read_to_string(h.path("notes.txt")).unwrap(),
        "bye\n"
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_write_over_an_unread_file_and_an_edit_that_cannot_apply_are_not_asked() {
    let mut h = build().start().await;
    std::fs::write(h.path("keep.txt"), "precious\n").unwrap();
    let write = json!({"file_path": "keep.txt", "content": "gone\n"}).to_string();
    let missing = edit_args("missing.txt", "a", "b");
    h.enqueue_tool_calls(&[("w1", "Write", &write), ("e1", "Edit", &missing)]);
    h.enqueue_text("done");
    h.input("overwrite it");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);

    assert_eq!(asked(&h), 0, "{}", h.log_text());
    let calls = finished(&h);
    assert_eq!(calls.len(), 2, "{}", h.log_text());
    assert!(calls[0].2 && calls[0].1.contains("Read it first, then write."));
    assert!(calls[1].2 && calls[1].1.contains("File does not exist"));
    assert_eq!(
        std::fs::read_to_string(h.path("keep.txt")).unwrap(),
        "precious\n"
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_an_invalid_input_is_not_asked_about() {
    let mut h = build().start().await;
    h.enqueue_tool_calls(&[("b1", "Bash", r#"{"command": "touch x", "timeout": "soon"}"#)]);
    h.enqueue_text("done");
    h.input("run it");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert_eq!(asked(&h), 0, "{}", h.log_text());
    let calls = finished(&h);
    assert!(calls[0].2, "{calls:?}");
    assert!(!h.exists("x"));
    h.shutdown().await;
}

// ---- what a deny tells the model --------------------------------------------

async fn denied_bash_result(feedback: Option<&str>) -> String {
    let mut h = build().start().await;
    h.enqueue_bash("b1", "touch a.txt");
    h.enqueue_text("ok");
    h.input("make a file");
    let request = h.permission_request().await;
    h.reply(
        &request.request_id,
        PermissionReply::Deny {
            feedback: feedback.map(str::to_string),
        },
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(!h.exists("a.txt"));
    let content = h.tool_results(1)[0].content.clone();
    h.shutdown().await;
    content
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_deny_with_feedback_tells_the_model_to_follow_it() {
    assert_eq!(
        denied_bash_result(Some("  use the Write tool instead  ")).await,
        "The user denied permission to use Bash. The tool was NOT executed. \
         The user said what to do instead; follow it:\n\nuse the Write tool instead"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_plain_deny_tells_the_model_to_stop_and_wait() {
    let expected = "The user denied permission to use Bash. The tool was NOT executed. \
                    Stop what you are doing and wait for the user's instructions.";
    assert_eq!(denied_bash_result(None).await, expected);
    assert_eq!(denied_bash_result(Some("   ")).await, expected);
}

// ---- what the approval request carries --------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_bash_request_carries_its_description_and_a_plain_reason() {
    let mut h = build().start().await;
    let args = json!({"command": "touch a.txt", "description": "Create the marker file"});
    h.enqueue_tool_calls(&[("b1", "Bash", &args.to_string())]);
    let plain = json!({"command": "touch $(cat list.txt)"});
    h.enqueue_tool_calls(&[("b2", "Bash", &plain.to_string())]);
    h.enqueue_text("ok");
    h.input("make a file");
    let request = h.permission_request().await;
    assert_eq!(
        request.description.as_deref(),
        Some("Create the marker file")
    );
    assert_eq!(request.reason, "runs a command that can change files");
    assert!(!request.edit_mode_available);
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    let request = h.permission_request().await;
    assert_eq!(request.description, None);
    assert_eq!(
        request.reason,
        "runs a command that can change files (zcode cannot check all of it in advance)"
    );
    h.reply(
        &request.request_id,
        PermissionReply::Deny { feedback: None },
    );
    h.turn_finished().await;
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_write_requests_say_where_the_file_is() {
    let mut h = build().start().await;
    let outside = tempfile::tempdir().unwrap();
    let out_file = outside.path().join("o.txt");
    let inside = json!({"file_path": "new.txt", "content": "x"}).to_string();
    let beyond = json!({"file_path": out_file, "content": "x"}).to_string();
    h.enqueue_tool_calls(&[("w1", "Write", &inside), ("w2", "Write", &beyond)]);
    h.enqueue_text("ok");
    h.input("write");
    let first = h.permission_request().await;
    assert_eq!(first.reason, "writes to a file in the workspace");
    assert!(first.edit_mode_available);
    h.reply(&first.request_id, PermissionReply::Deny { feedback: None });
    let second = h.permission_request().await;
    assert_eq!(second.reason, "writes to a file outside the workspace");
    // Edit mode would not allow it either: the option is not offered.
    assert!(!second.edit_mode_available);
    h.reply(&second.request_id, PermissionReply::Deny { feedback: None });
    h.turn_finished().await;
    h.shutdown().await;
}

// ---- "Allow edits for the rest of this session" ------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_allow_edits_for_the_session_runs_the_call_and_switches_to_edit_mode() {
    let mut h = build().start().await;
    let one = json!({"file_path": "one.txt", "content": "1\n"}).to_string();
    let two = json!({"file_path": "two.txt", "content": "2\n"}).to_string();
    h.enqueue_tool_calls(&[("w1", "Write", &one)]);
    h.enqueue_tool_calls(&[("w2", "Write", &two)]);
    h.enqueue_text("done");
    h.input("write two files");
    let request = h.permission_request().await;
    assert!(request.edit_mode_available);
    h.reply(&request.request_id, PermissionReply::AllowEditsForSession);
    let state = h
        .wait_for("SessionModeChanged", |e| match e {
            Event::SessionModeChanged { state } => Some(*state),
            _ => None,
        })
        .await;
    assert_eq!(state.mode, Mode::Edit);
    assert!(!state.plan_enabled);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    // The second write was not asked about: edit mode allows it.
    assert_eq!(asked(&h), 1, "{}", h.log_text());
    assert!(h.exists("one.txt") && h.exists("two.txt"));
    // The mode is the session's (persisted), and no rule was saved.
    let stored = h.store().get_session(&h.session_id).unwrap().unwrap();
    assert_eq!(stored.execution.mode, Mode::Edit);
    assert!(h.project_rules(RuleKind::Allow).is_empty());
    // "For the rest of this session": the project's next session does not
    // start in edit mode.
    let last = h.store().project_last_mode(&h.project_id).unwrap();
    assert!(
        last.is_none_or(|s| s.mode != Mode::Edit),
        "edit mode became the project's default: {last:?}"
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_allow_edits_for_the_session_is_refused_for_a_command() {
    let mut h = build().start().await;
    h.enqueue_bash("b1", "touch a.txt");
    h.enqueue_text("ok");
    h.input("make a file");
    let request = h.permission_request().await;
    h.reply(&request.request_id, PermissionReply::AllowEditsForSession);
    h.turn_finished().await;
    assert!(!h.exists("a.txt"));
    assert_eq!(
        h.count(|e| matches!(e, Event::SessionModeChanged { .. })),
        0
    );
    let stored = h.store().get_session(&h.session_id).unwrap().unwrap();
    assert_eq!(stored.execution.mode, Mode::Build);
    h.shutdown().await;
}

// ---- results that say what happened -----------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_a_command_that_exits_non_zero_is_a_failure_with_its_exit_code() {
    let mut h = Setup::new(Dialect::Anthropic, Mode::Yolo).start().await;
    h.enqueue_tool_calls(&[
        ("b1", "Bash", r#"{"command": "echo some output; exit 3"}"#),
        ("b2", "Bash", r#"{"command": "echo fine"}"#),
    ]);
    h.enqueue_text("ok");
    h.input("run them");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let calls = finished(&h);
    assert_eq!(calls[0].0, "b1");
    assert!(calls[0].2, "exit 3 is a failure: {calls:?}");
    assert_eq!(calls[0].3, Some(3));
    assert_eq!(calls[1].0, "b2");
    assert!(!calls[1].2, "{calls:?}");
    assert_eq!(calls[1].3, Some(0));
    // The model still gets the whole output and the exit code.
    let results = h.tool_results(1);
    assert_eq!(results[0].content, "some output\n\nExit code: 3");
    assert_eq!(results[1].content, "fine\n\nExit code: 0");
    h.shutdown().await;
}

const PLAN: &str = "# Add the parser\n\n1. Write it\n2. Test it";

fn exit_plan_with_prompts(h: &Harness) {
    let args = json!({
        "plan": PLAN,
        "allowedPrompts": [{"tool": "Bash", "prompt": "run the test suite"}],
    });
    h.enqueue_tool_calls(&[("p1", "ExitPlanMode", &args.to_string())]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_plan_feedback_is_a_rejection_and_reaches_the_front_end_as_the_users_message() {
    let mut h = build().plan().start().await;
    exit_plan_with_prompts(&h);
    h.enqueue_text("revising");
    h.input("plan it");
    let request = h.permission_request().await;
    assert_eq!(request.kind, RequestKind::Plan);
    assert_eq!(
        request.allowed_prompts,
        vec![AllowedPrompt {
            tool: "Bash".into(),
            prompt: "run the test suite".into()
        }]
    );
    assert_eq!(request.reason, "asks you to approve its plan");
    h.reply(
        &request.request_id,
        PermissionReply::PlanFeedback {
            feedback: "use a hand-written lexer".into(),
        },
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let calls = finished(&h);
    assert_eq!(calls.len(), 1, "{}", h.log_text());
    assert!(calls[0].2, "a plan sent back is not a success: {calls:?}");
    // The feedback is shown where it happened: after the plan's result,
    // before the model's next answer.
    let at = |pred: &dyn Fn(&Event) -> bool| h.log.iter().position(pred).unwrap();
    let feedback = at(&|e| {
        matches!(e, Event::PlanFeedback { call_id, text }
            if call_id == "p1" && text == "use a hand-written lexer")
    });
    let result = at(&|e| matches!(e, Event::ToolCallFinished { .. }));
    let answer = at(&|e| matches!(e, Event::AssistantMessage { .. }));
    assert!(result < feedback && feedback < answer, "{}", h.log_text());
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_a_plainly_rejected_plan_is_not_a_success() {
    let mut h = build().plan().start().await;
    exit_plan_with_prompts(&h);
    h.input("plan it");
    let request = h.permission_request().await;
    h.reply(
        &request.request_id,
        PermissionReply::Deny { feedback: None },
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Stopped);
    assert!(
        finished(&h).iter().all(|c| c.2),
        "no successful result for a rejected plan: {}",
        h.log_text()
    );
    assert_eq!(
        h.count(|e| matches!(e, Event::ToolCallDenied { denial } if denial.call_id == "p1")),
        1
    );
    h.shutdown().await;
}

// ---- interrupting ------------------------------------------------------------

/// A reply that sends its first `events` SSE events, then waits `pause`.
fn stalled(body: &str, events: usize, pause: Duration) -> Reply {
    let parts: Vec<&str> = body.split_inclusive("\n\n").collect();
    Reply::sse_chunks([parts[..events].concat()])
        .delay(pause)
        .chunk(parts[events..].concat())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_interrupt_hands_queued_inputs_back_instead_of_sending_them() {
    let mut h = build().start().await;
    h.server.enqueue(stalled(
        &h.text_body("a long answer that never ends"),
        2,
        Duration::from_secs(10),
    ));
    h.input("first");
    h.wait_for("AssistantDelta", |e| {
        matches!(e, Event::AssistantDelta { .. }).then_some(())
    })
    .await;
    h.input("second");
    h.input("third");
    let mut ids = Vec::new();
    while ids.len() < 2 {
        ids.push(
            h.wait_for("InputQueued", |e| match e {
                Event::InputQueued { id, .. } => Some(id.clone()),
                _ => None,
            })
            .await,
        );
    }
    h.interrupt();
    let returned = h
        .wait_for("InputsReturned", |e| match e {
            Event::InputsReturned { inputs } => Some(inputs.clone()),
            _ => None,
        })
        .await;
    assert_eq!(
        returned,
        vec![
            ReturnedInput {
                id: ids[0].clone(),
                text: "second".into()
            },
            ReturnedInput {
                id: ids[1].clone(),
                text: "third".into()
            },
        ]
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Interrupted);
    // Nothing else starts: the inputs are the user's again.
    h.expect_quiet(Duration::from_millis(300)).await;
    assert_eq!(h.server.request_count(), 1);
    for id in &ids {
        h.wait_input_status(id, InputStatus::Cancelled).await;
    }
    assert!(h.store().queued_inputs(&h.session_id).unwrap().is_empty());

    // Sent again, an input runs as usual.
    h.enqueue_text("fine");
    h.input("second");
    assert_eq!(
        h.turn_finished().await,
        (TurnEnd::Completed, Some("fine".into()))
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_an_input_sent_after_the_interrupt_still_runs() {
    let mut h = build().start().await;
    h.server.enqueue(stalled(
        &h.text_body("a long answer that never ends"),
        2,
        Duration::from_secs(10),
    ));
    h.enqueue_text("later answer");
    h.input("first");
    h.wait_for("AssistantDelta", |e| {
        matches!(e, Event::AssistantDelta { .. }).then_some(())
    })
    .await;
    h.interrupt();
    h.input("after the interrupt");
    let mut ends = Vec::new();
    while ends.len() < 2 {
        ends.push(h.turn_finished().await);
    }
    assert_eq!(ends[0].0, TurnEnd::Interrupted);
    assert_eq!(ends[1], (TurnEnd::Completed, Some("later answer".into())));
    assert_eq!(
        h.count(|e| matches!(e, Event::InputsReturned { .. })),
        0,
        "nothing was queued when the user interrupted"
    );
    h.shutdown().await;
}

async fn interrupted_then_next_request(dialect: Dialect) {
    let mut h = Setup::new(dialect, Mode::Build).start().await;
    let head_events = match dialect {
        Dialect::OpenAi => 2,
        Dialect::Anthropic => 3,
    };
    h.server.enqueue(stalled(
        &h.text_body("partial answer that never ends"),
        head_events,
        Duration::from_secs(10),
    ));
    h.input("first");
    h.wait_for("AssistantDelta", |e| {
        matches!(e, Event::AssistantDelta { .. }).then_some(())
    })
    .await;
    h.interrupt();
    assert_eq!(h.turn_finished().await.0, TurnEnd::Interrupted);

    h.enqueue_text("fresh answer");
    h.input("again");
    h.turn_finished().await;
    // The model sees its cut answer, then that the user cut it, then the
    // new message.
    assert_eq!(h.assistant_texts(1), ["partial answer "]);
    assert_eq!(
        h.user_texts(1),
        ["first", zcode::runtime::turn::INTERRUPTED_NOTE, "again"]
    );
    // The note is in the transcript for a resumed session, but not as
    // something the user typed.
    let notes: Vec<_> = h
        .entries()
        .into_iter()
        .filter(|e| e.kind == entry_kind::NOTIFICATION)
        .collect();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].payload["kind"], "interrupted");
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_the_model_learns_its_answer_was_cut_openai() {
    interrupted_then_next_request(Dialect::OpenAi).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_the_model_learns_its_answer_was_cut_anthropic() {
    interrupted_then_next_request(Dialect::Anthropic).await;
}
