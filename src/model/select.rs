//! Which model a session starts with: the `--model` flag, else the
//! config's `model`, else the first enabled model of the catalog (env
//! shortcuts included); with no provider at all and no flag, the offline
//! demo.

use std::sync::Arc;

use super::anthropic::AnthropicProvider;
use super::context_window::WindowLookup;
use super::http::HttpSettings;
use super::limits::StreamLimits;
use super::openai::OpenAiProvider;
use super::reference::resolve_model_reference;
use super::scripted::ScriptedProvider;
use super::{ModelProvider, ProviderError};
use crate::config::{Config, Provider, ProviderKind};

/// The provider id and model id of the offline demo.
pub const DEMO_PROVIDER_ID: &str = "demo";
pub const DEMO_MODEL_ID: &str = "scripted";
/// The context window the offline demo claims.
pub const DEMO_CONTEXT_WINDOW: u64 = 128_000;

/// How to configure a model, for errors and the demo.
pub const HOW_TO_CONFIGURE: &str = "set OPENAI_BASE_URL (for example a llama.cpp server at \
     http://127.0.0.1:8080/v1) and/or OPENAI_API_KEY, or ANTHROPIC_API_KEY, or add a \
     'providers' entry to $ZCODE_HOME/config.json";

/// The model a session talks to.
#[derive(Clone)]
pub struct SelectedModel {
    pub provider: Arc<dyn ModelProvider>,
    pub provider_id: String,
    pub model_id: String,
    pub reasoning: Option<String>,
    /// In tokens; `None` while (or when) nobody knows it.
    pub context_window: Option<u64>,
    /// How to ask the server for the window, when the config does not
    /// give it (see [`super::context_window`]).
    pub window_lookup: Option<Arc<WindowLookup>>,
    /// What its tokens cost; `None`: not known.
    pub prices: Option<crate::config::Prices>,
}

impl std::fmt::Debug for SelectedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SelectedModel")
            .field("provider", &self.provider.label())
            .field("provider_id", &self.provider_id)
            .field("model_id", &self.model_id)
            .field("reasoning", &self.reasoning)
            .field("context_window", &self.context_window)
            .field("window_lookup", &self.window_lookup)
            .field("prices", &self.prices)
            .finish()
    }
}

impl SelectedModel {
    /// The offline demo.
    pub fn offline_demo() -> Self {
        SelectedModel {
            provider: Arc::new(ScriptedProvider::offline_demo()),
            provider_id: DEMO_PROVIDER_ID.to_string(),
            model_id: DEMO_MODEL_ID.to_string(),
            reasoning: None,
            context_window: Some(DEMO_CONTEXT_WINDOW),
            window_lookup: None,
            prices: None,
        }
    }

    /// The model of `provider` with this id, reasoning level and window
    /// (from the config; else the server is to be asked).
    fn build(
        provider: &Provider,
        env: impl Fn(&str) -> Option<String>,
        model_id: String,
        reasoning: Option<String>,
    ) -> Result<Self, ProviderError> {
        let context_window = provider.model(&model_id).and_then(|m| m.context_window);
        let prices = provider.model(&model_id).and_then(|m| m.prices);
        let settings = http_settings(provider, &model_id);
        let key = provider
            .api_key(&env)
            .map_err(|e| ProviderError::Config(e.to_string()))?;
        // Asked when the window is unknown, or when the name is only the
        // default one and the server can tell the model it serves.
        let lookup = WindowLookup::new(provider, &model_id, key.as_deref());
        let window_lookup =
            (context_window.is_none() || lookup.wants_served_name()).then(|| Arc::new(lookup));
        Ok(SelectedModel {
            provider: build_provider(provider, &env, settings)?,
            provider_id: provider.id.clone(),
            model_id,
            reasoning,
            context_window,
            window_lookup,
            prices,
        })
    }
}

