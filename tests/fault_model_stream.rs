//! Faults in the model stream, through the provider clients against local
//! fault-injecting servers: endless output, keep-alives without content,
//! slow drips, bodies that are not event streams, one huge event, and the
//! texts of connection errors.

mod support;

use std::time::Duration;

use futures_util::StreamExt;
use support::fault_server::{Fault, FaultServer, Output, Wire};
use support::{fake_provider, test_settings};
use zcode::config::{MaxTokensField, ProviderKind};
use zcode::model::anthropic::AnthropicProvider;
use zcode::model::limits::{
    DEFAULT_MAX_OUTPUT_TOKENS, StreamLimits, max_event_bytes, output_cutoff_bytes,
};
use zcode::model::openai::OpenAiProvider;
use zcode::model::{
    HttpSettings, Message, ModelProvider, ModelRequest, ProviderError, StreamEvent,
};

/// Where the old code waited forever, the tests give up after this.
const HANG: Duration = Duration::from_secs(10);

fn openai(server: &FaultServer, settings: HttpSettings) -> OpenAiProvider {
    OpenAiProvider::new(
        &fake_provider(ProviderKind::Openai, &server.openai_base_url()),
        None,
        settings,
    )
}

fn anthropic(server: &FaultServer, settings: HttpSettings) -> AnthropicProvider {
    AnthropicProvider::new(
        &fake_provider(ProviderKind::Anthropic, &server.url()),
        Some("k".into()),
        settings,
    )
}

fn provider(wire: Wire, server: &FaultServer, settings: HttpSettings) -> Box<dyn ModelProvider> {
    match wire {
        Wire::OpenAi => Box::new(openai(server, settings)),
        Wire::Anthropic => Box::new(anthropic(server, settings)),
    }
}

/// Test settings with these stream limits.
fn with_limits(limits: StreamLimits) -> HttpSettings {
    HttpSettings {
        limits,
        ..test_settings()
    }
}

fn limits(max_output_tokens: u32) -> StreamLimits {
    StreamLimits {
        max_output_tokens,
        ..StreamLimits::default()
    }
}

fn request() -> ModelRequest {
    ModelRequest {
        model: "fault-model".into(),
        system: String::new(),
        messages: vec![Message::User {
            content: "go".into(),
        }],
        tools: vec![],
        max_output_tokens: None,
        context_window: None,
        reasoning: None,
        cache_key: None,
    }
}

/// What a stream delivered before it ended, and how it ended.
#[derive(Debug, Default)]
struct Drained {
    output_bytes: usize,
    error: Option<ProviderError>,
}

impl Drained {
    fn error_text(&self) -> String {
        match &self.error {
            Some(e) => e.to_string(),
            None => panic!("the stream ended without an error: {self:?}"),
        }
    }
}

/// Reads the whole reply; fails the test if that takes longer than
/// [`HANG`].
async fn drain(provider: &dyn ModelProvider, request: &ModelRequest) -> Drained {
    let run = async {
        let mut out = Drained::default();
        let mut stream = match provider.stream(request).await {
            Ok(s) => s,
            Err(e) => {
                out.error = Some(e);
                return out;
            }
        };
        while let Some(item) = stream.next().await {
            match item {
                Ok(StreamEvent::TextDelta(t)) | Ok(StreamEvent::ReasoningDelta(t)) => {
                    out.output_bytes += t.len()
                }
                Ok(StreamEvent::ToolCallDelta { arguments, .. }) => {
                    out.output_bytes += arguments.len()
                }
                Ok(_) => {}
                Err(e) => {
                    out.error = Some(e);
                    break;
                }
            }
        }
        out
    };
    tokio::time::timeout(HANG, run)
        .await
        .expect("the stream ended by itself")
}

// ---- 1. the output limit ---------------------------------------------------

