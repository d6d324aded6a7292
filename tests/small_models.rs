//! Small local models end to end: the real `zcode -p` against a fake
//! llama.cpp-like server started with an 8k context (`-c 8192`). The
//! server says its context in `GET /props` and refuses, as llama.cpp
//! does, a chat request whose prompt does not fit; zcode must learn the
//! window before its first request and send the compact prompt and tool
//! descriptions, so that a tool round trip works.

mod support;

use serde_json::{Value, json};
use std::time::Duration;
use support::fake_model_server::{
    FakeModelServer, RecordedRequest, Reply, openai_tool_result, sse,
};
use support::headless::{Harness, openai_env};

/// The context llama.cpp was started with.
const N_CTX: usize = 8192;
/// Bytes counted as one token by the fake server: fewer than a real
/// tokenizer packs into one, so what passes here fits a real server.
const BYTES_PER_TOKEN: usize = 3;

/// The prompt tokens of a request, as the fake server counts them.
fn prompt_tokens(request: &RecordedRequest) -> usize {
    request.body.len() / BYTES_PER_TOKEN
}

/// A server like `llama-server -c 8192`: `/props` gives the slot's
/// context, and a chat request over it gets llama.cpp's 400.
async fn llama_cpp_server(answers_props: bool) -> FakeModelServer {
    let server = FakeModelServer::start().await;
    if answers_props {
        // Slow to answer: the first request must wait for it.
        let props = json!({"default_generation_settings": {"n_ctx": N_CTX}, "total_slots": 1});
        server.route(
            "/props",
            Reply::status(200)
                .header("content-type", "application/json")
                .delay(Duration::from_millis(600))
                .chunk(props.to_string()),
        );
    }
    server.guard(|request| {
        let tokens = prompt_tokens(request);
        (tokens > N_CTX).then(|| {
            Reply::json(
                400,
                &json!({"error": {
                    "code": 400,
                    "message": "the request exceeds the available context size, try increasing it",
                    "type": "exceed_context_size_error",
                    "n_prompt_tokens": tokens,
                    "n_ctx": N_CTX,
                }}),
            )
        })
    });
    server
}

/// A Read of `notes.txt`, then an answer quoting it.
fn enqueue_read_round_trip(server: &FakeModelServer) {
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("call_read", "Read", r#"{"file_path":"notes.txt"}"#)],
        )),
        Reply::sse(sse::openai_text("The notes say the answer is 42.")),
    ]);
}

/// The request fits the window and leaves room for the reply.
fn assert_fits(request: &RecordedRequest) {
    let body = request.json();
    let tokens = prompt_tokens(request);
    assert!(tokens <= N_CTX, "{tokens} prompt tokens");
    let max_tokens = body["max_tokens"].as_u64().expect("max_tokens is sent");
    assert!(max_tokens >= 1024, "room for a reply: {max_tokens}");
    // Shrunk to what the window leaves (about 4 bytes a token), not the
    // default 32000.
    let estimated = request.body.len() / 4;
    assert!(
        max_tokens as usize + estimated <= N_CTX + 256,
        "max_tokens {max_tokens} next to about {estimated} prompt tokens"
    );
}

fn tool_descriptions(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .expect("tools are offered")
        .iter()
        .map(|t| {
            t["function"]["description"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn small4_llama_cpp_8k_window_runs_a_tool_round_trip() {
    let h = Harness::new();
    std::fs::write(h.project().join("notes.txt"), "the answer is 42\n").unwrap();
    let server = llama_cpp_server(true).await;
    enqueue_read_round_trip(&server);

    let run = h
        .run(&["-p", "what do the notes say?"], &openai_env(&server))
        .await;

    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout, "The notes say the answer is 42.\n", "{run}");
    assert!(
        server.lookups().iter().any(|r| r.path == "/props"),
        "the window is asked of the server"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{run}");
    for request in &requests {
        assert_fits(request);
        let body = request.json();
        // The compact forms: one short description per tool.
        let descriptions = tool_descriptions(&body);
        assert!(descriptions.len() >= 10, "{descriptions:?}");
        assert!(
            descriptions.iter().all(|d| d.len() <= 400),
            "{descriptions:?}"
        );
        let system = body["messages"][0]["content"].as_str().unwrap_or_default();
        assert!(system.contains("NOT executed"), "{system}");
    }
    let second = requests[1].json();
    let result = openai_tool_result(&second, "call_read");
    assert!(result.contains("the answer is 42"), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn small4_the_full_prompt_does_not_fit_a_server_that_hides_its_window() {
    // No `/props`, no `/v1/models`: the window stays unknown, the full
    // prompt goes out, and the server's refusal reaches the user with a
    // hint.
    let h = Harness::new();
    let server = llama_cpp_server(false).await;
    enqueue_read_round_trip(&server);

    let run = h.run(&["-p", "hello"], &openai_env(&server)).await;

    assert_ne!(run.code, Some(0), "{run}");
    assert_eq!(server.request_count(), 1, "a 400 is not retried: {run}");
    assert!(
        prompt_tokens(&server.requests()[0]) > N_CTX,
        "the full prompt is larger than an 8k window"
    );
    assert!(
        run.stderr
            .contains("the request exceeds the available context size"),
        "{run}"
    );
    assert!(run.stderr.contains("contextWindow"), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn small4_config_context_window_forces_the_compact_prompt() {
    // The same silent server, with the window given in the config.
    let h = Harness::new();
    std::fs::write(h.project().join("notes.txt"), "the answer is 42\n").unwrap();
    let server = llama_cpp_server(false).await;
    enqueue_read_round_trip(&server);
    h.write_config(&json!({
        "providers": [{
            "id": "local",
            "kind": "openai",
            "baseUrl": server.openai_base_url(),
            "models": [{"id": "qwen2.5-coder-7b", "contextWindow": N_CTX}]
        }]
    }));

    let run = h.run(&["-p", "what do the notes say?"], &[]).await;

    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout, "The notes say the answer is 42.\n", "{run}");
    // The config says the window: nothing is asked.
    assert!(server.lookups().is_empty(), "{:?}", server.lookups());
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{run}");
    for request in &requests {
        assert_fits(request);
        assert_eq!(request.json()["model"], "qwen2.5-coder-7b");
    }
    let result = openai_tool_result(&requests[1].json(), "call_read");
    assert!(result.contains("the answer is 42"), "{result}");
}
