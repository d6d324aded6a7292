//! Read, Edit and Write with an editor serving file contents: its buffer,
//! which differs from the disk, is what they read and change.

use super::client_files::ClientFiles;
use super::client_files::fake::FakeClient;
use super::{EditTool, ReadTool, Tool, ToolContext, ToolOutput, WriteTool};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// A guard against a hang only: every test here ends without waiting.
const NO_HANG: Duration = Duration::from_secs(10);

struct Ws {
    _dir: tempfile::TempDir,
    root: PathBuf,
    client: Arc<FakeClient>,
    ctx: ToolContext,
}

/// A workspace with `a.txt` on disk ("disk line") and, in the editor, an
/// unsaved buffer of it ("buffer line").
fn ws_with(client: FakeClient) -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("a.txt"), "disk line\n").unwrap();
    let client = Arc::new(client.with_buffer(&root.join("a.txt"), "buffer line\n"));
    let mut ctx = ToolContext::new(root.clone(), "client-files");
    ctx.client_files = Some(client.clone() as Arc<dyn ClientFiles>);
    Ws {
        _dir: dir,
        root,
        client,
        ctx,
    }
}

fn ws() -> Ws {
    ws_with(FakeClient::reading_and_writing())
}

impl Ws {
    fn disk(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    async fn run(&self, tool: &dyn Tool, input: Value) -> ToolOutput {
        let input = tool.validate(input).unwrap();
        tokio::time::timeout(NO_HANG, tool.run(input, &self.ctx))
            .await
            .expect("the call ends")
    }

    async fn read_a(&self) -> ToolOutput {
        self.run(&ReadTool, json!({"file_path": "a.txt"})).await
    }
}

fn edit_a(old: &str, new: &str) -> Value {
    json!({"file_path": "a.txt", "old_string": old, "new_string": new})
}

#[tokio::test]
async fn read_returns_the_editor_buffer_not_the_disk() {
    let w = ws();
    let out = w.read_a().await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(out.content, "     1\tbuffer line\n");
}

#[tokio::test]
async fn edit_applies_to_the_buffer_and_writes_through_the_editor() {
    let w = ws();
    w.read_a().await;
    let input = EditTool.validate(edit_a("buffer", "edited")).unwrap();
    // Checked and previewed against the buffer read, before it runs.
    assert_eq!(EditTool.precheck(&input, &w.ctx), Ok(()));
    let preview = EditTool.preview(&input, &w.ctx).unwrap();
    assert!(preview.contains("+edited line"), "{preview}");
    let out = w.run(&EditTool, edit_a("buffer", "edited")).await;
    assert!(!out.is_error, "{}", out.content);
    let path = w.root.join("a.txt");
    assert_eq!(w.client.writes(), vec![(path, "edited line\n".to_string())]);
    assert_eq!(w.disk("a.txt"), "disk line\n");
    // The edit's own result counts as read: a second edit needs no Read.
    let again = w.run(&EditTool, edit_a("edited", "again")).await;
    assert!(!again.is_error, "{}", again.content);
}

#[tokio::test]
async fn edit_of_text_only_on_disk_is_not_found_in_the_buffer() {
    let w = ws();
    w.read_a().await;
    let input = EditTool.validate(edit_a("disk", "x")).unwrap();
    assert!(EditTool.precheck(&input, &w.ctx).is_err());
    let out = w.run(&EditTool, edit_a("disk", "x")).await;
    assert!(out.is_error);
    assert!(
        out.content.contains("old_string was not found"),
        "{}",
        out.content
    );
    assert!(w.client.writes().is_empty());
}

/// TOOL-2 with an editor: the guard compares the buffer now with the
/// buffer read, whatever the disk does.
#[tokio::test]
async fn a_buffer_changed_in_the_editor_since_the_read_is_not_overwritten() {
    let w = ws();
    w.read_a().await;
    let path = w.root.join("a.txt");
    w.client
        .buffers
        .lock()
        .unwrap()
        .insert(path.clone(), "buffer line, typed on\n".into());
    let edit = w.run(&EditTool, edit_a("buffer", "edited")).await;
    assert!(edit.is_error);
    assert!(
        edit.content.contains("changed in the editor"),
        "{}",
        edit.content
    );
    let write = w
        .run(
            &WriteTool,
            json!({"file_path": "a.txt", "content": "new\n"}),
        )
        .await;
    assert!(write.is_error);
    assert!(
        write.content.contains("changed in the editor"),
        "{}",
        write.content
    );
    assert!(w.client.writes().is_empty());
    // A change on disk alone does not matter: the buffer is what was read.
    w.read_a().await;
    std::fs::write(&path, "disk line, changed\n").unwrap();
    let edit = w.run(&EditTool, edit_a("typed on", "done")).await;
    assert!(!edit.is_error, "{}", edit.content);
}

#[tokio::test]
async fn edit_and_write_of_an_unread_file_are_refused_as_without_an_editor() {
    let w = ws();
    let edit = w.run(&EditTool, edit_a("buffer", "edited")).await;
    assert!(edit.is_error);
    assert!(edit.content.contains("was not read"), "{}", edit.content);
    let write = w
        .run(
            &WriteTool,
            json!({"file_path": "a.txt", "content": "new\n"}),
        )
        .await;
    assert!(write.is_error);
    assert!(write.content.contains("was not read"), "{}", write.content);
    let input = WriteTool
        .validate(json!({"file_path": "a.txt", "content": "new\n"}))
        .unwrap();
    assert!(WriteTool.precheck(&input, &w.ctx).is_err());
    assert!(w.client.writes().is_empty());
}

#[tokio::test]
async fn write_goes_through_the_editor() {
    let w = ws();
    w.read_a().await;
    let input = WriteTool
        .validate(json!({"file_path": "a.txt", "content": "whole\n"}))
        .unwrap();
    let preview = WriteTool.preview(&input, &w.ctx).unwrap();
    assert!(preview.contains("-buffer line"), "{preview}");
    let out = w
        .run(
            &WriteTool,
            json!({"file_path": "a.txt", "content": "whole\n"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        out.diff.as_deref().map(|d| d.contains("-buffer line")),
        Some(true)
    );
    let created = w
        .run(
            &WriteTool,
            json!({"file_path": "new/b.txt", "content": "b\n"}),
        )
        .await;
    assert!(
        created.content.starts_with("Created"),
        "{}",
        created.content
    );
    assert_eq!(
        w.client.writes(),
        vec![
            (w.root.join("a.txt"), "whole\n".to_string()),
            (w.root.join("new/b.txt"), "b\n".to_string()),
        ]
    );
    assert_eq!(w.disk("a.txt"), "disk line\n");
    assert!(!w.root.join("new").exists());
    // Written through the editor, not yet on disk: it is still the editor's
    // file, read and changed there.
    let edit = w
        .run(
            &EditTool,
            json!({"file_path": "new/b.txt", "old_string": "b", "new_string": "c"}),
        )
        .await;
    assert!(!edit.is_error, "{}", edit.content);
    assert_eq!(w.client.buffer(&w.root.join("new/b.txt")).unwrap(), "c\n");
}

#[tokio::test]
async fn editor_errors_are_tool_errors_naming_the_file() {
    let w = ws_with(FakeClient {
        fail: Some("buffer is locked".into()),
        ..FakeClient::reading_and_writing()
    });
    let path = w.root.join("a.txt").display().to_string();
    let read = w.read_a().await;
    assert!(read.is_error);
    assert_eq!(
        read.content,
        format!("The editor could not read {path}: buffer is locked")
    );
    // Writing fails the same way (a client that only writes).
    let w = ws_with(FakeClient {
        write: true,
        fail: Some("read-only buffer".into()),
        ..FakeClient::default()
    });
    let path = w.root.join("a.txt").display().to_string();
    assert!(!w.read_a().await.is_error); // from disk
    let edit = w.run(&EditTool, edit_a("disk", "edited")).await;
    assert!(edit.is_error);
    assert_eq!(
        edit.content,
        format!("The editor could not write {path}: read-only buffer")
    );
    assert_eq!(w.disk("a.txt"), "disk line\n");
}

#[tokio::test]
async fn binary_files_stay_on_disk() {
    let w = ws_with(FakeClient {
        fail: Some("not asked".into()),
        ..FakeClient::reading_and_writing()
    });
    std::fs::write(w.root.join("blob.bin"), [0u8, 159, 146, 150]).unwrap();
    let out = w.run(&ReadTool, json!({"file_path": "blob.bin"})).await;
    assert!(out.is_error);
    assert!(out.content.contains("binary file"), "{}", out.content);
    // A notebook is read and written on disk, never through the editor.
    let notebook = json!({"file_path": "n.ipynb", "content": "{\"cells\": []}\n"});
    let out = w.run(&WriteTool, notebook).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(w.disk("n.ipynb"), "{\"cells\": []}\n");
    let out = w.run(&ReadTool, json!({"file_path": "n.ipynb"})).await;
    assert_eq!(out.content, "     1\t{\"cells\": []}\n");
    let edit = json!({"file_path": "n.ipynb", "old_string": "[]", "new_string": "[1]"});
    let out = w.run(&EditTool, edit).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(w.disk("n.ipynb"), "{\"cells\": [1]}\n");
}

#[tokio::test]
async fn a_file_missing_everywhere_is_said_not_to_exist() {
    let w = ws();
    let out = w.run(&ReadTool, json!({"file_path": "gone.txt"})).await;
    assert!(out.is_error);
    let path = w.root.join("gone.txt").display().to_string();
    assert_eq!(
        out.content,
        format!("File does not exist: {path} (the editor could not read it: no such buffer)")
    );
}

/// A client that reads but does not write: the buffer is edited and the
/// result lands on disk.
#[tokio::test]
async fn a_client_that_only_reads_gets_edits_written_to_disk() {
    let w = ws_with(FakeClient {
        read: true,
        ..FakeClient::default()
    });
    w.read_a().await;
    let out = w.run(&EditTool, edit_a("buffer", "edited")).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(w.disk("a.txt"), "edited line\n");
    assert!(w.client.writes().is_empty());
}

/// RUN-2: a client that never answers does not hold a cancelled call.
#[tokio::test]
async fn cancelling_while_the_editor_hangs_returns_promptly() {
    for (tool, input) in [
        (&ReadTool as &dyn Tool, json!({"file_path": "a.txt"})),
        (&EditTool, edit_a("buffer", "edited")),
        (&WriteTool, json!({"file_path": "c.txt", "content": "c\n"})),
    ] {
        let w = ws_with(FakeClient {
            hang: true,
            ..FakeClient::reading_and_writing()
        });
        // Read before the client hangs, for Edit's guard.
        w.ctx
            .lock_files()
            .record_text(&w.root.join("a.txt"), "buffer line\n");
        let input = tool.validate(input).unwrap();
        let called = w.client.called.clone();
        let cancel = w.ctx.cancel.clone();
        let (out, ()) = tokio::time::timeout(NO_HANG, async {
            tokio::join!(tool.run(input, &w.ctx), async move {
                called.notified().await;
                cancel.cancel();
            })
        })
        .await
        .expect("the cancelled call ends");
        assert!(out.is_error, "{}", out.content);
        assert!(out.content.contains("was interrupted"), "{}", out.content);
        assert_eq!(w.disk("a.txt"), "disk line\n");
    }
}
