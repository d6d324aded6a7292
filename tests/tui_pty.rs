//! The real `zcode` TUI in a pseudo-terminal, end to end, against the fake
//! model server (ASK-3, ASK-6, PLAN-1, PLAN-7, PLAN-10, TUI-4, TUI-5,
//! GRANT-1, GRANT-3, APPR-6): keys go in as a terminal sends them, the
//! screen is read back through a virtual terminal, and the model's side is
//! checked in the requests the server received.
//!
//! Each test has its own server, project and `ZCODE_HOME`. Waits are on
//! what the screen shows or what the server received, never on the clock.
#![cfg(unix)]

mod support;

use serde_json::json;
use std::path::Path;
use support::fake_model_server::{Reply, openai_tool_result, sse};
use support::pty::{Pty, PtyOptions, WAIT};

use support::pty_harness::PtyHarness as Harness;

/// `zcode` with the offline demo provider: no model variables at all.
fn start_offline(home: &Path, project: &Path) -> Pty {
    Pty::spawn(PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home, project))
}

/// Waits for the idle composer after a turn (the spinner is gone).
fn wait_idle(pty: &Pty) {
    pty.wait_for("the turn to end", WAIT, |s| {
        s.contents().contains("ctrl+c ×2")
    });
}

// ------------------------------------------------------------ ASK-3/6

#[test]
fn ask6_multi_select_answer_typed_with_keys_reaches_the_model() {
    let h = Harness::new();
    let question = json!({"questions": [{
        "question": "Which languages should the tool support?",
        "header": "Languages",
        "multiSelect": true,
        "options": [
            {"label": "Rust", "description": "systems"},
            {"label": "Go", "description": "services"},
            {"label": "Python", "description": "scripts"}
        ]
    }]});
    h.server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("call_q", "AskUserQuestion", &question.to_string())],
        )),
        Reply::sse(sse::openai_text("Rust and Python it is.")),
    ]);
    let mut pty = h.start(&[]);
    pty.wait_for_mode("build");
    pty.submit("set up the project");
    // The question is in the tool cell first; keys go to the panel once
    // it is open.
    pty.wait_for_text("┌ Question");
    // Check Rust, move down twice, check Python, Enter: the only question
    // is submitted by its answer, with no review page.
    pty.send(" ");
    pty.send("j");
    pty.send("j");
    pty.send(" ");
    pty.send("\r");
    h.wait_for_requests(2, &pty);
    pty.wait_for_text("Rust and Python it is.");
    assert_eq!(
        openai_tool_result(&h.request(1), "call_q"),
        "User has answered your questions: \
         \"Which languages should the tool support?\"=\"Rust, Python\". \
         You can now continue with the user's answers in mind."
    );
    wait_idle(&pty);
    assert!(pty.quit().success());
}

// --------------------------------------------------------- PLAN-7/10

#[test]
fn plan7_plan_approved_in_the_panel_writes_the_plan_file_and_leaves_plan() {
    let h = Harness::new();
    let plan = "# Add a greeting\n\n1. Write `hello.txt`\n2. Say hello";
    let args = json!({ "plan": plan });
    h.server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("call_p", "ExitPlanMode", &args.to_string())],
        )),
        Reply::sse(sse::openai_text("Starting now.")),
    ]);
    let mut pty = h.start(&["--mode", "plan"]);
    pty.wait_for_mode("plan");
    pty.submit("plan a greeting");
    pty.wait_for_text("Plan approval");
    pty.wait_for_text("Approve the plan");
    // The plan is shown as Markdown: the heading without its `#`.
    assert!(pty.screen_text().contains("Add a greeting"));
    pty.send("\r");
    h.wait_for_requests(2, &pty);
    pty.wait_for_mode("build");
    pty.wait_for_text("Starting now.");
    let result = openai_tool_result(&h.request(1), "call_p");
    assert!(
        result.starts_with("User has approved your plan."),
        "{result}"
    );
    let plans = h.project().join(".zcode").join("plans");
    let files: Vec<_> = std::fs::read_dir(&plans)
        .expect("the plans directory exists")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(
        files[0].starts_with("plan-") && files[0].ends_with(".md"),
        "{files:?}"
    );
    let written = std::fs::read_to_string(plans.join(&files[0])).expect("plan file");
    assert_eq!(written, plan);
    wait_idle(&pty);
    assert!(pty.quit().success());
}

