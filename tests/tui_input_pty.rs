//! The prompt's habits in the real binary, in a pseudo-terminal: ↑ in a new
//! session brings back the project's last prompt, Ctrl+D on an empty
//! prompt quits, `!command` runs the user's command and the model reads it,
//! `@` completes a path with a space, `/export` writes outside the
//! repository. Waits are on what the screen shows or what the server
//! received, never on the clock.
#![cfg(unix)]

mod support;

use support::pty::{Pty, WAIT, row_text};
use support::pty_harness::PtyHarness as Harness;

/// The composer's row: the third from the bottom (a border below it, then
/// the status line and the footer).
fn composer_row(s: &vt100::Screen) -> String {
    row_text(s, -4)
}

fn wait_idle(pty: &Pty) {
    pty.wait_for("the idle prompt", WAIT, |s| {
        row_text(s, -1).contains("ctrl+c ×2")
    });
}

/// Ctrl+D on the empty prompt, and the exit.
fn ctrl_d_quits(pty: &mut Pty) {
    pty.send("\x04");
    let status = pty.wait_exit(WAIT);
    assert!(status.success(), "exit {status:?}");
}

#[test]
fn history_across_sessions_up_in_a_new_session_recalls_the_last_prompt() {
    let h = Harness::new();
    h.answer("ANSWER-ONE");
    let mut pty = h.start(&[]);
    pty.wait_for_mode("build");
    pty.submit("remember the milk");
    pty.wait_for_text("ANSWER-ONE");
    wait_idle(&pty);
    ctrl_d_quits(&mut pty);

    let mut pty = h.start(&[]);
    pty.wait_for_mode("build");
    pty.send("\x1b[A");
    pty.wait_for("the recalled prompt", WAIT, |s| {
        composer_row(s).contains("remember the milk")
    });
    // Ctrl+D on a prompt with text deletes forward; it does not quit.
    pty.send("\x01");
    pty.send("\x04");
    pty.wait_for("one character deleted", WAIT, |s| {
        composer_row(s).contains("emember the milk") && !composer_row(s).contains("remember")
    });
    pty.send("\x05\x15");
    pty.wait_for("the prompt emptied", WAIT, |s| {
        !composer_row(s).contains("emember")
    });
    ctrl_d_quits(&mut pty);
}

#[test]
fn bang_command_runs_in_the_workspace_and_the_model_reads_it() {
    let h = Harness::new();
    std::fs::write(h.project().join("marker.txt"), "x").expect("marker");
    h.answer("SEEN");
    let mut pty = h.start(&[]);
    pty.wait_for_mode("build");
    pty.submit("!echo shell-said-$((6*7)); ls");
    pty.wait_for_text("shell-said-42");
    wait_idle(&pty);
    assert_eq!(h.server.request_count(), 0, "the model was not asked");
    pty.submit("what did it print?");
    h.wait_for_requests(1, &pty);
    pty.wait_for_text("SEEN");
    let body = h.server.requests()[0].json().to_string();
    assert!(body.contains("bash-input"), "{body}");
    assert!(body.contains("marker.txt"), "{body}");
    assert!(body.contains("shell-said-42"), "{body}");
    wait_idle(&pty);
    ctrl_d_quits(&mut pty);
}

#[test]
fn at_file_completion_inserts_a_quoted_path_with_a_space() {
    let h = Harness::new();
    std::fs::write(h.project().join("meeting notes.md"), "x").expect("file");
    let mut pty = h.start(&[]);
    pty.wait_for_mode("build");
    pty.send("read @meet");
    pty.wait_for("the files list", WAIT, |s| {
        s.contents().contains("@meeting notes.md")
    });
    pty.send("\t");
    pty.wait_for("the path inserted", WAIT, |s| {
        composer_row(s).contains("read @\"meeting notes.md\"")
    });
    pty.send("\x15");
    ctrl_d_quits(&mut pty);
}

#[test]
fn export_by_default_writes_outside_the_repository() {
    let h = Harness::new();
    h.answer("EXPORTED-ANSWER");
    let mut pty = h.start(&[]);
    pty.wait_for_mode("build");
    pty.submit("a question");
    pty.wait_for_text("EXPORTED-ANSWER");
    wait_idle(&pty);
    pty.submit("/export");
    pty.wait_for_text("wrote the conversation to");
    let exports = h.home.path().join("exports");
    let files: Vec<_> = std::fs::read_dir(&exports)
        .expect("the exports directory")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).expect("the export");
    assert!(text.contains("EXPORTED-ANSWER"), "{text}");
    let in_project: Vec<_> = std::fs::read_dir(h.project())
        .expect("project")
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .collect();
    assert!(in_project.is_empty(), "{in_project:?}");
    ctrl_d_quits(&mut pty);
}
