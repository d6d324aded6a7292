//! The `local_setting` table and what is built on it: project permission
//! rules (GRANT-1) and the project's last selected mode (EXEC-4).

use super::{Store, StoreError};
use crate::permission::mode::{ExecutionState, Mode, parse_stored_mode};
use crate::permission::rules::{Rule, RuleKind, RuleSet};
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

/// Scope of settings that belong to a project.
pub const SCOPE_PROJECT: &str = "project";
/// Namespace and key of a project's permission rules (GRANT-1).
pub const NAMESPACE_PERMISSION: &str = "permission";
pub const KEY_RULESET: &str = "ruleset";
/// Namespace and key of a project's last selected mode (EXEC-4).
pub const NAMESPACE_EXECUTION: &str = "execution";
pub const KEY_LAST_SELECTED_MODE: &str = "lastSelectedMode";

/// Addresses one setting: `(scope, scope_id, namespace, key)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SettingKey<'a> {
    pub scope: &'a str,
    pub scope_id: &'a str,
    pub namespace: &'a str,
    pub key: &'a str,
}

impl<'a> SettingKey<'a> {
    pub const fn new(scope: &'a str, scope_id: &'a str, namespace: &'a str, key: &'a str) -> Self {
        Self {
            scope,
            scope_id,
            namespace,
            key,
        }
    }

    /// A setting of a project.
    pub const fn project(project_id: &'a str, namespace: &'a str, key: &'a str) -> Self {
        Self::new(SCOPE_PROJECT, project_id, namespace, key)
    }

    /// Where a project's permission rules are stored (GRANT-1).
    pub const fn project_rules(project_id: &'a str) -> Self {
        Self::project(project_id, NAMESPACE_PERMISSION, KEY_RULESET)
    }

    /// Where a project's last selected mode is stored (EXEC-4).
    pub const fn project_last_mode(project_id: &'a str) -> Self {
        Self::project(project_id, NAMESPACE_EXECUTION, KEY_LAST_SELECTED_MODE)
    }

    pub(crate) fn malformed(&self, message: impl Into<String>) -> StoreError {
        StoreError::MalformedSetting {
            scope: self.scope.to_string(),
            scope_id: self.scope_id.to_string(),
            namespace: self.namespace.to_string(),
            key: self.key.to_string(),
            message: message.into(),
        }
    }
}

pub(crate) fn get(conn: &Connection, key: &SettingKey<'_>) -> Result<Option<Value>, StoreError> {
    let text: Option<String> = conn
        .prepare_cached(
            "SELECT value FROM local_setting
             WHERE scope = ?1 AND scope_id = ?2 AND namespace = ?3 AND key = ?4",
        )?
        .query_row(
            params![key.scope, key.scope_id, key.namespace, key.key],
            |row| row.get(0),
        )
        .optional()?;
    text.map(|t| {
        serde_json::from_str(&t).map_err(|e| key.malformed(format!("value is not JSON: {e}")))
    })
    .transpose()
}

pub(crate) fn set(
    conn: &Connection,
    key: &SettingKey<'_>,
    value: &Value,
    now: i64,
) -> Result<(), StoreError> {
    let text = serde_json::to_string(value).map_err(StoreError::Encode)?;
    conn.prepare_cached(
        "INSERT INTO local_setting (scope, scope_id, namespace, key, value, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (scope, scope_id, namespace, key)
         DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    )?
    .execute(params![
        key.scope,
        key.scope_id,
        key.namespace,
        key.key,
        text,
        now
    ])?;
    Ok(())
}

fn read_rules(conn: &Connection, project_id: &str) -> Result<RuleSet, StoreError> {
    let key = SettingKey::project_rules(project_id);
    match get(conn, &key)? {
        None => Ok(RuleSet::default()),
        Some(value) => {
            serde_json::from_value(value).map_err(|e| key.malformed(format!("not a rule set: {e}")))
        }
    }
}

