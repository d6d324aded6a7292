//! Reminders the runtime injects, seen from the requests the model received
//! (TODO-6).

#![cfg(unix)]

mod support;

use support::runtime_harness::{Dialect, Harness, Setup};
use zcode::permission::mode::Mode;
use zcode::protocol::TurnEnd;

const HEADLINE: &str = "The TodoWrite tool hasn't been used recently.";

fn reminders_in(h: &Harness, request: usize) -> usize {
    h.user_texts(request)
        .iter()
        .filter(|t| t.contains(HEADLINE))
        .count()
}

/// One turn in which the model answers `replies` times with a tool call
/// (TodoWrite at the given reply indexes, Glob otherwise), then with text.
async fn run_turn(todo_write_at: &[usize], replies: usize) -> Harness {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Yolo).start().await;
    for i in 0..replies {
        let id = format!("call_{i}");
        if todo_write_at.contains(&i) {
            let todos = r#"{"todos":[{"content":"write the parser","status":"in_progress","priority":"high"}]}"#;
            h.enqueue_tool_calls(&[(&id, "TodoWrite", todos)]);
        } else {
            h.enqueue_tool_calls(&[(&id, "Glob", r#"{"pattern":"*"}"#)]);
        }
    }
    h.enqueue_text("finished");
    h.input("do a long task");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    h
}

#[tokio::test(flavor = "multi_thread")]
async fn todo6_reminder_after_ten_assistant_messages_then_ten_more() {
    let h = run_turn(&[], 21).await;
    // Request r is sent after r assistant messages.
    for r in 0..10 {
        assert_eq!(reminders_in(&h, r), 0, "request {r}");
    }
    assert_eq!(
        reminders_in(&h, 10),
        1,
        "request 10 carries the first reminder"
    );
    for r in 11..20 {
        assert_eq!(
            reminders_in(&h, r),
            1,
            "request {r}: no second reminder yet"
        );
    }
    assert_eq!(
        reminders_in(&h, 20),
        2,
        "request 20 carries the second reminder"
    );
    let reminder = h
        .user_texts(10)
        .into_iter()
        .find(|t| t.contains(HEADLINE))
        .unwrap();
    assert!(reminder.contains("<system-reminder>"), "{reminder}");
    // Persisted as a synthetic user notification.
    let notes = h
        .entries()
        .into_iter()
        .filter(|e| e.kind == "notification")
        .count();
    assert_eq!(notes, 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn todo6_todo_write_resets_the_count_and_the_list_is_shown() {
    let h = run_turn(&[5], 17).await;
    for r in 0..16 {
        assert_eq!(reminders_in(&h, r), 0, "request {r}");
    }
    assert_eq!(reminders_in(&h, 16), 1);
    let reminder = h
        .user_texts(16)
        .into_iter()
        .find(|t| t.contains(HEADLINE))
        .unwrap();
    assert!(
        reminder.contains("1. [in_progress] write the parser"),
        "{reminder}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn todo6_no_reminder_when_todo_write_is_not_offered() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Yolo)
        .disallow("TodoWrite")
        .start()
        .await;
    for i in 0..11 {
        h.enqueue_tool_calls(&[(&format!("c{i}"), "Glob", r#"{"pattern":"*"}"#)]);
    }
    h.enqueue_text("finished");
    h.input("do a long task");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert_eq!(reminders_in(&h, 11), 0);
}
