//! An error in how zcode was called (the command line or its input), as
//! opposed to one while running: it exits with code 2, like clap's own.

/// Exit code of a usage error.
pub const USAGE_EXIT_CODE: u8 = 2;

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl UsageError {
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}
