//! The turn loop of the running agent (RUN-1..3): persistence as it
//! happens, interrupts while streaming, while a tool runs and while an
//! approval waits, and inputs queued during a turn. In-process, with the
//! real HTTP providers against the fake model server.

#![cfg(unix)]

mod support;

use std::time::Duration;

use serde_json::json;
use support::fake_model_server::Reply;
use support::runtime_harness::{Dialect, Harness, Setup, process_alive, read_pid_file, wait_gone};
use zcode::permission::mode::{Mode, ModeChoice};
use zcode::protocol::{Event, Op, PermissionReply, ResolvedBy, TurnEnd};
use zcode::runtime::turn::INTERRUPTED_NOTE;
use zcode::store::{InputStatus, entry_kind};

fn turn_started_texts(h: &Harness) -> Vec<(u64, String)> {
    h.log
        .iter()
        .filter_map(|e| match e {
            Event::TurnStarted { turn, text } => Some((*turn, text.clone())),
            _ => None,
        })
        .collect()
}

/// A reply whose head and first events come at once and whose rest waits
/// `pause`: the first `events` SSE events, then the pause, then the rest.
fn stalled_reply(body: &str, events: usize, pause: Duration) -> Reply {
    let parts: Vec<&str> = body.split_inclusive("\n\n").collect();
    assert!(parts.len() > events, "{body}");
    Reply::sse_chunks([parts[..events].concat()])
        .delay(pause)
        .chunk(parts[events..].concat())
}

/// A reply that arrives whole after `pause`.
fn late_reply(body: String, pause: Duration) -> Reply {
    Reply::sse_chunks(Vec::<String>::new())
        .delay(pause)
        .chunk(body)
}

// ---- RUN-1: persisted as it happens -----------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run1_every_message_is_persisted_as_it_happens() {
    let mut h = Setup::new(Dialect::Anthropic, Mode::Build).start().await;
    assert!(h.session_id.starts_with("sess_"), "{}", h.session_id);
    h.enqueue_bash("call_1", "touch a.txt");
    // The closing reply is late, so the state between the tool result and
    // the answer can be looked at.
    h.server.enqueue(late_reply(
        h.text_body("All done."),
        Duration::from_millis(400),
    ));
    h.input("make a.txt");

    // Waiting for approval: the user message and the assistant's tool call
    // are already stored.
    let request = h.permission_request().await;
    let conv = h.conversation();
    assert_eq!(
        conv.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>(),
        [entry_kind::USER_MESSAGE, entry_kind::ASSISTANT_MESSAGE],
        "{conv:#?}"
    );
    assert_eq!(conv[0].payload["text"], "make a.txt");
    let calls = conv[1].payload["toolCalls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{conv:#?}");
    assert_eq!(calls[0]["id"], "call_1");
    assert_eq!(calls[0]["name"], "Bash");
    let args: serde_json::Value =
        serde_json::from_str(calls[0]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"command": "touch a.txt"}));

    // The tool ran and the model is asked again: the result is stored
    // before the answer comes.
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    assert!(h.server.wait_for_requests(2, Duration::from_secs(3)).await);
    let output = h
        .wait_for("ToolCallFinished", |e| match e {
            Event::ToolCallFinished { output, .. } => Some(output.clone()),
            _ => None,
        })
        .await;
    let conv = h.conversation();
    assert_eq!(
        conv.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>(),
        [
            entry_kind::USER_MESSAGE,
            entry_kind::ASSISTANT_MESSAGE,
            entry_kind::TOOL_RESULT
        ],
        "{conv:#?}"
    );
    assert_eq!(conv[2].payload["callId"], "call_1");
    assert_eq!(conv[2].payload["tool"], "Bash");
    assert_eq!(conv[2].payload["content"], output.as_str());
    assert_eq!(conv[2].payload["isError"], false);

    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let conv = h.conversation();
    assert_eq!(
        h.conversation_kinds(),
        [
            entry_kind::USER_MESSAGE,
            entry_kind::ASSISTANT_MESSAGE,
            entry_kind::TOOL_RESULT,
            entry_kind::ASSISTANT_MESSAGE,
        ]
    );
    assert_eq!(conv[3].payload["text"], "All done.");
    assert_eq!(conv[3].payload["toolCalls"], json!([]));
    // Entries are numbered in the order they happened.
    let seqs: Vec<i64> = conv.iter().map(|e| e.seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");

    // A mode change is an entry too (EXEC-4), written before it is announced.
    h.send(Op::SetMode {
        choice: ModeChoice::Mode(Mode::Edit),
    });
    h.wait_for("SessionModeChanged", |e| {
        matches!(e, Event::SessionModeChanged { .. }).then_some(())
    })
    .await;
    let last = h.entries().pop().unwrap();
    assert_eq!(last.kind, entry_kind::EXECUTION_STATE);
    assert_eq!(last.payload["mode"], "edit");
    h.shutdown().await;
}

