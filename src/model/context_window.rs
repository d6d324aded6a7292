//! The context window of a model the config does not describe, asked of
//! the server where it says: llama.cpp's `GET /props` (the context each
//! slot was started with), else the model's entry in `GET /v1/models`
//! (vLLM's `max_model_len`, the `context_length` / `max_context_length`
//! of OpenRouter and LM Studio, llama.cpp's `meta.n_ctx`, and as a last
//! resort llama.cpp's `meta.n_ctx_train`, the context the model was
//! trained with, which the server may not have been started with).
//!
//! A server that says nothing leaves the window unknown; nothing guesses
//! one.
//!
//! The same `/v1/models` answer names the model a local server serves: a
//! provider left at the default model name (`gpt-4.1`) on a server that is
//! not OpenAI's (a llama.cpp server behind `OPENAI_BASE_URL`) is shown with
//! the name of the one model the server lists. The name is for people; the
//! requests keep the configured id. Both endpoints are asked at once, each answer within
//! [`LOOKUP_TIMEOUT`]; dropping the future drops both requests. Answers
//! (found or not) are kept for the rest of the process.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use serde_json::Value;

use crate::config::catalog::OPENAI_DEFAULT_MODEL;
use crate::config::{Provider, ProviderKind};

/// Longest wait for either endpoint, the connection included.
pub const LOOKUP_TIMEOUT: Duration = Duration::from_secs(2);
/// Most bytes of an answer read (an OpenRouter model list is large).
const MAX_BODY: usize = 8 * 1024 * 1024;
/// A window above this is not taken seriously.
const MAX_WINDOW: u64 = 100_000_000;

/// A window the server reported, and where it said so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FoundWindow {
    pub tokens: u64,
    /// `/props` or `/v1/models`, for the user.
    pub source: &'static str,
}

/// Where and how to ask one provider about one model.
#[derive(Clone, PartialEq, Eq)]
pub struct WindowLookup {
    pub model_id: String,
    pub props_url: String,
    pub models_url: String,
    headers: Vec<(&'static str, String)>,
    /// The configured name is only the default: ask for the served one.
    wants_served_name: bool,
}

/// What one lookup found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LookupAnswer {
    pub window: Option<FoundWindow>,
    /// The name the server serves the model under, when asked for and
    /// different from the configured one.
    pub served_name: Option<String>,
}

/// Without the header values: they hold the API key.
impl std::fmt::Debug for WindowLookup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(name, _)| *name).collect();
        f.debug_struct("WindowLookup")
            .field("model_id", &self.model_id)
            .field("props_url", &self.props_url)
            .field("models_url", &self.models_url)
            .field("headers", &names)
            .field("wants_served_name", &self.wants_served_name)
            .finish()
    }
}

impl WindowLookup {
    /// The lookup for `model_id` of `provider`; `api_key` is sent as that
    /// dialect sends it.
    pub fn new(provider: &Provider, model_id: &str, api_key: Option<&str>) -> Self {
        let base = provider.base_url.trim_end_matches('/');
        let (root, models_url) = match provider.kind {
            // `…/v1` by convention: `/props` lives at the server's root.
            ProviderKind::Openai => (
                base.strip_suffix("/v1").unwrap_or(base).to_string(),
                format!("{base}/models"),
            ),
            ProviderKind::Anthropic => (base.to_string(), format!("{base}/v1/models")),
        };
        let mut headers = Vec::new();
        match (provider.kind, api_key) {
            (ProviderKind::Openai, Some(key)) => {
                headers.push(("authorization", format!("Bearer {key}")))
            }
            (ProviderKind::Anthropic, key) => {
                headers.push((
                    "anthropic-version",
                    super::anthropic::ANTHROPIC_VERSION.to_string(),
                ));
                if let Some(key) = key {
                    headers.push(("x-api-key", key.to_string()));
                }
            }
            (ProviderKind::Openai, None) => {}
        }
        WindowLookup {
            model_id: model_id.to_string(),
            props_url: format!("{root}/props"),
            models_url,
            headers,
            wants_served_name: provider.kind == ProviderKind::Openai
                && model_id == OPENAI_DEFAULT_MODEL
                && !is_openai_api(&provider.base_url),
        }
    }

    /// Whether the lookup also asks which model the server serves: the
    /// configured name is the default and the server is not OpenAI's.
    pub fn wants_served_name(&self) -> bool {
        self.wants_served_name
    }

    fn cache_key(&self) -> String {
        format!("{}\n{}\n{}", self.props_url, self.models_url, self.model_id)
    }

    /// The answer of an earlier lookup in this process, if there was one.
    pub fn cached(&self) -> Option<Option<FoundWindow>> {
        lock(cache())
            .get(&self.cache_key())
            .map(|answer| answer.window)
    }

    /// Asks the server (or the cache). `None`: the server does not say.
    /// Takes at most about [`LOOKUP_TIMEOUT`].
    pub async fn run(&self) -> Option<FoundWindow> {
        self.run_full().await.window
    }

