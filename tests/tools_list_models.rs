//! ListModels (MODEL-2): the catalog listing, error 31, the output budget
//! and the per-call reading of the config.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use zcode::store::Store;
use zcode::tools::list_models::{OUTPUT_BUDGET, fit_budget};
use zcode::tools::registry::builtin_capability;
use zcode::tools::{ListModelsTool, SessionServices, Tool, ToolContext, ToolOutput};

const CONFIG: &str = r#"{
  "model": "alpha/big-1",
  "providers": [
    {"id": "alpha", "name": "Alpha Labs", "kind": "openai", "baseUrl": "http://127.0.0.1:9/v1",
     "models": [
       {"id": "big-1", "contextWindow": 128000},
       {"id": "reasoner", "contextWindow": 200000,
        "reasoningLevels": ["low", "medium", "high"], "defaultReasoning": "medium"},
       {"id": "old", "contextWindow": 8000, "disabled": "retired by the vendor"}
     ]},
    {"id": "beta", "kind": "anthropic", "baseUrl": "http://127.0.0.1:9",
     "models": [{"id": "meta/llama-3", "contextWindow": 32000, "reasoningLevels": ["on"]}]}
  ]
}"#;

const LISTING: &str = "\
4 models from 2 providers. Current model: alpha/reasoner (marked [current]).
alpha/big-1 | Alpha Labs | context window: 128000 tokens
alpha/reasoner | Alpha Labs | reasoning: low, medium, high (default: medium) | context window: 200000 tokens [current]
alpha/old | Alpha Labs | context window: 8000 tokens [disabled: retired by the vendor]
beta/meta/llama-3 | beta | reasoning: on | context window: 32000 tokens
";

fn no_env() -> ListModelsTool {
    ListModelsTool::with_env(Arc::new(|_: &str| None))
}

fn ctx(home: &Path, model_ref: &str) -> ToolContext {
    let mut ctx = ToolContext::new(PathBuf::from("/tmp/ws"), "sess_models");
    ctx.session = Some(SessionServices {
        store: Arc::new(Mutex::new(Store::open_in_memory().unwrap())),
        zcode_home: home.to_path_buf(),
        model_ref: model_ref.to_string(),
        model: None,
    });
    ctx
}

fn home_with(config: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.json"), config).unwrap();
    home
}

async fn list(tool: &ListModelsTool, ctx: &ToolContext) -> ToolOutput {
    let input = tool.validate(json!({})).unwrap();
    tool.run(input, ctx).await
}

#[tokio::test]
async fn model2_lists_every_model_with_markers() {
    let home = home_with(CONFIG);
    let out = list(&no_env(), &ctx(home.path(), "alpha/reasoner")).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(out.content, LISTING);
}

#[tokio::test]
async fn model2_current_provider_matches_ignoring_case() {
    let home = home_with(CONFIG);
    let out = list(&no_env(), &ctx(home.path(), "ALPHA/big-1")).await;
    assert!(
        out.content
            .contains("alpha/big-1 | Alpha Labs | context window: 128000 tokens [current]\n"),
        "{}",
        out.content
    );
    let marked = out
        .content
        .lines()
        .skip(1)
        .filter(|l| l.contains("[current]"));
    assert_eq!(marked.count(), 1);
}

#[tokio::test]
async fn model2_session_model_outside_the_catalog_is_said() {
    let home = home_with(CONFIG);
    let out = list(&no_env(), &ctx(home.path(), "gone/model")).await;
    assert!(
        out.content.starts_with(
            "4 models from 2 providers. Current model: gone/model (not in the catalog).\n"
        ),
        "{}",
        out.content
    );
    assert!(!out.content.lines().skip(1).any(|l| l.contains("[current]")));
}

#[tokio::test]
async fn model2_environment_providers_are_listed() {
    let home = tempfile::tempdir().unwrap();
    let tool = ListModelsTool::with_env(Arc::new(|k: &str| {
        (k == "OPENAI_API_KEY").then(|| "sk-test".to_string())
    }));
    let out = list(&tool, &ctx(home.path(), "openai/gpt-4.1")).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        out.content,
        "1 model from 1 provider. Current model: openai/gpt-4.1 (marked [current]).\n\
         openai/gpt-4.1 | OpenAI | context window: 128000 tokens [current]\n"
    );
}

#[tokio::test]
async fn model2_catalog_is_read_at_every_call() {
    let home = home_with(CONFIG);
    let tool = no_env();
    let ctx = ctx(home.path(), "alpha/big-1");
    let first = list(&tool, &ctx).await;
    assert!(
        first.content.contains("alpha/reasoner"),
        "{}",
        first.content
    );
    std::fs::write(
        home.path().join("config.json"),
        r#"{"providers": [{"id": "gamma", "name": "Gamma", "kind": "openai",
            "baseUrl": "http://127.0.0.1:9/v1",
            "models": [{"id": "fresh", "contextWindow": 4096}]}]}"#,
    )
    .unwrap();
    let second = list(&tool, &ctx).await;
    assert!(!second.is_error, "{}", second.content);
    assert_eq!(
        second.content,
        "1 model from 1 provider. Current model: alpha/big-1 (not in the catalog).\n\
         gamma/fresh | Gamma | context window: 4096 tokens\n"
    );
}

