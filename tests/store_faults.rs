//! Faults of the session store seen through the real binary (STORE-2,
//! CLI-7, HEAD-1): a damaged database file, a disk that fills up during a
//! run, two processes on one session.
#![cfg(unix)]

mod support;

use serde_json::Value;
use std::path::Path;
use support::fake_model_server::{FakeModelServer, Reply, sse};
use support::headless::{Harness, Run, openai_env};
use zcode::store::default_db_path;

fn parse_json_result(run: &Run) -> Value {
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one JSON object on stdout: {run}");
    serde_json::from_str(lines[0]).unwrap_or_else(|e| panic!("not JSON ({e}): {run}"))
}

/// A store made the ordinary way: two headless runs and two saved rules.
async fn populated_store(h: &Harness, server: &FakeModelServer) {
    for task in ["first task", "second task"] {
        server.enqueue(Reply::sse(sse::openai_text("Done.")));
        let run = h.run(&["-p", task], &openai_env(server)).await;
        assert_eq!(run.code, Some(0), "{run}");
    }
    for content in ["ls", "pwd"] {
        let run = h
            .run(&["permission", "add", "allow", "Bash", content], &[])
            .await;
        assert_eq!(run.code, Some(0), "{run}");
    }
}

/// Overwrites the first page of `table` (a page in the middle of the file)
/// with garbage. Every connection must be closed, so that the file holds
/// every page (nothing left in the write-ahead log).
fn damage_table_page(db: &Path, table: &str) {
    let (root, page_size): (i64, i64) = {
        let conn = rusqlite::Connection::open(db).unwrap();
        let root = conn
            .query_row(
                "SELECT rootpage FROM sqlite_master WHERE name = ?1",
                [table],
                |r| r.get(0),
            )
            .unwrap();
        let size = conn
            .pragma_query_value(None, "page_size", |r| r.get(0))
            .unwrap();
        (root, size)
    };
    let wal = db.with_extension("sqlite-wal");
    assert!(
        !wal.exists() || std::fs::metadata(&wal).unwrap().len() == 0,
        "everything is checkpointed"
    );
    let mut bytes = std::fs::read(db).unwrap();
    let start = usize::try_from((root - 1) * page_size).unwrap();
    let end = start + usize::try_from(page_size).unwrap();
    assert!(
        start > 0 && end < bytes.len(),
        "page {root} is inside the file"
    );
    for (i, b) in bytes[start..end].iter_mut().enumerate() {
        *b = (i * 31 % 251) as u8 ^ 0x5a;
    }
    std::fs::write(db, &bytes).unwrap();
}

fn assert_damaged_error(run: &Run, db: &Path, what: &str) {
    assert_ne!(run.code, Some(0), "{what}: {run}");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: one line on stderr: {run}");
    let line = lines[0];
    assert!(line.starts_with("zcode: error: "), "{what}: {run}");
    assert!(line.contains("is damaged"), "{what}: {run}");
    assert!(line.contains(&db.display().to_string()), "{what}: {run}");
    assert!(line.contains("move it aside"), "{what}: {run}");
    // STORE errors say their cause once.
    assert!(line.matches("malformed").count() <= 1, "{what}: {run}");
    assert!(!line.contains("Error code"), "{what}: {run}");
}

// ------------------------------------------------------- damaged database

#[tokio::test(flavor = "multi_thread")]
async fn fault_damaged_database_is_refused_by_every_command_and_left_unchanged() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    populated_store(&h, &server).await;
    let db = default_db_path(h.home());
    // A table none of the commands below reads: today they succeed anyway.
    damage_table_page(&db, "session_entries");
    let before = std::fs::read(&db).unwrap();
    let requests = server.request_count();

    let commands: &[&[&str]] = &[
        &["permission", "list"],
        &["permission", "list", "--json"],
        &["permission", "add", "allow", "Bash", "cat"],
        &["permission", "remove", "allow", "Bash", "ls"],
        &[
            "permission",
            "check",
            "--tool",
            "Bash",
            "--input",
            r#"{"command":"ls"}"#,
        ],
        &["sessions", "list"],
        &["sessions", "list", "--all", "--json"],
        &["-p", "a third task"],
        &["-p", "a third task", "--output-format", "json"],
        &["--continue", "-p", "go on"],
    ];
    for args in commands {
        let run = h.run(args, &openai_env(&server)).await;
        assert_damaged_error(&run, &db, &args.join(" "));
        assert_eq!(
            std::fs::read(&db).unwrap(),
            before,
            "zcode {args:?} changed the damaged file"
        );
    }
    assert_eq!(server.request_count(), requests, "no model request was made");
}

/// The TUI opens the store the same way and says so before it starts.
#[test]
fn fault_damaged_database_is_refused_by_the_tui() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let h = Harness::new();
    rt.block_on(async {
        let server = FakeModelServer::start().await;
        populated_store(&h, &server).await;
    });
    let db = default_db_path(h.home());
    damage_table_page(&db, "session_entries");
    let before = std::fs::read(&db).unwrap();
    let mut pty = support::pty::Pty::spawn(support::pty::PtyOptions::new(
        env!("CARGO_BIN_EXE_zcode"),
        h.home(),
        h.project(),
    ));
    let status = pty.wait_exit(support::pty::WAIT);
    assert!(!status.success(), "{}", pty.screen_text());
    let screen = pty.screen_text();
    assert!(screen.contains("is damaged"), "{screen}");
    assert_eq!(std::fs::read(&db).unwrap(), before);
}