#[tokio::test]
async fn fault_stream_openai_sends_the_models_output_limit_as_max_tokens() {
    let server = FaultServer::start(Fault::Body {
        content_type: Some("text/event-stream".into()),
        body: b"data: [DONE]\n\n".to_vec(),
    })
    .await;
    let _ = drain(&openai(&server, with_limits(limits(1234))), &request()).await;
    let body = &server.requests()[0];
    assert_eq!(body["max_tokens"], 1234, "{body}");
    assert!(body.get("max_completion_tokens").is_none(), "{body}");

    // The request's own limit wins (the tools ask for small replies).
    let mut own = request();
    own.max_output_tokens = Some(77);
    let _ = drain(&openai(&server, with_limits(limits(1234))), &own).await;
    assert_eq!(server.requests()[1]["max_tokens"], 77);

    // The default: 32000 for a model nobody knows.
    let _ = drain(&openai(&server, test_settings()), &request()).await;
    assert_eq!(server.requests()[2]["max_tokens"], 32_000);
}

#[tokio::test]
async fn fault_stream_openai_max_completion_tokens_is_a_per_model_choice() {
    let server = FaultServer::start(Fault::Body {
        content_type: Some("text/event-stream".into()),
        body: b"data: [DONE]\n\n".to_vec(),
    })
    .await;
    let settings = with_limits(StreamLimits {
        max_tokens_field: MaxTokensField::MaxCompletionTokens,
        ..limits(900)
    });
    let _ = drain(&openai(&server, settings), &request()).await;
    let body = &server.requests()[0];
    assert_eq!(body["max_completion_tokens"], 900, "{body}");
    assert!(body.get("max_tokens").is_none(), "{body}");
}

#[tokio::test]
async fn fault_stream_anthropic_sends_the_models_output_limit() {
    let server = FaultServer::start(Fault::Body {
        content_type: Some("text/event-stream".into()),
        body: b"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n".to_vec(),
    })
    .await;
    let _ = drain(&anthropic(&server, with_limits(limits(4321))), &request()).await;
    assert_eq!(server.requests()[0]["max_tokens"], 4321);
}

#[tokio::test]
async fn fault_stream_output_limit_shrinks_to_fit_the_context_window() {
    let server = FaultServer::start(Fault::Body {
        content_type: Some("text/event-stream".into()),
        body: b"data: [DONE]\n\n".to_vec(),
    })
    .await;
    let settings = with_limits(StreamLimits {
        context_window: 8192,
        ..limits(32_000)
    });
    let mut req = request();
    // About 2000 tokens of prompt, at the cautious 3 bytes a token.
    req.messages = vec![Message::User {
        content: "word ".repeat(1200),
    }];
    let _ = drain(&openai(&server, settings), &req).await;
    let sent = server.requests()[0]["max_tokens"].as_u64().unwrap();
    assert!((6000..=6200).contains(&sent), "{sent}");
}

#[tokio::test]
async fn fault_stream_refused_output_limit_says_which_setting_to_change() {
    use support::fake_model_server::{FakeModelServer, Reply};
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::json(
        400,
        &serde_json::json!({"error": {"message": "Invalid max_tokens value, the valid range of max_tokens is [1, 8192]"}}),
    ));
    let p = OpenAiProvider::new(
        &fake_provider(ProviderKind::Openai, &server.openai_base_url()),
        None,
        test_settings(),
    );
    let err = p
        .stream(&request())
        .await
        .err()
        .expect("an error")
        .to_string();
    assert!(
        err.contains("the valid range of max_tokens is [1, 8192]")
            && err
                .contains("set maxOutputTokens, or maxTokensField, for this model in config.json"),
        "{err}"
    );
}

/// An endless stream of `output` is cut a little past the limit, with the
/// limit error, keeping everything before it.
async fn endless_output_is_cut(wire: Wire, output: Output) {
    let server = FaultServer::start(Fault::Endless {
        wire,
        output,
        delta_bytes: 100,
    })
    .await;
    let p = provider(wire, &server, with_limits(limits(1000)));
    let out = drain(p.as_ref(), &request()).await;
    let text = out.error_text();
    assert!(
        matches!(
            out.error,
            Some(ProviderError::OutputLimit { limit: 1000, .. })
        ),
        "{text}"
    );
    assert!(
        text.contains("passed the output limit of 1000 tokens")
            && text.contains("raise maxOutputTokens for this model"),
        "{text}"
    );
    let cutoff = output_cutoff_bytes(1000) as usize;
    assert!(
        (cutoff..cutoff + 200).contains(&out.output_bytes),
        "{} bytes arrived, cutoff {cutoff}",
        out.output_bytes
    );
    assert!(
        server.wait_for_client_aborts(1, HANG).await,
        "the connection was not closed"
    );
}

