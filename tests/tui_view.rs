//! `view` snapshots through ratatui's `TestBackend` (TUI-6). Snapshots live
//! in the top-level `snapshots/` directory.

mod support;

use ratatui::style::Color;
use serde_json::json;
use std::time::{Duration, Instant};
use support::tui::{bash_request, event, render, screen, session, snapshot, turn_started};
use zcode::permission::mode::{ExecutionState, Mode};
use zcode::protocol::{AlwaysOption, Event, RequestKind, TurnEnd};
use zcode::tui::{Model, Msg, update};

/// A running turn, started 7 seconds before the last tick.
fn busy(width: u16, height: u16, text: &str) -> Model {
    let mut m = session(width, height);
    let start = Instant::now();
    update(&mut m, Msg::Tick(start));
    turn_started(&mut m, 1, text);
    update(&mut m, Msg::Tick(start + Duration::from_secs(7)));
    m.spinner = 0;
    m
}

#[test]
fn empty_session_80() {
    snapshot("empty_session_80", screen(&session(80, 16), 80, 16));
}

#[test]
fn empty_session_60() {
    snapshot("empty_session_60", screen(&session(60, 12), 60, 12));
}

#[test]
fn empty_session_160() {
    snapshot("empty_session_160", screen(&session(160, 12), 160, 12));
}

fn streamed() -> Model {
    let mut m = busy(80, 16, "Explain the permission system");
    for part in [
        "Every tool call goes through ",
        "`check_permission`: deny rules first, then ask, then allow, ",
        "then the mode.",
    ] {
        event(&mut m, Event::AssistantDelta { text: part.into() });
    }
    m
}

#[test]
fn streaming_reply() {
    snapshot("streaming_reply", screen(&streamed(), 80, 16));
}

#[test]
fn finished_reply() {
    let mut m = streamed();
    event(
        &mut m,
        Event::AssistantMessage {
            text: "Every tool call goes through `check_permission`: deny rules first, then ask, then allow, then the mode.".into(),
        },
    );
    event(
        &mut m,
        Event::TurnFinished {
            end: TurnEnd::Completed,
            answer: None,
        },
    );
    snapshot("finished_reply", screen(&m, 80, 16));
}

fn with_tools(width: u16) -> Model {
    let mut m = busy(width, 18, "Run the tests and fix what fails");
    let calls = [
        ("c1", "Read", json!({"file_path": "src/lib.rs"})),
        ("c2", "Bash", json!({"command": "cargo test"})),
        (
            "c3",
            "Edit",
            json!({"file_path": "src/main.rs", "old_string": "a", "new_string": "b"}),
        ),
        ("c4", "Bash", json!({"command": "rm -rf target"})),
    ];
    for (id, tool, input) in calls {
        event(
            &mut m,
            Event::ToolCallStarted {
                call_id: id.into(),
                tool: tool.into(),
                input,
            },
        );
    }
    event(
        &mut m,
        Event::ToolCallFinished {
            call_id: "c1".into(),
            tool: "Read".into(),
            output: "     1\t//! zcode\n     2\tpub mod cli;".into(),
            is_error: false,
            diff: None,
            exit_code: None,
        },
    );
    event(
        &mut m,
        Event::ToolCallFinished {
            call_id: "c2".into(),
            tool: "Bash".into(),
            output: "error[E0425]: cannot find value `x` in this scope".into(),
            is_error: true,
            diff: None,
            exit_code: None,
        },
    );
    event(
        &mut m,
        Event::ToolCallDenied {
            denial: zcode::protocol::Denial {
                call_id: "c4".into(),
                tool: "Bash".into(),
                input: json!({"command": "rm -rf target"}),
                rule_id: "deny.user".into(),
                reason: "Denied in TUI".into(),
                agent: None,
            },
        },
    );
    m
}

#[test]
fn tool_cells_running_done_failed_denied() {
    snapshot("tool_cells", screen(&with_tools(80), 80, 18));
}

#[test]
fn tool_cells_60() {
    snapshot("tool_cells_60", screen(&with_tools(60), 60, 18));
}

#[test]
fn tool_cells_160() {
    snapshot("tool_cells_160", screen(&with_tools(160), 160, 18));
}

fn bash_approval(width: u16) -> Model {
    let mut m = busy(width, 24, "Run the tests");
    event(
        &mut m,
        Event::ToolCallStarted {
            call_id: "call_perm_1".into(),
            tool: "Bash".into(),
            input: json!({"command": "cargo test --workspace"}),
        },
    );
    for id in ["perm_1", "perm_2", "perm_3"] {
        event(
            &mut m,
            Event::PermissionRequested {
                request: bash_request(id),
            },
        );
    }
    m
}

#[test]
fn bash_approval_with_queue_count() {
    snapshot("approval_bash", screen(&bash_approval(80), 80, 24));
}

#[test]
fn bash_approval_60() {
    snapshot("approval_bash_60", screen(&bash_approval(60), 60, 24));
}

#[test]
fn bash_approval_160() {
    snapshot("approval_bash_160", screen(&bash_approval(160), 160, 24));
}

