//! The per-model stream limits in config.json (`maxOutputTokens`,
//! `maxTokensField`, `contentIdleTimeoutSecs`, `requestTimeoutSecs`):
//! parsed, validated with the JSON path of a bad value, and applied to the
//! model's provider.

use std::path::Path;
use std::time::Duration;

use zcode::config::{Config, ConfigError, MaxTokensField, StreamSettings};
use zcode::model::limits::{DEFAULT_CONTENT_IDLE, DEFAULT_REQUEST_TIMEOUT};
use zcode::model::select::http_settings;

const EXAMPLE: &str = include_str!("../assets/config.example.json");

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(text, Path::new("/home/u/.zcode/config.json"))
}

/// A config with one provider of `kind` and one model with these extra
/// members (`"maxOutputTokens": 5`, …).
fn with_model_keys(kind: &str, keys: &str) -> String {
    let base = if kind == "openai" {
        "http://localhost:8080/v1"
    } else {
        "http://localhost:8080"
    };
    format!(
        r#"{{"providers": [{{"id": "p", "kind": "{kind}", "baseUrl": "{base}",
            "models": [{{"id": "m", "contextWindow": 100000{keys}}}]}}]}}"#
    )
}

fn settings(keys: &str) -> StreamSettings {
    let cfg = parse(&with_model_keys("openai", keys)).unwrap();
    assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
    cfg.providers[0].models[0].stream
}

fn error(kind: &str, keys: &str) -> String {
    match parse(&with_model_keys(kind, keys)) {
        Ok(c) => panic!("expected an error, got {c:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn stream_limits_parse_per_model() {
    assert_eq!(settings(""), StreamSettings::default());
    let s = settings(
        r#", "maxOutputTokens": 4096, "maxTokensField": "max_completion_tokens",
           "contentIdleTimeoutSecs": 45, "requestTimeoutSecs": 600"#,
    );
    assert_eq!(
        s,
        StreamSettings {
            max_output_tokens: Some(4096),
            max_tokens_field: Some(MaxTokensField::MaxCompletionTokens),
            content_idle_timeout_secs: Some(45),
            request_timeout_secs: Some(600),
        }
    );
}

#[test]
fn stream_limits_out_of_range_name_the_key() {
    let e = error("openai", r#", "maxOutputTokens": 0"#);
    assert_eq!(
        e,
        "/home/u/.zcode/config.json: providers[0].models[0].maxOutputTokens: 0 is out of range: must be 1..=1000000"
    );
    let e = error("openai", r#", "maxOutputTokens": 5000000"#);
    assert!(
        e.contains("maxOutputTokens: 5000000 is out of range"),
        "{e}"
    );
    let e = error("openai", r#", "contentIdleTimeoutSecs": 0"#);
    assert!(
        e.contains(
            "models[0].contentIdleTimeoutSecs: 0 is out of range: must be 1..=86400 seconds"
        ),
        "{e}"
    );
    let e = error("anthropic", r#", "requestTimeoutSecs": 86401"#);
    assert!(
        e.contains("models[0].requestTimeoutSecs: 86401 is out of range"),
        "{e}"
    );
}

#[test]
fn stream_limits_of_the_wrong_type_are_syntax_errors_with_a_position() {
    let e = error("openai", r#", "maxOutputTokens": -5"#);
    assert!(e.starts_with("/home/u/.zcode/config.json:2:"), "{e}");
    let e = error("openai", r#", "requestTimeoutSecs": "ten""#);
    assert!(e.contains("expected u64"), "{e}");
}

#[test]
fn max_tokens_field_is_checked_and_only_for_openai() {
    let e = error("openai", r#", "maxTokensField": "max_output""#);
    assert!(
        e.contains(
            r#"maxTokensField: must be "max_tokens" or "max_completion_tokens", not "max_output""#
        ),
        "{e}"
    );
    let e = error("anthropic", r#", "maxTokensField": "max_tokens""#);
    assert!(
        e.contains(r#"applies to providers of kind "openai" only"#),
        "{e}"
    );
}

#[test]
fn stream_limits_reach_the_models_provider_settings() {
    let cfg = parse(&with_model_keys(
        "openai",
        r#", "maxOutputTokens": 777, "contentIdleTimeoutSecs": 9, "requestTimeoutSecs": 99"#,
    ))
    .unwrap();
    let limits = http_settings(&cfg.providers[0], "m").limits;
    assert_eq!(limits.max_output_tokens, 777);
    assert_eq!(limits.content_idle, Duration::from_secs(9));
    assert_eq!(limits.request_timeout, Duration::from_secs(99));
    assert_eq!(limits.context_window, 100_000);
    assert_eq!(limits.max_tokens_field, MaxTokensField::MaxTokens);

    // Unset: the defaults.
    let cfg = parse(&with_model_keys("openai", "")).unwrap();
    let limits = http_settings(&cfg.providers[0], "m").limits;
    assert_eq!(limits.max_output_tokens, 32_000);
    assert_eq!(limits.content_idle, DEFAULT_CONTENT_IDLE);
    assert_eq!(limits.request_timeout, DEFAULT_REQUEST_TIMEOUT);
}

#[test]
fn the_example_config_shows_the_stream_limits() {
    let cfg = parse(EXAMPLE).unwrap();
    assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
    let work = &cfg.providers[0];
    assert_eq!(work.models[0].stream.max_output_tokens, Some(32_768));
    assert_eq!(work.models[0].stream.content_idle_timeout_secs, Some(300));
    assert_eq!(work.models[0].stream.request_timeout_secs, Some(1800));
    assert_eq!(
        http_settings(work, "o4-mini").limits.max_tokens_field,
        MaxTokensField::MaxCompletionTokens
    );
}
