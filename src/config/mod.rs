//! Configuration: the zcode home directory and project ids (GRANT-3).
//!
//! Functions that need environment variables take a lookup
//! `impl Fn(&str) -> Option<String>` instead of reading the process
//! environment themselves.

pub mod home;
pub mod project_id;

pub use home::{CONFIG_FILE_NAME, config_path, zcode_home};
pub use project_id::project_id;

/// Why the configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot locate the zcode home directory: neither ZCODE_HOME nor HOME is set")]
    HomeNotSet,
}
