//! A running Bash command's output, from the real binary: `-p
//! --output-format stream-json` has it as `tool_output_delta` events before
//! the call's result; the text format prints none of it.

mod support;

use serde_json::Value;
use support::fake_model_server::{FakeModelServer, Reply, sse};
use support::headless::{Harness, openai_env};

fn script(server: &FakeModelServer) {
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("c1", "Bash", r#"{"command":"echo one; echo two"}"#)],
        )),
        Reply::sse(sse::openai_text("Done.")),
    ]);
}

#[tokio::test(flavor = "multi_thread")]
async fn live_bash_output_streams_as_json_events_before_the_result() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    script(&server);
    let run = h
        .run(
            &["-p", "run it", "--output-format", "stream-json"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let events: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let deltas: Vec<usize> = (0..events.len())
        .filter(|i| events[*i]["type"] == "tool_output_delta")
        .collect();
    assert!(!deltas.is_empty(), "{}", run.stdout);
    let text: String = deltas
        .iter()
        .map(|i| events[*i]["text"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(text, "one\ntwo\n");
    assert!(deltas.iter().all(|i| events[*i]["call_id"] == "c1"));
    let finished = events
        .iter()
        .position(|e| e["type"] == "tool_call_finished")
        .expect("the result");
    assert!(deltas.iter().all(|i| *i < finished), "{}", run.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn live_bash_output_is_not_printed_by_the_text_format() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    script(&server);
    let run = h.run(&["-p", "run it"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout.trim(), "Done.");
    assert!(!run.stderr.contains("one\ntwo"), "{}", run.stderr);
}
