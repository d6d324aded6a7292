//! The model connection as a user meets it: each retry told as it happens,
//! one clean line for the final error in every way a connection fails
//! (both dialects), and the context window asked of the server for a
//! model the config does not describe. Every server is local (127.0.0.1).

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use support::fake_model_server::{FakeModelServer, Reply, sse};
use support::headless::{Harness, openai_env};
use support::{fake_provider, test_settings};
use tokio::io::AsyncWriteExt;
use zcode::config::{Provider, ProviderKind};
use zcode::model::accumulate::collect_reply;
use zcode::model::anthropic::AnthropicProvider;
use zcode::model::context_window::{FoundWindow, WindowLookup};
use zcode::model::openai::OpenAiProvider;
use zcode::model::{
    HttpSettings, Message, ModelProvider, ModelRequest, ProviderError, RetryNotice,
};
use zcode::protocol::retry_line;

/// stderr's lines after the first, which says the run is in yolo (the
/// default of `-p`, EXEC-6).
fn stderr_without_yolo_line(stderr: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = stderr.lines().collect();
    assert!(
        lines
            .first()
            .is_some_and(|l| l.starts_with(zcode::headless::YOLO_LINE_START)),
        "{stderr}"
    );
    lines.remove(0);
    lines
}

fn request() -> ModelRequest {
    ModelRequest {
        model: "m".into(),
        system: "s".into(),
        messages: vec![Message::User {
            content: "hi".into(),
        }],
        tools: vec![],
        max_output_tokens: None,
        context_window: None,
        reasoning: None,
        cache_key: None,
    }
}

/// A provider of `kind` at `root` (`http://host:port`, no `/v1`).
fn provider_at(kind: ProviderKind, root: &str, settings: HttpSettings) -> Box<dyn ModelProvider> {
    match kind {
        ProviderKind::Openai => Box::new(OpenAiProvider::new(
            &fake_provider(kind, &format!("{root}/v1")),
            Some("k".into()),
            settings,
        )),
        ProviderKind::Anthropic => Box::new(AnthropicProvider::new(
            &fake_provider(kind, root),
            Some("k".into()),
            settings,
        )),
    }
}

fn endpoint(kind: ProviderKind, root: &str) -> String {
    match kind {
        ProviderKind::Openai => format!("{root}/v1/chat/completions"),
        ProviderKind::Anthropic => format!("{root}/v1/messages"),
    }
}

/// Runs a request, collecting the retries it told of.
async fn run_observed(
    p: &dyn ModelProvider,
) -> (
    Result<zcode::model::AssistantReply, ProviderError>,
    Vec<RetryNotice>,
) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let observer: zcode::model::RetryObserver = Arc::new(move |n| sink.lock().unwrap().push(n));
    let req = request();
    let result = match p.stream_observed(&req, observer).await {
        Ok(stream) => collect_reply(stream).await,
        Err(e) => Err(e),
    };
    let notices = seen.lock().unwrap().clone();
    (result, notices)
}

/// A port nothing listens on.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// One line, the URL once, no part said twice in a row (`X: X`).
fn assert_clean(text: &str, url: &str) {
    assert!(!text.contains('\n'), "{text}");
    assert_eq!(text.matches(url).count(), 1, "the URL once: {text}");
    let parts: Vec<&str> = text.split(": ").collect();
    for pair in parts.windows(2) {
        assert_ne!(pair[0].trim(), pair[1].trim(), "{text}");
    }
    assert!(text.matches("gave up").count() <= 1, "{text}");
}

// ---- retries --------------------------------------------------------------

#[tokio::test]
async fn ux_each_retry_is_told_with_attempt_delay_and_reason() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::json(
        503,
        &json!({"error": {"message": "loading model"}}),
    ));
    server.enqueue(Reply::status(502));
    server.enqueue(Reply::sse(sse::openai_text("Hello")));
    let p = provider_at(ProviderKind::Openai, &server.url(), test_settings());
    let (result, notices) = run_observed(p.as_ref()).await;
    assert_eq!(result.unwrap().text, "Hello");
    let s = test_settings();
    assert_eq!(
        notices,
        vec![
            RetryNotice {
                attempt: 2,
                max_attempts: 3,
                delay: s.backoff(1),
                reason: "HTTP 503".into(),
            },
            RetryNotice {
                attempt: 3,
                max_attempts: 3,
                delay: s.backoff(2),
                reason: "HTTP 502".into(),
            },
        ]
    );
}