// ---- RUN-2: interrupts ----------------------------------------------------

async fn run2_interrupt_while_streaming(dialect: Dialect) {
    let mut h = Setup::new(dialect, Mode::Build).start().await;
    // The role/start events and the first text delta, then a long silence.
    let head_events = match dialect {
        Dialect::OpenAi => 2,
        Dialect::Anthropic => 3,
    };
    h.server.enqueue(stalled_reply(
        &h.text_body("partial answer that never ends"),
        head_events,
        // Far longer than any wait: only the interrupt ends the turn.
        Duration::from_secs(3600),
    ));
    h.input("first");
    let delta = h
        .wait_for("AssistantDelta", |e| match e {
            Event::AssistantDelta { text } => Some(text.clone()),
            _ => None,
        })
        .await;
    assert_eq!(delta, "partial answer ");

    h.interrupt();
    let (end, answer) = h.turn_finished().await;
    assert_eq!(end, TurnEnd::Interrupted);
    assert_eq!(answer, None);
    // The request was abandoned: the server sees the connection close.
    assert!(
        h.server
            .wait_for_client_aborts(1, Duration::from_secs(2))
            .await,
        "the client did not abort the request"
    );
    // What had arrived is kept.
    let conv = h.conversation();
    assert_eq!(
        h.conversation_kinds(),
        [entry_kind::USER_MESSAGE, entry_kind::ASSISTANT_MESSAGE]
    );
    assert_eq!(conv[1].payload["text"], "partial answer ");

    // A new input starts a fresh turn that works.
    h.enqueue_text("fresh answer");
    h.input("again");
    assert_eq!(
        h.turn_finished().await,
        (TurnEnd::Completed, Some("fresh answer".into()))
    );
    assert_eq!(h.server.request_count(), 2);
    // The model reads that its answer was cut, before the new message.
    assert_eq!(h.user_texts(1), ["first", INTERRUPTED_NOTE, "again"]);
    assert_eq!(h.assistant_texts(1), ["partial answer "]);
    assert_eq!(
        turn_started_texts(&h),
        [(1, "first".to_string()), (2, "again".to_string())]
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run2_interrupt_while_streaming_openai() {
    run2_interrupt_while_streaming(Dialect::OpenAi).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run2_interrupt_while_streaming_anthropic() {
    run2_interrupt_while_streaming(Dialect::Anthropic).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run2_interrupt_before_the_response_head() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    h.server.enqueue(late_reply(
        h.text_body("too late"),
        Duration::from_secs(3600),
    ));
    h.input("first");
    assert!(h.server.wait_for_requests(1, Duration::from_secs(3)).await);
    h.interrupt();
    assert_eq!(h.turn_finished().await.0, TurnEnd::Interrupted);
    assert!(
        h.server
            .wait_for_client_aborts(1, Duration::from_secs(2))
            .await
    );
    // Nothing arrived, so no assistant message is stored.
    assert_eq!(h.conversation_kinds(), [entry_kind::USER_MESSAGE]);

    h.enqueue_text("fresh answer");
    h.input("again");
    assert_eq!(
        h.turn_finished().await,
        (TurnEnd::Completed, Some("fresh answer".into()))
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run2_interrupt_while_a_tool_runs_kills_it() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Yolo).start().await;
    h.enqueue_bash("call_1", "echo $$; echo $$ > pid.txt; exec sleep 3600");
    h.input("wait a long time");
    let pid = read_pid_file(&h.path("pid.txt"), Duration::from_secs(3)).await;
    assert!(process_alive(pid));

    h.interrupt();
    assert_eq!(h.turn_finished().await.0, TurnEnd::Interrupted);
    assert!(
        wait_gone(pid, Duration::from_secs(1)).await,
        "the command {pid} survived the interrupt"
    );
    let (call_id, output) = h
        .log
        .iter()
        .find_map(|e| match e {
            Event::ToolCallFinished {
                call_id, output, ..
            } => Some((call_id.clone(), output.clone())),
            _ => None,
        })
        .expect("the interrupted call reports a result");
    assert_eq!(call_id, "call_1");
    assert!(output.contains(&pid.to_string()), "{output}");
    // The interrupted call has its result in the transcript, so the
    // conversation stays valid for the next request.
    assert_eq!(
        h.conversation_kinds(),
        [
            entry_kind::USER_MESSAGE,
            entry_kind::ASSISTANT_MESSAGE,
            entry_kind::TOOL_RESULT
        ]
    );
    // No second request was made for the interrupted turn.
    assert_eq!(h.server.request_count(), 1);

    h.enqueue_text("fresh answer");
    h.input("again");
    assert_eq!(
        h.turn_finished().await,
        (TurnEnd::Completed, Some("fresh answer".into()))
    );
    let results = h.tool_results(1);
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].call_id, "call_1");
    assert_eq!(results[0].content, output);
    assert_eq!(
        h.user_texts(1),
        ["wait a long time", INTERRUPTED_NOTE, "again"]
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run2_interrupt_while_waiting_for_approval() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    h.enqueue_bash("call_1", "touch a.txt");
    h.input("make a.txt");
    let request = h.permission_request().await;

    h.interrupt();
    assert_eq!(h.turn_finished().await.0, TurnEnd::Interrupted);
    let resolved: Vec<_> = h
        .log
        .iter()
        .filter_map(|e| match e {
            Event::PermissionResolved { request_id, by } => Some((request_id.clone(), *by)),
            _ => None,
        })
        .collect();
    assert_eq!(
        resolved,
        [(request.request_id.clone(), ResolvedBy::Cancelled)]
    );
    let denial = h
        .log
        .iter()
        .find_map(|e| match e {
            Event::ToolCallDenied { denial } => Some(denial.clone()),
            _ => None,
        })
        .expect("the unanswered call is reported as not run");
    assert_eq!(denial.rule_id, "approval.cancelled");
    assert!(!h.exists("a.txt"));

    // The panel's late answer is refused; nothing runs.
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    let notice = h
        .wait_for("Notice", |e| match e {
            Event::Notice { message } => Some(message.clone()),
            _ => None,
        })
        .await;
    assert!(notice.contains(&request.request_id), "{notice}");
    assert!(!h.exists("a.txt"));

    h.enqueue_text("fresh answer");
    h.input("never mind");
    assert_eq!(
        h.turn_finished().await,
        (TurnEnd::Completed, Some("fresh answer".into()))
    );
    let results = h.tool_results(1);
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].call_id, "call_1");
    assert!(
        results[0].content.contains("Interrupted by the user")
            && results[0].content.contains("NOT executed"),
        "{results:?}"
    );
    assert!(!h.exists("a.txt"));
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run2_interrupt_without_a_turn_does_nothing() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    h.interrupt();
    h.expect_quiet(Duration::from_millis(200)).await;
    h.enqueue_text("hello");
    h.input("hi");
    assert_eq!(
        h.turn_finished().await,
        (TurnEnd::Completed, Some("hello".into()))
    );
    h.shutdown().await;
}

