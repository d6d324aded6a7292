//! Configuration: `$ZCODE_HOME/config.json` (CONF-1, CONF-2), the model
//! catalog (MODEL-1), hook entries, project ids (GRANT-3) and the `acp`
//! section (ASK-7).
//!
//! Loading never touches the process environment by itself: functions that
//! need variables take a lookup `impl Fn(&str) -> Option<String>`.

pub mod acp;
pub mod catalog;
mod file;
pub mod home;
pub mod hooks;
pub mod prices;
pub mod project_id;
pub mod project_root;

use std::io;
use std::path::{Path, PathBuf};

use crate::permission::mode::ExecutionState;
use crate::permission::settings::PermissionSettings;

pub use acp::{AcpConfig, AutoContinueConfig};
pub use catalog::{
    Catalog, MaxTokensField, Model, Prices, Provider, ProviderKind, StreamSettings, env_providers,
};
pub use home::{CONFIG_FILE_NAME, config_path, zcode_home};
pub use hooks::{HookEntry, HookEvent, Hooks};
pub use project_id::project_id;

/// Why the configuration could not be loaded. `Display` is one line that
/// names the file (and line:column or JSON path where there is one) and
/// already says the cause, so no variant also gives it as its `source()`
/// (a chain printed with `{:#}` would say it twice).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot locate the zcode home directory: neither ZCODE_HOME nor HOME is set")]
    HomeNotSet,
    #[error("{}: cannot read config file: {error}", .path.display())]
    Read { path: PathBuf, error: io::Error },
    /// Malformed JSON or a value of the wrong type.
    #[error("{}:{line}:{column}: {message}", .path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// Well-formed JSON with a value the rules reject.
    #[error("{}: {json_path}: {message}", .path.display())]
    Invalid {
        path: PathBuf,
        json_path: String,
        message: String,
    },
}

/// The config `permission` section, validated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PermissionConfig {
    /// `None` when the file sets no mode.
    pub mode: Option<ExecutionState>,
    pub allowed_tools: Vec<String>,
    pub disallowed_tools: Vec<String>,
    pub auto_approve_high_risk: bool,
    /// As written; [`Config::permission_settings`] normalises them.
    pub web_fetch_allowed_domains: Vec<String>,
    /// Command prefixes the user declares read-only; they run unasked only
    /// inside the read-only sandbox.
    pub read_only_commands: Vec<String>,
}

/// The config `agents` section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentsConfig {
    /// Sub-agents of one session running at the same time at most; the
    /// others wait their turn.
    pub max_parallel: usize,
}

impl AgentsConfig {
    pub const DEFAULT_MAX_PARALLEL: usize = 3;
    /// More would only queue requests at the provider.
    pub const MAX_PARALLEL_LIMIT: u64 = 16;
}

impl Default for AgentsConfig {
    fn default() -> Self {
        Self {
            max_parallel: Self::DEFAULT_MAX_PARALLEL,
        }
    }
}

/// The loaded configuration. `Default` is what a missing file means.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    /// Default model reference, `provider/model`.
    pub model: Option<String>,
    /// Providers defined in the file (MODEL-1); see [`Config::catalog`].
    pub providers: Vec<Provider>,
    pub permission: PermissionConfig,
    pub hooks: Hooks,
    /// The `sandbox` section.
    pub sandbox: crate::sandbox::SandboxSettings,
    /// The `agents` section: how sub-agents run.
    pub agents: AgentsConfig,
    /// The `acp` section: how `zcode acp` behaves towards its client.
    pub acp: AcpConfig,
    /// `mcpServers`, as written (see `mcp::config`).
    pub mcp_servers: serde_json::Map<String, serde_json::Value>,
    /// Non-fatal findings such as unknown keys, one line each.
    pub warnings: Vec<String>,
}

impl Config {
    /// Loads `home/config.json`. A missing file gives the defaults (CONF-2).
    pub fn load(home: &Path) -> Result<Config, ConfigError> {
        let path = home.join(CONFIG_FILE_NAME);
        Self::load_file(&path)
    }

    /// Loads the config file at `path`; missing means defaults.
    pub fn load_file(path: &Path) -> Result<Config, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(&text, path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Config::default()),
            Err(error) => Err(ConfigError::Read {
                path: path.to_path_buf(),
                error,
            }),
        }
    }

    /// Parses and validates config text; `path` names the file in errors
    /// and warnings.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        file::parse(text, path)
    }

    /// The permission inputs from this file. Domains are trimmed and
    /// lower-cased; blank entries are dropped.
    pub fn permission_settings(&self) -> PermissionSettings {
        let p = &self.permission;
        let mut settings = PermissionSettings {
            auto_approve_high_risk: p.auto_approve_high_risk,
            web_fetch_allowed_domains: p
                .web_fetch_allowed_domains
                .iter()
                .map(|d| d.trim().to_lowercase())
                .filter(|d| !d.is_empty())
                .collect(),
            read_only_commands: p.read_only_commands.clone(),
            sandbox: self.sandbox,
            ..Default::default()
        };
        // Entries were checked when the file was read; one that does not
        // read as a rule cannot be here.
        for entry in &p.allowed_tools {
            let _ = settings.add_allowed_entry(entry);
        }
        for entry in &p.disallowed_tools {
            let _ = settings.add_disallowed_entry(entry);
        }
        settings
    }

    /// The configured starting mode, if any (`plan` = build + plan flag).
    pub fn permission_mode(&self) -> Option<ExecutionState> {
        self.permission.mode
    }

    /// The file's providers plus those implied by the environment, the
    /// file winning on equal ids (MODEL-1).
    pub fn catalog(&self, env: impl Fn(&str) -> Option<String>) -> Catalog {
        Catalog::merge(&self.providers, env_providers(env))
    }
}
