//! The Anthropic Messages provider: the parser on recorded and hand-written
//! streams split every which way, and the client end to end against the
//! fake model server.

mod support;

use std::time::Duration;

use futures_util::StreamExt;
use proptest::prelude::*;
use serde_json::json;
use support::fake_model_server::{FakeModelServer, Reply, sse};
use support::wait::within;
use support::{
    ChunkStream, Decoder, collect_observed, decode_chunks, decode_fixture_every_way, fake_provider,
    split_by_sizes, sse_fixture, test_settings,
};
use zcode::config::ProviderKind;
use zcode::model::accumulate::collect_reply;
use zcode::model::anthropic::{AnthropicProvider, decode_stream};
use zcode::model::{
    AssistantReply, FinishReason, HttpSettings, Message, ModelProvider, ModelRequest,
    ProviderError, StreamEvent, ToolCall, ToolSpec, Usage,
};

const DECODER: Decoder = decode_stream::<ChunkStream, Vec<u8>>;

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

// ---- parser ------------------------------------------------------------

#[test]
fn recorded_llamacpp_tool_use_without_input() {
    let reply = decode_fixture_every_way(DECODER, "llamacpp-messages-tooluse.sse").unwrap();
    assert_eq!(reply.text, "");
    assert_eq!(reply.finish_reason, Some(FinishReason::Length));
    assert_eq!(
        reply.usage,
        Usage {
            input_tokens: 184 + 9,
            output_tokens: 200,
            cache_read_input_tokens: 9,
            ..Default::default()
        }
    );
    assert_eq!(reply.tool_calls.len(), 6);
    assert_eq!(reply.tool_calls[0].id, "AOPPepgAKi2T99QZTta04110AdAjPuUg");
    for c in &reply.tool_calls[..5] {
        assert_eq!(c.name, "read_file");
        let args: serde_json::Value = serde_json::from_str(&c.arguments).unwrap();
        assert_eq!(args, json!({"path": "src/main.rs"}));
    }
    // Cut off by max_tokens mid-call: the runtime reports the bad JSON.
    assert_eq!(reply.tool_calls[5].arguments, "{");
}

#[test]
fn text_thinking_ping_and_unknown_events() {
    let reply = decode_fixture_every_way(DECODER, "anthropic-text-thinking.sse").unwrap();
    assert_eq!(
        reply,
        AssistantReply {
            text: "Grüße 🌍 — 你好, naïve café!".into(),
            reasoning: "Überlegen… 思考".into(),
            tool_calls: vec![],
            finish_reason: Some(FinishReason::Stop),
            usage: Usage {
                input_tokens: 30,
                output_tokens: 33,
                cache_read_input_tokens: 5,
                ..Default::default()
            },
        }
    );
}

/// Anthropic's `input_tokens` leaves out what the cache served or took;
/// zcode's is the whole prompt, with both cache counts kept apart.
#[test]
fn cache_usage_anthropic_read_and_creation_kept_apart() {
    let body = concat!(
        "event: message_start\n",
        "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":12,",
        "\"cache_read_input_tokens\":9000,\"cache_creation_input_tokens\":700,\"output_tokens\":1}}}\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"ok\"}}\n\n",
        "event: message_delta\n",
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":40}}\n\n",
        "event: message_stop\n",
        "data: {\"type\":\"message_stop\"}\n\n"
    );
    let reply = decode_chunks(DECODER, vec![body.as_bytes().to_vec()]).unwrap();
    assert_eq!(
        reply.usage,
        Usage {
            input_tokens: 9712,
            output_tokens: 40,
            cache_read_input_tokens: 9000,
            cache_creation_input_tokens: 700,
            ..Default::default()
        }
    );
    assert_eq!(reply.usage.uncached_input_tokens(), 12);
}