// ------------------------------------------------------- PLAN-1/TUI-4

#[test]
fn tui4_shift_tab_shows_each_mode_in_turn() {
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let mut pty = start_offline(home.path(), project.path());
    pty.wait_for_mode("build");
    for (label, description) in [
        (
            "edit",
            "Edit selected files or relevant workspace files automatically.",
        ),
        ("plan", ""),
        ("build", "Ask before each file changes."),
        ("edit", ""),
    ] {
        pty.shift_tab();
        pty.wait_for_mode(label);
        assert!(pty.row(-2).contains(description), "{}", pty.row(-2));
    }
    assert!(pty.quit().success());
}

// ------------------------------------------------- GRANT-1/3, APPR-6

/// The Bash call both runs make.
const COMMAND: &str = "touch granted.txt";

fn bash_call(h: &Harness, id: &str) {
    let input = json!({ "command": COMMAND });
    h.server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[(id, "Bash", &input.to_string())],
        )),
        Reply::sse(sse::openai_text("Made the file.")),
    ]);
}

#[test]
fn grant1_always_allow_in_this_project_is_not_asked_again_in_a_new_run() {
    let h = Harness::new();

    // First run: asked; the user picks the project option.
    bash_call(&h, "call_1");
    let mut pty = h.start(&["--mode", "build"]);
    pty.wait_for_mode("build");
    pty.submit("make the file");
    pty.wait_for_text("Always allow in this project");
    pty.send("2");
    h.wait_for_requests(2, &pty);
    pty.wait_for_text("Made the file.");
    let first = openai_tool_result(&h.request(1), "call_1");
    assert!(
        h.project().join("granted.txt").exists(),
        "the command ran: {first}"
    );
    wait_idle(&pty);
    assert!(pty.quit().success());
    drop(pty);
    std::fs::remove_file(h.project().join("granted.txt")).expect("remove");

    // Second run, same home and project: the same call runs unasked.
    bash_call(&h, "call_2");
    let mut pty = h.start(&["--mode", "build"]);
    pty.wait_for_mode("build");
    pty.submit("make the file again");
    h.wait_for_requests(4, &pty);
    pty.wait_for_text("Made the file.");
    let second = openai_tool_result(&h.request(3), "call_2");
    assert!(
        h.project().join("granted.txt").exists(),
        "the command ran: {second}"
    );
    wait_idle(&pty);
    let raw = String::from_utf8_lossy(&pty.raw_output()).into_owned();
    assert!(
        !raw.contains("Always allow in this project"),
        "the second run asked again"
    );
    assert!(pty.quit().success());
}

// -------------------------------------------------------------- TUI-5

/// The last position of `needle` in `haystack`.
fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

fn assert_restored(raw: &[u8], screen: &vt100::Screen) {
    let text = String::from_utf8_lossy(raw);
    for (on, off, what) in [
        (&b"\x1b[?1049h"[..], &b"\x1b[?1049l"[..], "alternate screen"),
        (b"\x1b[?2004h", b"\x1b[?2004l", "bracketed paste"),
        (b"\x1b[?1007h", b"\x1b[?1007l", "alternate scroll"),
    ] {
        let entered = rfind(raw, on).unwrap_or_else(|| panic!("{what} never entered"));
        let left = rfind(raw, off).unwrap_or_else(|| panic!("{what} never left: {text:?}"));
        assert!(left > entered, "{what} left before it was entered");
    }
    // Nothing but the cursor coming back follows the alternate screen.
    let left = rfind(raw, b"\x1b[?1049l").unwrap_or_default();
    let tail = String::from_utf8_lossy(&raw[left + b"\x1b[?1049l".len()..]);
    assert!(
        tail.replace("\x1b[?25h", "").trim().is_empty(),
        "after leaving the alternate screen: {tail:?}"
    );
    assert!(!screen.alternate_screen());
    assert!(!screen.bracketed_paste());
    assert_eq!(screen.mouse_protocol_mode(), vt100::MouseProtocolMode::None);
    assert!(!screen.hide_cursor());
}

