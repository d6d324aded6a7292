//! The agent runtime: a background task that owns the session, talks to the
//! model, runs tools through the approval pipeline and persists everything.
//! Front ends talk to it only through `crate::protocol::{Op, Event}`.

pub mod agent_catalog;
pub mod compaction;
pub mod core;
pub mod injection;
pub mod instructions;
mod mode_note;
pub mod model_events;
pub mod plan_file;
pub mod prompts;
pub mod reminders;
pub mod runner;
pub mod session;
pub mod small_window;
pub mod sub_agent;
pub mod tool_call;
pub mod tool_pairing;
pub mod transcript;
pub mod turn;
pub mod user_shell;
pub mod zcode_dir;

use self::core::{Conversation, SessionCore};
use crate::approval::{ApprovalBroker, ChannelBroker};
use crate::config::hooks::Hooks;
use crate::hooks::HookRunner;
use crate::model::Usage;
use crate::model::select::SelectedModel;
use crate::permission::mode::{ExecutionState, ModeChoice};
use crate::permission::service::PermissionService;
use crate::permission::settings::PermissionSettings;
use crate::protocol::{Event, Op};
use crate::session::execution::SessionExecution;
use crate::store::Store;
use crate::tools::FileStateTracker;
use crate::tools::registry::ToolRegistry;
use session::{OpenRequest, SessionError, SessionStart, open_session};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;

/// Resolves a `/model` reference (MODEL-3) against the catalog, given the
/// current model (whose provider breaks ties); the error is the text shown.
pub type ModelResolver =
    Arc<dyn Fn(&str, &SelectedModel) -> Result<SelectedModel, String> + Send + Sync>;

/// How the approval requests of this runtime are answered (APPR-5).
pub enum BrokerChoice {
    /// Headless: anything that needs a person is denied.
    Deny,
    /// A front end answers `Event::PermissionRequested` with `Op::PermissionReply`.
    Channel,
}

/// Everything a runtime is started with.
pub struct RuntimeSetup {
    /// The workspace root, canonical.
    pub workspace: PathBuf,
    pub project_id: String,
    pub zcode_home: PathBuf,
    pub model: SelectedModel,
    pub settings: PermissionSettings,
    pub hooks: Hooks,
    /// DIS-2: these tools are not registered at all.
    pub disallowed_tools: Vec<String>,
    pub start: SessionStart,
    pub explicit_mode: Option<ModeChoice>,
    pub config_mode: Option<ExecutionState>,
    pub headless: bool,
    pub broker: BrokerChoice,
    /// What `/model` switches with; `None`: switching is refused.
    pub model_resolver: Option<ModelResolver>,
    /// The MCP servers to start for this session.
    pub mcp: crate::mcp::McpSetup,
    /// How its sub-agents run (`agents` in the config).
    pub agents: crate::config::AgentsConfig,
    /// The front end's client, when it serves file contents (an editor
    /// over ACP); `None`: the tools use the local file system only.
    pub client_files: Option<Arc<dyn crate::tools::ClientFiles>>,
}

/// The front end's side of a running runtime.
pub struct RuntimeHandle {
    pub ops: UnboundedSender<Op>,
    pub events: UnboundedReceiver<Event>,
    pub session_id: String,
    pub task: JoinHandle<()>,
}

/// Opens the session and spawns the runtime task (inside a tokio runtime).
/// At start: the settings files' allow rules that wait for trust, or a
/// file that stops every tool call until it is fixed.
fn announce_project_settings(core: &SessionCore) {
    let loaded = crate::project_settings::ProjectRules::load(
        &self::core::lock(&core.store),
        &core.project_id,
        &core.project_root,
    );
    match loaded {
        Ok(rules) => {
            if let Some(message) = rules.untrusted_notice(crate::project_settings::TRUST_SLASH) {
                core.emit(Event::Notice { message });
            }
        }
        Err(e) => core.emit(Event::Error {
            message: e.to_string(),
        }),
    }
}