#[tokio::test]
async fn ux_a_refused_connection_is_retried_with_a_plain_reason() {
    for kind in [ProviderKind::Openai, ProviderKind::Anthropic] {
        let root = format!("http://127.0.0.1:{}", closed_port());
        let p = provider_at(kind, &root, test_settings());
        let (result, notices) = run_observed(p.as_ref()).await;
        let reasons: Vec<&str> = notices.iter().map(|n| n.reason.as_str()).collect();
        assert_eq!(
            reasons,
            ["connection refused", "connection refused"],
            "{kind:?}"
        );
        let text = result.unwrap_err().to_string();
        assert_eq!(
            text,
            format!(
                "fake: cannot connect to {}: connection refused (gave up after 3 attempts)",
                endpoint(kind, &root)
            )
        );
    }
}

#[test]
fn ux_retry_line_reads_like_a_sentence() {
    assert_eq!(
        retry_line(2, 4, 2000, "connection refused"),
        "retrying in 2 s, 2 of 4: connection refused"
    );
    assert_eq!(
        retry_line(3, 4, 500, "HTTP 503"),
        "retrying in 0.5 s, 3 of 4: HTTP 503"
    );
    assert_eq!(
        retry_line(4, 4, 30_000, "HTTP 429"),
        "retrying in 30 s, 4 of 4: HTTP 429"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_headless_prints_each_retry_on_stderr_and_as_a_stream_event() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::json(503, &json!({"error": {"message": "busy"}})));
    server.enqueue(Reply::sse(sse::openai_text("fine now")));
    let run = h
        .run(
            &["-p", "hello", "--output-format", "stream-json"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let retries: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("retrying"))
        .collect();
    assert_eq!(
        retries,
        ["zcode: retrying in 0.5 s, 2 of 4: HTTP 503"],
        "{run}"
    );
    let events: Vec<Value> = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|e: &Value| e["type"] == "retrying")
        .collect();
    assert_eq!(
        events,
        [
            json!({"type": "retrying", "attempt": 2, "max_attempts": 4, "delay_ms": 500, "reason": "HTTP 503"})
        ],
        "{run}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_headless_final_connection_error_is_one_line_naming_the_url_once() {
    let h = Harness::new();
    let base = format!("http://127.0.0.1:{}/v1", closed_port());
    let run = h
        .run(&["-p", "hello"], &[("OPENAI_BASE_URL", base.clone())])
        .await;
    assert_eq!(run.code, Some(1), "{run}");
    let lines = stderr_without_yolo_line(&run.stderr);
    assert_eq!(
        lines,
        [
            "zcode: retrying in 0.5 s, 2 of 4: connection refused",
            "zcode: retrying in 1 s, 3 of 4: connection refused",
            "zcode: retrying in 2 s, 4 of 4: connection refused",
            &format!(
                "zcode: error: openai: cannot connect to {base}/chat/completions: connection refused (gave up after 4 attempts)"
            ),
        ],
        "{run}"
    );
}

// ---- the final error, every way -------------------------------------------

/// A server that answers every connection in plain HTTP at once, whatever
/// the client sends (a TLS hello included).
async fn plain_http_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let _ = socket
                .write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
                .await;
        }
    });
    format!("127.0.0.1:{}", addr.port())
}

/// A server that takes connections and never answers.
async fn silent_server() -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    (format!("http://127.0.0.1:{}", addr.port()), task)
}

