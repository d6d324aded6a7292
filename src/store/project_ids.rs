//! Carrying saved project settings over to the hashed project ids (GRANT-3).
//!
//! Earlier versions keyed projects by the folded path alone, so `/a/ws`,
//! `/a-ws` and `/a/WS` shared one id and one set of saved rules. The schema
//! step that introduces the hashed ids moves an old id's `local_setting`
//! rows (rules, last mode) to the new id only when the sessions table shows
//! exactly one directory under that old id; when several directories used
//! it, nobody can tell whose rules they were, so they stay under the old id,
//! where no directory reads them any more, and the user is told once. Each
//! session's `project_id` becomes the new id of its own workspace.
//!
//! The step runs inside the migration's `BEGIN IMMEDIATE` transaction with
//! the schema version bump (open.rs), so it runs once even with several
//! processes opening the database at the same moment.

use super::settings::{KEY_RULESET, NAMESPACE_PERMISSION, SCOPE_PROJECT};
use super::{Store, StoreError};
use crate::config::project_id::{legacy_project_id, project_id};
use crate::permission::rules::{RuleKind, RuleSet};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What the carry-over did with one old id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectIdCarryOver {
    pub old_id: String,
    /// The new id, when the old one was carried over.
    pub new_id: Option<String>,
    /// The distinct workspaces the sessions table showed under the old id.
    pub workspaces: Vec<String>,
    /// How many `local_setting` rows it concerned.
    pub settings: usize,
}

impl ProjectIdCarryOver {
    #[cfg(test)]
    pub(crate) fn is_ambiguous(&self) -> bool {
        self.new_id.is_none()
    }
}

const CREATE_TABLE: &str = r#"
CREATE TABLE project_id_carry_over (
    old_id     TEXT PRIMARY KEY NOT NULL,
    new_id     TEXT,
    workspaces TEXT NOT NULL CHECK (json_valid(workspaces)),
    settings   INTEGER NOT NULL,
    noticed    INTEGER NOT NULL DEFAULT 0 CHECK (noticed IN (0, 1))
) STRICT;
"#;

/// The schema step (version 2): creates the record table and carries the
/// settings over. Idempotent on its own too: a session whose id is already
/// the new one is left alone.
pub(super) fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(CREATE_TABLE)?;
    let mut by_old: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    {
        let mut stmt = conn.prepare("SELECT DISTINCT project_id, workspace FROM sessions")?;
        let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
        for row in rows {
            let (old, workspace): (String, String) = row?;
            by_old.entry(old).or_default().insert(workspace);
        }
    }
    for (old_id, workspaces) in &by_old {
        // Sessions belong to their own workspace whatever happens to the
        // settings.
        for workspace in workspaces {
            conn.execute(
                "UPDATE sessions SET project_id = ?1 WHERE project_id = ?2 AND workspace = ?3",
                params![project_id(Path::new(workspace)), old_id, workspace],
            )?;
        }
        let settings: i64 = conn.query_row(
            "SELECT count(*) FROM local_setting WHERE scope = ?1 AND scope_id = ?2",
            params![SCOPE_PROJECT, old_id],
            |row| row.get(0),
        )?;
        let new_id = match workspaces.iter().next() {
            Some(only) if workspaces.len() == 1 => {
                let new_id = project_id(Path::new(only));
                if &new_id == old_id {
                    continue;
                }
                move_settings(conn, old_id, &new_id)?;
                Some(new_id)
            }
            // Nothing lost: nothing to tell.
            _ if settings == 0 => continue,
            _ => None,
        };
        let list = serde_json::to_string(&workspaces.iter().collect::<Vec<_>>())
            .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
        conn.execute(
            "INSERT OR REPLACE INTO project_id_carry_over (old_id, new_id, workspaces, settings)
             VALUES (?1, ?2, ?3, ?4)",
            params![old_id, new_id, list, settings],
        )?;
    }
    Ok(())
}