    /// [`Self::run`], with the served model's name when asked for.
    pub async fn run_full(&self) -> LookupAnswer {
        if let Some(known) = lock(cache()).get(&self.cache_key()) {
            return known.clone();
        }
        let found = self.ask().await;
        lock(cache()).insert(self.cache_key(), found.clone());
        found
    }

    async fn ask(&self) -> LookupAnswer {
        let Ok(client) = reqwest::Client::builder()
            .connect_timeout(LOOKUP_TIMEOUT)
            .timeout(LOOKUP_TIMEOUT)
            .build()
        else {
            return LookupAnswer::default();
        };
        let (props, models) = tokio::join!(
            self.get_json(&client, &self.props_url),
            self.get_json(&client, &self.models_url)
        );
        let from_props = props
            .as_ref()
            .and_then(window_from_props)
            .map(|tokens| FoundWindow {
                tokens,
                source: "/props",
            });
        let from_models = || {
            models
                .as_ref()
                .and_then(|m| window_from_models(m, &self.model_id))
                .map(|tokens| FoundWindow {
                    tokens,
                    source: "/v1/models",
                })
        };
        LookupAnswer {
            window: from_props.or_else(from_models),
            served_name: models
                .as_ref()
                .filter(|_| self.wants_served_name)
                .and_then(|m| served_model_name(m, &self.model_id)),
        }
    }

    /// The JSON body of a 2xx answer; `None` for anything else.
    async fn get_json(&self, client: &reqwest::Client, url: &str) -> Option<Value> {
        let mut request = client.get(url).header("accept", "application/json");
        for (name, value) in &self.headers {
            request = request.header(*name, value.as_str());
        }
        // The client's timeout bounds the whole exchange, body included.
        let mut response = request.send().await.ok()?;
        if !response.status().is_success() {
            return None;
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.ok()? {
            body.extend_from_slice(&chunk);
            if body.len() > MAX_BODY {
                return None;
            }
        }
        serde_json::from_slice(&body).ok()
    }
}

fn cache() -> &'static Mutex<HashMap<String, LookupAnswer>> {
    static CACHE: OnceLock<Mutex<HashMap<String, LookupAnswer>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A positive whole number of tokens, within reason.
fn tokens(v: Option<&Value>) -> Option<u64> {
    let v = v?;
    let n = v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
            .map(|f| f as u64)
    })?;
    (1..=MAX_WINDOW).contains(&n).then_some(n)
}

/// Longest served name shown.
const MAX_SERVED_NAME: usize = 120;

/// `base_url` is OpenAI's own API (where the default name is the model).
fn is_openai_api(base_url: &str) -> bool {
    url::Url::parse(base_url)
        .ok()
        .and_then(|u| {
            u.host_str()
                .map(|h| h.eq_ignore_ascii_case("api.openai.com"))
        })
        .unwrap_or(false)
}

/// The name a one-model server (llama.cpp) lists its model under, when it
/// is not `model_id`: the entry's `id` (a file path shortened to the file's
/// name). `None` for a list of several models, one naming `model_id`, or a
/// name that is empty, too long or holds control characters.
pub fn served_model_name(models: &Value, model_id: &str) -> Option<String> {
    let list = models
        .get("data")
        .or_else(|| models.get("models"))
        .and_then(Value::as_array)?;
    let [only] = list.as_slice() else {
        return None;
    };
    let id = ["id", "model", "name"]
        .iter()
        .find_map(|k| only.get(*k).and_then(Value::as_str))?
        .trim();
    // llama.cpp names a model by the path it was loaded from.
    let name = if id.starts_with('/') || id.starts_with("./") || id.ends_with(".gguf") {
        id.rsplit('/').next().unwrap_or(id)
    } else {
        id
    };
    let usable = !name.is_empty()
        && name != model_id
        && name.chars().count() <= MAX_SERVED_NAME
        && !name.chars().any(char::is_control);
    usable.then(|| name.to_string())
}

/// llama.cpp's `/props`: `default_generation_settings.n_ctx` (the context
/// of one slot), else a top-level `n_ctx`.
pub fn window_from_props(props: &Value) -> Option<u64> {
    tokens(props.pointer("/default_generation_settings/n_ctx"))
        .or_else(|| tokens(props.get("n_ctx")))
}

