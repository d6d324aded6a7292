//! The real TUI in a pseudo-terminal: a command's background process is
//! counted in the status line and ended when the user quits.
#![cfg(target_os = "linux")]

mod support;

use serde_json::json;
use support::fake_model_server::{FakeModelServer, Reply, openai_tool_result, sse};
use support::pty::{Pty, PtyOptions, WAIT};

fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X'))
    })
}

#[test]
fn fault_tui_shows_background_processes_and_quit_ends_them() {
    let rt = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let server = rt.block_on(FakeModelServer::start());
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let input = json!({ "command": "sleep 300 & echo bg=$!" });
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("call_1", "Bash", &input.to_string())],
        )),
        Reply::sse(sse::openai_text("It runs.")),
    ]);
    let options = PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home.path(), project.path())
        .env("OPENAI_BASE_URL", &server.openai_base_url())
        .arg("--mode")
        .arg("yolo");
    let mut pty = Pty::spawn(options);
    pty.wait_for_mode("yolo");
    pty.submit("start a sleep");
    pty.wait_for_text("It runs.");
    pty.wait_for_text("1 running");
    let result = openai_tool_result(&server.requests()[1].json(), "call_1");
    let pid: i32 = result
        .split("bg=")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no pid in {result}"));
    assert!(running(pid), "the sleep runs while the session does");
    assert!(pty.quit().success());
    let survived = !support::wait::until_blocking(WAIT, || !running(pid));
    if survived {
        // SAFETY: kill(2) on the pid this test's command started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    assert!(!survived, "pid {pid} outlived the TUI");
}
