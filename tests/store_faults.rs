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
    assert_eq!(
        server.request_count(),
        requests,
        "no model request was made"
    );
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

// ------------------------------------------------------------- full disk

/// Every tool message of an OpenAI request answers a call of the assistant
/// message just before it, and every call is answered before the next
/// message (what providers require).
fn assert_calls_and_results_pair(body: &Value) {
    let mut open: Vec<String> = Vec::new();
    for message in body["messages"].as_array().expect("messages") {
        if message["role"] == "tool" {
            let id = message["tool_call_id"].as_str().unwrap_or_default();
            let at = open.iter().position(|c| c == id);
            assert!(at.is_some(), "result for no open call {id}: {body:#}");
            open.remove(at.unwrap_or_default());
            continue;
        }
        assert!(open.is_empty(), "calls without a result {open:?}: {body:#}");
        if let Some(calls) = message["tool_calls"].as_array() {
            open = calls
                .iter()
                .map(|c| c["id"].as_str().unwrap_or_default().to_string())
                .collect();
        }
    }
    assert!(open.is_empty(), "calls without a result {open:?}: {body:#}");
}

/// How many Bash rounds the model asks for before it answers.
const ROUNDS: usize = 40;

/// A model that appends one line to calls.log per round, then answers.
fn enqueue_many_rounds(server: &FakeModelServer) {
    for i in 0..ROUNDS {
        let command = format!(r#"{{"command":"echo round{i} >> calls.log"}}"#);
        server.enqueue(Reply::sse(sse::openai_tool_calls(
            "",
            &[(&format!("call_{i}"), "Bash", &command)],
        )));
    }
    server.enqueue(Reply::sse(sse::openai_text("All rounds done.")));
}

/// Limits every file the child writes to `bytes` (as a full disk would
/// stop it), with SIGXFSZ ignored so that a write past it fails (EFBIG)
/// instead of killing the process.
fn limit_file_size(cmd: &mut tokio::process::Command, bytes: u64) {
    // SAFETY: between fork and exec only async-signal-safe calls are made.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
}

/// The write-ahead log may grow to this: the database opens, and the
/// first few entries fit before a write fails.
const FILE_SIZE_LIMIT: u64 = 160 * 1024;

/// A store with one earlier session, then a run of `args` whose files may
/// not grow past [`FILE_SIZE_LIMIT`].
async fn run_on_a_full_disk(h: &Harness, server: &FakeModelServer, args: &[&str]) -> Run {
    server.enqueue(Reply::sse(sse::openai_text("Ready.")));
    let first = h.run(&["-p", "get ready"], &openai_env(server)).await;
    assert_eq!(first.code, Some(0), "{first}");
    let before = server.request_count();
    enqueue_many_rounds(server);
    let mut cmd = h.command(args, &openai_env(server));
    limit_file_size(&mut cmd, FILE_SIZE_LIMIT);
    let out = tokio::time::timeout(support::headless::RUN_TIMEOUT, cmd.output())
        .await
        .expect("the run ends")
        .expect("zcode runs");
    let run = Run::from(out);
    let requests = server.request_count() - before;
    assert!(
        requests < ROUNDS,
        "the run stopped long before its end ({requests} requests): {run}"
    );
    run
}

/// After the failed run: what was saved, and what happened, agree. No call
/// ran whose assistant message was not saved, and no request followed an
/// entry that was not saved.
fn assert_nothing_ran_after_the_failure(h: &Harness, server: &FakeModelServer, run: &Run) {
    let session = &h.sessions()[0];
    let entries = h.entries(&session.id);
    let saved_calls = entries
        .iter()
        .filter(|e| e.kind == "assistant_message")
        .count();
    let saved_results = entries.iter().filter(|e| e.kind == "tool_result").count();
    assert!(
        entries.first().is_some_and(|e| e.kind == "user_message"),
        "the run got going before the disk filled: {run}"
    );
    let executed = std::fs::read_to_string(h.project().join("calls.log"))
        .unwrap_or_default()
        .lines()
        .count();
    assert!(
        executed <= saved_calls,
        "{executed} calls ran, {saved_calls} were saved: {run}"
    );
    assert!(
        executed <= saved_results + 1,
        "{executed} calls ran, {saved_results} results saved: {run}"
    );
    // The first request of the failed run, plus one per saved result.
    let requests = server.request_count() - 1;
    assert!(
        requests <= saved_results + 1,
        "{requests} requests after {saved_results} saved results: {run}"
    );
}

fn assert_one_clear_save_error(run: &Run, h: &Harness) {
    let errors: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("zcode: error:"))
        .collect();
    assert_eq!(errors.len(), 1, "one error line: {run}");
    let line = errors[0];
    assert!(line.contains("cannot save the session"), "{run}");
    assert!(line.contains("database or disk is full"), "{run}");
    assert!(line.contains("File too large"), "{run}");
    let db = default_db_path(h.home());
    assert!(line.contains(&db.display().to_string()), "{run}");
    assert!(line.contains("ZCODE_HOME"), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_full_disk_stops_the_run_and_fails_with_one_clear_error() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let run = run_on_a_full_disk(&h, &server, &["-p", "do all the rounds"]).await;
    assert_eq!(run.code, Some(1), "{run}");
    assert_eq!(run.stdout, "", "no answer was printed: {run}");
    assert_one_clear_save_error(&run, &h);
    assert_nothing_ran_after_the_failure(&h, &server, &run);

    // With room again the session resumes, and what it sends is whole.
    let id = h.sessions()[0].id.clone();
    let fresh = FakeModelServer::start().await;
    fresh.enqueue(Reply::sse(sse::openai_text("Resumed.")));
    let resumed = h
        .run(&["-p", "go on", "--resume", &id], &openai_env(&fresh))
        .await;
    assert_eq!(resumed.code, Some(0), "{resumed}");
    assert_eq!(resumed.stdout, "Resumed.\n", "{resumed}");
    assert_calls_and_results_pair(&fresh.requests()[0].json());
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_full_disk_json_result_is_an_error_and_stderr_says_why() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let run = run_on_a_full_disk(
        &h,
        &server,
        &["-p", "do all the rounds", "--output-format", "json"],
    )
    .await;
    assert_eq!(run.code, Some(1), "{run}");
    let result = parse_json_result(&run);
    assert_eq!(result["is_error"], true, "{result}");
    assert_eq!(result["end"], "failed", "{result}");
    let errors = result["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 1, "{result}");
    assert!(
        errors[0]
            .as_str()
            .unwrap_or_default()
            .contains("cannot save the session: database or disk is full"),
        "{result}"
    );
    assert_one_clear_save_error(&run, &h);
    assert_nothing_ran_after_the_failure(&h, &server, &run);
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_full_disk_stream_json_has_an_error_event_and_a_failed_result() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let run = run_on_a_full_disk(
        &h,
        &server,
        &["-p", "do all the rounds", "--output-format", "stream-json"],
    )
    .await;
    assert_eq!(run.code, Some(1), "{run}");
    let events: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let errors: Vec<&Value> = events.iter().filter(|e| e["type"] == "error").collect();
    assert_eq!(errors.len(), 1, "{run}");
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("database or disk is full"),
        "{run}"
    );
    let last = events.last().expect("a result line");
    assert_eq!(last["type"], "result", "{run}");
    assert_eq!(last["is_error"], true, "{run}");
    assert_one_clear_save_error(&run, &h);
    assert_nothing_ran_after_the_failure(&h, &server, &run);
}

// ------------------------------------------------- errors in every format

#[tokio::test(flavor = "multi_thread")]
async fn head1_errors_reach_stderr_in_every_output_format() {
    for format in ["text", "json", "stream-json"] {
        let h = Harness::new();
        let server = FakeModelServer::start().await;
        server.enqueue(Reply::status(401));
        let run = h
            .run(
                &["-p", "hello", "--output-format", format],
                &openai_env(&server),
            )
            .await;
        assert_eq!(run.code, Some(1), "{format}: {run}");
        let errors: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.starts_with("zcode: error:"))
            .collect();
        assert_eq!(errors.len(), 1, "{format}: {run}");
        assert!(errors[0].contains("OPENAI_API_KEY"), "{format}: {run}");
        if format != "text" {
            // stdout stays JSON, one object per line.
            for line in run.stdout.lines() {
                let value: Value = serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("{format}: not JSON ({e}): {line}"));
                assert!(value.is_object(), "{format}: {line}");
            }
            let last: Value = serde_json::from_str(run.stdout.lines().last().unwrap()).unwrap();
            assert_eq!(last["is_error"], true, "{format}: {run}");
        }
    }
}

