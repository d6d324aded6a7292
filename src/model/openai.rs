//! OpenAI-compatible Chat Completions (`POST {baseUrl}/chat/completions`,
//! streamed): OpenAI itself and the many servers that copy it (llama.cpp,
//! llama-cpp-python, vLLM, Ollama, LM Studio, OpenRouter …).
//!
//! The parser is lenient: tool calls are keyed by `index` (or, when a
//! server omits it, by id); ids and names may come once or on every chunk;
//! `reasoning_content` and `reasoning` deltas are reasoning; an `error`
//! object inside the stream ends it with [`ProviderError::Stream`]; empty or
//! null finish reasons, usage-only chunks (`choices: []`) and unknown fields
//! are fine; the legacy `function_call` is used only by a stream that never
//! sends `tool_calls`. A data line that is not JSON is a protocol error.

use std::collections::VecDeque;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use futures_util::stream::Stream;
use serde_json::{Map, Value, json};

use super::http::{Endpoint, HttpSettings, truncate_chars};
use super::sse::{self, ByteError, Flow, SseDialect, SseEvent};
use super::{
    FinishReason, Message, ModelProvider, ModelRequest, ProviderError, ReplyStream, RetryObserver,
    StreamEvent, Usage,
};
use crate::config::Provider;

/// A Chat Completions provider.
pub struct OpenAiProvider {
    endpoint: Endpoint,
}

impl OpenAiProvider {
    /// `api_key` is sent as a bearer token when present.
    pub fn new(provider: &Provider, api_key: Option<String>, settings: HttpSettings) -> Self {
        let mut headers = Vec::new();
        let has_key = api_key.is_some();
        if let Some(key) = api_key {
            headers.push(("authorization", format!("Bearer {key}")));
        }
        OpenAiProvider {
            endpoint: Endpoint::new(
                provider,
                provider.chat_completions_url(),
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

impl ModelProvider for OpenAiProvider {
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
            let limits = self.endpoint.settings.limits;
            let limit = limits.request_output_limit(request);
            let mut body = request_body(request);
            if let Value::Object(fields) = &mut body {
                fields.remove("max_tokens");
                fields.insert(limits.max_tokens_field.as_str().into(), limit.into());
            }
            let label = self.endpoint.label.clone();
            self.endpoint
                .open(
                    &body,
                    limit,
                    || ChatCompletionsParser::new(&label),
                    &on_retry,
                )
                .await
        })
    }
}

/// The JSON body of a streamed Chat Completions request; `max_tokens` is
/// the request's own limit (the provider replaces it with the model's
/// limit, in the field the model wants).
pub fn request_body(request: &ModelRequest) -> Value {
    let mut messages = Vec::new();
    if !request.system.is_empty() {
        messages.push(json!({"role": "system", "content": request.system}));
    }
    for message in &request.messages {
        messages.push(match message {
            Message::User { content } => json!({"role": "user", "content": content}),
            Message::Assistant { text, tool_calls } => {
                let mut m = Map::new();
                m.insert("role".into(), "assistant".into());
                let content = if text.is_empty() && !tool_calls.is_empty() {
                    Value::Null
                } else {
                    Value::String(text.clone())
                };
                m.insert("content".into(), content);
                if !tool_calls.is_empty() {
                    let calls = tool_calls
                        .iter()
                        .map(|c| {
                            json!({
                                "id": c.id,
                                "type": "function",
                                "function": {
                                    "name": c.name,
                                    "arguments": normalized_arguments(&c.arguments),
                                },
                            })
                        })
                        .collect::<Vec<_>>();
                    m.insert("tool_calls".into(), Value::Array(calls));
                }
                Value::Object(m)
            }
            Message::Tool {
                call_id, content, ..
            } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
        });
    }
    let mut body = Map::new();
    body.insert("model".into(), request.model.clone().into());
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), true.into());
    body.insert("stream_options".into(), json!({"include_usage": true}));
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.input_schema,
                    },
                })
            })
            .collect::<Vec<_>>();
        body.insert("tools".into(), Value::Array(tools));
        body.insert("tool_choice".into(), "auto".into());
    }
    if let Some(max) = request.max_output_tokens {
        body.insert("max_tokens".into(), max.into());
    }
    if let Some(level) = &request.reasoning {
        body.insert("reasoning_effort".into(), level.clone().into());
    }
    // Routes the session's requests to the servers that hold its prefix.
    // llama.cpp needs nothing: its `cache_prompt` is on by default and
    // reuses the longest common prefix, which an append-only conversation
    // always has.
    if let Some(key) = &request.cache_key {
        body.insert("prompt_cache_key".into(), key.clone().into());
    }
    Value::Object(body)
}

