//! The Chat Completions provider: the parser on recorded and hand-written
//! streams split every which way, and the client end to end against the
//! fake model server.

mod support;

use std::time::Duration;

use futures_util::StreamExt;
use proptest::prelude::*;
use serde_json::json;
use support::fake_model_server::{FakeModelServer, Framing, Reply, sse};
use support::wait::within;
use support::{
    ChunkStream, Decoder, collect_observed, decode_chunks, decode_fixture_every_way, fake_provider,
    split_by_sizes, sse_fixture, test_settings,
};
use zcode::config::ProviderKind;
use zcode::model::accumulate::collect_reply;
use zcode::model::openai::{OpenAiProvider, decode_stream};
use zcode::model::{
    FinishReason, HttpSettings, Message, ModelProvider, ModelRequest, ProviderError, StreamEvent,
    ToolCall, ToolSpec, Usage,
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
fn recorded_llamacpp_tool_calls() {
    let reply = decode_fixture_every_way(DECODER, "llamacpp-chat-toolcall.sse").unwrap();
    assert_eq!(reply.text, "");
    assert_eq!(reply.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(reply.tool_calls.len(), 2);
    assert_eq!(reply.tool_calls[0].id, "3HlNt1JihbCC5lQK5fwuevdB3UAYYG7P");
    for c in &reply.tool_calls {
        assert_eq!(c.name, "read_file");
        let args: serde_json::Value = serde_json::from_str(&c.arguments).unwrap();
        assert_eq!(args, json!({"path": "src/main.rs"}));
    }
    assert_ne!(reply.tool_calls[0].id, reply.tool_calls[1].id);
}

/// llama.cpp sends no `usage` here, only its `timings`: `cache_n` tokens
/// came from its prompt cache, `prompt_n` were processed anew.
#[test]
fn cache_usage_from_recorded_llamacpp_timings() {
    let reply = decode_fixture_every_way(DECODER, "llamacpp-chat-toolcall.sse").unwrap();
    assert_eq!(
        reply.usage,
        Usage {
            input_tokens: 205,
            output_tokens: 81,
            ..Default::default()
        }
    );
}

#[test]
fn cache_usage_llamacpp_cache_n_is_cached_input() {
    let body = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\n",
        "data: {\"choices\":[{\"finish_reason\":\"stop\",\"index\":0,\"delta\":{}}],",
        "\"timings\":{\"cache_n\":408,\"prompt_n\":20,\"predicted_n\":3}}\n\n",
        "data: [DONE]\n\n"
    );
    let reply = decode_chunks(DECODER, vec![body.as_bytes().to_vec()]).unwrap();
    assert_eq!(
        reply.usage,
        Usage {
            input_tokens: 428,
            output_tokens: 3,
            cache_read_input_tokens: 408,
            cache_creation_input_tokens: 0,
            ..Default::default()
        }
    );
    assert_eq!(reply.usage.uncached_input_tokens(), 20);
}

#[test]
fn cache_usage_openai_cached_tokens_kept_apart() {
    let body = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n",
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":2006,\"completion_tokens\":300,",
        "\"prompt_tokens_details\":{\"cached_tokens\":1920}}}\n\n",
        "data: [DONE]\n\n"
    );
    let reply = decode_chunks(DECODER, vec![body.as_bytes().to_vec()]).unwrap();
    assert_eq!(
        reply.usage,
        Usage {
            input_tokens: 2006,
            output_tokens: 300,
            cache_read_input_tokens: 1920,
            cache_creation_input_tokens: 0,
            ..Default::default()
        }
    );
    assert_eq!(reply.usage.cache_read_percent(), Some(95));
}

#[test]
fn recorded_llama_cpp_python_ids_on_every_chunk_and_legacy_function_call() {
    let reply = decode_fixture_every_way(DECODER, "llama-cpp-python-chat-toolcall.sse").unwrap();
    assert_eq!(reply.finish_reason, Some(FinishReason::ToolCalls));
    // The legacy function_call duplicates the call: it must be ignored.
    assert_eq!(reply.tool_calls.len(), 1, "{:?}", reply.tool_calls);
    let c = &reply.tool_calls[0];
    assert_eq!(
        c.id,
        "call__0_read_file_cmpl-20b97cb3-7dcc-4cae-8df2-f5b2faf5975b"
    );
    assert_eq!(c.name, "read_file");
    assert!(c.arguments.starts_with("{ \"path\""), "{}", c.arguments);
    assert!(c.arguments.ends_with(" }"), "{}", c.arguments);
}

