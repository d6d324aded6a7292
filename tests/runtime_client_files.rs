//! An editor serving file contents (ACP's client file system) in the
//! running agent: the permission decisions and protected paths (PERM-10)
//! are the same as without it, and sub-agents read the same buffers.

#![cfg(unix)]

mod support;

use futures_util::future::BoxFuture;
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use support::runtime_harness::{Dialect, Setup};
use support::sub_agent_script;
use zcode::permission::mode::Mode;
use zcode::protocol::{Event, PermissionReply, TurnEnd};
use zcode::tools::ClientFiles;

/// An editor with unsaved buffers; it records what it was asked to write.
#[derive(Debug, Default)]
struct Editor {
    buffers: Mutex<HashMap<PathBuf, String>>,
    writes: Mutex<Vec<PathBuf>>,
}

impl Editor {
    fn open(&self, path: &Path, text: &str) {
        self.buffers
            .lock()
            .unwrap()
            .insert(path.to_path_buf(), text.to_string());
    }

    fn writes(&self) -> Vec<PathBuf> {
        self.writes.lock().unwrap().clone()
    }
}

impl ClientFiles for Editor {
    fn can_read(&self) -> bool {
        true
    }

    fn can_write(&self) -> bool {
        true
    }

    fn read_text(&self, path: &Path) -> BoxFuture<'_, Result<String, String>> {
        let text = self.buffers.lock().unwrap().get(path).cloned();
        Box::pin(async move { text.ok_or_else(|| "not open".to_string()) })
    }

    fn write_text(&self, path: &Path, content: &str) -> BoxFuture<'_, Result<(), String>> {
        self.open(path, content);
        self.writes.lock().unwrap().push(path.to_path_buf());
        Box::pin(async { Ok(()) })
    }
}

/// PERM-10: edit mode allows an edit in the workspace and still asks
/// about `.git/config`, when the editor holds both files; a denied edit
/// never reaches the editor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perm10_a_protected_file_is_asked_about_when_the_editor_serves_it() {
    let editor = Arc::new(Editor::default());
    let mut h = Setup::new(Dialect::OpenAi, Mode::Edit)
        .client_files(editor.clone())
        .start()
        .await;
    let config = h.workspace.join(".git/config");
    std::fs::create_dir_all(h.workspace.join(".git")).unwrap();
    std::fs::write(&config, "[core]\n").unwrap();
    std::fs::write(h.workspace.join("notes.txt"), "old notes\n").unwrap();
    editor.open(&config, "[core]\n\tbare = false\n");
    editor.open(&h.workspace.join("notes.txt"), "unsaved notes\n");
    let read = |path: &str| json!({ "file_path": path }).to_string();
    h.enqueue_tool_calls(&[
        ("r1", "Read", &read(".git/config")),
        ("r2", "Read", &read("notes.txt")),
    ]);
    let edit_config = json!({
        "file_path": ".git/config",
        "old_string": "bare = false",
        "new_string": "fsmonitor = touch pwned",
    })
    .to_string();
    let edit_notes = json!({
        "file_path": "notes.txt",
        "old_string": "unsaved",
        "new_string": "edited",
    })
    .to_string();
    h.enqueue_tool_calls(&[("e1", "Edit", &edit_config), ("e2", "Edit", &edit_notes)]);
    h.enqueue_text("done");
    h.input("configure git and fix the notes");

    let request = h.permission_request().await;
    assert_eq!(request.call_id, "e1");
    assert_eq!(request.rule_id, "edit.protectedPath");
    // The approval shows the change to the buffer the model read.
    let preview = request.preview.clone().unwrap_or_default();
    assert!(preview.contains("+\tfsmonitor = touch pwned"), "{preview}");
    h.reply(
        &request.request_id,
        PermissionReply::Deny { feedback: None },
    );
    assert_eq!(
        h.turn_finished().await.0,
        TurnEnd::Completed,
        "{}",
        h.log_text()
    );

    assert_eq!(
        h.count(|e| matches!(e, Event::PermissionRequested { .. })),
        1,
        "{}",
        h.log_text()
    );
    assert_eq!(editor.writes(), vec![h.workspace.join("notes.txt")]);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "[core]\n");
    assert_eq!(
        std::fs::read_to_string(h.workspace.join("notes.txt")).unwrap(),
        "old notes\n"
    );
    let reads = h.tool_results(1);
    assert!(
        reads[0].content.contains("bare = false"),
        "{}",
        reads[0].content
    );
    assert!(
        reads[1].content.contains("unsaved notes"),
        "{}",
        reads[1].content
    );
    h.shutdown().await;
}

/// A sub-agent reads through the same editor as its parent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agent_reads_the_editor_buffer() {
    let editor = Arc::new(Editor::default());
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build)
        .client_files(editor.clone())
        .start()
        .await;
    let lib = h.workspace.join("lib.rs");
    std::fs::write(&lib, "fn on_disk() {}\n").unwrap();
    editor.open(&lib, "fn alpha_unsaved() {}\n");
    let read = json!({ "file_path": "lib.rs" }).to_string();
    let mut scripts = HashMap::new();
    scripts.insert(
        "alpha".to_string(),
        vec![
            h.tool_calls_reply(&[("s1", "Read", &read)]),
            h.text_reply("alpha is in lib.rs"),
        ],
    );
    sub_agent_script::route(&h.server, scripts);
    sub_agent_script::enqueue_agent_calls(&h.server, &[("a1", "explore", "alpha")]);
    h.enqueue_text("done");
    h.input("find alpha");
    assert_eq!(
        h.turn_finished().await.0,
        TurnEnd::Completed,
        "{}",
        h.log_text()
    );
    let read_output = h.log.iter().find_map(|e| match e {
        Event::SubAgentEvent { event, .. } => match &**event {
            Event::ToolCallFinished { tool, output, .. } if tool == "Read" => Some(output.clone()),
            _ => None,
        },
        _ => None,
    });
    assert_eq!(
        read_output.as_deref(),
        Some("     1\tfn alpha_unsaved() {}\n"),
        "{}",
        h.log_text()
    );
    h.shutdown().await;
}