pub fn start(setup: RuntimeSetup, mut store: Store) -> Result<RuntimeHandle, SessionError> {
    let model_label = format!("{}/{}", setup.model.provider_id, setup.model.model_id);
    let opened = open_session(
        &mut store,
        OpenRequest {
            start: &setup.start,
            workspace: &setup.workspace,
            project_id: &setup.project_id,
            model_label: &model_label,
            explicit_mode: setup.explicit_mode,
            config_mode: setup.config_mode,
            headless: setup.headless,
        },
    )?;
    let session_id = opened.record.id.clone();
    let project_id = opened.record.project_id.clone();
    let workspace = opened.workspace.clone();
    let (event_tx, event_rx) = unbounded_channel();
    let (op_tx, op_rx) = unbounded_channel();
    let (broker, broker_handle) = match setup.broker {
        BrokerChoice::Deny => (ApprovalBroker::Deny, None),
        BrokerChoice::Channel => {
            let (broker, handle) = ChannelBroker::new(event_tx.clone());
            (ApprovalBroker::Channel(broker), Some(handle))
        }
    };
    let memory_dir = setup
        .zcode_home
        .join("projects")
        .join(&project_id)
        .join("memory");
    let context = instructions::ProjectContext::gather(&workspace, &setup.zcode_home)
        .with_memory(&memory_dir);
    let (mcp, mcp_notices) = start_mcp(&setup, &store, &project_id, &workspace, &event_tx);
    let mut registry = ToolRegistry::builtin(&setup.disallowed_tools);
    let (agent_kinds, agent_notices) = agent_kinds(&setup, &workspace);
    let agents = Arc::new(agent_catalog::AgentCatalog::new(
        agent_kinds,
        setup.agents.max_parallel,
    ));
    if !crate::permission::settings::list_removes(
        &setup.disallowed_tools,
        &crate::tools::agent::DECLARATION,
    ) {
        registry.register(Arc::new(crate::tools::agent::AgentTool::new(
            &agents.listings(),
        )));
    }
    let skill_notices = register_skills(&mut registry, &setup, &workspace);
    registry.add_source(Arc::new(mcp.clone()));
    let core = Arc::new(SessionCore {
        context,
        role: self::core::AgentRole::Main,
        prompt_base: None,
        agents,
        sub_agents: Default::default(),
        session_id: session_id.clone(),
        workspace: workspace.clone(),
        project_root: crate::config::project_root::project_root_of(&workspace),
        project_id: project_id.clone(),
        registry,
        mcp,
        hooks: HookRunner::new(setup.hooks, session_id.clone(), workspace.clone()),
        broker,
        broker_handle,
        store: Arc::new(Mutex::new(store)),
        zcode_home: setup.zcode_home.clone(),
        execution: Arc::new(Mutex::new(SessionExecution::new(
            &session_id,
            &project_id,
            opened.state,
        ))),
        permissions: Arc::new(Mutex::new(
            PermissionService::new(setup.settings, &workspace, Some(&memory_dir))
                .with_zcode_home(&setup.zcode_home),
        )),
        conversation: Mutex::new(Conversation {
            history: opened.history,
            reminders: opened.reminders,
            usage: Usage::default(),
            prompt_state: None,
            told_state: None,
        }),
        compact_requested: Default::default(),
        files: Arc::new(Mutex::new(FileStateTracker::default())),
        events: event_tx,
        model: Mutex::new(setup.model.clone()),
        model_resolver: setup.model_resolver,
        save_failure: Mutex::new(None),
        processes: Arc::default(),
        background_shown: Mutex::default(),
        window_lookup: Mutex::default(),
        client_files: setup.client_files.clone(),
    });
    // The launcher holds the core weakly: the session ends when its
    // runtime does.
    let _ = core
        .sub_agents
        .set(Arc::new(sub_agent::Launcher::new(Arc::downgrade(&core))));
    core.emit(Event::SessionStarted {
        session_id: session_id.clone(),
        workspace: workspace.to_string_lossy().into_owned(),
        model: model_label,
        provider: setup.model.provider.label().to_string(),
        offline_demo: setup.model.provider.is_offline_demo(),
        state: opened.state,
        resumed: opened.resumed,
        context_window: setup.model.context_window,
        sandbox_notice: self::core::lock(&core.permissions)
            .read_only_sandbox()
            .notice(),
        mode_source: opened.mode_source,
    });
    for message in mcp_notices
        .into_iter()
        .chain(skill_notices)
        .chain(agent_notices)
    {
        core.emit(Event::Notice { message });
    }
    // `zcode -p` says it on stderr itself, in every output format.
    if !setup.headless {
        announce_project_settings(&core);
    }
    core.mcp.launch();
    if opened.resumed {
        core.emit(Event::History {
            items: opened.replay,
        });
    }
    core.emit_todos(false);
    model_events::start_window_lookup(&core);
    let task = tokio::spawn(runner::run(core, op_rx));
    Ok(RuntimeHandle {
        ops: op_tx,
        events: event_rx,
        session_id,
        task,
    })
}

