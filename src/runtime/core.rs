//! The state one running session shares between its op loop and its turns.

use super::reminders::ReminderTracker;
use crate::approval::{ApprovalBroker, BrokerHandle};
use crate::hooks::HookRunner;
use crate::model::select::SelectedModel;
use crate::model::{Message, Usage};
use crate::permission::mode::{ExecutionState, ModeChoice};
use crate::permission::service::PermissionService;
use crate::protocol::{Event, TurnEnd};
use crate::session::execution::{ModeChange, ModeChangeError, SessionExecution};
use crate::store::{NewEntry, Store, StoreError};
use crate::tools::background::BackgroundProcesses;
use crate::tools::registry::ToolRegistry;
use crate::tools::{FileStateTracker, SessionServices, ToolContext};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// An entry could not be saved; the error was already reported and the
/// session stops (see [`SessionCore::save_failure`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaveFailed;

/// Locks a mutex, recovering the data if a panicking thread poisoned it:
/// the values behind these locks stay consistent between statements.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Whose turn loop a core runs: the session's own model's, or a
/// sub-agent's started by an Agent call of its parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentRole {
    Main,
    Sub(SubAgentRole),
}

/// What a sub-agent's core knows about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubAgentRole {
    /// "explore #2": named on its approvals and denials.
    pub label: String,
    /// Only read-only calls run; nothing is asked (explore).
    pub read_only: bool,
}

pub struct SessionCore {
    /// The project's instruction files and environment facts, read at start.
    pub context: super::instructions::ProjectContext,
    /// The session's own model, or a sub-agent.
    pub role: AgentRole,
    /// A sub-agent's instructions, which take the place of the system
    /// prompt's own (the environment facts and project instructions stay).
    pub prompt_base: Option<String>,
    /// The sub-agents this session may start, and how many at a time.
    pub agents: Arc<super::agent_catalog::AgentCatalog>,
    /// What starts the sub-agents of Agent calls; set once at start, and
    /// never inside a sub-agent (depth 1).
    pub sub_agents: std::sync::OnceLock<Arc<dyn crate::tools::agent::SubAgentRunner>>,
    pub session_id: String,
    pub workspace: PathBuf,
    /// The root of the git work tree holding `workspace` (else `workspace`):
    /// where the checked-in settings files are read.
    pub project_root: PathBuf,
    pub project_id: String,
    /// Swapped by `/model`; read once per request through [`Self::model`].
    pub model: Mutex<SelectedModel>,
    /// Resolves `/model` references; `None` where switching is not offered.
    pub model_resolver: Option<super::ModelResolver>,
    pub registry: ToolRegistry,
    /// The session's MCP servers (their tools are in `registry`).
    pub mcp: crate::mcp::McpHub,
    pub hooks: HookRunner,
    pub broker: ApprovalBroker,
    /// Where `Op::PermissionReply` goes; `None` for the deny broker.
    pub broker_handle: Option<BrokerHandle>,
    /// Locked for one synchronous store call at a time, never across an
    /// await: the runtime's tasks must be `Send`, which a held guard is not.
    pub store: Arc<Mutex<Store>>,
    pub zcode_home: PathBuf,
    /// Shared with the session's sub-agents (the same mode).
    pub execution: Arc<Mutex<SessionExecution>>,
    /// Shared with general-purpose sub-agents (the same rules and grants).
    pub permissions: Arc<Mutex<PermissionService>>,
    /// The conversation and what goes with it, under one lock.
    pub conversation: Mutex<Conversation>,
    /// `Op::Compact` was received: compact before the next request.
    pub compact_requested: std::sync::atomic::AtomicBool,
    pub files: Arc<Mutex<FileStateTracker>>,
    pub events: UnboundedSender<Event>,
    /// Why the session can no longer be saved, once an entry failed to
    /// save: from then on no model request is sent and no tool runs, since
    /// the stored transcript would no longer match what happened.
    pub save_failure: Mutex<Option<String>>,
    /// What the session's Bash commands left running, ended with it.
    pub processes: Arc<BackgroundProcesses>,
    /// The last `BackgroundProcesses` event sent: `(count, commands)`.
    pub background_shown: Mutex<(usize, Vec<String>)>,
    /// The server is being asked for the model's context window.
    pub window_lookup: Mutex<Option<WindowLookupTask>>,
    /// The front end's client, when it serves file contents (an editor
    /// over ACP); shared with the session's sub-agents.
    pub client_files: Option<Arc<dyn crate::tools::ClientFiles>>,
}

