//! Workspace tools (TOOL-1..6), session-state tools (TODO-1..6, MODEL-2,
//! CTX-1..3):
//! the `Tool` trait and the registry.

use crate::permission::capability::Capability;
use crate::permission::declaration::ToolDeclaration;
use crate::protocol::{AllowedPrompt, RequestKind};
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio_util::sync::CancellationToken;

pub mod agent;
pub mod ask_user_question;
pub mod background;
pub mod bash;
pub mod bash_live;
pub mod client_files;
pub mod compact;
pub mod diff;
pub mod edit;
pub mod effect;
pub mod file_state;
pub mod glob;
pub mod grep;
pub mod input;
pub mod list_models;
pub mod paths;
pub mod plan_mode;
pub mod read;
pub mod read_session_context;
pub mod registry;
pub mod session_digest;
pub mod skill;
pub mod todo_read;
pub mod todo_reminder;
pub mod todo_write;
pub mod web_fetch;
pub mod write;

#[cfg(test)]
mod client_files_tests;
mod special_files;
mod walk;
mod web_redirect;

pub use bash::BashTool;
pub use client_files::ClientFiles;
pub use edit::EditTool;
pub use effect::SessionEffect;
pub use file_state::FileStateTracker;
pub use glob::GlobTool;
pub use grep::GrepTool;
pub use list_models::ListModelsTool;
pub use read::ReadTool;
pub use read_session_context::ReadSessionContextTool;
pub use registry::ToolRegistry;
pub use todo_read::TodoReadTool;
pub use todo_write::TodoWriteTool;
pub use web_fetch::WebFetchTool;
pub use write::WriteTool;

/// What a tool call runs with.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The session's workspace root (absolute, canonical).
    pub workspace: PathBuf,
    pub session_id: String,
    /// Cancelled when the user interrupts the turn (RUN-2).
    pub cancel: CancellationToken,
    /// Which files were read in this session, for TOOL-2's overwrite guard.
    pub files: Arc<Mutex<FileStateTracker>>,
    /// Session-level services for tools that read or change session state
    /// (todos, model listing); `None` in contexts without a session.
    pub session: Option<SessionServices>,
    /// The kernel sandbox this call's commands run in (Bash); `None`: none.
    pub sandbox: Option<crate::sandbox::SandboxPolicy>,
    /// The call was allowed on its read-only judgment: git runs with the
    /// settings that name programs neutralised (`git_env`).
    pub neutralise_git: bool,
    /// Files a Read deny or ask rule covers, which Grep and Glob leave out
    /// of a directory search; `None`: no such rule.
    pub read_filter: Option<Arc<crate::permission::read_rules::ReadRuleFilter>>,
    /// The permission decision for a URL the call was not approved for
    /// (WebFetch's redirect targets); `None` where no rules are at hand,
    /// and then only the approved host is reached.
    pub url_permission: Option<Arc<dyn UrlPermission>>,
    /// What Bash commands of this session left running in the background.
    pub processes: Arc<background::BackgroundProcesses>,
    /// The id of the call being run (empty outside a call).
    pub call_id: String,
    /// Starts sub-agents for the Agent tool; `None` where none may start
    /// (inside a sub-agent: depth 1).
    pub sub_agents: Option<Arc<dyn agent::SubAgentRunner>>,
    /// The front end's client, when it serves file contents (an editor
    /// over ACP): Read, Edit and Write go through it for text files.
    /// `None`: the local file system only.
    pub client_files: Option<Arc<dyn ClientFiles>>,
    /// Where a running command's output goes as it comes (Bash), for the
    /// front end to show while it runs; `None`: only the result counts.
    pub live_output: Option<bash_live::LiveOutput>,
}

/// Decides, while a tool runs, whether it may reach a URL: the same
/// decision the call itself went through, for another URL.
pub trait UrlPermission: Send + Sync + std::fmt::Debug {
    fn decide(&self, url: &url::Url) -> crate::permission::check::Decision;
}

/// What session-state tools reach through their context.
#[derive(Clone)]
pub struct SessionServices {
    pub store: Arc<Mutex<crate::store::Store>>,
    /// `$ZCODE_HOME`, to read the config (and its model catalog) per call.
    pub zcode_home: PathBuf,
    /// The session's model as `provider/model`.
    pub model_ref: String,
    /// The session's model, for tools that make an auxiliary request
    /// (ReadSessionContext).
    pub model: Option<crate::model::select::SelectedModel>,
}

impl std::fmt::Debug for SessionServices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionServices")
            .field("zcode_home", &self.zcode_home)
            .field("model_ref", &self.model_ref)
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    /// A context for `workspace` with a fresh cancellation token and an
    /// empty file-state tracker.
    pub fn new(workspace: PathBuf, session_id: impl Into<String>) -> Self {
        Self {
            workspace,
            session_id: session_id.into(),
            cancel: CancellationToken::new(),
            files: Arc::new(Mutex::new(FileStateTracker::default())),
            session: None,
            sandbox: None,
            neutralise_git: false,
            read_filter: None,
            url_permission: None,
            processes: Arc::default(),
            call_id: String::new(),
            sub_agents: None,
            client_files: None,
            live_output: None,
        }
    }

    /// The file-state tracker, locked (a poisoned lock is still usable: the
    /// tracker holds plain data).
    pub fn lock_files(&self) -> MutexGuard<'_, FileStateTracker> {
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The result handed back to the model (and shown in the UI).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    pub content: String,
    pub is_error: bool,
    /// A unified diff of what an Edit/Write changed, for display.
    pub diff: Option<String>,
    /// The exit code of the command the tool ran (Bash), when it exited by
    /// itself. Non-zero makes the call a failure for the front end, while
    /// the model reads the output as it is.
    pub exit_code: Option<i32>,
    /// What the call changes in the session, applied by the runtime when
    /// the call succeeded.
    pub effects: Vec<SessionEffect>,
}

