//! Files through the editor: a client that offers `fs/read_text_file` and
//! `fs/write_text_file` serves its unsaved buffer to Read and takes Edit's
//! and Write's result, and the disk is left alone; permission decisions
//! are unchanged; a client without the capability is never asked.

#![cfg(unix)]

mod support;

use serde_json::json;
use std::path::{Path, PathBuf};
use support::acp_client::{
    AcpClient, ClientOptions, acp_setup, diff_of, last_tool_result, read_reply, text_reply,
    tool_reply, write_reply,
};
use support::fake_model_server::FakeModelServer;
use support::headless::Harness;

const DISK: &str = "disk text\n";
const BUFFER: &str = "buffer text, not saved\n";

async fn setup() -> (Harness, FakeModelServer) {
    let (h, server) = acp_setup(json!({"permission": {"mode": "build"}})).await;
    std::fs::write(h.project().join("notes.txt"), DISK).unwrap();
    (h, server)
}

/// The file's path as the project's path spells it and canonically (they
/// differ where the temporary directory is behind a link).
fn spellings(h: &Harness, name: &str) -> Vec<PathBuf> {
    let plain = h.project().join(name);
    let canonical = std::fs::canonicalize(h.project()).unwrap().join(name);
    if plain == canonical {
        vec![plain]
    } else {
        vec![plain, canonical]
    }
}

/// An editor with `notes.txt` open and changed.
fn editor_with_buffer(h: &Harness) -> ClientOptions {
    let mut options = ClientOptions::editor();
    for path in spellings(h, "notes.txt") {
        options = options.buffer(path, BUFFER);
    }
    options
}

fn is_file(path: &Path, h: &Harness, name: &str) -> bool {
    spellings(h, name).iter().any(|p| p == path)
}

/// The model reads `notes.txt` (`r1`), changes "not saved" to "edited"
/// (`e1`), then says `closing`.
fn script_read_then_edit(server: &FakeModelServer, closing: &str) {
    server.enqueue_all([
        read_reply("r1", "notes.txt"),
        tool_reply(
            "e1",
            "Edit",
            r#"{"file_path":"notes.txt","old_string":"not saved","new_string":"edited"}"#,
        ),
        text_reply(closing),
    ]);
}