/// Moves every project setting of `old_id` to `new_id`. A setting the new
/// id already has wins, except the rule sets, which are merged.
pub(super) fn move_settings(conn: &Connection, old_id: &str, new_id: &str) -> rusqlite::Result<()> {
    let old_rules = ruleset(conn, old_id)?;
    let new_rules = ruleset(conn, new_id)?;
    if let (Some(old), Some(mut merged)) = (old_rules, new_rules) {
        for kind in RuleKind::ALL {
            merged.merge(kind, old.rules(kind).iter().cloned());
        }
        if let Ok(text) = serde_json::to_string(&merged) {
            conn.execute(
                "UPDATE local_setting SET value = ?1
                 WHERE scope = ?2 AND scope_id = ?3 AND namespace = ?4 AND key = ?5",
                params![
                    text,
                    SCOPE_PROJECT,
                    new_id,
                    NAMESPACE_PERMISSION,
                    KEY_RULESET
                ],
            )?;
            conn.execute(
                "DELETE FROM local_setting
                 WHERE scope = ?1 AND scope_id = ?2 AND namespace = ?3 AND key = ?4",
                params![SCOPE_PROJECT, old_id, NAMESPACE_PERMISSION, KEY_RULESET],
            )?;
        }
    }
    // Rows the new id does not have yet; the rest stay under the old id.
    conn.execute(
        "UPDATE OR IGNORE local_setting SET scope_id = ?1 WHERE scope = ?2 AND scope_id = ?3",
        params![new_id, SCOPE_PROJECT, old_id],
    )?;
    Ok(())
}

/// The rule set stored for `id`: `None` when absent or unreadable (an
/// unreadable one is then not merged but moved or left as it is).
fn ruleset(conn: &Connection, id: &str) -> rusqlite::Result<Option<RuleSet>> {
    let text: Option<String> = conn
        .query_row(
            "SELECT value FROM local_setting
             WHERE scope = ?1 AND scope_id = ?2 AND namespace = ?3 AND key = ?4",
            params![SCOPE_PROJECT, id, NAMESPACE_PERMISSION, KEY_RULESET],
            |row| row.get(0),
        )
        .optional()?;
    Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
}

fn record_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ProjectIdCarryOver> {
    let workspaces: String = row.get(2)?;
    let settings: i64 = row.get(3)?;
    Ok(ProjectIdCarryOver {
        old_id: row.get(0)?,
        new_id: row.get(1)?,
        workspaces: serde_json::from_str(&workspaces).unwrap_or_default(),
        settings: usize::try_from(settings).unwrap_or(0),
    })
}

const SELECT: &str = "SELECT old_id, new_id, workspaces, settings FROM project_id_carry_over";

impl Store {
    /// The carry-over record of the old id `workspace` used to have, if
    /// that id had settings (GRANT-3).
    pub fn project_id_carry_over(
        &self,
        workspace: &Path,
    ) -> Result<Option<ProjectIdCarryOver>, StoreError> {
        let old_id = legacy_project_id(workspace);
        self.read(|conn| {
            Ok(conn
                .prepare_cached(&format!("{SELECT} WHERE old_id = ?1"))?
                .query_row([old_id], record_from_row)
                .optional()?)
        })
    }

    /// The settings still stored under `workspace`'s old id (GRANT-3):
    /// what was not carried over because several directories shared it.
    pub(crate) fn legacy_project_rules(&self, workspace: &Path) -> Result<RuleSet, StoreError> {
        self.project_rules(&legacy_project_id(workspace))
    }

