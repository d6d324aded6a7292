//! The session's MCP servers: started in parallel, each within a bound,
//! their tools offered once they answer, their state shown on request. A
//! server that fails is reported and left out; it never stops a run.

use super::config::{Origin, ServerEntry, Transport};
use super::connection::{self, Connection};
use super::tool::McpTool;
use crate::permission::capability::McpHints;
use crate::permission::mcp_names;
use crate::tools::Tool;
use crate::tools::registry::ToolSource;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// How long a server has to start and list its tools, unless
/// `ZCODE_MCP_TIMEOUT` (seconds) says otherwise.
pub(crate) const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// The startup bound from the environment's `ZCODE_MCP_TIMEOUT`.
pub(crate) fn startup_timeout(env: &dyn Fn(&str) -> Option<String>) -> Duration {
    env("ZCODE_MCP_TIMEOUT")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 3600.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(DEFAULT_STARTUP_TIMEOUT)
}

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Starting,
    Connected,
    Failed(String),
    /// A project server the user has not trusted (or whose definition
    /// changed since): not started.
    Untrusted,
    /// Named by `--disallowedTools` / config `disallowedTools`: not started.
    Disallowed,
}

impl Status {
    pub fn label(&self) -> String {
        match self {
            Status::Starting => "starting".into(),
            Status::Connected => "connected".into(),
            Status::Failed(why) => format!("failed: {why}"),
            Status::Untrusted => "not trusted: not started".into(),
            Status::Disallowed => "disallowed: not started".into(),
        }
    }
}

/// One tool as `/mcp` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolReport {
    pub name: String,
    pub hints: McpHints,
}

/// One server as `/mcp` and `zcode mcp list` show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerReport {
    pub name: String,
    pub origin: String,
    pub transport: String,
    pub status: Status,
    pub tools: Vec<ToolReport>,
}

struct ServerSlot {
    /// Set while the server's changed tools are listed again.
    refreshing: Option<Arc<std::sync::atomic::AtomicBool>>,
    name: String,
    origin: Origin,
    digest: String,
    transport: String,
    /// An untrusted server's definition, started once it is trusted.
    held: Option<Transport>,
    status: Status,
    tools: Vec<Arc<McpTool>>,
}

struct Inner {
    servers: RwLock<Vec<ServerSlot>>,
    /// Entries of the tool lists that keep tools from the model (DIS-2).
    disallowed: Vec<String>,
    /// Bumped on every change, for whoever waits for the start to end.
    changed: watch::Sender<u64>,
    stop: CancellationToken,
    notice: Box<dyn Fn(String) + Send + Sync>,
    workspace: PathBuf,
    server_dir: PathBuf,
    timeout: Duration,
    /// Servers prepared but not yet launched.
    pending: std::sync::Mutex<Vec<(usize, Transport)>>,
}

/// What a session starts its servers with.
pub struct HubSetup {
    pub entries: Vec<ServerEntry>,
    /// Which project servers the user trusts, by name.
    pub trusted: Vec<String>,
    pub disallowed: Vec<String>,
    pub workspace: PathBuf,
    /// Where the user's own servers start (`$ZCODE_HOME/mcp`): a directory
    /// of their own, so the opened repository cannot substitute their
    /// program (`npx` resolves `node_modules/.bin` from its directory).
    /// A project's servers start in the workspace, where they belong.
    pub server_dir: PathBuf,
    pub timeout: Duration,
    /// Told, in a sentence, when a server fails or its tools change.
    pub notice: Box<dyn Fn(String) + Send + Sync>,
}

/// The session's servers; cheap to clone.
#[derive(Clone)]
pub struct McpHub {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for McpHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHub").finish_non_exhaustive()
    }
}

impl McpHub {
    /// Starts every usable server at once (inside a tokio runtime) and
    /// returns without waiting for any.
    pub fn start(setup: HubSetup) -> Self {
        let hub = Self::prepare(setup);
        hub.launch();
        hub
    }

