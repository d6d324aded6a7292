//! Integration tests of the SQLite store (STORE-1, STORE-2, TODO-4, GRANT-1,
//! EXEC-4, RUN-3).

mod support;

use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use zcode::permission::mode::{ExecutionState, Mode};
use zcode::permission::rules::{Rule, RuleKind, RuleSet};
use zcode::store::{
    EntryRecord, InputStatus, ManualClock, NewEntry, NewSession, SCHEMA_VERSION, SessionFilter,
    SettingKey, Store, StoreError, TodoItem, TodoPriority, TodoStatus, default_db_path, entry_kind,
};

fn db_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("db.sqlite")
}

fn clocked(path: &Path, start: i64) -> (Store, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(start));
    let store = Store::open_with_clock(path, clock.clone()).unwrap();
    (store, clock)
}

fn memory(start: i64) -> (Store, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(start));
    let store = Store::open_in_memory_with_clock(clock.clone()).unwrap();
    (store, clock)
}

fn new_session(id: &str, workspace: &str, project: &str) -> NewSession {
    NewSession {
        id: id.to_string(),
        workspace: workspace.to_string(),
        project_id: project.to_string(),
        title: None,
        model: Some("model-a".to_string()),
        execution: ExecutionState::default(),
    }
}

fn entry(id: &str, text: &str) -> NewEntry {
    NewEntry::new(id, entry_kind::USER_MESSAGE, json!({ "text": text }))
}

// ---------------------------------------------------------------- STORE-1

#[test]
fn store1_default_db_path_is_under_cli_db() {
    assert_eq!(
        default_db_path(Path::new("/home/u/.zcode")),
        PathBuf::from("/home/u/.zcode/cli/db/db.sqlite")
    );
}

#[test]
fn store1_fresh_db_creates_parents_migrates_and_sets_pragmas() {
    let dir = tempfile::tempdir().unwrap();
    let path = default_db_path(&dir.path().join("home"));
    let store = Store::open(&path).unwrap();
    assert!(path.is_file());
    assert_eq!(store.path(), path);
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(store.migrations_applied(), SCHEMA_VERSION);
    let pragmas = store.pragmas().unwrap();
    assert_eq!(pragmas.journal_mode, "wal");
    assert!(pragmas.foreign_keys);
    assert_eq!(pragmas.synchronous, 1, "synchronous = NORMAL");
    assert_eq!(pragmas.busy_timeout_ms, 5000);

    // WAL is a property of the file: another connection sees it too.
    drop(store);
    let raw = rusqlite::Connection::open(&path).unwrap();
    let mode: String = raw
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let version: u32 = raw
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
}

#[test]
fn store1_reopening_up_to_date_db_does_no_migration_and_no_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    {
        let mut store = Store::open(&path).unwrap();
        store
            .create_session(&new_session("sess_a", "/w", "p"))
            .unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let store = Store::open(&path).unwrap();
    assert_eq!(store.migrations_applied(), 0);
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert!(store.get_session("sess_a").unwrap().is_some());
    drop(store);
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn store1_failed_migration_is_rolled_back_and_reported() {
    // Some other program's database at version 0 with a clashing table.
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    {
        let raw = rusqlite::Connection::open(&path).unwrap();
        raw.execute_batch("CREATE TABLE sessions (x INTEGER);")
            .unwrap();
    }
    let err = Store::open(&path).unwrap_err();
    assert!(
        matches!(err, StoreError::Migration { version: 1, .. }),
        "{err:?}"
    );
    assert!(err.to_string().starts_with(&format!(
        "migrating database {} to schema 1 failed",
        path.display()
    )));
    let raw = rusqlite::Connection::open(&path).unwrap();
    let version: u32 = raw
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, 0);
    let tables: i64 = raw
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name != 'sessions'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 0, "no half-applied migration");
}

#[test]
fn store1_in_memory_store_works() {
    let store = Store::open_in_memory().unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert!(store.pragmas().unwrap().foreign_keys);
}

// ---------------------------------------------------------------- STORE-2

#[test]
fn store2_store_can_move_to_another_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<Store>();
    assert_send::<StoreError>();
}

#[test]
fn store2_newer_schema_is_refused_and_file_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    drop(Store::open(&path).unwrap());
    let newer = SCHEMA_VERSION + 7;
    {
        let raw = rusqlite::Connection::open(&path).unwrap();
        raw.pragma_update(None, "user_version", newer).unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::NewerSchema { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "database {} was written by a newer zcode (schema {newer}, this build knows {SCHEMA_VERSION}); upgrade zcode",
            path.display()
        )
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn store2_newer_schema_in_rollback_journal_mode_is_not_switched_to_wal() {
    // A newer build might use another journal mode; refusing must not
    // rewrite the header to switch it.
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    {
        let raw = rusqlite::Connection::open(&path).unwrap();
        raw.execute_batch("CREATE TABLE future (x); PRAGMA user_version = 99;")
            .unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(err.to_string().contains("(schema 99, this build knows"));
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn store2_garbage_file_is_refused_with_its_path_and_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        (
            "big.sqlite",
            (0..8192u32).map(|i| (i * 7 % 251) as u8).collect(),
        ),
        ("small.sqlite", b"hello, not a database\n".to_vec()),
        (
            "text.sqlite",
            b"SQLite format 2\0 but not really".repeat(40),
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let err = Store::open(&path).unwrap_err();
        assert!(
            matches!(err, StoreError::NotADatabase { .. }),
            "{name}: {err:?}"
        );
        let msg = err.to_string();
        assert!(msg.contains(&path.display().to_string()), "{msg}");
        assert!(msg.contains("not an SQLite database"), "{msg}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name} was modified");
    }
}

#[test]
fn store2_concurrent_first_open_migrates_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    let barrier = Arc::new(std::sync::Barrier::new(8));
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let path = path.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                let store = Store::open(&path).unwrap();
                store.migrations_applied()
            })
        })
        .collect();
    let applied: u32 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(applied, SCHEMA_VERSION);
    assert_eq!(
        Store::open(&path).unwrap().schema_version().unwrap(),
        SCHEMA_VERSION
    );
}