#[test]
fn text_reasoning_usage_and_unknown_fields() {
    let reply = decode_fixture_every_way(DECODER, "openai-text-reasoning.sse").unwrap();
    assert_eq!(reply.text, "Grüße 🌍 — 你好, naïve café!");
    assert_eq!(reply.reasoning, "Überlege: 思考中… fertig.");
    assert!(reply.tool_calls.is_empty());
    assert_eq!(reply.finish_reason, Some(FinishReason::Stop));
    assert_eq!(
        reply.usage,
        Usage {
            input_tokens: 42,
            output_tokens: 17,
            ..Default::default()
        }
    );
}

#[test]
fn parallel_tool_calls() {
    let reply = decode_fixture_every_way(DECODER, "openai-parallel-tools.sse").unwrap();
    assert_eq!(reply.text, "Zwei Aufrufe: ");
    assert_eq!(
        reply.tool_calls,
        vec![
            call("call_a", "Read", r#"{"file_path": "src/ünï.rs"}"#),
            call("call_b", "Glob", r#"{"pattern": "*.rs"}"#),
        ]
    );
    assert_eq!(reply.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(reply.usage.input_tokens, 100);
}

#[test]
fn ids_and_names_on_every_chunk() {
    let reply = decode_fixture_every_way(DECODER, "openai-ids-every-chunk.sse").unwrap();
    assert_eq!(
        reply.tool_calls,
        vec![call(
            "call_x",
            "Grep",
            r#"{"pattern": "fn main", "path": "ö"}"#
        )]
    );
}

#[test]
fn error_object_mid_stream() {
    let err = decode_fixture_every_way(DECODER, "openai-error-midstream.sse").unwrap_err();
    assert_eq!(
        err,
        ProviderError::Stream {
            provider: "test".into(),
            message: "The model is overloaded. Please try again later.".into()
        }
    );
}

#[test]
fn end_without_done_after_output_is_disconnected() {
    let err = decode_fixture_every_way(DECODER, "openai-no-done.sse").unwrap_err();
    assert!(matches!(err, ProviderError::Disconnected { .. }), "{err:?}");
}

#[test]
fn non_json_data_is_a_protocol_error() {
    let err = decode_fixture_every_way(DECODER, "openai-not-json.sse").unwrap_err();
    match err {
        ProviderError::Protocol { message, .. } => {
            assert!(message.contains("this is not json"), "{message}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn last_event_without_blank_line_still_counts() {
    let body = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]".to_vec();
    let reply = decode_chunks(DECODER, split_by_sizes(&body, &[5])).unwrap();
    assert_eq!(reply.text, "hi");
    // Cut mid-event by the server: a broken-off stream, not a bad payload.
    let cut =
        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: {\"choi"
            .to_vec();
    let err = decode_chunks(DECODER, vec![cut]).unwrap_err();
    assert!(matches!(err, ProviderError::Disconnected { .. }), "{err:?}");
}

#[test]
fn finish_then_eof_without_done_is_complete() {
    let body =
        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"length\"}]}\n\n"
            .to_vec();
    let reply = decode_chunks(DECODER, vec![body]).unwrap();
    assert_eq!(reply.finish_reason, Some(FinishReason::Length));
}

#[test]
fn invalid_utf8_is_a_protocol_error() {
    let body =
        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xff\xfe\"}}]}\n\n".to_vec();
    let err = decode_chunks(DECODER, vec![body]).unwrap_err();
    assert!(matches!(err, ProviderError::Protocol { .. }), "{err:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn any_split_gives_the_same_reply(
        sizes in prop::collection::vec(1usize..48, 1..24),
        which in 0usize..5,
    ) {
        let name = [
            "llamacpp-chat-toolcall.sse",
            "llama-cpp-python-chat-toolcall.sse",
            "openai-text-reasoning.sse",
            "openai-parallel-tools.sse",
            "openai-error-midstream.sse",
        ][which];
        let bytes = sse_fixture(name);
        let whole = decode_chunks(DECODER, vec![bytes.clone()]);
        let split = decode_chunks(DECODER, split_by_sizes(&bytes, &sizes));
        prop_assert_eq!(whole, split);
    }
}

// ---- end to end ----------------------------------------------------------

fn provider(server: &FakeModelServer, settings: HttpSettings) -> OpenAiProvider {
    OpenAiProvider::new(
        &fake_provider(ProviderKind::Openai, &server.openai_base_url()),
        Some("sk-test".into()),
        settings,
    )
}

fn request() -> ModelRequest {
    ModelRequest {
        model: "fake-model".into(),
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

async fn run(
    p: &OpenAiProvider,
    req: &ModelRequest,
) -> Result<zcode::model::AssistantReply, ProviderError> {
    collect_reply(p.stream(req).await?).await
}

#[tokio::test]
async fn e2e_text_reply() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("Hello there, grüß dich!")));
    let reply = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap();
    assert_eq!(reply.text, "Hello there, grüß dich!");
    assert_eq!(reply.finish_reason, Some(FinishReason::Stop));
    assert_eq!(reply.usage.input_tokens, 10);
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn e2e_tool_call_with_streamed_arguments() {
    let server = FakeModelServer::start().await;
    let body = sse::openai_tool_calls(
        "Reading.",
        &[("call_1", "Read", r#"{"file_path":"src/main.rs"}"#)],
    );
    // Seven bytes per HTTP chunk: the arguments arrive in pieces.
    server.enqueue(Reply::sse_chunks(
        body.as_bytes()
            .chunks(7)
            .map(|c| String::from_utf8_lossy(c).into_owned()),
    ));
    let reply = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap();
    assert_eq!(reply.text, "Reading.");
    assert_eq!(
        reply.tool_calls,
        vec![call("call_1", "Read", r#"{"file_path":"src/main.rs"}"#)]
    );
    assert_eq!(reply.finish_reason, Some(FinishReason::ToolCalls));
}

#[tokio::test]
async fn e2e_parallel_tool_calls() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_tool_calls(
        "",
        &[
            ("c1", "Glob", r#"{"pattern":"*"}"#),
            ("c2", "Read", r#"{"file_path":"a"}"#),
        ],
    )));
    let reply = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap();
    assert_eq!(
        reply.tool_calls,
        vec![
            call("c1", "Glob", r#"{"pattern":"*"}"#),
            call("c2", "Read", r#"{"file_path":"a"}"#)
        ]
    );
}

#[tokio::test]
async fn e2e_disconnect_after_output_is_an_error_and_not_retried() {
    let server = FakeModelServer::start().await;
    let first = sse::openai_text("Hello");
    let head: String = first.split("\n\n").take(2).collect::<Vec<_>>().join("\n\n") + "\n\n";
    server.enqueue(
        Reply::sse(head)
            .delay(Duration::from_millis(30))
            .drop_connection(),
    );
    server.enqueue(Reply::sse(sse::openai_text("should not be used")));
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
    assert!(events.contains(&StreamEvent::TextDelta("Hello".into())));
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
    // Only the role chunk, then the connection breaks.
    server.enqueue(
        Reply::sse("data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n")
            .delay(Duration::from_millis(20))
            .drop_connection(),
    );
    // Headers, then nothing at all.
    server.enqueue(Reply::sse_chunks(Vec::<String>::new()).drop_connection());
    server.enqueue(Reply::sse(sse::openai_text("Second time lucky")));
    let reply = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap();
    assert_eq!(reply.text, "Second time lucky");
    assert_eq!(server.request_count(), 3);
}

#[tokio::test]
async fn e2e_clean_close_without_anything_is_retried() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse_chunks(Vec::<String>::new()).framing(Framing::Close));
    server.enqueue(Reply::sse(sse::openai_text("ok")));
    let reply = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap();
    assert_eq!(reply.text, "ok");
    assert_eq!(server.request_count(), 2);
}

#[tokio::test]
async fn e2e_429_then_success_with_backoff() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::json(
        429,
        &json!({"error": {"message": "slow down"}}),
    ));
    server.enqueue(Reply::sse(sse::openai_text("ok")));
    let (reply, retries) = collect_observed(&provider(&server, test_settings()), &request()).await;
    assert_eq!(reply.unwrap().text, "ok");
    assert_eq!(server.request_count(), 2);
    // The second attempt came after the policy's first backoff.
    let waits: Vec<Duration> = retries.iter().map(|r| r.delay).collect();
    assert_eq!(waits, [test_settings().backoff(1)]);
    assert!(waits[0] >= Duration::from_millis(10));
}

#[tokio::test]
async fn e2e_retry_after_is_honoured_up_to_the_cap() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::status(429).header("retry-after", "3600"));
    server.enqueue(Reply::status(503).header("retry-after", "0.1"));
    server.enqueue(Reply::sse(sse::openai_text("ok")));
    let (reply, retries) = within(
        "the retries",
        collect_observed(&provider(&server, test_settings()), &request()),
    )
    .await;
    assert_eq!(reply.unwrap().text, "ok");
    // 300 ms (the cap, not an hour), then the 100 ms asked for.
    let waits: Vec<Duration> = retries.iter().map(|r| r.delay).collect();
    assert_eq!(
        waits,
        [test_settings().retry_after_cap, Duration::from_millis(100)]
    );
    assert_eq!(waits[0], Duration::from_millis(300));
}

#[tokio::test]
async fn e2e_500s_give_up_with_a_clear_error() {
    let server = FakeModelServer::start().await;
    for _ in 0..3 {
        server.enqueue(Reply::json(
            500,
            &json!({"error": {"message": "backend exploded"}}),
        ));
    }
    let err = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap_err();
    assert_eq!(server.request_count(), 3);
    assert_eq!(
        err.to_string(),
        format!(
            "fake: HTTP 500 from {}/chat/completions: backend exploded (gave up after 3 attempts)",
            server.openai_base_url()
        )
    );
}

#[tokio::test]
async fn e2e_401_names_the_key_variable() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::json(
        401,
        &json!({"error": {"message": "Incorrect API key"}}),
    ));
    let err = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap_err();
    assert!(
        matches!(err, ProviderError::Unauthorized { status: 401, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("FAKE_API_KEY"), "{err}");
    assert_eq!(server.request_count(), 1, "no retry on 401");
}

#[tokio::test]
async fn e2e_403_is_unauthorized_too() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::status(403));
    let err = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("HTTP 403"), "{err}");
}

#[tokio::test]
async fn e2e_404_names_the_url() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::text(404, "not here"));
    let err = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap_err();
    let url = format!("{}/chat/completions", server.openai_base_url());
    assert_eq!(
        err,
        ProviderError::NotFound {
            provider: "fake".into(),
            url: url.clone()
        }
    );
    assert!(err.to_string().contains(&url));
}

