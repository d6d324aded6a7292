//! Which of a project's `.mcp.json` servers the user trusts, kept in the
//! store per project. Trust is given to one definition: when a pull
//! changes a trusted server's command, it is not started until trusted
//! again.

use super::config::ServerEntry;
use crate::store::{SettingKey, Store, StoreError};
use serde_json::{Value, json};

const NAMESPACE: &str = "mcp";

fn key_name(server: &str) -> String {
    format!("trust.{server}")
}

/// The names of `entries` whose current definition the user trusts.
pub fn trusted(
    store: &Store,
    project_id: &str,
    entries: &[ServerEntry],
) -> Result<Vec<String>, StoreError> {
    let mut names = Vec::new();
    for entry in entries {
        let key = key_name(&entry.name);
        let saved = store.get_setting(&SettingKey::project(project_id, NAMESPACE, &key))?;
        if saved
            .as_ref()
            .and_then(|v| v.get("digest"))
            .and_then(Value::as_str)
            == Some(entry.digest.as_str())
        {
            names.push(entry.name.clone());
        }
    }
    Ok(names)
}

/// Trusts the definition of `server` whose digest is `digest`.
pub fn trust(
    store: &mut Store,
    project_id: &str,
    server: &str,
    digest: &str,
) -> Result<(), StoreError> {
    let key = key_name(server);
    store.set_setting(
        &SettingKey::project(project_id, NAMESPACE, &key),
        &json!({"digest": digest}),
    )
}

/// Withdraws trust; `true` if there was any.
pub fn untrust(store: &mut Store, project_id: &str, server: &str) -> Result<bool, StoreError> {
    let key = key_name(server);
    store.delete_setting(&SettingKey::project(project_id, NAMESPACE, &key))
}
