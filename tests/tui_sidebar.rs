//! The todo sidebar (TODO-7), context use in the status line (TUI-2), the
//! composer on a textarea with wrapped rows (TUI-4) and the mode key
//! (PLAN-1). Snapshots live in the top-level `snapshots/` directory; where
//! colour carries meaning they are styled (the Buffer's Debug form).

mod support;

use crossterm::event::{KeyCode, KeyModifiers};
use ratatui::layout::Position;
use ratatui::style::{Color, Modifier};
use serde_json::json;
use std::time::{Duration, Instant};
use support::tui::{
    Session, bash_request, event, key_mod, render, screen_of, snapshot, styled_of, turn_started,
};
use zcode::model::Usage;
use zcode::permission::mode::Mode;
use zcode::protocol::{Event, TurnEnd};
use zcode::store::{TodoItem, TodoPriority, TodoStatus};
use zcode::tui::screen::{SIDEBAR_WIDTH, transcript_width};
use zcode::tui::{Model, Msg, update};

fn press(model: &mut Model, code: KeyCode, modifiers: KeyModifiers) {
    update(model, key_mod(code, modifiers));
}

/// Types `text` key by key, whatever the keys produce.
fn type_text(model: &mut Model, text: &str) {
    for c in text.chars() {
        press(model, KeyCode::Char(c), KeyModifiers::NONE);
    }
}

fn session(width: u16, height: u16, mode: Mode) -> Model {
    Session::new(width, height)
        .mode(mode)
        .context_window(200_000)
        .start()
}

fn usage(model: &mut Model, input_tokens: u64) {
    let usage = Usage {
        input_tokens,
        output_tokens: 600,
        ..Default::default()
    };
    event(
        model,
        Event::Usage {
            usage,
            total: usage,
        },
    );
}

/// Three todos: `done` completed, then one in progress if asked, the rest
/// pending.
fn todos(done: usize, in_progress: bool) -> Vec<TodoItem> {
    let texts = [
        "Read the permission service and list its entry points",
        "Add a test for deny rules that match a Bash prefix",
        "Update the README",
    ];
    texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let status = if i < done {
                TodoStatus::Completed
            } else if i == done && in_progress {
                TodoStatus::InProgress
            } else {
                TodoStatus::Pending
            };
            TodoItem::new(*text, status, TodoPriority::Medium)
        })
        .collect()
}

/// A short conversation, so the transcript beside the sidebar has text.
fn with_conversation(mut m: Model) -> Model {
    let start = Instant::now();
    update(&mut m, Msg::Tick(start));
    turn_started(&mut m, 1, "Tighten the Bash deny rules and document them");
    event(
        &mut m,
        Event::AssistantMessage {
            text: "I will read the permission service first, then add a test for prefix rules and update the README.".into(),
        },
    );
    event(
        &mut m,
        Event::ToolCallStarted {
            call_id: "c1".into(),
            tool: "TodoWrite".into(),
            input: json!({"todos": []}),
        },
    );
    event(
        &mut m,
        Event::ToolCallFinished {
            call_id: "c1".into(),
            tool: "TodoWrite".into(),
            output: "Todo list updated: 3 items.".into(),
            is_error: false,
            diff: None,
            exit_code: None,
        },
    );
    usage(&mut m, 24_300);
    event(
        &mut m,
        Event::TurnFinished {
            end: TurnEnd::Completed,
            answer: None,
        },
    );
    m
}

fn with_todos(width: u16, height: u16, done: usize, in_progress: bool) -> Model {
    let mut m = with_conversation(session(width, height, Mode::Build));
    event(
        &mut m,
        Event::TodosChanged {
            todos: todos(done, in_progress),
        },
    );
    m
}

// ---- the sidebar ---------------------------------------------------------------

#[test]
fn todo7_sidebar_at_0_of_3() {
    let m = with_todos(120, 30, 0, false);
    assert_eq!(transcript_width(&m), 120 - SIDEBAR_WIDTH);
    snapshot("sidebar_0_of_3", styled_of(&m));
}

