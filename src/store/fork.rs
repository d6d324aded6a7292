//! Forking a session: a new session that starts with a copy of another's
//! transcript and todos, for continuing a session another process holds.

use super::session_lock::{Held, take};
use super::{LockHolder, NewSession, SessionRecord, Store, StoreError, sessions};
use rusqlite::params;

impl Store {
    /// Copies session `source_id` (its entries, in order, and its todos;
    /// not its queued inputs) into a new session `new_id` held by this
    /// `Store`. The copy is of what was committed when it runs; the source
    /// may be in use meanwhile.
    pub fn fork_session(
        &mut self,
        source_id: &str,
        new_id: &str,
    ) -> Result<SessionRecord, StoreError> {
        let me = LockHolder::this_process();
        let record = self.write(|tx, now| {
            let source = sessions::load(tx, source_id)?
                .ok_or_else(|| StoreError::SessionNotFound(source_id.to_string()))?;
            let record = sessions::create(
                tx,
                &NewSession {
                    id: new_id.to_string(),
                    workspace: source.workspace,
                    project_id: source.project_id,
                    title: source.title,
                    model: source.model,
                    execution: source.execution,
                },
                now,
            )?;
            let entries = tx
                .prepare_cached(
                    "SELECT id, seq, kind, payload, created_at FROM session_entries
                     WHERE session_id = ?1 ORDER BY seq",
                )?
                .query_map([source_id], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, i64>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, String>(3)?,
                        row.get::<_, i64>(4)?,
                    ))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let mut insert = tx.prepare_cached(
                "INSERT INTO session_entries (id, session_id, seq, kind, payload, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for (id, seq, kind, payload, created_at) in entries {
                insert.execute(params![
                    forked_entry_id(&id, source_id, new_id),
                    new_id,
                    seq,
                    kind,
                    payload,
                    created_at
                ])?;
            }
            tx.prepare_cached(
                "INSERT INTO todo (session_id, position, content, status, priority)
                 SELECT ?2, position, content, status, priority FROM todo WHERE session_id = ?1",
            )?
            .execute(params![source_id, new_id])?;
            take(tx, new_id, &me, now)?;
            Ok(record)
        })?;
        self.held = Some(Held {
            session_id: new_id.to_string(),
            holder: me,
        });
        Ok(record)
    }
}

/// Entry ids are unique across sessions. Ids derived from the session id
/// (full-access receipts) are derived from the new one; others are new.
fn forked_entry_id(id: &str, source_id: &str, new_id: &str) -> String {
    match id
        .strip_prefix(source_id)
        .filter(|rest| rest.starts_with(':'))
    {
        Some(rest) => format!("{new_id}{rest}"),
        None => format!("ent_{}", uuid::Uuid::new_v4().simple()),
    }
}
