//! The errors of the store. Every variant carries enough context to be shown
//! to the user as is.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create directory {} for the database: {source}", path.display())]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("cannot open database {}: {source}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
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

    #[error("migrating database {} to schema {version} failed: {source}", path.display())]
    Migration {
        path: PathBuf,
        version: u32,
        #[source]
        source: rusqlite::Error,
    },

    #[error("database {}: {source}", path.display())]
    Sqlite {
        /// Empty while the error travels inside the store; filled in before it
        /// leaves a public method.
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },

    #[error("session {0} not found")]
    SessionNotFound(String),

    #[error("session {0} already exists")]
    DuplicateSession(String),

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
    Encode(#[source] serde_json::Error),
}

impl From<rusqlite::Error> for StoreError {
    fn from(source: rusqlite::Error) -> Self {
        StoreError::Sqlite {
            path: PathBuf::new(),
            source,
        }
    }
}

impl StoreError {
    /// Names the database file in a low-level SQLite error.
    pub(crate) fn with_path(self, db_path: &Path) -> Self {
        match self {
            StoreError::Sqlite { path, source } if path.as_os_str().is_empty() => {
                StoreError::Sqlite {
                    path: db_path.to_path_buf(),
                    source,
                }
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
    pub fn is_busy(&self) -> bool {
        let source = match self {
            StoreError::Sqlite { source, .. }
            | StoreError::Open { source, .. }
            | StoreError::Migration { source, .. } => source,
            _ => return false,
        };
        matches!(
            source.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        )
    }
}
