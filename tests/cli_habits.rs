//! The command-line habits users of Claude Code and Codex bring, from the
//! real binary: `-c`, `-r [ID]` (a unique start of the id; the picker in the
//! terminal UI without one), `--permission-mode`,
//! `--dangerously-skip-permissions`, `--verbose`, and "did you mean" for an
//! unknown option instead of clap's tip to pass it after `--`. The model is
//! the offline demo provider: nothing here needs a network.

mod support;

use serde_json::Value;
use support::headless::{Harness, Run};
use support::pty::{Pty, PtyOptions, WAIT};
use zcode::permission::mode::Mode;

fn json_result(run: &Run) -> Value {
    let line = run.stdout.lines().next().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {run}"))
}

/// A first headless session; its id.
async fn first_session(h: &Harness) -> String {
    let run = h
        .run(&["-p", "the first task", "--output-format", "json"], &[])
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    json_result(&run)["session_id"]
        .as_str()
        .expect("a session id")
        .to_string()
}

/// The id as the UI shows it: eight characters after `sess_`.
fn short(id: &str) -> &str {
    &id["sess_".len().."sess_".len() + 8]
}

#[tokio::test(flavor = "multi_thread")]
async fn habit_short_c_continues_latest() {
    let h = Harness::new();
    let id = first_session(&h).await;
    let run = h
        .run(&["-p", "-c", "go on", "--output-format", "json"], &[])
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(json_result(&run)["session_id"], id.as_str(), "{run}");
    assert_eq!(h.sessions().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn habit_short_r_resumes_by_the_short_id_the_ui_shows() {
    let h = Harness::new();
    let id = first_session(&h).await;
    let _later = first_session(&h).await;
    for given in [short(&id).to_string(), format!("sess_{}", short(&id))] {
        let run = h
            .run(
                &["-p", "go on", "-r", &given, "--output-format", "json"],
                &[],
            )
            .await;
        assert_eq!(run.code, Some(0), "{given}: {run}");
        assert_eq!(json_result(&run)["session_id"], id.as_str(), "{run}");
    }
    // Headless, `-r` without an id keeps meaning the latest session.
    let run = h
        .run(&["-p", "go on", "--output-format", "json", "-r"], &[])
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(h.sessions().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn habit_permission_mode_takes_claude_code_names() {
    for (args, mode, plan) in [
        (&["--permission-mode", "acceptEdits"][..], Mode::Edit, false),
        (&["--permission-mode", "default"][..], Mode::Build, false),
        (&["--permission-mode", "plan"][..], Mode::Yolo, true),
        (
            &["--permission-mode", "bypassPermissions"][..],
            Mode::Yolo,
            false,
        ),
        (&["--dangerously-skip-permissions"][..], Mode::Yolo, false),
    ] {
        let h = Harness::new();
        let mut all = vec!["-p", "look around"];
        all.extend_from_slice(args);
        let run = h.run(&all, &[]).await;
        assert_eq!(run.code, Some(0), "{args:?}: {run}");
        let state = h.sessions()[0].execution;
        assert_eq!(state.plan_enabled, plan, "{args:?}");
        if !plan {
            assert_eq!(state.mode, mode, "{args:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn habit_permission_mode_disagreeing_with_mode_is_refused() {
    let h = Harness::new();
    let run = h
        .run(
            &[
                "-p",
                "x",
                "--mode",
                "plan",
                "--dangerously-skip-permissions",
            ],
            &[],
        )
        .await;
    assert_eq!(run.code, Some(2), "{run}");
    assert!(run.stderr.contains("name different modes"), "{run}");
    let run = h
        .run(&["-p", "x", "--permission-mode", "dontAsk"], &[])
        .await;
    assert_eq!(run.code, Some(2), "{run}");
    assert!(run.stderr.contains("dontAsk has no zcode mode"), "{run}");
    assert!(h.sessions().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn habit_verbose_says_session_and_model_on_stderr() {
    let h = Harness::new();
    let run = h.run(&["-p", "hello", "--verbose"], &[]).await;
    assert_eq!(run.code, Some(0), "{run}");
    let id = &h.sessions()[0].id;
    assert!(
        run.stderr.contains(&format!("zcode: session {id}")),
        "{run}"
    );
    assert!(run.stderr.contains("zcode: model demo/"), "{run}");
    assert!(run.stderr.contains(&format!("--resume {id}")), "{run}");
    // stdout is the answer alone, as without --verbose.
    assert!(!run.stdout.contains("zcode:"), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_flag_suggests_nearest() {
    let h = Harness::new();
    for (typed, meant) in [
        ("--contiue", "--continue"),
        ("-continue", "--continue"),
        ("--permision-mode=plan", "--permission-mode"),
        (
            "--dangerously-skip-permission",
            "--dangerously-skip-permissions",
        ),
        ("--verbos", "--verbose"),
    ] {
        let run = h.run(&["-p", typed, "fix the bug"], &[]).await;
        assert_eq!(run.code, Some(2), "{typed}: {run}");
        assert!(
            run.stderr.contains(&format!("did you mean '{meant}'?")),
            "{typed}: {run}"
        );
        assert!(!run.stderr.contains("-- "), "no '-- FLAG' tip: {run}");
    }
    // Nothing ran: no session, no task sent anywhere.
    assert!(h.sessions().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn habit_every_spelling_users_bring_is_accepted() {
    let h = Harness::new();
    first_session(&h).await;
    for args in [
        &["-p", "x", "-c"][..],
        &["-p", "x", "--continue"][..],
        &["-p", "x", "-r"][..],
        &["-p", "x", "--resume"][..],
        &["-p", "x", "--permission-mode", "acceptEdits"][..],
        &["-p", "x", "--dangerously-skip-permissions"][..],
        &["-p", "x", "--verbose"][..],
    ] {
        let run = h.run(args, &[]).await;
        assert_eq!(run.code, Some(0), "{args:?}: {run}");
    }
}

// ------------------------------------------------ the picker in the UI

fn start_tui(h: &Harness, args: &[&str]) -> Pty {
    let mut options = PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), h.home(), h.project());
    for arg in args {
        options = options.arg(arg);
    }
    Pty::spawn(options)
}

#[tokio::test(flavor = "multi_thread")]
async fn habit_resume_without_id_opens_the_picker_and_enter_resumes() {
    let h = Harness::new();
    let id = first_session(&h).await;
    let mut pty = start_tui(&h, &["--resume"]);
    pty.wait_for_text("Resume a session");
    pty.wait_for_text(short(&id));
    pty.send("\r");
    // The status line names the session resumed.
    pty.wait_for("the resumed session in the status line", WAIT, |s| {
        support::pty::row_text(s, -2).contains(short(&id))
            && !s.contents().contains("Resume a session")
    });
    pty.quit();
    assert_eq!(h.sessions().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn habit_resume_picker_ctrl_c_quits_before_any_session_exists() {
    let h = Harness::new();
    let id = first_session(&h).await;
    let mut pty = start_tui(&h, &["-r"]);
    pty.wait_for_text(short(&id));
    pty.ctrl_c();
    let status = pty.wait_exit(WAIT);
    assert!(status.success(), "{status:?}");
    // Nothing was created for a user who only looked.
    assert_eq!(h.sessions().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn habit_resume_picker_esc_starts_a_new_session() {
    let h = Harness::new();
    let id = first_session(&h).await;
    let mut pty = start_tui(&h, &["--resume"]);
    pty.wait_for_text(short(&id));
    pty.send("\x1b");
    pty.wait_for("a new session", WAIT, |s| {
        let status = support::pty::row_text(s, -2);
        !s.contents().contains("Resume a session")
            && status.contains("· ")
            && !status.contains(short(&id))
    });
    pty.quit();
}

/// `/resume ID` inside the terminal UI takes the short id the UI shows, as
/// `--resume` does.
#[tokio::test(flavor = "multi_thread")]
async fn habit_slash_resume_takes_the_short_id_the_ui_shows() {
    let h = Harness::new();
    let id = first_session(&h).await;
    let mut pty = start_tui(&h, &[]);
    pty.wait_for_text("/help");
    pty.send(format!("/resume {}", short(&id)));
    pty.wait_for_text(&format!("/resume {}", short(&id)));
    pty.send("\r");
    pty.wait_for("the resumed session in the status line", WAIT, |s| {
        support::pty::row_text(s, -2).contains(short(&id))
    });
    pty.wait_for_text("the first task");
    pty.quit();
}
