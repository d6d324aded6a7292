//! The MCP client: servers from config `mcpServers` and a trusted project
//! `.mcp.json`, their tools offered to the model as `mcp__<server>__<tool>`
//! and run through the approval pipeline like any other tool (their
//! annotations become the tool's capability), built on the official SDK.

pub mod config;
pub mod connection;
pub mod http;
pub mod hub;
pub mod result;
pub mod tool;
pub mod trust;

pub use config::{Origin, ServerEntry, Transport};

/// The directory under `$ZCODE_HOME` that the user's own stdio servers
/// start in (see `HubSetup::server_dir`).
pub(crate) const SERVER_DIR: &str = "mcp";
pub use hub::{HubSetup, McpHub, ServerReport, Status, render_report};

use serde_json::{Map, Value};
use std::path::Path;

/// The MCP part of a session's set-up, read before the runtime starts.
#[derive(Debug, Clone, Default)]
pub struct McpSetup {
    pub entries: Vec<ServerEntry>,
    /// Why the project's `.mcp.json` was left out, if it was.
    pub project_error: Option<String>,
    pub timeout: std::time::Duration,
}

impl McpSetup {
    /// The servers of the config and of `workspace`'s `.mcp.json`.
    pub fn load(
        config_servers: &Map<String, Value>,
        workspace: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Self {
        let (entries, project_error) = server_entries(config_servers, workspace, env);
        Self {
            entries,
            project_error,
            timeout: hub::startup_timeout(env),
        }
    }
}

/// Every server definition for a session in `workspace`: the config's
/// first, then the project's. A project file that cannot be read is
/// returned as its error (its servers are left out).
pub(crate) fn server_entries(
    config_servers: &Map<String, Value>,
    workspace: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> (Vec<ServerEntry>, Option<String>) {
    let mut entries = config::parse_servers(config_servers, &Origin::Config, env);
    match config::read_project_file(workspace, env) {
        Ok(project) => {
            entries.extend(project);
            (entries, None)
        }
        Err(why) => (entries, Some(why)),
    }
}
