//! Anthropic Messages (`POST {baseUrl}/v1/messages`, streamed).
//!
//! Requests: the system prompt in `system`; `max_tokens` (required) is the
//! request's limit, else the model's (`model::limits`); tools as `{name, description, input_schema}`;
//! assistant tool calls as `tool_use` blocks with their parsed input
//! (`{}` when it is not a JSON object); tool results as `tool_result`
//! blocks of a user message; consecutive messages of one role merged. A
//! reasoning level turns on extended thinking, see [`thinking_budget`]
//! (for the first request of a turn only: thinking blocks are not kept in
//! the conversation, and the API wants them back inside a tool-use loop).
//!
//! The parser follows the event types (`message_start`,
//! `content_block_start/delta/stop`, `message_delta`, `message_stop`,
//! `ping`, `error`), ignores unknown ones and unknown delta types
//! (`signature_delta` …), and accepts a `tool_use` block whose input comes
//! whole in `content_block_start` instead of as `input_json_delta`s.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use std::sync::Arc;

use futures_util::future::BoxFuture;
use futures_util::stream::Stream;
use serde_json::{Map, Value, json};

use super::cache_breakpoints;
use super::http::{Endpoint, HttpSettings, truncate_chars};
use super::openai::stream_error_message;
use super::sse::{self, ByteError, Flow, SseDialect, SseEvent};
use super::{
    FinishReason, Message, ModelProvider, ModelRequest, ProviderError, ReplyStream, RetryObserver,
    StreamEvent, Usage,
};
use crate::config::Provider;

pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// `max_tokens` of a body built without any limit.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;
/// Room left for the answer on top of the thinking budget when the request
/// sets no limit.
const ANSWER_TOKENS: u32 = 8000;
/// The smallest thinking budget the API accepts.
const MIN_THINKING_BUDGET: u32 = 1024;

/// An Anthropic Messages provider.
pub struct AnthropicProvider {
    endpoint: Endpoint,
}

impl AnthropicProvider {
    /// `api_key` is sent as `x-api-key` when present.
    pub fn new(provider: &Provider, api_key: Option<String>, settings: HttpSettings) -> Self {
        let has_key = api_key.is_some();
        let mut headers = vec![("anthropic-version", ANTHROPIC_VERSION.to_string())];
        if let Some(key) = api_key {
            headers.push(("x-api-key", key));
        }
        AnthropicProvider {
            endpoint: Endpoint::new(
                provider,
                provider.messages_url(),
                has_key,
                headers,
                settings,
            ),
        }
    }

    /// Where requests go.
    pub fn url(&self) -> &str {
        &self.endpoint.url
    }
}

impl ModelProvider for AnthropicProvider {
    fn label(&self) -> &str {
        &self.endpoint.label
    }

    fn stream<'a>(
        &'a self,
        request: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<ReplyStream, ProviderError>> {
        self.stream_observed(request, Arc::new(|_| {}))
    }

    fn stream_observed<'a>(
        &'a self,
        request: &'a ModelRequest,
        on_retry: RetryObserver,
    ) -> BoxFuture<'a, Result<ReplyStream, ProviderError>> {
        Box::pin(async move {
            let limit = self.endpoint.settings.limits.request_output_limit(request);
            let body = request_body_with_limit(request, Some(limit));
            let label = self.endpoint.label.clone();
            self.endpoint
                .open(&body, limit, || MessagesParser::new(&label), &on_retry)
                .await
        })
    }
}

/// The thinking budget for a reasoning level: `none`/`off`/`disabled` →
/// no thinking; `minimal` 1024, `low` 4000, `medium` 10000, `high` 16000,
/// `max`/`xhigh`/`maximum` 24000 tokens; a number is taken as the budget
/// (at least 1024); any other level → the `medium` budget.
pub fn thinking_budget(level: &str) -> Option<u32> {
    let level = level.trim().to_ascii_lowercase();
    Some(match level.as_str() {
        "none" | "off" | "disabled" | "" => return None,
        "minimal" => 1024,
        "low" => 4000,
        "medium" => 10_000,
        "high" => 16_000,
        "max" | "xhigh" | "maximum" => 24_000,
        other => match other.parse::<u32>() {
            Ok(0) => return None,
            Ok(n) => n.max(MIN_THINKING_BUDGET),
            Err(_) => 10_000,
        },
    })
}