#[tokio::test]
async fn fault_stream_endless_text_stops_at_the_output_limit_openai() {
    endless_output_is_cut(Wire::OpenAi, Output::Text).await;
}

#[tokio::test]
async fn fault_stream_endless_reasoning_stops_at_the_output_limit_openai() {
    endless_output_is_cut(Wire::OpenAi, Output::Reasoning).await;
}

#[tokio::test]
async fn fault_stream_endless_tool_arguments_stop_at_the_output_limit_openai() {
    endless_output_is_cut(Wire::OpenAi, Output::ToolArguments).await;
}

#[tokio::test]
async fn fault_stream_endless_text_stops_at_the_output_limit_anthropic() {
    endless_output_is_cut(Wire::Anthropic, Output::Text).await;
}

#[tokio::test]
async fn fault_stream_endless_thinking_stops_at_the_output_limit_anthropic() {
    endless_output_is_cut(Wire::Anthropic, Output::Reasoning).await;
}

#[tokio::test]
async fn fault_stream_endless_tool_input_stops_at_the_output_limit_anthropic() {
    endless_output_is_cut(Wire::Anthropic, Output::ToolArguments).await;
}

// ---- 2. content idle and the request deadline ---------------------------------

fn timed(content_idle_ms: u64, request_ms: u64) -> HttpSettings {
    HttpSettings {
        // Byte-level silence never happens here: keep-alives flow.
        idle_timeout: Duration::from_secs(30),
        ..with_limits(StreamLimits {
            content_idle: Duration::from_millis(content_idle_ms),
            request_timeout: Duration::from_millis(request_ms),
            ..StreamLimits::default()
        })
    }
}

#[tokio::test]
async fn fault_stream_keep_alive_only_hits_the_content_idle_limit() {
    let server = FaultServer::start(Fault::KeepAliveOnly {
        every: Duration::from_millis(50),
    })
    .await;
    let out = drain(&openai(&server, timed(1000, 60_000)), &request()).await;
    let text = out.error_text();
    assert!(
        matches!(
            out.error,
            Some(ProviderError::ContentIdle { seconds: 1, .. })
        ),
        "{text}"
    );
    assert!(text.contains("no reply content for 1 s"), "{text}");
    assert!(text.contains("contentIdleTimeoutSecs"), "{text}");
    assert_eq!(server.request_count(), 1, "an idle server is not retried");
}

#[tokio::test]
async fn fault_stream_keep_alives_after_output_hit_the_content_idle_limit() {
    let server = FaultServer::start(Fault::DeltaThenKeepAlive {
        wire: Wire::Anthropic,
        every: Duration::from_millis(50),
    })
    .await;
    let out = drain(&anthropic(&server, timed(1000, 60_000)), &request()).await;
    assert_eq!(out.output_bytes, "partial answer".len());
    assert!(
        matches!(out.error, Some(ProviderError::ContentIdle { .. })),
        "{:?}",
        out.error
    );
}

#[tokio::test]
async fn fault_stream_finish_reasons_repeated_forever_are_not_content() {
    let server = FaultServer::start(Fault::RepeatedFinish {
        every: Duration::from_millis(50),
    })
    .await;
    let out = drain(&openai(&server, timed(1000, 60_000)), &request()).await;
    assert_eq!(out.output_bytes, "done".len());
    assert!(
        matches!(out.error, Some(ProviderError::ContentIdle { .. })),
        "{:?}",
        out.error
    );
}

#[tokio::test]
async fn fault_stream_slow_error_body_is_bounded_by_the_request_timeout() {
    use support::fake_model_server::{FakeModelServer, Reply};
    let server = FakeModelServer::start().await;
    server.enqueue(
        Reply::status(500)
            .header("content-type", "text/plain")
            .chunk("the first part of a long")
            .delay(Duration::from_secs(30))
            .chunk(" error"),
    );
    let p = OpenAiProvider::new(
        &fake_provider(ProviderKind::Openai, &server.openai_base_url()),
        None,
        timed(5000, 1000),
    );
    let err = tokio::time::timeout(HANG, p.stream(&request()))
        .await
        .expect("the error body is not awaited forever")
        .err()
        .expect("an error");
    assert!(matches!(err, ProviderError::RequestTimeout { .. }), "{err}");
}