#[test]
fn tui5_ctrl_c_twice_exits_0_and_restores_the_terminal() {
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let mut pty = start_offline(home.path(), project.path());
    pty.wait_for_mode("build");
    let status = pty.quit();
    assert!(status.success(), "exit {status:?}");
    let raw = pty.raw_output();
    pty.with_screen(|screen| assert_restored(&raw, screen));
}

#[test]
fn tui5_terminal_with_the_kitty_keyboard_protocol_is_restored_too() {
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let mut pty = Pty::spawn(
        PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home.path(), project.path()).kitty(true),
    );
    pty.wait_for_mode("build");
    // The flags pushed at start are popped at exit.
    let status = pty.quit();
    assert!(status.success(), "exit {status:?}");
    let raw = pty.raw_output();
    let pushed = rfind(&raw, b"\x1b[>1u").expect("flags pushed");
    let popped = rfind(&raw, b"\x1b[<1u").expect("flags popped");
    assert!(popped > pushed);
    pty.with_screen(|screen| assert_restored(&raw, screen));
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[test]
fn tui5_first_frame_does_not_wait_for_a_terminal_that_never_answers() {
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let mut pty = Pty::spawn(
        PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home.path(), project.path())
            .answer_queries(false),
    );
    pty.wait_for_mode("build");
    pty.wait_for_output("the keyboard protocol query", WAIT, |raw| {
        find(raw, b"\x1b[?u\x1b[c").is_some()
    });
    let raw = pty.raw_output();
    let frame = find(&raw, b"Ask before each file changes.").expect("the first frame");
    let query = find(&raw, b"\x1b[?u\x1b[c").expect("the query");
    assert!(frame < query, "the first frame waited for the query");
    // No other terminal query (cursor position, secondary attributes,
    // colours) is sent at start.
    for other in [&b"\x1b[6n"[..], b"\x1b[>c", b"\x1b]10;?", b"\x1b]11;?"] {
        assert!(find(&raw, other).is_none(), "unexpected query {other:?}");
    }
    // The keys typed while the query waits are not lost: it still quits.
    assert!(pty.quit().success());
    let raw = pty.raw_output();
    pty.with_screen(|screen| assert_restored(&raw, screen));
}

#[test]
fn tui5_bracketed_paste_and_resize_work_in_a_real_terminal() {
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let mut pty = start_offline(home.path(), project.path());
    pty.wait_for_mode("build");
    // The first frame is drawn before the UI reads keys (it asks the
    // terminal about its keyboard first): a key typed and shown is the
    // sign that what comes next is read as the UI's input.
    pty.send("z");
    pty.wait_for("the typed key in the composer", WAIT, |s| {
        !s.contents().contains("Ask zcode to do something")
    });
    pty.send([0x7f]);
    pty.wait_for("the composer empty again", WAIT, |s| {
        s.contents().contains("Ask zcode to do something")
    });
    // Terminals send CR for the line breaks inside a paste; the Enter
    // inside it must not send the message.
    pty.paste("first pasted line\rsecond pasted line");
    pty.wait_for_text("second pasted line");
    assert!(pty.screen_text().contains("first pasted line"));
    // Narrower and shorter: the status line and footer move to the new
    // bottom rows. The screen shrinks at once and keeps rows of the old
    // frame (the old status line may land on the new second-to-last row),
    // so only what the program draws after the resize counts: its redraw
    // at a new size starts by clearing the screen.
    let before = pty.raw_output().len();
    pty.resize(20, 60);
    pty.wait_for_output("the clear before the redraw at 60x20", WAIT, |raw| {
        raw[before.min(raw.len())..]
            .windows(4)
            .any(|w| w == b"\x1b[2J")
    });
    pty.wait_for("the redraw at 60x20", WAIT, |s| {
        support::pty::row_text(s, -2).starts_with(" build ")
    });
    assert!(pty.screen_text().contains("second pasted line"));
    // Ctrl+C clears the composer: the paste was never sent (a sent text
    // would stay in the transcript). Then twice quits.
    pty.ctrl_c();
    pty.wait_for("the composer cleared", WAIT, |s| {
        !s.contents().contains("second pasted line")
    });
    assert!(pty.quit().success());
}

