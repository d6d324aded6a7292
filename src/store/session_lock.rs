//! The `session_lock` table: a session is worked on by one zcode process
//! at a time (STORE-2). Two runs appending to one session would interleave
//! their calls and results into a transcript no provider accepts.
//!
//! A runtime takes the lock when it opens the session, refreshes its
//! heartbeat while it runs and releases it when it stops. A lock whose
//! holder is gone (killed, crashed) is taken over: see
//! [`LockHolder::sees_gone`]. Once a `Store` holds a session, each entry it
//! appends there first checks that the lock is still its own.

use super::lock_holder::{HolderRecord, LockHolder};
use super::{Store, StoreError, sessions};
use rusqlite::{Connection, OptionalExtension, params};

/// The session a `Store` holds, and as whom.
#[derive(Debug, Clone)]
pub(super) struct Held {
    pub session_id: String,
    pub holder: LockHolder,
}

fn load(conn: &Connection, session_id: &str) -> Result<Option<HolderRecord>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT token, pid, pid_started, host, acquired_at, heartbeat_at
             FROM session_lock WHERE session_id = ?1",
        )?
        .query_row([session_id], |row| {
            Ok(HolderRecord {
                token: row.get(0)?,
                pid: row.get(1)?,
                pid_started: row.get(2)?,
                host: row.get(3)?,
                acquired_at: row.get(4)?,
                heartbeat_at: row.get(5)?,
            })
        })
        .optional()?)
}

/// Takes the lock inside the caller's write transaction, unless a running
/// process other than this one holds it.
pub(super) fn take(
    conn: &Connection,
    session_id: &str,
    me: &LockHolder,
    now: i64,
) -> Result<(), StoreError> {
    sessions::require(conn, session_id)?;
    if let Some(current) = load(conn, session_id)? {
        let free = current.token == me.token
            || me.is_same_process(&current)
            || me.sees_gone(&current, now);
        if !free {
            return Err(StoreError::SessionInUse {
                id: session_id.to_string(),
                pid: current.pid,
            });
        }
    }
    conn.prepare_cached(
        "INSERT OR REPLACE INTO session_lock
           (session_id, token, pid, pid_started, host, acquired_at, heartbeat_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
    )?
    .execute(params![
        session_id,
        me.token,
        me.pid,
        me.pid_started,
        me.host,
        now
    ])?;
    Ok(())
}

/// Fails unless `held` still holds its session (checked before each write
/// to it, inside the write transaction).
pub(super) fn check(conn: &Connection, held: &Held) -> Result<(), StoreError> {
    match load(conn, &held.session_id)? {
        Some(current) if current.token == held.holder.token => Ok(()),
        current => Err(StoreError::SessionTakenOver {
            id: held.session_id.clone(),
            pid: current.map(|c| c.pid),
        }),
    }
}

impl Store {
    /// Takes the lock of `session_id` for this `Store` (see the module
    /// documentation). Fails with [`StoreError::SessionInUse`] while
    /// another running zcode holds it.
    pub fn hold_session(&mut self, session_id: &str) -> Result<(), StoreError> {
        let me = LockHolder::this_process();
        self.write(|tx, now| take(tx, session_id, &me, now))?;
        self.held = Some(Held {
            session_id: session_id.to_string(),
            holder: me,
        });
        Ok(())
    }

    /// The session this `Store` holds, if any.
    pub fn held_session(&self) -> Option<&str> {
        self.held.as_ref().map(|h| h.session_id.as_str())
    }

    /// Moves the held lock's heartbeat forward. Fails with
    /// [`StoreError::SessionTakenOver`] when the lock is no longer ours.
    pub fn refresh_session_lock(&mut self) -> Result<(), StoreError> {
        let Some(held) = self.held.clone() else {
            return Ok(());
        };
        self.write(|tx, now| {
            check(tx, &held)?;
            tx.prepare_cached("UPDATE session_lock SET heartbeat_at = ?2 WHERE session_id = ?1")?
                .execute(params![held.session_id, now])?;
            Ok(())
        })
    }

    /// Gives up the held lock (a lock taken over meanwhile stays with its
    /// new holder).
    pub fn release_session(&mut self) -> Result<(), StoreError> {
        let Some(held) = self.held.take() else {
            return Ok(());
        };
        self.write(|tx, _now| {
            tx.prepare_cached("DELETE FROM session_lock WHERE session_id = ?1 AND token = ?2")?
                .execute(params![held.session_id, held.holder.token])?;
            Ok(())
        })
    }

    /// Who holds `session_id`, as the table says (the holder may be gone).
    pub fn session_lock(&self, session_id: &str) -> Result<Option<HolderRecord>, StoreError> {
        self.read(|conn| load(conn, session_id))
    }
}

impl Store {
    /// Creates a session already held by this `Store`, in one transaction
    /// (nobody can take it between its creation and its lock).
    pub fn create_held_session(
        &mut self,
        new: &super::NewSession,
    ) -> Result<super::SessionRecord, StoreError> {
        let me = LockHolder::this_process();
        let record = self.write(|tx, now| {
            let record = sessions::create(tx, new, now)?;
            take(tx, &new.id, &me, now)?;
            Ok(record)
        })?;
        self.held = Some(Held {
            session_id: new.id.clone(),
            holder: me,
        });
        Ok(record)
    }
}