#[test]
fn todo7_sidebar_at_2_of_3_with_one_in_progress() {
    let m = with_todos(120, 30, 2, true);
    snapshot("sidebar_2_of_3", styled_of(&m));
}

#[test]
fn todo7_sidebar_at_3_of_3() {
    let m = with_todos(120, 30, 3, false);
    snapshot("sidebar_3_of_3", styled_of(&m));
}

#[test]
fn todo7_in_progress_is_highlighted_and_done_is_struck() {
    let m = with_todos(120, 30, 1, true);
    let terminal = render(&m, 120, 30);
    let buffer = terminal.backend().buffer();
    let find = |symbol: &str| {
        buffer
            .content()
            .iter()
            .position(|c| c.symbol() == symbol)
            .map(|i| &buffer.content()[i])
            .unwrap_or_else(|| panic!("no {symbol} on screen"))
    };
    assert_eq!(find("▶").fg, Color::Yellow);
    assert_eq!(find("✓").fg, Color::Green);
    // The text after the done mark is struck through.
    let done_at = buffer
        .content()
        .iter()
        .position(|c| c.symbol() == "✓")
        .expect("a done mark");
    assert!(
        buffer.content()[done_at + 2]
            .modifier
            .contains(Modifier::CROSSED_OUT)
    );
}

#[test]
fn todo7_no_sidebar_without_todos() {
    let m = with_conversation(session(120, 30, Mode::Build));
    assert_eq!(transcript_width(&m), 120);
    assert!(!screen_of(&m).contains("Todos"));
}

#[test]
fn todo7_sidebar_hidden_at_60_and_80_columns() {
    for width in [60, 80] {
        let m = with_todos(width, 20, 1, true);
        assert_eq!(transcript_width(&m), width, "at {width}");
        let shown = screen_of(&m);
        assert!(!shown.contains("Todos"), "at {width}:\n{shown}");
        // The status line keeps the progress; Ctrl+T opens the list.
        assert!(shown.contains("todos 1/3"), "at {width}:\n{shown}");
    }
    snapshot("sidebar_hidden_80", screen_of(&with_todos(80, 20, 1, true)));
}

#[test]
fn todo7_ctrl_t_hides_and_shows_the_sidebar() {
    let mut m = with_todos(120, 30, 1, true);
    assert!(screen_of(&m).contains("Todos 1/3"));
    assert!(screen_of(&m).contains("ctrl+t todos"));
    press(&mut m, KeyCode::Char('t'), KeyModifiers::CONTROL);
    assert!(m.sidebar_hidden);
    assert_eq!(transcript_width(&m), 120);
    assert!(!screen_of(&m).contains("Todos 1/3"));
    // The key stays offered so the list can come back.
    assert!(screen_of(&m).contains("ctrl+t todos"));
    press(&mut m, KeyCode::Char('t'), KeyModifiers::CONTROL);
    assert!(!m.sidebar_hidden);
    assert_eq!(transcript_width(&m), 120 - SIDEBAR_WIDTH);
    assert!(screen_of(&m).contains("Todos 1/3"));
    // The composer did not get a 't'.
    assert!(m.composer.is_empty());
}

#[test]
fn todo7_todos_changed_replaces_the_list() {
    let mut m = with_todos(120, 30, 0, false);
    event(
        &mut m,
        Event::TodosChanged {
            todos: todos(3, false),
        },
    );
    assert!(screen_of(&m).contains("Todos 3/3"));
    event(&mut m, Event::TodosChanged { todos: Vec::new() });
    assert_eq!(transcript_width(&m), 120);
}

