//! Carrying earlier projects inside a repository over to its root (GRANT-3).
//!
//! A project is keyed by the root of the git work tree zcode starts in
//! (`config::project_root`). Before, every start directory was a project of
//! its own: a subdirectory of the repository may have saved rules, a last
//! mode and sessions under its own id. The first time the root's project
//! meets such a directory (the start directory or one of its parents below
//! the root, or a directory the sessions table shows under the root) its
//! settings are moved to the root's id (rule sets merged, other settings
//! kept where the root already has them) and its sessions re-keyed, once:
//! a record under the root's id says it was done.
//!
//! A directory of the sessions table is taken only when the caller confirms
//! that it still belongs to this root (a repository nested in this one is a
//! project of its own and is never merged into it).

use super::project_ids::move_settings;
use super::settings::SCOPE_PROJECT;
use super::{Store, StoreError};
use crate::config::project_id::project_id;
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::BTreeMap;
use std::path::Path;

/// The namespace of the records, under the root's project id; the key is
/// the id carried over.
const NAMESPACE_CARRIED: &str = "projectRootCarryOver";

/// One earlier project moved into its repository root's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CarriedProject {
    pub old_id: String,
    /// The directory that was the project.
    pub directory: String,
    /// Settings rows it had (rules, last mode, …).
    pub settings: usize,
    /// Its sessions, now listed with the root's.
    pub sessions: usize,
}

impl Store {
    /// Carries the earlier projects of directories inside the work tree at
    /// `root` (whose id is `root_id`) over to it, each once. `start` is the
    /// canonical start directory (its parents up to `root` are candidates);
    /// `belongs` says whether a directory of the sessions table still has
    /// `root` as its project root. Returns what was carried now.
    pub fn carry_over_into_root(
        &mut self,
        root: &Path,
        root_id: &str,
        start: &Path,
        belongs: impl Fn(&Path) -> bool,
    ) -> Result<Vec<CarriedProject>, StoreError> {
        let mut candidates: BTreeMap<String, String> = BTreeMap::new();
        if start.starts_with(root) {
            for dir in start.ancestors().take_while(|d| *d != root) {
                candidates.insert(project_id(dir), dir.to_string_lossy().into_owned());
            }
        }
        for (workspace, id) in self.read(|conn| sessions_below(conn, root, root_id))? {
            let dir = Path::new(&workspace);
            if !candidates.contains_key(&id) && dir != root && dir.starts_with(root) && belongs(dir)
            {
                candidates.insert(id, workspace);
            }
        }
        candidates.remove(root_id);
        if candidates.is_empty() {
            return Ok(Vec::new());
        }
        self.write(|tx, now| {
            let mut carried = Vec::new();
            for (old_id, directory) in &candidates {
                if let Some(done) = carry_one(tx, root_id, old_id, directory, now)? {
                    carried.push(done);
                }
            }
            Ok(carried)
        })
    }
}