#[tokio::test]
async fn ux_connection_failures_are_one_clean_line_in_both_dialects() {
    let tls = plain_http_server().await;
    let (silent, _silent_task) = silent_server().await;
    for kind in [ProviderKind::Openai, ProviderKind::Anthropic] {
        let refused = format!("http://127.0.0.1:{}", closed_port());
        let cases = [
            (
                refused.clone(),
                "connection refused (gave up after 3 attempts)",
            ),
            (
                "http://nonexistent.invalid".to_string(),
                "the host name does not resolve",
            ),
            (
                format!("https://{tls}"),
                "TLS handshake failed: received corrupt message",
            ),
        ];
        for (root, cause) in cases {
            let p = provider_at(kind, &root, test_settings());
            let text = run_observed(p.as_ref()).await.0.unwrap_err().to_string();
            let url = endpoint(kind, &root);
            assert!(
                text.starts_with(&format!("fake: cannot connect to {url}: {cause}")),
                "{kind:?}: {text}"
            );
            assert_clean(&text, &url);
        }
        // Connected, but no response head: said with the URL too.
        let p = provider_at(kind, &silent, test_settings());
        let text = run_observed(p.as_ref()).await.0.unwrap_err().to_string();
        let url = endpoint(kind, &silent);
        assert_eq!(
            text,
            format!("fake: no answer from {url} for 1 s; gave up waiting")
        );
        assert_clean(&text, &url);
    }
}

#[tokio::test]
async fn ux_tls_error_to_a_plain_server_suggests_http() {
    let tls = plain_http_server().await;
    let p = provider_at(
        ProviderKind::Openai,
        &format!("https://{tls}"),
        test_settings(),
    );
    let text = run_observed(p.as_ref()).await.0.unwrap_err().to_string();
    assert!(
        text.contains("is the server plain http:// rather than https://?"),
        "{text}"
    );
}

#[tokio::test]
async fn ux_http_errors_name_the_url_once_and_read_html_pages() {
    let nginx = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n\
                 <center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
    let cases: Vec<(Reply, &str)> = vec![
        (
            Reply::json(500, &json!({"error": {"message": "backend exploded"}})),
            "HTTP 500 from {url}: backend exploded (gave up after 3 attempts)",
        ),
        (
            Reply::text(502, nginx).header("content-type", "text/html"),
            "HTTP 502 from {url}: Bad Gateway (gave up after 3 attempts)",
        ),
        (
            Reply::text(
                503,
                "<!DOCTYPE html><html><body><p>Service   down</p></body></html>",
            ),
            "HTTP 503 from {url}: Service down (gave up after 3 attempts)",
        ),
        (
            Reply::status(504),
            "HTTP 504 from {url}: Gateway Timeout (gave up after 3 attempts)",
        ),
        (
            Reply::json(400, &json!({"error": {"message": "bad field"}})),
            "HTTP 400 from {url}: bad field",
        ),
    ];
    for kind in [ProviderKind::Openai, ProviderKind::Anthropic] {
        for (reply, expected) in &cases {
            let server = FakeModelServer::start().await;
            server.enqueue_all(std::iter::repeat_n(reply.clone(), 3));
            let p = provider_at(kind, &server.url(), test_settings());
            let text = run_observed(p.as_ref()).await.0.unwrap_err().to_string();
            let url = endpoint(kind, &server.url());
            assert_eq!(text, format!("fake: {}", expected.replace("{url}", &url)));
            assert_clean(&text, &url);
        }
    }
}

// ---- the context window ---------------------------------------------------

fn provider_entry(kind: ProviderKind, base_url: &str) -> Provider {
    let mut p = fake_provider(kind, base_url);
    p.api_key_env = None;
    p
}

/// What a llama.cpp server answers on `GET /props` (trimmed).
fn llamacpp_props(n_ctx: u64) -> Value {
    json!({
        "default_generation_settings": {
            "id": 0, "id_task": -1, "n_ctx": n_ctx, "speculative": false,
            "is_processing": false, "params": {"n_predict": -1, "temperature": 0.8}
        },
        "total_slots": 1,
        "model_path": "../models/Qwen3-8B-Q4_K_M.gguf",
        "modalities": {"vision": false},
        "build_info": "b1-0000000",
        "is_sleeping": false
    })
}

