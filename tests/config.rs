//! Config loading (CONF-1, CONF-2), the model catalog (MODEL-1), hooks and
//! project ids (GRANT-3).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use zcode::config::{
    Catalog, Config, ConfigError, HookEvent, ProviderKind, env_providers, project_id,
};
use zcode::permission::mode::{ExecutionState, Mode};
use zcode::tools::registry::declaration_for;

const EXAMPLE: &str = include_str!("../assets/config.example.json");

fn cfg_path() -> PathBuf {
    PathBuf::from("/home/u/.zcode/config.json")
}

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(text, &cfg_path())
}

fn parse_err(text: &str) -> String {
    match parse(text) {
        Ok(c) => panic!("expected an error, got {c:?}"),
        Err(e) => e.to_string(),
    }
}

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| map.get(k).cloned()
}

/// One provider with one model; `provider` and `model` are spliced in as
/// extra JSON members (each may be empty).
fn one_provider(provider: &str, model: &str) -> String {
    format!(
        r#"{{"providers": [{{"id": "p", "kind": "openai", "baseUrl": "http://localhost:8080/v1"{provider},
            "models": [{{"id": "m", "contextWindow": 1000{model}}}]}}]}}"#
    )
}

// ---- CONF-2: missing, empty, unreadable -----------------------------------

#[test]
fn conf2_missing_file_gives_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = Config::load(dir.path()).unwrap();
    assert_eq!(cfg, Config::default());
    assert_eq!(cfg.permission_mode(), None);
    assert!(cfg.warnings.is_empty());
}

#[test]
fn conf2_missing_home_dir_gives_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = Config::load(&dir.path().join("not-created-yet")).unwrap();
    assert_eq!(cfg, Config::default());
}

#[test]
fn conf2_zero_byte_file_gives_defaults() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config.json"), "").unwrap();
    assert_eq!(Config::load(dir.path()).unwrap(), Config::default());
    assert_eq!(parse("  \n").unwrap(), Config::default());
}

#[test]
fn conf2_directory_instead_of_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    std::fs::create_dir(&path).unwrap();
    let err = Config::load(dir.path()).unwrap_err();
    assert!(matches!(err, ConfigError::Read { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!("{}: cannot read config file: ", path.display())),
        "{msg}"
    );
}

#[test]
fn conf2_home_that_is_a_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join(".zcode");
    std::fs::write(&home, "not a directory").unwrap();
    let msg = Config::load(&home).unwrap_err().to_string();
    assert!(
        msg.starts_with(&format!(
            "{}: cannot read",
            home.join("config.json").display()
        )),
        "{msg}"
    );
}

#[cfg(unix)]
#[test]
fn conf2_unreadable_file_is_a_clear_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    std::fs::write(&path, "{}").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    // Root reads anything; the check only means something for other users.
    if std::fs::read(&path).is_ok() {
        return;
    }
    let msg = Config::load(dir.path()).unwrap_err().to_string();
    assert!(
        msg.starts_with(&format!("{}: cannot read", path.display())),
        "{msg}"
    );
}

// ---- CONF-2: syntax and type errors carry path:line:col -------------------