fn write_rules(
    conn: &Connection,
    project_id: &str,
    rules: &RuleSet,
    now: i64,
) -> Result<(), StoreError> {
    let value = serde_json::to_value(rules).map_err(StoreError::Encode)?;
    set(conn, &SettingKey::project_rules(project_id), &value, now)
}

pub(crate) fn write_last_mode(
    conn: &Connection,
    project_id: &str,
    state: ExecutionState,
    now: i64,
) -> Result<(), StoreError> {
    let value = serde_json::to_value(state).map_err(StoreError::Encode)?;
    set(
        conn,
        &SettingKey::project_last_mode(project_id),
        &value,
        now,
    )
}

impl Store {
    /// A setting's JSON value, if set.
    pub fn get_setting(&self, key: &SettingKey<'_>) -> Result<Option<Value>, StoreError> {
        self.read(|conn| get(conn, key))
    }

    /// Sets (inserts or replaces) a setting.
    pub fn set_setting(&mut self, key: &SettingKey<'_>, value: &Value) -> Result<(), StoreError> {
        self.write(|tx, now| set(tx, key, value, now))
    }

    /// Deletes a setting; returns whether it existed.
    pub fn delete_setting(&mut self, key: &SettingKey<'_>) -> Result<bool, StoreError> {
        self.write(|tx, _now| {
            let n = tx
                .prepare_cached(
                    "DELETE FROM local_setting
                     WHERE scope = ?1 AND scope_id = ?2 AND namespace = ?3 AND key = ?4",
                )?
                .execute(params![key.scope, key.scope_id, key.namespace, key.key])?;
            Ok(n > 0)
        })
    }

    /// GRANT-1: a project's stored permission rules (empty if none). A stored
    /// value that is not a rule set is an error, never silently empty.
    pub fn project_rules(&self, project_id: &str) -> Result<RuleSet, StoreError> {
        self.read(|conn| read_rules(conn, project_id))
    }

    /// GRANT-1: adds rules of one kind to a project, skipping ones already
    /// present by (toolName, ruleContent). Read-merge-write in one
    /// transaction, so concurrent processes lose nothing. Returns how many
    /// were new.
    pub fn add_project_rules(
        &mut self,
        project_id: &str,
        kind: RuleKind,
        rules: &[Rule],
    ) -> Result<usize, StoreError> {
        self.write(|tx, now| {
            let mut set = read_rules(tx, project_id)?;
            let added = set.merge(kind, rules.iter().cloned());
            if added > 0 {
                write_rules(tx, project_id, &set, now)?;
            }
            Ok(added)
        })
    }

    /// GRANT-1: removes one rule from a project; returns whether it was there.
    pub fn remove_project_rule(
        &mut self,
        project_id: &str,
        kind: RuleKind,
        rule: &Rule,
    ) -> Result<bool, StoreError> {
        self.write(|tx, now| {
            let mut set = read_rules(tx, project_id)?;
            let removed = set.remove(kind, rule);
            if removed {
                write_rules(tx, project_id, &set, now)?;
            }
            Ok(removed)
        })
    }

    /// EXEC-4: remembers the mode last selected in a project.
    pub fn set_project_last_mode(
        &mut self,
        project_id: &str,
        state: ExecutionState,
    ) -> Result<(), StoreError> {
        self.write(|tx, now| write_last_mode(tx, project_id, state, now))
    }

    /// EXEC-4: the mode last selected in a project, if any. Stored as
    /// `{"mode": …, "planEnabled": …}`; a bare mode string (`"edit"`, legacy
    /// `"plan"`) is accepted too.
    pub fn project_last_mode(
        &self,
        project_id: &str,
    ) -> Result<Option<ExecutionState>, StoreError> {
        let key = SettingKey::project_last_mode(project_id);
        let Some(value) = self.get_setting(&key)? else {
            return Ok(None);
        };
        if let Value::String(s) = &value {
            return parse_stored_mode(s, Mode::Build)
                .map(Some)
                .ok_or_else(|| key.malformed(format!("unknown mode '{s}'")));
        }
        serde_json::from_value(value)
            .map(Some)
            .map_err(|e| key.malformed(format!("not an execution state: {e}")))
    }
}