/// Ctrl+Z under a job-control shell, as a user runs zcode: the shell reports
/// the job stopped with the terminal given back, `fg` brings the UI back,
/// redrawn and taking keys (TUI-5).
#[test]
fn tui5_ctrl_z_suspends_to_the_shell_and_fg_resumes() {
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let pty = Pty::spawn(
        PtyOptions::new("bash", home.path(), project.path())
            .arg("--norc")
            .arg("--noprofile")
            .arg("-i")
            .env("PS1", "shell$ ")
            // Typed as a variable: the build's path may have spaces or
            // letters the shell's line editor does not take as typed.
            .env("ZCODE_BIN", env!("CARGO_BIN_EXE_zcode")),
    );
    pty.wait_for_text("shell$");
    pty.send("\"$ZCODE_BIN\"\r");
    pty.wait_for_mode("build");
    let before = pty.raw_output().len();
    pty.send([0x1a]);
    // The shell took over: the alternate screen was left, the job stopped.
    pty.wait_for_output("the alternate screen left", WAIT, |raw| {
        find(&raw[before.min(raw.len())..], b"\x1b[?1049l").is_some()
    });
    pty.wait_for_text("Stopped");
    let stopped = pty.raw_output().len();
    pty.send("fg\r");
    pty.wait_for_output("the alternate screen entered again", WAIT, |raw| {
        find(&raw[stopped.min(raw.len())..], b"\x1b[?1049h").is_some()
    });
    pty.wait_for_mode("build");
    // Keys reach the UI again.
    pty.shift_tab();
    pty.wait_for_mode("edit");
    pty.ctrl_c();
    pty.wait_for_text("again to quit");
    pty.ctrl_c();
    pty.wait_for_text("shell$");
    let raw = pty.raw_output();
    let tail = &raw[stopped.min(raw.len())..];
    assert!(
        find(tail, b"\x1b[?1049l").is_some(),
        "the terminal was not restored at exit"
    );
}

/// The session id the status line ends with.
fn status_session(pty: &Pty) -> String {
    pty.with_screen(|s| {
        support::pty::row_text(s, -2)
            .split_whitespace()
            .last()
            .unwrap_or_default()
            .to_string()
    })
}

/// `/new` swaps in a fresh runtime and session; `/resume` lists the
/// project's sessions and brings the first one back with its conversation
/// (TUI-4): the app replaces its runtime while running.
#[test]
fn tui4_new_then_resume_swaps_the_session_and_replays_its_conversation() {
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let mut pty = start_offline(home.path(), project.path());
    pty.wait_for_text("offline demo provider");
    let first = status_session(&pty);
    assert_eq!(first.len(), 8, "session id in the status line: {first:?}");
    pty.submit("hello from the first session");
    pty.wait_for_text("offline demo model");
    wait_idle(&pty);

    pty.submit("/new");
    pty.wait_for("a fresh session", WAIT, |s| {
        let status = support::pty::row_text(s, -2);
        !status.trim_end().ends_with(&first)
            && status
                .split_whitespace()
                .last()
                .is_some_and(|id| id.len() == 8)
            && !s.contents().contains("hello from the first session")
    });
    let second = status_session(&pty);

    pty.submit("/resume");
    pty.wait_for_text("Resume a session");
    // Move the highlight to the first session's row, then choose it.
    let highlighted = |s: &vt100::Screen| {
        s.contents()
            .lines()
            .find(|l| l.starts_with("› ") && !l.contains("Ask zcode"))
            .unwrap_or_default()
            .to_string()
    };
    for _ in 0..5 {
        let now = pty.with_screen(highlighted);
        if now.contains("hello from the first") {
            break;
        }
        pty.send("\x1b[B");
        pty.wait_for("the highlight to move", WAIT, |s| highlighted(s) != now);
    }
    pty.send("\r");
    pty.wait_for("the first session back", WAIT, |s| {
        support::pty::row_text(s, -2).trim_end().ends_with(&first)
            && s.contents().contains("› hello from the first session")
    });
    assert_ne!(first, second);
    let status = pty.quit();
    assert!(status.success(), "exit {status:?}");
}