    /// Starts the servers [`McpHub::prepare`] set up (inside a tokio
    /// runtime); a second call starts nothing.
    pub fn launch(&self) {
        let pending =
            std::mem::take(&mut *self.inner.pending.lock().unwrap_or_else(|e| e.into_inner()));
        for (index, transport) in pending {
            self.spawn_server(index, transport);
        }
    }

    /// The hub with its servers marked starting, none started yet: what
    /// they say can then only come after what the caller says first.
    pub fn prepare(setup: HubSetup) -> Self {
        let mut slots = Vec::new();
        let mut to_start = Vec::new();
        for entry in setup.entries {
            // A later definition of a name (the project's) never replaces
            // an earlier one (the user's config).
            if slots.iter().any(|s: &ServerSlot| s.name == entry.name) {
                continue;
            }
            let server_rule = format!("{}{}", mcp_names::PREFIX, entry.name);
            let mut held = None;
            let (transport, status) = match &entry.transport {
                Err(why) => (
                    String::new(),
                    Status::Failed(format!("invalid definition: {why}")),
                ),
                Ok(t) => {
                    let status = if setup.disallowed.contains(&server_rule) {
                        Status::Disallowed
                    } else if matches!(entry.origin, Origin::Project(_))
                        && !setup.trusted.contains(&entry.name)
                    {
                        held = Some(t.clone());
                        Status::Untrusted
                    } else {
                        to_start.push((slots.len(), t.clone()));
                        Status::Starting
                    };
                    (t.summary(), status)
                }
            };
            slots.push(ServerSlot {
                refreshing: None,
                name: entry.name,
                origin: entry.origin,
                digest: entry.digest,
                transport,
                held,
                status,
                tools: Vec::new(),
            });
        }
        let (changed, _) = watch::channel(0);

        McpHub {
            inner: Arc::new(Inner {
                servers: RwLock::new(slots),
                disallowed: setup.disallowed,
                changed,
                stop: CancellationToken::new(),
                notice: setup.notice,
                workspace: setup.workspace,
                server_dir: setup.server_dir,
                timeout: setup.timeout,
                pending: std::sync::Mutex::new(to_start),
            }),
        }
    }

    fn spawn_server(&self, index: usize, transport: Transport) {
        let hub = self.clone();
        tokio::spawn(async move { hub.run_server(index, transport).await });
    }

    /// A project server waiting for trust: its definition's digest, for
    /// the store.
    pub(crate) fn untrusted_digest(&self, name: &str) -> Option<String> {
        self.read()
            .iter()
            .find(|s| s.name == name && s.status == Status::Untrusted)
            .map(|s| s.digest.clone())
    }

    /// Starts a project server the user has just trusted.
    pub(crate) fn start_trusted(&self, name: &str) -> bool {
        let mut started = None;
        {
            let mut servers = self
                .inner
                .servers
                .write()
                .unwrap_or_else(|e| e.into_inner());
            if let Some((index, slot)) = servers
                .iter_mut()
                .enumerate()
                .find(|(_, s)| s.name == name && s.status == Status::Untrusted)
                && let Some(transport) = slot.held.take()
            {
                slot.status = Status::Starting;
                started = Some((index, transport));
            }
        }
        match started {
            Some((index, transport)) => {
                self.inner.changed.send_modify(|n| *n += 1);
                self.spawn_server(index, transport);
                true
            }
            None => false,
        }
    }

    /// Waits until no server is still starting, or `cancel` fires.
    pub(crate) async fn wait_started(&self, cancel: &CancellationToken) {
        let mut changes = self.inner.changed.subscribe();
        loop {
            if !self.any_starting() {
                return;
            }
            tokio::select! {
                _ = cancel.cancelled() => return,
                changed = changes.changed() => if changed.is_err() { return },
            }
        }
    }

