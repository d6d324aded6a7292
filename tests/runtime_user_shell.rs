//! `!command` (`Op::RunShell`): the user's own command runs in the
//! workspace as a turn that asks the model nothing; its command and output
//! are shown as a Bash cell and become a user message the model reads with
//! the next prompt; a resumed session replays it as typed; Esc stops it;
//! while a turn runs it is refused. The real runtime and store against the
//! fake model server; the test plays the front end.

#![cfg(unix)]

mod support;

use support::runtime_harness::{Dialect, Harness, Setup};
use zcode::permission::mode::Mode;
use zcode::protocol::{Event, HistoryItem, Op, TurnEnd};
use zcode::store::entry_kind;

async fn start() -> Harness {
    Setup::new(Dialect::OpenAi, Mode::Build)
        .plan()
        .start()
        .await
}

fn run(h: &Harness, command: &str) {
    h.send(Op::RunShell {
        command: command.into(),
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_shell_runs_in_the_workspace_and_the_model_reads_it_next() {
    let mut h = start().await;
    std::fs::write(h.workspace.join("marker.txt"), "here").unwrap();
    // Plan mode would refuse a model's `touch`; the user's own command is
    // neither checked nor asked about.
    run(&h, "ls && touch made-by-user.txt && echo done-$((40+2))");
    let (output, exit_code) = h
        .wait_for("the command's cell", |e| match e {
            Event::ToolCallFinished {
                tool,
                output,
                exit_code,
                ..
            } if tool == "Bash" => Some((output.clone(), *exit_code)),
            _ => None,
        })
        .await;
    assert!(output.contains("marker.txt"), "{output}");
    assert!(output.contains("done-42"), "{output}");
    assert_eq!(exit_code, Some(0));
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(h.workspace.join("made-by-user.txt").exists());
    // No request went to the model for it.
    assert_eq!(h.server.request_count(), 0);
    assert!(h.count(|e| matches!(e, Event::PermissionRequested { .. })) == 0);
    assert!(
        h.count(
            |e| matches!(e, Event::TurnStarted { text, .. } if text.starts_with("!ls && touch"))
        ) == 1
    );

    // The next prompt carries it: the command and its output as the user's.
    h.enqueue_text("I see the listing.");
    h.input("what did that print?");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let users = h.user_texts(0);
    let shell = users
        .iter()
        .find(|t| t.contains("<bash-input>"))
        .unwrap_or_else(|| panic!("no shell message in {users:?}"));
    assert!(shell.contains("touch made-by-user.txt"), "{shell}");
    assert!(shell.contains("done-42"), "{shell}");
    assert!(users.iter().any(|t| t.contains("what did that print?")));

    // Stored as a user entry, replayed as the line typed and its cell.
    let entries = h.entries();
    let entry = entries
        .iter()
        .find(|e| e.kind == entry_kind::USER_MESSAGE && e.payload.get("shell").is_some())
        .expect("the shell entry");
    let items = zcode::runtime::transcript::history_items(std::slice::from_ref(entry));
    match items.as_slice() {
        [
            HistoryItem::User { text },
            HistoryItem::Tool {
                tool,
                output,
                is_error,
                ..
            },
        ] => {
            assert!(text.starts_with("!ls && touch"), "{text}");
            assert_eq!(tool, "Bash");
            assert!(output.contains("done-42"));
            assert!(!is_error);
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_shell_is_interrupted_by_esc() {
    let mut h = start().await;
    run(&h, "echo started; exec sleep 600");
    h.wait_for("the command running", |e| {
        matches!(e, Event::ToolCallRunning { .. }).then_some(())
    })
    .await;
    h.interrupt();
    let failed = h
        .wait_for("the command's cell", |e| match e {
            Event::ToolCallFinished { is_error, .. } => Some(*is_error),
            _ => None,
        })
        .await;
    assert!(failed, "a stopped command is no success");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Interrupted);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_shell_while_a_turn_runs_is_refused() {
    let mut h = start().await;
    run(&h, "exec sleep 600");
    h.wait_for("the command running", |e| {
        matches!(e, Event::ToolCallRunning { .. }).then_some(())
    })
    .await;
    run(&h, "echo second");
    let message = h
        .wait_for("the refusal", |e| match e {
            Event::Error { message } => Some(message.clone()),
            _ => None,
        })
        .await;
    assert!(message.contains("a turn is running"), "{message}");
    h.interrupt();
    assert_eq!(h.turn_finished().await.0, TurnEnd::Interrupted);
}