/// The window `/v1/models` gives for `model_id`: the entry with that id,
/// or the only entry of a one-model list (llama.cpp names it by its file
/// unless an alias is set). Fields the server runs with come before
/// llama.cpp's training context.
pub fn window_from_models(models: &Value, model_id: &str) -> Option<u64> {
    let list = models
        .get("data")
        .or_else(|| models.get("models"))
        .and_then(Value::as_array)?;
    let entry = list
        .iter()
        .find(|m| {
            ["id", "model", "name"]
                .iter()
                .any(|k| m.get(*k).and_then(Value::as_str) == Some(model_id))
        })
        .or_else(|| (list.len() == 1).then(|| &list[0]))?;
    [
        "/max_model_len",
        "/loaded_context_length",
        "/context_length",
        "/max_context_length",
        "/top_provider/context_length",
        "/meta/n_ctx",
        "/meta/n_ctx_train",
    ]
    .iter()
    .find_map(|p| tokens(entry.pointer(p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn props_prefer_the_slot_context() {
        let p = json!({"default_generation_settings": {"n_ctx": 8192}, "n_ctx": 32768});
        assert_eq!(window_from_props(&p), Some(8192));
        assert_eq!(window_from_props(&json!({"n_ctx": 4096})), Some(4096));
        assert_eq!(
            window_from_props(&json!({"default_generation_settings": {}})),
            None
        );
        assert_eq!(window_from_props(&json!({"n_ctx": 0})), None);
        assert_eq!(window_from_props(&json!({"n_ctx": "big"})), None);
    }

    #[test]
    fn models_entry_by_id_or_the_only_one() {
        let vllm = json!({"data": [
            {"id": "a", "max_model_len": 1000},
            {"id": "b", "max_model_len": 2000},
        ]});
        assert_eq!(window_from_models(&vllm, "b"), Some(2000));
        assert_eq!(window_from_models(&vllm, "c"), None);
        let llama = json!({"data": [{"id": "/m/x.gguf", "meta": {"n_ctx_train": 131072}}]});
        assert_eq!(window_from_models(&llama, "gpt-4.1"), Some(131072));
        let both = json!({"data": [{"id": "x", "meta": {"n_ctx": 16384, "n_ctx_train": 131072}}]});
        assert_eq!(window_from_models(&both, "x"), Some(16384));
        let router = json!({"data": [{"id": "o/m", "context_length": 65536.0}]});
        assert_eq!(window_from_models(&router, "o/m"), Some(65536));
        assert_eq!(window_from_models(&json!({"data": []}), "x"), None);
        assert_eq!(window_from_models(&json!([]), "x"), None);
    }

    #[test]
    fn served_name_is_the_only_model_listed() {
        let llama =
            json!({"object": "list", "data": [{"id": "/models/qwen2.5-coder-7b-q4_k_m.gguf"}]});
        assert_eq!(
            served_model_name(&llama, "gpt-4.1").as_deref(),
            Some("qwen2.5-coder-7b-q4_k_m.gguf")
        );
        let alias = json!({"data": [{"id": "ggml-org/gemma-3-1b-it-GGUF"}]});
        assert_eq!(
            served_model_name(&alias, "gpt-4.1").as_deref(),
            Some("ggml-org/gemma-3-1b-it-GGUF")
        );
        assert_eq!(
            served_model_name(&json!({"data": [{"id": "gpt-4.1"}]}), "gpt-4.1"),
            None
        );
        let two = json!({"data": [{"id": "a"}, {"id": "b"}]});
        assert_eq!(served_model_name(&two, "gpt-4.1"), None);
        assert_eq!(
            served_model_name(&json!({"data": [{"id": "x\u{1b}[2J"}]}), "m"),
            None
        );
        assert_eq!(served_model_name(&json!({"data": [{"id": ""}]}), "m"), None);
        assert_eq!(served_model_name(&json!({"data": []}), "m"), None);
    }

    #[test]
    fn served_name_is_asked_only_for_the_default_name_off_openai() {
        let provider = |base: &str, kind| Provider {
            id: "openai".into(),
            name: "OpenAI".into(),
            kind,
            base_url: base.into(),
            api_key_env: None,
            api_key_optional: true,
            models: Vec::new(),
        };
        let local = provider("http://127.0.0.1:8080/v1", ProviderKind::Openai);
        assert!(WindowLookup::new(&local, "gpt-4.1", None).wants_served_name());
        assert!(!WindowLookup::new(&local, "qwen", None).wants_served_name());
        let openai = provider("https://api.openai.com/v1", ProviderKind::Openai);
        assert!(!WindowLookup::new(&openai, "gpt-4.1", None).wants_served_name());
        let anthropic = provider("http://127.0.0.1:8080", ProviderKind::Anthropic);
        assert!(!WindowLookup::new(&anthropic, "gpt-4.1", None).wants_served_name());
    }

    #[test]
    fn urls_follow_the_dialect() {
        let mut p = Provider {
            id: "p".into(),
            name: "p".into(),
            kind: ProviderKind::Openai,
            base_url: "http://h:8080/v1/".into(),
            api_key_env: None,
            api_key_optional: false,
            models: Vec::new(),
        };
        let l = WindowLookup::new(&p, "m", Some("k"));
        assert_eq!(l.props_url, "http://h:8080/props");
        assert_eq!(l.models_url, "http://h:8080/v1/models");
        assert_eq!(l.headers, vec![("authorization", "Bearer k".to_string())]);
        assert!(
            !format!("{l:?}").contains("Bearer k"),
            "the key stays out of logs"
        );
        p.kind = ProviderKind::Anthropic;
        p.base_url = "http://h:8080".into();
        let l = WindowLookup::new(&p, "m", None);
        assert_eq!(l.props_url, "http://h:8080/props");
        assert_eq!(l.models_url, "http://h:8080/v1/models");
    }
}