#[tokio::test]
async fn e2e_other_4xx_shows_the_server_message_truncated() {
    let server = FakeModelServer::start().await;
    let long = "x".repeat(2000);
    server.enqueue(Reply::json(
        400,
        &json!({"error": {"message": format!("context too long {long}"), "type": "invalid_request_error"}}),
    ));
    let err = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap_err();
    match &err {
        ProviderError::Http {
            status, message, ..
        } => {
            assert_eq!(*status, 400);
            assert!(message.starts_with("context too long xxx"));
            assert!(message.chars().count() <= 301);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn e2e_idle_timeout_after_output() {
    let server = FakeModelServer::start().await;
    server.enqueue(
        Reply::sse("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n")
            .delay(Duration::from_secs(3600)),
    );
    let p = provider(&server, test_settings());
    let req = request();
    let mut stream = p.stream(&req).await.unwrap();
    assert_eq!(
        stream.next().await,
        Some(Ok(StreamEvent::TextDelta("Hi".into())))
    );
    // Silent far longer than the test waits: only the idle timeout ends it.
    let err = within("the idle timeout", stream.next())
        .await
        .unwrap()
        .unwrap_err();
    assert!(matches!(err, ProviderError::IdleTimeout { .. }), "{err:?}");
    assert_eq!(stream.next().await, None);
}

#[tokio::test]
async fn e2e_idle_timeout_before_output() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse_chunks(Vec::<String>::new()).delay(Duration::from_secs(3600)));
    let err = within(
        "the idle timeout",
        run(&provider(&server, test_settings()), &request()),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ProviderError::IdleTimeout { .. }), "{err:?}");
    assert_eq!(server.request_count(), 1, "a silent server is not retried");
}

