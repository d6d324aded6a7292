//! Tool cells in the transcript (TUI-2): the first line of the output with
//! a count of the rest, the whole output on Ctrl+O, and the coloured diff
//! of an Edit or Write.

mod support;

use ratatui::style::Color;
use serde_json::json;
use support::tui::{Session, ctrl, event, render, screen_of, snapshot, turn_started};
use zcode::permission::mode::Mode;
use zcode::protocol::Event;
use zcode::tui::{Model, update};

fn ctrl_o(m: &mut Model) {
    update(m, ctrl('o'));
}

fn session() -> Model {
    let mut m = Session::new(80, 30)
        .model("local/qwen3", "Local")
        .mode(Mode::Edit)
        .start();
    turn_started(&mut m, 1, "Run the tests");
    m
}

fn tool(m: &mut Model, id: &str, name: &str, input: serde_json::Value) {
    event(
        m,
        Event::ToolCallStarted {
            call_id: id.into(),
            tool: name.into(),
            input,
        },
    );
}

fn finish(m: &mut Model, id: &str, name: &str, output: &str, diff: Option<&str>) {
    event(
        m,
        Event::ToolCallFinished {
            call_id: id.into(),
            tool: name.into(),
            output: output.into(),
            is_error: false,
            diff: diff.map(str::to_string),
            exit_code: None,
        },
    );
}

const TEST_OUTPUT: &str = "\n   Compiling demo v0.1.0\n    Finished test profile\n     Running unittests\n\nrunning 2 tests\ntest a ... ok\ntest b ... ok\n\ntest result: ok. 2 passed\n";

fn with_bash_output() -> Model {
    let mut m = session();
    tool(&mut m, "c1", "Bash", json!({"command": "cargo test"}));
    finish(&mut m, "c1", "Bash", TEST_OUTPUT, None);
    m
}

#[test]
fn tui2_collapsed_tool_cell_shows_the_first_line_and_counts_the_rest() {
    let m = with_bash_output();
    let screen = screen_of(&m);
    assert!(screen.contains("✓ Bash cargo test"), "{screen}");
    assert!(screen.contains("└ Compiling demo v0.1.0"), "{screen}");
    assert!(screen.contains("… +6 lines (ctrl+o to expand)"), "{screen}");
    assert!(!screen.contains("test b ... ok"), "{screen}");
}

#[test]
fn tui2_ctrl_o_expands_every_tool_output_and_collapses_it_again() {
    let mut m = with_bash_output();
    ctrl_o(&mut m);
    let screen = screen_of(&m);
    for line in [
        "test a ... ok",
        "test b ... ok",
        "test result: ok. 2 passed",
    ] {
        assert!(screen.contains(line), "{line} missing:\n{screen}");
    }
    assert!(!screen.contains("ctrl+o to expand"), "{screen}");
    snapshot("tool_output_expanded", screen);
    ctrl_o(&mut m);
    let screen = screen_of(&m);
    assert!(!screen.contains("test b ... ok"), "{screen}");
    assert!(screen.contains("… +6 lines (ctrl+o to expand)"), "{screen}");
}

#[test]
fn tui2_tools_started_while_expanded_are_expanded_too() {
    let mut m = session();
    ctrl_o(&mut m);
    tool(&mut m, "c1", "Bash", json!({"command": "cargo test"}));
    finish(&mut m, "c1", "Bash", TEST_OUTPUT, None);
    assert!(screen_of(&m).contains("test b ... ok"));
}

/// On an approval Ctrl+O opens the request full screen (what users try
/// to read a long diff or command); it leaves the outputs as they are, and
/// a second Ctrl+O goes back to the panel.
#[test]
fn tui2_ctrl_o_on_an_approval_opens_it_full_screen() {
    let mut m = with_bash_output();
    event(
        &mut m,
        Event::PermissionRequested {
            request: zcode::protocol::PermissionRequest {
                request_id: "perm_1".into(),
                kind: zcode::protocol::RequestKind::Tool,
                call_id: "c2".into(),
                tool: "Bash".into(),
                input: json!({"command": "rm -rf target"}),
                rule_id: "ask.default".into(),
                reason: "Bash asks".into(),
                suggestions: Vec::new(),
                always: zcode::protocol::AlwaysOption::Project,
                full_access_available: false,
                description: None,
                edit_mode_available: false,
                allowed_prompts: Vec::new(),
                preview: None,
                agent: None,
            },
        },
    );
    ctrl_o(&mut m);
    assert!(!m.tools_expanded);
    assert_eq!(
        zcode::tui::focus::focus(&m),
        zcode::tui::focus::Focus::FullScreen
    );
    ctrl_o(&mut m);
    assert_eq!(
        zcode::tui::focus::focus(&m),
        zcode::tui::focus::Focus::Approval(zcode::protocol::RequestKind::Tool)
    );
    assert_eq!(m.approvals.len(), 1, "the approval stays open");
}

const DIFF: &str =
    "--- src/lib.rs\n+++ src/lib.rs\n@@ -1,3 +1,3 @@\n //! lib\n-fn a() {}\n+fn b() {}\n";

#[test]
fn tui2_edit_cell_shows_its_diff_in_colour() {
    let mut m = session();
    tool(
        &mut m,
        "c1",
        "Edit",
        json!({"file_path": "src/lib.rs", "old_string": "fn a()", "new_string": "fn b()"}),
    );
    finish(
        &mut m,
        "c1",
        "Edit",
        &format!("Edited src/lib.rs: replaced 1.\n\n{DIFF}"),
        Some(DIFF),
    );
    let terminal = render(&m, 80, 30);
    let screen = terminal.backend().to_string();
    assert!(
        screen.contains("└ Edited src/lib.rs: replaced 1."),
        "{screen}"
    );
    assert!(screen.contains("    -fn a() {}"), "{screen}");
    assert!(screen.contains("    +fn b() {}"), "{screen}");
    assert!(
        !screen.contains("+++ src/lib.rs"),
        "file headers are left out: {screen}"
    );
    let buffer = terminal.backend().buffer();
    let colour_of = |needle: &str| {
        let y = (0..30u16)
            .find(|y| {
                (0..80u16)
                    .map(|x| buffer[(x, *y)].symbol().to_string())
                    .collect::<String>()
                    .contains(needle)
            })
            .expect("row");
        buffer[(4, y)].fg
    };
    assert_eq!(colour_of("-fn a() {}"), Color::Red);
    assert_eq!(colour_of("+fn b() {}"), Color::Green);
    snapshot(
        "tool_edit_diff_styled",
        format!("{:?}", terminal.backend().buffer()),
    );
}

#[test]
fn tui2_a_long_diff_is_cut_until_expanded() {
    let mut diff = String::from("--- a.txt\n+++ a.txt\n@@ -0,0 +1,20 @@\n");
    for i in 0..20 {
        diff.push_str(&format!("+line {i}\n"));
    }
    let mut m = session();
    tool(&mut m, "c1", "Write", json!({"file_path": "a.txt"}));
    finish(&mut m, "c1", "Write", "Wrote a.txt", Some(&diff));
    let screen = screen_of(&m);
    assert!(screen.contains("+line 6"), "{screen}");
    assert!(!screen.contains("+line 7"), "{screen}");
    assert!(
        screen.contains("… +13 lines (ctrl+o to expand)"),
        "{screen}"
    );
    ctrl_o(&mut m);
    let screen = screen_of(&m);
    assert!(screen.contains("+line 19"), "{screen}");
}
