//! The `session_entries` table: the append-only log of a session.

use super::{Store, StoreError, parse_json, sessions};
use crate::permission::mode::ExecutionState;
use rusqlite::{Connection, Row, params};
use serde_json::Value;

/// Well-known entry kinds.
pub mod entry_kind {
    pub const USER_MESSAGE: &str = "user_message";
    pub const ASSISTANT_MESSAGE: &str = "assistant_message";
    pub const TOOL_CALL: &str = "tool_call";
    pub const TOOL_RESULT: &str = "tool_result";
    pub const EXECUTION_STATE: &str = "runtime/execution_state";
    pub const PERMISSION_FULL_ACCESS: &str = "runtime/permission_full_access";
    pub const REMINDER: &str = "reminder";
    pub const NOTIFICATION: &str = "notification";
    pub const COMPACTION_SUMMARY: &str = "compaction_summary";
}

/// An entry to append. The id is chosen by the caller so that receipts can
/// be deterministic (e.g. session id + request id).
#[derive(Debug, Clone, PartialEq)]
pub struct NewEntry {
    pub id: String,
    pub kind: String,
    pub payload: Value,
}

impl NewEntry {
    pub fn new(id: impl Into<String>, kind: impl Into<String>, payload: Value) -> Self {
        Self {
            id: id.into(),
            kind: kind.into(),
            payload,
        }
    }
}

/// A stored entry.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryRecord {
    pub id: String,
    pub session_id: String,
    /// 1, 2, 3, … per session, in append order.
    pub seq: i64,
    pub kind: String,
    pub payload: Value,
    pub created_at: i64,
}

struct RawEntry {
    id: String,
    session_id: String,
    seq: i64,
    kind: String,
    payload: String,
    created_at: i64,
}

impl RawEntry {
    fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: row.get(0)?,
            session_id: row.get(1)?,
            seq: row.get(2)?,
            kind: row.get(3)?,
            payload: row.get(4)?,
            created_at: row.get(5)?,
        })
    }

    fn into_record(self) -> Result<EntryRecord, StoreError> {
        let payload = parse_json("session_entries", &self.id, &self.payload)?;
        Ok(EntryRecord {
            id: self.id,
            session_id: self.session_id,
            seq: self.seq,
            kind: self.kind,
            payload,
            created_at: self.created_at,
        })
    }
}

fn exists(conn: &Connection, id: &str) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM session_entries WHERE id = ?1")?
        .exists([id])?)
}

/// Appends an entry inside the caller's write transaction: assigns the next
/// seq and touches the session.
pub(crate) fn append(
    conn: &Connection,
    session_id: &str,
    entry: &NewEntry,
    now: i64,
) -> Result<EntryRecord, StoreError> {
    sessions::require(conn, session_id)?;
    if exists(conn, &entry.id)? {
        return Err(StoreError::DuplicateEntry(entry.id.clone()));
    }
    let seq: i64 = conn
        .prepare_cached(
            "SELECT coalesce(max(seq), 0) + 1 FROM session_entries WHERE session_id = ?1",
        )?
        .query_row([session_id], |row| row.get(0))?;
    let payload = serde_json::to_string(&entry.payload).map_err(StoreError::Encode)?;
    conn.prepare_cached(
        "INSERT INTO session_entries (id, session_id, seq, kind, payload, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![entry.id, session_id, seq, entry.kind, payload, now])?;
    sessions::touch(conn, session_id, now)?;
    Ok(EntryRecord {
        id: entry.id.clone(),
        session_id: session_id.to_string(),
        seq,
        kind: entry.kind.clone(),
        payload: entry.payload.clone(),
        created_at: now,
    })
}

impl Store {
    /// Appends an entry to a session in its own transaction: a crash loses at
    /// most this entry. Fails with [`StoreError::DuplicateEntry`] if the id
    /// is taken (in any session) and [`StoreError::SessionNotFound`] if the
    /// session does not exist.
    pub fn append_entry(
        &mut self,
        session_id: &str,
        entry: &NewEntry,
    ) -> Result<EntryRecord, StoreError> {
        self.write_session(session_id, |tx, now| append(tx, session_id, entry, now))
    }

    /// All entries of a session in seq order.
    pub fn entries(&self, session_id: &str) -> Result<Vec<EntryRecord>, StoreError> {
        self.read(|conn| {
            let raws = conn
                .prepare_cached(
                    "SELECT id, session_id, seq, kind, payload, created_at
                     FROM session_entries WHERE session_id = ?1 ORDER BY seq",
                )?
                .query_map([session_id], RawEntry::from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            raws.into_iter().map(RawEntry::into_record).collect()
        })
    }

    /// Whether an entry with this id exists (in any session).
    pub fn entry_exists(&self, id: &str) -> Result<bool, StoreError> {
        self.read(|conn| exists(conn, id))
    }

    /// EXEC-4: persists a mode change in one transaction: appends a
    /// `runtime/execution_state` entry `{"mode", "planEnabled"}`, stores the
    /// state on the session row and, when `project_id_for_preference` is
    /// given, as the project's last selected mode. On error nothing changed.
    pub fn save_execution_state(
        &mut self,
        session_id: &str,
        entry_id: &str,
        state: ExecutionState,
        project_id_for_preference: Option<&str>,
    ) -> Result<EntryRecord, StoreError> {
        let payload = serde_json::to_value(state).map_err(StoreError::Encode)?;
        let entry = NewEntry::new(entry_id, entry_kind::EXECUTION_STATE, payload);
        self.write_session(session_id, |tx, now| {
            let record = append(tx, session_id, &entry, now)?;
            sessions::set_execution(tx, session_id, state, now)?;
            if let Some(project_id) = project_id_for_preference {
                super::settings::write_last_mode(tx, project_id, state, now)?;
            }
            Ok(record)
        })
    }
}
