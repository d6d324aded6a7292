//! Faults the workspace tools must turn into tool errors: inputs that make
//! a library panic, paths that are not regular files (FIFOs, devices), and
//! work that must stop when the turn is cancelled.

#![cfg(unix)]

mod support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;
use zcode::tools::{
    EditTool, GlobTool, GrepTool, ReadTool, Tool, ToolContext, ToolOutput, WriteTool,
};

/// Far longer than any of these calls takes, far shorter than "forever".
const NO_HANG: Duration = Duration::from_secs(10);

struct Ws {
    _dir: tempfile::TempDir,
    root: PathBuf,
    ctx: ToolContext,
}

fn ws() -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let ctx = ToolContext::new(root.clone(), "faults-test");
    Ws {
        _dir: dir,
        root,
        ctx,
    }
}

/// A FIFO at `path`: opening it for reading blocks until a writer comes.
fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o644) };
    assert_eq!(rc, 0, "mkfifo {}", path.display());
}

/// Validates then runs the call, as the pipeline does; a validation error
/// is returned as the tool error it becomes.
async fn call(tool: &dyn Tool, input: Value, ctx: &ToolContext) -> ToolOutput {
    let run = async {
        match tool.validate(input) {
            Ok(input) => tool.run(input, ctx).await,
            Err(e) => ToolOutput::error(e),
        }
    };
    tokio::time::timeout(NO_HANG, run)
        .await
        .unwrap_or_else(|_| panic!("{} did not finish within {NO_HANG:?}", tool.name()))
}

fn nested_braces(depth: usize) -> String {
    format!("{}a{}", "{".repeat(depth), "}".repeat(depth))
}

#[tokio::test]
async fn fault_glob_nested_braces_is_a_tool_error() {
    let w = ws();
    std::fs::write(w.root.join("a"), "x").unwrap();
    let input = json!({"pattern": nested_braces(300)});
    let validated = std::panic::AssertUnwindSafe(async { GlobTool.validate(input.clone()) });
    let validated = futures_util::FutureExt::catch_unwind(validated).await;
    let validated = validated.expect("Glob's validation must not panic");
    let err = validated.expect_err("300 nested braces are refused");
    assert!(err.contains("nest"), "{err}");
    // run() validates again on its own: a direct run is refused the same way.
    let out = GlobTool.run(input, &w.ctx).await;
    assert!(out.is_error, "{out:?}");
    assert!(out.content.contains("nest"), "{}", out.content);
}

#[tokio::test]
async fn fault_grep_glob_nested_braces_is_a_tool_error() {
    let w = ws();
    let input = json!({"pattern": "x", "glob": nested_braces(300)});
    let validated = std::panic::catch_unwind(|| GrepTool.validate(input.clone()))
        .expect("Grep's validation must not panic");
    let err = validated.expect_err("300 nested braces are refused");
    assert!(err.contains("nest"), "{err}");
    let out = GrepTool.run(input, &w.ctx).await;
    assert!(out.is_error && out.content.contains("nest"), "{out:?}");
}

