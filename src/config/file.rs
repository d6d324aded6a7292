//! Parsing and validating `config.json` (CONF-1, CONF-2, MODEL-1).
//!
//! The file is read into private `Raw*` structs that mirror the JSON, then
//! checked and turned into the public types. Unknown keys are collected as
//! warnings; syntax and type errors carry the file, line and column;
//! validation errors carry the file and the JSON path of the bad value.

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::path::Path;

use serde::de::value::MapAccessDeserializer;
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::catalog::{MaxTokensField, Model, Provider, ProviderKind, StreamSettings};
use super::hooks::{
    DEFAULT_HOOK_TIMEOUT_MS, HookEntry, Hooks, MAX_HOOK_TIMEOUT_MS, validate_matcher,
};
use super::prices::{self, Prices};
use super::{Config, ConfigError, PermissionConfig};
use crate::permission::mode::{Mode, ModeError, parse_stored_mode};
use crate::sandbox::{ApprovedCommands, ResourceLimits, SandboxMode, SandboxSettings};

/// A JSON object holding a `T`. Derived struct impls also accept a JSON
/// array of the field values in order, which for a config file is only ever
/// a mistake (`"permission": ["build"]` would silently mean a mode); this
/// wrapper insists on an object and reports anything else with a position.
#[derive(Debug, Default)]
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = Object<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Object)
            }
        }

        deserializer.deserialize_map(ObjectVisitor(PhantomData))
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawConfig {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    providers: Vec<Object<RawProvider>>,
    #[serde(default)]
    permission: Object<RawPermission>,
    #[serde(default)]
    hooks: Object<RawHooks>,
    #[serde(default)]
    sandbox: Object<RawSandbox>,
    #[serde(default)]
    agents: Object<RawAgents>,
    #[serde(default)]
    acp: Object<RawAcp>,
    /// Checked per server by the MCP client, so that one bad definition
    /// is shown rather than refusing the whole file.
    #[serde(default)]
    mcp_servers: Object<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawAcp {
    #[serde(default)]
    auto_continue: Object<RawAutoContinue>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawAutoContinue {
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    grace_ms: Option<u64>,
    #[serde(default)]
    deadline_ms: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawAgents {
    #[serde(default)]
    max_parallel: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSandbox {
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    approved_commands: Option<String>,
    #[serde(default)]
    network: bool,
    #[serde(default, rename = "memoryLimitMiB")]
    memory_limit_mib: Option<u64>,
    #[serde(default)]
    process_limit: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawProvider {
    id: String,
    #[serde(default)]
    name: Option<String>,
    kind: ProviderKind,
    base_url: String,
    #[serde(default)]
    api_key_env: Option<String>,
    #[serde(default)]
    models: Vec<Object<RawModel>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawModel {
    id: String,
    #[serde(default)]
    context_window: Option<u64>,
    #[serde(default)]
    reasoning_levels: Vec<String>,
    #[serde(default)]
    default_reasoning: Option<String>,
    #[serde(default)]
    disabled: Option<String>,
    #[serde(default)]
    max_output_tokens: Option<u64>,
    #[serde(default)]
    max_tokens_field: Option<String>,
    #[serde(default)]
    content_idle_timeout_secs: Option<u64>,
    #[serde(default)]
    request_timeout_secs: Option<u64>,
    /// US dollars per million tokens.
    #[serde(default)]
    prices: Option<RawPrices>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPrices {
    input: f64,
    output: f64,
    #[serde(default)]
    cache_read: Option<f64>,
    #[serde(default)]
    cache_write: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPermission {
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    allowed_tools: Vec<String>,
    #[serde(default)]
    disallowed_tools: Vec<String>,
    #[serde(default)]
    auto_approve_high_risk: bool,
    #[serde(default)]
    web_fetch_allowed_domains: Vec<String>,
    #[serde(default)]
    read_only_commands: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
struct RawHooks {
    #[serde(default, rename = "PreToolUse")]
    pre_tool_use: Vec<Object<RawHook>>,
    #[serde(default, rename = "PermissionRequest")]
    permission_request: Vec<Object<RawHook>>,
    #[serde(default, rename = "PostToolUse")]
    post_tool_use: Vec<Object<RawHook>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawHook {
    matcher: String,
    command: String,
    #[serde(default)]
    timeout_ms: Option<u64>,
}

/// Parses and validates the text of a config file; `path` is used only in
/// messages.
pub(crate) fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
    // Editors on some systems save a byte-order mark; it is not JSON.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // A zero-byte (or whitespace-only) file means defaults, like a missing
    // one: `touch config.json` or an emptied file is a "nothing configured
    // yet" state, not a mistake worth refusing to start over.
    if text.trim().is_empty() {
        return Ok(Config::default());
    }

    let mut unknown = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let Object(raw): Object<RawConfig> =
        serde_ignored::deserialize(&mut de, |p| unknown.push(json_path(&p)))
            .map_err(|e| syntax_error(path, &e))?;
    de.end().map_err(|e| syntax_error(path, &e))?;

    let warnings = unknown
        .into_iter()
        .map(|key| format!("unknown key '{key}' in {}", path.display()))
        .collect();

    let v = Validator { path };
    Ok(Config {
        model: v.model(raw.model)?,
        providers: v.providers(raw.providers)?,
        permission: v.permission(raw.permission.0)?,
        hooks: v.hooks(raw.hooks.0)?,
        sandbox: v.sandbox(raw.sandbox.0)?,
        agents: v.agents(raw.agents.0)?,
        acp: v.acp(raw.acp.0)?,
        mcp_servers: raw.mcp_servers.0,
        warnings,
    })
}

/// Turns a serde_json error into `path:line:col: message`.
fn syntax_error(path: &Path, err: &serde_json::Error) -> ConfigError {
    let (line, column) = (err.line(), err.column());
    let full = err.to_string();
    let suffix = format!(" at line {line} column {column}");
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
    // serde_json counts columns from 1 but says 0 when it stopped before the
    // first character of a line (a peeked token, end of input after a
    // newline); editors have no column 0.
    let column = if line > 0 { column.max(1) } else { column };
    ConfigError::Parse {
        path: path.to_path_buf(),
        line,
        column,
        message,
    }
}

/// Renders a serde_ignored path as `a.b[0].c`.
fn json_path(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path as P;
    match path {
        P::Root => String::new(),
        P::Seq { parent, index } => format!("{}[{index}]", json_path(parent)),
        P::Map { parent, key } => {
            let parent = json_path(parent);
            if parent.is_empty() {
                key.clone()
            } else {
                format!("{parent}.{key}")
            }
        }
        P::Some { parent } | P::NewtypeStruct { parent } | P::NewtypeVariant { parent } => {
            json_path(parent)
        }
    }
}

struct Validator<'a> {
    path: &'a Path,
}

impl Validator<'_> {
    fn err(&self, json_path: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.to_path_buf(),
            json_path: json_path.into(),
            message: message.into(),
        }
    }

    fn model(&self, model: Option<String>) -> Result<Option<String>, ConfigError> {
        match model {
            Some(m) if m.trim().is_empty() => Err(self.err(
                "model",
                "must not be empty; write 'provider/model' or omit the key",
            )),
            other => Ok(other),
        }
    }

    fn providers(&self, raw: Vec<Object<RawProvider>>) -> Result<Vec<Provider>, ConfigError> {
        // Lower-cased id -> index of the first provider that used it.
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut out = Vec::with_capacity(raw.len());
        for (i, Object(p)) in raw.into_iter().enumerate() {
            let at = format!("providers[{i}]");
            if p.id.trim().is_empty() {
                return Err(self.err(format!("{at}.id"), "must not be empty"));
            }
            if p.id.contains('/') {
                return Err(self.err(
                    format!("{at}.id"),
                    format!(
                        "'{}' must not contain '/' (it separates provider and model)",
                        p.id
                    ),
                ));
            }
            if let Some(first) = seen.insert(p.id.to_lowercase(), i) {
                return Err(self.err(
                    format!("{at}.id"),
                    format!(
                        "duplicate provider id '{}' (already used by providers[{first}]; ids are compared case-insensitively)",
                        p.id
                    ),
                ));
            }
            if !has_http_scheme(&p.base_url) {
                return Err(self.err(
                    format!("{at}.baseUrl"),
                    format!("'{}' must start with http:// or https://", p.base_url),
                ));
            }
            if let Some(var) = &p.api_key_env
                && var.trim().is_empty()
            {
                return Err(self.err(
                    format!("{at}.apiKeyEnv"),
                    "must not be empty; omit it for a provider that needs no key",
                ));
            }
            let models = self.models(&at, p.kind, &p.base_url, p.models)?;
            let name = p
                .name
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| p.id.clone());
            out.push(Provider {
                id: p.id,
                name,
                kind: p.kind,
                base_url: p.base_url,
                api_key_env: p.api_key_env,
                api_key_optional: false,
                models,
            });
        }
        Ok(out)
    }

    fn models(
        &self,
        provider_at: &str,
        kind: ProviderKind,
        base_url: &str,
        raw: Vec<Object<RawModel>>,
    ) -> Result<Vec<Model>, ConfigError> {
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut out = Vec::with_capacity(raw.len());
        for (j, Object(m)) in raw.into_iter().enumerate() {
            let at = format!("{provider_at}.models[{j}]");
            if m.id.trim().is_empty() {
                return Err(self.err(format!("{at}.id"), "must not be empty"));
            }
            if let Some(first) = seen.insert(m.id.clone(), j) {
                return Err(self.err(
                    format!("{at}.id"),
                    format!(
                        "duplicate model id '{}' (already used by {provider_at}.models[{first}])",
                        m.id
                    ),
                ));
            }
            if m.context_window == Some(0) {
                return Err(self.err(format!("{at}.contextWindow"), "must be greater than 0"));
            }
            for (k, level) in m.reasoning_levels.iter().enumerate() {
                if level.trim().is_empty() {
                    return Err(self.err(format!("{at}.reasoningLevels[{k}]"), "must not be empty"));
                }
                if m.reasoning_levels[..k].contains(level) {
                    return Err(self.err(
                        format!("{at}.reasoningLevels[{k}]"),
                        format!("duplicate reasoning level '{level}'"),
                    ));
                }
            }
            if let Some(default) = &m.default_reasoning
                && !m.reasoning_levels.contains(default)
            {
                let message = if m.reasoning_levels.is_empty() {
                    format!("'{default}' is set but reasoningLevels is empty")
                } else {
                    format!(
                        "'{default}' is not one of reasoningLevels ({})",
                        m.reasoning_levels.join(", ")
                    )
                };
                return Err(self.err(format!("{at}.defaultReasoning"), message));
            }
            if let Some(reason) = &m.disabled
                && reason.trim().is_empty()
            {
                return Err(self.err(
                    format!("{at}.disabled"),
                    "must say why the model is disabled; omit the key to enable it",
                ));
            }
            let stream = self.stream_settings(&at, kind, &m)?;
            let prices = match &m.prices {
                Some(p) => Some(
                    Prices::from_dollars(p.input, p.output, p.cache_read, p.cache_write)
                        .ok_or_else(|| {
                            self.err(
                                format!("{at}.prices"),
                                "prices are US dollars per million tokens, from 0 to 1000000",
                            )
                        })?,
                ),
                None => prices::well_known(kind, base_url, &m.id),
            };
            out.push(Model {
                prices,
                id: m.id,
                context_window: m.context_window,
                reasoning_levels: m.reasoning_levels,
                default_reasoning: m.default_reasoning,
                disabled: m.disabled,
                stream,
            });
        }
        Ok(out)
    }

    /// A model's stream limits: `maxOutputTokens`, `maxTokensField` (for
    /// `openai` providers), `contentIdleTimeoutSecs`, `requestTimeoutSecs`.
    fn stream_settings(
        &self,
        at: &str,
        kind: ProviderKind,
        m: &RawModel,
    ) -> Result<StreamSettings, ConfigError> {
        use super::catalog::{MAX_OUTPUT_TOKENS_CEILING, MAX_TIMEOUT_SECS};
        let max_output_tokens = match m.max_output_tokens {
            None => None,
            Some(n) if (1..=u64::from(MAX_OUTPUT_TOKENS_CEILING)).contains(&n) => {
                u32::try_from(n).ok()
            }
            Some(n) => {
                return Err(self.err(
                    format!("{at}.maxOutputTokens"),
                    format!("{n} is out of range: must be 1..={MAX_OUTPUT_TOKENS_CEILING}"),
                ));
            }
        };
        let max_tokens_field = match m.max_tokens_field.as_deref() {
            None => None,
            Some(_) if kind != ProviderKind::Openai => {
                return Err(self.err(
                    format!("{at}.maxTokensField"),
                    "applies to providers of kind \"openai\" only (Anthropic always uses max_tokens)",
                ));
            }
            Some(value) => Some(MaxTokensField::parse(value).ok_or_else(|| {
                self.err(
                    format!("{at}.maxTokensField"),
                    format!("must be \"max_tokens\" or \"max_completion_tokens\", not \"{value}\""),
                )
            })?),
        };
        let seconds = |key: &str, value: Option<u64>| match value {
            Some(n) if !(1..=MAX_TIMEOUT_SECS).contains(&n) => Err(self.err(
                format!("{at}.{key}"),
                format!("{n} is out of range: must be 1..={MAX_TIMEOUT_SECS} seconds"),
            )),
            other => Ok(other),
        };
        Ok(StreamSettings {
            max_output_tokens,
            max_tokens_field,
            content_idle_timeout_secs: seconds(
                "contentIdleTimeoutSecs",
                m.content_idle_timeout_secs,
            )?,
            request_timeout_secs: seconds("requestTimeoutSecs", m.request_timeout_secs)?,
        })
    }

    fn permission(&self, raw: RawPermission) -> Result<PermissionConfig, ConfigError> {
        let mode = match raw.mode {
            None => None,
            // `plan` is build with the plan flag (EXEC-1).
            Some(value) => match parse_stored_mode(&value, Mode::Build) {
                Some(state) if state.mode == Mode::Auto => {
                    return Err(self.err("permission.mode", ModeError::AutoReserved.to_string()));
                }
                Some(state) => Some(state),
                None => {
                    return Err(self.err("permission.mode", ModeError::Invalid(value).to_string()));
                }
            },
        };
        Ok(PermissionConfig {
            mode,
            allowed_tools: self.tool_entries("allowedTools", raw.allowed_tools)?,
            disallowed_tools: self.tool_entries("disallowedTools", raw.disallowed_tools)?,
            auto_approve_high_risk: raw.auto_approve_high_risk,
            web_fetch_allowed_domains: raw.web_fetch_allowed_domains,
            read_only_commands: self.read_only_commands(raw.read_only_commands)?,
        })
    }

    /// `permission.allowedTools` / `disallowedTools`: `Tool` or
    /// `Tool(content)`, as rules are written; anything else is an error
    /// rather than an entry silently read as the whole tool.
    fn tool_entries(&self, key: &str, raw: Vec<String>) -> Result<Vec<String>, ConfigError> {
        for (i, entry) in raw.iter().enumerate() {
            if let Err(e) = crate::permission::rules::Rule::parse(entry) {
                return Err(self.err(format!("permission.{key}[{i}]"), e.to_string()));
            }
        }
        Ok(raw)
    }

    /// `permission.readOnlyCommands`: prefixes in the rule syntax
    /// (`make -n:*`, `mytool status:*`, or an exact command).
    fn read_only_commands(&self, raw: Vec<String>) -> Result<Vec<String>, ConfigError> {
        let mut out = Vec::with_capacity(raw.len());
        for (i, entry) in raw.into_iter().enumerate() {
            let entry = entry.trim().to_string();
            let program = entry.trim_end_matches(":*").trim();
            if program.is_empty() || program == "*" {
                return Err(self.err(
                    format!("permission.readOnlyCommands[{i}]"),
                    "must name a command, e.g. \"make -n:*\" (a bare wildcard would declare every command read-only)",
                ));
            }
            out.push(entry);
        }
        Ok(out)
    }

    fn agents(&self, raw: RawAgents) -> Result<super::AgentsConfig, ConfigError> {
        let max_parallel = match raw.max_parallel {
            None => super::AgentsConfig::DEFAULT_MAX_PARALLEL,
            Some(n @ 1..=super::AgentsConfig::MAX_PARALLEL_LIMIT) => n as usize,
            Some(_) => {
                return Err(self.err(
                    "agents.maxParallel",
                    format!(
                        "must be a whole number from 1 to {}",
                        super::AgentsConfig::MAX_PARALLEL_LIMIT
                    ),
                ));
            }
        };
        Ok(super::AgentsConfig { max_parallel })
    }

    /// `acp.autoContinue` (ASK-7).
    fn acp(&self, raw: RawAcp) -> Result<super::AcpConfig, ConfigError> {
        let c = raw.auto_continue.0;
        let auto_continue = super::acp::auto_continue(c.enabled, c.grace_ms, c.deadline_ms)
            .map_err(|(at, message)| self.err(at, message))?;
        Ok(super::AcpConfig { auto_continue })
    }

    fn sandbox(&self, raw: RawSandbox) -> Result<SandboxSettings, ConfigError> {
        let mode = match raw.mode.as_deref() {
            None => SandboxMode::default(),
            Some(value) => SandboxMode::parse(value).ok_or_else(|| {
                self.err(
                    "sandbox.mode",
                    format!("must be \"auto\", \"required\" or \"off\", not \"{value}\""),
                )
            })?,
        };
        let approved_commands = match raw.approved_commands.as_deref() {
            None => ApprovedCommands::default(),
            Some(value) => ApprovedCommands::parse(value).ok_or_else(|| {
                self.err(
                    "sandbox.approvedCommands",
                    format!("must be \"none\" or \"workspace-write\", not \"{value}\""),
                )
            })?,
        };
        let positive = |key: &str, value: Option<u64>, default: u64| match value {
            None => Ok(default),
            Some(0) => Err(self.err(key, "must be a positive whole number".to_string())),
            Some(n) => Ok(n),
        };
        let limits = ResourceLimits {
            memory_mib: positive(
                "sandbox.memoryLimitMiB",
                raw.memory_limit_mib,
                ResourceLimits::DEFAULT_MEMORY_MIB,
            )?,
            process_limit: positive(
                "sandbox.processLimit",
                raw.process_limit,
                ResourceLimits::DEFAULT_PROCESS_LIMIT,
            )?,
        };
        Ok(SandboxSettings {
            mode,
            approved_commands,
            network: raw.network,
            limits,
        })
    }

    fn hooks(&self, raw: RawHooks) -> Result<Hooks, ConfigError> {
        Ok(Hooks {
            pre_tool_use: self.hook_list("PreToolUse", raw.pre_tool_use)?,
            permission_request: self.hook_list("PermissionRequest", raw.permission_request)?,
            post_tool_use: self.hook_list("PostToolUse", raw.post_tool_use)?,
        })
    }

    fn hook_list(
        &self,
        event: &str,
        raw: Vec<Object<RawHook>>,
    ) -> Result<Vec<HookEntry>, ConfigError> {
        raw.into_iter()
            .enumerate()
            .map(|(i, Object(h))| {
                let at = format!("hooks.{event}[{i}]");
                validate_matcher(&h.matcher).map_err(|m| self.err(format!("{at}.matcher"), m))?;
                if h.command.trim().is_empty() {
                    return Err(self.err(format!("{at}.command"), "must not be empty"));
                }
                let timeout_ms = h.timeout_ms.unwrap_or(DEFAULT_HOOK_TIMEOUT_MS);
                if !(1..=MAX_HOOK_TIMEOUT_MS).contains(&timeout_ms) {
                    return Err(self.err(
                        format!("{at}.timeoutMs"),
                        format!("{timeout_ms} is out of range: must be 1..={MAX_HOOK_TIMEOUT_MS}"),
                    ));
                }
                Ok(HookEntry {
                    matcher: h.matcher,
                    command: h.command,
                    timeout_ms,
                })
            })
            .collect()
    }
}

/// `http://` or `https://` (scheme case-insensitive) followed by a host.
fn has_http_scheme(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    ["http://", "https://"]
        .iter()
        .any(|s| lower.starts_with(s) && lower.len() > s.len())
}
