//! Cells against a real runtime (the fake model server behind the real
//! providers): a resumed session shows each call exactly as the live
//! session did (a failed command, a plan sent back, a denied call); a
//! running Bash command's output arrives while it runs; a stream the
//! server cuts mid-reply ends with the reply marked and a plain error.

#![cfg(unix)]

mod support;

use crossterm::event::KeyCode;
use serde_json::json;
use std::time::Instant;
use support::fake_model_server::Reply;
use support::runtime_harness::{Dialect, Harness, Setup};
use support::tui::{Session, event, key, screen_of};
use zcode::permission::mode::Mode;
use zcode::protocol::{Event, Op, PermissionReply, TurnEnd};
use zcode::runtime::transcript::history_items;
use zcode::tui::cells::{Cell, ToolStatus};
use zcode::tui::{Cmd, Model, Msg, update};

fn tui() -> Model {
    let mut m = Session::new(100, 40).model("local/qwen3", "Local").start();
    update(&mut m, Msg::Tick(Instant::now()));
    m
}

/// The live session's events, as the TUI showed them.
fn live_view(h: &Harness) -> Model {
    let mut m = tui();
    for e in &h.log {
        if !matches!(e, Event::SessionStarted { .. }) {
            event(&mut m, e.clone());
        }
    }
    m
}

/// The same session resumed: its history, as the TUI replays it.
fn resumed_view(h: &Harness) -> Model {
    let mut m = tui();
    event(
        &mut m,
        Event::History {
            items: history_items(&h.entries()),
        },
    );
    m
}

/// Every tool cell: its tool, status, detail line and kept output.
fn tool_cells(m: &Model) -> Vec<(String, ToolStatus, String, String)> {
    m.cells
        .iter()
        .filter_map(|c| match c {
            Cell::Tool {
                tool,
                status,
                detail,
                output,
                ..
            } => Some((tool.clone(), *status, detail.clone(), output.clone())),
            _ => None,
        })
        .collect()
}

/// Answers every request of the turn: Bash is allowed, Write denied, a
/// plan sent back with feedback.
async fn run_turn(h: &mut Harness, text: &str) {
    h.input(text);
    loop {
        let next = h
            .wait_for("a request or the turn's end", |e| match e {
                Event::PermissionRequested { request } => Some(Some(request.clone())),
                Event::TurnFinished { .. } => Some(None),
                _ => None,
            })
            .await;
        let Some(request) = next else { break };
        let reply = match request.tool.as_str() {
            "Bash" => PermissionReply::AllowOnce,
            "ExitPlanMode" => PermissionReply::PlanFeedback {
                feedback: "use a hand-written lexer".into(),
            },
            _ => PermissionReply::Deny { feedback: None },
        };
        h.reply(&request.request_id, reply);
    }
}

fn assert_resumed_as_live(h: &Harness) -> Vec<(String, ToolStatus, String, String)> {
    let live = tool_cells(&live_view(h));
    let resumed = tool_cells(&resumed_view(h));
    assert_eq!(resumed, live, "the resumed cells differ from the live ones");
    live
}

#[tokio::test(flavor = "multi_thread")]
async fn resume_shows_failed_command_as_failed() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    h.enqueue_bash("b1", "echo checking; exit 1");
    h.enqueue_bash("b2", "echo fine");
    let write = json!({"file_path": h.path("a.txt"), "content": "x"}).to_string();
    h.enqueue_tool_calls(&[("w1", "Write", &write)]);
    h.enqueue_text("done");
    run_turn(&mut h, "run the checks").await;
    let cells = assert_resumed_as_live(&h);
    let by_tool = |t: &str| {
        cells
            .iter()
            .filter(|c| c.0 == t)
            .map(|c| (c.1, c.2.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        by_tool("Bash"),
        vec![
            (ToolStatus::Failed, "exit 1 · 1 line".to_string()),
            (ToolStatus::Done, "exit 0 · 1 line".to_string()),
        ]
    );
    assert_eq!(
        by_tool("Write"),
        vec![(ToolStatus::Denied, "You denied this".to_string())]
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn resume_shows_plan_sent_back_as_sent_back() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build)
        .plan()
        .start()
        .await;
    let plan = json!({"plan": "# Add the parser\n\n1. Write it"}).to_string();
    h.enqueue_tool_calls(&[("p1", "ExitPlanMode", &plan)]);
    h.enqueue_text("Revising the plan.");
    run_turn(&mut h, "plan the parser").await;
    let cells = assert_resumed_as_live(&h);
    assert_eq!(cells.len(), 1, "{cells:?}");
    assert_eq!(cells[0].1, ToolStatus::Failed);
    assert_eq!(cells[0].2, "plan sent back");
    let resumed = screen_of(&resumed_view(&h));
    assert!(
        resumed.contains("✗ ExitPlanMode Add the parser"),
        "{resumed}"
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn live_bash_output_arrives_before_the_command_ends() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    let go = h.path("go");
    // The command waits for a file the test makes once it saw the output.
    let command = format!(
        "echo started; while [ ! -e '{}' ]; do sleep 0.02; done; echo done",
        go.display()
    );
    h.enqueue_bash("b1", &command);
    h.enqueue_text("ok");
    h.input("run it");
    let request = h
        .wait_for("the approval", |e| match e {
            Event::PermissionRequested { request } => Some(request.clone()),
            _ => None,
        })
        .await;
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    let text = h
        .wait_for("live output", |e| match e {
            Event::ToolOutputDelta { call_id, text } if call_id == "b1" => Some(text.clone()),
            _ => None,
        })
        .await;
    assert_eq!(text, "started\n");
    // Still running: shown in its cell.
    let screen = screen_of(&live_view(&h));
    assert!(screen.contains("◌ Bash"), "{screen}");
    assert!(screen.contains("    started"), "{screen}");
    std::fs::write(&go, "").unwrap();
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let deltas = h.count(|e| matches!(e, Event::ToolOutputDelta { .. }));
    assert!(deltas <= 2, "coalesced: {deltas} deltas");
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn broken_stream_ends_cleanly_with_a_plain_error_and_a_retry() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    let delta = json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "model": "fake",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": "The parser reads tokens and"}, "finish_reason": null}],
    });
    h.server
        .enqueue(Reply::sse_chunks([format!("data: {delta}\n\n")]).drop_connection());
    h.input("Explain the parser");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Failed);
    let mut m = live_view(&h);
    let screen = screen_of(&m);
    assert!(screen.contains("The parser reads tokens and"), "{screen}");
    assert!(!screen.contains('▌'), "the cursor left the reply: {screen}");
    assert!(screen.contains("reply cut off here"), "{screen}");
    assert!(
        screen.contains("The connection to the model broke mid-reply"),
        "{screen}"
    );
    assert!(
        !screen.contains("stream broke off"),
        "no raw error: {screen}"
    );
    assert!(
        screen.contains("press Enter on an empty prompt"),
        "{screen}"
    );
    let cmds = update(&mut m, key(KeyCode::Enter));
    assert_eq!(
        cmds,
        vec![Cmd::Send(Op::UserInput {
            text: "Explain the parser".into()
        })]
    );
    h.shutdown().await;
}
