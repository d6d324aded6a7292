//! Model references (MODEL-3) and model selection against catalogs loaded
//! from config text and the environment, as a session sees them.

use std::collections::HashMap;
use std::path::Path;

use zcode::config::Config;
use zcode::model::reference::{ModelRefError, resolve_model_reference};
use zcode::model::select::select_model;

const CONFIG: &str = r#"{
  "model": "alpha/big-1",
  "providers": [
    {"id": "alpha", "name": "Alpha", "kind": "openai", "baseUrl": "http://127.0.0.1:9/v1",
     "models": [
       {"id": "big-1", "contextWindow": 100000},
       {"id": "Think-2", "contextWindow": 200000,
        "reasoningLevels": ["low", "medium", "high"], "defaultReasoning": "medium"},
       {"id": "common", "contextWindow": 8000},
       {"id": "legacy", "contextWindow": 4000, "disabled": "replaced by big-1"}
     ]},
    {"id": "beta", "kind": "anthropic", "baseUrl": "http://127.0.0.1:9",
     "apiKeyEnv": "BETA_KEY",
     "models": [
       {"id": "common", "contextWindow": 16000},
       {"id": "org/model-x", "contextWindow": 32000}
     ]}
  ]
}"#;

fn config() -> Config {
    Config::parse(CONFIG, Path::new("/tmp/config.json")).unwrap()
}

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + Clone {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| map.get(k).cloned()
}

fn resolve(reference: &str, current: Option<&str>) -> Result<String, ModelRefError> {
    let catalog = config().catalog(env(&[]));
    resolve_model_reference(&catalog, reference, current).map(|r| {
        let mut s = r.reference();
        if let Some(level) = r.reasoning {
            s.push('$');
            s.push_str(&level);
        }
        s
    })
}

#[test]
fn references_against_a_loaded_config() {
    assert_eq!(resolve("alpha/big-1", None).unwrap(), "alpha/big-1");
    assert_eq!(resolve("BIG-1", None).unwrap(), "alpha/big-1");
    assert_eq!(resolve("think-2", None).unwrap(), "alpha/Think-2$medium");
    assert_eq!(
        resolve("alpha/think-2$High", None).unwrap(),
        "alpha/Think-2$high"
    );
    assert_eq!(resolve("org/model-x", None).unwrap(), "beta/org/model-x");
    assert_eq!(
        resolve("beta/org/model-x", None).unwrap(),
        "beta/org/model-x"
    );
    assert_eq!(resolve("common", Some("beta")).unwrap(), "beta/common");
}

#[test]
fn errors_are_one_clear_line() {
    for (reference, current, expected) in [
        (
            "common",
            None,
            "model 'common' is offered by several providers (alpha/common, beta/common): write provider/model",
        ),
        (
            "legacy",
            None,
            "model 'alpha/legacy' is disabled: replaced by big-1",
        ),
        ("nope", None, "unknown model 'nope'"),
        ("alpha/nope", None, "provider 'alpha' has no model 'nope'"),
        (
            "think-2$ultra",
            None,
            "'ultra' is not a reasoning level of model 'alpha/Think-2' (levels: low, medium, high)",
        ),
        (
            "big-1$low",
            None,
            "model 'alpha/big-1' takes no reasoning level (got 'low')",
        ),
    ] {
        let text = resolve(reference, current).unwrap_err().to_string();
        assert!(!text.contains('\n'), "{text}");
        assert!(text.starts_with(expected), "{reference}: {text}");
        assert!(
            text.ends_with(
                "available: alpha/big-1, alpha/Think-2, alpha/common, beta/common, \
                 beta/org/model-x; `zcode models` lists every model"
            ),
            "{text}"
        );
    }
}

#[test]
fn env_providers_join_the_catalog() {
    let catalog = config().catalog(env(&[("OPENAI_API_KEY", "k"), ("OPENAI_MODEL", "gpt-x")]));
    let r = resolve_model_reference(&catalog, "gpt-x", None).unwrap();
    assert_eq!(r.reference(), "openai/gpt-x");
}

#[test]
fn selection_follows_flag_then_config_then_catalog() {
    let c = config();
    let e = env(&[("BETA_KEY", "b")]);
    let m = select_model(&c, e.clone(), None).unwrap();
    assert_eq!(
        (m.provider_id.as_str(), m.model_id.as_str()),
        ("alpha", "big-1")
    );
    assert_eq!(m.context_window, Some(100000));
    assert_eq!(m.provider.label(), "alpha");

    let m = select_model(&c, e.clone(), Some("think-2$low")).unwrap();
    assert_eq!(m.model_id, "Think-2");
    assert_eq!(m.reasoning.as_deref(), Some("low"));
    assert_eq!(m.context_window, Some(200000));

    let m = select_model(&c, e.clone(), Some("beta/common")).unwrap();
    assert_eq!(
        (m.provider_id.as_str(), m.context_window),
        ("beta", Some(16000))
    );

    let mut no_default = config();
    no_default.model = None;
    let m = select_model(&no_default, e, None).unwrap();
    assert_eq!(m.model_id, "big-1");
}

#[test]
fn selection_errors() {
    let c = config();
    let err = select_model(&c, env(&[]), Some("beta/common")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "provider 'beta' needs an API key: set the environment variable BETA_KEY"
    );
    let err = select_model(&c, env(&[]), Some("common")).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("--model common: model 'common' is offered by several providers"),
        "{err}"
    );

    let err = select_model(&Config::default(), env(&[]), Some("alpha/big-1")).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("no model provider is configured"), "{text}");
    assert!(text.contains("OPENAI_BASE_URL"), "{text}");
    assert!(text.contains("OPENAI_API_KEY"), "{text}");
    assert!(text.contains("ANTHROPIC_API_KEY"), "{text}");
    assert!(text.contains("$ZCODE_HOME/config.json"), "{text}");
}

#[test]
fn empty_catalog_gives_the_offline_demo() {
    let m = select_model(&Config::default(), env(&[]), None).unwrap();
    assert_eq!(m.provider_id, "demo");
    assert_eq!(m.model_id, "scripted");
    assert!(m.provider.is_offline_demo());
    assert_eq!(m.provider.label(), "offline demo");
}

#[test]
fn local_server_without_key_needs_no_key() {
    let m = select_model(
        &Config::default(),
        env(&[("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")]),
        Some("openai/gpt-4.1"),
    )
    .unwrap();
    assert_eq!(m.provider_id, "openai");
}