/// Tool-call arguments as sent back to a server: the model's text when it
/// is JSON, else `{}` (several servers parse them and reject the whole
/// request otherwise; the tool result already told the model what was
/// wrong).
pub(crate) fn normalized_arguments(arguments: &str) -> String {
    match serde_json::from_str::<Value>(arguments) {
        Ok(_) => arguments.to_string(),
        Err(_) => "{}".to_string(),
    }
}

/// Decodes a Chat Completions SSE byte stream (for tests and tools that
/// already hold the bytes).
pub fn decode_stream<S, B>(label: &str, bytes: S) -> ReplyStream
where
    S: Stream<Item = Result<B, ByteError>> + Send + 'static,
    B: AsRef<[u8]> + Send + 'static,
{
    sse::decode(label, bytes, ChatCompletionsParser::new(label))
}

/// The stateful chunk parser.
pub struct ChatCompletionsParser {
    label: String,
    /// Tool-call ids seen, with the index they were given.
    ids: Vec<(String, usize)>,
    /// The highest tool-call index seen.
    max_index: Option<usize>,
    /// The index of the last tool call a chunk touched.
    last_index: Option<usize>,
    saw_tool_calls: bool,
    /// The index given to a legacy `function_call`.
    legacy_index: Option<usize>,
}

impl ChatCompletionsParser {
    pub fn new(label: &str) -> Self {
        ChatCompletionsParser {
            label: label.to_string(),
            ids: Vec::new(),
            max_index: None,
            last_index: None,
            saw_tool_calls: false,
            legacy_index: None,
        }
    }

    fn protocol(&self, message: String) -> ProviderError {
        ProviderError::Protocol {
            provider: self.label.clone(),
            message,
        }
    }

    fn next_free_index(&self) -> usize {
        self.max_index.map_or(0, |i| i + 1)
    }

    fn note_index(&mut self, index: usize, id: Option<&str>) {
        self.max_index = Some(self.max_index.map_or(index, |m| m.max(index)));
        self.last_index = Some(index);
        if let Some(id) = id
            && !self.ids.iter().any(|(known, _)| known == id)
        {
            self.ids.push((id.to_string(), index));
        }
    }

    fn tool_call(&mut self, call: &Value, out: &mut VecDeque<StreamEvent>) {
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let function = call.get("function");
        let name = function
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let index = match call.get("index").and_then(Value::as_u64) {
            Some(i) => usize::try_from(i).unwrap_or(usize::MAX),
            None => match id {
                Some(id) => match self.ids.iter().find(|(known, _)| known == id) {
                    Some((_, i)) => *i,
                    None => self.next_free_index(),
                },
                None => self.last_index.unwrap_or(0),
            },
        };
        self.note_index(index, id);
        if id.is_some() || name.is_some() {
            out.push_back(StreamEvent::ToolCallStart {
                index,
                id: id.map(String::from),
                name: name.map(String::from),
            });
        }
        if let Some(arguments) = function.and_then(|f| f.get("arguments")) {
            push_arguments(index, arguments, out);
        }
    }

    fn legacy_function_call(&mut self, call: &Value, out: &mut VecDeque<StreamEvent>) {
        let index = match self.legacy_index {
            Some(i) => i,
            None => {
                let i = self.next_free_index();
                self.legacy_index = Some(i);
                self.note_index(i, None);
                i
            }
        };
        if let Some(name) = call
            .get("name")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            out.push_back(StreamEvent::ToolCallStart {
                index,
                id: None,
                name: Some(name.to_string()),
            });
        }
        if let Some(arguments) = call.get("arguments") {
            push_arguments(index, arguments, out);
        }
    }

    fn choice(&mut self, choice: &Value, out: &mut VecDeque<StreamEvent>) {
        if let Some(delta) = choice.get("delta").filter(|d| d.is_object()) {
            let reasoning = ["reasoning_content", "reasoning"]
                .iter()
                .filter_map(|k| delta.get(*k).and_then(Value::as_str))
                .find(|s| !s.is_empty());
            if let Some(r) = reasoning {
                out.push_back(StreamEvent::ReasoningDelta(r.to_string()));
            }
            match delta.get("content") {
                Some(Value::String(s)) if !s.is_empty() => {
                    out.push_back(StreamEvent::TextDelta(s.clone()));
                }
                // Some servers send content parts.
                Some(Value::Array(parts)) => {
                    for part in parts {
                        if let Some(t) = part
                            .get("text")
                            .and_then(Value::as_str)
                            .filter(|s| !s.is_empty())
                        {
                            out.push_back(StreamEvent::TextDelta(t.to_string()));
                        }
                    }
                }
                _ => {}
            }
            match delta.get("tool_calls") {
                Some(Value::Array(calls)) if !calls.is_empty() => {
                    self.saw_tool_calls = true;
                    for call in calls {
                        self.tool_call(call, out);
                    }
                }
                _ => {
                    if !self.saw_tool_calls
                        && let Some(fc) = delta.get("function_call").filter(|f| f.is_object())
                    {
                        self.legacy_function_call(fc, out);
                    }
                }
            }
        }
        if let Some(reason) = choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            out.push_back(StreamEvent::Finished(finish_reason(reason)));
        }
    }
}

