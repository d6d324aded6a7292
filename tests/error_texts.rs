//! Error texts a user meets say their cause once: no
//! `Permission denied (os error 13): Permission denied (os error 13)`,
//! whether the error is shown as is or with its chain (`{:#}`, as a
//! front end that prints causes does).
//!
//! Tests run as root in CI, and root reads and writes files whatever
//! their mode bits; so each case is built from a path under a regular
//! file (ENOTDIR), which fails for root too. Where a case also has a
//! permission variant, it runs only for a normal user and says so when
//! skipped.

mod support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use zcode::config::Config;
use zcode::store::{Store, StoreError};
use zcode::tools::{EditTool, ReadTool, Tool, ToolContext, ToolOutput, WriteTool};

/// The text with its whole chain, as `{:#}` prints it.
fn with_chain(e: impl std::error::Error + Send + Sync + 'static) -> String {
    format!("{:#}", anyhow::Error::from(e))
}

/// `needle` appears exactly once, and no `: `-separated part repeats the
/// one before it.
fn assert_once(text: &str, needle: &str) {
    assert_eq!(
        text.matches(needle).count(),
        1,
        "{needle:?} once in: {text}"
    );
    let parts: Vec<&str> = text.split(": ").collect();
    for pair in parts.windows(2) {
        assert_ne!(pair[0].trim(), pair[1].trim(), "{text}");
    }
}

fn running_as_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

struct Ws {
    _dir: tempfile::TempDir,
    root: PathBuf,
    ctx: ToolContext,
    /// A regular file: any path under it fails with ENOTDIR.
    file: PathBuf,
}

fn ws() -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let file = root.join("notes.txt");
    std::fs::write(&file, "hello\n").unwrap();
    Ws {
        ctx: ToolContext::new(root.clone(), "errors"),
        _dir: dir,
        root,
        file,
    }
}

async fn call(tool: &dyn Tool, input: Value, ctx: &ToolContext) -> ToolOutput {
    match tool.validate(input) {
        Ok(input) => tool.run(input, ctx).await,
        Err(e) => ToolOutput::error(e),
    }
}

#[test]
fn ux_unreadable_config_file_says_its_cause_once() {
    let w = ws();
    let path = w.file.join("config.json");
    let err = Config::load_file(&path).unwrap_err();
    let shown = err.to_string();
    assert!(shown.contains("cannot read config file"), "{shown}");
    assert_once(&shown, "Not a directory");
    assert_once(&with_chain(err), "Not a directory");
}

#[test]
fn ux_config_file_without_permission_says_it_once() {
    if running_as_root() {
        eprintln!("skipped: root reads a file whatever its mode (the ENOTDIR case covers root)");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let w = ws();
    let path = w.root.join("config.json");
    std::fs::write(&path, "{}").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    let err = Config::load_file(&path).unwrap_err();
    assert_once(&with_chain(err), "Permission denied");
}

#[test]
fn ux_failed_mode_change_save_says_its_cause_once() {
    let w = ws();
    let store_error = match Store::open(w.file.join("db").join("sessions.db")) {
        Err(e) => e,
        Ok(_) => panic!("a database under a regular file cannot be opened"),
    };
    let store_text = store_error.to_string();
    assert_once(&with_chain(clone_store_error(&w.file)), "Not a directory");
    let err = zcode::session::execution::ModeChangeError::from(store_error);
    let text = with_chain(err);
    assert!(
        text.starts_with("could not save the mode change: "),
        "{text}"
    );
    assert_eq!(text.matches(&store_text).count(), 1, "{text}");
}

/// A second, equal store error (they do not implement `Clone`).
fn clone_store_error(file: &Path) -> StoreError {
    match Store::open(file.join("db").join("sessions.db")) {
        Err(e) => e,
        Ok(_) => unreachable!(),
    }
}

#[tokio::test]
async fn ux_read_write_edit_of_a_blocked_path_say_the_cause_once() {
    let w = ws();
    let blocked = w.file.join("inner.txt");
    let path = blocked.to_string_lossy().into_owned();
    let cases: [(&dyn Tool, Value); 3] = [
        (&ReadTool, json!({"file_path": path})),
        (&WriteTool, json!({"file_path": path, "content": "x"})),
        (
            &EditTool,
            json!({"file_path": path, "old_string": "a", "new_string": "b"}),
        ),
    ];
    for (tool, input) in cases {
        let out = call(tool, input, &w.ctx).await;
        assert!(out.is_error, "{}: {}", tool.name(), out.content);
        assert!(
            out.content.contains(&path),
            "{}: {}",
            tool.name(),
            out.content
        );
        assert!(
            out.content.matches("os error").count() <= 1,
            "{}: {}",
            tool.name(),
            out.content
        );
        assert_once(&out.content, &path);
        eprintln!("{}: {}", tool.name(), out.content);
    }
}

#[tokio::test]
async fn ux_read_and_write_without_permission_say_it_once() {
    if running_as_root() {
        eprintln!(
            "skipped: root reads and writes whatever the mode (the ENOTDIR case covers root)"
        );
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let w = ws();
    std::fs::set_permissions(&w.file, std::fs::Permissions::from_mode(0o000)).unwrap();
    let path = w.file.to_string_lossy().into_owned();
    let out = call(&ReadTool, json!({"file_path": path}), &w.ctx).await;
    assert!(out.is_error);
    assert_once(&out.content, "Permission denied");
    let locked = w.root.join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o500)).unwrap();
    let target = locked.join("new.txt").to_string_lossy().into_owned();
    let out = call(
        &WriteTool,
        json!({"file_path": target, "content": "x"}),
        &w.ctx,
    )
    .await;
    assert!(out.is_error);
    assert_once(&out.content, "Permission denied");
}

#[tokio::test(flavor = "multi_thread")]
async fn ux_cli_says_an_unreadable_config_once() {
    let h = support::headless::Harness::new();
    let file = h.home().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let mut cmd = h.command(&["-p", "hi"], &[]);
    cmd.env("ZCODE_HOME", file.join("home"));
    let out = cmd.output().await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_once(&stderr, "Not a directory");
}