/// What a turn changes together: the messages the model is sent, what
/// the reminders have seen of them, and the tokens used so far. One lock
/// holds them, so no reader sees a message without the count that goes
/// with it.
#[derive(Debug, Default)]
pub struct Conversation {
    pub history: Vec<Message>,
    pub reminders: ReminderTracker,
    pub usage: Usage,
    /// The mode the system prompt was written with, kept for the session:
    /// a prompt that changed with the mode would rewrite the start of every
    /// request and void the provider's prompt cache (see `mode_note`).
    pub prompt_state: Option<ExecutionState>,
    /// The mode the model was last told of (system prompt or reminder).
    pub told_state: Option<ExecutionState>,
}

/// A lookup of the model's context window under way (`model_events`
/// starts, awaits and stops it).
pub struct WindowLookupTask {
    /// `true` while it runs.
    pub(super) running: watch::Receiver<bool>,
    pub(super) cancel: CancellationToken,
}

impl SessionCore {
    /// Sends an event; a front end that went away is not an error.
    pub fn emit(&self, event: Event) {
        let _ = self.events.send(event);
    }

    pub fn state(&self) -> ExecutionState {
        lock(&self.execution).state()
    }

    /// The conversation, locked (see [`Conversation`]).
    pub fn conversation(&self) -> MutexGuard<'_, Conversation> {
        lock(&self.conversation)
    }

    /// The model the next request goes to.
    pub fn model(&self) -> SelectedModel {
        lock(&self.model).clone()
    }

    /// Persists an entry. On failure the user is told once and the session
    /// stops: see [`Self::save_failure`]. After a failure nothing more is
    /// written.
    pub fn persist(&self, entry: NewEntry) -> Result<(), SaveFailed> {
        if self.save_failure().is_some() {
            return Err(SaveFailed);
        }
        let result = lock(&self.store).append_entry(&self.session_id, &entry);
        match result {
            Ok(_) => Ok(()),
            Err(e) => {
                self.fail_saving(&e);
                Err(SaveFailed)
            }
        }
    }

    /// Records that the session cannot be saved and says why (once).
    pub fn fail_saving(&self, error: &StoreError) {
        let message = format!("cannot save the session: {error}");
        let first = {
            let mut failure = lock(&self.save_failure);
            let first = failure.is_none();
            if first {
                *failure = Some(message.clone());
            }
            first
        };
        if first {
            self.emit(Event::Error { message });
        }
    }

    /// Why the session cannot be saved, if an entry failed to save.
    pub fn save_failure(&self) -> Option<String> {
        lock(&self.save_failure).clone()
    }

    /// EXEC-4: persisted first, then applied, then announced.
    pub fn change_mode(&self, choice: ModeChoice) -> Result<ModeChange, ModeChangeError> {
        self.apply_mode_change(|execution, store, entry_id| {
            execution.choose(store, choice, entry_id)
        })
    }

    /// A mode change for this session only (not the project's last mode).
    pub fn change_mode_for_session(
        &self,
        choice: ModeChoice,
    ) -> Result<ModeChange, ModeChangeError> {
        self.apply_mode_change(|execution, store, entry_id| {
            execution.choose_for_session(store, choice, entry_id)
        })
    }

    /// Turns plan off, back to the mode underneath (EXEC-3, PLAN-7).
    pub fn exit_plan(&self) -> Result<ModeChange, ModeChangeError> {
        self.apply_mode_change(|execution, store, entry_id| execution.exit_plan(store, entry_id))
    }

    /// Store, then execution (the lock order of every mode change); the
    /// event goes out only after the change was saved.
    fn apply_mode_change(
        &self,
        change: impl FnOnce(
            &mut SessionExecution,
            &mut Store,
            &str,
        ) -> Result<ModeChange, ModeChangeError>,
    ) -> Result<ModeChange, ModeChangeError> {
        let entry_id = super::transcript::new_entry_id();
        let change = {
            let mut store = lock(&self.store);
            change(&mut lock(&self.execution), &mut store, &entry_id)?
        };
        self.emit(Event::SessionModeChanged {
            state: change.current,
        });
        Ok(change)
    }

    /// The sandbox policy of `kind` for this session's workspace.
    pub fn sandbox_policy(
        &self,
        kind: crate::sandbox::SandboxKind,
    ) -> crate::sandbox::SandboxPolicy {
        use crate::sandbox::{SandboxKind, SandboxPolicy};
        let settings = lock(&self.permissions).settings().sandbox;
        match kind {
            SandboxKind::ReadOnly => SandboxPolicy::read_only(),
            SandboxKind::WorkspaceWrite => {
                SandboxPolicy::workspace_write(self.workspace.clone(), settings.network)
            }
        }
        .with_limits(settings.limits)
    }

    pub fn tool_context(&self, cancel: &CancellationToken) -> ToolContext {
        let model = self.model();
        ToolContext {
            workspace: self.workspace.clone(),
            session_id: self.session_id.clone(),
            cancel: cancel.clone(),
            files: self.files.clone(),
            session: Some(SessionServices {
                store: self.store.clone(),
                zcode_home: self.zcode_home.clone(),
                model_ref: format!("{}/{}", model.provider_id, model.model_id),
                model: Some(model),
            }),
            sandbox: None,
            neutralise_git: false,
            read_filter: None,
            url_permission: None,
            processes: self.processes.clone(),
            call_id: String::new(),
            sub_agents: self.sub_agent_runner(),
            client_files: self.client_files.clone(),
            live_output: None,
        }
    }

    /// What starts this session's sub-agents; `None` inside a sub-agent.
    fn sub_agent_runner(&self) -> Option<Arc<dyn crate::tools::agent::SubAgentRunner>> {
        if self.role != AgentRole::Main {
            return None;
        }
        self.sub_agents.get().cloned()
    }

    /// The sub-agent label of this core ("explore #2"); `None` for the
    /// session's own model.
    pub fn agent_label(&self) -> Option<String> {
        match &self.role {
            AgentRole::Main => None,
            AgentRole::Sub(role) => Some(role.label.clone()),
        }
    }

    /// Delivers the user's answer to a waiting approval.
    pub fn reply_permission(&self, request_id: &str, reply: crate::protocol::PermissionReply) {
        let result = match &self.broker_handle {
            Some(handle) => handle.reply(request_id, reply).map_err(|e| e.to_string()),
            None => Err(format!("no approval is waiting for {request_id}")),
        };
        if let Err(message) = result {
            self.emit(Event::Notice { message });
        }
    }

    pub fn add_usage(&self, usage: Usage) {
        let total = {
            let mut conversation = self.conversation();
            conversation.usage.add(usage);
            conversation.usage
        };
        self.emit(Event::Usage { usage, total });
    }

    /// Sends the stored todo list (TODO-7); `always` false skips an empty
    /// list, for the announcement at session start.
    pub fn emit_todos(&self, always: bool) {
        let todos = match lock(&self.store).todos(&self.session_id) {
            Ok(todos) => todos,
            // The tool already reported a store failure; the sidebar keeps
            // what it had.
            Err(_) => return,
        };
        if always || !todos.is_empty() {
            self.emit(Event::TodosChanged { todos });
        }
    }

    /// Checks what finished commands left running and tells the front end
    /// when that changed.
    pub fn refresh_background(&self) {
        let left = self.processes.scan();
        let mut commands: Vec<String> = Vec::new();
        for leftover in &left {
            if !commands.contains(&leftover.command) {
                commands.push(leftover.command.clone());
            }
        }
        let now = (left.len(), commands);
        let mut shown = lock(&self.background_shown);
        if *shown != now {
            *shown = now.clone();
            drop(shown);
            self.emit(Event::BackgroundProcesses {
                count: now.0,
                commands: now.1,
            });
        }
    }

    /// Ends what the session's commands left running (the session ends).
    pub async fn end_background(&self) {
        self.processes.terminate_all().await;
        self.refresh_background();
    }

    pub fn finish_turn(&self, end: TurnEnd, answer: Option<String>) {
        self.emit(Event::TurnFinished { end, answer });
    }
}
