//! One connection to one MCP server: started over stdio or streamable
//! HTTP, initialized, and listened to for `tools/list_changed`.

use super::config::Transport;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{NotificationContext, Peer, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::AsyncBufReadExt;
use tokio::sync::Notify;

/// Lines of a stdio server's stderr kept to explain a failure.
const STDERR_LINES: usize = 12;
/// Longest stderr line kept.
const STDERR_LINE_CHARS: usize = 400;

/// What the client tells servers about itself, and how it hears that a
/// server's tools changed.
#[derive(Clone)]
pub struct Handler {
    tools_changed: Arc<Notify>,
    /// Set the moment the server says its tools changed, cleared once
    /// they are listed again: a request built meanwhile waits for them.
    refreshing: Arc<AtomicBool>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("zcode", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.refreshing.store(true, Ordering::SeqCst);
        self.tools_changed.notify_one();
    }
}

/// The last lines a stdio server wrote on stderr.
#[derive(Clone, Default)]
pub struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    /// Its stderr reached its end: the server has exited.
    closed: Arc<AtomicBool>,
    closing: Arc<Notify>,
}

impl StderrTail {
    fn push(&self, line: &str) {
        let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        if lines.len() == STDERR_LINES {
            lines.pop_front();
        }
        let line: String = crate::terminal_text::neutralize_controls(line)
            .chars()
            .take(STDERR_LINE_CHARS)
            .collect();
        lines.push_back(line);
    }

    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.closing.notify_waiters();
    }

    /// Waits a moment for the server's stderr to end, so a failure can
    /// say what it wrote before it exited; whether it ended.
    async fn ended_within(&self, wait: std::time::Duration) -> bool {
        let closing = self.closing.notified();
        if self.closed.load(Ordering::SeqCst) {
            return true;
        }
        let _ = tokio::time::timeout(wait, closing).await;
        self.closed.load(Ordering::SeqCst)
    }

    /// The kept lines, oldest first.
    pub fn lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect()
    }
}

/// A server that answered `initialize`.
pub struct Connection {
    pub service: RunningService<RoleClient, Handler>,
    /// Notified when the server says its tools changed.
    pub tools_changed: Arc<Notify>,
    pub refreshing: Arc<AtomicBool>,
    pub stderr: StderrTail,
}

impl Connection {
    pub fn peer(&self) -> Peer<RoleClient> {
        self.service.peer().clone()
    }
}

/// Why a connection failed, with what the server wrote on stderr.
#[derive(Debug, Clone)]
pub struct ConnectError {
    pub message: String,
    pub stderr: Vec<String>,
}

/// Starts (stdio) or reaches (HTTP) the server and initializes the MCP
/// session. The caller bounds the wait.
pub async fn connect(
    transport: &Transport,
    cwd: &std::path::Path,
) -> Result<Connection, ConnectError> {
    let tools_changed = Arc::new(Notify::new());
    let refreshing = Arc::new(AtomicBool::new(false));
    let handler = Handler {
        tools_changed: tools_changed.clone(),
        refreshing: refreshing.clone(),
    };
    let stderr = StderrTail::default();
    let failed = |message: String, stderr: &StderrTail| ConnectError {
        message,
        stderr: stderr.lines(),
    };
    let service = match transport {
        Transport::Stdio { command, args, env } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args)
                .envs(env.iter().cloned())
                .current_dir(cwd)
                // Shells and npm read the directory from PWD first.
                .env("PWD", cwd)
                .kill_on_drop(true);
            let (process, pipe) = rmcp::transport::TokioChildProcess::builder(cmd)
                .stderr(std::process::Stdio::piped())
                .spawn()
                .map_err(|e| failed(format!("cannot start {command}: {e}"), &stderr))?;
            if let Some(pipe) = pipe {
                let tail = stderr.clone();
                tokio::spawn(async move {
                    let mut lines = tokio::io::BufReader::new(pipe).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        tail.push(&line);
                    }
                    tail.close();
                });
            }
            match handler.serve(process).await {
                Ok(service) => service,
                Err(e) => {
                    let message = if stderr
                        .ended_within(std::time::Duration::from_millis(500))
                        .await
                    {
                        "the server exited before it initialized".to_string()
                    } else {
                        format!("the server did not initialize: {e}")
                    };
                    return Err(failed(message, &stderr));
                }
            }
        }
        Transport::Http { url, headers } => {
            super::http::install_crypto();
            let config = super::http::transport_config(url, headers)
                .map_err(|message| failed(message, &stderr))?;
            let transport = rmcp::transport::StreamableHttpClientTransport::from_config(config);
            handler
                .serve(transport)
                .await
                .map_err(|e| failed(format!("the server did not initialize: {e}"), &stderr))?
        }
    };
    Ok(Connection {
        service,
        tools_changed,
        refreshing,
        stderr,
    })
}

/// The server's tools as the wire gives them (name, description,
/// inputSchema, annotations), every page.
pub async fn list_tools(peer: &Peer<RoleClient>) -> Result<Vec<Value>, String> {
    let tools = peer
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list failed: {e}"))?;
    Ok(tools
        .into_iter()
        .filter_map(|tool| serde_json::to_value(tool).ok())
        .collect())
}