/// True when the request continues a tool-use loop: the last assistant
/// message asked for tools and their results follow.
fn in_tool_loop(messages: &[Message]) -> bool {
    let Some(last) = messages
        .iter()
        .rposition(|m| matches!(m, Message::Assistant { .. }))
    else {
        return false;
    };
    matches!(&messages[last], Message::Assistant { tool_calls, .. } if !tool_calls.is_empty())
        && messages[last + 1..]
            .iter()
            .any(|m| matches!(m, Message::Tool { .. }))
}

/// `max_tokens` and the thinking budget of a request: with no limit set,
/// the answer gets 8192 tokens, or 8000 on top of a thinking budget; with a
/// limit, the budget must fit under it (else thinking stays off).
///
/// Thinking is also off inside a tool-use loop: with thinking on, the API
/// wants the previous assistant message to start with its signed thinking
/// block, and the conversation does not keep those. So a turn thinks on its
/// first request only.
fn token_limits(request: &ModelRequest, max_output: Option<u32>) -> (u32, Option<u32>) {
    let budget = request
        .reasoning
        .as_deref()
        .and_then(thinking_budget)
        .filter(|_| !in_tool_loop(&request.messages));
    match (max_output, budget) {
        (Some(max), Some(b)) => {
            let max = max.max(1);
            if max > MIN_THINKING_BUDGET {
                (max, Some(b.min(max - 1)))
            } else {
                (max, None)
            }
        }
        (Some(max), None) => (max.max(1), None),
        (None, Some(b)) => (
            b.saturating_add(ANSWER_TOKENS).max(DEFAULT_MAX_TOKENS),
            Some(b),
        ),
        (None, None) => (DEFAULT_MAX_TOKENS, None),
    }
}

/// The JSON body of a streamed Messages request, with the request's own
/// output limit.
pub fn request_body(request: &ModelRequest) -> Value {
    request_body_with_limit(request, request.max_output_tokens)
}

/// The body with `max_output` as the output limit (the provider passes the
/// model's limit).
fn request_body_with_limit(request: &ModelRequest, max_output: Option<u32>) -> Value {
    let mut messages: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for message in &request.messages {
        let (role, blocks) = match message {
            Message::User { content } => {
                let blocks = if content.is_empty() {
                    Vec::new()
                } else {
                    vec![json!({"type": "text", "text": content})]
                };
                ("user", blocks)
            }
            Message::Assistant { text, tool_calls } => {
                let mut blocks = Vec::new();
                if !text.is_empty() {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                for call in tool_calls {
                    let input = match serde_json::from_str::<Value>(&call.arguments) {
                        Ok(v @ Value::Object(_)) => v,
                        _ => json!({}),
                    };
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": call.id,
                        "name": call.name,
                        "input": input,
                    }));
                }
                ("assistant", blocks)
            }
            Message::Tool {
                call_id,
                content,
                is_error,
            } => {
                let mut block = Map::new();
                block.insert("type".into(), "tool_result".into());
                block.insert("tool_use_id".into(), call_id.clone().into());
                if !content.is_empty() {
                    block.insert("content".into(), content.clone().into());
                }
                block.insert("is_error".into(), (*is_error).into());
                ("user", vec![Value::Object(block)])
            }
        };
        if blocks.is_empty() {
            continue;
        }
        match messages.last_mut() {
            Some((last_role, last_blocks)) if *last_role == role => last_blocks.extend(blocks),
            _ => messages.push((role, blocks)),
        }
    }
    let messages = messages
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect::<Vec<_>>();

    let (max_tokens, budget) = token_limits(request, max_output);
    let mut body = Map::new();
    body.insert("model".into(), request.model.clone().into());
    body.insert("max_tokens".into(), max_tokens.into());
    body.insert("stream".into(), true.into());
    if !request.system.is_empty() {
        body.insert("system".into(), request.system.clone().into());
    }
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "description": t.description,
                    "input_schema": t.input_schema,
                })
            })
            .collect::<Vec<_>>();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(budget) = budget {
        body.insert(
            "thinking".into(),
            json!({"type": "enabled", "budget_tokens": budget}),
        );
    }
    cache_breakpoints::mark(&mut body);
    Value::Object(body)
}

