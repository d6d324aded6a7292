//! The `sessions` table.

use super::{Store, StoreError, sql_limit};
use crate::permission::mode::{ExecutionState, Mode, parse_stored_mode};
use rusqlite::{Connection, OptionalExtension, Row, params};

/// A session to create. The id (`sess_…`) is chosen by the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession {
    pub id: String,
    pub workspace: String,
    pub project_id: String,
    pub title: Option<String>,
    pub model: Option<String>,
    pub execution: ExecutionState,
}

/// A stored session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    pub id: String,
    pub workspace: String,
    pub project_id: String,
    pub title: Option<String>,
    pub model: Option<String>,
    pub execution: ExecutionState,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// Milliseconds since the Unix epoch; moved forward by every entry,
    /// todo replacement and execution-state change.
    pub updated_at: i64,
}

/// Which sessions [`Store::list_sessions`] returns; `None` fields match all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SessionFilter<'a> {
    pub project_id: Option<&'a str>,
    pub workspace: Option<&'a str>,
    /// Sub-agents' sessions too (they are listed under their parent's
    /// only when asked for).
    pub include_sub_agents: bool,
    /// Sessions nobody has sent a message in yet, too. A front end that
    /// starts and is left without a word leaves one behind; it is never
    /// listed, continued or offered to resume unless asked for.
    pub include_empty: bool,
}

/// The condition a session with a conversation meets: at least one user
/// message (a fork copies its parent's, a compaction keeps them).
const HAS_MESSAGE: &str = "EXISTS (SELECT 1 FROM session_entries e
     WHERE e.session_id = sessions.id AND e.kind = 'user_message')";

const COLUMNS: &str =
    "id, workspace, project_id, title, model, mode, plan_enabled, created_at, updated_at";

struct RawSession {
    id: String,
    workspace: String,
    project_id: String,
    title: Option<String>,
    model: Option<String>,
    mode: String,
    plan_enabled: bool,
    created_at: i64,
    updated_at: i64,
}