    /// The ambiguous carry-overs not yet reported, marked as reported: the
    /// caller tells the user once.
    pub(crate) fn take_unnoticed_ambiguous_carry_overs(
        &mut self,
    ) -> Result<Vec<ProjectIdCarryOver>, StoreError> {
        self.write(|tx, _now| {
            let found = tx
                .prepare(&format!(
                    "{SELECT} WHERE new_id IS NULL AND noticed = 0 ORDER BY old_id"
                ))?
                .query_map([], record_from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            tx.execute(
                "UPDATE project_id_carry_over SET noticed = 1 WHERE new_id IS NULL",
                [],
            )?;
            Ok(found)
        })
    }

    /// Old ids carried over to a new one, for moving what lives outside
    /// the database (the memory directory), marked as done.
    pub(crate) fn take_unnoticed_carried_ids(
        &mut self,
    ) -> Result<Vec<(String, String)>, StoreError> {
        self.write(|tx, _now| {
            let found = tx
                .prepare(
                    "SELECT old_id, new_id FROM project_id_carry_over
                     WHERE new_id IS NOT NULL AND noticed = 0 ORDER BY old_id",
                )?
                .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            tx.execute(
                "UPDATE project_id_carry_over SET noticed = 1 WHERE new_id IS NOT NULL",
                [],
            )?;
            Ok(found)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::mode::{ExecutionState, Mode};
    use crate::permission::rules::Rule;
    use crate::store::SCHEMA_VERSION;
    use crate::store::open::{MIGRATIONS, Step};
    use std::path::PathBuf;
    use std::sync::{Arc, Barrier};

    /// A database file at schema 1, as the previous release left it.
    fn v1_database(dir: &tempfile::TempDir) -> PathBuf {
        let path = dir.path().join("db.sqlite");
        let conn = Connection::open(&path).unwrap();
        let Step::Sql(v1) = MIGRATIONS[0] else {
            panic!("step 1 is SQL");
        };
        conn.execute_batch(v1).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        path
    }

    fn add_session(path: &Path, id: &str, workspace: &str) {
        let conn = Connection::open(path).unwrap();
        conn.execute(
            "INSERT INTO sessions (id, workspace, project_id, mode, created_at, updated_at)
             VALUES (?1, ?2, ?3, 'build', 1, 1)",
            params![id, workspace, legacy_project_id(Path::new(workspace))],
        )
        .unwrap();
    }

    fn add_setting(path: &Path, scope_id: &str, namespace: &str, key: &str, value: &str) {
        let conn = Connection::open(path).unwrap();
        conn.execute(
            "INSERT INTO local_setting (scope, scope_id, namespace, key, value, updated_at)
             VALUES ('project', ?1, ?2, ?3, ?4, 1)",
            params![scope_id, namespace, key, value],
        )
        .unwrap();
    }

    fn add_old_rules(path: &Path, workspace: &str) {
        add_setting(
            path,
            &legacy_project_id(Path::new(workspace)),
            NAMESPACE_PERMISSION,
            KEY_RULESET,
            r#"{"allow":[{"toolName":"Bash","ruleContent":"make:*"}]}"#,
        );
        add_setting(
            path,
            &legacy_project_id(Path::new(workspace)),
            "execution",
            "lastSelectedMode",
            r#"{"mode":"edit","planEnabled":false}"#,
        );
    }

    fn new_id(workspace: &str) -> String {
        project_id(Path::new(workspace))
    }

    #[test]
    fn grant3_migration_one_to_one_carries_rules_mode_and_sessions() {
        let dir = tempfile::tempdir().unwrap();
        let path = v1_database(&dir);
        add_session(&path, "s1", "/a/ws");
        add_session(&path, "s2", "/a/ws");
        add_old_rules(&path, "/a/ws");
        let mut store = Store::open(&path).unwrap();
        assert_eq!(store.migrations_applied(), SCHEMA_VERSION - 1);
        let id = new_id("/a/ws");
        assert_eq!(
            store.project_rules(&id).unwrap().allow,
            vec![Rule::with_content("Bash", "make:*")]
        );
        assert_eq!(
            store.project_last_mode(&id).unwrap(),
            Some(ExecutionState::new(Mode::Edit, false))
        );
        assert!(
            store
                .legacy_project_rules(Path::new("/a/ws"))
                .unwrap()
                .is_empty()
        );
        for s in ["s1", "s2"] {
            assert_eq!(store.get_session(s).unwrap().unwrap().project_id, id);
        }
        let record = store
            .project_id_carry_over(Path::new("/a/ws"))
            .unwrap()
            .unwrap();
        assert_eq!(record.new_id.as_deref(), Some(id.as_str()));
        assert_eq!(record.settings, 2);
        assert!(
            store
                .take_unnoticed_ambiguous_carry_overs()
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            store.take_unnoticed_carried_ids().unwrap(),
            vec![(legacy_project_id(Path::new("/a/ws")), id)]
        );
        assert!(store.take_unnoticed_carried_ids().unwrap().is_empty());
    }

    #[test]
    fn grant3_migration_ambiguous_leaves_rules_and_tells_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = v1_database(&dir);
        add_session(&path, "s1", "/a/ws");
        add_session(&path, "s2", "/a-ws");
        add_session(&path, "s3", "/a/WS");
        add_old_rules(&path, "/a/ws");
        let mut store = Store::open(&path).unwrap();
        for ws in ["/a/ws", "/a-ws", "/a/WS"] {
            let id = new_id(ws);
            assert!(store.project_rules(&id).unwrap().is_empty(), "{ws}");
            assert_eq!(store.project_last_mode(&id).unwrap(), None, "{ws}");
            // Still visible under the old id, for `zcode permission list`.
            assert_eq!(
                store
                    .legacy_project_rules(Path::new(ws))
                    .unwrap()
                    .allow
                    .len(),
                1
            );
        }
        // Every session now carries its own workspace's id.
        for (s, ws) in [("s1", "/a/ws"), ("s2", "/a-ws"), ("s3", "/a/WS")] {
            assert_eq!(
                store.get_session(s).unwrap().unwrap().project_id,
                new_id(ws)
            );
        }
        let told = store.take_unnoticed_ambiguous_carry_overs().unwrap();
        assert_eq!(told.len(), 1);
        assert!(told[0].is_ambiguous());
        assert_eq!(told[0].workspaces, vec!["/a-ws", "/a/WS", "/a/ws"]);
        assert!(
            store
                .take_unnoticed_ambiguous_carry_overs()
                .unwrap()
                .is_empty()
        );
        let record = store
            .project_id_carry_over(Path::new("/a-ws"))
            .unwrap()
            .unwrap();
        assert!(record.is_ambiguous());
    }

    #[test]
    fn grant3_migration_merges_into_existing_rules_and_keeps_the_new_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = v1_database(&dir);
        add_session(&path, "s1", "/p");
        add_old_rules(&path, "/p");
        let id = new_id("/p");
        add_setting(
            &path,
            &id,
            NAMESPACE_PERMISSION,
            KEY_RULESET,
            r#"{"allow":[{"toolName":"Read"}],"deny":[{"toolName":"Bash","ruleContent":"rm:*"}]}"#,
        );
        add_setting(
            &path,
            &id,
            "execution",
            "lastSelectedMode",
            r#"{"mode":"build","planEnabled":true}"#,
        );
        let store = Store::open(&path).unwrap();
        let rules = store.project_rules(&id).unwrap();
        assert_eq!(
            rules.allow,
            vec![Rule::tool("Read"), Rule::with_content("Bash", "make:*")]
        );
        assert_eq!(rules.deny.len(), 1);
        assert_eq!(
            store.project_last_mode(&id).unwrap(),
            Some(ExecutionState::new(Mode::Build, true))
        );
    }

    #[test]
    fn grant3_migration_is_idempotent_and_safe_with_concurrent_opens() {
        let dir = tempfile::tempdir().unwrap();
        let path = v1_database(&dir);
        add_session(&path, "s1", "/a/ws");
        add_session(&path, "s2", "/b");
        add_session(&path, "s3", "/b/");
        add_old_rules(&path, "/a/ws");
        add_old_rules(&path, "/b");
        let barrier = Arc::new(Barrier::new(6));
        let handles: Vec<_> = (0..6)
            .map(|_| {
                let path = path.clone();
                let barrier = barrier.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    Store::open(&path).unwrap().migrations_applied()
                })
            })
            .collect();
        let applied: u32 = handles.into_iter().map(|h| h.join().unwrap()).sum();
        assert_eq!(applied, SCHEMA_VERSION - 1);
        // Running the step again changes nothing.
        let before = dump(&path);
        let conn = Connection::open(&path).unwrap();
        conn.execute("DROP TABLE project_id_carry_over", [])
            .unwrap();
        migrate(&conn).unwrap();
        assert_eq!(dump(&path), before);
        let store = Store::open(&path).unwrap();
        assert_eq!(store.migrations_applied(), 0);
        assert_eq!(
            store.project_rules(&new_id("/a/ws")).unwrap().allow.len(),
            1
        );
        // `/b` and `/b/` are two spellings in the sessions table: treated as
        // two directories, so not carried over.
        assert!(store.project_rules(&new_id("/b")).unwrap().is_empty());
    }

    /// Sessions' ids and all settings, in a stable order.
    fn dump(path: &Path) -> Vec<(String, String)> {
        let conn = Connection::open(path).unwrap();
        let rows = |sql: &str| -> Vec<(String, String)> {
            let mut stmt = conn.prepare(sql).unwrap();
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        let mut all = rows("SELECT id, project_id FROM sessions ORDER BY id");
        all.extend(rows(
            "SELECT scope_id, namespace || '/' || key || '=' || value FROM local_setting
             ORDER BY scope_id, namespace, key",
        ));
        all
    }
}
