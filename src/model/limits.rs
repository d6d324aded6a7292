//! The limits of one streamed model reply, per model: the output limit a
//! request asks for (and the client enforces, see [`super::guard`]), the
//! longest wait for the next piece of content, and the longest time one
//! request may take. The config file sets them per model
//! ([`StreamSettings`]); what it leaves unset comes from the defaults here
//! and a short table of well-known models.

use std::time::Duration;

use super::ModelRequest;
/// The config's accepted ranges, which the limits here stay within.
pub use crate::config::catalog::{MAX_OUTPUT_TOKENS_CEILING, MAX_TIMEOUT_SECS};
use crate::config::{MaxTokensField, Model, ProviderKind, StreamSettings};

/// The output limit of a model the table does not know.
pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 32_000;
/// The longest wait for content. As long as the byte-level silence allowed
/// before, so that a slow first token (a long prompt on a local server, a
/// reasoning model thinking quietly) is not cut where it worked before.
pub const DEFAULT_CONTENT_IDLE: Duration = Duration::from_secs(300);
/// The longest one request may take.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// The output limit is not shrunk below this to fit the context window.
const MIN_OUTPUT_TOKENS: u32 = 1024;
/// Bytes counted as one token when checking what arrives.
pub const BYTES_PER_TOKEN: u64 = 3;
/// What arrives may pass the limit by this factor before the stream is
/// stopped: tokenizers pack runs of spaces and common words into tokens
/// longer than three bytes, and the server is expected to stop first.
pub const OUTPUT_SLACK: u64 = 2;
/// The most one server-sent event may ever hold.
pub const MAX_EVENT_BYTES: usize = 16 << 20;

/// The effective limits of one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamLimits {
    /// Asked for in a request that sets no limit of its own.
    pub max_output_tokens: u32,
    /// How an OpenAI-compatible request names the limit.
    pub max_tokens_field: MaxTokensField,
    /// No content (text, reasoning, tool calls) for this long ends the
    /// reply; keep-alives and other bytes do not count.
    pub content_idle: Duration,
    /// One request, retries included, may take this long.
    pub request_timeout: Duration,
    /// The model's context window in tokens (0: unknown): the limit asked
    /// for shrinks to what is left next to the prompt.
    pub context_window: u64,
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits {
            max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS,
            max_tokens_field: MaxTokensField::MaxTokens,
            content_idle: DEFAULT_CONTENT_IDLE,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            context_window: 0,
        }
    }
}

impl StreamLimits {
    /// The limits of `model`: its settings, else what the table knows of
    /// its id, else the defaults.
    pub fn for_model(kind: ProviderKind, model: &Model) -> Self {
        Self::from_settings(
            kind,
            &model.id,
            &model.stream,
            model.context_window.unwrap_or(0),
        )
    }

    pub fn from_settings(
        kind: ProviderKind,
        model_id: &str,
        settings: &StreamSettings,
        context_window: u64,
    ) -> Self {
        let secs = |v: Option<u64>, default: Duration| v.map_or(default, Duration::from_secs);
        StreamLimits {
            max_output_tokens: settings
                .max_output_tokens
                .or_else(|| known_output_limit(kind, model_id))
                .unwrap_or(DEFAULT_MAX_OUTPUT_TOKENS)
                .clamp(1, MAX_OUTPUT_TOKENS_CEILING),
            max_tokens_field: settings
                .max_tokens_field
                .unwrap_or_else(|| default_max_tokens_field(kind, model_id)),
            content_idle: secs(settings.content_idle_timeout_secs, DEFAULT_CONTENT_IDLE),
            request_timeout: secs(settings.request_timeout_secs, DEFAULT_REQUEST_TIMEOUT),
            context_window,
        }
    }

    /// The output limit sent with `request`: its own limit or the model's,
    /// shrunk (not below 1024 tokens) to what the context window (the
    /// config's, else the request's) leaves next to a cautious estimate of
    /// the prompt (3 bytes a token), since some servers (vLLM) refuse a
    /// request whose prompt and limit do not fit.
    pub fn request_output_limit(&self, request: &ModelRequest) -> u32 {
        let asked = request
            .max_output_tokens
            .unwrap_or(self.max_output_tokens)
            .max(1);
        // The config's window, else the one the runtime learned.
        let window = match self.context_window {
            0 => request.context_window.unwrap_or(0),
            configured => configured,
        };
        if window == 0 {
            return asked;
        }
        let room = window.saturating_sub(estimate_prompt_tokens(request));
        let floor = u64::from(MIN_OUTPUT_TOKENS.min(asked));
        let fits = u32::try_from(room.max(floor)).unwrap_or(u32::MAX);
        asked.min(fits)
    }
}

/// Bytes of output accepted for a limit of `tokens` before the stream is
/// stopped: tokens counted as [`BYTES_PER_TOKEN`] bytes, with
/// [`OUTPUT_SLACK`] times the limit allowed, plus 4 KB.
pub fn output_cutoff_bytes(tokens: u32) -> u64 {
    u64::from(tokens) * BYTES_PER_TOKEN * OUTPUT_SLACK + 4096
}