#[test]
fn todo7_wide_160_with_sidebar_transcript_and_bash_approval() {
    let mut m = with_todos(160, 30, 1, true);
    event(
        &mut m,
        Event::PermissionRequested {
            request: bash_request("perm_1"),
        },
    );
    let shown = screen_of(&m);
    assert!(shown.contains("Todos 1/3"), "{shown}");
    assert!(shown.contains("Allow once"), "{shown}");
    snapshot("sidebar_wide_160_approval", shown);
}

#[test]
fn todo7_long_list_is_cut_with_a_count() {
    let mut m = with_conversation(session(120, 14, Mode::Build));
    let many: Vec<TodoItem> = (1..=12)
        .map(|i| TodoItem::new(format!("step {i}"), TodoStatus::Pending, TodoPriority::Low))
        .collect();
    event(&mut m, Event::TodosChanged { todos: many });
    let shown = screen_of(&m);
    assert!(shown.contains("Todos 0/12"), "{shown}");
    assert!(shown.contains("more rows"), "{shown}");
}

// ---- context use in the status line ------------------------------------------------

fn status_row(model: &Model) -> String {
    let terminal = render(model, model.width, model.height);
    let buffer = terminal.backend().buffer();
    let row = model.height - 2;
    (0..model.width)
        .map(|x| buffer[(x, row)].symbol().to_string())
        .collect()
}

#[test]
fn tui2_status_line_shows_context_use_at_60_80_160_in_each_mode() {
    let mut all = String::new();
    for mode in [Mode::Build, Mode::Edit, Mode::Yolo] {
        for width in [60, 80, 160] {
            let mut m = session(width, 8, mode);
            usage(&mut m, 24_300);
            all.push_str(&format!(
                "{} @{width}:\n\"{}\"\n",
                mode.as_str(),
                status_row(&m)
            ));
        }
    }
    for width in [60, 80, 160] {
        let mut m = session(width, 8, Mode::Build);
        m.state = m.state.apply(zcode::permission::mode::ModeChoice::Plan);
        usage(&mut m, 24_300);
        all.push_str(&format!("plan @{width}:\n\"{}\"\n", status_row(&m)));
    }
    snapshot("status_context_modes", all);
}

#[test]
fn tui2_context_use_gives_way_after_session_and_model() {
    let mut m = session(160, 8, Mode::Build);
    usage(&mut m, 24_300);
    let wide = status_row(&m);
    assert!(wide.contains("ctx 12% (24k/200k)"), "{wide}");
    assert!(wide.contains("anthropic/claude-sonnet-4-5"), "{wide}");
    assert!(wide.contains("01234567"), "{wide}");
    // The description is never cut while the context figure shows.
    m.width = 80;
    let mid = status_row(&m);
    assert!(mid.contains("Ask before each file changes."), "{mid}");
    assert!(mid.contains("ctx 12%"), "{mid}");
    assert!(!mid.contains("01234567"), "{mid}");
}

#[test]
fn tui2_unknown_window_shows_only_the_token_count() {
    let mut m = session(160, 8, Mode::Build);
    m.context_window = 0;
    usage(&mut m, 24_300);
    let row = status_row(&m);
    assert!(row.contains("ctx 24k"), "{row}");
    assert!(!row.contains('%'), "{row}");
}

#[test]
fn tui2_no_context_figure_before_the_first_request() {
    let m = session(160, 8, Mode::Build);
    assert!(!status_row(&m).contains("ctx"));
}

#[test]
fn tui2_nearly_full_context_is_red() {
    let mut m = session(160, 8, Mode::Build);
    usage(&mut m, 190_000);
    let row = status_row(&m);
    assert!(row.contains("ctx 95% (190k/200k)"), "{row}");
    let terminal = render(&m, 160, 8);
    let buffer = terminal.backend().buffer();
    let x = u16::try_from(row.find("ctx").expect("ctx shown")).expect("fits");
    // `find` counts bytes; the row before "ctx" is ASCII.
    assert_eq!(buffer[(x, 6)].fg, Color::Red);
}

