//! The SQLite store: sessions, their entries, todos, local settings (project
//! rules, last selected mode, question timers, prompt history) and the input queue, in one database file
//! shared by every zcode process of the user (STORE-1, STORE-2).
//!
//! Every write runs in a `BEGIN IMMEDIATE` transaction so that the busy
//! timeout applies to lock acquisition and a read-modify-write cannot race
//! another process. Reads are single statements.

mod entries;
mod error;
mod fork;
mod full_access;
mod input_queue;
mod lock_holder;
mod open;
mod project_ids;
mod project_roots;
mod prompt_history;
mod question_timers;
mod session_lock;
mod sessions;
mod settings;
mod sub_agents;
mod todos;

pub use entries::{EntryRecord, NewEntry, entry_kind};
pub use error::StoreError;
pub use full_access::{FullAccessReceipt, full_access_receipt_id, full_access_state_entry_id};
pub use input_queue::{InputStatus, QueuedInput};
pub use lock_holder::{HolderRecord, LockHolder, STALE_AFTER_MS};
pub use open::{BUSY_TIMEOUT, SCHEMA_VERSION, default_db_path};
pub use project_ids::ProjectIdCarryOver;
pub use project_roots::CarriedProject;
pub use prompt_history::{PROMPT_HISTORY_LIMIT, PROMPT_HISTORY_MAX_CHARS};
pub use question_timers::{NAMESPACE_QUESTION_TIMERS, SCOPE_SESSION, TimerRecord, TimerState};
pub use sessions::{NewSession, SessionFilter, SessionRecord};
pub use settings::{
    KEY_LAST_SELECTED_MODE, KEY_RULESET, NAMESPACE_EXECUTION, NAMESPACE_PERMISSION, SCOPE_PROJECT,
    SettingKey,
};
pub use sub_agents::{SubAgentLink, SubAgentRow};
pub use todos::{TodoItem, TodoPriority, TodoStatus};

use rusqlite::{Connection, Transaction, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The source of timestamps (milliseconds since the Unix epoch) written by
/// the store. Set once at open so tests can be deterministic.
pub trait Clock: Send + Sync {
    fn now_ms(&self) -> i64;
}

/// Wall-clock time.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    }
}

/// A clock that only moves when told to (tests).
#[derive(Debug, Default)]
pub struct ManualClock {
    ms: AtomicI64,
}

impl ManualClock {
    pub fn new(ms: i64) -> Self {
        Self {
            ms: AtomicI64::new(ms),
        }
    }

    pub fn set(&self, ms: i64) {
        self.ms.store(ms, Ordering::SeqCst);
    }

    pub fn advance(&self, ms: i64) {
        self.ms.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.ms.load(Ordering::SeqCst)
    }
}

/// Connection settings reported by [`Store::pragmas`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pragmas {
    /// `wal` for a database file, `memory` in memory.
    pub journal_mode: String,
    pub foreign_keys: bool,
    /// 0 = OFF, 1 = NORMAL, 2 = FULL, 3 = EXTRA.
    pub synchronous: i64,
    pub busy_timeout_ms: i64,
}

/// One connection to the database. `Send` but not `Sync`: share it through a
/// mutex or a dedicated thread, or open one `Store` per thread.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    clock: Arc<dyn Clock>,
    migrations_applied: u32,
    /// The session this connection holds the lock of (`session_lock`).
    held: Option<session_lock::Held>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("migrations_applied", &self.migrations_applied)
            .finish_non_exhaustive()
    }
}

impl Store {
    /// The database file (`:memory:` for an in-memory store).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The connection settings in effect (STORE-1), for diagnostics.
    pub fn pragmas(&self) -> Result<Pragmas, StoreError> {
        self.read(|conn| {
            let get_i64 = |name: &str| -> rusqlite::Result<i64> {
                conn.pragma_query_value(None, name, |row| row.get(0))
            };
            Ok(Pragmas {
                journal_mode: conn.pragma_query_value(None, "journal_mode", |row| row.get(0))?,
                foreign_keys: get_i64("foreign_keys")? != 0,
                synchronous: get_i64("synchronous")?,
                busy_timeout_ms: get_i64("busy_timeout")?,
            })
        })
    }

    /// Runs `f` in one `BEGIN IMMEDIATE` transaction, committing only if it
    /// succeeds; any error rolls everything back.
    fn write<T>(
        &mut self,
        f: impl FnOnce(&Transaction<'_>, i64) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let Store {
            conn, path, clock, ..
        } = self;
        let run = || {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            // Read the clock only once the write lock is held, so timestamps
            // follow commit order across processes (up to clock skew).
            let now = clock.now_ms();
            let value = f(&tx, now)?;
            tx.commit()?;
            Ok(value)
        };
        run().map_err(|e: StoreError| e.at(path, Some(conn)))
    }

    /// [`Self::write`] for a write to one session: when this `Store` holds
    /// that session, the transaction first checks the lock is still its own.
    fn write_session<T>(
        &mut self,
        session_id: &str,
        f: impl FnOnce(&Transaction<'_>, i64) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let held = self
            .held
            .clone()
            .filter(|held| held.session_id == session_id);
        self.write(|tx, now| {
            if let Some(held) = &held {
                session_lock::check(tx, held)?;
            }
            f(tx, now)
        })
    }

    /// Runs a read against the connection.
    fn read<T>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        f(&self.conn).map_err(|e| e.at(&self.path, Some(&self.conn)))
    }
}

/// Parses a JSON column.
fn parse_json(table: &'static str, id: &str, text: &str) -> Result<serde_json::Value, StoreError> {
    serde_json::from_str(text)
        .map_err(|e| StoreError::corrupt(table, format!("row {id}: payload is not JSON: {e}")))
}

/// Converts a caller's limit to SQLite's `LIMIT` (which takes an i64).
fn sql_limit(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}