#[test]
fn conf2_syntax_error_names_path_line_and_column() {
    let text = "{\n  \"model\": \"a/b\"\n  \"permission\": {}\n}\n";
    let err = parse(text).unwrap_err();
    assert!(
        matches!(
            err,
            ConfigError::Parse {
                line: 3,
                column: 3,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "/home/u/.zcode/config.json:3:3: expected `,` or `}`"
    );
}

#[test]
fn conf2_truncated_file_is_a_syntax_error() {
    let msg = parse_err("{\n  \"permission\": {\n");
    assert!(
        msg.starts_with("/home/u/.zcode/config.json:3:1: EOF while parsing"),
        "{msg}"
    );
}

#[test]
fn conf2_trailing_garbage_is_a_syntax_error() {
    let msg = parse_err("{}\n{}");
    assert_eq!(msg, "/home/u/.zcode/config.json:2:1: trailing characters");
}

#[test]
fn conf2_type_error_names_path_line_column_and_expectation() {
    let text = "{\n  \"permission\": {\n    \"autoApproveHighRisk\": \"yes\"\n  }\n}\n";
    let msg = parse_err(text);
    assert_eq!(
        msg,
        "/home/u/.zcode/config.json:3:32: invalid type: string \"yes\", expected a boolean"
    );
}

#[test]
fn conf2_top_level_must_be_an_object() {
    // Derived serde structs would also take an array of field values;
    // a config file must use objects throughout.
    assert_eq!(
        parse_err(r#"["a/b"]"#),
        "/home/u/.zcode/config.json:1:1: invalid type: sequence, expected a JSON object"
    );
    assert_eq!(
        parse_err("42"),
        "/home/u/.zcode/config.json:1:2: invalid type: integer `42`, expected a JSON object"
    );
    let msg = parse_err(r#"{"permission": ["build"]}"#);
    assert!(
        msg.starts_with(
            "/home/u/.zcode/config.json:1:15: invalid type: sequence, expected a JSON object"
        ),
        "{msg}"
    );
    let msg = parse_err(r#"{"providers": [["p", "openai", "https://x"]]}"#);
    assert!(msg.contains("expected a JSON object"), "{msg}");
    let msg = parse_err(r#"{"hooks": {"PreToolUse": [["*", "x"]]}}"#);
    assert!(msg.contains("expected a JSON object"), "{msg}");
}

#[test]
fn conf2_byte_order_mark_is_ignored() {
    let cfg = parse("\u{feff}{\"model\": \"a/b\"}").unwrap();
    assert_eq!(cfg.model.as_deref(), Some("a/b"));
}

// ---- CONF-1: the full example --------------------------------------------

#[test]
fn conf1_example_config_loads_from_home() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config.json"), EXAMPLE).unwrap();
    let cfg = Config::load(dir.path()).unwrap();
    assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
    // Same content as parsing the text; the path only shows in messages.
    assert_eq!(cfg, parse(EXAMPLE).unwrap());
}

#[test]
fn conf1_model1_example_config_contents() {
    let cfg = parse(EXAMPLE).unwrap();
    assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
    assert_eq!(cfg.model.as_deref(), Some("work/gpt-4.1"));

    // MODEL-1 catalog.
    assert_eq!(cfg.providers.len(), 2);
    let work = &cfg.providers[0];
    assert_eq!(work.id, "work");
    assert_eq!(work.name, "Company gateway");
    assert_eq!(work.kind, ProviderKind::Openai);
    assert_eq!(work.api_key_env.as_deref(), Some("WORK_LLM_KEY"));
    assert_eq!(
        work.chat_completions_url(),
        "https://llm.example.com/v1/chat/completions"
    );
    let ids: Vec<&str> = work.models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["gpt-4.1", "o4-mini", "gpt-4o"]);
    let o4 = &work.models[1];
    assert_eq!(o4.context_window, Some(200_000));
    assert_eq!(o4.reasoning_levels, ["low", "medium", "high"]);
    assert_eq!(o4.default_reasoning.as_deref(), Some("medium"));
    assert!(work.models[2].disabled.is_some());
    assert!(work.models[0].disabled.is_none());
    let claude = &cfg.providers[1];
    assert_eq!(claude.kind, ProviderKind::Anthropic);
    assert_eq!(
        claude.messages_url(),
        "https://api.anthropic.com/v1/messages"
    );

    // Permission section.
    assert_eq!(
        cfg.permission_mode(),
        Some(ExecutionState::new(Mode::Build, false))
    );
    let s = cfg.permission_settings();
    assert!(s.is_allowed("Read") && s.is_allowed("Glob"));
    assert!(s.is_disallowed(&declaration_for("WebSearch")));
    assert!(!s.auto_approve_high_risk);
    assert!(s.web_fetch_domain_allowed("api.github.com"));
    assert_eq!(s.read_only_commands, ["make -n:*"]);
    assert_eq!(
        s.sandbox,
        zcode::sandbox::SandboxSettings {
            mode: zcode::sandbox::SandboxMode::Auto,
            approved_commands: zcode::sandbox::ApprovedCommands::None,
            network: false,
            limits: zcode::sandbox::ResourceLimits {
                memory_mib: 4096,
                process_limit: 1024,
            },
        }
    );

    // Hooks.
    let pre: Vec<_> = cfg.hooks.matching(HookEvent::PreToolUse, "Bash").collect();
    assert_eq!(pre.len(), 1);
    assert_eq!(pre[0].timeout_ms, 5000);
    let ask = cfg.hooks.entries(HookEvent::PermissionRequest);
    assert_eq!(ask[0].timeout_ms, 60_000);
    assert!(ask[0].matches("AnyTool"));
    assert_eq!(
        cfg.hooks.matching(HookEvent::PostToolUse, "Write").count(),
        1
    );
    assert_eq!(
        cfg.hooks.matching(HookEvent::PostToolUse, "Read").count(),
        0
    );

    // The default model resolves in the merged catalog.
    let catalog = cfg.catalog(env_of(&[]));
    let (p, m) = catalog.resolve("work/gpt-4.1").unwrap();
    assert_eq!((p.id.as_str(), m.id.as_str()), ("work", "gpt-4.1"));
    assert!(catalog.resolve("WORK/o4-mini").is_some());
    assert!(catalog.resolve("work/nope").is_none());
    assert!(catalog.resolve("gpt-4.1").is_none());
}

// ---- CONF-1: unknown keys --------------------------------------------------

#[test]
fn conf1_unknown_keys_are_warnings_at_any_depth() {
    let text = r#"{
        "permision": {"mode": "yolo"},
        "permission": {"mode": "edit", "allowedTool": ["Read"]},
        "providers": [{"id": "p", "kind": "openai", "baseUrl": "https://x/v1",
                       "models": [{"id": "m", "contextWindow": 10, "note": "hi"}]}],
        "hooks": {"PreTooluse": [], "PostToolUse": [{"matcher": "*", "command": "true", "timeout": 5}]}
    }"#;
    let cfg = parse(text).unwrap();
    assert_eq!(
        cfg.permission_mode(),
        Some(ExecutionState::new(Mode::Edit, false))
    );
    let p = "/home/u/.zcode/config.json";
    let mut warnings = cfg.warnings.clone();
    warnings.sort();
    let mut expected = vec![
        format!("unknown key 'permision' in {p}"),
        format!("unknown key 'permission.allowedTool' in {p}"),
        format!("unknown key 'providers[0].models[0].note' in {p}"),
        format!("unknown key 'hooks.PreTooluse' in {p}"),
        format!("unknown key 'hooks.PostToolUse[0].timeout' in {p}"),
    ];
    expected.sort();
    assert_eq!(warnings, expected);
}

// ---- permission section ----------------------------------------------------

#[test]
fn conf1_exec1_mode_plan_is_build_plus_plan_flag() {
    let cfg = parse(r#"{"permission": {"mode": "Plan"}}"#).unwrap();
    assert_eq!(
        cfg.permission_mode(),
        Some(ExecutionState::new(Mode::Build, true))
    );
}

#[test]
fn conf1_mode_is_case_insensitive() {
    for (value, mode) in [
        ("BUILD", Mode::Build),
        ("Edit", Mode::Edit),
        ("yolo", Mode::Yolo),
    ] {
        let cfg = parse(&format!(r#"{{"permission": {{"mode": "{value}"}}}}"#)).unwrap();
        assert_eq!(
            cfg.permission_mode(),
            Some(ExecutionState::new(mode, false))
        );
    }
}

#[test]
fn conf1_mode_auto_is_rejected() {
    let msg = parse_err(r#"{"permission": {"mode": "auto"}}"#);
    assert_eq!(
        msg,
        "/home/u/.zcode/config.json: permission.mode: mode 'auto' is reserved and not implemented; use plan, build, edit or yolo"
    );
    assert!(parse(r#"{"permission": {"mode": "AUTO"}}"#).is_err());
}

#[test]
fn conf1_unknown_mode_is_rejected() {
    let msg = parse_err(r#"{"permission": {"mode": "fast"}}"#);
    assert_eq!(
        msg,
        "/home/u/.zcode/config.json: permission.mode: invalid mode 'fast': expected one of plan, build, edit, yolo"
    );
}

#[test]
fn conf1_permission_settings_normalise_domains() {
    let text = r#"{"permission": {
        "allowedTools": ["Read", "Read", "Grep"],
        "disallowedTools": ["Bash"],
        "autoApproveHighRisk": true,
        "webFetchAllowedDomains": ["  Docs.RS ", "*.GitHub.com", "  "]
    }}"#;
    let s = parse(text).unwrap().permission_settings();
    assert_eq!(s.web_fetch_allowed_domains, ["docs.rs", "*.github.com"]);
    assert_eq!(s.allowed_tools.len(), 2);
    assert!(s.is_disallowed(&declaration_for("Bash")));
    assert!(s.auto_approve_high_risk);
    assert!(s.web_fetch_domain_allowed("docs.rs"));
}

#[test]
fn conf1_tool_list_entries_with_content_are_scoped_rules() {
    let text = r#"{"permission": {
        "allowedTools": ["Bash(git diff:*)", "Read"],
        "disallowedTools": ["Bash(rm:*)"]
    }}"#;
    let s = parse(text).unwrap().permission_settings();
    assert!(!s.is_allowed("Bash"));
    assert!(s.is_allowed("Read"));
    assert!(!s.is_disallowed(&declaration_for("Bash")));
    assert_eq!(s.allow_rules.len(), 1);
    assert_eq!(s.deny_rules.len(), 1);
    let msg = parse_err(r#"{"permission": {"allowedTools": ["Bash(git diff"]}}"#);
    assert!(msg.contains("permission.allowedTools[0]"), "{msg}");
    assert!(msg.contains("is not a rule"), "{msg}");
}

#[test]
fn conf1_defaults_when_sections_missing() {
    let cfg = parse("{}").unwrap();
    assert_eq!(cfg, Config::default());
    assert_eq!(
        cfg.permission_settings(),
        zcode::permission::settings::PermissionSettings::default()
    );
}

// ---- hooks ---------------------------------------------------------------

#[test]
fn conf1_hook_timeout_default_and_range() {
    let hook = |extra: &str| {
        parse(&format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Bash", "command": "x"{extra}}}]}}}}"#
        ))
    };
    let cfg = hook("").unwrap();
    assert_eq!(cfg.hooks.pre_tool_use[0].timeout_ms, 60_000);
    assert_eq!(
        hook(r#", "timeoutMs": 600000"#).unwrap().hooks.pre_tool_use[0].timeout_ms,
        600_000
    );
    assert_eq!(
        hook(r#", "timeoutMs": 1"#).unwrap().hooks.pre_tool_use[0].timeout_ms,
        1
    );
    for bad in ["0", "600001"] {
        let msg = hook(&format!(r#", "timeoutMs": {bad}"#))
            .unwrap_err()
            .to_string();
        assert_eq!(
            msg,
            format!(
                "/home/u/.zcode/config.json: hooks.PreToolUse[0].timeoutMs: {bad} is out of range: must be 1..=600000"
            )
        );
    }
    let msg = hook(r#", "timeoutMs": -5"#).unwrap_err().to_string();
    assert!(msg.starts_with("/home/u/.zcode/config.json:1:"), "{msg}");
}

#[test]
fn conf1_hook_matcher_and_command_validated() {
    let msg = parse_err(r#"{"hooks": {"PostToolUse": [{"matcher": "", "command": "x"}]}}"#);
    assert!(
        msg.starts_with(
            "/home/u/.zcode/config.json: hooks.PostToolUse[0].matcher: must not be empty"
        ),
        "{msg}"
    );
    let msg =
        parse_err(r#"{"hooks": {"PostToolUse": [{"matcher": "Edit||Write", "command": "x"}]}}"#);
    assert!(msg.contains("hooks.PostToolUse[0].matcher"), "{msg}");
    let msg = parse_err(r#"{"hooks": {"PermissionRequest": [{"matcher": "*", "command": " "}]}}"#);
    assert_eq!(
        msg,
        "/home/u/.zcode/config.json: hooks.PermissionRequest[0].command: must not be empty"
    );
    let msg = parse_err(r#"{"hooks": {"PreToolUse": [{"command": "x"}]}}"#);
    assert!(msg.contains("missing field `matcher`"), "{msg}");
}

#[test]
fn conf1_hook_matcher_alternatives() {
    let cfg = parse(
        r#"{"hooks": {"PreToolUse": [
            {"matcher": "Edit|Write", "command": "a"},
            {"matcher": "*", "command": "b"},
            {"matcher": "Bash", "command": "c"}
        ]}}"#,
    )
    .unwrap();
    let cmds = |tool: &str| -> Vec<String> {
        cfg.hooks
            .matching(HookEvent::PreToolUse, tool)
            .map(|h| h.command.clone())
            .collect()
    };
    assert_eq!(cmds("Write"), ["a", "b"]);
    assert_eq!(cmds("Bash"), ["b", "c"]);
    assert_eq!(cmds("Read"), ["b"]);
}

// ---- MODEL-1 validation ----------------------------------------------------

fn model1_err(text: &str) -> String {
    let msg = parse_err(text);
    assert!(
        msg.starts_with("/home/u/.zcode/config.json: "),
        "error must name the file: {msg}"
    );
    msg
}

#[test]
fn model1_provider_id_must_not_be_empty() {
    let msg =
        model1_err(r#"{"providers": [{"id": " ", "kind": "openai", "baseUrl": "https://x"}]}"#);
    assert_eq!(
        msg,
        "/home/u/.zcode/config.json: providers[0].id: must not be empty"
    );
}

#[test]
fn model1_provider_id_must_not_contain_slash() {
    let msg =
        model1_err(r#"{"providers": [{"id": "a/b", "kind": "openai", "baseUrl": "https://x"}]}"#);
    assert!(
        msg.contains(": providers[0].id: 'a/b' must not contain '/'"),
        "{msg}"
    );
}

#[test]
fn model1_provider_ids_unique_case_insensitive() {
    let msg = model1_err(
        r#"{"providers": [
            {"id": "alpha", "kind": "openai", "baseUrl": "https://x"},
            {"id": "Alpha", "kind": "anthropic", "baseUrl": "https://y"}
        ]}"#,
    );
    assert!(
        msg.contains(
            ": providers[1].id: duplicate provider id 'Alpha' (already used by providers[0]"
        ),
        "{msg}"
    );
}

#[test]
fn model1_base_url_needs_http_scheme() {
    for bad in ["localhost:8080/v1", "ftp://x", "https://", ""] {
        let msg = model1_err(&format!(
            r#"{{"providers": [{{"id": "p", "kind": "openai", "baseUrl": "{bad}"}}]}}"#
        ));
        assert!(
            msg.contains(&format!(
                ": providers[0].baseUrl: '{bad}' must start with http:// or https://"
            )),
            "{msg}"
        );
    }
    assert!(
        parse(r#"{"providers": [{"id": "p", "kind": "openai", "baseUrl": "HTTP://localhost"}]}"#)
            .is_ok()
    );
}

#[test]
fn model1_unknown_kind_is_a_type_error() {
    let msg =
        parse_err(r#"{"providers": [{"id": "p", "kind": "gemini", "baseUrl": "https://x"}]}"#);
    assert!(msg.starts_with("/home/u/.zcode/config.json:1:"), "{msg}");
    assert!(
        msg.contains("unknown variant `gemini`, expected `openai` or `anthropic`"),
        "{msg}"
    );
}

#[test]
fn model1_model_id_must_not_be_empty() {
    let msg = model1_err(
        r#"{"providers": [{"id": "p", "kind": "openai", "baseUrl": "https://x",
            "models": [{"id": "", "contextWindow": 5}]}]}"#,
    );
    assert_eq!(
        msg,
        "/home/u/.zcode/config.json: providers[0].models[0].id: must not be empty"
    );
}

#[test]
fn model1_model_ids_unique_within_provider() {
    let msg = model1_err(
        r#"{"providers": [{"id": "p", "kind": "openai", "baseUrl": "https://x",
            "models": [{"id": "m", "contextWindow": 5}, {"id": "m", "contextWindow": 6}]}]}"#,
    );
    assert!(
        msg.contains(": providers[0].models[1].id: duplicate model id 'm'"),
        "{msg}"
    );
    // The same model id under two providers is fine.
    parse(
        r#"{"providers": [
            {"id": "a", "kind": "openai", "baseUrl": "https://x", "models": [{"id": "m", "contextWindow": 5}]},
            {"id": "b", "kind": "openai", "baseUrl": "https://y", "models": [{"id": "m", "contextWindow": 5}]}
        ]}"#,
    )
    .unwrap();
}

#[test]
fn model1_context_window_must_be_positive() {
    let text = r#"{"providers": [
        {"id": "a", "kind": "openai", "baseUrl": "https://x", "models": []},
        {"id": "b", "kind": "openai", "baseUrl": "https://y",
         "models": [{"id": "m", "contextWindow": 0}]}
    ]}"#;
    assert_eq!(
        model1_err(text),
        "/home/u/.zcode/config.json: providers[1].models[0].contextWindow: must be greater than 0"
    );
    let msg = parse_err(&one_provider("", "").replace("1000", "-1"));
    assert!(msg.contains("expected u64"), "{msg}");
}

#[test]
fn model1_default_reasoning_must_be_a_level() {
    let msg = model1_err(&one_provider(
        "",
        r#", "reasoningLevels": ["low", "high"], "defaultReasoning": "medium""#,
    ));
    assert_eq!(
        msg,
        "/home/u/.zcode/config.json: providers[0].models[0].defaultReasoning: 'medium' is not one of reasoningLevels (low, high)"
    );
    let msg = model1_err(&one_provider("", r#", "defaultReasoning": "low""#));
    assert!(
        msg.contains(
            "providers[0].models[0].defaultReasoning: 'low' is set but reasoningLevels is empty"
        ),
        "{msg}"
    );
    let ok = parse(&one_provider(
        "",
        r#", "reasoningLevels": ["low", "high"], "defaultReasoning": "high""#,
    ))
    .unwrap();
    assert_eq!(
        ok.providers[0].models[0].default_reasoning.as_deref(),
        Some("high")
    );
}

#[test]
fn model1_reasoning_levels_non_empty_and_unique() {
    let msg = model1_err(&one_provider("", r#", "reasoningLevels": ["low", ""]"#));
    assert!(
        msg.contains("providers[0].models[0].reasoningLevels[1]: must not be empty"),
        "{msg}"
    );
    let msg = model1_err(&one_provider("", r#", "reasoningLevels": ["low", "low"]"#));
    assert!(
        msg.contains("providers[0].models[0].reasoningLevels[1]: duplicate reasoning level 'low'"),
        "{msg}"
    );
}

#[test]
fn model1_disabled_needs_a_reason() {
    let cfg = parse(&one_provider("", r#", "disabled": "too slow""#)).unwrap();
    assert_eq!(
        cfg.providers[0].models[0].disabled.as_deref(),
        Some("too slow")
    );
    let msg = model1_err(&one_provider("", r#", "disabled": """#));
    assert!(msg.contains("providers[0].models[0].disabled:"), "{msg}");
    let msg = parse_err(&one_provider("", r#", "disabled": true"#));
    assert!(msg.contains("expected a string"), "{msg}");
}

#[test]
fn model1_api_key_env_and_name() {
    let cfg = parse(&one_provider("", "")).unwrap();
    let p = &cfg.providers[0];
    assert_eq!(p.name, "p", "name defaults to the id");
    assert_eq!(p.api_key_env, None);
    assert_eq!(p.api_key(env_of(&[])), Ok(None));

    let msg = model1_err(&one_provider(r#", "apiKeyEnv": """#, ""));
    assert!(
        msg.contains("providers[0].apiKeyEnv: must not be empty"),
        "{msg}"
    );

    let cfg = parse(&one_provider(
        r#", "apiKeyEnv": "P_KEY", "name": "Local""#,
        "",
    ))
    .unwrap();
    let p = &cfg.providers[0];
    assert_eq!(p.name, "Local");
    assert_eq!(
        p.api_key(env_of(&[("P_KEY", "k")])),
        Ok(Some("k".to_string()))
    );
    let err = p.api_key(env_of(&[])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "provider 'p' needs an API key: set the environment variable P_KEY"
    );
}

#[test]
fn model1_missing_required_provider_field_is_a_type_error() {
    let msg = parse_err("{\"providers\": [\n  {\"id\": \"p\", \"kind\": \"openai\"}\n]}");
    assert_eq!(
        msg,
        "/home/u/.zcode/config.json:2:31: missing field `baseUrl`"
    );
}

#[test]
fn conf1_empty_model_reference_is_rejected() {
    let msg = parse_err(r#"{"model": ""}"#);
    assert!(
        msg.starts_with("/home/u/.zcode/config.json: model: must not be empty"),
        "{msg}"
    );
}

// ---- MODEL-1 env shortcuts ---------------------------------------------------

#[test]
fn model1_env_nothing_set_gives_no_providers() {
    assert!(env_providers(env_of(&[])).is_empty());
    assert!(
        env_providers(env_of(&[
            ("OPENAI_API_KEY", ""),
            ("ANTHROPIC_API_KEY", "  ")
        ]))
        .is_empty()
    );
    // A model without a key or base URL adds nothing.
    assert!(env_providers(env_of(&[("OPENAI_MODEL", "x"), ("ANTHROPIC_MODEL", "y")])).is_empty());
}

#[test]
fn model1_env_openai_key_only_uses_defaults() {
    let ps = env_providers(env_of(&[("OPENAI_API_KEY", "sk-1")]));
    assert_eq!(ps.len(), 1);
    let p = &ps[0];
    assert_eq!(p.id, "openai");
    assert_eq!(p.kind, ProviderKind::Openai);
    assert_eq!(p.base_url, "https://api.openai.com/v1");
    assert_eq!(p.api_key_env.as_deref(), Some("OPENAI_API_KEY"));
    assert!(!p.api_key_optional);
    assert_eq!(p.models.len(), 1);
    assert_eq!(p.models[0].id, "gpt-4.1");
    // OpenAI's own API lists no windows: its models' smallest is taken.
    assert_eq!(p.models[0].context_window, Some(128_000));
    assert_eq!(
        p.chat_completions_url(),
        "https://api.openai.com/v1/chat/completions"
    );
}

#[test]
fn model1_env_openai_with_base_url_and_model() {
    let ps = env_providers(env_of(&[
        ("OPENAI_API_KEY", "sk-1"),
        ("OPENAI_BASE_URL", "https://gw.example.com/v1/"),
        ("OPENAI_MODEL", "gpt-5"),
    ]));
    let p = &ps[0];
    assert_eq!(p.base_url, "https://gw.example.com/v1/");
    assert_eq!(
        p.chat_completions_url(),
        "https://gw.example.com/v1/chat/completions"
    );
    assert_eq!(p.models[0].id, "gpt-5");
    // Not known here: the server is asked (not a guessed 128k).
    assert_eq!(p.models[0].context_window, None);
}

#[test]
fn model1_env_openai_base_url_only_makes_key_optional() {
    // A local server (llama.cpp and the like) needs no key.
    let env = env_of(&[("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")]);
    let ps = env_providers(&env);
    assert_eq!(ps.len(), 1);
    let p = &ps[0];
    assert_eq!(p.id, "openai");
    assert_eq!(p.api_key_env.as_deref(), Some("OPENAI_API_KEY"));
    assert!(p.api_key_optional);
    assert_eq!(p.api_key(&env), Ok(None));
    assert_eq!(p.models[0].id, "gpt-4.1");
    assert_eq!(
        p.chat_completions_url(),
        "http://127.0.0.1:8080/v1/chat/completions"
    );
}

#[test]
fn model1_env_anthropic_defaults_and_overrides() {
    let ps = env_providers(env_of(&[("ANTHROPIC_API_KEY", "sk-ant")]));
    assert_eq!(ps.len(), 1);
    let p = &ps[0];
    assert_eq!(p.id, "anthropic");
    assert_eq!(p.kind, ProviderKind::Anthropic);
    assert_eq!(p.base_url, "https://api.anthropic.com");
    assert_eq!(p.api_key_env.as_deref(), Some("ANTHROPIC_API_KEY"));
    assert_eq!(p.models[0].id, "claude-sonnet-4-5");
    assert_eq!(p.models[0].context_window, Some(200_000));
    assert_eq!(p.messages_url(), "https://api.anthropic.com/v1/messages");

    let ps = env_providers(env_of(&[
        ("ANTHROPIC_API_KEY", "sk-ant"),
        ("ANTHROPIC_BASE_URL", "https://proxy.example.com/"),
        ("ANTHROPIC_MODEL", "claude-opus-4-1"),
    ]));
    assert_eq!(ps[0].models[0].id, "claude-opus-4-1");
    assert_eq!(
        ps[0].messages_url(),
        "https://proxy.example.com/v1/messages"
    );
    // A base URL alone does not add an Anthropic provider.
    assert!(env_providers(env_of(&[("ANTHROPIC_BASE_URL", "https://x")])).is_empty());
}

#[test]
fn model1_env_both_providers_in_order() {
    let ps = env_providers(env_of(&[
        ("ANTHROPIC_API_KEY", "a"),
        ("OPENAI_API_KEY", "o"),
    ]));
    let ids: Vec<&str> = ps.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["openai", "anthropic"]);
}

#[test]
fn model1_catalog_config_wins_over_env() {
    let cfg = parse(
        r#"{"providers": [{"id": "OpenAI", "kind": "openai", "baseUrl": "http://localhost:1234/v1",
            "models": [{"id": "local", "contextWindow": 32000}]}]}"#,
    )
    .unwrap();
    let env = env_of(&[("OPENAI_API_KEY", "sk"), ("ANTHROPIC_API_KEY", "a")]);
    let catalog: Catalog = cfg.catalog(env);
    let ids: Vec<&str> = catalog.providers.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["OpenAI", "anthropic"]);
    assert_eq!(
        catalog.provider("openai").unwrap().base_url,
        "http://localhost:1234/v1"
    );
    assert!(catalog.resolve("openai/local").is_some());
    assert!(catalog.resolve("openai/gpt-4.1").is_none());
    assert!(catalog.resolve("anthropic/claude-sonnet-4-5").is_some());
}

#[test]
fn model1_url_helpers_tolerate_trailing_slash() {
    let mut cfg = parse(&one_provider("", "")).unwrap();
    let p = &mut cfg.providers[0];
    assert_eq!(
        p.chat_completions_url(),
        "http://localhost:8080/v1/chat/completions"
    );
    p.base_url = "https://api.anthropic.com//".to_string();
    assert_eq!(p.messages_url(), "https://api.anthropic.com/v1/messages");
    p.base_url = "https://api.anthropic.com".to_string();
    assert_eq!(p.messages_url(), "https://api.anthropic.com/v1/messages");
}

#[test]
fn model1_model_ids_may_contain_slash() {
    let cfg = parse(
        r#"{"providers": [{"id": "hf", "kind": "openai", "baseUrl": "https://x/v1",
            "models": [{"id": "meta-llama/Llama-3.1-8B", "contextWindow": 8192}]}]}"#,
    )
    .unwrap();
    let catalog = cfg.catalog(env_of(&[]));
    let (_, m) = catalog.resolve("hf/meta-llama/Llama-3.1-8B").unwrap();
    assert_eq!(m.context_window, Some(8192));
}

// ---- GRANT-3 project ids -----------------------------------------------------

#[test]
fn grant3_project_id_examples() {
    let id = project_id(Path::new("/home/u/src/zcode"));
    assert!(id.starts_with("home-u-src-zcode-"), "{id}");
    let id = project_id(Path::new("/Home/U/My Project (2)"));
    assert!(id.starts_with("home-u-my-project-2-"), "{id}");
    // Folded alike, still apart.
    assert_ne!(
        project_id(Path::new("/a/ws")),
        project_id(Path::new("/a-ws"))
    );
    assert_ne!(
        project_id(Path::new("/a/ws")),
        project_id(Path::new("/a/WS"))
    );
}

proptest::proptest! {
    #[test]
    fn grant3_project_id_shape(path in "/[ -~\\u{80}-\\u{2000}]{0,200}") {
        let id = project_id(Path::new(&path));
        proptest::prop_assert!(id.len() <= 80);
        proptest::prop_assert!(!id.is_empty());
        proptest::prop_assert!(!id.starts_with('-') && !id.ends_with('-'));
        proptest::prop_assert!(id.chars().all(|c| c.is_ascii_lowercase()
            || c.is_ascii_digit() || matches!(c, '.' | '_' | '-')));
        proptest::prop_assert_eq!(&id, &project_id(Path::new(&path)));
    }
}

#[test]
fn agents_max_parallel_defaults_to_three_and_takes_1_to_16() {
    assert_eq!(parse("{}").unwrap().agents.max_parallel, 3);
    // The README's example.
    assert_eq!(
        parse(r#"{"agents": {"maxParallel": 2}}"#)
            .unwrap()
            .agents
            .max_parallel,
        2
    );
    for bad in ["0", "17", "-1", "\"2\""] {
        let text = format!(r#"{{"agents": {{"maxParallel": {bad}}}}}"#);
        let err = parse_err(&text);
        // A value of the wrong kind is a type error at its line and column.
        assert!(
            err.contains("agents.maxParallel: must be a whole number from 1 to 16")
                || err.contains("config.json:1:"),
            "{bad}: {err}"
        );
    }
    assert!(
        parse(r#"{"agents": {"maxParalel": 2}}"#)
            .unwrap()
            .warnings
            .iter()
            .any(|w| w.contains("agents.maxParalel"))
    );
}

// ---- acp section (ASK-7) ---------------------------------------------------

#[test]
fn ask7_acp_auto_continue_defaults_when_missing() {
    use std::time::Duration;
    let cfg = parse("{}").unwrap();
    let c = cfg.acp.auto_continue;
    assert!(c.enabled);
    assert_eq!(c.grace, Duration::from_secs(60));
    assert_eq!(c.deadline, Duration::from_secs(300));
    // An empty section is the defaults too.
    assert_eq!(
        parse(r#"{"acp": {"autoContinue": {}}}"#).unwrap().acp,
        cfg.acp
    );
    assert_eq!(parse(r#"{"acp": {}}"#).unwrap().acp, cfg.acp);
}

#[test]
fn ask7_acp_auto_continue_as_written() {
    use std::time::Duration;
    let cfg = parse(
        r#"{"acp": {"autoContinue": {"enabled": false, "graceMs": 200, "deadlineMs": 1000}}}"#,
    )
    .unwrap();
    let c = cfg.acp.auto_continue;
    assert!(!c.enabled);
    assert_eq!(c.grace, Duration::from_millis(200));
    assert_eq!(c.deadline, Duration::from_millis(1000));
    assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
    // The issue's own example reads as the defaults.
    let example = parse(
        r#"{"acp": {"autoContinue": {"enabled": true, "graceMs": 60000, "deadlineMs": 300000}}}"#,
    )
    .unwrap();
    assert_eq!(example.acp, parse("{}").unwrap().acp);
}

#[test]
fn ask7_acp_bad_values_name_the_key() {
    let p = "/home/u/.zcode/config.json";
    assert_eq!(
        parse_err(r#"{"acp": {"autoContinue": {"graceMs": 300000}}}"#),
        format!(
            "{p}: acp.autoContinue.graceMs: graceMs (300000) must be less than deadlineMs (300000): the countdown is shown before the question continues"
        )
    );
    assert!(
        parse_err(r#"{"acp": {"autoContinue": {"deadlineMs": 0, "graceMs": 0}}}"#).starts_with(
            &format!("{p}: acp.autoContinue.deadlineMs: must be greater than 0")
        )
    );
    assert!(
        parse_err(r#"{"acp": {"autoContinue": {"deadlineMs": 86400001}}}"#)
            .contains("acp.autoContinue.deadlineMs: 86400001 is out of range")
    );
    // The default grace is longer than this deadline: the deadline is named.
    assert!(
        parse_err(r#"{"acp": {"autoContinue": {"deadlineMs": 1000}}}"#).starts_with(&format!(
            "{p}: acp.autoContinue.deadlineMs: graceMs (60000)"
        ))
    );
}

#[test]
fn ask7_acp_wrong_types_are_type_errors_with_a_position() {
    for bad in [
        r#"{"acp": {"autoContinue": {"enabled": "yes"}}}"#,
        r#"{"acp": {"autoContinue": {"graceMs": "60000"}}}"#,
        r#"{"acp": {"autoContinue": {"deadlineMs": -1}}}"#,
        r#"{"acp": {"autoContinue": {"deadlineMs": 1.5}}}"#,
        r#"{"acp": {"autoContinue": {"deadlineMs": 99999999999999999999999}}}"#,
        r#"{"acp": {"autoContinue": [true, 1, 2]}}"#,
        r#"{"acp": [{"autoContinue": {}}]}"#,
        r#"{"acp": true}"#,
    ] {
        match parse(bad) {
            Err(ConfigError::Parse { line, column, .. }) => {
                assert_eq!(line, 1, "{bad}");
                assert!(column > 1, "{bad}");
            }
            other => panic!("{bad}: expected a type error, got {other:?}"),
        }
    }
}

#[test]
fn ask7_acp_unknown_keys_are_warnings() {
    let cfg =
        parse(r#"{"acp": {"autoContinu": {}, "autoContinue": {"graceMS": 5, "enabled": true}}}"#)
            .unwrap();
    let mut warnings = cfg.warnings.clone();
    warnings.sort();
    let p = "/home/u/.zcode/config.json";
    assert_eq!(
        warnings,
        [
            format!("unknown key 'acp.autoContinu' in {p}"),
            format!("unknown key 'acp.autoContinue.graceMS' in {p}"),
        ]
    );
    assert_eq!(
        cfg.acp.auto_continue.grace,
        std::time::Duration::from_secs(60)
    );
}

// ---- prompt caches: prices of a model ------------------------------------

#[test]
fn cache_cost_prices_from_the_config_in_dollars_per_million() {
    let text = one_provider(
        "",
        r#", "prices": {"input": 0.6, "output": 2.4, "cacheRead": 0.06}"#,
    );
    let config = parse(&text).unwrap();
    let prices = config.providers[0].models[0].prices.unwrap();
    assert_eq!(prices.input, 600_000);
    assert_eq!(prices.output, 2_400_000);
    assert_eq!(prices.cache_read, 60_000);
    // No cache-write price: writing costs the input price.
    assert_eq!(prices.cache_write, 600_000);
    let err = parse_err(&one_provider(
        "",
        r#", "prices": {"input": -1, "output": 2}"#,
    ));
    assert!(err.contains("models[0].prices"), "{err}");
}

#[test]
fn cache_cost_well_known_models_have_prices_only_on_their_makers_api() {
    let env = env_of(&[
        ("ANTHROPIC_API_KEY", "k"),
        ("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1"),
    ]);
    let providers = env_providers(env);
    let anthropic = providers.iter().find(|p| p.id == "anthropic").unwrap();
    let sonnet = anthropic.models[0].prices.unwrap();
    assert_eq!(
        (sonnet.input, sonnet.cache_read, sonnet.cache_write),
        (3_000_000, 300_000, 3_750_000)
    );
    // A local server's default-named model is not OpenAI's gpt-4.1.
    let local = providers.iter().find(|p| p.id == "openai").unwrap();
    assert_eq!(local.models[0].prices, None);
}