#[test]
fn tui2_busy_status_with_context_and_spinner() {
    let mut m = with_todos(120, 20, 1, true);
    let start = Instant::now();
    update(&mut m, Msg::Tick(start));
    turn_started(&mut m, 2, "go on");
    update(&mut m, Msg::Tick(start + Duration::from_secs(12)));
    m.spinner = 0;
    let row = status_row(&m);
    assert!(row.contains("⠋ 12s · ctx 12% (24k/200k)"), "{row}");
}

// ---- the composer ------------------------------------------------------------------

#[test]
fn tui4_a_long_line_wraps_in_the_composer_with_the_cursor_at_its_end() {
    let mut m = session(60, 16, Mode::Build);
    type_text(
        &mut m,
        "please read the permission service, list every entry point, and explain how deny rules win",
    );
    let mut terminal = render(&m, 60, 16);
    let shown = terminal.backend().to_string();
    snapshot("composer_wrapped", &shown);
    // The cursor sits after the last word, on the last wrapped row.
    let cursor = terminal.get_cursor_position().expect("cursor");
    assert_eq!(cursor, Position::new(2 + 37, 12), "{shown}");
}

#[test]
fn tui4_composer_height_is_capped_and_the_cursor_row_stays_visible() {
    let mut m = session(40, 24, Mode::Build);
    let text: Vec<String> = (1..=12).map(|i| format!("line {i}")).collect();
    // Typed, not pasted: a paste of more than ten lines is a chip.
    for (i, line) in text.iter().enumerate() {
        if i > 0 {
            update(&mut m, key_mod(KeyCode::Enter, KeyModifiers::SHIFT));
        }
        type_text(&mut m, line);
    }
    let mut terminal = render(&m, 40, 24);
    let shown = terminal.backend().to_string();
    assert!(shown.contains("line 12"), "{shown}");
    assert!(!shown.contains("line 4 "), "{shown}");
    // 8 rows of text between the borders, above the status and footer.
    let cursor = terminal.get_cursor_position().expect("cursor");
    assert_eq!(cursor.y, 24 - 3 - 1, "{shown}");
    // Moving to the top scrolls the first line back into view (the column
    // was clamped to the shorter "line 9" on the way).
    for _ in 0..11 {
        press(&mut m, KeyCode::Up, KeyModifiers::NONE);
    }
    assert_eq!(m.composer.cursor_position(), (0, 6));
    let shown = screen_of(&m);
    assert!(shown.contains("› line 1 "), "{shown}");
}

#[test]
fn tui4_word_moves_delete_word_home_end_and_kill_line() {
    let mut m = session(80, 12, Mode::Build);
    type_text(&mut m, "alpha beta gamma");
    press(&mut m, KeyCode::Left, KeyModifiers::ALT);
    assert_eq!(m.composer.cursor_position(), (0, 11));
    press(&mut m, KeyCode::Left, KeyModifiers::ALT);
    assert_eq!(m.composer.cursor_position(), (0, 6));
    press(&mut m, KeyCode::Right, KeyModifiers::ALT);
    assert_eq!(m.composer.cursor_position(), (0, 11));
    press(&mut m, KeyCode::End, KeyModifiers::NONE);
    press(&mut m, KeyCode::Char('w'), KeyModifiers::CONTROL);
    assert_eq!(m.composer.text(), "alpha beta ");
    press(&mut m, KeyCode::Home, KeyModifiers::NONE);
    assert_eq!(m.composer.cursor_position(), (0, 0));
    type_text(&mut m, "> ");
    assert_eq!(m.composer.text(), "> alpha beta ");
    press(&mut m, KeyCode::End, KeyModifiers::NONE);
    press(&mut m, KeyCode::Char('u'), KeyModifiers::CONTROL);
    assert!(m.composer.is_empty());
    // Home and End scroll the transcript while the composer is empty.
    for i in 0..60 {
        update(
            &mut m,
            Msg::Runtime(Event::Notice {
                message: format!("notice {i}"),
            }),
        );
    }
    press(&mut m, KeyCode::Home, KeyModifiers::NONE);
    assert!(m.scroll > 0, "Home scrolls back to the top");
    press(&mut m, KeyCode::End, KeyModifiers::NONE);
    assert_eq!(m.scroll, 0);
}

