//! The errors of the store. Every variant carries enough context to be shown
//! to the user as is: its text already includes what caused it, so no
//! variant also exposes that cause as its `source()` (an error chain
//! printed with `{:#}` would repeat it).

use rusqlite::ErrorCode;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create directory {} for the database: {error}", path.display())]
    CreateDir {
        path: PathBuf,
        error: std::io::Error,
    },

    #[error("cannot open database {}: {}", path.display(), describe(error, None))]
    Open {
        path: PathBuf,
        error: rusqlite::Error,
    },

    #[error("{} is not an SQLite database (or it is corrupted); it was left untouched", path.display())]
    NotADatabase { path: PathBuf },

    #[error(
        "database {} was written by a newer zcode (schema {found}, this build knows {known}); upgrade zcode",
        path.display()
    )]
    NewerSchema {
        path: PathBuf,
        found: u32,
        known: u32,
    },

    #[error("migrating database {} to schema {version} failed: {}", path.display(), describe(error, None))]
    Migration {
        path: PathBuf,
        version: u32,
        error: rusqlite::Error,
    },

    /// The disk (or a quota, or the file size limit) has no room for what
    /// was being written; the transaction was rolled back.
    #[error(
        "database or disk is full ({}: {detail}); free space on that disk, or set ZCODE_HOME to a directory on another one",
        path.display()
    )]
    NoSpace { path: PathBuf, detail: String },

    /// SQLite found the file's pages damaged.
    #[error(
        "the database {} is damaged ({detail}); move it aside (zcode then starts a new, empty one) or restore it from a backup",
        path.display()
    )]
    Damaged { path: PathBuf, detail: String },

    #[error("database {}: {}", path.display(), describe(error, *os_error))]
    Sqlite {
        /// Empty while the error travels inside the store; filled in before it
        /// leaves a public method.
        path: PathBuf,
        error: rusqlite::Error,
        /// The OS error behind an I/O failure, when SQLite reported one.
        os_error: Option<i32>,
    },

    #[error("session {0} not found")]
    SessionNotFound(String),

    #[error("session {0} already exists")]
    DuplicateSession(String),

    /// Another process holds the session (see `session_lock`).
    #[error(
        "session {id} is in use by another zcode (pid {pid}); wait for it to finish, or continue in a copy with `zcode --resume {id} --fork-session`"
    )]
    SessionInUse { id: String, pid: i64 },

    /// The lock this `Store` held was taken over (its heartbeat looked
    /// stale to another process) or released: nothing more is written.
    #[error("{}", taken_over_text(id, *pid))]
    SessionTakenOver { id: String, pid: Option<i64> },

    #[error("session entry {0} already exists")]
    DuplicateEntry(String),

    #[error("queued input {0} already exists")]
    DuplicateInput(String),

    #[error("queued input {0} not found")]
    InputNotFound(String),

    #[error("queued input {id} cannot go from {from} to {to}")]
    InvalidInputTransition {
        id: String,
        from: &'static str,
        to: &'static str,
    },

    #[error("stored setting {scope}/{scope_id} {namespace}.{key} is malformed: {message}")]
    MalformedSetting {
        scope: String,
        scope_id: String,
        namespace: String,
        key: String,
        message: String,
    },

    #[error("unreadable row in table {table}: {message}")]
    Corrupt {
        table: &'static str,
        message: String,
    },

    #[error("cannot encode a value as JSON: {0}")]
    Encode(serde_json::Error),
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> Self {
        StoreError::Sqlite {
            path: PathBuf::new(),
            error,
            os_error: None,
        }
    }
}

impl StoreError {
    /// Names the database file in a low-level SQLite error and sorts out
    /// the failures the user must act on (no space, a damaged file).
    /// `conn` is the connection the error came from, for the OS error
    /// behind an I/O failure.
    pub(crate) fn at(self, db_path: &Path, conn: Option<&rusqlite::Connection>) -> Self {
        match self {
            StoreError::Sqlite { path, error, .. } if path.as_os_str().is_empty() => {
                let os_error = conn.and_then(|c| os_error_of(c, &error));
                classify(db_path, error, os_error)
            }
            other => other,
        }
    }

    pub(crate) fn corrupt(table: &'static str, message: impl Into<String>) -> Self {
        StoreError::Corrupt {
            table,
            message: message.into(),
        }
    }

    /// Whether the underlying SQLite error is `SQLITE_BUSY`/`SQLITE_LOCKED`
    /// (the busy timeout expired).
    #[cfg(test)]
    pub(crate) fn is_busy(&self) -> bool {
        matches!(
            self.sqlite_error()
                .and_then(rusqlite::Error::sqlite_error_code),
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
        )
    }

    /// Whether writing failed for want of room (disk, quota, file size limit).
    #[cfg(test)]
    pub(crate) fn is_no_space(&self) -> bool {
        matches!(self, StoreError::NoSpace { .. })
    }

    /// Whether the database file itself is damaged or not a database.
    pub fn is_damaged(&self) -> bool {
        matches!(
            self,
            StoreError::Damaged { .. } | StoreError::NotADatabase { .. }
        )
    }

    #[cfg(test)]
    fn sqlite_error(&self) -> Option<&rusqlite::Error> {
        match self {
            StoreError::Sqlite { error, .. }
            | StoreError::Open { error, .. }
            | StoreError::Migration { error, .. } => Some(error),
            _ => None,
        }
    }
}

