//! `/compact` (`Op::Compact`) while no turn runs: the compaction starts at
//! once as a task of its own, announced and finished by events, cancelled
//! by an interrupt, with inputs sent meanwhile waiting for it; while a turn
//! runs it happens before that turn's next request, as it is told. The real
//! HTTP provider against the fake model server, the real store; the test
//! plays the front end.

#![cfg(unix)]

mod support;

use std::time::Duration;

use support::fake_model_server::{Hold, Reply};
use support::runtime_harness::{Dialect, Harness, Setup};
use zcode::permission::mode::Mode;
use zcode::protocol::{CompactionOutcome, Event, Op, PermissionReply, TurnEnd};
use zcode::store::entry_kind;

const SUMMARY: &str = "SUMMARY: the user asked two questions and got two answers.";

/// A session with two finished turns: something older than the last turn
/// to summarise.
async fn two_turns() -> Harness {
    two_turns_in(Setup::new(Dialect::OpenAi, Mode::Build)).await
}

async fn two_turns_in(setup: Setup) -> Harness {
    let mut h = setup.start().await;
    for (question, answer) in [
        ("first question", "first answer"),
        ("second question", "second answer"),
    ] {
        h.enqueue_text(answer);
        h.input(question);
        assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    }
    h
}

async fn compaction_finished(h: &mut Harness) -> CompactionOutcome {
    h.wait_for("CompactionFinished", |e| match e {
        Event::CompactionFinished { outcome } => Some(*outcome),
        _ => None,
    })
    .await
}

/// Waits until the fake server has received `n` requests.
async fn requests_reach(h: &Harness, n: usize) {
    assert!(
        h.server.wait_for_requests(n, support::wait::WAIT).await,
        "request {n} never came"
    );
}