/// Decodes a Messages SSE byte stream (for tests and tools that already
/// hold the bytes).
pub fn decode_stream<S, B>(label: &str, bytes: S) -> ReplyStream
where
    S: Stream<Item = Result<B, ByteError>> + Send + 'static,
    B: AsRef<[u8]> + Send + 'static,
{
    sse::decode(label, bytes, MessagesParser::new(label))
}

/// The stateful event parser.
pub struct MessagesParser {
    label: String,
    usage: Usage,
    /// Whole inputs given in `content_block_start`, by block index.
    start_inputs: BTreeMap<usize, String>,
    /// Blocks that got `input_json_delta`s.
    streamed_inputs: BTreeSet<usize>,
}

impl MessagesParser {
    pub fn new(label: &str) -> Self {
        MessagesParser {
            label: label.to_string(),
            usage: Usage::default(),
            start_inputs: BTreeMap::new(),
            streamed_inputs: BTreeSet::new(),
        }
    }

    fn content_block_start(
        &mut self,
        index: usize,
        block: &Value,
        out: &mut VecDeque<StreamEvent>,
    ) {
        let text = |k: &str| {
            block
                .get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(String::from)
        };
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(t) = text("text") {
                    out.push_back(StreamEvent::TextDelta(t));
                }
            }
            Some("thinking") => {
                if let Some(t) = text("thinking") {
                    out.push_back(StreamEvent::ReasoningDelta(t));
                }
            }
            Some("tool_use") => {
                out.push_back(StreamEvent::ToolCallStart {
                    index,
                    id: text("id"),
                    name: text("name"),
                });
                if let Some(input) = block.get("input")
                    && input.as_object().is_some_and(|o| !o.is_empty())
                {
                    self.start_inputs.insert(index, input.to_string());
                }
            }
            _ => {}
        }
    }

    fn content_block_delta(
        &mut self,
        index: usize,
        delta: &Value,
        out: &mut VecDeque<StreamEvent>,
    ) {
        let field = |k: &str| {
            delta
                .get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(String::from)
        };
        match delta.get("type").and_then(Value::as_str) {
            Some("text_delta") => {
                if let Some(t) = field("text") {
                    out.push_back(StreamEvent::TextDelta(t));
                }
            }
            Some("thinking_delta") => {
                if let Some(t) = field("thinking") {
                    out.push_back(StreamEvent::ReasoningDelta(t));
                }
            }
            Some("input_json_delta") => {
                self.streamed_inputs.insert(index);
                if let Some(j) = field("partial_json") {
                    out.push_back(StreamEvent::ToolCallDelta {
                        index,
                        arguments: j,
                    });
                }
            }
            _ => {}
        }
    }

    fn flush_start_input(&mut self, index: usize, out: &mut VecDeque<StreamEvent>) {
        if let Some(input) = self.start_inputs.remove(&index)
            && !self.streamed_inputs.contains(&index)
        {
            out.push_back(StreamEvent::ToolCallDelta {
                index,
                arguments: input,
            });
        }
    }
}

/// The input side of a usage object: Anthropic's `input_tokens` counts
/// only what was neither read from nor written to the cache; zcode's is the
/// whole prompt, with the cached parts kept apart.
fn input_usage(uncached: u64, usage: &Value) -> Usage {
    let get = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
    let read = get("cache_read_input_tokens");
    let written = get("cache_creation_input_tokens");
    Usage {
        input_tokens: uncached.saturating_add(read).saturating_add(written),
        output_tokens: 0,
        cache_read_input_tokens: read,
        cache_creation_input_tokens: written,
        ..Default::default()
    }
}