#[tokio::test]
async fn fault_stream_slow_drip_hits_the_request_timeout() {
    let server = FaultServer::start(Fault::SlowDeltas {
        wire: Wire::OpenAi,
        every: Duration::from_millis(100),
    })
    .await;
    let out = drain(&openai(&server, timed(5000, 1500)), &request()).await;
    let text = out.error_text();
    assert!(
        matches!(
            out.error,
            Some(ProviderError::RequestTimeout { seconds: 1, .. })
        ),
        "{text}"
    );
    assert!(text.contains("requestTimeoutSecs"), "{text}");
    assert!(out.output_bytes > 0);
}

#[tokio::test]
async fn fault_stream_retries_stop_at_the_request_timeout() {
    // A server that answers 503 forever, with a short request timeout and
    // many attempts allowed: the deadline ends the retries.
    let server = support::fake_model_server::FakeModelServer::start().await;
    let settings = HttpSettings {
        max_attempts: 1000,
        backoff_base: Duration::from_millis(200),
        backoff_max: Duration::from_millis(200),
        ..timed(5000, 1000)
    };
    let p = OpenAiProvider::new(
        &fake_provider(ProviderKind::Openai, &server.openai_base_url()),
        None,
        settings,
    );
    let err = tokio::time::timeout(HANG, p.stream(&request()))
        .await
        .expect("the retries stop")
        .err()
        .expect("an error");
    assert!(
        matches!(err, ProviderError::Http { status: 500, .. }),
        "{err}"
    );
    assert!(server.request_count() <= 8, "{}", server.request_count());
}

// ---- 3. 200 answers that are not event streams -------------------------------

async fn not_an_event_stream(content_type: Option<&str>, body: &str) -> (String, FaultServer) {
    let server = FaultServer::start(Fault::Body {
        content_type: content_type.map(String::from),
        body: body.as_bytes().to_vec(),
    })
    .await;
    let out = drain(&openai(&server, test_settings()), &request()).await;
    let text = out.error_text();
    assert!(
        matches!(out.error, Some(ProviderError::NotEventStream { .. })),
        "{text}"
    );
    let url = format!("{}/chat/completions", server.openai_base_url());
    assert_eq!(text.matches(&url).count(), 1, "{text}");
    assert_eq!(server.request_count(), 1, "retried: {text}");
    (text, server)
}

#[tokio::test]
async fn fault_stream_html_200_is_one_clear_error_without_retry() {
    let page = format!(
        "<!DOCTYPE html>\n<html>\n<head><title>Sign in</title></head>\n<body>{}</body></html>",
        "Please sign in to continue. ".repeat(20)
    );
    let (text, _server) = not_an_event_stream(Some("text/html; charset=utf-8"), &page).await;
    assert!(
        text.contains("answered 200 with text/html; charset=utf-8, not an event stream: <!DOCTYPE html> <html> <head><title>Sign in"),
        "{text}"
    );
    // The first 200 characters, on one line.
    let preview = text.split("not an event stream: ").nth(1).unwrap();
    let preview = preview.split("; check the base URL").next().unwrap();
    assert_eq!(preview.chars().count(), 201, "{preview}");
    assert!(preview.ends_with('…'));
}

#[tokio::test]
async fn fault_stream_garbage_200_without_content_type() {
    let (text, _server) = not_an_event_stream(None, "Service temporarily unavailable").await;
    assert!(
        text.contains("answered 200 with no content type, not an event stream: Service temporarily unavailable"),
        "{text}"
    );
}

#[tokio::test]
async fn fault_stream_mislabelled_body_is_told_apart_from_an_event_stream() {
    let (text, _server) =
        not_an_event_stream(Some("text/event-stream"), "<html><body>502</body></html>").await;
    assert!(text.contains("a body labelled text/event-stream"), "{text}");
    assert!(text.contains("<html><body>502"), "{text}");
}

#[tokio::test]
async fn fault_stream_event_stream_without_its_content_type_still_works() {
    // A lenient server that streams SSE as text/plain.
    let server = FaultServer::start(Fault::Body {
        content_type: Some("text/plain".into()),
        body: b": hello\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n".to_vec(),
    })
    .await;
    let out = drain(&openai(&server, test_settings()), &request()).await;
    assert!(out.error.is_none(), "{:?}", out.error);
    assert_eq!(out.output_bytes, 2);
}

