//! Opening the database and versioned migrations (STORE-1, STORE-2).

use super::error::classify;
use super::{Clock, Store, StoreError, SystemClock};
use rusqlite::{Connection, ErrorCode, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a statement waits for another process's write lock before
/// failing with `SQLITE_BUSY` (STORE-2).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// One migration step: SQL, or code for what SQL cannot compute.
pub(super) enum Step {
    Sql(&'static str),
    Code(fn(&Connection) -> rusqlite::Result<()>),
}

/// The ordered migration steps. Step `i` takes the schema from version `i`
/// to `i + 1`; each runs in its own `BEGIN IMMEDIATE` transaction together
/// with the `user_version` bump. Never edit a released step, append a new one.
pub(super) const MIGRATIONS: &[Step] = &[
    // 1: initial schema.
    Step::Sql(
        r#"
CREATE TABLE sessions (
    id           TEXT PRIMARY KEY NOT NULL,
    workspace    TEXT NOT NULL,
    project_id   TEXT NOT NULL,
    title        TEXT,
    model        TEXT,
    mode         TEXT NOT NULL,
    plan_enabled INTEGER NOT NULL DEFAULT 0 CHECK (plan_enabled IN (0, 1)),
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_by_updated ON sessions (updated_at DESC);
CREATE INDEX sessions_by_workspace ON sessions (workspace, updated_at DESC);
CREATE INDEX sessions_by_project ON sessions (project_id, updated_at DESC);

CREATE TABLE session_entries (
    id         TEXT PRIMARY KEY NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    payload    TEXT NOT NULL CHECK (json_valid(payload)),
    created_at INTEGER NOT NULL,
    UNIQUE (session_id, seq)
) STRICT;
CREATE INDEX session_entries_by_kind ON session_entries (session_id, kind, seq);

CREATE TABLE todo (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    content    TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed')),
    priority   TEXT NOT NULL CHECK (priority IN ('high', 'medium', 'low')),
    PRIMARY KEY (session_id, position)
) STRICT;

CREATE TABLE local_setting (
    scope      TEXT NOT NULL,
    scope_id   TEXT NOT NULL,
    namespace  TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL CHECK (json_valid(value)),
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (scope, scope_id, namespace, key)
) STRICT;

CREATE TABLE input_queue (
    id         TEXT PRIMARY KEY NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    text       TEXT NOT NULL,
    payload    TEXT NOT NULL CHECK (json_valid(payload)),
    status     TEXT NOT NULL CHECK (status IN ('queued', 'started', 'done', 'cancelled')),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (session_id, seq)
) STRICT;
CREATE INDEX input_queue_by_status ON input_queue (session_id, status, seq);
"#,
    ),
    // 2: hashed project ids (GRANT-3); saved settings carried over.
    Step::Code(super::project_ids::migrate),
    // 3: one process at a time per session (STORE-2, `session_lock`).
    Step::Sql(
        r#"
CREATE TABLE session_lock (
    session_id   TEXT PRIMARY KEY NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    token        TEXT NOT NULL,
    pid          INTEGER NOT NULL,
    pid_started  INTEGER,
    host         TEXT NOT NULL,
    acquired_at  INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL
) STRICT;
"#,
    ),
    // 4: sub-agents' sessions, linked to the session and call that started
    // them.
    Step::Sql(
        r#"
CREATE TABLE sub_agent (
    session_id        TEXT PRIMARY KEY NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    parent_session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    parent_call_id    TEXT NOT NULL,
    label             TEXT NOT NULL,
    agent_type        TEXT NOT NULL,
    description       TEXT NOT NULL,
    model             TEXT NOT NULL,
    summary           TEXT CHECK (summary IS NULL OR json_valid(summary)),
    created_at        INTEGER NOT NULL
) STRICT;
CREATE INDEX sub_agent_by_parent ON sub_agent (parent_session_id, parent_call_id);
"#,
    ),
];

/// The schema version this build writes and understands.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// The default database location: `$ZCODE_HOME/cli/db/db.sqlite` (STORE-1).
pub fn default_db_path(zcode_home: &Path) -> PathBuf {
    zcode_home.join("cli").join("db").join("db.sqlite")
}

impl Store {
    /// Opens (creating if needed) the database at `path` with the system
    /// clock. See [`Store::open_with_clock`].
    pub fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        Store::open_with_clock(path, Arc::new(SystemClock))
    }

    /// Opens the database at `path`, creating parent directories, and
    /// migrates it to [`SCHEMA_VERSION`]. A file that is not a database,
    /// whose pages are damaged or whose schema is newer than this build is
    /// refused without writing to it.
    pub fn open_with_clock(
        path: impl AsRef<Path>,
        clock: Arc<dyn Clock>,
    ) -> Result<Store, StoreError> {
        let path = path.as_ref().to_path_buf();
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|error| StoreError::CreateDir {
                path: parent.to_path_buf(),
                error,
            })?;
        }
        let conn = Connection::open(&path).map_err(|error| StoreError::Open {
            path: path.clone(),
            error,
        })?;
        Store::init(conn, path, clock, true)
    }

    /// A private in-memory database with the system clock (tests).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        Store::open_in_memory_with_clock(Arc::new(SystemClock))
    }

    /// A private in-memory database with the given clock (tests).
    pub fn open_in_memory_with_clock(clock: Arc<dyn Clock>) -> Result<Store, StoreError> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().map_err(|error| StoreError::Open {
            path: path.clone(),
            error,
        })?;
        Store::init(conn, path, clock, false)
    }

    fn init(
        conn: Connection,
        path: PathBuf,
        clock: Arc<dyn Clock>,
        on_disk: bool,
    ) -> Result<Store, StoreError> {
        let open_err = |source: rusqlite::Error| classify_open_error(&path, source);

        // Connection-level settings: none of these touch the file.
        conn.busy_timeout(BUSY_TIMEOUT).map_err(open_err)?;

        // The first read of the header: garbage fails here, before any write.
        let found = retry_while_busy(|| user_version(&conn)).map_err(open_err)?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                path,
                found,
                known: SCHEMA_VERSION,
            });
        }

        if on_disk {
            check_pages(&path, &conn)?;
            retry_while_busy(|| set_wal(&conn)).map_err(open_err)?;
        }
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(open_err)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(open_err)?;

        let mut store = Store {
            conn,
            path,
            clock,
            migrations_applied: 0,
            held: None,
        };
        if found < SCHEMA_VERSION {
            store.migrate()?;
        }
        Ok(store)
    }

    /// Applies pending migrations, one `BEGIN IMMEDIATE` transaction each.
    /// The version is re-read inside the transaction, so of two processes
    /// opening a fresh database at once only one applies each step.
    fn migrate(&mut self) -> Result<(), StoreError> {
        loop {
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(|source| classify_open_error(&self.path, source))?;
            let current =
                user_version(&tx).map_err(|source| classify_open_error(&self.path, source))?;
            if current > SCHEMA_VERSION {
                return Err(StoreError::NewerSchema {
                    path: self.path.clone(),
                    found: current,
                    known: SCHEMA_VERSION,
                });
            }
            let Some(step) = MIGRATIONS.get(current as usize) else {
                // Up to date (another process finished first). Nothing was
                // written; dropping the transaction rolls it back.
                return Ok(());
            };
            let target = current + 1;
            let run = match step {
                Step::Sql(sql) => tx.execute_batch(sql),
                Step::Code(code) => code(&tx),
            };
            let applied = run
                .and_then(|()| tx.pragma_update(None, "user_version", target))
                .and_then(|()| tx.commit());
            applied.map_err(|error| StoreError::Migration {
                path: self.path.clone(),
                version: target,
                error,
            })?;
            self.migrations_applied += 1;
        }
    }

    /// The schema version stored in the file.
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        user_version(&self.conn).map_err(|e| StoreError::from(e).at(&self.path, Some(&self.conn)))
    }

    /// How many migration steps this `open` applied (0 when the database was
    /// already up to date, or another process migrated it first).
    pub fn migrations_applied(&self) -> u32 {
        self.migrations_applied
    }
}