// ------------------------------------------------- one process a session

/// Runs a first session that answers "Ready." and returns its id.
async fn first_session(h: &Harness, server: &FakeModelServer) -> String {
    server.enqueue(Reply::sse(sse::openai_text("Ready.")));
    let run = h
        .run(
            &["-p", "get ready", "--output-format", "json"],
            &openai_env(server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    parse_json_result(&run)["session_id"]
        .as_str()
        .expect("session_id")
        .to_string()
}

/// A model that runs one Bash call which says it started, then waits for
/// the test to create `release`, then answers.
fn enqueue_held_turn(server: &FakeModelServer) {
    server.enqueue(Reply::sse(sse::openai_tool_calls(
        "",
        &[(
            "call_hold",
            "Bash",
            r#"{"command":"touch started; while [ ! -e release ]; do sleep 0.05; done; echo released"}"#,
        )],
    )));
    server.enqueue(Reply::sse(sse::openai_text("Held run done.")));
}

/// Waits (bounded) until `path` exists.
async fn wait_for_file(path: &Path) {
    let appeared = support::wait::until(support::headless::RUN_TIMEOUT, || path.exists()).await;
    assert!(appeared, "{} never appeared", path.display());
}

fn in_use_message(id: &str, pid: u32) -> String {
    format!("session {id} is in use by another zcode (pid {pid})")
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_concurrent_resumes_of_one_session_run_one_at_a_time() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let id = first_session(&h, &server).await;
    enqueue_held_turn(&server);
    let mut runs = tokio::task::JoinSet::new();
    let mut pids = Vec::new();
    for n in 0..4 {
        let task = format!("resumed run {n}");
        let child = h
            .command(
                &["-p", &task, "--resume", &id, "--output-format", "json"],
                &openai_env(&server),
            )
            .spawn()
            .expect("zcode starts");
        let pid = child.id().expect("a pid");
        pids.push(pid);
        runs.spawn(async move {
            let out = child.wait_with_output().await.expect("zcode runs");
            (pid, Run::from(out))
        });
    }
    // Three runs end while one holds the session (its call waits for us).
    let mut ended = Vec::new();
    while ended.len() < 3 {
        let next = tokio::time::timeout(support::headless::RUN_TIMEOUT, runs.join_next())
            .await
            .expect("three runs end while one holds the session");
        ended.push(next.expect("a run").expect("the task"));
    }
    std::fs::write(h.project().join("release"), "").unwrap();
    let last = tokio::time::timeout(support::headless::RUN_TIMEOUT, runs.join_next())
        .await
        .expect("the holder ends once released")
        .expect("a run")
        .expect("the task");
    let (holder_pid, holder_run) = last;
    assert_eq!(holder_run.code, Some(0), "{holder_run}");
    assert_eq!(parse_json_result(&holder_run)["result"], "Held run done.");
    for (pid, run) in &ended {
        assert_ne!(*pid, holder_pid);
        assert_eq!(run.code, Some(1), "{run}");
        let errors: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.starts_with("zcode: error:"))
            .collect();
        assert_eq!(errors.len(), 1, "{run}");
        assert!(
            errors[0].contains(&in_use_message(&id, holder_pid)),
            "{run}"
        );
        assert!(errors[0].contains("--fork-session"), "{run}");
    }
    // Only the holder talked to the model, and its entries are not mixed
    // with anyone else's.
    assert_eq!(server.request_count(), 1 + 2);
    let kinds: Vec<String> = h.entries(&id).into_iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            "user_message",
            "assistant_message",
            "user_message",
            "assistant_message",
            "tool_result",
            "assistant_message"
        ],
        "{kinds:?}"
    );
    // Released at exit: the next run takes it at once.
    assert_eq!(h.store().session_lock(&id).unwrap(), None);
    server.enqueue(Reply::sse(sse::openai_text("Next.")));
    let next = h
        .run(&["-p", "next", "--resume", &id], &openai_env(&server))
        .await;
    assert_eq!(next.code, Some(0), "{next}");
    assert_calls_and_results_pair(&server.requests()[3].json());
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_killed_holder_does_not_lock_the_session_forever() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let id = first_session(&h, &server).await;
    enqueue_held_turn(&server);
    let mut holder = h
        .command(&["-p", "hold it", "--resume", &id], &openai_env(&server))
        .spawn()
        .expect("zcode starts");
    let pid = holder.id().expect("a pid");
    wait_for_file(&h.project().join("started")).await;

    // While it runs, the session is its own...
    let refused = h
        .run(&["-p", "me too", "--resume", &id], &openai_env(&server))
        .await;
    assert_eq!(refused.code, Some(1), "{refused}");
    assert!(
        refused.stderr.contains(&in_use_message(&id, pid)),
        "{refused}"
    );

    // ... but a copy can go on meanwhile.
    let copy_server = FakeModelServer::start().await;
    copy_server.enqueue(Reply::sse(sse::openai_text("In the copy.")));
    let fork = h
        .run(
            &[
                "-p",
                "go on in a copy",
                "--resume",
                &id,
                "--fork-session",
                "--output-format",
                "json",
            ],
            &openai_env(&copy_server),
        )
        .await;
    assert_eq!(fork.code, Some(0), "{fork}");
    let forked = parse_json_result(&fork);
    assert_eq!(forked["result"], "In the copy.");
    assert_ne!(forked["session_id"], id.as_str());
    let body = copy_server.requests()[0].json();
    assert_calls_and_results_pair(&body);
    let users: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert_eq!(users, ["get ready", "hold it", "go on in a copy"]);

    // kill -9: the lock stays behind, with a holder that is gone.
    // SAFETY: a plain syscall on the pid of our own child.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGKILL) }, 0);
    let status = holder.wait().await.expect("the holder is reaped");
    assert!(!status.success());
    std::fs::write(h.project().join("release"), "").unwrap();
    assert!(h.store().session_lock(&id).unwrap().is_some());

    let after = FakeModelServer::start().await;
    after.enqueue(Reply::sse(sse::openai_text("Taken over.")));
    let run = h
        .run(
            &["-p", "after the crash", "--resume", &id],
            &openai_env(&after),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout, "Taken over.\n", "{run}");
    // The killed run's call has no stored result: it is answered anyway.
    assert_calls_and_results_pair(&after.requests()[0].json());
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_damaged_session_with_stray_results_still_resumes() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let id = first_session(&h, &server).await;
    {
        // What two runs appending at once (before sessions were locked)
        // or a crash mid-call leave behind.
        use zcode::store::NewEntry;
        let mut store = h.store();
        let entry = |n: &str, kind: &str, payload: Value| {
            NewEntry::new(format!("ent_damage_{n}"), kind, payload)
        };
        let call = |id: &str| serde_json::json!({"id": id, "name": "Bash", "arguments": "{}"});
        let result = |id: &str| serde_json::json!({"callId": id, "tool": "Bash", "content": "out", "isError": false});
        for e in [
            entry("1", "tool_result", result("stray")),
            entry("2", "user_message", serde_json::json!({"text": "a"})),
            entry("3", "user_message", serde_json::json!({"text": "b"})),
            entry(
                "4",
                "assistant_message",
                serde_json::json!({"text": "", "toolCalls": [call("c_a")]}),
            ),
            entry(
                "5",
                "assistant_message",
                serde_json::json!({"text": "", "toolCalls": [call("c_b")]}),
            ),
            entry("6", "tool_result", result("c_a")),
            entry("7", "tool_result", result("c_a")),
            entry(
                "8",
                "assistant_message",
                serde_json::json!({"text": "", "toolCalls": [call("c_open")]}),
            ),
        ] {
            store.append_entry(&id, &e).unwrap();
        }
    }
    server.enqueue(Reply::sse(sse::openai_text("Repaired.")));
    let run = h
        .run(&["-p", "go on", "--resume", &id], &openai_env(&server))
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout, "Repaired.\n", "{run}");
    let body = server.requests()[1].json();
    assert_calls_and_results_pair(&body);
    let results: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["tool_call_id"].as_str())
        .collect();
    assert_eq!(results, ["c_a", "c_b", "c_open"], "{body:#}");
}