#[test]
fn parallel_tool_uses() {
    let reply = decode_fixture_every_way(DECODER, "anthropic-parallel-tools.sse").unwrap();
    assert_eq!(reply.text, "Zwei Werkzeuge: ");
    assert_eq!(
        reply.tool_calls,
        vec![
            call("toolu_a", "Read", r#"{"file_path": "src/ünï.rs"}"#),
            call("toolu_b", "Glob", r#"{"pattern": "*.rs"}"#),
        ]
    );
    assert_eq!(reply.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(reply.usage.output_tokens, 60);
}

#[test]
fn error_event() {
    let err = decode_fixture_every_way(DECODER, "anthropic-error.sse").unwrap_err();
    assert_eq!(
        err,
        ProviderError::Stream {
            provider: "test".into(),
            message: "Overloaded".into()
        }
    );
}

#[test]
fn end_without_message_stop_after_output_is_disconnected() {
    let err = decode_fixture_every_way(DECODER, "anthropic-no-stop.sse").unwrap_err();
    assert!(matches!(err, ProviderError::Disconnected { .. }), "{err:?}");
}

#[test]
fn non_json_data_is_a_protocol_error() {
    let err = decode_fixture_every_way(DECODER, "anthropic-not-json.sse").unwrap_err();
    assert!(matches!(err, ProviderError::Protocol { .. }), "{err:?}");
}

#[test]
fn stop_reasons() {
    for (reason, expected) in [
        ("end_turn", FinishReason::Stop),
        ("stop_sequence", FinishReason::Stop),
        ("tool_use", FinishReason::ToolCalls),
        ("max_tokens", FinishReason::Length),
        ("refusal", FinishReason::Other),
    ] {
        let body = format!(
            "event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"{reason}\"}},\"usage\":{{\"output_tokens\":3}}}}\n\nevent: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n"
        );
        let reply = decode_chunks(DECODER, vec![body.into_bytes()]).unwrap();
        assert_eq!(reply.finish_reason, Some(expected), "{reason}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn any_split_gives_the_same_reply(
        sizes in prop::collection::vec(1usize..48, 1..24),
        which in 0usize..4,
    ) {
        let name = [
            "llamacpp-messages-tooluse.sse",
            "anthropic-text-thinking.sse",
            "anthropic-parallel-tools.sse",
            "anthropic-error.sse",
        ][which];
        let bytes = sse_fixture(name);
        let whole = decode_chunks(DECODER, vec![bytes.clone()]);
        let split = decode_chunks(DECODER, split_by_sizes(&bytes, &sizes));
        prop_assert_eq!(whole, split);
    }
}

// ---- end to end ----------------------------------------------------------

fn provider(server: &FakeModelServer, settings: HttpSettings) -> AnthropicProvider {
    AnthropicProvider::new(
        &fake_provider(ProviderKind::Anthropic, &server.anthropic_base_url()),
        Some("ak-test".into()),
        settings,
    )
}

fn request() -> ModelRequest {
    ModelRequest {
        model: "claude-test".into(),
        system: "You are a test.".into(),
        messages: vec![Message::User {
            content: "Hallo".into(),
        }],
        tools: vec![],
        max_output_tokens: None,
        context_window: None,
        reasoning: None,
        cache_key: None,
    }
}

async fn run(p: &AnthropicProvider, req: &ModelRequest) -> Result<AssistantReply, ProviderError> {
    collect_reply(p.stream(req).await?).await
}

#[tokio::test]
async fn e2e_text_reply() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::anthropic_text("Hello there, grüß dich!")));
    let reply = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap();
    assert_eq!(reply.text, "Hello there, grüß dich!");
    assert_eq!(reply.finish_reason, Some(FinishReason::Stop));
    assert_eq!(
        reply.usage,
        Usage {
            input_tokens: 10,
            output_tokens: 5,
            ..Default::default()
        }
    );
}

#[tokio::test]
async fn e2e_tool_use_with_streamed_input() {
    let server = FakeModelServer::start().await;
    let body = sse::anthropic_tool_uses(
        "Reading.",
        &[("toolu_1", "Read", r#"{"file_path":"src/main.rs"}"#)],
    );
    server.enqueue(Reply::sse_chunks(
        body.as_bytes()
            .chunks(5)
            .map(|c| String::from_utf8_lossy(c).into_owned()),
    ));
    let reply = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap();
    assert_eq!(reply.text, "Reading.");
    assert_eq!(
        reply.tool_calls,
        vec![call("toolu_1", "Read", r#"{"file_path":"src/main.rs"}"#)]
    );
    assert_eq!(reply.finish_reason, Some(FinishReason::ToolCalls));
}

#[tokio::test]
async fn e2e_parallel_tool_uses() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::anthropic_tool_uses(
        "",
        &[
            ("t1", "Glob", r#"{"pattern":"*"}"#),
            ("t2", "Read", r#"{"file_path":"a"}"#),
        ],
    )));
    let reply = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap();
    assert_eq!(
        reply.tool_calls,
        vec![
            call("t1", "Glob", r#"{"pattern":"*"}"#),
            call("t2", "Read", r#"{"file_path":"a"}"#)
        ]
    );
}

#[tokio::test]
async fn e2e_disconnect_after_output_is_an_error_and_not_retried() {
    let server = FakeModelServer::start().await;
    let full = sse::anthropic_text("Hello world and more words");
    // message_start, content_block_start, the first text delta.
    let head: String = full.split("\n\n").take(3).collect::<Vec<_>>().join("\n\n") + "\n\n";
    server.enqueue(
        Reply::sse(head)
            .delay(Duration::from_millis(30))
            .drop_connection(),
    );
    server.enqueue(Reply::sse(sse::anthropic_text("should not be used")));
    let p = provider(&server, test_settings());
    let req = request();
    let mut stream = p.stream(&req).await.unwrap();
    let mut events = Vec::new();
    let mut error = None;
    while let Some(item) = stream.next().await {
        match item {
            Ok(e) => events.push(e),
            Err(e) => error = Some(e),
        }
    }
    assert!(events.contains(&StreamEvent::TextDelta("Hello world ".into())));
    let error = error.expect("an error");
    assert!(
        matches!(error, ProviderError::Disconnected { .. }),
        "{error:?}"
    );
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn e2e_disconnect_before_output_is_retried() {
    let server = FakeModelServer::start().await;
    // message_start (usage only), then the connection breaks.
    let full = sse::anthropic_text("x");
    let start: String = full.split("\n\n").next().unwrap().to_string() + "\n\n";
    server.enqueue(
        Reply::sse(start)
            .delay(Duration::from_millis(20))
            .drop_connection(),
    );
    server.enqueue(Reply::sse(sse::anthropic_text("Second time lucky")));
    let reply = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap();
    assert_eq!(reply.text, "Second time lucky");
    assert_eq!(server.request_count(), 2);
}

#[tokio::test]
async fn e2e_429_then_success_with_backoff() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::json(
        429,
        &json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
    ));
    server.enqueue(Reply::sse(sse::anthropic_text("ok")));
    let (reply, retries) = collect_observed(&provider(&server, test_settings()), &request()).await;
    assert_eq!(reply.unwrap().text, "ok");
    assert_eq!(server.request_count(), 2);
    // The second attempt came after the policy's first backoff.
    let waits: Vec<Duration> = retries.iter().map(|r| r.delay).collect();
    assert_eq!(waits, [test_settings().backoff(1)]);
    assert!(waits[0] >= Duration::from_millis(10));
}

#[tokio::test]
async fn e2e_overloaded_529s_give_up_with_a_clear_error() {
    let server = FakeModelServer::start().await;
    for _ in 0..3 {
        server.enqueue(Reply::json(
            529,
            &json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ));
    }
    let err = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap_err();
    assert_eq!(server.request_count(), 3);
    assert_eq!(
        err.to_string(),
        format!(
            "fake: HTTP 529 from {}/v1/messages: Overloaded (gave up after 3 attempts)",
            server.url()
        )
    );
}

#[tokio::test]
async fn e2e_401_names_the_key_variable() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::json(
        401,
        &json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
    ));
    let err = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "fake: authentication failed (HTTP 401): check the API key in FAKE_API_KEY"
    );
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn e2e_404_names_the_url() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::status(404));
    let err = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap_err();
    let url = format!("{}/v1/messages", server.url());
    assert!(
        matches!(&err, ProviderError::NotFound { url: u, .. } if *u == url),
        "{err:?}"
    );
}

#[tokio::test]
async fn e2e_idle_timeout() {
    let server = FakeModelServer::start().await;
    let full = sse::anthropic_text("Hello world");
    let head: String = full.split("\n\n").take(3).collect::<Vec<_>>().join("\n\n") + "\n\n";
    // Silent far longer than the test waits: only the idle timeout ends it.
    server.enqueue(Reply::sse(head).delay(Duration::from_secs(3600)));
    let err = within(
        "the idle timeout",
        run(&provider(&server, test_settings()), &request()),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ProviderError::IdleTimeout { .. }), "{err:?}");
}