/// A terminal with a scrolled-back transcript on 16 rows: the demo's two
/// replies overflow it.
fn demo_overflowing(options: PtyOptions) -> Pty {
    let mut options = options;
    options.rows = 16;
    let pty = Pty::spawn(options);
    pty.wait_for_text("offline demo provider");
    pty.submit("hello");
    // The end of the demo's second reply (the first has scrolled away).
    pty.wait_for_text("openai/gpt-4.1");
    wait_idle(&pty);
    pty
}

/// The mouse wheel scrolls the transcript in a real terminal (TUI-5) while
/// the mouse stays the terminal's (native selection with no
/// modifier key): zcode turns on alternate scroll, not mouse capture, and
/// the terminal sends each wheel notch as a run of arrow keys.
#[test]
fn ux_the_wheel_scrolls_while_the_mouse_stays_the_terminals() {
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let mut pty = demo_overflowing(PtyOptions::new(
        env!("CARGO_BIN_EXE_zcode"),
        home.path(),
        project.path(),
    ));
    pty.with_screen(|s| {
        assert_eq!(
            s.mouse_protocol_mode(),
            vt100::MouseProtocolMode::None,
            "mouse capture would take selection from the terminal"
        )
    });
    let raw = pty.raw_output();
    assert!(
        find(&raw, b"\x1b[?1007h").is_some(),
        "alternate scroll is on"
    );
    // A wheel notch up, as a terminal sends it: three arrows in one write.
    pty.send("\x1b[A\x1b[A\x1b[A");
    pty.wait_for("the transcript scrolled back", WAIT, |s| {
        s.contents().contains("End returns to the bottom")
    });
    for _ in 0..10 {
        pty.send("\x1b[B\x1b[B\x1b[B");
    }
    pty.wait_for("the transcript back at the bottom", WAIT, |s| {
        !s.contents().contains("End returns to the bottom")
    });
    // One arrow is a key: it recalls the input history, not a scroll.
    pty.send("\x1b[A");
    pty.wait_for("↑ recalls the last input", WAIT, |s| {
        s.contents().contains("› hello")
    });
    // Ctrl+C clears the recalled text; then the usual quit.
    pty.ctrl_c();
    pty.wait_for("the composer cleared", WAIT, |s| {
        !s.contents().contains("› hello")
    });
    let status = pty.quit();
    assert!(status.success(), "exit {status:?}");
}

/// `ZCODE_MOUSE=capture` keeps the wheel as mouse events, for terminals
/// that do not turn it into arrows.
#[test]
fn ux_mouse_capture_on_request_scrolls_with_mouse_events() {
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let mut pty = demo_overflowing(
        PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home.path(), project.path())
            .env("ZCODE_MOUSE", "capture"),
    );
    for _ in 0..3 {
        pty.send("\x1b[<64;10;5M");
    }
    pty.wait_for("the transcript scrolled back", WAIT, |s| {
        s.contents().contains("End returns to the bottom")
    });
    for _ in 0..20 {
        pty.send("\x1b[<65;10;5M");
    }
    pty.wait_for("the transcript back at the bottom", WAIT, |s| {
        !s.contents().contains("End returns to the bottom")
    });
    let status = pty.quit();
    assert!(status.success(), "exit {status:?}");
}