#[test]
fn store2_two_connections_appending_concurrently_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    {
        let mut store = Store::open(&path).unwrap();
        store
            .create_session(&new_session("sess_shared", "/w", "p"))
            .unwrap();
        store
            .create_session(&new_session("sess_other", "/w", "p"))
            .unwrap();
    }
    const PER_THREAD: usize = 100;
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                // Each thread is a separate "process": its own connection.
                let mut store = Store::open(&path).unwrap();
                for i in 0..PER_THREAD {
                    let session = if i % 3 == 0 {
                        "sess_other"
                    } else {
                        "sess_shared"
                    };
                    store
                        .append_entry(session, &entry(&format!("e_{t}_{i}"), "x"))
                        .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let store = Store::open(&path).unwrap();
    let mut total = 0;
    for session in ["sess_shared", "sess_other"] {
        let entries = store.entries(session).unwrap();
        let seqs: Vec<i64> = entries.iter().map(|e| e.seq).collect();
        let expected: Vec<i64> = (1..=entries.len() as i64).collect();
        assert_eq!(seqs, expected, "{session}: seqs are 1..=n without gaps");
        total += entries.len();
    }
    assert_eq!(total, 4 * PER_THREAD);
    for t in 0..4 {
        for i in 0..PER_THREAD {
            assert!(store.entry_exists(&format!("e_{t}_{i}")).unwrap());
        }
    }
}

