//! Creating or reloading the session a runtime works on (RUN-1, RUN-5,
//! EXEC-6).

use super::reminders::ReminderTracker;
use super::transcript::{history_items, messages_from_entries, new_entry_id};
use crate::model::Message;
use crate::permission::mode::{
    ExecutionState, ModeChoice, ModeSource, StartingModeSources, starting_source, starting_state,
};
use crate::protocol::HistoryItem;
use crate::store::{NewSession, SessionFilter, SessionRecord, Store, StoreError};
use std::path::{Path, PathBuf};

/// Which session to work on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionStart {
    New,
    /// `--resume ID`.
    Resume(String),
    /// `--continue`, or `--resume` without an id: the latest session of this
    /// workspace.
    Latest,
    /// `--resume ID --fork-session`: a new session starting with a copy of
    /// that one's transcript (it may be in use by another process).
    ForkOf(String),
    /// `--continue --fork-session`: likewise, of the latest session here.
    ForkLatest,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("no session {0} (see `zcode sessions list`)")]
    NotFound(String),
    #[error("no earlier session in {0} to continue (see `zcode sessions list --all`)")]
    NothingToContinue(String),
    #[error(
        "session {id} is the transcript of the sub-agent {label} of session {parent}: resume {parent}, or read it with ReadSessionContext"
    )]
    SubAgent {
        id: String,
        label: String,
        parent: String,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Mode(#[from] crate::session::execution::ModeChangeError),
}

/// A session ready to run.
#[derive(Debug, Clone)]
pub struct OpenedSession {
    pub record: SessionRecord,
    pub workspace: PathBuf,
    pub history: Vec<Message>,
    pub reminders: ReminderTracker,
    pub state: ExecutionState,
    /// Where `state` came from (EXEC-6).
    pub mode_source: ModeSource,
    pub resumed: bool,
    /// What a UI shows of the conversation so far (empty when new).
    pub replay: Vec<HistoryItem>,
}

pub fn new_session_id() -> String {
    format!("sess_{}", uuid::Uuid::new_v4().simple())
}

pub struct OpenRequest<'a> {
    pub start: &'a SessionStart,
    pub workspace: &'a Path,
    pub project_id: &'a str,
    pub model_label: &'a str,
    pub explicit_mode: Option<ModeChoice>,
    pub config_mode: Option<ExecutionState>,
    pub headless: bool,
}

pub fn open_session(
    store: &mut Store,
    req: OpenRequest<'_>,
) -> Result<OpenedSession, SessionError> {
    let existing = match req.start {
        SessionStart::New => None,
        SessionStart::Resume(id) | SessionStart::ForkOf(id) => Some(
            store
                .get_session(id)?
                .ok_or_else(|| SessionError::NotFound(id.clone()))?,
        ),
        SessionStart::Latest | SessionStart::ForkLatest => {
            let ws = req.workspace.to_string_lossy();
            let filter = SessionFilter {
                workspace: Some(&ws),
                ..Default::default()
            };
            Some(
                store
                    .list_sessions(&filter, 1)?
                    .into_iter()
                    .next()
                    .ok_or_else(|| SessionError::NothingToContinue(ws.to_string()))?,
            )
        }
    };

    if let Some(record) = &existing
        && let Some(row) = store.sub_agent(&record.id)?
    {
        // Its own prompt and tools are not kept: it cannot go on as a
        // session of its own.
        return Err(SessionError::SubAgent {
            id: record.id.clone(),
            label: row.link.label,
            parent: row.link.parent_session_id,
        });
    }
    if let Some(record) = existing {
        // STORE-2: one process per session, from before its first write.
        let record = match req.start {
            SessionStart::ForkOf(_) | SessionStart::ForkLatest => {
                store.fork_session(&record.id, &new_session_id())?
            }
            _ => {
                store.hold_session(&record.id)?;
                record
            }
        };
        // EXEC-6: the session's own state wins over the project preference;
        // an explicit --mode is a change like any other (persisted first).
        let mut state = record.execution;
        if let Some(choice) = req.explicit_mode {
            let next = state.apply(choice);
            if next != state {
                store.save_execution_state(
                    &record.id,
                    &new_entry_id(),
                    next,
                    Some(&record.project_id),
                )?;
                state = next;
            }
        }
        let entries = store.entries(&record.id)?;
        let history = messages_from_entries(&entries);
        let reminders = ReminderTracker::from_entries(&entries);
        let mut replay = history_items(&entries);
        // A finished sub-agent shows as its cell again.
        for item in &mut replay {
            if let HistoryItem::Tool {
                call_id,
                tool,
                sub_agent,
                ..
            } = item
                && tool == crate::tools::agent::NAME
            {
                *sub_agent = sub_agent_record(store, &record.id, call_id).map(Box::new);
            }
        }
        let workspace = PathBuf::from(&record.workspace);
        return Ok(OpenedSession {
            record,
            workspace,
            history,
            reminders,
            state,
            mode_source: if req.explicit_mode.is_some() {
                ModeSource::Flag
            } else {
                ModeSource::Session
            },
            resumed: true,
            replay,
        });
    }

    let sources = StartingModeSources {
        explicit: req.explicit_mode,
        project_last_selected: if req.headless {
            None
        } else {
            store.project_last_mode(req.project_id)?
        },
        config_mode: req.config_mode,
        resumed_session: None,
        headless: req.headless,
    };
    let mode_source = starting_source(&sources);
    let state = starting_state(sources);
    let record = store.create_held_session(&NewSession {
        id: new_session_id(),
        workspace: req.workspace.to_string_lossy().into_owned(),
        project_id: req.project_id.to_string(),
        title: None,
        model: Some(req.model_label.to_string()),
        execution: state,
    })?;
    Ok(OpenedSession {
        record,
        workspace: req.workspace.to_path_buf(),
        history: Vec::new(),
        reminders: ReminderTracker::default(),
        state,
        mode_source,
        resumed: false,
        replay: Vec::new(),
    })
}

/// The sub-agent a resumed Agent call ran, as the front end shows it.
fn sub_agent_record(
    store: &crate::store::Store,
    parent: &str,
    call_id: &str,
) -> Option<crate::protocol::SubAgentRecord> {
    let row = store.sub_agent_for_call(parent, call_id).ok()??;
    let summary: crate::protocol::SubAgentSummary = serde_json::from_value(row.summary?).ok()?;
    let link = row.link;
    Some(crate::protocol::SubAgentRecord {
        agent: crate::protocol::SubAgentInfo {
            label: link.label,
            agent_type: link.agent_type,
            description: link.description,
            model: link.model,
            session_id: link.session_id,
        },
        summary,
    })
}