#[tokio::test]
async fn e2e_connection_refused_is_a_connect_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let p = OpenAiProvider::new(
        &fake_provider(ProviderKind::Openai, &format!("http://{addr}/v1")),
        None,
        test_settings(),
    );
    let err = run(&p, &request()).await.unwrap_err();
    match &err {
        ProviderError::Connect { url, message, .. } => {
            assert!(url.contains(&addr.to_string()));
            assert!(message.contains("gave up after 3 attempts"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn e2e_dropping_the_stream_aborts_the_request() {
    let server = FakeModelServer::start().await;
    server.enqueue(
        Reply::sse("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n")
            .delay(Duration::from_secs(30))
            .chunk("data: [DONE]\n\n"),
    );
    let p = provider(&server, test_settings().clone());
    let req = request();
    let mut stream = p.stream(&req).await.unwrap();
    assert!(stream.next().await.is_some());
    drop(stream);
    assert!(
        server
            .wait_for_client_aborts(1, Duration::from_secs(5))
            .await
    );
}

#[tokio::test]
async fn e2e_json_error_instead_of_a_stream() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::json(
        200,
        &json!({"error": {"message": "tools are not supported"}}),
    ));
    let err = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "fake: the server reported an error: tools are not supported"
    );
}

#[tokio::test]
async fn e2e_error_object_mid_stream() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(
        String::from_utf8(sse_fixture("openai-error-midstream.sse")).unwrap(),
    ));
    let err = run(&provider(&server, test_settings()), &request())
        .await
        .unwrap_err();
    assert!(matches!(err, ProviderError::Stream { .. }), "{err:?}");
}

