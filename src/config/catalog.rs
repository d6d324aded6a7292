//! The model catalog (MODEL-1): providers from the config file plus the
//! providers implied by well-known environment variables.

use serde::Deserialize;

pub use super::prices::Prices;

/// Which wire protocol a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// OpenAI-compatible Chat Completions (`{base}/chat/completions`).
    Openai,
    /// Anthropic Messages (`{base}/v1/messages`).
    Anthropic,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Openai => "openai",
            ProviderKind::Anthropic => "anthropic",
        }
    }
}

/// One model offered by a provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    pub id: String,
    /// `contextWindow` in tokens; `None` when the config does not say
    /// (the server is then asked, see `model::context_window`).
    pub context_window: Option<u64>,
    /// Accepted reasoning levels, in the order the file lists them; empty
    /// when the model takes none.
    pub reasoning_levels: Vec<String>,
    /// One of `reasoning_levels` (validated).
    pub default_reasoning: Option<String>,
    /// When set, the model is listed but cannot be picked; the text says why.
    pub disabled: Option<String>,
    /// Limits of one streamed reply; unset ones take the defaults.
    pub stream: StreamSettings,
    /// What its tokens cost (`prices` in the config, else the list price
    /// of a well-known model on its maker's API); `None`: not known.
    pub prices: Option<Prices>,
}

/// The largest `maxOutputTokens` the config accepts.
pub const MAX_OUTPUT_TOKENS_CEILING: u32 = 1_000_000;
/// The largest timeout the config accepts, in seconds (a day).
pub const MAX_TIMEOUT_SECS: u64 = 86_400;

/// The limits of one streamed reply of a model as the config file sets
/// them (`None`: the default, see `model::limits`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamSettings {
    /// `maxOutputTokens`: asked for in every request and enforced on what
    /// arrives.
    pub max_output_tokens: Option<u32>,
    /// `maxTokensField`: how an OpenAI-compatible request names the limit.
    pub max_tokens_field: Option<MaxTokensField>,
    /// `contentIdleTimeoutSecs`: longest wait for the next piece of the
    /// reply; keep-alives do not count.
    pub content_idle_timeout_secs: Option<u64>,
    /// `requestTimeoutSecs`: longest time one request may take, from
    /// sending it to the end of the reply, retries included.
    pub request_timeout_secs: Option<u64>,
}

/// The request field of an OpenAI-compatible output limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxTokensField {
    /// `max_tokens`: what nearly every compatible server reads.
    MaxTokens,
    /// `max_completion_tokens`: what OpenAI's reasoning models require.
    MaxCompletionTokens,
}

impl MaxTokensField {
    pub fn as_str(self) -> &'static str {
        match self {
            MaxTokensField::MaxTokens => "max_tokens",
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "max_tokens" => Some(MaxTokensField::MaxTokens),
            "max_completion_tokens" => Some(MaxTokensField::MaxCompletionTokens),
            _ => None,
        }
    }
}

/// A provider: where to send requests and which models it serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provider {
    /// Non-empty, unique (case-insensitive), no `/`: the part of a model
    /// reference before the first `/`.
    pub id: String,
    /// Human-readable name; the id when the file gives none.
    pub name: String,
    pub kind: ProviderKind,
    /// `http://` or `https://` URL. For `openai` it includes the version
    /// path (`/v1`); for `anthropic` it does not.
    pub base_url: String,
    /// The environment variable that holds the API key, if any.
    pub api_key_env: Option<String>,
    /// True when requests may go out without a key even though
    /// `api_key_env` names a variable (a local server reached through
    /// `OPENAI_BASE_URL` alone).
    pub api_key_optional: bool,
    pub models: Vec<Model>,
}

impl Provider {
    /// `{base_url}/chat/completions`, tolerant of a trailing slash.
    pub fn chat_completions_url(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }

    /// `{base_url}/v1/messages`, tolerant of a trailing slash.
    pub fn messages_url(&self) -> String {
        format!("{}/v1/messages", self.base_url.trim_end_matches('/'))
    }

    pub fn model(&self, id: &str) -> Option<&Model> {
        self.models.iter().find(|m| m.id == id)
    }

    /// The API key from `env`. `Ok(None)` when the provider needs none or
    /// the key is optional and unset; an error naming the variable when a
    /// required key is missing.
    pub fn api_key(
        &self,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<String>, MissingApiKey> {
        let Some(var) = &self.api_key_env else {
            return Ok(None);
        };
        match env(var).filter(|v| !v.trim().is_empty()) {
            Some(key) => Ok(Some(key)),
            None if self.api_key_optional => Ok(None),
            None => Err(MissingApiKey {
                provider: self.id.clone(),
                var: var.clone(),
            }),
        }
    }
}

/// A provider's required API key variable is unset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("provider '{provider}' needs an API key: set the environment variable {var}")]
pub struct MissingApiKey {
    pub provider: String,
    pub var: String,
}

/// Every provider available to a session: the config file's first, then the
/// environment's (MODEL-1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Catalog {
    pub providers: Vec<Provider>,
}