#[test]
fn approval_second_option_selected() {
    let mut m = bash_approval(80);
    update(
        &mut m,
        Msg::Key(crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::Down,
            crossterm::event::KeyModifiers::NONE,
        )),
    );
    snapshot("approval_bash_selected", screen(&m, 80, 24));
}

#[test]
fn edit_approval_with_diff_session_option_no_full_access() {
    let mut m = busy(80, 24, "Rename the function");
    let mut request = bash_request("perm_e");
    request.tool = "Edit".into();
    request.input =
        json!({"file_path": "src/lib.rs", "old_string": "fn a()", "new_string": "fn b()"});
    request.reason = "edits a file in the workspace".into();
    request.always = AlwaysOption::Session;
    request.full_access_available = false;
    request.preview = Some(
        "--- src/lib.rs\n+++ src/lib.rs\n@@ -1,3 +1,3 @@\n //! lib\n-fn a() {}\n+fn b() {}\n"
            .into(),
    );
    event(&mut m, Event::PermissionRequested { request });
    snapshot("approval_edit_diff", screen(&m, 80, 24));
}

#[test]
fn plan_approval_panel() {
    let mut m = busy(80, 24, "Plan the refactor");
    m.state = ExecutionState::new(Mode::Build, true);
    let mut request = bash_request("perm_p");
    request.kind = RequestKind::Plan;
    request.tool = "ExitPlanMode".into();
    request.input = json!({"plan": "# Plan\n\n1. Split `update` into modules.\n2. Add tests for each.\n3. Remove the old file."});
    request.always = AlwaysOption::None;
    request.full_access_available = false;
    event(&mut m, Event::PermissionRequested { request });
    snapshot("approval_plan", screen(&m, 80, 24));
}

#[test]
fn question_panel_minimal() {
    let mut m = busy(80, 20, "Set up CI");
    let mut request = bash_request("perm_q");
    request.kind = RequestKind::Question;
    request.tool = "AskUserQuestion".into();
    request.input = json!({"questions": [{"question": "Which CI provider?", "header": "CI", "options": [{"label": "GitHub Actions", "description": ""}, {"label": "GitLab CI", "description": ""}], "multiSelect": false}]});
    request.always = AlwaysOption::None;
    request.full_access_available = false;
    event(&mut m, Event::PermissionRequested { request });
    snapshot("approval_question", screen(&m, 80, 20));
}

#[test]
fn status_line_in_each_mode() {
    let states = [
        ("plan", ExecutionState::new(Mode::Build, true)),
        ("build", ExecutionState::new(Mode::Build, false)),
        ("edit", ExecutionState::new(Mode::Edit, false)),
        ("yolo", ExecutionState::new(Mode::Yolo, false)),
    ];
    let mut all = String::new();
    for (label, state) in states {
        for width in [60u16, 160] {
            let mut m = session(width, 6);
            m.state = state;
            let shown = screen(&m, width, 6);
            let status = shown.lines().nth(4).unwrap_or_default();
            all.push_str(&format!("{label} @{width}:\n{status}\n"));
            assert!(status.contains(label), "{label} missing at {width}");
        }
    }
    snapshot("status_modes", all);
}

#[test]
fn status_line_says_when_there_is_no_kernel_sandbox() {
    let notice = "no kernel sandbox (the kernel does not offer Landlock): read-only \
                  commands are judged strictly and run unsandboxed";
    let mut all = String::new();
    for width in [60u16, 80, 160] {
        let m = support::tui::Session::new(width, 8)
            .sandbox_notice(notice)
            .start();
        assert!(m.sandbox_missing);
        let shown = screen(&m, width, 8);
        assert!(shown.contains("no sandbox"), "{shown}");
        all.push_str(&format!("@{width}:\n{shown}\n"));
    }
    // The transcript says why, once.
    let m = support::tui::Session::new(160, 8)
        .sandbox_notice(notice)
        .start();
    assert_eq!(screen(&m, 160, 8).matches("no kernel sandbox").count(), 1);
    // With the sandbox, nothing is said.
    let m = session(160, 8);
    assert!(!screen(&m, 160, 8).contains("sandbox"));
    snapshot("status_no_sandbox", all);
}

#[test]
fn status_line_counts_background_processes() {
    let mut all = String::new();
    for width in [60u16, 80, 160] {
        let mut m = session(width, 8);
        event(
            &mut m,
            Event::BackgroundProcesses {
                count: 2,
                commands: vec!["sleep 300 &".into()],
            },
        );
        assert_eq!(m.background, 2);
        let shown = screen(&m, width, 8);
        assert!(shown.contains("2 running"), "{shown}");
        all.push_str(&format!("@{width}:\n{shown}\n"));
        // Once they are gone, nothing is said.
        event(
            &mut m,
            Event::BackgroundProcesses {
                count: 0,
                commands: Vec::new(),
            },
        );
        assert!(!screen(&m, width, 8).contains("running"));
    }
    snapshot("status_background", all);
}