impl RawSession {
    fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: row.get(0)?,
            workspace: row.get(1)?,
            project_id: row.get(2)?,
            title: row.get(3)?,
            model: row.get(4)?,
            mode: row.get(5)?,
            plan_enabled: row.get(6)?,
            created_at: row.get(7)?,
            updated_at: row.get(8)?,
        })
    }

    fn into_record(self) -> Result<SessionRecord, StoreError> {
        // `plan` is accepted as a legacy mode value (EXEC-1).
        let parsed = parse_stored_mode(&self.mode, Mode::Build).ok_or_else(|| {
            StoreError::corrupt(
                "sessions",
                format!("session {}: unknown mode '{}'", self.id, self.mode),
            )
        })?;
        let execution = ExecutionState::new(parsed.mode, parsed.plan_enabled || self.plan_enabled);
        Ok(SessionRecord {
            id: self.id,
            workspace: self.workspace,
            project_id: self.project_id,
            title: self.title,
            model: self.model,
            execution,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

/// Loads one session.
pub(crate) fn load(conn: &Connection, id: &str) -> Result<Option<SessionRecord>, StoreError> {
    let raw = conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM sessions WHERE id = ?1"))?
        .query_row([id], RawSession::from_row)
        .optional()?;
    raw.map(RawSession::into_record).transpose()
}

/// Fails with [`StoreError::SessionNotFound`] unless the session exists.
pub(crate) fn require(conn: &Connection, id: &str) -> Result<(), StoreError> {
    let found = conn
        .prepare_cached("SELECT 1 FROM sessions WHERE id = ?1")?
        .exists([id])?;
    if found {
        Ok(())
    } else {
        Err(StoreError::SessionNotFound(id.to_string()))
    }
}

/// Moves the session's `updated_at` forward to `now` (never backwards).
pub(crate) fn touch(conn: &Connection, id: &str, now: i64) -> Result<(), StoreError> {
    let n = conn
        .prepare_cached("UPDATE sessions SET updated_at = max(updated_at, ?2) WHERE id = ?1")?
        .execute(params![id, now])?;
    if n == 0 {
        return Err(StoreError::SessionNotFound(id.to_string()));
    }
    Ok(())
}

/// Stores the session's execution state and touches it.
pub(crate) fn set_execution(
    conn: &Connection,
    id: &str,
    state: ExecutionState,
    now: i64,
) -> Result<(), StoreError> {
    let n = conn
        .prepare_cached(
            "UPDATE sessions SET mode = ?2, plan_enabled = ?3, updated_at = max(updated_at, ?4)
             WHERE id = ?1",
        )?
        .execute(params![id, state.mode.as_str(), state.plan_enabled, now])?;
    if n == 0 {
        return Err(StoreError::SessionNotFound(id.to_string()));
    }
    Ok(())
}

/// Inserts a session inside the caller's write transaction.
pub(crate) fn create(
    conn: &Connection,
    new: &NewSession,
    now: i64,
) -> Result<SessionRecord, StoreError> {
    let exists = conn
        .prepare_cached("SELECT 1 FROM sessions WHERE id = ?1")?
        .exists([&new.id])?;
    if exists {
        return Err(StoreError::DuplicateSession(new.id.clone()));
    }
    conn.prepare_cached(
        "INSERT INTO sessions
           (id, workspace, project_id, title, model, mode, plan_enabled, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
    )?
    .execute(params![
        new.id,
        new.workspace,
        new.project_id,
        new.title,
        new.model,
        new.execution.mode.as_str(),
        new.execution.plan_enabled,
        now,
    ])?;
    Ok(SessionRecord {
        id: new.id.clone(),
        workspace: new.workspace.clone(),
        project_id: new.project_id.clone(),
        title: new.title.clone(),
        model: new.model.clone(),
        execution: new.execution,
        created_at: now,
        updated_at: now,
    })
}

impl Store {
    /// Creates a session; `created_at` and `updated_at` are now.
    pub fn create_session(&mut self, new: &NewSession) -> Result<SessionRecord, StoreError> {
        self.write(|tx, now| create(tx, new, now))
    }

    pub fn get_session(&self, id: &str) -> Result<Option<SessionRecord>, StoreError> {
        self.read(|conn| load(conn, id))
    }

    /// Sessions matching `filter`, most recently updated first (ties: most
    /// recently created first), at most `limit` of them.
    pub fn list_sessions(
        &self,
        filter: &SessionFilter<'_>,
        limit: usize,
    ) -> Result<Vec<SessionRecord>, StoreError> {
        self.read(|conn| {
            use rusqlite::types::Value as SqlValue;
            let mut conditions = Vec::new();
            let mut args: Vec<SqlValue> = Vec::new();
            if let Some(project_id) = filter.project_id {
                args.push(SqlValue::Text(project_id.to_string()));
                conditions.push(format!("project_id = ?{}", args.len()));
            }
            if let Some(workspace) = filter.workspace {
                args.push(SqlValue::Text(workspace.to_string()));
                conditions.push(format!("workspace = ?{}", args.len()));
            }
            if !filter.include_sub_agents {
                conditions.push("id NOT IN (SELECT session_id FROM sub_agent)".to_string());
            }
            if !filter.include_empty {
                conditions.push(HAS_MESSAGE.to_string());
            }
            let where_clause = if conditions.is_empty() {
                String::new()
            } else {
                format!("WHERE {}", conditions.join(" AND "))
            };
            args.push(SqlValue::Integer(sql_limit(limit)));
            // At most sixteen distinct statements, so the statement cache holds them.
            let sql = format!(
                "SELECT {COLUMNS} FROM sessions {where_clause}
                 ORDER BY updated_at DESC, rowid DESC LIMIT ?{}",
                args.len()
            );
            let mut stmt = conn.prepare_cached(&sql)?;
            let raws = stmt
                .query_map(rusqlite::params_from_iter(args), RawSession::from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            raws.into_iter().map(RawSession::into_record).collect()
        })
    }

    /// The most recently updated session of a workspace (`--continue`).
    pub fn latest_session_for_workspace(
        &self,
        workspace: &str,
    ) -> Result<Option<SessionRecord>, StoreError> {
        let filter = SessionFilter {
            workspace: Some(workspace),
            ..SessionFilter::default()
        };
        Ok(self.list_sessions(&filter, 1)?.into_iter().next())
    }

    /// Sets or clears a session's title (does not touch `updated_at`).
    pub fn set_session_title(&mut self, id: &str, title: Option<&str>) -> Result<(), StoreError> {
        self.write(|tx, _now| {
            let n = tx
                .prepare_cached("UPDATE sessions SET title = ?2 WHERE id = ?1")?
                .execute(params![id, title])?;
            if n == 0 {
                return Err(StoreError::SessionNotFound(id.to_string()));
            }
            Ok(())
        })
    }

    /// Records the model a session now uses (`/model`; does not touch
    /// `updated_at`).
    pub(crate) fn set_session_model(&mut self, id: &str, model: &str) -> Result<(), StoreError> {
        self.write(|tx, _now| {
            let n = tx
                .prepare_cached("UPDATE sessions SET model = ?2 WHERE id = ?1")?
                .execute(params![id, model])?;
            if n == 0 {
                return Err(StoreError::SessionNotFound(id.to_string()));
            }
            Ok(())
        })
    }

    /// Deletes a session with its entries, todos and queued inputs. Returns
    /// whether it existed.
    pub fn delete_session(&mut self, id: &str) -> Result<bool, StoreError> {
        self.write(|tx, _now| {
            // Its sub-agents' transcripts go with it.
            tx.prepare_cached(
                "DELETE FROM sessions WHERE id IN
                   (SELECT session_id FROM sub_agent WHERE parent_session_id = ?1)",
            )?
            .execute([id])?;
            let n = tx
                .prepare_cached("DELETE FROM sessions WHERE id = ?1")?
                .execute([id])?;
            Ok(n > 0)
        })
    }
}
