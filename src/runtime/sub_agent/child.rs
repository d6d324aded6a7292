//! A sub-agent's core, built from its parent's: the same workspace,
//! store, project context, approval broker, MCP servers, hooks, mode and
//! permission rules and the editor's files; its own session, conversation, file reads, tools
//! and events.

use crate::model::select::SelectedModel;
use crate::protocol::{Event, SubAgentInfo};
use crate::runtime::agent_catalog::AgentKind;
use crate::runtime::core::{AgentRole, Conversation, SessionCore, SubAgentRole, lock};
use crate::store::{NewSession, StoreError, SubAgentLink};
use crate::tools::FileStateTracker;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc::UnboundedSender;

const SUB_AGENT_NOTES: &str = include_str!("../../../assets/agents/notes.md");

/// Creates the sub-agent's session (linked to `call_id` of the parent's)
/// and its core, whose events go to `events`.
pub(super) fn build(
    parent: &SessionCore,
    kind: &AgentKind,
    info: &SubAgentInfo,
    call_id: &str,
    model: SelectedModel,
    events: UnboundedSender<Event>,
) -> Result<SessionCore, StoreError> {
    let state = parent.state();
    lock(&parent.store).create_sub_agent(
        &NewSession {
            id: info.session_id.clone(),
            workspace: parent.workspace.to_string_lossy().into_owned(),
            project_id: parent.project_id.clone(),
            title: Some(info.description.clone()),
            model: Some(info.model.clone()),
            execution: state,
        },
        &SubAgentLink {
            session_id: info.session_id.clone(),
            parent_session_id: parent.session_id.clone(),
            parent_call_id: call_id.to_string(),
            label: info.label.clone(),
            agent_type: info.agent_type.clone(),
            description: info.description.clone(),
            model: info.model.clone(),
        },
    )?;
    let tools = kind.tools.clone();
    let registry = parent
        .registry
        .subset(Arc::new(move |name: &str| tools.allows(name)));
    Ok(SessionCore {
        context: parent.context.clone(),
        role: AgentRole::Sub(SubAgentRole {
            label: info.label.clone(),
            read_only: kind.read_only,
        }),
        prompt_base: Some(format!("{}{SUB_AGENT_NOTES}", kind.prompt.trim_end())),
        agents: parent.agents.clone(),
        sub_agents: Default::default(),
        session_id: info.session_id.clone(),
        workspace: parent.workspace.clone(),
        project_root: parent.project_root.clone(),
        project_id: parent.project_id.clone(),
        model: Mutex::new(model),
        model_resolver: parent.model_resolver.clone(),
        registry,
        mcp: parent.mcp.clone(),
        hooks: parent.hooks.clone(),
        // Its questions go to the parent's front end, whose replies come
        // back through the parent's handle.
        broker: parent.broker.clone(),
        broker_handle: parent.broker_handle.clone(),
        store: parent.store.clone(),
        zcode_home: parent.zcode_home.clone(),
        execution: parent.execution.clone(),
        permissions: parent.permissions.clone(),
        conversation: Mutex::new(Conversation::default()),
        compact_requested: Default::default(),
        // A fresh context has read nothing yet (TOOL-2 applies to it too).
        files: Arc::new(Mutex::new(FileStateTracker::default())),
        events,
        save_failure: Mutex::new(None),
        processes: parent.processes.clone(),
        background_shown: Mutex::default(),
        window_lookup: Mutex::default(),
        // The same editor serves its files.
        client_files: parent.client_files.clone(),
    })
}