fn stop_reason(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" => FinishReason::Length,
        _ => FinishReason::Other,
    }
}

fn block_index(value: &Value) -> usize {
    value
        .get("index")
        .and_then(Value::as_u64)
        .map_or(0, |i| usize::try_from(i).unwrap_or(usize::MAX))
}

impl SseDialect for MessagesParser {
    fn on_event(
        &mut self,
        event: &SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Flow, ProviderError> {
        let data = event.data.trim();
        let value: Value = match serde_json::from_str(data) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) | Err(_) if event.event == "error" => {
                return Err(ProviderError::Stream {
                    provider: self.label.clone(),
                    message: truncate_chars(data, 300),
                });
            }
            Ok(_) => {
                return Err(ProviderError::Protocol {
                    provider: self.label.clone(),
                    message: format!(
                        "a stream event is not a JSON object: {}",
                        truncate_chars(data, 120)
                    ),
                });
            }
            Err(e) => {
                return Err(ProviderError::Protocol {
                    provider: self.label.clone(),
                    message: format!(
                        "a stream event is not JSON ({e}): {}",
                        truncate_chars(data, 120)
                    ),
                });
            }
        };
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event.event.as_str());
        match kind {
            "message_start" => {
                if let Some(u) = value.get("message").and_then(|m| m.get("usage")) {
                    let get = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
                    self.usage = Usage {
                        output_tokens: get("output_tokens"),
                        ..input_usage(get("input_tokens"), u)
                    };
                    out.push_back(StreamEvent::Usage(self.usage));
                }
            }
            "content_block_start" => {
                if let Some(block) = value.get("content_block") {
                    self.content_block_start(block_index(&value), block, out);
                }
            }
            "content_block_delta" => {
                if let Some(delta) = value.get("delta") {
                    self.content_block_delta(block_index(&value), delta, out);
                }
            }
            "content_block_stop" => self.flush_start_input(block_index(&value), out),
            "message_delta" => {
                let indices: Vec<usize> = self.start_inputs.keys().copied().collect();
                for i in indices {
                    self.flush_start_input(i, out);
                }
                if let Some(u) = value.get("usage").filter(|u| u.is_object()) {
                    let get = |k: &str| u.get(k).and_then(Value::as_u64);
                    if let Some(o) = get("output_tokens") {
                        self.usage.output_tokens = o;
                    }
                    if let Some(i) = get("input_tokens") {
                        self.usage = Usage {
                            output_tokens: self.usage.output_tokens,
                            ..input_usage(i, u)
                        };
                    }
                    out.push_back(StreamEvent::Usage(self.usage));
                }
                if let Some(reason) = value
                    .get("delta")
                    .and_then(|d| d.get("stop_reason"))
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                {
                    out.push_back(StreamEvent::Finished(stop_reason(reason)));
                }
            }
            "message_stop" => return Ok(Flow::Done),
            "error" => {
                let message = match value.get("error") {
                    Some(e) if !e.is_null() => stream_error_message(e),
                    _ => stream_error_message(&value),
                };
                return Err(ProviderError::Stream {
                    provider: self.label.clone(),
                    message,
                });
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ToolCall, ToolSpec};

    fn request() -> ModelRequest {
        ModelRequest {
            model: "claude".into(),
            system: "sys".into(),
            messages: vec![
                Message::User {
                    content: "hi".into(),
                },
                Message::Assistant {
                    text: "let me look".into(),
                    tool_calls: vec![
                        ToolCall {
                            id: "t1".into(),
                            name: "Read".into(),
                            arguments: r#"{"file_path":"a"}"#.into(),
                        },
                        ToolCall {
                            id: "t2".into(),
                            name: "Glob".into(),
                            arguments: "{not json".into(),
                        },
                    ],
                },
                Message::Tool {
                    call_id: "t1".into(),
                    content: "contents".into(),
                    is_error: false,
                },
                Message::Tool {
                    call_id: "t2".into(),
                    content: "bad input".into(),
                    is_error: true,
                },
                Message::User {
                    content: "and then?".into(),
                },
            ],
            tools: vec![ToolSpec {
                name: "Read".into(),
                description: "reads".into(),
                input_schema: json!({"type": "object"}),
            }],
            max_output_tokens: None,
            context_window: None,
            reasoning: None,
            cache_key: None,
        }
    }

    #[test]
    fn body_merges_roles_and_parses_inputs() {
        let body = request_body(&request());
        assert_eq!(body["max_tokens"], 8192);
        assert_eq!(body["system"][0]["text"], "sys");
        assert_eq!(body["stream"], true);
        let msgs = body["messages"].as_array().unwrap();
        assert_eq!(msgs.len(), 3);
        assert_eq!(msgs[1]["content"][1]["input"], json!({"file_path": "a"}));
        assert_eq!(msgs[1]["content"][2]["input"], json!({}));
        let results = msgs[2]["content"].as_array().unwrap();
        assert_eq!(msgs[2]["role"], "user");
        assert_eq!(results.len(), 3);
        assert_eq!(results[0]["type"], "tool_result");
        assert_eq!(results[1]["is_error"], true);
        assert_eq!(
            results[2],
            json!({"type": "text", "text": "and then?", "cache_control": {"type": "ephemeral"}})
        );
        assert_eq!(
            body["tools"][0],
            json!({"name":"Read","description":"reads","input_schema":{"type":"object"},
                "cache_control": {"type": "ephemeral"}})
        );
        assert!(body.get("thinking").is_none());
    }

    #[test]
    fn thinking_levels() {
        let mut r = request();
        r.messages.truncate(1);
        r.reasoning = Some("high".into());
        let body = request_body(&r);
        assert_eq!(
            body["thinking"],
            json!({"type": "enabled", "budget_tokens": 16000})
        );
        assert_eq!(body["max_tokens"], 24000);

        r.max_output_tokens = Some(4000);
        let body = request_body(&r);
        assert_eq!(body["max_tokens"], 4000);
        assert_eq!(body["thinking"]["budget_tokens"], 3999);

        r.max_output_tokens = Some(1000);
        assert!(request_body(&r).get("thinking").is_none());

        assert_eq!(thinking_budget("off"), None);
        assert_eq!(thinking_budget("MINIMAL"), Some(1024));
        assert_eq!(thinking_budget("2048"), Some(2048));
        assert_eq!(thinking_budget("12"), Some(1024));
        assert_eq!(thinking_budget("whatever"), Some(10_000));
    }

    #[test]
    fn no_thinking_inside_a_tool_loop() {
        let mut r = request();
        r.reasoning = Some("high".into());
        // The history ends with tool results and a user message.
        assert!(request_body(&r).get("thinking").is_none());
        assert_eq!(request_body(&r)["max_tokens"], 8192);
        r.messages.push(Message::Assistant {
            text: "done".into(),
            tool_calls: vec![],
        });
        r.messages.push(Message::User {
            content: "next".into(),
        });
        assert!(request_body(&r).get("thinking").is_some());
        r.messages.truncate(1);
        assert!(request_body(&r).get("thinking").is_some());
    }

    #[test]
    fn whole_input_in_block_start() {
        let mut p = MessagesParser::new("t");
        let mut out = VecDeque::new();
        let ev = |d: &str| SseEvent {
            event: "x".into(),
            data: d.into(),
            at_eof: false,
        };
        p.on_event(
            &ev(r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"a","name":"Glob","input":{"pattern":"*"}}}"#),
            &mut out,
        )
        .unwrap();
        p.on_event(&ev(r#"{"type":"content_block_stop","index":1}"#), &mut out)
            .unwrap();
        assert_eq!(
            out.back(),
            Some(&StreamEvent::ToolCallDelta {
                index: 1,
                arguments: r#"{"pattern":"*"}"#.into()
            })
        );
    }
}