#[tokio::test]
async fn e2e_error_event() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(
        String::from_utf8(sse_fixture("anthropic-error.sse")).unwrap(),
    ));
    let err = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "fake: the server reported an error: Overloaded"
    );
}

#[tokio::test]
async fn e2e_request_shape() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::anthropic_text("ok")));
    let req = ModelRequest {
        model: "claude-test".into(),
        system: "You are zcode.".into(),
        messages: vec![
            Message::User {
                content: "list files".into(),
            },
            Message::Assistant {
                text: "Looking.".into(),
                tool_calls: vec![
                    call("toolu_1", "Glob", r#"{"pattern":"*"}"#),
                    call("toolu_2", "Read", "{oops"),
                ],
            },
            Message::Tool {
                call_id: "toolu_1".into(),
                content: "a.rs\nb.rs".into(),
                is_error: false,
            },
            Message::Tool {
                call_id: "toolu_2".into(),
                content: "invalid arguments".into(),
                is_error: true,
            },
            Message::User {
                content: "thanks".into(),
            },
        ],
        tools: vec![ToolSpec {
            name: "Glob".into(),
            description: "Find files".into(),
            input_schema: json!({"type": "object", "properties": {"pattern": {"type": "string"}}}),
        }],
        max_output_tokens: None,
        context_window: None,
        reasoning: None,
        cache_key: None,
    };
    run(&provider(&server, test_settings()), &req)
        .await
        .unwrap();
    let r = &server.requests()[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.header("x-api-key"), Some("ak-test"));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.header("authorization"), None);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.json(),
        json!({
            "model": "claude-test",
            // The model's output limit: the default for an unknown model.
            "max_tokens": 32000,
            "stream": true,
            // Prompt-cache breakpoints: the stable prefix (system, last
            // tool) and the two newest user messages.
            "system": [{"type": "text", "text": "You are zcode.", "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "list files", "cache_control": {"type": "ephemeral"}}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Looking."},
                    {"type": "tool_use", "id": "toolu_1", "name": "Glob", "input": {"pattern": "*"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.rs\nb.rs", "is_error": false},
                    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "invalid arguments", "is_error": true},
                    {"type": "text", "text": "thanks", "cache_control": {"type": "ephemeral"}}
                ]}
            ],
            "tools": [{"name": "Glob", "description": "Find files",
                "input_schema": {"type": "object", "properties": {"pattern": {"type": "string"}}},
                "cache_control": {"type": "ephemeral"}}]
        })
    );
}

#[tokio::test]
async fn e2e_reasoning_level_enables_thinking() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::anthropic_text("ok")));
    let mut req = request();
    req.reasoning = Some("low".into());
    run(&provider(&server, test_settings()), &req)
        .await
        .unwrap();
    let body = server.requests()[0].json();
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 4000})
    );
    // The budget fits under the model's output limit (the default 32000).
    assert_eq!(body["max_tokens"], 32000);
}

#[tokio::test]
async fn e2e_dropping_the_future_aborts_the_request() {
    let server = FakeModelServer::start().await;
    // Headers, then silence: the future waits for the first output.
    server.enqueue(Reply::sse_chunks(Vec::<String>::new()).delay(Duration::from_secs(30)));
    let mut settings = test_settings();
    settings.idle_timeout = Duration::from_secs(60);
    let p = provider(&server, settings);
    let req = request();
    let pending = p.stream(&req);
    let outcome = tokio::time::timeout(Duration::from_millis(200), pending).await;
    assert!(outcome.is_err(), "still waiting");
    assert!(
        server
            .wait_for_client_aborts(1, Duration::from_secs(5))
            .await
    );
}
