//! A project's prompt history: what the user typed in the terminal UI,
//! oldest first, so that ↑ in a new session of the project brings back the
//! last prompts. One `local_setting` value per project (no table of its
//! own), read-modify-written in one transaction so that two sessions of
//! the project lose nothing.

use super::settings::{SettingKey, get, set};
use super::{Store, StoreError};
use serde_json::Value;

/// Namespace and key of a project's prompt history.
pub const NAMESPACE_PROMPT: &str = "prompt";
pub const KEY_HISTORY: &str = "history";

/// A project keeps this many prompts; older ones drop off.
pub const PROMPT_HISTORY_LIMIT: usize = 500;
/// A prompt longer than this (a large paste) is not kept across sessions.
pub const PROMPT_HISTORY_MAX_CHARS: usize = 10_000;

fn key(project_id: &str) -> SettingKey<'_> {
    SettingKey::project(project_id, NAMESPACE_PROMPT, KEY_HISTORY)
}

/// The stored list; a value that is not a list of strings is an error,
/// never silently empty (it would be overwritten on the next prompt).
fn read(conn: &rusqlite::Connection, project_id: &str) -> Result<Vec<String>, StoreError> {
    let key = key(project_id);
    match get(conn, &key)? {
        None => Ok(Vec::new()),
        Some(value) => serde_json::from_value(value)
            .map_err(|e| key.malformed(format!("not a list of prompts: {e}"))),
    }
}

impl Store {
    /// The project's prompt history, oldest first.
    pub fn prompt_history(&self, project_id: &str) -> Result<Vec<String>, StoreError> {
        self.read(|conn| read(conn, project_id))
    }

    /// Adds `prompt` to the project's history, unless it repeats the last
    /// entry, is blank or is longer than [`PROMPT_HISTORY_MAX_CHARS`]; the
    /// oldest entries go past [`PROMPT_HISTORY_LIMIT`]. Returns whether it
    /// was added.
    pub fn add_prompt_history(
        &mut self,
        project_id: &str,
        prompt: &str,
    ) -> Result<bool, StoreError> {
        if prompt.trim().is_empty() || prompt.chars().count() > PROMPT_HISTORY_MAX_CHARS {
            return Ok(false);
        }
        self.write(|tx, now| {
            let mut list = read(tx, project_id)?;
            if list.last().map(String::as_str) == Some(prompt) {
                return Ok(false);
            }
            list.push(prompt.to_string());
            let excess = list.len().saturating_sub(PROMPT_HISTORY_LIMIT);
            list.drain(..excess);
            let value = Value::from(list);
            set(tx, &key(project_id), &value, now)?;
            Ok(true)
        })
    }
}