#[test]
fn tui4_arrows_move_inside_a_draft_and_recall_history_at_its_edges() {
    let mut m = session(80, 12, Mode::Build);
    type_text(&mut m, "earlier");
    press(&mut m, KeyCode::Enter, KeyModifiers::NONE);
    event(
        &mut m,
        Event::TurnFinished {
            end: TurnEnd::Completed,
            answer: None,
        },
    );
    type_text(&mut m, "first");
    press(&mut m, KeyCode::Enter, KeyModifiers::SHIFT);
    type_text(&mut m, "second");
    press(&mut m, KeyCode::Up, KeyModifiers::NONE);
    assert_eq!(m.composer.cursor_position(), (0, 5));
    assert_eq!(m.composer.text(), "first\nsecond");
    press(&mut m, KeyCode::Down, KeyModifiers::NONE);
    assert_eq!(m.composer.cursor_position(), (1, 5));
    // A typed draft is never replaced by history.
    press(&mut m, KeyCode::Down, KeyModifiers::NONE);
    press(&mut m, KeyCode::Up, KeyModifiers::NONE);
    press(&mut m, KeyCode::Up, KeyModifiers::NONE);
    assert_eq!(m.composer.text(), "first\nsecond");
    // Empty: ↑ recalls.
    press(&mut m, KeyCode::Char('c'), KeyModifiers::CONTROL);
    press(&mut m, KeyCode::Up, KeyModifiers::NONE);
    assert_eq!(m.composer.text(), "earlier");
}

#[test]
fn tui4_paste_and_take_round_trip_through_the_textarea() {
    let mut m = session(80, 12, Mode::Build);
    update(&mut m, Msg::Paste("one\r\ntwo\rthree".into()));
    assert_eq!(m.composer.text(), "one\ntwo\nthree");
    assert_eq!(m.composer.cursor_position(), (2, 5));
    let copy = m.clone();
    assert_eq!(copy, m);
    assert_eq!(m.composer.take(), "one\ntwo\nthree");
    assert!(m.composer.is_empty());
    m.composer.set("again\nand");
    assert_eq!(m.composer.text(), "again\nand");
    assert_eq!(m.composer.cursor_position(), (1, 3));
}

// ---- the mode key --------------------------------------------------------------------

#[test]
fn plan1_every_shift_tab_form_cycles_the_mode() {
    for (code, modifiers) in [
        (KeyCode::BackTab, KeyModifiers::NONE),
        (KeyCode::BackTab, KeyModifiers::SHIFT),
        (KeyCode::Tab, KeyModifiers::SHIFT),
    ] {
        let mut m = session(80, 12, Mode::Build);
        let before = m.state;
        press(&mut m, code, modifiers);
        assert_ne!(m.state, before, "{code:?} {modifiers:?}");
    }
}