// ---- 4. one huge event ---------------------------------------------------------

#[tokio::test]
async fn fault_stream_huge_event_is_refused_past_16_mb() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let server = FaultServer::start(Fault::HugeEvent {
            wire,
            bytes: 20 << 20,
        })
        .await;
        let p = provider(wire, &server, with_limits(limits(10_000_000 / 6)));
        let out = drain(p.as_ref(), &request()).await;
        let text = out.error_text();
        assert!(
            matches!(out.error, Some(ProviderError::Protocol { .. })),
            "{wire:?}: {text}"
        );
        assert!(text.contains("passed 16 MB"), "{text}");
        assert_eq!(out.output_bytes, "before ".len(), "{wire:?}");
    }
}

#[tokio::test]
async fn fault_stream_event_cap_follows_a_smaller_output_limit() {
    // The default limit (32000 tokens) allows events of about 2 MB.
    let server = FaultServer::start(Fault::HugeEvent {
        wire: Wire::OpenAi,
        bytes: 4 << 20,
    })
    .await;
    let out = drain(&openai(&server, test_settings()), &request()).await;
    let text = out.error_text();
    let cap_mb = max_event_bytes(DEFAULT_MAX_OUTPUT_TOKENS) as f64 / f64::from(1 << 20);
    assert!(
        text.contains(&format!("one event of the stream passed {cap_mb:.1} MB")),
        "{text}"
    );
    assert_eq!(out.output_bytes, "before ".len());
}

#[tokio::test]
async fn fault_stream_big_event_under_the_cap_is_fine() {
    let server = FaultServer::start(Fault::HugeEvent {
        wire: Wire::OpenAi,
        bytes: 3 << 20,
    })
    .await;
    let out = drain(&openai(&server, with_limits(limits(1_000_000))), &request()).await;
    assert!(out.error.is_none(), "{:?}", out.error);
    assert_eq!(out.output_bytes, "before ".len() + (3 << 20));
}

// ---- 5. connection errors -------------------------------------------------------

#[tokio::test]
async fn fault_stream_connect_error_names_the_url_once() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let p = OpenAiProvider::new(
        &fake_provider(ProviderKind::Openai, &format!("http://{addr}/v1")),
        None,
        test_settings(),
    );
    let text = drain(&p, &request()).await.error_text();
    assert_eq!(text.matches(&addr.to_string()).count(), 1, "{text}");
    assert!(
        text.starts_with(&format!(
            "fake: cannot connect to http://{addr}/v1/chat/completions: connection refused (gave up after 3 attempts)"
        )),
        "{text}"
    );
    assert_no_repeated_part(&text);
}

/// No `X: X`: a part of a `: `-joined message said twice in a row.
fn assert_no_repeated_part(text: &str) {
    let parts: Vec<&str> = text.split(": ").collect();
    for pair in parts.windows(2) {
        assert_ne!(pair[0].trim(), pair[1].trim(), "{text}");
    }
}

#[tokio::test]
async fn fault_stream_dropped_connection_error_says_it_once() {
    let server = support::fake_model_server::FakeModelServer::start().await;
    for _ in 0..3 {
        server.enqueue(
            support::fake_model_server::Reply::sse_chunks([
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n",
            ])
            .drop_connection(),
        );
    }
    let p = OpenAiProvider::new(
        &fake_provider(ProviderKind::Openai, &server.openai_base_url()),
        None,
        test_settings(),
    );
    let text = drain(&p, &request()).await.error_text();
    assert!(
        text.starts_with("fake: the stream broke off: error reading a body from connection"),
        "{text}"
    );
    assert!(text.contains("gave up after 3 attempts"), "{text}");
    assert_eq!(text.matches("gave up").count(), 1, "{text}");
    assert_no_repeated_part(&text);
}

#[tokio::test]
async fn fault_stream_reply_that_ends_at_once_is_empty_not_a_panic() {
    let server = FaultServer::start(Fault::Body {
        content_type: Some("text/event-stream".into()),
        body: b"data: [DONE]\n\n".to_vec(),
    })
    .await;
    let out = drain(&openai(&server, test_settings()), &request()).await;
    assert!(out.error.is_none(), "{:?}", out.error);
    assert_eq!(out.output_bytes, 0);
}