/// Offers the Skill tool when there are skills (and `--disallowedTools`
/// does not name it); returns the notices of the skill folders left out,
/// told once at the session's start.
/// The built-in agents, then the project's and the user's own
/// (`.zcode/agents`, `.claude/agents`, `$ZCODE_HOME/agents`), with what
/// was left out of them, told once.
fn agent_kinds(
    setup: &RuntimeSetup,
    workspace: &std::path::Path,
) -> (Vec<agent_catalog::AgentKind>, Vec<String>) {
    use agent_catalog::{AgentKind, ToolChoice};
    let known: Vec<&str> = crate::tools::registry::builtin_declarations()
        .map(|d| d.name())
        .collect();
    let (definitions, problems) =
        crate::extensions::agents::load_agents(workspace, &setup.zcode_home, &known);
    let mut kinds = agent_catalog::builtin_agents();
    kinds.extend(definitions.into_iter().map(|d| AgentKind {
        name: d.name,
        description: d.description,
        prompt: d.prompt,
        tools: match d.tools {
            Some(names) => ToolChoice::Named(names),
            None => ToolChoice::All,
        },
        model: d.model,
        read_only: d.read_only,
        source: Some(d.path),
    }));
    let notices = problems
        .into_iter()
        .map(|problem| format!("Agent left out: {problem}"))
        .collect();
    (kinds, notices)
}

fn register_skills(
    registry: &mut ToolRegistry,
    setup: &RuntimeSetup,
    workspace: &std::path::Path,
) -> Vec<String> {
    use crate::tools::skill::{DECLARATION, SkillTool};
    let (skills, problems) = crate::extensions::skills::load_skills(workspace, &setup.zcode_home);
    if !crate::permission::settings::list_removes(&setup.disallowed_tools, &DECLARATION)
        && let Some(tool) = SkillTool::new(skills)
    {
        registry.register(Arc::new(tool));
    }
    problems
        .into_iter()
        .map(|problem| format!("Skill left out: {problem}"))
        .collect()
}

/// Starts the session's MCP servers in the background, with the notices
/// to show once the session has started; what goes wrong never keeps the
/// session from starting (later failures are told as they happen).
fn start_mcp(
    setup: &RuntimeSetup,
    store: &Store,
    project_id: &str,
    workspace: &std::path::Path,
    events: &UnboundedSender<Event>,
) -> (crate::mcp::McpHub, Vec<String>) {
    let mut notices = Vec::new();
    let mut notice = |message: String| notices.push(message);
    if let Some(why) = &setup.mcp.project_error {
        notice(format!("The project's MCP servers are left out: {why}"));
    }
    let trusted = match crate::mcp::trust::trusted(store, project_id, &setup.mcp.entries) {
        Ok(trusted) => trusted,
        Err(e) => {
            notice(format!(
                "Which project MCP servers are trusted cannot be read ({e}); none are started."
            ));
            Vec::new()
        }
    };
    let sender = events.clone();
    let hub = crate::mcp::McpHub::prepare(crate::mcp::HubSetup {
        entries: setup.mcp.entries.clone(),
        trusted,
        disallowed: setup.settings.disallowed_tools.iter().cloned().collect(),
        workspace: workspace.to_path_buf(),
        server_dir: setup.zcode_home.join(crate::mcp::SERVER_DIR),
        timeout: setup.mcp.timeout,
        notice: Box::new(move |message| {
            let _ = sender.send(Event::Notice { message });
        }),
    });
    // The hub decided which servers wait for trust: it is asked rather
    // than second-guessed here.
    let untrusted: Vec<String> = hub
        .report()
        .into_iter()
        .filter(|s| s.status == crate::mcp::Status::Untrusted)
        .map(|s| s.name)
        .collect();
    if !untrusted.is_empty() {
        notice(format!(
            "The project's .mcp.json defines MCP servers you have not trusted: {}. See them with /mcp; start one with /mcp trust NAME.",
            untrusted.join(", ")
        ));
    }
    (hub, notices)
}