    /// A server still starting, or listing its changed tools.
    fn any_starting(&self) -> bool {
        self.read().iter().any(|s| {
            s.status == Status::Starting
                || s.refreshing
                    .as_ref()
                    .is_some_and(|r| r.load(std::sync::atomic::Ordering::SeqCst))
        })
    }

    /// Every server's state and tools.
    pub fn report(&self) -> Vec<ServerReport> {
        self.read()
            .iter()
            .map(|slot| ServerReport {
                name: slot.name.clone(),
                origin: slot.origin.label(),
                transport: slot.transport.clone(),
                status: match (&slot.status, slot.tools.first()) {
                    (Status::Connected, Some(tool)) if tool.is_closed() => {
                        Status::Failed("the server closed the connection".into())
                    }
                    (status, _) => status.clone(),
                },
                tools: slot
                    .tools
                    .iter()
                    .map(|t| ToolReport {
                        name: t.name().to_string(),
                        hints: t.hints(),
                    })
                    .collect(),
            })
            .collect()
    }

    /// Stops every server (the session ends).
    pub fn shutdown(&self) {
        self.inner.stop.cancel();
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<ServerSlot>> {
        self.inner.servers.read().unwrap_or_else(|e| e.into_inner())
    }

    fn update(&self, index: usize, change: impl FnOnce(&mut ServerSlot)) {
        {
            let mut servers = self
                .inner
                .servers
                .write()
                .unwrap_or_else(|e| e.into_inner());
            if let Some(slot) = servers.get_mut(index) {
                change(slot);
            }
        }
        self.inner.changed.send_modify(|n| *n += 1);
    }

    fn name_of(&self, index: usize) -> String {
        self.read()
            .get(index)
            .map(|s| s.name.clone())
            .unwrap_or_default()
    }

    async fn run_server(&self, index: usize, transport: Transport) {
        let name = self.name_of(index);
        let stop = self.inner.stop.clone();
        let timeout = self.inner.timeout;
        let cwd = self.start_dir(index);
        let started = tokio::select! {
            _ = stop.cancelled() => return,
            started = tokio::time::timeout(timeout, start_and_list(&name, &transport, &cwd)) => started,
        };
        let (connection, tools) = match started {
            Ok(Ok(ready)) => ready,
            Ok(Err(why)) => return self.fail(index, &name, why),
            Err(_) => {
                return self.fail(
                    index,
                    &name,
                    format!("did not start within {} s", timeout.as_secs_f64()),
                );
            }
        };
        let refreshing = connection.refreshing.clone();
        self.update(index, |slot| {
            slot.status = Status::Connected;
            slot.tools = tools;
            slot.refreshing = Some(refreshing.clone());
        });
        loop {
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = connection.tools_changed.notified() => {
                    let listed = tokio::time::timeout(timeout, connection::list_tools(&connection.peer()))
                        .await
                        .unwrap_or_else(|_| Err("tools/list did not answer in time".into()));
                    refreshing.store(false, std::sync::atomic::Ordering::SeqCst);
                    match listed {
                        Ok(listing) => {
                            let tools = build_tools(&name, &listing, &connection);
                            let count = tools.len();
                            self.update(index, |slot| slot.tools = tools);
                            (self.inner.notice)(format!(
                                "MCP server {name} changed its tools ({count} now)."
                            ));
                        }
                        Err(why) => {
                            self.inner.changed.send_modify(|n| *n += 1);
                            (self.inner.notice)(format!("MCP server {name}: {why}"));
                        }
                    }
                }
            }
        }
        let mut service = connection.service;
        let _ = service.close_with_timeout(Duration::from_secs(2)).await;
    }

