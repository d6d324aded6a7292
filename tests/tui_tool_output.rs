//! Tool cells in the transcript (TUI-2): the first line of the output with
//! a count of the rest, the whole output on Ctrl+O, and the coloured diff
//! of an Edit or Write.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use serde_json::json;
use zcode::permission::mode::{ExecutionState, Mode};
use zcode::runtime::protocol::Event;
use zcode::tui::{Model, Msg, update, view};

macro_rules! snap {
    ($name:expr, $value:expr) => {
        insta::with_settings!({
            snapshot_path => "../snapshots",
            prepend_module_to_snapshot => false,
        }, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

fn render(model: &Model, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test backend");
    terminal.draw(|f| view(model, f)).expect("draw");
    terminal
}

fn text(model: &Model) -> String {
    render(model, model.width, model.height)
        .backend()
        .to_string()
}

fn event(m: &mut Model, e: Event) {
    update(m, Msg::Runtime(e));
}

fn ctrl_o(m: &mut Model) {
    update(
        m,
        Msg::Key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL)),
    );
}

fn session() -> Model {
    let mut m = Model::new(80, 30);
    event(
        &mut m,
        Event::SessionStarted {
            session_id: "sess_0123456789abcdef".into(),
            workspace: "/home/dev/project".into(),
            model: "local/qwen3".into(),
            provider: "Local".into(),
            offline_demo: false,
            state: ExecutionState::new(Mode::Edit, false),
            resumed: false,
            context_window: 0,
        },
    );
    event(
        &mut m,
        Event::TurnStarted {
            turn: 1,
            text: "Run the tests".into(),
        },
    );
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
    let screen = text(&m);
    assert!(screen.contains("✓ Bash cargo test"), "{screen}");
    assert!(screen.contains("└ Compiling demo v0.1.0"), "{screen}");
    assert!(screen.contains("… +6 lines (ctrl+o to expand)"), "{screen}");
    assert!(!screen.contains("test b ... ok"), "{screen}");
}

#[test]
fn tui2_ctrl_o_expands_every_tool_output_and_collapses_it_again() {
    let mut m = with_bash_output();
    ctrl_o(&mut m);
    let screen = text(&m);
    for line in [
        "test a ... ok",
        "test b ... ok",
        "test result: ok. 2 passed",
    ] {
        assert!(screen.contains(line), "{line} missing:\n{screen}");
    }
    assert!(!screen.contains("ctrl+o to expand"), "{screen}");
    snap!("tool_output_expanded", screen);
    ctrl_o(&mut m);
    let screen = text(&m);
    assert!(!screen.contains("test b ... ok"), "{screen}");
    assert!(screen.contains("… +6 lines (ctrl+o to expand)"), "{screen}");
}

#[test]
fn tui2_tools_started_while_expanded_are_expanded_too() {
    let mut m = session();
    ctrl_o(&mut m);
    tool(&mut m, "c1", "Bash", json!({"command": "cargo test"}));
    finish(&mut m, "c1", "Bash", TEST_OUTPUT, None);
    assert!(text(&m).contains("test b ... ok"));
}

#[test]
fn tui2_ctrl_o_works_while_an_approval_waits() {
    let mut m = with_bash_output();
    event(
        &mut m,
        Event::PermissionRequested {
            request: zcode::runtime::protocol::PermissionRequest {
                request_id: "perm_1".into(),
                kind: zcode::runtime::protocol::RequestKind::Tool,
                call_id: "c2".into(),
                tool: "Bash".into(),
                input: json!({"command": "rm -rf target"}),
                rule_id: "ask.default".into(),
                reason: "Bash asks".into(),
                suggestions: Vec::new(),
                always: zcode::runtime::protocol::AlwaysOption::Project,
                full_access_available: false,
                preview: None,
            },
        },
    );
    ctrl_o(&mut m);
    assert!(m.tools_expanded);
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
    snap!(
        "tool_edit_diff_styled",
        format!("{:?}", terminal.backend().buffer())
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
    let screen = text(&m);
    assert!(screen.contains("+line 6"), "{screen}");
    assert!(!screen.contains("+line 7"), "{screen}");
    assert!(
        screen.contains("… +13 lines (ctrl+o to expand)"),
        "{screen}"
    );
    ctrl_o(&mut m);
    let screen = text(&m);
    assert!(screen.contains("+line 19"), "{screen}");
}