/// The most one server-sent event may hold under an output limit of
/// `tokens`: the output cutoff, six times over (the most JSON escaping can
/// blow text up by) plus 1 MB for the rest of the event, and never more
/// than [`MAX_EVENT_BYTES`]. No event of a reply within the limit comes
/// near it.
pub fn max_event_bytes(tokens: u32) -> usize {
    let cap = output_cutoff_bytes(tokens)
        .saturating_mul(6)
        .saturating_add(1 << 20);
    usize::try_from(cap).map_or(MAX_EVENT_BYTES, |c| c.min(MAX_EVENT_BYTES))
}

/// A token per [`BYTES_PER_TOKEN`] bytes of what the request sends: more
/// tokens than most text makes, so that the prompt and the limit fit even
/// where the prompt is dense (code, JSON schemas, the request's own
/// framing) and the window small.
fn estimate_prompt_tokens(request: &ModelRequest) -> u64 {
    use super::Message;
    let messages: usize = request
        .messages
        .iter()
        .map(|m| match m {
            Message::User { content } => content.len(),
            Message::Assistant { text, tool_calls } => {
                text.len()
                    + tool_calls
                        .iter()
                        .map(|c| c.name.len() + c.arguments.len() + c.id.len())
                        .sum::<usize>()
            }
            Message::Tool { content, .. } => content.len(),
        })
        .sum();
    let tools: usize = request
        .tools
        .iter()
        .map(|t| t.name.len() + t.description.len() + t.input_schema.to_string().len())
        .sum();
    ((request.system.len() + messages + tools) as u64) / BYTES_PER_TOKEN
}

/// The id without a router's `vendor/` prefix, lower-cased.
fn bare_id(model_id: &str) -> String {
    model_id
        .rsplit('/')
        .next()
        .unwrap_or(model_id)
        .to_ascii_lowercase()
}

/// The documented output limit of well-known models (by id prefix).
pub fn known_output_limit(kind: ProviderKind, model_id: &str) -> Option<u32> {
    let id = bare_id(model_id);
    let table: &[(&str, u32)] = match kind {
        ProviderKind::Openai => &[
            ("gpt-4.1", 32_768),
            ("gpt-4o", 16_384),
            ("chatgpt-4o", 16_384),
            ("gpt-4-turbo", 4096),
            ("gpt-4-1106", 4096),
            ("gpt-4-0125", 4096),
            ("gpt-4", 8192),
            ("gpt-3.5-turbo", 4096),
            ("gpt-5", 128_000),
            ("o1-mini", 65_536),
            ("o1", 100_000),
            ("o3", 100_000),
            ("o4-mini", 100_000),
            ("deepseek-chat", 8192),
            ("deepseek-reasoner", 65_536),
        ],
        ProviderKind::Anthropic => &[
            ("claude-opus-4-5", 64_000),
            ("claude-opus-4", 32_000),
            ("claude-sonnet-4", 64_000),
            ("claude-haiku-4", 64_000),
            ("claude-3-7-sonnet", 64_000),
            ("claude-3-5", 8192),
            ("claude-3-", 4096),
        ],
    };
    table
        .iter()
        .find(|(prefix, _)| id.starts_with(prefix))
        .map(|(_, limit)| *limit)
}