impl Catalog {
    /// Config providers plus every env provider whose id the config does not
    /// already define (compared case-insensitively).
    pub fn merge(config_providers: &[Provider], env_providers: Vec<Provider>) -> Self {
        let mut providers = config_providers.to_vec();
        for p in env_providers {
            if !providers.iter().any(|c| c.id.eq_ignore_ascii_case(&p.id)) {
                providers.push(p);
            }
        }
        Catalog { providers }
    }

    pub fn provider(&self, id: &str) -> Option<&Provider> {
        self.providers
            .iter()
            .find(|p| p.id.eq_ignore_ascii_case(id))
    }

    /// Resolves a model reference `provider/model`. The provider id is
    /// matched case-insensitively; the model id (which may itself contain
    /// `/`) exactly.
    pub fn resolve(&self, reference: &str) -> Option<(&Provider, &Model)> {
        let (provider_id, model_id) = reference.split_once('/')?;
        let provider = self.provider(provider_id)?;
        Some((provider, provider.model(model_id)?))
    }
}

pub const OPENAI_DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
pub const OPENAI_DEFAULT_MODEL: &str = "gpt-4.1";
pub const ANTHROPIC_DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const ANTHROPIC_DEFAULT_MODEL: &str = "claude-sonnet-4-5";
/// The window of every current Claude model on Anthropic's own API; a
/// server behind `ANTHROPIC_BASE_URL` is asked instead.
pub const ANTHROPIC_DEFAULT_CONTEXT_WINDOW: u64 = 200_000;
/// OpenAI's own API (no `OPENAI_BASE_URL`): the smallest window of its
/// current chat models.
pub const OPENAI_DEFAULT_CONTEXT_WINDOW: u64 = 128_000;

/// Providers implied by the environment (MODEL-1 shortcuts).
///
/// - `OPENAI_API_KEY` and/or `OPENAI_BASE_URL` add provider `openai`
///   (`OPENAI_BASE_URL` includes `/v1`; `OPENAI_MODEL` picks the model).
///   With only a base URL (a local server) the key is optional. Its
///   context window is not known here: the server is asked.
/// - `ANTHROPIC_API_KEY` adds provider `anthropic` (`ANTHROPIC_BASE_URL`
///   without `/v1`; `ANTHROPIC_MODEL` picks the model).
///
/// Empty or blank values count as unset. Values are not validated here: a
/// malformed base URL surfaces when the provider is first used.
pub fn env_providers(env: impl Fn(&str) -> Option<String>) -> Vec<Provider> {
    let get = |key: &str| {
        env(key)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let mut out = Vec::new();

    let openai_key = get("OPENAI_API_KEY");
    let openai_base = get("OPENAI_BASE_URL");
    if openai_key.is_some() || openai_base.is_some() {
        // OpenAI's own API says nothing of windows; its current models
        // take at least 128k. Another server is asked (`context_window`).
        let window = openai_base
            .is_none()
            .then_some(OPENAI_DEFAULT_CONTEXT_WINDOW);
        out.push(env_provider(
            "openai",
            "OpenAI",
            ProviderKind::Openai,
            openai_base.unwrap_or_else(|| OPENAI_DEFAULT_BASE_URL.to_string()),
            "OPENAI_API_KEY",
            openai_key.is_none(),
            get("OPENAI_MODEL").unwrap_or_else(|| OPENAI_DEFAULT_MODEL.to_string()),
            window,
        ));
    }

    if get("ANTHROPIC_API_KEY").is_some() {
        let base_url = get("ANTHROPIC_BASE_URL");
        let window = base_url
            .is_none()
            .then_some(ANTHROPIC_DEFAULT_CONTEXT_WINDOW);
        out.push(env_provider(
            "anthropic",
            "Anthropic",
            ProviderKind::Anthropic,
            base_url.unwrap_or_else(|| ANTHROPIC_DEFAULT_BASE_URL.to_string()),
            "ANTHROPIC_API_KEY",
            false,
            get("ANTHROPIC_MODEL").unwrap_or_else(|| ANTHROPIC_DEFAULT_MODEL.to_string()),
            window,
        ));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn env_provider(
    id: &str,
    name: &str,
    kind: ProviderKind,
    base_url: String,
    api_key_env: &str,
    api_key_optional: bool,
    model: String,
    context_window: Option<u64>,
) -> Provider {
    let prices = super::prices::well_known(kind, &base_url, &model);
    Provider {
        id: id.to_string(),
        name: name.to_string(),
        kind,
        base_url,
        api_key_env: Some(api_key_env.to_string()),
        api_key_optional,
        models: vec![Model {
            prices,
            id: model,
            context_window,
            reasoning_levels: Vec::new(),
            default_reasoning: None,
            disabled: None,
            stream: StreamSettings::default(),
        }],
    }
}