#[tokio::test]
async fn e2e_request_shape() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("ok")));
    let req = ModelRequest {
        model: "fake-model".into(),
        system: "You are zcode.".into(),
        messages: vec![
            Message::User {
                content: "list files".into(),
            },
            Message::Assistant {
                text: "Looking.".into(),
                tool_calls: vec![call("call_1", "Glob", r#"{"pattern":"*"}"#)],
            },
            Message::Tool {
                call_id: "call_1".into(),
                content: "a.rs\nb.rs".into(),
                is_error: false,
            },
        ],
        tools: vec![ToolSpec {
            name: "Glob".into(),
            description: "Find files".into(),
            input_schema: json!({"type": "object", "properties": {"pattern": {"type": "string"}}}),
        }],
        max_output_tokens: Some(1234),
        context_window: None,
        reasoning: Some("high".into()),
        cache_key: None,
    };
    run(&provider(&server, test_settings()), &req)
        .await
        .unwrap();
    let r = &server.requests()[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("accept"), Some("text/event-stream"));
    assert_eq!(
        r.json(),
        json!({
            "model": "fake-model",
            "messages": [
                {"role": "system", "content": "You are zcode."},
                {"role": "user", "content": "list files"},
                {"role": "assistant", "content": "Looking.", "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "Glob", "arguments": "{\"pattern\":\"*\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "a.rs\nb.rs"}
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            "tools": [{"type": "function", "function": {
                "name": "Glob", "description": "Find files",
                "parameters": {"type": "object", "properties": {"pattern": {"type": "string"}}}
            }}],
            "tool_choice": "auto",
            "max_tokens": 1234,
            "reasoning_effort": "high"
        })
    );
}

#[tokio::test]
async fn e2e_no_auth_header_without_a_key() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("ok")));
    let mut entry = fake_provider(ProviderKind::Openai, &server.openai_base_url());
    entry.api_key_optional = true;
    let p = OpenAiProvider::new(&entry, None, test_settings());
    run(&p, &request()).await.unwrap();
    assert_eq!(server.requests()[0].header("authorization"), None);
}

#[tokio::test]
async fn e2e_many_requests_in_a_row() {
    let server = FakeModelServer::start().await;
    let p = provider(&server, test_settings());
    for i in 0..5 {
        server.enqueue(Reply::sse(sse::openai_text(&format!("reply {i}"))));
    }
    for i in 0..5 {
        let reply = run(&p, &request()).await.unwrap();
        assert_eq!(reply.text, format!("reply {i}"));
    }
    assert_eq!(server.pending_replies(), 0);
}