/// Quitting leaves the conversation in the terminal's scrollback, then the
/// command that resumes the session.
#[test]
fn ux_quitting_leaves_the_conversation_and_the_resume_command() {
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let mut pty = start_offline(home.path(), project.path());
    pty.wait_for_text("offline demo provider");
    pty.submit("hello there");
    pty.wait_for_text("openai/gpt-4.1");
    wait_idle(&pty);
    let session = status_session(&pty);
    let status = pty.quit();
    assert!(status.success(), "exit {status:?}");
    let raw = pty.raw_output();
    let left = rfind(&raw, b"\x1b[?1049l").expect("the alternate screen was left");
    let after = String::from_utf8_lossy(&raw[left..]).to_string();
    let question = after
        .find("hello there")
        .expect("the question in the scrollback");
    let answer = after
        .find("openai/gpt-4.1")
        .expect("the answer in the scrollback");
    let resume = after
        .find("zcode --resume ")
        .unwrap_or_else(|| panic!("no resume command after exit: {after:?}"));
    assert!(question < answer && answer < resume, "{after:?}");
    assert!(
        after[resume..].contains(session.as_str()),
        "the resume command names the session {session}: {after:?}"
    );
    pty.with_screen(|screen| {
        assert!(!screen.alternate_screen());
        assert!(screen.contents().contains("zcode --resume"));
    });
}

#[test]
fn tui2_frames_go_out_as_synchronized_updates() {
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let mut pty = start_offline(home.path(), project.path());
    pty.wait_for_mode("build");
    // Typing redraws the composer: more frames.
    pty.send("hello");
    pty.wait_for_text("› hello");
    pty.send("\x7f\x7f\x7f\x7f\x7f");
    pty.wait_for_text("Ask zcode to do something");
    let status = pty.quit();
    assert!(status.success(), "exit {status:?}");
    let raw = pty.raw_output();
    const BEGIN: &[u8] = b"\x1b[?2026h";
    const END: &[u8] = b"\x1b[?2026l";
    let begins = raw.windows(BEGIN.len()).filter(|w| *w == BEGIN).count();
    let ends = raw.windows(END.len()).filter(|w| *w == END).count();
    assert!(begins >= 2, "{begins} synchronized frames");
    assert_eq!(begins, ends);
    // Every frame's drawing lies inside a begin/end pair: text written to
    // the screen outside them would tear.
    let mut inside = false;
    let mut i = 0;
    while i < raw.len() {
        if raw[i..].starts_with(BEGIN) {
            assert!(!inside, "nested begin at {i}");
            inside = true;
            i += BEGIN.len();
        } else if raw[i..].starts_with(END) {
            assert!(inside, "end without begin at {i}");
            inside = false;
            i += END.len();
        } else {
            if !inside && raw[i].is_ascii_alphanumeric() && i > 0 && raw[i - 1] == b' ' {
                panic!("drawing outside a synchronized update at {i}");
            }
            i += 1;
        }
    }
}

/// `/copy` sends the answer to the terminal's clipboard as OSC 52 and
/// `/export FILE` writes the conversation, from the real binary.
#[test]
fn ux_copy_and_export_from_the_real_terminal() {
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let mut pty = start_offline(home.path(), project.path());
    pty.wait_for_text("offline demo provider");
    pty.submit("hello");
    pty.wait_for_text("openai/gpt-4.1");
    wait_idle(&pty);
    pty.submit("/copy");
    pty.wait_for_output("an OSC 52 sequence", WAIT, |raw| {
        find(raw, b"\x1b]52;c;").is_some()
    });
    pty.wait_for_text("copied the last answer");
    pty.submit("/export chat.md");
    pty.wait_for_text("wrote the conversation to chat.md");
    let md = std::fs::read_to_string(project.path().join("chat.md")).expect("the export");
    assert!(md.contains("## You\n\nhello"), "{md}");
    assert!(md.contains("openai/gpt-4.1"), "{md}");
    // A second export to the same file never replaces the first.
    pty.submit("/export chat.md");
    pty.wait_for_text("chat.md already exists");
    let status = pty.quit();
    assert!(status.success(), "exit {status:?}");
}