// ---- the runtime's side ----------------------------------------------------------------

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn todo7_todo_write_sends_todos_changed_with_the_new_list() {
    use support::runtime_harness::{Dialect, Setup};

    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    // A new session has no todos: nothing is announced at start.
    assert_eq!(
        h.count(|e| matches!(e, Event::TodosChanged { .. })),
        0,
        "{}",
        h.log_text()
    );
    let args = json!({"todos": [
        {"content": "Read the code", "status": "completed", "priority": "high"},
        {"content": "Write the test", "status": "in_progress", "priority": "medium"},
        {"content": "Update the README", "status": "pending", "priority": "low"}
    ]})
    .to_string();
    h.enqueue_tool_calls(&[("call_1", "TodoWrite", &args)]);
    // An invalid list changes nothing and announces nothing.
    h.enqueue_tool_calls(&[("call_2", "TodoWrite", r#"{"todos": "nope"}"#)]);
    h.enqueue_text("Planned.");
    h.input("plan the work");
    let todos = h
        .wait_for("TodosChanged", |e| match e {
            Event::TodosChanged { todos } => Some(todos.clone()),
            _ => None,
        })
        .await;
    assert_eq!(
        todos
            .iter()
            .map(|t| (t.content.as_str(), t.status))
            .collect::<Vec<_>>(),
        vec![
            ("Read the code", TodoStatus::Completed),
            ("Write the test", TodoStatus::InProgress),
            ("Update the README", TodoStatus::Pending),
        ]
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert_eq!(
        h.count(|e| matches!(e, Event::TodosChanged { .. })),
        1,
        "{}",
        h.log_text()
    );
    // It comes after the call finished, so a UI sees the tool cell first.
    let finished = h
        .log
        .iter()
        .position(|e| matches!(e, Event::ToolCallFinished { call_id, .. } if call_id == "call_1"));
    let changed = h
        .log
        .iter()
        .position(|e| matches!(e, Event::TodosChanged { .. }));
    assert!(finished < changed, "{}", h.log_text());
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tui2_session_started_carries_the_context_window() {
    use support::runtime_harness::{Dialect, Setup};
    let h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    let window = h.log.iter().find_map(|e| match e {
        Event::SessionStarted { context_window, .. } => *context_window,
        _ => None,
    });
    assert_eq!(window, Some(100_000));
}

/// A runtime on the offline demo model in `dir`, with `start`.
fn demo_setup(
    dir: &std::path::Path,
    start: zcode::runtime::session::SessionStart,
) -> (zcode::runtime::RuntimeSetup, zcode::store::Store) {
    let workspace = std::fs::canonicalize(dir).expect("workspace");
    let home = dir.join(".zcode-home");
    let store = zcode::store::Store::open(zcode::store::default_db_path(&home)).expect("store");
    let setup = zcode::runtime::RuntimeSetup {
        project_id: zcode::config::project_id(&workspace),
        workspace,
        zcode_home: home,
        model: zcode::model::select::SelectedModel::offline_demo(),
        settings: Default::default(),
        hooks: Default::default(),
        disallowed_tools: Vec::new(),
        start,
        explicit_mode: None,
        config_mode: None,
        headless: false,
        broker: zcode::runtime::BrokerChoice::Deny,
        model_resolver: None,
        mcp: Default::default(),
        agents: Default::default(),
        client_files: None,
    };
    (setup, store)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn todo7_a_resumed_session_announces_its_stored_todos() {
    use zcode::protocol::Op;
    use zcode::runtime::session::SessionStart;
    let dir = tempfile::tempdir().expect("tempdir");
    let (setup, store) = demo_setup(dir.path(), SessionStart::New);
    let first = zcode::runtime::start(setup, store).expect("start");
    let id = first.session_id.clone();
    let _ = first.ops.send(Op::Shutdown);
    first.task.await.expect("runtime ends");

    let (setup, mut store) = demo_setup(dir.path(), SessionStart::Resume(id.clone()));
    store
        .replace_todos(&id, &todos(1, true))
        .expect("todos saved");
    let mut resumed = zcode::runtime::start(setup, store).expect("resume");
    let mut seen = Vec::new();
    // SessionStarted, the History replay, then the todos.
    while seen.len() < 3 {
        match resumed.events.recv().await {
            Some(event) => seen.push(event),
            None => break,
        }
    }
    let _ = resumed.ops.send(Op::Shutdown);
    assert!(
        matches!(
            seen.first(),
            Some(Event::SessionStarted { resumed: true, .. })
        ),
        "{seen:?}"
    );
    assert!(
        matches!(seen.get(1), Some(Event::History { .. })),
        "{seen:?}"
    );
    assert_eq!(
        seen.get(2),
        Some(&Event::TodosChanged {
            todos: todos(1, true)
        }),
        "{seen:?}"
    );
}