#[tokio::test(flavor = "multi_thread")]
async fn fs_read_returns_the_editor_buffer_not_the_disk() {
    let (h, server) = setup().await;
    server.enqueue_all([read_reply("r1", "notes.txt"), text_reply("Read.")]);
    let (client, session) = AcpClient::start_with_session(&h, editor_with_buffer(&h)).await;
    assert_eq!(client.run_turn(&session, "read notes").await, "end_turn");
    let result = last_tool_result(&server, "r1");
    assert!(result.contains("buffer text, not saved"), "{result}");
    assert!(!result.contains("disk text"), "{result}");
    let reads = client.fs_reads();
    assert!(
        reads.iter().any(|p| is_file(p, &h, "notes.txt")),
        "{reads:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn fs_edit_lands_in_the_editor_and_the_disk_is_untouched() {
    let (h, server) = setup().await;
    script_read_then_edit(&server, "Edited.");
    let (client, session) = AcpClient::start_with_session(&h, editor_with_buffer(&h)).await;
    client.set_mode(&session, "edit").await;
    assert_eq!(client.run_turn(&session, "edit notes").await, "end_turn");
    let writes = client.fs_writes();
    let (path, content) = writes
        .last()
        .unwrap_or_else(|| panic!("an fs/write_text_file\n{}", client.diagnostics()));
    assert!(is_file(path, &h, "notes.txt"), "{path:?}");
    assert_eq!(content, "buffer text, edited\n");
    assert_eq!(
        std::fs::read_to_string(h.project().join("notes.txt")).unwrap(),
        DISK,
        "the disk is untouched"
    );
    assert!(!last_tool_result(&server, "e1").contains("NOT executed"));
    // The client is told the change as a diff of the buffer.
    let diff = diff_of(&client.updates_of("tool_call_update"), "e1")
        .unwrap_or_else(|| panic!("a diff: {:#?}", client.updates()));
    // The whole buffer or the changed part, as long as it is the buffer's.
    let old = diff["oldText"].as_str().unwrap_or_default();
    let new = diff["newText"].as_str().unwrap_or_default();
    assert!(
        old.contains("not saved") && !old.contains("disk"),
        "{diff:#}"
    );
    assert!(
        new.contains("edited") && !new.contains("not saved"),
        "{diff:#}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn fs_write_goes_through_the_client() {
    let (h, server) = setup().await;
    server.enqueue_all([
        write_reply("w1", "new.txt", "fresh\n"),
        text_reply("Written."),
    ]);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::editor()).await;
    client.set_mode(&session, "edit").await;
    assert_eq!(client.run_turn(&session, "write new").await, "end_turn");
    let writes = client.fs_writes();
    assert!(
        writes
            .iter()
            .any(|(p, c)| is_file(p, &h, "new.txt") && c == "fresh\n"),
        "{writes:?}\n{}",
        client.diagnostics()
    );
    assert!(!h.project().join("new.txt").exists(), "not written to disk");
}

#[tokio::test(flavor = "multi_thread")]
async fn fs_through_the_client_permission_is_unchanged_a_denied_edit_writes_nothing() {
    let (h, server) = setup().await;
    script_read_then_edit(&server, "Stopped.");
    let (client, session) = AcpClient::start_with_session(&h, editor_with_buffer(&h)).await;
    let turn = client.prompt(&session, "edit notes");
    let ask = client.next_permission().await;
    assert_eq!(ask.tool_call_id(), "e1", "build asks before an edit");
    ask.select("deny");
    // This editor has forms: it is asked what to do instead, and declines.
    client.next_elicitation().await.decline();
    assert_eq!(turn.stop_reason().await, "end_turn");
    assert!(client.fs_writes().is_empty(), "{:?}", client.fs_writes());
    assert_eq!(
        client.buffer(&spellings(&h, "notes.txt")[0]).unwrap(),
        BUFFER
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn fs_protected_path_is_still_refused_or_asked_through_the_client() {
    let (h, server) = setup().await;
    std::fs::create_dir_all(h.project().join(".git")).unwrap();
    std::fs::write(h.project().join(".git/config"), "[core]\n").unwrap();
    server.enqueue_all([
        write_reply("w1", ".git/config", "[core]\n\tfsmonitor = evil\n"),
        text_reply("Stopped."),
    ]);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::editor()).await;
    // Yolo: only a protected path can still stop a write.
    client.set_mode(&session, "yolo").await;
    let turn = client.prompt(&session, "configure git");
    // Either refused outright or asked; if asked, deny.
    tokio::select! {
        ask = client.next_permission() => ask.select("deny"),
        _ = client.wait_tool_status("w1", "failed") => {}
    }
    client.wait_tool_status("w1", "failed").await;
    assert_eq!(turn.stop_reason().await, "end_turn");
    assert!(client.fs_writes().is_empty(), "{:?}", client.fs_writes());
    assert_eq!(
        std::fs::read_to_string(h.project().join(".git/config")).unwrap(),
        "[core]\n"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn fs_client_error_is_a_tool_error_naming_the_file() {
    let (h, server) = setup().await;
    server.enqueue_all([
        read_reply("r1", "missing-in-editor.txt"),
        text_reply("Could not."),
    ]);
    std::fs::write(h.project().join("missing-in-editor.txt"), "on disk only\n").unwrap();
    // The editor knows no such buffer and answers with an error.
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::editor()).await;
    assert_eq!(client.run_turn(&session, "read it").await, "end_turn");
    let result = last_tool_result(&server, "r1");
    assert!(result.contains("missing-in-editor.txt"), "{result}");
    client.wait_tool_status("r1", "failed").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn fs_client_without_the_capability_is_never_asked_and_the_disk_is_used() {
    let (h, server) = setup().await;
    server.enqueue_all([
        read_reply("r1", "notes.txt"),
        write_reply("w1", "out.txt", "on disk\n"),
        text_reply("Done."),
    ]);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::with_forms()).await;
    client.set_mode(&session, "edit").await;
    assert_eq!(
        client.run_turn(&session, "read and write").await,
        "end_turn"
    );
    assert!(last_tool_result(&server, "r1").contains("disk text"));
    assert_eq!(
        std::fs::read_to_string(h.project().join("out.txt")).unwrap(),
        "on disk\n"
    );
    assert!(client.fs_reads().is_empty() && client.fs_writes().is_empty());
    assert!(
        client.other_requests().is_empty(),
        "{:?}",
        client.other_requests()
    );
}