fn user_version(conn: &Connection) -> rusqlite::Result<u32> {
    let v: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    // user_version is a signed 32-bit header field; a negative value can only
    // come from another program and is certainly not a schema we know.
    Ok(u32::try_from(v).unwrap_or(u32::MAX))
}

/// Retries `op` while it fails with `SQLITE_BUSY`, up to [`BUSY_TIMEOUT`].
/// Needed where SQLite returns `SQLITE_BUSY` without consulting the busy
/// handler: switching the journal mode to WAL while another connection
/// holds a lock (two processes opening a fresh database at once), and
/// opening a WAL database while another connection is recovering it.
fn retry_while_busy<T>(mut op: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let deadline = Instant::now() + BUSY_TIMEOUT;
    let mut pause = Duration::from_millis(1);
    loop {
        match op() {
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
                ) && Instant::now() < deadline =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// Switches the file to WAL. A no-op (no write) when it already is.
fn set_wal(conn: &Connection) -> rusqlite::Result<()> {
    let current: String = conn.pragma_query_value(None, "journal_mode", |row| row.get(0))?;
    if current.eq_ignore_ascii_case("wal") {
        return Ok(());
    }
    let _mode: String =
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
    Ok(())
}

fn classify_open_error(path: &Path, error: rusqlite::Error) -> StoreError {
    match classify(path, error, None) {
        StoreError::Sqlite { path, error, .. } => StoreError::Open { path, error },
        other => other,
    }
}

/// A `quick_check` line about one row's value (a CHECK, NOT NULL or
/// STRICT type violation another program wrote), not about the pages:
/// the readers of that table report such a row as malformed themselves.
fn is_row_content_problem(line: &str) -> bool {
    line.starts_with("CHECK constraint failed in ")
        || ["NULL", "TEXT", "INTEGER", "REAL", "BLOB", "NUMERIC"]
            .iter()
            .any(|kind| line.starts_with(&format!("{kind} value in ")))
}

/// How much of `PRAGMA quick_check`'s report an error quotes.
const DAMAGE_DETAIL_CHARS: usize = 200;

/// STORE-2: a file whose pages are damaged is refused before anything is
/// written to it. `quick_check` reads every page once (a fraction of a
/// second for a database of a few hundred MB); it checks the structure of
/// every table and index, though not that indexes match their tables.
fn check_pages(path: &Path, conn: &Connection) -> Result<(), StoreError> {
    let report = retry_while_busy(|| {
        conn.prepare("PRAGMA quick_check")?
            .query_map([], |row| row.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<String>>>()
    })
    .map_err(|error| classify_open_error(path, error))?;
    if report.len() == 1 && report[0] == "ok" {
        return Ok(());
    }
    let problems: Vec<&str> = report
        .iter()
        .flat_map(|line| line.lines())
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with("***"))
        .filter(|line| !is_row_content_problem(line))
        .collect();
    if problems.is_empty() {
        return Ok(());
    }
    let first = problems[0];
    let mut detail: String = first.chars().take(DAMAGE_DETAIL_CHARS).collect();
    if problems.len() > 1 {
        detail.push_str(&format!(", and {} more problem(s)", problems.len() - 1));
    }
    Err(StoreError::Damaged {
        path: path.to_path_buf(),
        detail,
    })
}