fn summaries(h: &Harness) -> usize {
    h.entries()
        .iter()
        .filter(|e| e.kind == entry_kind::COMPACTION_SUMMARY)
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_compact_runs_at_once_without_waiting_for_a_message() {
    let mut h = two_turns().await;
    h.enqueue_text(SUMMARY);
    h.send(Op::Compact);
    h.wait_for("CompactionStarted", |e| {
        matches!(e, Event::CompactionStarted).then_some(())
    })
    .await;
    let (kept, summary) = h
        .wait_for("ContextCompacted", |e| match e {
            Event::ContextCompacted {
                kept_messages,
                summary,
            } => Some((*kept_messages, summary.clone())),
            _ => None,
        })
        .await;
    assert_eq!(summary, SUMMARY);
    // The last turn (its question and answer) stays as it was.
    assert_eq!(kept, 2);
    assert_eq!(
        compaction_finished(&mut h).await,
        CompactionOutcome::Compacted
    );
    // The summary request went out without any new message.
    assert_eq!(h.server.request_count(), 3);
    assert_eq!(summaries(&h), 1);
    assert_eq!(h.count(|e| matches!(e, Event::TurnStarted { .. })), 2);

    // The next turn starts from the summary.
    h.enqueue_text("third answer");
    h.input("third question");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert_eq!(h.server.request_count(), 4, "no second compaction");
    let users = h.user_texts(3);
    assert!(users[0].contains(SUMMARY), "{users:?}");
    assert!(!users.iter().any(|u| u == "first question"), "{users:?}");
    assert!(users.iter().any(|u| u == "second question"), "{users:?}");
    assert!(users.iter().any(|u| u == "third question"), "{users:?}");
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_compact_with_nothing_to_summarise_says_so_and_sends_nothing() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    h.send(Op::Compact);
    assert_eq!(
        compaction_finished(&mut h).await,
        CompactionOutcome::NothingToCompact
    );
    assert_eq!(h.server.request_count(), 0);
    assert_eq!(h.count(|e| matches!(e, Event::CompactionStarted)), 1);
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_an_interrupt_cancels_the_compaction_and_changes_nothing() {
    let mut h = two_turns().await;
    // The summary never comes.
    h.server
        .enqueue(Reply::sse_chunks(Vec::<String>::new()).delay(Duration::from_secs(30)));
    h.send(Op::Compact);
    requests_reach(&h, 3).await;
    h.interrupt();
    assert_eq!(
        compaction_finished(&mut h).await,
        CompactionOutcome::Interrupted
    );
    assert_eq!(h.count(|e| matches!(e, Event::ContextCompacted { .. })), 0);
    assert_eq!(summaries(&h), 0);

    // The history is whole: the next request still carries the first turn.
    h.enqueue_text("third answer");
    h.input("third question");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let users = h.user_texts(3);
    assert!(users.iter().any(|u| u == "first question"), "{users:?}");
    assert!(!users.iter().any(|u| u.contains("SUMMARY")), "{users:?}");
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_a_message_sent_while_compacting_waits_for_the_summary() {
    let mut h = two_turns().await;
    // The summary is held until the message is queued behind it.
    let hold = Hold::new();
    h.server.enqueue(
        Reply::sse_chunks(Vec::<String>::new())
            .held(&hold)
            .chunk(h.text_body(SUMMARY)),
    );
    h.enqueue_text("third answer");
    h.send(Op::Compact);
    h.input("third question");
    h.wait_for("InputQueued", |e| {
        matches!(e, Event::InputQueued { text, .. } if text == "third question").then_some(())
    })
    .await;
    hold.release();
    assert_eq!(
        compaction_finished(&mut h).await,
        CompactionOutcome::Compacted
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    // Started after the compaction, from its summary.
    let finished = h
        .log
        .iter()
        .position(|e| matches!(e, Event::CompactionFinished { .. }))
        .unwrap();
    let started = h
        .log
        .iter()
        .rposition(|e| matches!(e, Event::TurnStarted { text, .. } if text == "third question"))
        .unwrap();
    assert!(finished < started, "{}", h.log_text());
    let users = h.user_texts(3);
    assert!(users[0].contains(SUMMARY), "{users:?}");
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_compact_during_a_turn_happens_before_its_next_request_and_says_so() {
    let mut h = two_turns().await;
    h.enqueue_bash("b1", "touch a.txt");
    h.enqueue_text(SUMMARY);
    h.enqueue_text("made it");
    h.input("make a file");
    // The turn waits on the approval: it is running.
    let request = h.permission_request().await;
    h.send(Op::Compact);
    let notice = h
        .wait_for("Notice", |e| match e {
            Event::Notice { message } => Some(message.clone()),
            _ => None,
        })
        .await;
    assert_eq!(
        notice,
        "a turn is running: the conversation will be compacted before the next request to the model"
    );
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    h.wait_for("ContextCompacted", |e| {
        matches!(e, Event::ContextCompacted { summary, .. } if summary == SUMMARY).then_some(())
    })
    .await;
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    // Turn 3's first request, the summary, then its second request.
    assert_eq!(h.server.request_count(), 5);
    assert!(h.user_texts(4)[0].contains(SUMMARY));
    // Not a compaction of its own: the turn was the busy one.
    assert_eq!(h.count(|e| matches!(e, Event::CompactionStarted)), 0);
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_compact_during_a_turn_that_sends_no_more_requests_runs_when_it_ends() {
    let mut h = two_turns_in(Setup::new(Dialect::OpenAi, Mode::Build).plan()).await;
    let plan = serde_json::json!({"plan": "# Add the parser"}).to_string();
    h.enqueue_tool_calls(&[("p1", "ExitPlanMode", &plan)]);
    h.enqueue_text(SUMMARY);
    h.input("plan it");
    let request = h.permission_request().await;
    h.send(Op::Compact);
    h.wait_for("Notice", |e| {
        matches!(e, Event::Notice { .. }).then_some(())
    })
    .await;
    // A plainly rejected plan ends the turn without another request.
    h.reply(
        &request.request_id,
        PermissionReply::Deny { feedback: None },
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Stopped);
    h.wait_for("CompactionStarted", |e| {
        matches!(e, Event::CompactionStarted).then_some(())
    })
    .await;
    assert_eq!(
        compaction_finished(&mut h).await,
        CompactionOutcome::Compacted
    );
    assert_eq!(
        h.server.request_count(),
        4,
        "two turns, the plan, the summary"
    );
    assert_eq!(summaries(&h), 1);
    h.shutdown().await;
}