#[test]
fn store2_two_connections_adding_rules_concurrently_lose_nothing() {
    // GRANT-1 + STORE-2: read-merge-write in BEGIN IMMEDIATE.
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    drop(Store::open(&path).unwrap());
    let barrier = Arc::new(std::sync::Barrier::new(2));
    let handles: Vec<_> = (0..2)
        .map(|t| {
            let path = path.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let mut store = Store::open(&path).unwrap();
                barrier.wait();
                for i in 0..50 {
                    let rule = Rule::with_content("Bash", format!("cmd-{t}-{i}:*"));
                    assert_eq!(
                        store
                            .add_project_rules("proj", RuleKind::Allow, &[rule])
                            .unwrap(),
                        1
                    );
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let rules = Store::open(&path).unwrap().project_rules("proj").unwrap();
    assert_eq!(rules.allow.len(), 100);
    for t in 0..2 {
        for i in 0..50 {
            assert!(
                rules
                    .allow
                    .contains(&Rule::with_content("Bash", format!("cmd-{t}-{i}:*")))
            );
        }
    }
}

/// Not a test on its own: the child process of
/// `store2_killed_writer_loses_at_most_the_entry_being_written`.
#[test]
fn store2_crash_child_helper() {
    let Ok(path) = std::env::var("ZCODE_STORE_CRASH_CHILD_DB") else {
        return;
    };
    let mut store = Store::open(&path).unwrap();
    // Writes until killed; stops by itself only if the test that started
    // it is gone (its parent changes).
    let parent = std::os::unix::process::parent_id();
    let mut i = 0;
    while std::os::unix::process::parent_id() == parent {
        store
            .append_entry("sess_crash", &entry(&format!("c_{i}"), &"x".repeat(2000)))
            .unwrap();
        i += 1;
    }
}

/// Kills the child process when the test ends, even by panic.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn store2_killed_writer_loses_at_most_the_entry_being_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    {
        let mut store = Store::open(&path).unwrap();
        store
            .create_session(&new_session("sess_crash", "/w", "p"))
            .unwrap();
    }
    let mut child = KillOnDrop(
        std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "store2_crash_child_helper",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("ZCODE_STORE_CRASH_CHILD_DB", &path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    // Let it write for a while, then kill it mid-stream (SIGKILL on Unix).
    let observer = Store::open(&path).unwrap();
    let wrote = support::wait::until_blocking(support::wait::WAIT, || {
        observer.entries("sess_crash").unwrap().len() >= 50
    });
    assert!(wrote, "child wrote nothing");
    let seen_before_kill = observer.entries("sess_crash").unwrap().len();
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    drop(observer);

    let raw = rusqlite::Connection::open(&path).unwrap();
    let check: String = raw
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(raw);

    let mut store = Store::open(&path).unwrap();
    let entries = store.entries("sess_crash").unwrap();
    assert!(entries.len() >= seen_before_kill);
    for (i, e) in entries.iter().enumerate() {
        assert_eq!(e.seq, i as i64 + 1);
        assert_eq!(e.id, format!("c_{i}"));
    }
    // The database is still writable after the crash.
    let next = store
        .append_entry("sess_crash", &entry("after", "y"))
        .unwrap();
    assert_eq!(next.seq, entries.len() as i64 + 1);
}

// ---------------------------------------------------------------- sessions

#[test]
fn store1_sessions_create_get_and_duplicate() {
    let (mut store, _clock) = memory(1_000);
    let mut new = new_session("sess_1", "/work/a", "proj_a");
    new.title = Some("Fix the bug".into());
    new.execution = ExecutionState::new(Mode::Edit, true);
    let created = store.create_session(&new).unwrap();
    assert_eq!(created.created_at, 1_000);
    assert_eq!(created.updated_at, 1_000);
    let got = store.get_session("sess_1").unwrap().unwrap();
    assert_eq!(got, created);
    assert_eq!(got.title.as_deref(), Some("Fix the bug"));
    assert_eq!(got.model.as_deref(), Some("model-a"));
    assert_eq!(got.execution, ExecutionState::new(Mode::Edit, true));
    assert!(store.get_session("sess_missing").unwrap().is_none());

    let err = store.create_session(&new).unwrap_err();
    assert!(matches!(err, StoreError::DuplicateSession(ref id) if id == "sess_1"));

    store.set_session_title("sess_1", None).unwrap();
    assert_eq!(store.get_session("sess_1").unwrap().unwrap().title, None);
    assert!(matches!(
        store.set_session_title("nope", Some("t")),
        Err(StoreError::SessionNotFound(_))
    ));
}

#[test]
fn store1_sessions_list_newest_updated_first_with_filters() {
    let (mut store, clock) = memory(100);
    store
        .create_session(&new_session("sess_a", "/w1", "p1"))
        .unwrap();
    clock.set(200);
    store
        .create_session(&new_session("sess_b", "/w1", "p1"))
        .unwrap();
    clock.set(300);
    store
        .create_session(&new_session("sess_c", "/w2", "p2"))
        .unwrap();
    clock.set(400);
    // Activity in sess_a makes it the most recent.
    store.append_entry("sess_a", &entry("e1", "hi")).unwrap();

    let ids = |v: Vec<zcode::store::SessionRecord>| v.into_iter().map(|s| s.id).collect::<Vec<_>>();
    // sess_b and sess_c have no message yet: listed only when asked for.
    let all = SessionFilter {
        include_empty: true,
        ..Default::default()
    };
    assert_eq!(
        ids(store.list_sessions(&all, 10).unwrap()),
        ["sess_a", "sess_c", "sess_b"]
    );
    assert_eq!(
        ids(store.list_sessions(&all, 2).unwrap()),
        ["sess_a", "sess_c"]
    );
    assert_eq!(
        ids(store.list_sessions(&SessionFilter::default(), 10).unwrap()),
        ["sess_a"]
    );
    let by_project = SessionFilter {
        project_id: Some("p1"),
        include_empty: true,
        ..Default::default()
    };
    assert_eq!(
        ids(store.list_sessions(&by_project, usize::MAX).unwrap()),
        ["sess_a", "sess_b"]
    );
    let by_workspace = SessionFilter {
        workspace: Some("/w2"),
        include_empty: true,
        ..Default::default()
    };
    assert_eq!(
        ids(store.list_sessions(&by_workspace, 10).unwrap()),
        ["sess_c"]
    );
    let both = SessionFilter {
        project_id: Some("p1"),
        workspace: Some("/w2"),
        include_sub_agents: true,
        include_empty: true,
    };
    assert!(store.list_sessions(&both, 10).unwrap().is_empty());

    // --continue
    assert_eq!(
        store
            .latest_session_for_workspace("/w1")
            .unwrap()
            .unwrap()
            .id,
        "sess_a"
    );
    assert!(
        store
            .latest_session_for_workspace("/none")
            .unwrap()
            .is_none()
    );
}

#[test]
fn store1_sessions_equal_updated_at_newest_created_first() {
    let (mut store, _clock) = memory(5);
    for id in ["sess_1", "sess_2", "sess_3"] {
        store.create_session(&new_session(id, "/w", "p")).unwrap();
        store
            .append_entry(id, &entry(&format!("{id}_e"), "hi"))
            .unwrap();
    }
    assert_eq!(
        store
            .latest_session_for_workspace("/w")
            .unwrap()
            .unwrap()
            .id,
        "sess_3"
    );
}

#[test]
fn empty_session_is_never_continued_or_listed() {
    let (mut store, clock) = memory(100);
    store
        .create_session(&new_session("sess_talked", "/w", "p"))
        .unwrap();
    store
        .append_entry("sess_talked", &entry("e1", "hi"))
        .unwrap();
    // A later start that was left without a word: newer, yet not chosen.
    clock.set(200);
    store
        .create_session(&new_session("sess_empty", "/w", "p"))
        .unwrap();
    // A mode change is activity, not a conversation.
    store
        .save_execution_state(
            "sess_empty",
            "mode1",
            ExecutionState::new(Mode::Edit, false),
            None,
        )
        .unwrap();
    assert_eq!(
        store
            .latest_session_for_workspace("/w")
            .unwrap()
            .unwrap()
            .id,
        "sess_talked"
    );
    let listed: Vec<_> = store
        .list_sessions(
            &SessionFilter {
                project_id: Some("p"),
                ..Default::default()
            },
            10,
        )
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(listed, ["sess_talked"]);
    // Still there for whoever names it.
    assert!(store.get_session("sess_empty").unwrap().is_some());
    // Its first message makes it a session like any other.
    clock.set(300);
    store
        .append_entry("sess_empty", &entry("e2", "now"))
        .unwrap();
    assert_eq!(
        store
            .latest_session_for_workspace("/w")
            .unwrap()
            .unwrap()
            .id,
        "sess_empty"
    );
}

// ---------------------------------------------------------------- entries

#[test]
fn store1_entries_get_increasing_seq_and_touch_the_session() {
    let (mut store, clock) = memory(10);
    store
        .create_session(&new_session("sess_1", "/w", "p"))
        .unwrap();
    store
        .create_session(&new_session("sess_2", "/w", "p"))
        .unwrap();
    clock.set(20);
    let a = store.append_entry("sess_1", &entry("e_a", "one")).unwrap();
    let b = store
        .append_entry(
            "sess_1",
            &NewEntry::new("e_b", entry_kind::TOOL_CALL, json!({"tool": "Bash"})),
        )
        .unwrap();
    let other = store.append_entry("sess_2", &entry("e_c", "x")).unwrap();
    clock.set(30);
    let c = store
        .append_entry("sess_1", &entry("e_d", "three"))
        .unwrap();
    assert_eq!((a.seq, b.seq, c.seq, other.seq), (1, 2, 3, 1));
    assert_eq!(c.created_at, 30);

    let entries = store.entries("sess_1").unwrap();
    assert_eq!(entries, vec![a.clone(), b, c]);
    assert_eq!(entries[0].payload, json!({"text": "one"}));
    assert_eq!(store.get_session("sess_1").unwrap().unwrap().updated_at, 30);
    assert_eq!(store.get_session("sess_2").unwrap().unwrap().updated_at, 20);

    assert!(store.entry_exists("e_a").unwrap());
    assert!(!store.entry_exists("e_zzz").unwrap());
    assert!(store.entries("sess_missing").unwrap().is_empty());
}

#[test]
fn store1_entries_duplicate_id_is_a_clear_error_and_changes_nothing() {
    let (mut store, clock) = memory(10);
    store
        .create_session(&new_session("sess_1", "/w", "p"))
        .unwrap();
    store
        .create_session(&new_session("sess_2", "/w", "p"))
        .unwrap();
    store
        .append_entry("sess_1", &entry("sess_1:req_1", "a"))
        .unwrap();
    clock.set(99);
    for session in ["sess_1", "sess_2"] {
        let err = store
            .append_entry(session, &entry("sess_1:req_1", "b"))
            .unwrap_err();
        assert!(matches!(err, StoreError::DuplicateEntry(ref id) if id == "sess_1:req_1"));
        assert_eq!(err.to_string(), "session entry sess_1:req_1 already exists");
    }
    assert_eq!(store.entries("sess_1").unwrap().len(), 1);
    assert!(store.entries("sess_2").unwrap().is_empty());
    assert_eq!(store.get_session("sess_1").unwrap().unwrap().updated_at, 10);
}

#[test]
fn store1_entries_for_unknown_session_fail() {
    let (mut store, _clock) = memory(1);
    let err = store
        .append_entry("sess_nope", &entry("e", "x"))
        .unwrap_err();
    assert!(matches!(err, StoreError::SessionNotFound(_)));
    assert!(!store.entry_exists("e").unwrap());
}

#[test]
fn store1_delete_session_cascades_to_entries_todos_and_queue() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _clock) = clocked(&db_in(&dir), 1);
    store
        .create_session(&new_session("sess_1", "/w", "p"))
        .unwrap();
    store
        .create_session(&new_session("sess_keep", "/w", "p"))
        .unwrap();
    for s in ["sess_1", "sess_keep"] {
        store
            .append_entry(s, &entry(&format!("{s}_e"), "x"))
            .unwrap();
        store
            .replace_todos(
                s,
                &[TodoItem::new("t", TodoStatus::Pending, TodoPriority::Low)],
            )
            .unwrap();
        store
            .enqueue_input(s, &format!("{s}_q"), "later", "build")
            .unwrap();
    }
    assert!(store.delete_session("sess_1").unwrap());
    assert!(!store.delete_session("sess_1").unwrap());
    assert!(store.get_session("sess_1").unwrap().is_none());
    assert!(store.entries("sess_1").unwrap().is_empty());
    assert!(!store.entry_exists("sess_1_e").unwrap());
    assert!(store.todos("sess_1").unwrap().is_empty());
    assert!(store.queued_input("sess_1_q").unwrap().is_none());
    // The other session is untouched.
    assert_eq!(store.entries("sess_keep").unwrap().len(), 1);
    assert_eq!(store.todos("sess_keep").unwrap().len(), 1);
    assert_eq!(store.queued_inputs("sess_keep").unwrap().len(), 1);
}

// ---------------------------------------------------------------- todos

#[test]
fn todo4_replace_returns_old_list_keeps_order_and_touches_session() {
    let (mut store, clock) = memory(1);
    store
        .create_session(&new_session("sess_1", "/w", "p"))
        .unwrap();
    let first = vec![
        TodoItem::new("write tests", TodoStatus::InProgress, TodoPriority::High),
        TodoItem::new("implement", TodoStatus::Pending, TodoPriority::Medium),
        TodoItem::new("celebrate", TodoStatus::Pending, TodoPriority::Low),
    ];
    clock.set(50);
    assert!(store.replace_todos("sess_1", &first).unwrap().is_empty());
    assert_eq!(store.todos("sess_1").unwrap(), first);
    assert_eq!(store.get_session("sess_1").unwrap().unwrap().updated_at, 50);

    let second = vec![
        TodoItem::new("celebrate", TodoStatus::Completed, TodoPriority::Low),
        TodoItem::new("write tests", TodoStatus::Completed, TodoPriority::High),
    ];
    clock.set(60);
    assert_eq!(store.replace_todos("sess_1", &second).unwrap(), first);
    assert_eq!(store.todos("sess_1").unwrap(), second);
    assert_eq!(store.get_session("sess_1").unwrap().unwrap().updated_at, 60);

    clock.set(70);
    assert_eq!(store.replace_todos("sess_1", &[]).unwrap(), second);
    assert!(store.todos("sess_1").unwrap().is_empty());

    assert!(matches!(
        store.replace_todos("sess_nope", &first),
        Err(StoreError::SessionNotFound(_))
    ));
}

#[test]
fn todo4_items_serialize_snake_case() {
    let item = TodoItem::new("x", TodoStatus::InProgress, TodoPriority::High);
    let value = serde_json::to_value(&item).unwrap();
    assert_eq!(
        value,
        json!({"content": "x", "status": "in_progress", "priority": "high"})
    );
    assert_eq!(serde_json::from_value::<TodoItem>(value).unwrap(), item);
}

// ---------------------------------------------------------------- settings

#[test]
fn store1_settings_get_set_delete() {
    let (mut store, _clock) = memory(1);
    let key = SettingKey::new("global", "", "ui", "theme");
    assert_eq!(store.get_setting(&key).unwrap(), None);
    store.set_setting(&key, &json!("dark")).unwrap();
    assert_eq!(store.get_setting(&key).unwrap(), Some(json!("dark")));
    store.set_setting(&key, &json!({"name": "light"})).unwrap();
    assert_eq!(
        store.get_setting(&key).unwrap(),
        Some(json!({"name": "light"}))
    );
    let other = SettingKey::new("global", "", "ui", "font");
    assert_eq!(store.get_setting(&other).unwrap(), None);
    assert!(store.delete_setting(&key).unwrap());
    assert!(!store.delete_setting(&key).unwrap());
    assert_eq!(store.get_setting(&key).unwrap(), None);
}

#[test]
fn grant1_project_rules_merge_dedupe_and_remove() {
    let (mut store, _clock) = memory(1);
    assert_eq!(store.project_rules("proj").unwrap(), RuleSet::default());
    let added = store
        .add_project_rules(
            "proj",
            RuleKind::Allow,
            &[
                Rule::with_content("Bash", "git status:*"),
                Rule::with_content("Bash", "git status:*"),
                Rule::tool("Read"),
            ],
        )
        .unwrap();
    assert_eq!(added, 2);
    assert_eq!(
        store
            .add_project_rules(
                "proj",
                RuleKind::Allow,
                &[Rule::tool("Read"), Rule::with_content("Bash", "ls:*")]
            )
            .unwrap(),
        1
    );
    assert_eq!(
        store
            .add_project_rules("proj", RuleKind::Deny, &[Rule::tool("Read")])
            .unwrap(),
        1,
        "same rule under another kind is distinct"
    );
    let rules = store.project_rules("proj").unwrap();
    assert_eq!(
        rules.allow,
        vec![
            Rule::with_content("Bash", "git status:*"),
            Rule::tool("Read"),
            Rule::with_content("Bash", "ls:*"),
        ]
    );
    assert_eq!(rules.deny, vec![Rule::tool("Read")]);
    assert!(rules.ask.is_empty());
    // Other projects are separate.
    assert!(store.project_rules("other").unwrap().is_empty());

    // Stored structured, never as display strings.
    let stored = store
        .get_setting(&SettingKey::new("project", "proj", "permission", "ruleset"))
        .unwrap()
        .unwrap();
    assert_eq!(
        stored["allow"][0],
        json!({"toolName": "Bash", "ruleContent": "git status:*"})
    );
    assert_eq!(stored["allow"][1], json!({"toolName": "Read"}));

    assert!(
        store
            .remove_project_rule("proj", RuleKind::Allow, &Rule::tool("Read"))
            .unwrap()
    );
    assert!(
        !store
            .remove_project_rule("proj", RuleKind::Allow, &Rule::tool("Read"))
            .unwrap()
    );
    let rules = store.project_rules("proj").unwrap();
    assert_eq!(rules.allow.len(), 2);
    assert_eq!(rules.deny, vec![Rule::tool("Read")]);
}

#[test]
fn grant1_malformed_stored_rules_are_an_error_and_not_overwritten() {
    let (mut store, _clock) = memory(1);
    let key = SettingKey::project_rules("proj");
    let bad = json!({"allow": "Bash(ls:*)"});
    store.set_setting(&key, &bad).unwrap();
    let err = store.project_rules("proj").unwrap_err();
    assert!(
        matches!(err, StoreError::MalformedSetting { .. }),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(
        msg.starts_with("stored setting project/proj permission.ruleset is malformed"),
        "{msg}"
    );
    assert!(matches!(
        store.add_project_rules("proj", RuleKind::Allow, &[Rule::tool("Read")]),
        Err(StoreError::MalformedSetting { .. })
    ));
    assert!(matches!(
        store.remove_project_rule("proj", RuleKind::Allow, &Rule::tool("Read")),
        Err(StoreError::MalformedSetting { .. })
    ));
    assert_eq!(store.get_setting(&key).unwrap(), Some(bad));

    // Missing toolName is malformed too.
    store
        .set_setting(&key, &json!({"deny": [{"ruleContent": "x"}]}))
        .unwrap();
    assert!(store.project_rules("proj").is_err());
}

#[test]
fn grant1_non_json_stored_value_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    drop(Store::open(&path).unwrap());
    {
        // Another program bypassing the json_valid check.
        let raw = rusqlite::Connection::open(&path).unwrap();
        raw.execute_batch(
            "PRAGMA ignore_check_constraints = ON;
             INSERT INTO local_setting VALUES ('project', 'proj', 'permission', 'ruleset', 'Bash(ls:*)', 0);",
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    let err = store.project_rules("proj").unwrap_err();
    assert!(
        matches!(err, StoreError::MalformedSetting { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("not JSON"));
}

#[test]
fn exec4_project_last_mode_round_trip() {
    let (mut store, _clock) = memory(1);
    assert_eq!(store.project_last_mode("proj").unwrap(), None);
    let state = ExecutionState::new(Mode::Yolo, true);
    store.set_project_last_mode("proj", state).unwrap();
    assert_eq!(store.project_last_mode("proj").unwrap(), Some(state));
    assert_eq!(
        store
            .get_setting(&SettingKey::new(
                "project",
                "proj",
                "execution",
                "lastSelectedMode"
            ))
            .unwrap(),
        Some(json!({"mode": "yolo", "planEnabled": true}))
    );
    assert_eq!(store.project_last_mode("other").unwrap(), None);

    // A bare legacy string is understood; garbage is an error.
    let key = SettingKey::project_last_mode("proj");
    store.set_setting(&key, &json!("plan")).unwrap();
    assert_eq!(
        store.project_last_mode("proj").unwrap(),
        Some(ExecutionState::new(Mode::Build, true))
    );
    store.set_setting(&key, &json!({"mode": "turbo"})).unwrap();
    assert!(matches!(
        store.project_last_mode("proj"),
        Err(StoreError::MalformedSetting { .. })
    ));
}

// ---------------------------------------------------------------- EXEC-4

#[test]
fn exec4_save_execution_state_updates_entry_session_and_preference() {
    let (mut store, clock) = memory(1);
    store
        .create_session(&new_session("sess_1", "/w", "proj"))
        .unwrap();
    clock.set(42);
    let state = ExecutionState::new(Mode::Edit, true);
    let record: EntryRecord = store
        .save_execution_state("sess_1", "sess_1:mode_1", state, Some("proj"))
        .unwrap();
    assert_eq!(record.kind, "runtime/execution_state");
    assert_eq!(record.payload, json!({"mode": "edit", "planEnabled": true}));
    assert_eq!(record.seq, 1);
    let session = store.get_session("sess_1").unwrap().unwrap();
    assert_eq!(session.execution, state);
    assert_eq!(session.updated_at, 42);
    assert_eq!(store.project_last_mode("proj").unwrap(), Some(state));
    assert_eq!(store.entries("sess_1").unwrap(), vec![record]);

    // Without a project: the preference is left alone.
    let yolo = ExecutionState::new(Mode::Yolo, false);
    store
        .save_execution_state("sess_1", "sess_1:mode_2", yolo, None)
        .unwrap();
    assert_eq!(
        store.get_session("sess_1").unwrap().unwrap().execution,
        yolo
    );
    assert_eq!(store.project_last_mode("proj").unwrap(), Some(state));
}

#[test]
fn exec4_failed_save_execution_state_changes_nothing() {
    let (mut store, clock) = memory(1);
    // Unknown session: no entry, no preference.
    let state = ExecutionState::new(Mode::Yolo, false);
    let err = store
        .save_execution_state("sess_missing", "m_1", state, Some("proj"))
        .unwrap_err();
    assert!(matches!(err, StoreError::SessionNotFound(_)));
    assert!(!store.entry_exists("m_1").unwrap());
    assert_eq!(store.project_last_mode("proj").unwrap(), None);

    // Duplicate entry id: session row and preference unchanged.
    store
        .create_session(&new_session("sess_1", "/w", "proj"))
        .unwrap();
    let first = ExecutionState::new(Mode::Edit, false);
    store
        .save_execution_state("sess_1", "m_1", first, Some("proj"))
        .unwrap();
    clock.set(500);
    let err = store
        .save_execution_state("sess_1", "m_1", state, Some("proj"))
        .unwrap_err();
    assert!(matches!(err, StoreError::DuplicateEntry(_)));
    let session = store.get_session("sess_1").unwrap().unwrap();
    assert_eq!(session.execution, first);
    assert_eq!(session.updated_at, 1);
    assert_eq!(store.project_last_mode("proj").unwrap(), Some(first));
    assert_eq!(store.entries("sess_1").unwrap().len(), 1);
}

#[test]
fn exec4_failure_at_the_last_step_rolls_back_entry_and_session() {
    // Force the final step (the preference write) to fail with a trigger
    // installed by another connection: the entry and the session update
    // made earlier in the same transaction must be rolled back.
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    let (mut store, _clock) = clocked(&path, 1);
    store
        .create_session(&new_session("sess_1", "/w", "proj"))
        .unwrap();
    {
        let raw = rusqlite::Connection::open(&path).unwrap();
        raw.execute_batch(
            "CREATE TRIGGER fail_pref BEFORE INSERT ON local_setting
             BEGIN SELECT RAISE(ABORT, 'preference write failed'); END;",
        )
        .unwrap();
    }
    let state = ExecutionState::new(Mode::Yolo, true);
    let err = store
        .save_execution_state("sess_1", "m_1", state, Some("proj"))
        .unwrap_err();
    assert!(err.to_string().contains("preference write failed"), "{err}");
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
    assert!(!store.entry_exists("m_1").unwrap());
    let session = store.get_session("sess_1").unwrap().unwrap();
    assert_eq!(session.execution, ExecutionState::default());
    assert_eq!(session.updated_at, 1);
}

// ---------------------------------------------------------------- RUN-3

#[test]
fn run3_input_queue_order_and_status_transitions() {
    let (mut store, clock) = memory(1);
    store
        .create_session(&new_session("sess_1", "/w", "p"))
        .unwrap();
    store
        .create_session(&new_session("sess_2", "/w", "p"))
        .unwrap();
    let a = store
        .enqueue_input("sess_1", "q_a", "first", "build")
        .unwrap();
    let b = store
        .enqueue_input("sess_1", "q_b", "second", "plan")
        .unwrap();
    let c = store
        .enqueue_input("sess_1", "q_c", "third", "yolo")
        .unwrap();
    store
        .enqueue_input("sess_2", "q_x", "elsewhere", "edit")
        .unwrap();
    assert_eq!((a.seq, b.seq, c.seq), (1, 2, 3));
    assert_eq!(a.status, InputStatus::Queued);
    assert_eq!(b.payload, json!({"intent": {"mode": "plan"}}));
    assert_eq!(b.intent_mode(), Some("plan"));

    let ids = |v: Vec<zcode::store::QueuedInput>| v.into_iter().map(|q| q.id).collect::<Vec<_>>();
    assert_eq!(
        ids(store.queued_inputs("sess_1").unwrap()),
        ["q_a", "q_b", "q_c"]
    );
    assert_eq!(store.next_queued_input("sess_1").unwrap().unwrap(), a);

    clock.set(10);
    let started = store.mark_input("q_a", InputStatus::Started).unwrap();
    assert_eq!(started.status, InputStatus::Started);
    assert_eq!(started.updated_at, 10);
    assert_eq!(store.queued_input("q_a").unwrap().unwrap(), started);
    assert_eq!(ids(store.queued_inputs("sess_1").unwrap()), ["q_b", "q_c"]);
    assert_eq!(
        store.next_queued_input("sess_1").unwrap().unwrap().id,
        "q_b"
    );

    // A second start of the same input (another process) is refused.
    let err = store.mark_input("q_a", InputStatus::Started).unwrap_err();
    assert!(matches!(err, StoreError::InvalidInputTransition { .. }));
    assert_eq!(
        err.to_string(),
        "queued input q_a cannot go from started to started"
    );

    store.mark_input("q_a", InputStatus::Done).unwrap();
    assert!(store.mark_input("q_a", InputStatus::Cancelled).is_err());
    assert!(store.mark_input("q_a", InputStatus::Queued).is_err());

    store.mark_input("q_b", InputStatus::Cancelled).unwrap();
    assert!(store.mark_input("q_b", InputStatus::Started).is_err());
    assert_eq!(ids(store.queued_inputs("sess_1").unwrap()), ["q_c"]);

    let claimed = store.claim_next_input("sess_1").unwrap().unwrap();
    assert_eq!(
        (claimed.id.as_str(), claimed.status),
        ("q_c", InputStatus::Started)
    );
    assert!(store.claim_next_input("sess_1").unwrap().is_none());
    assert!(store.next_queued_input("sess_1").unwrap().is_none());
    store.mark_input("q_c", InputStatus::Cancelled).unwrap();

    // The other session's queue is independent.
    assert_eq!(ids(store.queued_inputs("sess_2").unwrap()), ["q_x"]);

    // Errors.
    assert!(matches!(
        store.mark_input("q_nope", InputStatus::Done),
        Err(StoreError::InputNotFound(_))
    ));
    assert!(matches!(
        store.enqueue_input("sess_1", "q_a", "again", "build"),
        Err(StoreError::DuplicateInput(_))
    ));
    assert!(matches!(
        store.enqueue_input("sess_nope", "q_new", "x", "build"),
        Err(StoreError::SessionNotFound(_))
    ));
    // seq keeps increasing after items leave the queue.
    assert_eq!(
        store
            .enqueue_input("sess_1", "q_d", "fourth", "build")
            .unwrap()
            .seq,
        4
    );
}

// ---------------------------------------------------------------- TODO-4 (property)

mod todo_props {
    use super::*;
    use proptest::prelude::*;

    fn item() -> impl Strategy<Value = TodoItem> {
        (
            ".{0,40}",
            prop_oneof![
                Just(TodoStatus::Pending),
                Just(TodoStatus::InProgress),
                Just(TodoStatus::Completed)
            ],
            prop_oneof![
                Just(TodoPriority::High),
                Just(TodoPriority::Medium),
                Just(TodoPriority::Low)
            ],
        )
            .prop_map(|(content, status, priority)| TodoItem::new(content, status, priority))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        // TODO-4: any sequence of replacements returns the previous list and
        // stores the new one exactly, in order.
        #[test]
        fn todo4_replace_sequence_round_trips(
            lists in proptest::collection::vec(proptest::collection::vec(item(), 0..8), 1..5)
        ) {
            let (mut store, _clock) = memory(1);
            store.create_session(&new_session("sess_p", "/w", "p")).unwrap();
            let mut previous: Vec<TodoItem> = Vec::new();
            for list in &lists {
                prop_assert_eq!(store.replace_todos("sess_p", list).unwrap(), previous);
                prop_assert_eq!(&store.todos("sess_p").unwrap(), list);
                previous = list.clone();
            }
        }
    }
}

// ------------------------------------------------------ STORE-2: locks

/// A lock row as a zcode on another host would leave it.
fn lock_from_elsewhere(path: &Path, session_id: &str, pid: i64, heartbeat_at: i64) {
    let raw = rusqlite::Connection::open(path).unwrap();
    raw.execute(
        "INSERT OR REPLACE INTO session_lock
           (session_id, token, pid, pid_started, host, acquired_at, heartbeat_at)
         VALUES (?1, 'elsewhere-token', ?2, NULL, 'another-host', ?3, ?3)",
        rusqlite::params![session_id, pid, heartbeat_at],
    )
    .unwrap();
}

#[test]
fn store2_a_held_session_is_refused_until_its_holder_is_gone_then_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    let (mut store, clock) = clocked(&path, 1_000_000);
    store.create_session(&new_session("s1", "/w", "p")).unwrap();
    lock_from_elsewhere(&path, "s1", 4242, 1_000_000);

    let err = store.hold_session("s1").unwrap_err();
    assert!(
        matches!(&err, StoreError::SessionInUse { pid: 4242, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("session s1 is in use by another zcode (pid 4242)"),
        "{err}"
    );
    assert_eq!(store.held_session(), None);

    // Its heartbeat stops: after the stale time it is taken over.
    clock.advance(zcode::store::STALE_AFTER_MS);
    assert!(store.hold_session("s1").is_err(), "not yet stale");
    clock.advance(1);
    store.hold_session("s1").unwrap();
    assert_eq!(store.held_session(), Some("s1"));
    let lock = store.session_lock("s1").unwrap().expect("a lock");
    assert_eq!(lock.pid, i64::from(std::process::id()));
    store.append_entry("s1", &entry("e1", "mine")).unwrap();
    store.release_session().unwrap();
    assert_eq!(store.session_lock("s1").unwrap(), None);
}

#[test]
fn store2_a_holder_whose_lock_was_taken_over_writes_nothing_more() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    let (mut store, _clock) = clocked(&path, 1_000_000);
    store
        .create_held_session(&new_session("s1", "/w", "p"))
        .unwrap();
    store.append_entry("s1", &entry("e1", "before")).unwrap();
    store.refresh_session_lock().unwrap();

    // Another host took it (our heartbeat looked stale to it).
    lock_from_elsewhere(&path, "s1", 77, 1_000_000);
    let err = store.append_entry("s1", &entry("e2", "after")).unwrap_err();
    assert!(
        matches!(&err, StoreError::SessionTakenOver { pid: Some(77), .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("taken over by another zcode (pid 77)")
    );
    assert!(matches!(
        store.refresh_session_lock(),
        Err(StoreError::SessionTakenOver { .. })
    ));
    let ids: Vec<String> = store
        .entries("s1")
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(ids, ["e1"]);
    // Releasing leaves the new holder's lock alone.
    store.release_session().unwrap();
    assert_eq!(store.session_lock("s1").unwrap().unwrap().pid, 77);
}

#[test]
fn store2_a_fork_copies_entries_and_todos_and_is_held() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    let (mut store, _clock) = clocked(&path, 1_000);
    store.create_session(&new_session("s1", "/w", "p")).unwrap();
    store.append_entry("s1", &entry("e1", "one")).unwrap();
    store
        .append_entry("s1", &entry("s1:req", "derived id"))
        .unwrap();
    store
        .replace_todos(
            "s1",
            &[TodoItem {
                content: "t".into(),
                status: TodoStatus::Pending,
                priority: TodoPriority::High,
            }],
        )
        .unwrap();
    lock_from_elsewhere(&path, "s1", 5, 1_000);

    let fork = store.fork_session("s1", "s2").unwrap();
    assert_eq!(fork.workspace, "/w");
    assert_eq!(store.held_session(), Some("s2"));
    let copied = store.entries("s2").unwrap();
    let texts: Vec<&str> = copied
        .iter()
        .map(|e| e.payload["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["one", "derived id"]);
    assert_ne!(copied[0].id, "e1");
    assert_eq!(copied[1].id, "s2:req");
    assert_eq!(store.todos("s2").unwrap().len(), 1);
    // The source is untouched and still its holder's.
    assert_eq!(store.entries("s1").unwrap().len(), 2);
    assert_eq!(store.session_lock("s1").unwrap().unwrap().pid, 5);
}

#[test]
fn store2_damaged_pages_are_refused_at_open_and_the_file_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    {
        let mut store = Store::open(&path).unwrap();
        store.create_session(&new_session("s1", "/w", "p")).unwrap();
        store.append_entry("s1", &entry("e1", "x")).unwrap();
    }
    let root: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row(
            "SELECT rootpage FROM sqlite_master WHERE name = 'session_entries'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    let start = usize::try_from(root - 1).unwrap() * 4096;
    bytes[start..start + 4096].fill(0x6b);
    std::fs::write(&path, &bytes).unwrap();

    let err = Store::open(&path).unwrap_err();
    assert!(err.is_damaged(), "{err:?}");
    let text = err.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains("is damaged"), "{text}");
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}
