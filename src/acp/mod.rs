//! `zcode acp`: zcode as an Agent Client Protocol agent, a third front end
//! beside the TUI and `zcode -p` on the same runtime and `Op`/`Event`
//! protocol. An editor (Zed, a JetBrains IDE, Neovim) or a headless client
//! (acpx) starts `zcode acp` and speaks ACP v1 with it over stdin and
//! stdout: newline-delimited JSON-RPC 2.0. stdout carries only protocol
//! messages; what zcode has to say otherwise goes to its log file.
//!
//! - [`transport`]: the lines on stdin and stdout, with a size limit.
//! - [`server`]: the connection's handlers (initialize, sessions, prompts,
//!   modes, cancel) and the table of live sessions.
//! - [`session`]: one live session: its runtime, the task that turns its
//!   events into updates, the prompt waiting for its turn.
//! - [`updates`]: runtime events as ACP session updates.
//! - [`sub_agents`]: sub-agents as child sessions, or as their call's
//!   progress.
//! - [`tool_calls`]: how a tool call reads in an editor (kind, title, the
//!   files it touches).
//! - [`approvals`]: approvals, questions and plan reviews put to the client.
//! - [`elicitation`]: the forms of questions, plan reviews and deny
//!   feedback.
//! - [`auto_continue`]: ASK-7's clock for a question nobody answers.
//! - [`client_files`]: the editor's files (its unsaved buffers).
//! - [`log`]: the log file.

pub mod approvals;
pub mod auto_continue;
pub mod client_files;
pub mod elicitation;
pub mod log;
pub mod server;
pub mod session;
pub mod sub_agents;
pub mod tool_calls;
pub mod transport;
pub mod updates;

use crate::mcp::config::ServerEntry;
use crate::runtime::RuntimeSetup;
use crate::runtime::session::SessionStart;
use crate::store::Store;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use server::serve_stdio;

/// What a client asks for when it opens a session.
pub struct SessionRequest {
    /// The session's directory, as the client gave it (absolute).
    pub cwd: PathBuf,
    pub start: SessionStart,
    /// The MCP servers the client passes, beside the user's own.
    pub mcp_servers: Vec<ServerEntry>,
    /// Tools this client cannot serve (AskUserQuestion without forms).
    pub removed_tools: Vec<String>,
    /// The editor's files, where the client serves them.
    pub client_files: Option<Arc<dyn crate::tools::ClientFiles>>,
}

/// A command file, as the client's command list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandInfo {
    pub name: String,
    pub description: String,
    pub hint: Option<String>,
}

/// What the protocol side needs from the environment: the runtime of a
/// session in a given directory, and that directory's command files.
pub trait SessionFactory: Send + Sync + 'static {
    /// The runtime setup and store for `request`; the setup's broker is
    /// the channel the session answers approvals through.
    fn open(&self, request: SessionRequest) -> anyhow::Result<(RuntimeSetup, Store)>;
    /// The command files of `workspace` and of the user.
    fn commands(&self, workspace: &Path) -> Vec<CommandInfo>;
    /// `/name args` as the text of its command file; other text unchanged.
    fn expand_command(&self, workspace: &Path, text: &str) -> anyhow::Result<String>;
    /// A store of its own for what the protocol side saves (question
    /// clocks).
    fn open_store(&self) -> anyhow::Result<Store>;
}

/// The `acp` section of the config.
#[derive(Debug, Clone, Copy, Default)]
pub struct AcpSettings {
    pub auto_continue: crate::config::AutoContinueConfig,
}

/// The factory as the server holds it.
pub type Factory = Arc<dyn SessionFactory>;
