//! The TUI's flow in the real binary, in a pseudo-terminal: the quit hint
//! that expires on its own, a call waiting for approval that says so, the
//! yolo mode never carried over from the last session, the todo overlay below
//! 100 columns. Waits are on what the screen shows, never on the clock.
#![cfg(unix)]

mod support;

use serde_json::json;
use std::path::Path;
use support::fake_model_server::{FakeModelServer, Reply, sse};
use support::pty::{Pty, PtyOptions, WAIT, row_text};
use tokio::runtime::Runtime;

fn start(home: &Path, project: &Path, args: &[&str]) -> Pty {
    let mut options = PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home, project);
    for arg in args {
        options = options.arg(arg);
    }
    Pty::spawn(options)
}

/// Waits until the footer (the last row) no longer contains `text`.
fn wait_gone_from_footer(pty: &Pty, text: &str) {
    pty.wait_for(&format!("{text:?} gone from the footer"), WAIT, |s| {
        !row_text(s, -1).contains(text)
    });
}

#[test]
fn ux_the_quit_hint_disappears_without_a_key() {
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let mut pty = start(home.path(), project.path(), &[]);
    pty.wait_for_mode("build");
    pty.ctrl_c();
    pty.wait_for("the quit hint", WAIT, |s| {
        row_text(s, -1).contains("again to quit")
    });
    // No key: the hint goes by itself, and the footer is back.
    wait_gone_from_footer(&pty, "again to quit");
    pty.wait_for("the composer's hints", WAIT, |s| {
        row_text(s, -1).contains("ctrl+c ×2 quit")
    });
    // The next Ctrl+C arms again instead of quitting.
    pty.ctrl_c();
    pty.wait_for("the quit hint again", WAIT, |s| {
        row_text(s, -1).contains("again to quit")
    });
    pty.ctrl_c();
    assert!(pty.wait_exit(WAIT).success());
}

#[test]
fn exec6_yolo_is_not_carried_over_to_the_next_session_and_says_so() {
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let not_carried = "this one starts without it";
    // Shift+Tab never lands in yolo: build, edit, plan, build.
    let mut pty = start(home.path(), project.path(), &[]);
    pty.wait_for_mode("build");
    pty.shift_tab();
    pty.wait_for_mode("edit");
    pty.shift_tab();
    pty.wait_for_mode("plan");
    pty.shift_tab();
    pty.wait_for_mode("build");
    // Chosen explicitly, yolo is yolo.
    pty.submit("/mode yolo");
    pty.wait_for_mode("yolo");
    pty.wait_for_text("yolo mode: Edit and run commands");
    assert!(pty.quit().success());
    drop(pty);
    // The next start in the same project does not restore it, and says so.
    let mut pty = start(home.path(), project.path(), &[]);
    pty.wait_for_mode("build");
    pty.wait_for_text(not_carried);
    assert!(pty.quit().success());
    drop(pty);
    // Asked for with --mode: yolo, nothing to say.
    let mut pty = start(home.path(), project.path(), &["--mode", "yolo"]);
    pty.wait_for_mode("yolo");
    pty.wait_for_text("offline demo provider");
    assert!(
        !pty.screen_text().contains(not_carried),
        "{}",
        pty.screen_text()
    );
    assert!(pty.quit().success());
}

#[test]
fn ux_a_call_waiting_for_approval_says_so_in_its_cell_and_the_status_line() {
    let rt = Runtime::new().expect("a tokio runtime");
    let server = rt.block_on(FakeModelServer::start());
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let input = json!({ "command": "touch made.txt" });
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("call_1", "Bash", &input.to_string())],
        )),
        Reply::sse(sse::openai_text("Made the file.")),
    ]);
    let options = PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home.path(), project.path())
        .env("OPENAI_BASE_URL", &server.openai_base_url())
        .arg("--mode")
        .arg("build");
    let mut pty = Pty::spawn(options);
    pty.wait_for_mode("build");
    pty.submit("make the file");
    pty.wait_for_text("Allow once");
    pty.wait_for("the cell and the status line to wait", WAIT, |s| {
        let text = s.contents();
        text.contains("└ waiting for you") && row_text(s, -2).contains("waiting for you")
    });
    assert!(!pty.screen_text().contains("└ running"));
    pty.send("1");
    pty.wait_for_text("Made the file.");
    pty.wait_for("the turn to end", WAIT, |s| {
        s.contents().contains("ctrl+c ×2")
    });
    assert!(!pty.row(-2).contains("waiting for you"));
    assert!(pty.quit().success());
}

#[test]
fn ux_ctrl_t_opens_the_todo_overlay_on_a_narrow_terminal() {
    let rt = Runtime::new().expect("a tokio runtime");
    let server = rt.block_on(FakeModelServer::start());
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let todos = json!({"todos": [
        {"content": "Read the parser", "status": "completed", "priority": "medium"},
        {"content": "Write the fix", "status": "in_progress", "priority": "medium"},
        {"content": "Run the tests", "status": "pending", "priority": "medium"},
    ]});
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("call_1", "TodoWrite", &todos.to_string())],
        )),
        Reply::sse(sse::openai_text("Planned.")),
    ]);
    let mut options = PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home.path(), project.path())
        .env("OPENAI_BASE_URL", &server.openai_base_url());
    options.cols = 80;
    let mut pty = Pty::spawn(options);
    pty.wait_for_mode("build");
    pty.submit("plan the work");
    pty.wait_for_text("Planned.");
    pty.wait_for("the progress in the status line", WAIT, |s| {
        row_text(s, -2).contains("todos 1/3")
    });
    assert!(!pty.screen_text().contains("Write the fix"));
    pty.send([0x14]); // Ctrl+T
    pty.wait_for_text("Write the fix");
    pty.wait_for("the overlay's footer", WAIT, |s| {
        row_text(s, -1).contains("esc close")
    });
    pty.send("\x1b");
    pty.wait_for("the overlay to close", WAIT, |s| {
        !s.contents().contains("Write the fix")
    });
    assert!(pty.quit().success());
}
