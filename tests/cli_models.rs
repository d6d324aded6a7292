//! `zcode models` as a user runs it (CLI-3): the ListModels listing, with
//! `[current]` on the model a new session would pick.

use std::process::{Command, Output};

const PROVIDERS: &str = r#"[
    {"id": "alpha", "name": "Alpha Labs", "kind": "openai", "baseUrl": "http://127.0.0.1:9/v1",
     "models": [
       {"id": "old", "contextWindow": 8000, "disabled": "retired by the vendor"},
       {"id": "big-1", "contextWindow": 128000},
       {"id": "reasoner", "contextWindow": 200000,
        "reasoningLevels": ["low", "medium", "high"], "defaultReasoning": "medium"}
     ]}
  ]"#;

const FOOTER: &str = "Pick a model with --model providerId/modelId (or /model in a session), \
                      or set \"model\" in $ZCODE_HOME/config.json.\n";

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new(config: Option<&str>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        if let Some(config) = config {
            std::fs::write(dir.path().join("config.json"), config).unwrap();
        }
        Self { dir }
    }

    /// Runs zcode with only `ZCODE_HOME` (and `extra`) in the environment,
    /// so no OPENAI_*/ANTHROPIC_* variable of the test's own environment
    /// adds a provider.
    fn run(&self, args: &[&str], extra: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_zcode"));
        cmd.args(args)
            .env_clear()
            .env("ZCODE_HOME", self.dir.path())
            .current_dir(self.dir.path());
        for (k, v) in extra {
            cmd.env(k, v);
        }
        cmd.output().expect("zcode runs")
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn listing(current: &str, marks: [&str; 3]) -> String {
    format!(
        "3 models from 1 provider. Current model: {current} (marked [current]).\n\
         alpha/old | Alpha Labs | context window: 8000 tokens{}\n\
         alpha/big-1 | Alpha Labs | context window: 128000 tokens{}\n\
         alpha/reasoner | Alpha Labs | reasoning: low, medium, high (default: medium) | context window: 200000 tokens{}\n\
         {FOOTER}",
        marks[0], marks[1], marks[2]
    )
}

#[test]
fn cli3_first_enabled_model_is_current_without_a_configured_model() {
    let home = Home::new(Some(&format!(r#"{{"providers": {PROVIDERS}}}"#)));
    let out = home.run(&["models"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        listing(
            "alpha/big-1",
            [" [disabled: retired by the vendor]", " [current]", ""]
        )
    );
    assert_eq!(stderr(&out), "");
}

#[test]
fn cli3_config_model_is_current() {
    let home = Home::new(Some(&format!(
        r#"{{"model": "alpha/reasoner", "providers": {PROVIDERS}}}"#
    )));
    let out = home.run(&["models"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        listing(
            "alpha/reasoner",
            [" [disabled: retired by the vendor]", "", " [current]"]
        )
    );
}

#[test]
fn cli3_model_flag_wins_in_either_position() {
    let home = Home::new(Some(&format!(
        r#"{{"model": "alpha/reasoner", "providers": {PROVIDERS}}}"#
    )));
    let expected = listing(
        "alpha/big-1",
        [" [disabled: retired by the vendor]", " [current]", ""],
    );
    for args in [
        &["models", "--model", "big-1"][..],
        &["--model", "alpha/big-1", "models"][..],
    ] {
        let out = home.run(args, &[]);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), expected, "{args:?}");
    }
}

#[test]
fn cli3_missing_api_key_still_lists_with_a_warning() {
    let providers = PROVIDERS.replace(
        r#""kind": "openai","#,
        r#""kind": "openai", "apiKeyEnv": "ALPHA_KEY","#,
    );
    let home = Home::new(Some(&format!(r#"{{"providers": {providers}}}"#)));
    let out = home.run(&["models"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        listing(
            "alpha/big-1",
            [" [disabled: retired by the vendor]", " [current]", ""]
        )
    );
    let err = stderr(&out);
    assert!(err.starts_with("zcode: warning: "), "{err}");
    assert!(err.contains("ALPHA_KEY"), "{err}");
    // With the key set, no warning.
    let out = home.run(&["models"], &[("ALPHA_KEY", "k")]);
    assert_eq!(stderr(&out), "");
}

#[test]
fn cli3_unknown_model_flag_warns_and_marks_nothing() {
    let home = Home::new(Some(&format!(r#"{{"providers": {PROVIDERS}}}"#)));
    let out = home.run(&["models", "--model", "alpha/nope"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("3 models from 1 provider.\n"),
        "no current model: {text}"
    );
    assert!(!text.contains("[current]"), "{text}");
    let err = stderr(&out);
    assert!(err.contains("--model alpha/nope"), "{err}");
    assert!(
        err.contains("provider 'alpha' has no model 'nope'"),
        "{err}"
    );
}

#[test]
fn cli3_environment_provider_is_listed() {
    let home = Home::new(None);
    let out = home.run(
        &["models"],
        &[
            ("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1"),
            ("OPENAI_MODEL", "local-llama"),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "1 model from 1 provider. Current model: openai/local-llama (marked [current]).\n\
             openai/local-llama | OpenAI | context window: asked of the server [current]\n{FOOTER}"
        )
    );
}

#[test]
fn cli3_empty_catalog_explains_the_offline_demo() {
    for config in [None, Some(r#"{"providers": []}"#)] {
        let home = Home::new(config);
        let out = home.run(&["models"], &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(
            text.starts_with(
                "No model provider is configured: zcode uses the offline demo (demo/scripted)"
            ),
            "{text}"
        );
        assert!(
            text.contains("To use a real model, set OPENAI_BASE_URL"),
            "{text}"
        );
        assert!(text.contains("ANTHROPIC_API_KEY"), "{text}");
        assert!(text.contains("config.json"), "{text}");
        assert_eq!(stderr(&out), "");
    }
}

#[test]
fn cli3_broken_config_is_an_error() {
    let home = Home::new(Some("{ nope"));
    let out = home.run(&["models"], &[]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.starts_with("zcode: error: "), "{err}");
    assert!(err.contains("config.json"), "{err}");
}