/// The distinct `(workspace, project_id)` of sessions strictly below
/// `root` whose id is not the root's.
fn sessions_below(
    conn: &Connection,
    root: &Path,
    root_id: &str,
) -> Result<Vec<(String, String)>, StoreError> {
    let prefix = root.to_string_lossy();
    let prefix = prefix.trim_end_matches('/');
    // Every path below `root` sorts between "root/" and "root0" ('0'
    // follows '/'), so the workspace index answers it.
    let low = format!("{prefix}/");
    let high = format!("{prefix}0");
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT workspace, project_id FROM sessions
         WHERE workspace > ?1 AND workspace < ?2 AND project_id != ?3",
    )?;
    let rows = stmt
        .query_map(params![low, high, root_id], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Moves one earlier project into the root's, unless that was done before
/// or there is nothing to move.
fn carry_one(
    conn: &Connection,
    root_id: &str,
    old_id: &str,
    directory: &str,
    now: i64,
) -> Result<Option<CarriedProject>, StoreError> {
    let done = conn
        .prepare_cached(
            "SELECT 1 FROM local_setting
             WHERE scope = ?1 AND scope_id = ?2 AND namespace = ?3 AND key = ?4",
        )?
        .query_row(
            params![SCOPE_PROJECT, root_id, NAMESPACE_CARRIED, old_id],
            |_| Ok(()),
        )
        .optional()?
        .is_some();
    if done {
        return Ok(None);
    }
    let settings: i64 = conn.query_row(
        "SELECT count(*) FROM local_setting WHERE scope = ?1 AND scope_id = ?2",
        params![SCOPE_PROJECT, old_id],
        |row| row.get(0),
    )?;
    // Only its own directory's sessions: an id is the hash of one path.
    let sessions = conn.execute(
        "UPDATE sessions SET project_id = ?1 WHERE project_id = ?2 AND workspace = ?3",
        params![root_id, old_id, directory],
    )?;
    if settings == 0 && sessions == 0 {
        return Ok(None);
    }
    move_settings(conn, old_id, root_id)?;
    let record = serde_json::json!({
        "directory": directory,
        "settings": settings,
        "sessions": sessions,
    });
    conn.execute(
        "INSERT OR REPLACE INTO local_setting (scope, scope_id, namespace, key, value, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            SCOPE_PROJECT,
            root_id,
            NAMESPACE_CARRIED,
            old_id,
            record.to_string(),
            now
        ],
    )?;
    Ok(Some(CarriedProject {
        old_id: old_id.to_string(),
        directory: directory.to_string(),
        settings: usize::try_from(settings).unwrap_or(0),
        sessions,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::mode::{ExecutionState, Mode};
    use crate::permission::rules::{Rule, RuleKind};
    use crate::store::NewSession;

    fn session(store: &mut Store, id: &str, workspace: &str) {
        store
            .create_session(&NewSession {
                id: id.into(),
                workspace: workspace.into(),
                project_id: project_id(Path::new(workspace)),
                title: None,
                model: None,
                execution: ExecutionState::default(),
            })
            .unwrap();
    }

    fn allow(store: &mut Store, dir: &str, content: &str) {
        store
            .add_project_rules(
                &project_id(Path::new(dir)),
                RuleKind::Allow,
                &[Rule::with_content("Bash", content)],
            )
            .unwrap();
    }

    fn allowed(store: &Store, id: &str) -> Vec<Rule> {
        store.project_rules(id).unwrap().allow
    }

    #[test]
    fn project_rules_of_a_subdirectory_are_carried_to_the_root_once() {
        let mut store = Store::open_in_memory().unwrap();
        let root_id = project_id(Path::new("/r/proj"));
        allow(&mut store, "/r/proj", "make:*");
        allow(&mut store, "/r/proj/sub", "cargo test:*");
        store
            .set_project_last_mode(
                &project_id(Path::new("/r/proj/sub")),
                ExecutionState::new(Mode::Edit, false),
            )
            .unwrap();
        session(&mut store, "s_sub", "/r/proj/sub");
        session(&mut store, "s_other", "/r/proj/other");
        session(&mut store, "s_nested", "/r/proj/vendor/inner");
        session(&mut store, "s_sibling", "/r/proj-2");
        let belongs = |d: &Path| !d.starts_with("/r/proj/vendor/inner");
        let start = Path::new("/r/proj/sub/deep");
        let carried = store
            .carry_over_into_root(Path::new("/r/proj"), &root_id, start, belongs)
            .unwrap();
        let dirs: Vec<&str> = carried.iter().map(|c| c.directory.as_str()).collect();
        assert_eq!(dirs.len(), 2, "{carried:?}");
        assert!(dirs.contains(&"/r/proj/sub") && dirs.contains(&"/r/proj/other"));
        assert_eq!(
            allowed(&store, &root_id),
            vec![
                Rule::with_content("Bash", "make:*"),
                Rule::with_content("Bash", "cargo test:*")
            ]
        );
        assert_eq!(
            store.project_last_mode(&root_id).unwrap(),
            Some(ExecutionState::new(Mode::Edit, false))
        );
        let id_of = |store: &Store, s: &str| store.get_session(s).unwrap().unwrap().project_id;
        assert_eq!(id_of(&store, "s_sub"), root_id);
        assert_eq!(id_of(&store, "s_other"), root_id);
        // A repository nested inside, and a sibling that only shares a
        // prefix, stay projects of their own.
        assert_ne!(id_of(&store, "s_nested"), root_id);
        assert_ne!(id_of(&store, "s_sibling"), root_id);
        // Once: rules the subdirectory gets later (its .git gone and back)
        // are not merged again.
        allow(&mut store, "/r/proj/sub", "rm:*");
        let again = store
            .carry_over_into_root(Path::new("/r/proj"), &root_id, start, belongs)
            .unwrap();
        assert!(again.is_empty(), "{again:?}");
        assert_eq!(allowed(&store, &root_id).len(), 2);
    }

    #[test]
    fn project_root_carry_over_keeps_the_roots_own_mode() {
        let mut store = Store::open_in_memory().unwrap();
        let root_id = project_id(Path::new("/p"));
        let sub_id = project_id(Path::new("/p/a"));
        store
            .set_project_last_mode(&root_id, ExecutionState::new(Mode::Yolo, false))
            .unwrap();
        store
            .set_project_last_mode(&sub_id, ExecutionState::new(Mode::Edit, false))
            .unwrap();
        let carried = store
            .carry_over_into_root(Path::new("/p"), &root_id, Path::new("/p/a"), |_| true)
            .unwrap();
        assert_eq!(carried.len(), 1);
        assert_eq!(
            store.project_last_mode(&root_id).unwrap(),
            Some(ExecutionState::new(Mode::Yolo, false))
        );
    }

    #[test]
    fn project_root_carry_over_of_nothing_records_nothing() {
        let mut store = Store::open_in_memory().unwrap();
        let root_id = project_id(Path::new("/p"));
        let carried = store
            .carry_over_into_root(Path::new("/p"), &root_id, Path::new("/p/a/b"), |_| true)
            .unwrap();
        assert!(carried.is_empty());
        // Rules saved there later still come over the next time.
        allow(&mut store, "/p/a", "ls:*");
        let carried = store
            .carry_over_into_root(Path::new("/p"), &root_id, Path::new("/p/a/b"), |_| true)
            .unwrap();
        assert_eq!(carried.len(), 1);
        assert_eq!(allowed(&store, &root_id).len(), 1);
    }
}