/// Picks the session's model; see the module comment. Errors: a flag with
/// no provider configured, a reference that does not resolve (MODEL-3), a
/// catalog without an enabled model, a missing required API key.
pub fn select_model(
    config: &Config,
    env: impl Fn(&str) -> Option<String>,
    model_flag: Option<&str>,
) -> Result<SelectedModel, ProviderError> {
    let catalog = config.catalog(&env);
    let flag = model_flag.map(str::trim).filter(|f| !f.is_empty());
    if catalog.providers.is_empty() {
        return match flag {
            Some(flag) => Err(ProviderError::Config(format!(
                "--model {flag}: no model provider is configured; {HOW_TO_CONFIGURE}"
            ))),
            None => Ok(SelectedModel::offline_demo()),
        };
    }
    let (provider, model_id, reasoning) = match flag.or(config.model.as_deref()) {
        Some(reference) => {
            let resolved = resolve_model_reference(&catalog, reference, None).map_err(|e| {
                let source = if flag.is_some() {
                    "--model"
                } else {
                    "config model"
                };
                ProviderError::Config(format!("{source} {reference}: {e}"))
            })?;
            let provider = catalog.provider(&resolved.provider_id).ok_or_else(|| {
                ProviderError::Config(format!("unknown provider {}", resolved.provider_id))
            })?;
            (provider, resolved.model_id, resolved.reasoning)
        }
        None => {
            let (provider, model) = catalog
                .providers
                .iter()
                .find_map(|p| {
                    p.models
                        .iter()
                        .find(|m| m.disabled.is_none())
                        .map(|m| (p, m))
                })
                .ok_or_else(|| {
                    ProviderError::Config(
                        "every configured model is disabled; enable one in $ZCODE_HOME/config.json \
                         or pick one with --model"
                            .to_string(),
                    )
                })?;
            (provider, model.id.clone(), model.default_reasoning.clone())
        }
    };
    SelectedModel::build(provider, &env, model_id, reasoning)
}

/// `/model REF` (MODEL-3): the model a running session switches to; the
/// current provider breaks ties between providers offering the same id.
/// The error is the resolution's own text.
pub fn switch_model(
    config: &Config,
    env: impl Fn(&str) -> Option<String>,
    reference: &str,
    current_provider: &str,
) -> Result<SelectedModel, ProviderError> {
    let catalog = config.catalog(&env);
    if catalog.providers.is_empty() {
        return Err(ProviderError::Config(format!(
            "no model provider is configured; {HOW_TO_CONFIGURE}; then `zcode models` lists the models"
        )));
    }
    let resolved = resolve_model_reference(&catalog, reference, Some(current_provider))
        .map_err(|e| ProviderError::Config(e.to_string()))?;
    let provider = catalog.provider(&resolved.provider_id).ok_or_else(|| {
        ProviderError::Config(format!("unknown provider {}", resolved.provider_id))
    })?;
    SelectedModel::build(provider, &env, resolved.model_id, resolved.reasoning)
}

/// The default timeouts and retries, with the stream limits of this model
/// of `provider`.
pub fn http_settings(provider: &Provider, model_id: &str) -> HttpSettings {
    let limits = match provider.model(model_id) {
        Some(model) => StreamLimits::for_model(provider.kind, model),
        None => StreamLimits::from_settings(provider.kind, model_id, &Default::default(), 0),
    };
    HttpSettings {
        limits,
        ..HttpSettings::default()
    }
}