    /// The directory a server starts in: the workspace for the project's
    /// own servers, a directory of their own for the user's (created on
    /// first use; `/` when it cannot be).
    fn start_dir(&self, index: usize) -> PathBuf {
        let from_project = self
            .read()
            .get(index)
            .is_some_and(|s| matches!(s.origin, Origin::Project(_)));
        if from_project {
            return self.inner.workspace.clone();
        }
        let dir = &self.inner.server_dir;
        match std::fs::create_dir_all(dir) {
            Ok(()) => dir.clone(),
            Err(_) => PathBuf::from("/"),
        }
    }

    fn fail(&self, index: usize, name: &str, why: String) {
        let why = crate::terminal_text::neutralize_controls(&why);
        self.update(index, |slot| slot.status = Status::Failed(why.clone()));
        (self.inner.notice)(format!("MCP server {name} failed: {why} (see /mcp)"));
    }
}

/// Connects and lists the tools: what the startup bound covers.
async fn start_and_list(
    name: &str,
    transport: &Transport,
    cwd: &Path,
) -> Result<(Connection, Vec<Arc<McpTool>>), String> {
    let connection =
        connection::connect(transport, cwd)
            .await
            .map_err(|e| match e.stderr.last() {
                Some(line) => format!("{} (stderr: {line})", e.message),
                None => e.message,
            })?;
    let listing = connection::list_tools(&connection.peer()).await?;
    let tools = build_tools(name, &listing, &connection);
    Ok((connection, tools))
}

/// Most tools one server may offer: each costs context on every request.
pub(crate) const MAX_TOOLS_PER_SERVER: usize = 128;

fn build_tools(
    name: &str,
    listing: &[serde_json::Value],
    connection: &Connection,
) -> Vec<Arc<McpTool>> {
    let mut tools: Vec<Arc<McpTool>> = Vec::new();
    for entry in listing.iter().take(MAX_TOOLS_PER_SERVER) {
        if let Some(tool) = McpTool::from_listing(name, entry, connection.peer()) {
            // Two server names that clean to one are the server's
            // mistake: the first is kept.
            if !tools.iter().any(|t| t.name() == tool.name()) {
                tools.push(Arc::new(tool));
            }
        }
    }
    tools
}

impl ToolSource for McpHub {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let servers = self.read();
        servers
            .iter()
            .filter(|s| s.status == Status::Connected)
            .flat_map(|s| s.tools.iter())
            .filter(|t| {
                !self
                    .inner
                    .disallowed
                    .iter()
                    .any(|d| mcp_names::covers(d, t.name()))
            })
            .map(|t| t.clone() as Arc<dyn Tool>)
            .collect()
    }
}

/// The report as text, for `/mcp` and `zcode mcp list`.
pub fn render_report(servers: &[ServerReport]) -> String {
    if servers.is_empty() {
        return "No MCP servers are configured. Add them under \"mcpServers\" in the config, or in the project's .mcp.json.".to_string();
    }
    let mut out = String::new();
    for server in servers {
        out.push_str(&format!("{}: {}\n", server.name, server.status.label()));
        if !server.transport.is_empty() {
            out.push_str(&format!(
                "  {} (from {})\n",
                server.transport, server.origin
            ));
        } else {
            out.push_str(&format!("  from {}\n", server.origin));
        }
        if server.status == Status::Untrusted {
            out.push_str(&format!(
                "  trust it with `/mcp trust {0}` or `zcode mcp trust {0}`\n",
                server.name
            ));
        }
        for tool in &server.tools {
            out.push_str(&format!("  - {}{}\n", tool.name, hint_label(tool.hints)));
        }
    }
    out.trim_end().to_string()
}

fn hint_label(hints: McpHints) -> String {
    let mut labels = Vec::new();
    if hints.read_only == Some(true) {
        labels.push("read-only");
    }
    if hints.destructive == Some(true) {
        labels.push("destructive");
    }
    if hints.open_world == Some(true) {
        labels.push("open world");
    }
    if labels.is_empty() {
        String::new()
    } else {
        format!(" ({})", labels.join(", "))
    }
}