fn taken_over_text(id: &str, pid: Option<i64>) -> String {
    match pid {
        Some(pid) => format!(
            "session {id} was taken over by another zcode (pid {pid}); this process no longer writes to it"
        ),
        None => {
            format!("session {id} is no longer held by this process; nothing more is written to it")
        }
    }
}

/// The variant for an SQLite error at `path`.
pub(crate) fn classify(path: &Path, error: rusqlite::Error, os_error: Option<i32>) -> StoreError {
    let path = path.to_path_buf();
    match error.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => StoreError::NotADatabase { path },
        Some(ErrorCode::DatabaseCorrupt) => StoreError::Damaged {
            path,
            detail: describe(&error, None),
        },
        Some(ErrorCode::DiskFull) => StoreError::NoSpace {
            path,
            detail: describe(&error, os_error),
        },
        Some(ErrorCode::SystemIoFailure) if os_error.is_some_and(is_no_space_errno) => {
            StoreError::NoSpace {
                path,
                detail: describe(&error, os_error),
            }
        }
        _ => StoreError::Sqlite {
            path,
            error,
            os_error,
        },
    }
}

/// ENOSPC, EDQUOT and EFBIG: the write had no room. SQLite reports ENOSPC
/// as `SQLITE_FULL` but the others as a plain I/O error.
fn is_no_space_errno(errno: i32) -> bool {
    matches!(errno, libc::ENOSPC | libc::EDQUOT | libc::EFBIG)
}

/// The OS error SQLite recorded for the I/O failure `error`, if any. Only
/// I/O and open failures record one; for other errors it would be stale.
fn os_error_of(conn: &rusqlite::Connection, error: &rusqlite::Error) -> Option<i32> {
    if !matches!(
        error.sqlite_error_code(),
        Some(ErrorCode::SystemIoFailure | ErrorCode::DiskFull | ErrorCode::CannotOpen)
    ) {
        return None;
    }
    // SAFETY: `handle` is the live connection `conn` owns; reading its last
    // OS error neither changes nor keeps the pointer.
    let errno = unsafe { rusqlite::ffi::sqlite3_system_errno(conn.handle()) };
    (errno != 0).then_some(errno)
}

/// An SQLite error in words, once: SQLite's message (rusqlite's display of
/// a failure is that message, and its `source()` says it again as "Error
/// code N: …"), then the OS error behind it.
pub(crate) fn describe(error: &rusqlite::Error, os_error: Option<i32>) -> String {
    let text = match error {
        rusqlite::Error::SqliteFailure(failure, message) => message
            .clone()
            .unwrap_or_else(|| rusqlite::ffi::code_to_str(failure.extended_code).to_lowercase()),
        other => other.to_string(),
    };
    match os_error {
        Some(errno) => format!("{text}: {}", std::io::Error::from_raw_os_error(errno)),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(code: i32, message: &str) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), Some(message.into()))
    }

    /// Every cause of the chain, as `{:#}` prints it.
    fn chain(err: StoreError) -> String {
        format!("{:#}", anyhow::Error::from(err))
    }

    #[test]
    fn store_errors_say_their_cause_once_in_a_printed_chain() {
        let path = Path::new("/h/cli/db/db.sqlite");
        let malformed = StoreError::from(failure(
            rusqlite::ffi::SQLITE_CORRUPT,
            "database disk image is malformed",
        ))
        .at(path, None);
        let text = chain(malformed);
        assert_eq!(text.matches("malformed").count(), 1, "{text}");
        assert!(text.contains("/h/cli/db/db.sqlite"), "{text}");
        assert!(!text.contains("Error code"), "{text}");

        let io = StoreError::CreateDir {
            path: "/h/cli".into(),
            error: std::io::Error::from_raw_os_error(libc::EACCES),
        };
        let text = chain(io);
        assert_eq!(text.matches("Permission denied").count(), 1, "{text}");

        let busy = StoreError::from(failure(rusqlite::ffi::SQLITE_BUSY, "database is locked"))
            .at(path, None);
        assert!(busy.is_busy());
        let text = chain(busy);
        assert_eq!(text.matches("locked").count(), 1, "{text}");
    }

    #[test]
    fn a_write_without_room_is_no_space_with_what_to_do() {
        let path = Path::new("/h/db.sqlite");
        let full = classify(
            path,
            failure(rusqlite::ffi::SQLITE_FULL, "database or disk is full"),
            None,
        );
        assert!(full.is_no_space(), "{full:?}");
        let too_big = classify(
            path,
            failure(rusqlite::ffi::SQLITE_IOERR_WRITE, "disk I/O error"),
            Some(libc::EFBIG),
        );
        assert!(too_big.is_no_space(), "{too_big:?}");
        let text = too_big.to_string();
        assert!(
            text.starts_with(
                "database or disk is full (/h/db.sqlite: disk I/O error: File too large"
            ),
            "{text}"
        );
        assert!(text.contains("set ZCODE_HOME"), "{text}");
        let other_io = classify(
            path,
            failure(rusqlite::ffi::SQLITE_IOERR_READ, "disk I/O error"),
            Some(libc::EIO),
        );
        assert!(!other_io.is_no_space(), "{other_io:?}");
        assert!(other_io.to_string().contains("Input/output error"));
    }
}