impl ToolOutput {
    /// Failed as the front end shows it: an error, or a command that
    /// exited with a non-zero code.
    pub fn failed(&self) -> bool {
        self.is_error || self.exit_code.is_some_and(|code| code != 0)
    }

    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            ..Default::default()
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: true,
            ..Default::default()
        }
    }

    /// The same output, with a session effect for the runtime to apply.
    pub fn with_effect(mut self, effect: SessionEffect) -> Self {
        self.effects.push(effect);
        self
    }
}

/// A tool the model can call.
pub trait Tool: Send + Sync {
    /// What the tool is to the permission engine, the approval request,
    /// the reminders and the TUI (a built-in's `DECLARATION`).
    fn declaration(&self) -> &ToolDeclaration;
    /// The declared name.
    fn name(&self) -> &str {
        &self.declaration().name
    }
    /// The text the model reads (from `assets/tools/*.md`, or from the
    /// server for an MCP tool).
    fn description(&self) -> &str;
    /// What the model reads instead when its context window is small
    /// (`runtime::small_window`): built-in tools give a short text of
    /// their own (`assets/tools/compact/*.md`); any other tool its
    /// description's first sentence, capped.
    fn compact_description(&self) -> std::borrow::Cow<'_, str> {
        compact::first_sentence(self.description()).into()
    }
    /// JSON Schema of the input.
    fn input_schema(&self) -> Value;
    /// The declared capability (CAP-1).
    fn capability(&self) -> Capability {
        self.declaration().capability
    }
    /// Normalizes and validates the input (APPR-1). The error text goes to
    /// the model as a tool error; the handler does not run.
    fn validate(&self, input: Value) -> Result<Value, String>;
    /// What the approval panel shows before the call runs (e.g. Edit's diff).
    fn preview(&self, _input: &Value, _ctx: &ToolContext) -> Option<String> {
        None
    }
    /// Why the call would fail if it ran now (Edit of a file not read in
    /// this session, say), checked before the user is asked to approve it:
    /// approving a call that can only fail wastes the user's answer. The
    /// error goes to the model as the tool's result; `run` checks again.
    fn precheck(&self, _input: &Value, _ctx: &ToolContext) -> Result<(), String> {
        Ok(())
    }
    /// What the user is shown when the call is asked about: an approval
    /// (most tools), questions to answer, or a plan to approve. The kind
    /// decides which replies fit and what the answer does (APPR-6); it is
    /// the declared one.
    fn request_kind(&self) -> RequestKind {
        self.declaration().request_kind
    }
    /// For a [`RequestKind::Plan`] request: the kinds of commands the plan
    /// says it will need, shown with it (PLAN-6).
    fn allowed_prompts(&self, _input: &Value) -> Vec<AllowedPrompt> {
        Vec::new()
    }
    fn run<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput>;
}

/// Runs blocking file-system work off the async runtime. For work that
/// changes files: it runs to its end even when the turn is cancelled, so
/// what the model is told matches the disk.
pub(crate) async fn blocking<F>(work: F) -> ToolOutput
where
    F: FnOnce() -> ToolOutput + Send + 'static,
{
    // A panic's message can be anything (a whole generated regex): the
    // model gets a fixed text.
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|_| ToolOutput::error("The tool failed unexpectedly (an internal error)."))
}

/// Runs read-only blocking work off the async runtime, ending as soon as
/// `cancel` fires: work stuck in a system call (a slow or hung file system)
/// is left on its thread and its result dropped. `Err` is the tool error.
pub(crate) async fn blocking_cancellable<T, F>(
    tool: &str,
    cancel: &CancellationToken,
    work: F,
) -> Result<T, String>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    tokio::select! {
        done = tokio::task::spawn_blocking(work) => {
            done.map_err(|_| format!("{tool} failed unexpectedly (an internal error)."))
        }
        _ = cancel.cancelled() => Err(format!("{tool} was interrupted.")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn cancelling_ends_blocked_read_only_work() {
        let cancel = CancellationToken::new();
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        let (started, running) = tokio::sync::oneshot::channel::<()>();
        let trigger = cancel.clone();
        // Cancelled once the work is under way.
        tokio::spawn(async move {
            let _ = running.await;
            trigger.cancel();
        });
        let work = move || {
            let _ = started.send(());
            // Blocks until the test lets it go, as a hung open(2) would.
            let _ = blocked.recv();
            ToolOutput::ok("finished")
        };
        let out = tokio::time::timeout(
            Duration::from_secs(10),
            blocking_cancellable("Read", &cancel, work),
        )
        .await
        .expect("cancellation ends the call");
        assert_eq!(out, Err("Read was interrupted.".to_string()));
        drop(release);
    }

    #[tokio::test]
    async fn a_panicking_worker_is_a_short_tool_error() {
        let cancel = CancellationToken::new();
        let out: Result<(), String> =
            blocking_cancellable("Grep", &cancel, || panic!("{}", "x".repeat(10_000))).await;
        assert_eq!(
            out,
            Err("Grep failed unexpectedly (an internal error).".to_string())
        );
    }
}
