//! The user's trust in a project settings file, kept in the store per
//! project as the hash of the file's bytes (as `.mcp.json` servers are
//! trusted): a changed file, by a pull or by an edit, needs trust again.

use super::file::SettingsFile;
use crate::store::{SettingKey, Store, StoreError};
use serde_json::{Value, json};

const NAMESPACE: &str = "permission";

fn key_name(file: SettingsFile) -> String {
    format!("trust.{}", file.relative_path())
}

/// The hash of `file`'s content the user trusts in this project, if any.
pub fn trusted_digest(
    store: &Store,
    project_id: &str,
    file: SettingsFile,
) -> Result<Option<String>, StoreError> {
    let key = key_name(file);
    let saved = store.get_setting(&SettingKey::project(project_id, NAMESPACE, &key))?;
    Ok(saved
        .as_ref()
        .and_then(|v| v.get("digest"))
        .and_then(Value::as_str)
        .map(str::to_string))
}

/// Trusts the content of `file` whose hash is `digest`.
pub fn trust(
    store: &mut Store,
    project_id: &str,
    file: SettingsFile,
    digest: &str,
) -> Result<(), StoreError> {
    let key = key_name(file);
    store.set_setting(
        &SettingKey::project(project_id, NAMESPACE, &key),
        &json!({"digest": digest}),
    )
}

/// Withdraws trust; `true` if there was any.
pub fn untrust(
    store: &mut Store,
    project_id: &str,
    file: SettingsFile,
) -> Result<bool, StoreError> {
    let key = key_name(file);
    store.delete_setting(&SettingKey::project(project_id, NAMESPACE, &key))
}