/// What a llama.cpp server answers on `GET /v1/models`.
fn llamacpp_models(n_ctx_train: u64) -> Value {
    json!({
        "object": "list",
        "data": [{
            "id": "../models/Qwen3-8B-Q4_K_M.gguf",
            "object": "model",
            "created": 1735142223,
            "owned_by": "llamacpp",
            "meta": {"vocab_type": 2, "n_vocab": 151936, "n_ctx_train": n_ctx_train,
                     "n_embd": 4096, "n_params": 8190735360u64, "size": 5027783488u64}
        }]
    })
}

#[tokio::test]
async fn ux_window_comes_from_llamacpp_props_before_the_training_context() {
    let server = FakeModelServer::start().await;
    server.route("/props", Reply::json(200, &llamacpp_props(16384)));
    server.route("/v1/models", Reply::json(200, &llamacpp_models(131072)));
    let mut p = provider_entry(ProviderKind::Openai, &server.openai_base_url());
    p.api_key_env = Some("K".into());
    let lookup = WindowLookup::new(&p, "qwen-props-first", Some("sk-1"));
    assert_eq!(
        lookup.run().await,
        Some(FoundWindow {
            tokens: 16384,
            source: "/props"
        })
    );
    let asked: Vec<String> = server.lookups().iter().map(|r| r.path.clone()).collect();
    assert!(asked.contains(&"/props".to_string()), "{asked:?}");
    for r in server.lookups() {
        assert_eq!(r.method, "GET");
        assert_eq!(r.header("authorization"), Some("Bearer sk-1"));
    }
    assert_eq!(server.request_count(), 0, "no model request");
}

#[tokio::test]
async fn ux_window_comes_from_v1_models_metadata_of_each_server_kind() {
    let cases = [
        // llama.cpp without /props: the training context, last resort.
        (llamacpp_models(131072), "any-name", 131072),
        // vLLM.
        (
            json!({"object": "list", "data": [
                {"id": "Qwen/Qwen3-8B", "object": "model", "owned_by": "vllm", "max_model_len": 40960},
                {"id": "other", "object": "model", "max_model_len": 8192}
            ]}),
            "Qwen/Qwen3-8B",
            40960,
        ),
        // OpenRouter.
        (
            json!({"data": [{"id": "qwen/qwen3-coder", "context_length": 262144,
                             "top_provider": {"context_length": 262144}}]}),
            "qwen/qwen3-coder",
            262144,
        ),
        // LM Studio.
        (
            json!({"object": "list", "data": [{"id": "qwen3-8b", "object": "model",
                   "max_context_length": 32768, "loaded_context_length": 8192}]}),
            "qwen3-8b",
            8192,
        ),
    ];
    for (i, (models, model_id, expected)) in cases.into_iter().enumerate() {
        let server = FakeModelServer::start().await;
        server.route("/v1/models", Reply::json(200, &models));
        let p = provider_entry(ProviderKind::Openai, &server.openai_base_url());
        let found = WindowLookup::new(&p, model_id, None).run().await;
        assert_eq!(
            found,
            Some(FoundWindow {
                tokens: expected,
                source: "/v1/models"
            }),
            "case {i}"
        );
    }
}

#[tokio::test]
async fn ux_window_is_unknown_when_the_server_does_not_say_and_is_asked_once() {
    let server = FakeModelServer::start().await;
    // /props missing (404), /v1/models without any window.
    server.route(
        "/v1/models",
        Reply::json(
            200,
            &json!({"object": "list", "data": [{"id": "gpt-x", "object": "model"}]}),
        ),
    );
    let p = provider_entry(ProviderKind::Openai, &server.openai_base_url());
    let lookup = WindowLookup::new(&p, "gpt-x-unknown", None);
    assert_eq!(lookup.run().await, None);
    let asked = server.lookups().len();
    assert_eq!(asked, 2, "both endpoints asked");
    // Cached for the process: not asked again.
    assert_eq!(lookup.run().await, None);
    assert_eq!(server.lookups().len(), asked);
}