// ---- RUN-3: queued inputs -------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run3_inputs_sent_during_a_turn_start_in_order_after_it() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    h.server.enqueue(late_reply(
        h.text_body("answer one"),
        Duration::from_millis(400),
    ));
    h.enqueue_text("answer two");
    h.enqueue_text("answer three");
    h.input("one");
    h.wait_for("TurnStarted", |e| {
        matches!(e, Event::TurnStarted { .. }).then_some(())
    })
    .await;
    h.input("two");
    h.input("three");
    let mut queued = Vec::new();
    while queued.len() < 2 {
        queued.push(
            h.wait_for("InputQueued", |e| match e {
                Event::InputQueued { id, text } => Some((id.clone(), text.clone())),
                _ => None,
            })
            .await,
        );
    }
    assert_eq!(queued[0].1, "two");
    assert_eq!(queued[1].1, "three");
    {
        // Persisted, in order, with the mode they were typed in.
        let waiting = h.store().queued_inputs(&h.session_id).unwrap();
        let texts: Vec<&str> = waiting.iter().map(|q| q.text.as_str()).collect();
        assert_eq!(texts, ["two", "three"]);
        assert!(waiting[0].seq < waiting[1].seq);
        for q in &waiting {
            assert_eq!(q.intent_mode(), Some("build"));
        }
    }

    let mut ends = Vec::new();
    while ends.len() < 3 {
        ends.push(h.turn_finished().await);
    }
    assert_eq!(
        ends,
        [
            (TurnEnd::Completed, Some("answer one".to_string())),
            (TurnEnd::Completed, Some("answer two".to_string())),
            (TurnEnd::Completed, Some("answer three".to_string())),
        ]
    );
    assert_eq!(
        turn_started_texts(&h),
        [
            (1, "one".to_string()),
            (2, "two".to_string()),
            (3, "three".to_string())
        ]
    );
    // Each turn sees the earlier ones.
    assert_eq!(h.user_texts(1), ["one", "two"]);
    assert_eq!(h.user_texts(2), ["one", "two", "three"]);
    // Each input is a user message entry, in order.
    let users: Vec<String> = h
        .conversation()
        .into_iter()
        .filter(|e| e.kind == entry_kind::USER_MESSAGE)
        .map(|e| e.payload["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(users, ["one", "two", "three"]);
    assert!(h.store().queued_inputs(&h.session_id).unwrap().is_empty());
    for (id, _) in &queued {
        h.wait_input_status(id, InputStatus::Done).await;
    }
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run3_input_queued_while_an_approval_waits_runs_after_the_answer() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    h.enqueue_bash("call_1", "touch a.txt");
    h.enqueue_text("answer one");
    h.enqueue_text("answer two");
    h.input("one");
    let request = h.permission_request().await;
    h.input("two");
    h.wait_for("InputQueued", |e| {
        matches!(e, Event::InputQueued { .. }).then_some(())
    })
    .await;
    // The queued input waits for the approval, it does not answer it.
    h.expect_quiet(Duration::from_millis(200)).await;
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    assert_eq!(
        h.turn_finished().await,
        (TurnEnd::Completed, Some("answer one".into()))
    );
    assert_eq!(
        h.turn_finished().await,
        (TurnEnd::Completed, Some("answer two".into()))
    );
    assert!(h.exists("a.txt"));
    assert_eq!(
        turn_started_texts(&h),
        [(1, "one".to_string()), (2, "two".to_string())]
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run2_interrupt_skips_the_remaining_calls_of_the_reply() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Yolo).start().await;
    let slow = json!({"command": "echo $$ > pid.txt; exec sleep 30"}).to_string();
    let next = json!({"command": "touch b.txt"}).to_string();
    h.enqueue_tool_calls(&[("call_1", "Bash", &slow), ("call_2", "Bash", &next)]);
    h.input("two things");
    let pid = read_pid_file(&h.path("pid.txt"), Duration::from_secs(3)).await;
    h.interrupt();
    assert_eq!(h.turn_finished().await.0, TurnEnd::Interrupted);
    assert!(wait_gone(pid, Duration::from_secs(1)).await);
    assert!(
        !h.exists("b.txt"),
        "a call after the interrupt must not run"
    );
    // Both calls have a result, so the next request is well formed.
    assert_eq!(
        h.conversation_kinds(),
        [
            entry_kind::USER_MESSAGE,
            entry_kind::ASSISTANT_MESSAGE,
            entry_kind::TOOL_RESULT,
            entry_kind::TOOL_RESULT
        ]
    );
    h.enqueue_text("ok");
    h.input("again");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let results = h.tool_results(1);
    assert_eq!(
        results
            .iter()
            .map(|r| r.call_id.as_str())
            .collect::<Vec<_>>(),
        ["call_1", "call_2"]
    );
    assert!(
        results[1].content.contains("Interrupted by the user"),
        "{results:?}"
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run2_interrupt_during_a_pre_tool_use_hook_does_not_run_the_tool() {
    let setup = Setup::new(Dialect::OpenAi, Mode::Yolo);
    let setup = setup.pre_tool_use(
        "Write",
        "slow.sh",
        "echo $$ > \"$0.pid\"\nexec sleep 5",
        10_000,
    );
    let mut h = setup.start().await;
    let args = json!({"file_path": "a.txt", "content": "x"}).to_string();
    h.enqueue_tool_calls(&[("call_1", "Write", &args)]);
    h.input("write a.txt");
    let pid = read_pid_file(&h.scripts.join("slow.sh.pid"), Duration::from_secs(3)).await;
    h.interrupt();
    assert_eq!(h.turn_finished().await.0, TurnEnd::Interrupted);
    assert!(wait_gone(pid, Duration::from_secs(1)).await);
    assert!(
        !h.exists("a.txt"),
        "the Write ran after the interrupt:\n{}",
        h.log_text()
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run2_shutdown_while_an_approval_waits_ends_cleanly() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    h.enqueue_bash("call_1", "touch a.txt");
    h.input("make a.txt");
    h.permission_request().await;
    h.stop().await;
    assert!(!h.exists("a.txt"));
    // The call is closed in the transcript, and the cut is noted for the
    // model of a resumed session.
    let entries = h.entries();
    let [.., result, note] = entries.as_slice() else {
        panic!("{entries:#?}");
    };
    assert_eq!(result.kind, entry_kind::TOOL_RESULT, "{entries:#?}");
    assert_eq!(result.payload["isError"], true);
    assert_eq!(note.kind, entry_kind::NOTIFICATION, "{entries:#?}");
    assert_eq!(note.payload["text"], INTERRUPTED_NOTE);
}