#[tokio::test]
async fn model2_no_catalog_is_error_31() {
    let home = tempfile::tempdir().unwrap(); // no config.json, no env
    let out = list(&no_env(), &ctx(home.path(), "demo/scripted")).await;
    assert!(out.is_error);
    assert_eq!(
        out.content,
        "Error 31 model_catalog_unavailable: this session has no model catalog (no model \
         provider is configured, so it runs on the built-in offline model). This is a missing \
         capability of this session, not a missing configuration for you to fix: there are no \
         models to list or switch to, so keep working with the current model."
    );
    // An empty provider list in the file is the same.
    let home = home_with(r#"{"providers": []}"#);
    let out = list(&no_env(), &ctx(home.path(), "demo/scripted")).await;
    assert!(
        out.content
            .starts_with("Error 31 model_catalog_unavailable: this session has no model catalog"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn model2_without_a_session_is_error_31() {
    let ctx = ToolContext::new(PathBuf::from("/tmp/ws"), "s");
    let out = list(&no_env(), &ctx).await;
    assert!(out.is_error);
    assert!(
        out.content.starts_with(
            "Error 31 model_catalog_unavailable: this session has no model catalog \
             (the tool runs outside a session)."
        ),
        "{}",
        out.content
    );
    assert!(
        out.content.contains("missing capability"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn model2_broken_config_is_an_ordinary_error() {
    let home = home_with("{ not json");
    let out = list(&no_env(), &ctx(home.path(), "a/b")).await;
    assert!(out.is_error);
    assert!(
        out.content.starts_with("Cannot read the model catalog: "),
        "{}",
        out.content
    );
    assert!(out.content.contains("config.json"), "{}", out.content);
}

#[tokio::test]
async fn model2_output_is_cut_at_the_budget_with_a_note() {
    let models: Vec<Value> = (0..600)
        .map(|i| json!({"id": format!("model-with-a-rather-long-name-{i:04}"), "contextWindow": 1000}))
        .collect();
    let config = json!({"providers": [{"id": "big", "name": "Big", "kind": "openai",
        "baseUrl": "http://127.0.0.1:9/v1", "models": models}]});
    let home = home_with(&config.to_string());
    let out = list(
        &no_env(),
        &ctx(home.path(), "big/model-with-a-rather-long-name-0000"),
    )
    .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.len() <= OUTPUT_BUDGET, "{}", out.content.len());
    assert!(
        out.content.len() > OUTPUT_BUDGET - 200,
        "{}",
        out.content.len()
    );
    let shown = out
        .content
        .lines()
        .filter(|l| l.starts_with("big/"))
        .count();
    let note = out.content.lines().last().unwrap();
    assert_eq!(
        note,
        format!(
            "[Output cut at 24000 bytes: {} more lines not shown.]",
            600 - shown
        )
    );
    assert!(out.content.starts_with(
        "600 models from 1 provider. Current model: big/model-with-a-rather-long-name-0000"
    ));
}

#[test]
fn model2_fit_budget_keeps_whole_lines() {
    let text = "aaaa\nbbbb\ncccc\n";
    assert_eq!(fit_budget(text, 100), text);
    assert_eq!(fit_budget(text, text.len()), text);
    let long = format!("aa\n{}\ncc\n", "b".repeat(100));
    let cut = fit_budget(&long, 60);
    assert_eq!(
        cut,
        "aa\n[Output cut at 60 bytes: 2 more lines not shown.]\n"
    );
    assert!(cut.len() <= 60);
}

#[tokio::test]
async fn model2_times_out() {
    let home = home_with(CONFIG);
    // Reading the environment blocks until the test has its answer.
    let (release, blocked) = std::sync::mpsc::channel::<()>();
    let blocked = std::sync::Mutex::new(blocked);
    let slow = ListModelsTool::with_env(Arc::new(move |_: &str| {
        let _ = blocked.lock().map(|rx| rx.recv());
        None
    }))
    .with_timeout(Duration::from_millis(50));
    let out = list(&slow, &ctx(home.path(), "alpha/big-1")).await;
    drop(release);
    assert!(out.is_error);
    assert_eq!(
        out.content,
        "ListModels timed out after 50ms reading the model catalog."
    );
}

#[test]
fn model2_takes_no_parameters() {
    let tool = no_env();
    assert_eq!(tool.validate(json!({})).unwrap(), json!({}));
    assert_eq!(tool.validate(Value::Null).unwrap(), json!({}));
    assert_eq!(
        tool.validate(json!({"provider": "alpha"})).unwrap_err(),
        "Invalid input for ListModels: unknown field \"provider\"; ListModels takes no parameters (pass {})"
    );
    assert_eq!(
        tool.validate(json!("x")).unwrap_err(),
        "Invalid input for ListModels: expected a JSON object, got a string"
    );
    assert_eq!(
        tool.input_schema(),
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
}

#[test]
fn model2_description_and_capability() {
    let tool = no_env();
    assert_eq!(Some(tool.capability()), builtin_capability("ListModels"));
    let text = tool.description();
    assert!(
        text.contains("does NOT change the session's model"),
        "{text}"
    );
    assert!(
        text.contains("/model") && text.contains("--model"),
        "{text}"
    );
    assert!(text.contains("model_catalog_unavailable"), "{text}");
}