#[tokio::test]
async fn ux_a_slow_server_leaves_the_window_unknown_and_does_not_hold_the_lookup() {
    let server = FakeModelServer::start().await;
    // The head comes, the body only after two minutes.
    let slow = Reply::status(200)
        .header("content-type", "application/json")
        .delay(Duration::from_secs(120))
        .chunk(llamacpp_props(8192).to_string());
    server.route("/props", slow.clone());
    server.route("/v1/models", slow);
    let p = provider_entry(ProviderKind::Anthropic, &server.url());
    let lookup = WindowLookup::new(&p, "slow-model", None);
    // A guard against a hang, far above the lookup's own bound.
    let found = tokio::time::timeout(Duration::from_secs(30), lookup.run())
        .await
        .expect("the lookup gives up on its own");
    assert_eq!(found, None);
    let asked: Vec<String> = server.lookups().iter().map(|r| r.path.clone()).collect();
    assert!(asked.contains(&"/props".to_string()), "{asked:?}");
    assert!(asked.contains(&"/v1/models".to_string()), "{asked:?}");
    let anthropic = server.lookups();
    assert!(
        anthropic
            .iter()
            .all(|r| r.header("anthropic-version").is_some())
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_headless_run_learns_the_window_from_the_server() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.route("/props", Reply::json(200, &llamacpp_props(200_000)));
    server.enqueue(Reply::sse(sse::openai_text("ok")));
    // A task past what compaction assumes of an unknown window (32k):
    // the request waits for the server's answer, which says there is room.
    let task = format!("summarise: {}", "word ".repeat(22_000));
    let run = h
        .run(
            &["-p", &task, "--output-format", "stream-json"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let events: Vec<Value> = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let started = events
        .iter()
        .find(|e| e["type"] == "session_started")
        .unwrap();
    assert_eq!(started["context_window"], Value::Null, "{run}");
    let found: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "context_window_found")
        .collect();
    assert_eq!(
        found,
        [
            &json!({"type": "context_window_found", "model": "openai/gpt-4.1",
                 "context_window": 200_000, "source": "/props"})
        ],
        "{run}"
    );
    // The answer came before the request, and nothing was compacted.
    let found_at = events
        .iter()
        .position(|e| e["type"] == "context_window_found");
    let first_delta = events.iter().position(|e| e["type"] == "assistant_delta");
    assert!(found_at < first_delta, "{run}");
    assert_eq!(server.request_count(), 1, "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_models_listing_says_the_window_is_asked_of_the_server() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let run = h.run(&["models"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(
        run.stdout
            .contains("openai/gpt-4.1 | OpenAI | context window: asked of the server"),
        "{run}"
    );
    assert!(!run.stdout.contains("128000"), "{run}");
}

// ---- the TUI ----------------------------------------------------------------

#[test]
fn ux_tui_shows_each_retry_and_the_window_the_server_found() {
    use support::tui::{Session, event, screen_of};
    use zcode::protocol::Event;
    let mut m = Session::new(120, 16)
        .model("openai/gpt-4.1", "OpenAI")
        .start();
    event(
        &mut m,
        Event::Retrying {
            attempt: 2,
            max_attempts: 4,
            delay_ms: 2000,
            reason: "connection refused".into(),
        },
    );
    let screen = screen_of(&m);
    assert!(
        screen.contains("retrying in 2 s, 2 of 4: connection refused"),
        "{screen}"
    );
    let usage = zcode::model::Usage {
        input_tokens: 24_300,
        output_tokens: 10,
        ..Default::default()
    };
    event(
        &mut m,
        Event::Usage {
            usage,
            total: usage,
        },
    );
    // Unknown window: the count over "?", not a percentage of a guess.
    let screen = screen_of(&m);
    assert!(screen.contains("ctx 24k/?"), "{screen}");
    // Another model's answer changes nothing.
    let found = |model: &str| Event::ContextWindowFound {
        model: model.into(),
        context_window: 200_000,
        source: "/props".into(),
    };
    event(&mut m, found("other/model"));
    assert!(screen_of(&m).contains("ctx 24k/?"));
    event(&mut m, found("openai/gpt-4.1"));
    let screen = screen_of(&m);
    assert!(screen.contains("ctx 12% (24k/200k)"), "{screen}");
}