/// The HTTP provider for a catalog entry, with its API key from `env`.
/// Nothing is connected or loaded until the first request.
pub fn build_provider(
    provider: &Provider,
    env: impl Fn(&str) -> Option<String>,
    settings: HttpSettings,
) -> Result<Arc<dyn ModelProvider>, ProviderError> {
    let key = provider
        .api_key(env)
        .map_err(|e| ProviderError::Config(e.to_string()))?;
    Ok(match provider.kind {
        ProviderKind::Openai => Arc::new(OpenAiProvider::new(provider, key, settings)),
        ProviderKind::Anthropic => Arc::new(AnthropicProvider::new(provider, key, settings)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Model;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    fn model(id: &str, window: u64) -> Model {
        Model {
            id: id.into(),
            context_window: Some(window),
            reasoning_levels: vec!["low".into(), "high".into()],
            default_reasoning: Some("low".into()),
            disabled: None,
            stream: Default::default(),
            prices: None,
        }
    }

    fn config() -> Config {
        let mut off = model("off", 1);
        off.disabled = Some("broken".into());
        Config {
            providers: vec![Provider {
                id: "local".into(),
                name: "Local".into(),
                kind: ProviderKind::Openai,
                base_url: "http://127.0.0.1:9/v1".into(),
                api_key_env: Some("LOCAL_KEY".into()),
                api_key_optional: false,
                models: vec![off, model("small", 4096), model("large", 32768)],
            }],
            ..Config::default()
        }
    }

    #[test]
    fn empty_catalog_without_flag_is_the_demo() {
        let m = select_model(&Config::default(), env(&[]), None).unwrap();
        assert_eq!(
            (m.provider_id.as_str(), m.model_id.as_str()),
            ("demo", "scripted")
        );
        assert!(m.provider.is_offline_demo());
    }

    #[test]
    fn flag_with_empty_catalog_explains_configuration() {
        let e = select_model(&Config::default(), env(&[]), Some("x/y")).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("no model provider is configured"), "{text}");
        assert!(text.contains("OPENAI_BASE_URL"), "{text}");
        assert!(text.contains("ANTHROPIC_API_KEY"), "{text}");
        assert!(text.contains("config.json"), "{text}");
    }

    #[test]
    fn first_enabled_model_by_default() {
        let m = select_model(&config(), env(&[("LOCAL_KEY", "k")]), None).unwrap();
        assert_eq!(m.model_id, "small");
        assert_eq!(m.context_window, Some(4096));
        assert!(m.window_lookup.is_none());
        assert_eq!(m.reasoning.as_deref(), Some("low"));
        assert!(!m.provider.is_offline_demo());
        assert_eq!(m.provider.label(), "local");
    }

    #[test]
    fn flag_beats_config_model() {
        let mut c = config();
        c.model = Some("local/small".into());
        let e = env(&[("LOCAL_KEY", "k")]);
        let m = select_model(&c, &e, Some("large$high")).unwrap();
        assert_eq!(m.model_id, "large");
        assert_eq!(m.reasoning.as_deref(), Some("high"));
        assert_eq!(m.context_window, Some(32768));
        let m = select_model(&c, &e, None).unwrap();
        assert_eq!(m.model_id, "small");
    }

    #[test]
    fn bad_reference_is_a_config_error() {
        let e = select_model(&config(), env(&[("LOCAL_KEY", "k")]), Some("local/off")).unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("--model local/off: model 'local/off' is disabled: broken"),
            "{text}"
        );
    }

    #[test]
    fn missing_key_names_the_variable() {
        let e = select_model(&config(), env(&[]), None).unwrap_err();
        assert!(e.to_string().contains("LOCAL_KEY"), "{e}");
    }

    #[test]
    fn env_shortcut_is_used() {
        let m = select_model(
            &Config::default(),
            env(&[("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")]),
            None,
        )
        .unwrap();
        assert_eq!(m.provider_id, "openai");
        assert!(!m.provider.is_offline_demo());
        // Nothing guesses the window of a model the config does not describe.
        assert_eq!(m.context_window, None);
        let lookup = m.window_lookup.as_deref().unwrap();
        assert_eq!(lookup.props_url, "http://127.0.0.1:8080/props");
        let m = select_model(
            &Config::default(),
            env(&[("ANTHROPIC_API_KEY", "k")]),
            Some("anthropic/claude-sonnet-4-5"),
        )
        .unwrap();
        assert_eq!(m.provider_id, "anthropic");
    }

    #[test]
    fn all_disabled_is_an_error() {
        let mut c = config();
        c.providers[0].models.truncate(1);
        let e = select_model(&c, env(&[("LOCAL_KEY", "k")]), None).unwrap_err();
        assert!(e.to_string().contains("disabled"), "{e}");
    }
}
