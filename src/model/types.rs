//! The provider-neutral conversation and streaming types. Both dialects
//! (Chat Completions, Anthropic Messages) translate to and from these.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One tool call requested by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments as the model sent them (a JSON text; may be invalid —
    /// the runtime reports that back to the model as a tool error).
    pub arguments: String,
}

/// A message of the conversation sent to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    User {
        content: String,
    },
    Assistant {
        #[serde(default, skip_serializing_if = "String::is_empty")]
        text: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call, answering `call_id`.
    Tool {
        call_id: String,
        content: String,
        #[serde(default)]
        is_error: bool,
    },
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the input object.
    pub input_schema: Value,
}

/// One request for a model reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelRequest {
    /// The model id as the provider knows it (without the provider prefix).
    pub model: String,
    pub system: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub max_output_tokens: Option<u32>,
    /// The model's context window in tokens when the runtime knows it (the
    /// server may have said): the output limit asked for shrinks to fit
    /// next to the prompt when the provider's own settings give no window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// A reasoning level of the model (MODEL-1), when it has them.
    pub reasoning: Option<String>,
    /// What keeps this request's prompt cache apart from other sessions'
    /// (the session id): OpenAI's `prompt_cache_key`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_key: Option<String>,
}

/// Token counts reported by the provider.
///
/// `input_tokens` is the whole prompt, cached or not (what fills the
/// context window); the two cache counts say how much of it was read from
/// the provider's prompt cache and how much was written to it, so the
/// uncached rest is [`Usage::uncached_input_tokens`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Prompt tokens served from the cache (Anthropic
    /// `cache_read_input_tokens`, OpenAI `cached_tokens`, llama.cpp
    /// `cache_n`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_input_tokens: u64,
    /// Prompt tokens written to the cache (Anthropic
    /// `cache_creation_input_tokens`; billed above the input price).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_creation_input_tokens: u64,
    /// What the replies with a known price cost, in millionths of a US
    /// dollar (`config::prices`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cost_micros: u64,
    /// Replies of a model without a known price: their cost is not in
    /// `cost_micros`, and a total that has some is not the whole cost.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unpriced_replies: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_input_tokens += other.cache_read_input_tokens;
        self.cache_creation_input_tokens += other.cache_creation_input_tokens;
        self.cost_micros = self.cost_micros.saturating_add(other.cost_micros);
        self.unpriced_replies += other.unpriced_replies;
    }

    /// Prompt tokens neither read from nor written to the cache.
    pub fn uncached_input_tokens(&self) -> u64 {
        self.input_tokens
            .saturating_sub(self.cache_read_input_tokens)
            .saturating_sub(self.cache_creation_input_tokens)
    }

    /// The share of the prompt served from the cache, in whole percent;
    /// `None` without a prompt.
    pub fn cache_read_percent(&self) -> Option<u64> {
        if self.input_tokens == 0 {
            return None;
        }
        let read = self.cache_read_input_tokens.min(self.input_tokens);
        Some(read.saturating_mul(100) / self.input_tokens)
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A final answer (or a stop sequence).
    Stop,
    /// The model asked for tools.
    ToolCalls,
    /// Cut by the output-token limit.
    Length,
    /// Anything else the provider said (content filter …), or nothing.
    Other,
}

/// One piece of a streamed reply, in both dialects.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    TextDelta(String),
    ReasoningDelta(String),
    /// A tool call began (`index` orders parallel calls; the id may come
    /// later or be repeated on every chunk by lenient servers).
    ToolCallStart {
        index: usize,
        id: Option<String>,
        name: Option<String>,
    },
    /// A fragment of a tool call's JSON arguments.
    ToolCallDelta {
        index: usize,
        arguments: String,
    },
    Usage(Usage),
    Finished(FinishReason),
}

/// A whole reply, built from the stream by [`super::accumulate::ReplyBuilder`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AssistantReply {
    pub text: String,
    pub reasoning: String,
    pub tool_calls: Vec<ToolCall>,
    pub finish_reason: Option<FinishReason>,
    pub usage: Usage,
}