#[test]
fn busy_status_shows_spinner_and_elapsed_seconds() {
    let m = busy(80, 8, "go");
    let shown = screen(&m, 80, 8);
    assert!(shown.contains("7s"), "{shown}");
    snapshot("status_busy", shown);
}

#[test]
fn queued_input_is_shown() {
    let mut m = busy(80, 14, "first task");
    event(
        &mut m,
        Event::InputQueued {
            id: "in_1".into(),
            text: "then update the README".into(),
        },
    );
    snapshot("queued_input", screen(&m, 80, 14));
}

#[test]
fn multi_line_composer() {
    let mut m = session(80, 14);
    update(&mut m, Msg::Paste("first line\nsecond line\nthird".into()));
    snapshot("composer_multi_line", screen(&m, 80, 14));
}

#[test]
fn quit_hint_after_one_ctrl_c() {
    let mut m = session(80, 10);
    update(
        &mut m,
        Msg::Key(crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::Char('c'),
            crossterm::event::KeyModifiers::CONTROL,
        )),
    );
    let shown = screen(&m, 80, 10);
    assert!(shown.contains("again to quit"), "{shown}");
}

#[test]
fn scrolled_back_transcript() {
    let mut m = session(60, 12);
    for i in 0..12 {
        event(
            &mut m,
            Event::Notice {
                message: format!("notice {i}"),
            },
        );
    }
    m.scroll = 5;
    snapshot("transcript_scrolled", screen(&m, 60, 12));
}

#[test]
fn no_color_renders_without_colours() {
    let mut m = bash_approval(80);
    m.monochrome = true;
    let terminal = render(&m, 80, 24);
    let buffer = terminal.backend().buffer();
    for cell in buffer.content() {
        assert_eq!(cell.fg, Color::Reset, "coloured cell {cell:?}");
        assert_eq!(cell.bg, Color::Reset, "coloured cell {cell:?}");
    }
}

#[test]
fn ask6_question_panel_in_the_app() {
    let mut m = busy(80, 24, "Set up CI");
    let mut request = bash_request("perm_q");
    request.kind = RequestKind::Question;
    request.tool = "AskUserQuestion".into();
    request.input = json!({"questions": [{"question": "Which CI provider?", "header": "CI", "options": [{"label": "GitHub Actions (Recommended)", "description": "hosted runners"}, {"label": "GitLab CI", "description": "self-hosted"}], "multiSelect": false}]});
    request.always = AlwaysOption::None;
    request.full_access_available = false;
    event(&mut m, Event::PermissionRequested { request });
    snapshot("approval_question_panel", screen(&m, 80, 24));
}

#[test]
fn tui2_markdown_reply_with_a_code_block() {
    let mut m = streamed();
    let reply = "## Plan\n\n1. Parse the **config**\n2. Run `cargo test`\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\nDone.";
    event(&mut m, Event::AssistantMessage { text: reply.into() });
    event(
        &mut m,
        Event::TurnFinished {
            end: TurnEnd::Completed,
            answer: None,
        },
    );
    snapshot("markdown_reply", screen(&m, 60, 20));
    // Colour carries meaning here: the code block is highlighted.
    let terminal = render(&m, 60, 20);
    let buffer = terminal.backend().buffer();
    let colored = buffer
        .content()
        .iter()
        .filter(|c| c.symbol() == "p" && c.fg != ratatui::style::Color::Reset)
        .count();
    assert!(colored > 0, "println! is highlighted");
}

#[test]
fn tui2_streaming_markdown_commits_finished_blocks_only() {
    let mut m = busy(60, 12, "explain");
    event(
        &mut m,
        Event::AssistantDelta {
            text: "First paragraph.\n\nSecond **unfinished".into(),
        },
    );
    snapshot("markdown_streaming", screen(&m, 60, 12));
}

#[test]
fn plan10_long_plan_scrolled_and_the_feedback_field() {
    let mut m = busy(80, 30, "Plan the refactor");
    m.state = ExecutionState::new(Mode::Build, true);
    let mut request = bash_request("perm_p");
    request.kind = RequestKind::Plan;
    request.tool = "ExitPlanMode".into();
    let steps: Vec<String> = (1..=40).map(|i| format!("{i}. Step number {i}")).collect();
    request.input = json!({"plan": format!("# Plan\n\n{}", steps.join("\n"))});
    request.always = AlwaysOption::None;
    request.full_access_available = false;
    event(&mut m, Event::PermissionRequested { request });
    zcode::tui::update(
        &mut m,
        Msg::Key(crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::PageDown,
            crossterm::event::KeyModifiers::NONE,
        )),
    );
    snapshot("approval_plan_scrolled", screen(&m, 80, 30));
    for code in [
        crossterm::event::KeyCode::Char('2'),
        crossterm::event::KeyCode::Char('n'),
        crossterm::event::KeyCode::Char('o'),
    ] {
        zcode::tui::update(
            &mut m,
            Msg::Key(crossterm::event::KeyEvent::new(
                code,
                crossterm::event::KeyModifiers::NONE,
            )),
        );
    }
    snapshot("approval_plan_feedback", screen(&m, 80, 30));
}