/// `/resume` of a session another process holds shows why in the UI,
/// which goes on with the session it had.
#[test]
fn fault_tui_resume_of_a_held_session_shows_who_holds_it() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let h = Harness::new();
    let server = rt.block_on(FakeModelServer::start());
    let id = rt.block_on(first_session(&h, &server));
    enqueue_held_turn(&server);
    let _guard = rt.enter();
    let mut holder = h
        .command(&["-p", "hold it", "--resume", &id], &openai_env(&server))
        .spawn()
        .expect("zcode starts");
    let pid = holder.id().expect("a pid");
    rt.block_on(wait_for_file(&h.project().join("started")));

    let mut options =
        support::pty::PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), h.home(), h.project());
    options.cols = 240;
    let mut pty = support::pty::Pty::spawn(options);
    pty.wait_for_text("offline demo provider");
    pty.submit(&format!("/resume {id}"));
    let expected = in_use_message(&id, pid);
    pty.wait_for("the in-use message", support::pty::WAIT, |s| {
        s.contents().contains(&expected)
    });
    // Still running, still usable.
    pty.submit("hello");
    pty.wait_for_text("offline demo model");
    let status = pty.quit();
    assert!(status.success(), "exit {status:?}");

    std::fs::write(h.project().join("release"), "").unwrap();
    let out = rt
        .block_on(async {
            tokio::time::timeout(support::headless::RUN_TIMEOUT, holder.wait()).await
        })
        .expect("the holder ends once released")
        .expect("the holder is reaped");
    assert!(out.success());
}

/// The terminal UI shows the failed save as an error; the UI goes on.
#[test]
fn fault_full_disk_in_the_tui_shows_the_save_error() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let h = Harness::new();
    // The database exists and the UI starts (its log then holds about
    // 30 KB); the demo's first turn needs about 160 KB more.
    let first = rt.block_on(h.run(&["-p", "get ready"], &[]));
    assert_eq!(first.code, Some(0), "{first}");
    let mut options = support::pty::PtyOptions::new("bash", h.home(), h.project());
    options.args = vec![
        "-c".into(),
        "trap '' XFSZ; ulimit -f 96; exec \"$0\"".into(),
        env!("CARGO_BIN_EXE_zcode").into(),
    ];
    options.cols = 240;
    let mut pty = support::pty::Pty::spawn(options);
    pty.wait_for_text("offline demo provider");
    pty.submit("hello");
    pty.wait_for("the save error", support::pty::WAIT, |s| {
        let text = s.contents();
        text.contains("cannot save the session: database or disk is full")
            && text.contains("ctrl+c ×2")
    });
    let status = pty.quit();
    assert!(status.success(), "exit {status:?}");
}