/// `max_completion_tokens` for OpenAI's own reasoning models (which refuse
/// `max_tokens`), asked for by their bare ids; `max_tokens` otherwise.
fn default_max_tokens_field(kind: ProviderKind, model_id: &str) -> MaxTokensField {
    let reasoning = ["o1", "o3", "o4", "gpt-5"];
    let id = model_id.to_ascii_lowercase();
    if kind == ProviderKind::Openai
        && !id.contains('/')
        && reasoning
            .iter()
            .any(|p| id == *p || id.starts_with(&format!("{p}-")))
    {
        MaxTokensField::MaxCompletionTokens
    } else {
        MaxTokensField::MaxTokens
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Message, ToolSpec};

    fn request(prompt_bytes: usize, own: Option<u32>) -> ModelRequest {
        ModelRequest {
            model: "m".into(),
            system: String::new(),
            messages: vec![Message::User {
                content: "x".repeat(prompt_bytes),
            }],
            tools: vec![ToolSpec {
                name: "T".into(),
                description: String::new(),
                input_schema: serde_json::json!({}),
            }],
            max_output_tokens: own,
            context_window: None,
            reasoning: None,
            cache_key: None,
        }
    }

    #[test]
    fn settings_beat_the_table_and_the_table_beats_the_default() {
        let mut s = StreamSettings::default();
        let l = StreamLimits::from_settings(ProviderKind::Openai, "gpt-4o-mini", &s, 0);
        assert_eq!(l.max_output_tokens, 16_384);
        let l = StreamLimits::from_settings(ProviderKind::Openai, "qwen3-coder", &s, 0);
        assert_eq!(l.max_output_tokens, DEFAULT_MAX_OUTPUT_TOKENS);
        assert_eq!(l.content_idle, DEFAULT_CONTENT_IDLE);
        assert_eq!(l.request_timeout, DEFAULT_REQUEST_TIMEOUT);
        s.max_output_tokens = Some(500);
        s.content_idle_timeout_secs = Some(7);
        s.request_timeout_secs = Some(9);
        let l = StreamLimits::from_settings(ProviderKind::Openai, "gpt-4o-mini", &s, 0);
        assert_eq!(l.max_output_tokens, 500);
        assert_eq!(l.content_idle, Duration::from_secs(7));
        assert_eq!(l.request_timeout, Duration::from_secs(9));
    }

    #[test]
    fn known_limits_by_prefix_and_router_prefix() {
        let a = ProviderKind::Anthropic;
        assert_eq!(known_output_limit(a, "claude-sonnet-4-5"), Some(64_000));
        assert_eq!(
            known_output_limit(a, "claude-opus-4-1-20250805"),
            Some(32_000)
        );
        assert_eq!(
            known_output_limit(a, "claude-opus-4-5-20251101"),
            Some(64_000)
        );
        assert_eq!(known_output_limit(a, "claude-3-5-haiku-latest"), Some(8192));
        assert_eq!(known_output_limit(a, "claude-3-opus-20240229"), Some(4096));
        let o = ProviderKind::Openai;
        assert_eq!(known_output_limit(o, "openai/gpt-4o"), Some(16_384));
        assert_eq!(known_output_limit(o, "gpt-4.1-mini"), Some(32_768));
        assert_eq!(known_output_limit(o, "llama-3.1-8b"), None);
    }

    #[test]
    fn reasoning_models_of_openai_name_max_completion_tokens() {
        let o = ProviderKind::Openai;
        let field = |id: &str| default_max_tokens_field(o, id);
        assert_eq!(field("o3-mini"), MaxTokensField::MaxCompletionTokens);
        assert_eq!(field("gpt-5"), MaxTokensField::MaxCompletionTokens);
        assert_eq!(field("gpt-4.1"), MaxTokensField::MaxTokens);
        assert_eq!(field("openai/o3"), MaxTokensField::MaxTokens);
        assert_eq!(field("o3x"), MaxTokensField::MaxTokens);
        assert_eq!(
            default_max_tokens_field(ProviderKind::Anthropic, "o3"),
            MaxTokensField::MaxTokens
        );
    }

    #[test]
    fn the_limit_asked_for_fits_next_to_the_prompt() {
        let limits = StreamLimits {
            context_window: 10_000,
            max_output_tokens: 8000,
            ..StreamLimits::default()
        };
        assert_eq!(limits.request_output_limit(&request(4000, None)), 8000);
        // 21 000 bytes ≈ 7000 tokens: 3000 left.
        let left = limits.request_output_limit(&request(21_000, None));
        assert!((2990..=3000).contains(&left), "{left}");
        assert_eq!(limits.request_output_limit(&request(80_000, None)), 1024);
        assert_eq!(
            limits.request_output_limit(&request(80_000, Some(300))),
            300
        );
        let unknown = StreamLimits::default();
        assert_eq!(
            unknown.request_output_limit(&request(1 << 20, None)),
            DEFAULT_MAX_OUTPUT_TOKENS
        );
    }

    #[test]
    fn small3_a_learned_window_leaves_room_for_the_reply() {
        // The config gives no window; the runtime learned 8192 tokens.
        let limits = StreamLimits::default();
        let mut req = request(12_000, None);
        req.context_window = Some(8192);
        let limit = limits.request_output_limit(&req);
        // About 4000 tokens of prompt: the rest of the window, not 32000.
        assert!((4180..=4192).contains(&limit), "{limit}");
        // Never below the floor, so a reply always has room to start.
        req.messages = request(40_000, None).messages;
        assert_eq!(limits.request_output_limit(&req), 1024);
        // A window in the config wins over the request's.
        let configured = StreamLimits {
            context_window: 100_000,
            ..StreamLimits::default()
        };
        assert_eq!(
            configured.request_output_limit(&req),
            DEFAULT_MAX_OUTPUT_TOKENS
        );
    }

    #[test]
    fn cutoff_has_slack() {
        assert_eq!(output_cutoff_bytes(1000), 6000 + 4096);
    }

    #[test]
    fn event_cap_follows_the_output_limit_up_to_16_mb() {
        assert_eq!(max_event_bytes(1000), (6000 + 4096) * 6 + (1 << 20));
        assert_eq!(max_event_bytes(MAX_OUTPUT_TOKENS_CEILING), MAX_EVENT_BYTES);
        assert!(max_event_bytes(DEFAULT_MAX_OUTPUT_TOKENS) < 3 << 20);
    }
}