fn push_arguments(index: usize, arguments: &Value, out: &mut VecDeque<StreamEvent>) {
    let text = match arguments {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        // A server that sends the arguments as an object.
        other => other.to_string(),
    };
    if !text.is_empty() {
        out.push_back(StreamEvent::ToolCallDelta {
            index,
            arguments: text,
        });
    }
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "stop" | "end_turn" | "stop_sequence" | "eos" => FinishReason::Stop,
        "tool_calls" | "function_call" | "tool_use" => FinishReason::ToolCalls,
        "length" | "max_tokens" => FinishReason::Length,
        _ => FinishReason::Other,
    }
}

/// The message of an `error` value: `error.message`, the string itself, or
/// the JSON text.
pub(crate) fn stream_error_message(error: &Value) -> String {
    let text = match error {
        Value::String(s) => s.clone(),
        Value::Object(o) => match o.get("message").and_then(Value::as_str) {
            Some(m) => m.to_string(),
            None => error.to_string(),
        },
        other => other.to_string(),
    };
    truncate_chars(&text.split_whitespace().collect::<Vec<_>>().join(" "), 300)
}

/// The usage of a chunk: its `usage` object (`prompt_tokens` counts the
/// whole prompt, `prompt_tokens_details.cached_tokens` the part read from
/// the cache), else llama.cpp's `timings` (`cache_n` tokens reused from its
/// prompt cache, `prompt_n` processed anew, `predicted_n` generated).
fn usage(chunk: &Value) -> Option<Usage> {
    let object = chunk.get("usage").filter(|u| u.is_object());
    let timings = chunk.get("timings").filter(|t| t.is_object());
    let field = |v: Option<&Value>, k: &str| v.and_then(|v| v.get(k)).and_then(Value::as_u64);
    let input = field(object, "prompt_tokens").or_else(|| field(object, "input_tokens"));
    let output = field(object, "completion_tokens").or_else(|| field(object, "output_tokens"));
    let cached = object
        .and_then(|u| {
            u.get("prompt_tokens_details")
                .or_else(|| u.get("input_tokens_details"))
        })
        .and_then(|d| d.get("cached_tokens"))
        .and_then(Value::as_u64);
    let cache_n = field(timings, "cache_n");
    let prompt_n = field(timings, "prompt_n");
    let timed_input = match (cache_n, prompt_n) {
        (None, None) => None,
        (c, p) => Some(c.unwrap_or(0).saturating_add(p.unwrap_or(0))),
    };
    let input = input.or(timed_input);
    let output = output.or_else(|| field(timings, "predicted_n"));
    if input.is_none() && output.is_none() {
        return None;
    }
    let input = input.unwrap_or(0);
    Some(Usage {
        input_tokens: input,
        output_tokens: output.unwrap_or(0),
        cache_read_input_tokens: cached.or(cache_n).unwrap_or(0).min(input),
        cache_creation_input_tokens: 0,
        ..Default::default()
    })
}

