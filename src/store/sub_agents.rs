//! The `sub_agent` table: which sessions are sub-agents' transcripts, the
//! session and Agent call that started each, and how each ended.

use super::{Store, StoreError, parse_json};
use rusqlite::{OptionalExtension, params};

/// A sub-agent's link to the call that started it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubAgentLink {
    /// The sub-agent's own session (created with it).
    pub session_id: String,
    pub parent_session_id: String,
    pub parent_call_id: String,
    pub label: String,
    pub agent_type: String,
    pub description: String,
    pub model: String,
}

/// A stored sub-agent; `summary` is `None` until it ended.
#[derive(Debug, Clone, PartialEq)]
pub struct SubAgentRow {
    pub link: SubAgentLink,
    /// What `finish_sub_agent` saved (JSON, the front ends' summary).
    pub summary: Option<serde_json::Value>,
}

const COLUMNS: &str = "session_id, parent_session_id, parent_call_id, label, agent_type, \
                       description, model, summary";

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<(SubAgentLink, Option<String>)> {
    Ok((
        SubAgentLink {
            session_id: row.get(0)?,
            parent_session_id: row.get(1)?,
            parent_call_id: row.get(2)?,
            label: row.get(3)?,
            agent_type: row.get(4)?,
            description: row.get(5)?,
            model: row.get(6)?,
        },
        row.get(7)?,
    ))
}

fn with_summary((link, text): (SubAgentLink, Option<String>)) -> Result<SubAgentRow, StoreError> {
    let summary = match text {
        Some(text) => Some(parse_json("sub_agent", &link.session_id, &text)?),
        None => None,
    };
    Ok(SubAgentRow { link, summary })
}

impl Store {
    /// Creates the sub-agent's session and its link in one transaction.
    pub(crate) fn create_sub_agent(
        &mut self,
        session: &super::NewSession,
        link: &SubAgentLink,
    ) -> Result<(), StoreError> {
        self.write(|tx, now| {
            super::sessions::require(tx, &link.parent_session_id)?;
            super::sessions::create(tx, session, now)?;
            tx.prepare_cached(
                "INSERT INTO sub_agent
                   (session_id, parent_session_id, parent_call_id, label, agent_type,
                    description, model, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![
                link.session_id,
                link.parent_session_id,
                link.parent_call_id,
                link.label,
                link.agent_type,
                link.description,
                link.model,
                now,
            ])?;
            Ok(())
        })
    }

    /// Records how the sub-agent ended.
    pub(crate) fn finish_sub_agent(
        &mut self,
        session_id: &str,
        summary: &serde_json::Value,
    ) -> Result<(), StoreError> {
        let text = summary.to_string();
        self.write(|tx, _now| {
            let n = tx
                .prepare_cached("UPDATE sub_agent SET summary = ?2 WHERE session_id = ?1")?
                .execute(params![session_id, text])?;
            if n == 0 {
                return Err(StoreError::SessionNotFound(session_id.to_string()));
            }
            Ok(())
        })
    }

    /// The sub-agent that the Agent call `call_id` of `parent` started.
    pub(crate) fn sub_agent_for_call(
        &self,
        parent: &str,
        call_id: &str,
    ) -> Result<Option<SubAgentRow>, StoreError> {
        self.read(|conn| {
            let raw = conn
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM sub_agent
                     WHERE parent_session_id = ?1 AND parent_call_id = ?2
                     ORDER BY rowid DESC LIMIT 1"
                ))?
                .query_row(params![parent, call_id], from_row)
                .optional()?;
            raw.map(with_summary).transpose()
        })
    }

    /// The sub-agents a session started, oldest first.
    pub fn sub_agents_of(&self, parent: &str) -> Result<Vec<SubAgentRow>, StoreError> {
        self.read(|conn| {
            let raws = conn
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM sub_agent WHERE parent_session_id = ?1 ORDER BY rowid"
                ))?
                .query_map([parent], from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            raws.into_iter().map(with_summary).collect()
        })
    }

    /// The link of a session that is a sub-agent's; `None` for any other.
    pub fn sub_agent(&self, session_id: &str) -> Result<Option<SubAgentRow>, StoreError> {
        self.read(|conn| {
            let raw = conn
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM sub_agent WHERE session_id = ?1"
                ))?
                .query_row([session_id], from_row)
                .optional()?;
            raw.map(with_summary).transpose()
        })
    }
}