#[tokio::test]
async fn fault_glob_moderate_nesting_still_works() {
    let w = ws();
    std::fs::write(w.root.join("a"), "x").unwrap();
    let deepest = nested_braces(zcode::tools::glob::MAX_BRACE_DEPTH);
    let out = call(&GlobTool, json!({"pattern": deepest}), &w.ctx).await;
    assert!(!out.is_error, "{out:?}");
    assert!(
        out.content
            .contains(&w.root.join("a").display().to_string()),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn fault_read_of_a_fifo_is_refused_without_blocking() {
    let w = ws();
    let fifo = w.root.join("pipe");
    mkfifo(&fifo);
    let out = call(&ReadTool, json!({"file_path": fifo}), &w.ctx).await;
    assert!(out.is_error, "{out:?}");
    assert!(
        out.content.contains("not a regular file"),
        "{}",
        out.content
    );
    assert!(out.content.contains("FIFO"), "{}", out.content);
}

#[tokio::test]
async fn fault_read_of_a_character_device_is_refused() {
    let w = ws();
    let out = call(&ReadTool, json!({"file_path": "/dev/zero"}), &w.ctx).await;
    assert!(out.is_error, "{out:?}");
    assert!(
        out.content.contains("not a regular file"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn fault_edit_write_and_previews_of_a_fifo_do_not_block() {
    let w = ws();
    let fifo = w.root.join("pipe");
    mkfifo(&fifo);
    let edit = json!({"file_path": fifo, "old_string": "a", "new_string": "b"});
    let preview = tokio::time::timeout(NO_HANG, async { EditTool.preview(&edit, &w.ctx) });
    assert_eq!(preview.await.expect("Edit's preview returns"), None);
    let write = json!({"file_path": fifo, "content": "b"});
    let preview = tokio::time::timeout(NO_HANG, async { WriteTool.preview(&write, &w.ctx) });
    let shown = preview.await.expect("Write's preview returns");
    assert!(shown.is_some(), "a preview as for a new file");
    let out = call(&EditTool, edit, &w.ctx).await;
    assert!(out.is_error, "{out:?}");
    let out = call(&WriteTool, write, &w.ctx).await;
    assert!(out.is_error, "{out:?}");
    // The FIFO is still a FIFO: nothing was written over it.
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
}

#[tokio::test]
async fn fault_grep_of_a_fifo_path_is_refused_and_a_walk_skips_fifos() {
    let w = ws();
    std::fs::write(w.root.join("a.txt"), "needle\n").unwrap();
    let fifo = w.root.join("pipe");
    mkfifo(&fifo);
    let out = call(
        &GrepTool,
        json!({"pattern": "needle", "path": fifo}),
        &w.ctx,
    )
    .await;
    assert!(out.is_error, "{out:?}");
    assert!(
        out.content.contains("not a regular file"),
        "{}",
        out.content
    );
    let out = call(&GrepTool, json!({"pattern": "needle"}), &w.ctx).await;
    assert!(!out.is_error, "{out:?}");
    assert!(out.content.contains("a.txt"), "{}", out.content);
    // A symlink to the FIFO is skipped as well.
    std::os::unix::fs::symlink(&fifo, w.root.join("link")).unwrap();
    let out = call(
        &GrepTool,
        json!({"pattern": "needle", "glob": "link"}),
        &w.ctx,
    )
    .await;
    assert!(!out.is_error, "{out:?}");
    assert!(out.content.starts_with("No matches"), "{}", out.content);
}

#[tokio::test]
async fn fault_cancelled_search_returns_promptly() {
    let w = ws();
    // Enough files that a search takes a while, in a deep tree.
    for d in 0..40 {
        let dir = w.root.join(format!("d{d}"));
        std::fs::create_dir(&dir).unwrap();
        for f in 0..50 {
            std::fs::write(dir.join(format!("f{f}.txt")), "hay\n").unwrap();
        }
    }
    w.ctx.cancel.cancel();
    for (tool, input) in [
        (&GrepTool as &dyn Tool, json!({"pattern": "hay"})),
        (&GlobTool as &dyn Tool, json!({"pattern": "**/*.txt"})),
    ] {
        let out = call(tool, input, &w.ctx).await;
        assert!(out.is_error, "{out:?}");
        assert!(out.content.contains("interrupted"), "{}", out.content);
    }
}

#[tokio::test]
async fn fault_tool_io_errors_are_said_once() {
    let w = ws();
    std::fs::write(w.root.join("file"), "x\n").unwrap();
    let under = w.root.join("file/inner").display().to_string();
    let calls: Vec<(&dyn Tool, Value)> = vec![
        (&ReadTool, json!({"file_path": under})),
        (
            &EditTool,
            json!({"file_path": under, "old_string": "a", "new_string": "b"}),
        ),
        (
            &WriteTool,
            json!({"file_path": format!("{under}/new.txt"), "content": "b"}),
        ),
        (&GlobTool, json!({"pattern": "*", "path": under})),
        (&GrepTool, json!({"pattern": "x", "path": under})),
    ];
    for (tool, input) in calls {
        let out = call(tool, input, &w.ctx).await;
        assert!(out.is_error, "{}: {out:?}", tool.name());
        let io = "Not a directory (os error 20)";
        assert!(
            out.content.matches(io).count() <= 1,
            "{}: {}",
            tool.name(),
            out.content
        );
    }
}

/// Waits (boundedly) for a file to appear.
async fn appears(path: &Path) -> bool {
    support::wait::until(NO_HANG, || path.exists()).await
}

#[tokio::test]
async fn fault_background_output_after_the_call_does_not_kill_the_process() {
    use zcode::tools::BashTool;
    let w = ws();
    // The child writes to the call's pipe after the call returned (it waits
    // for the test to say so); with the pipe's read end closed that write
    // would kill it (SIGPIPE) before it gets to `touch`.
    let command = "sh -c 'while [ ! -e go ]; do sleep 0.05; done; echo late; touch wrote; sleep 300' & echo started";
    let out = call(&BashTool, json!({ "command": command }), &w.ctx).await;
    assert!(!out.is_error, "{out:?}");
    assert!(out.content.starts_with("started"), "{}", out.content);
    std::fs::write(w.root.join("go"), "").unwrap();
    assert!(
        appears(&w.root.join("wrote")).await,
        "the background process died writing its output"
    );
    // Dropping the context ends what the command left running.
    let left = w.ctx.processes.scan();
    assert!(!left.is_empty());
    drop(w);
    for p in left {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", p.pid)).unwrap_or_default();
        let alive = stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'));
        assert!(!alive, "pid {} survived its session", p.pid);
    }
}