impl SseDialect for ChatCompletionsParser {
    fn on_event(
        &mut self,
        event: &SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Flow, ProviderError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            return Ok(Flow::Done);
        }
        let value: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(_) if event.event == "error" => {
                return Err(ProviderError::Stream {
                    provider: self.label.clone(),
                    message: truncate_chars(data, 300),
                });
            }
            Err(e) => {
                return Err(self.protocol(format!(
                    "a stream event is not JSON ({e}): {}",
                    truncate_chars(data, 120)
                )));
            }
        };
        if !value.is_object() {
            return Err(self.protocol(format!(
                "a stream event is not a JSON object: {}",
                truncate_chars(data, 120)
            )));
        }
        if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
            return Err(ProviderError::Stream {
                provider: self.label.clone(),
                message: stream_error_message(error),
            });
        }
        if event.event == "error" {
            return Err(ProviderError::Stream {
                provider: self.label.clone(),
                message: stream_error_message(&value),
            });
        }
        if let Some(choices) = value.get("choices").and_then(Value::as_array) {
            for choice in choices {
                let index = choice.get("index").and_then(Value::as_u64).unwrap_or(0);
                if index == 0 {
                    self.choice(choice, out);
                }
            }
        }
        if let Some(u) = usage(&value) {
            out.push_back(StreamEvent::Usage(u));
        }
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ToolCall, ToolSpec};

    fn event(data: &str) -> SseEvent {
        SseEvent {
            event: "message".into(),
            data: data.into(),
            at_eof: false,
        }
    }

    fn parse(lines: &[&str]) -> Result<Vec<StreamEvent>, ProviderError> {
        let mut p = ChatCompletionsParser::new("t");
        let mut out = VecDeque::new();
        for l in lines {
            p.on_event(&event(l), &mut out)?;
        }
        Ok(out.into_iter().collect())
    }

    #[test]
    fn missing_index_falls_back_to_ids() {
        let events = parse(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"X","arguments":"{"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"Y","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"arguments":""}}]}}]}"#,
        ])
        .unwrap();
        let starts: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCallStart { index, id, .. } => Some((*index, id.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            starts,
            vec![
                (0, Some("a".into())),
                (1, Some("b".into())),
                (0, Some("a".into()))
            ]
        );
        assert!(events.contains(&StreamEvent::ToolCallDelta {
            index: 0,
            arguments: "}".into()
        }));
    }

    #[test]
    fn legacy_function_call_alone_is_a_tool_call() {
        let events = parse(&[
            r#"{"choices":[{"delta":{"function_call":{"name":"Read","arguments":"{\"a\""}}}]}"#,
            r#"{"choices":[{"delta":{"function_call":{"arguments":":1}"}},"finish_reason":"function_call"}]}"#,
        ])
        .unwrap();
        assert_eq!(
            events,
            vec![
                StreamEvent::ToolCallStart {
                    index: 0,
                    id: None,
                    name: Some("Read".into())
                },
                StreamEvent::ToolCallDelta {
                    index: 0,
                    arguments: "{\"a\"".into()
                },
                StreamEvent::ToolCallDelta {
                    index: 0,
                    arguments: ":1}".into()
                },
                StreamEvent::Finished(FinishReason::ToolCalls),
            ]
        );
    }

    #[test]
    fn non_json_and_non_object_data_are_protocol_errors() {
        assert!(matches!(
            parse(&["hello"]),
            Err(ProviderError::Protocol { .. })
        ));
        assert!(matches!(
            parse(&["42"]),
            Err(ProviderError::Protocol { .. })
        ));
    }

    #[test]
    fn error_event_with_plain_text() {
        let mut p = ChatCompletionsParser::new("t");
        let e = SseEvent {
            event: "error".into(),
            data: "overloaded".into(),
            at_eof: false,
        };
        let r = p.on_event(&e, &mut VecDeque::new());
        assert!(matches!(r, Err(ProviderError::Stream { message, .. }) if message == "overloaded"));
    }

    #[test]
    fn body_shape() {
        let req = ModelRequest {
            model: "m".into(),
            system: "sys".into(),
            messages: vec![
                Message::User {
                    content: "hi".into(),
                },
                Message::Assistant {
                    text: String::new(),
                    tool_calls: vec![ToolCall {
                        id: "c1".into(),
                        name: "Read".into(),
                        arguments: "{broken".into(),
                    }],
                },
                Message::Tool {
                    call_id: "c1".into(),
                    content: "data".into(),
                    is_error: false,
                },
            ],
            tools: vec![ToolSpec {
                name: "Read".into(),
                description: "reads".into(),
                input_schema: json!({"type": "object"}),
            }],
            max_output_tokens: None,
            context_window: None,
            reasoning: Some("high".into()),
            cache_key: None,
        };
        let body = request_body(&req);
        assert_eq!(
            body["messages"][0],
            json!({"role":"system","content":"sys"})
        );
        assert_eq!(body["messages"][2]["content"], Value::Null);
        assert_eq!(
            body["messages"][2]["tool_calls"][0]["function"]["arguments"],
            "{}"
        );
        assert_eq!(
            body["messages"][3],
            json!({"role":"tool","tool_call_id":"c1","content":"data"})
        );
        assert!(body.get("max_tokens").is_none());
        assert_eq!(body["reasoning_effort"], "high");
        assert_eq!(body["tool_choice"], "auto");

        let bare = request_body(&ModelRequest {
            system: String::new(),
            tools: vec![],
            reasoning: None,
            max_output_tokens: Some(5),
            ..req
        });
        assert!(bare.get("tools").is_none());
        assert!(bare.get("tool_choice").is_none());
        assert_eq!(bare["max_tokens"], 5);
        assert_eq!(bare["messages"][0]["role"], "user");
    }
}
