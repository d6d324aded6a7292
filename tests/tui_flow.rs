//! How the TUI flows while a turn runs: a call waiting for the user says
//! so and stops the clock, a scrolled-up view stays on what is being read,
//! the todo list below 100 columns (status line and Ctrl+T overlay), the
//! Ctrl+C quit hint that expires, and the transcript lines every mode
//! change leaves. Update-level tests, with snapshots in `snapshots/`.

mod support;

use crossterm::event::KeyCode;
use serde_json::json;
use std::time::{Duration, Instant};
use support::tui::{
    Session, bash_request, ctrl, event, key, screen_of, session, snapshot, turn_started, type_text,
};
use zcode::permission::mode::{ExecutionState, Mode, ModeSource};
use zcode::protocol::{Event, Op, PermissionReply, ResolvedBy, TurnEnd};
use zcode::store::{TodoItem, TodoPriority, TodoStatus};
use zcode::tui::cells::{Cell, ToolStatus};
use zcode::tui::focus::{Focus, focus};
use zcode::tui::screen::transcript_height;
use zcode::tui::{Cmd, Model, Msg, update};

fn tick(model: &mut Model, at: Instant) {
    update(model, Msg::Tick(at));
}

/// The status line (second row from the bottom), as drawn.
fn status_row(model: &Model) -> String {
    row(model, model.height - 2)
}

/// The footer (the last row), as drawn.
fn footer_row(model: &Model) -> String {
    row(model, model.height - 1)
}

fn row(model: &Model, y: u16) -> String {
    let terminal = support::tui::render(model, model.width, model.height);
    let buffer = terminal.backend().buffer();
    (0..model.width)
        .map(|x| buffer[(x, y)].symbol().to_string())
        .collect()
}

fn notices(model: &Model) -> Vec<String> {
    model
        .cells
        .iter()
        .filter_map(|c| match c {
            Cell::Notice { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn tool_status(model: &Model, id: &str) -> Option<ToolStatus> {
    model.cells.iter().find_map(|c| match c {
        Cell::Tool {
            call_id, status, ..
        } if call_id == id => Some(*status),
        _ => None,
    })
}

// ---- a call waiting for the user ---------------------------------------------

/// A turn whose Bash call `call_a` waits for approval.
fn waiting_on_bash(start: Instant) -> Model {
    let mut m = session(80, 20);
    tick(&mut m, start);
    turn_started(&mut m, 1, "run the tests");
    event(
        &mut m,
        Event::ToolCallStarted {
            call_id: "call_a".into(),
            tool: "Bash".into(),
            input: json!({"command": "cargo test --workspace"}),
        },
    );
    event(
        &mut m,
        Event::PermissionRequested {
            request: bash_request("a"),
        },
    );
    m
}

#[test]
fn ux_a_call_waiting_for_approval_says_waiting_for_you_not_running() {
    let start = Instant::now();
    let mut m = waiting_on_bash(start);
    assert_eq!(tool_status(&m, "call_a"), Some(ToolStatus::Waiting));
    let shown = screen_of(&m);
    assert!(shown.contains("└ waiting for you"), "{shown}");
    assert!(!shown.contains("└ running"), "{shown}");
    snapshot("tool_waiting_for_you", &shown);
    // Allowed: the call runs now.
    let cmds = update(&mut m, key(KeyCode::Char('1')));
    assert!(matches!(
        cmds.as_slice(),
        [Cmd::Send(Op::PermissionReply {
            reply: PermissionReply::AllowOnce,
            ..
        })]
    ));
    assert_eq!(tool_status(&m, "call_a"), Some(ToolStatus::Running));
    assert!(screen_of(&m).contains("└ running"));
}

#[test]
fn ux_a_call_resolved_by_a_hook_runs_again_and_a_denial_stays_denied() {
    let mut m = waiting_on_bash(Instant::now());
    event(
        &mut m,
        Event::PermissionResolved {
            request_id: "a".into(),
            by: ResolvedBy::Hook,
        },
    );
    assert_eq!(tool_status(&m, "call_a"), Some(ToolStatus::Running));

    let mut m = waiting_on_bash(Instant::now());
    update(&mut m, key(KeyCode::Esc));
    event(
        &mut m,
        Event::ToolCallDenied {
            denial: zcode::protocol::Denial {
                call_id: "call_a".into(),
                tool: "Bash".into(),
                input: json!({"command": "cargo test --workspace"}),
                rule_id: "user".into(),
                reason: "denied by the user".into(),
                agent: None,
            },
        },
    );
    assert_eq!(tool_status(&m, "call_a"), Some(ToolStatus::Denied));
}

#[test]
fn ux_a_turn_that_ends_while_a_call_waits_marks_it_failed() {
    let mut m = waiting_on_bash(Instant::now());
    event(
        &mut m,
        Event::TurnFinished {
            end: TurnEnd::Interrupted,
            answer: None,
        },
    );
    assert_eq!(tool_status(&m, "call_a"), Some(ToolStatus::Failed));
}

#[test]
fn ux_the_clock_stops_while_a_request_waits_and_the_status_says_so() {
    let start = Instant::now();
    let mut m = session(80, 20);
    tick(&mut m, start);
    turn_started(&mut m, 1, "run the tests");
    tick(&mut m, start + Duration::from_secs(3));
    event(
        &mut m,
        Event::PermissionRequested {
            request: bash_request("a"),
        },
    );
    tick(&mut m, start + Duration::from_secs(60));
    assert_eq!(m.elapsed(), Some(Duration::from_secs(3)));
    let status = status_row(&m);
    assert!(status.contains("waiting for you"), "{status}");
    assert!(!status.contains("60s"), "{status}");
    // Answered at 60 s: the model's clock goes on from 3 s.
    update(&mut m, key(KeyCode::Char('1')));
    tick(&mut m, start + Duration::from_secs(62));
    assert_eq!(m.elapsed(), Some(Duration::from_secs(5)));
    let status = status_row(&m);
    assert!(status.contains(" 5s"), "{status}");
    assert!(!status.contains("waiting for you"), "{status}");
    // A second wait in the same turn is not counted either.
    event(
        &mut m,
        Event::PermissionRequested {
            request: bash_request("b"),
        },
    );
    tick(&mut m, start + Duration::from_secs(100));
    event(
        &mut m,
        Event::PermissionResolved {
            request_id: "b".into(),
            by: ResolvedBy::Hook,
        },
    );
    tick(&mut m, start + Duration::from_secs(101));
    assert_eq!(m.elapsed(), Some(Duration::from_secs(6)));
    // The next turn starts from zero.
    event(
        &mut m,
        Event::TurnFinished {
            end: TurnEnd::Completed,
            answer: None,
        },
    );
    turn_started(&mut m, 2, "again");
    tick(&mut m, start + Duration::from_secs(104));
    assert_eq!(m.elapsed(), Some(Duration::from_secs(3)));
}

// ---- scrolled up while an answer streams -------------------------------------

/// The transcript rows a user reads: all but the last, which says how many
/// rows are below.
fn reading_rows(model: &Model) -> Vec<String> {
    let height = usize::from(transcript_height(model));
    screen_of(model)
        .lines()
        .take(height.saturating_sub(1))
        .map(str::to_string)
        .collect()
}

/// A turn that has streamed 60 numbered lines so far.
fn streaming_reply() -> Model {
    let mut m = session(80, 20);
    turn_started(&mut m, 1, "count");
    let text: String = (1..=60).map(|i| format!("line {i}\n\n")).collect();
    event(&mut m, Event::AssistantDelta { text });
    m
}

#[test]
fn ux_rows_streamed_below_a_scrolled_up_view_do_not_move_it() {
    let mut m = streaming_reply();
    update(&mut m, key(KeyCode::PageUp));
    update(&mut m, key(KeyCode::PageUp));
    let before = reading_rows(&m);
    assert!(before.iter().any(|r| r.contains("line ")), "{before:?}");
    for i in 61..=90 {
        event(
            &mut m,
            Event::AssistantDelta {
                text: format!("line {i}\n\n"),
            },
        );
    }
    assert_eq!(reading_rows(&m), before);
    // The stream ends; the view still does not move.
    let text: String = (1..=90).map(|i| format!("line {i}\n\n")).collect();
    event(&mut m, Event::AssistantMessage { text });
    assert_eq!(reading_rows(&m), before);
    snapshot("transcript_anchored_while_streaming", screen_of(&m));
}

#[test]
fn ux_end_after_scrolling_up_follows_the_stream_again() {
    let mut m = streaming_reply();
    update(&mut m, key(KeyCode::PageUp));
    event(
        &mut m,
        Event::AssistantDelta {
            text: "line 61\n\n".into(),
        },
    );
    assert!(m.scroll > 0);
    update(&mut m, key(KeyCode::End));
    assert_eq!(m.scroll, 0);
    event(
        &mut m,
        Event::AssistantDelta {
            text: "line 62\n\n".into(),
        },
    );
    assert_eq!(m.scroll, 0, "following the stream");
    assert!(screen_of(&m).contains("line 62"));
    // Scrolling down to the bottom follows too.
    update(&mut m, key(KeyCode::PageUp));
    update(&mut m, key(KeyCode::PageDown));
    assert_eq!(m.scroll, 0);
    event(
        &mut m,
        Event::AssistantDelta {
            text: "line 63\n\n".into(),
        },
    );
    assert_eq!(m.scroll, 0);
    assert!(screen_of(&m).contains("line 63"));
}

#[test]
fn ux_a_wheel_notch_in_a_streaming_batch_moves_from_what_was_shown() {
    let mut m = streaming_reply();
    update(&mut m, key(KeyCode::PageUp));
    let first = reading_rows(&m);
    // A delta and a wheel notch in one batch (one settle for both).
    zcode::tui::step(
        &mut m,
        Msg::Runtime(Event::AssistantDelta {
            text: "line 61\n\n".into(),
        }),
    );
    zcode::tui::step(&mut m, Msg::Scroll(3));
    zcode::tui::settle(&mut m);
    let second = reading_rows(&m);
    // Three rows back from the first view.
    assert_eq!(second[3..], first[..first.len() - 3], "{second:?}");
}

/// A Bash call `id` that listed 30 files.
fn listed_files(m: &mut Model, id: &str) {
    event(
        m,
        Event::ToolCallStarted {
            call_id: id.into(),
            tool: "Bash".into(),
            input: json!({"command": "ls"}),
        },
    );
    let output: String = (1..=30).map(|i| format!("{id}_file{i}.rs\n")).collect();
    event(
        m,
        Event::ToolCallFinished {
            call_id: id.into(),
            tool: "Bash".into(),
            output,
            is_error: false,
            exit_code: Some(0),
            diff: None,
        },
    );
}

#[test]
fn ux_tool_cells_expanding_above_and_below_keep_the_rows_being_read() {
    let mut m = session(80, 20);
    turn_started(&mut m, 1, "list and count");
    listed_files(&mut m, "above");
    let text: String = (1..=40).map(|i| format!("line {i}\n\n")).collect();
    event(&mut m, Event::AssistantMessage { text });
    listed_files(&mut m, "below");
    event(
        &mut m,
        Event::AssistantDelta {
            text: "done".into(),
        },
    );
    update(&mut m, key(KeyCode::PageUp));
    update(&mut m, key(KeyCode::PageUp));
    let before = reading_rows(&m);
    assert!(
        before.iter().all(|r| !r.contains("_file")),
        "both tool cells are off screen: {before:?}"
    );
    update(&mut m, ctrl('o'));
    assert_eq!(reading_rows(&m), before);
    update(&mut m, ctrl('o'));
    assert_eq!(reading_rows(&m), before);
}

// ---- the todo list below 100 columns ----------------------------------------

fn three_todos() -> Vec<TodoItem> {
    vec![
        TodoItem::new(
            "Read the permission service",
            TodoStatus::Completed,
            TodoPriority::Medium,
        ),
        TodoItem::new(
            "Add a test for prefix rules",
            TodoStatus::InProgress,
            TodoPriority::Medium,
        ),
        TodoItem::new(
            "Update the README",
            TodoStatus::Pending,
            TodoPriority::Medium,
        ),
    ]
}

fn with_todos(width: u16, height: u16) -> Model {
    let mut m = session(width, height);
    event(
        &mut m,
        Event::TodosChanged {
            todos: three_todos(),
        },
    );
    m
}

#[test]
fn ux_below_100_columns_the_status_line_shows_todo_progress() {
    let m = with_todos(80, 20);
    let status = status_row(&m);
    assert!(status.contains("todos 1/3"), "{status}");
    // Wide, the sidebar says it.
    let m = with_todos(120, 20);
    assert!(!status_row(&m).contains("todos 1/3"));
    // No list, nothing.
    assert!(!status_row(&session(80, 20)).contains("todos"));
}

#[test]
fn ux_ctrl_t_below_100_columns_opens_the_todos_as_an_overlay() {
    let mut m = with_todos(80, 20);
    assert!(
        footer_row(&m).contains("ctrl+t todos"),
        "{}",
        footer_row(&m)
    );
    update(&mut m, ctrl('t'));
    assert_eq!(focus(&m), Focus::Todos);
    let shown = screen_of(&m);
    assert!(shown.contains("Add a test for prefix rules"), "{shown}");
    assert!(footer_row(&m).contains("esc close"), "{}", footer_row(&m));
    snapshot("todos_overlay_80", &shown);
    // Esc closes it, without interrupting anything.
    assert!(update(&mut m, key(KeyCode::Esc)).is_empty());
    assert_eq!(focus(&m), Focus::Composer);
    assert!(!screen_of(&m).contains("Add a test for prefix rules"));
    // Ctrl+T toggles it.
    update(&mut m, ctrl('t'));
    assert_eq!(focus(&m), Focus::Todos);
    update(&mut m, ctrl('t'));
    assert_eq!(focus(&m), Focus::Composer);
    assert!(!m.sidebar_hidden, "the sidebar's choice is untouched");
}

#[test]
fn ux_the_todos_overlay_steps_back_for_a_request_and_closes_when_wide() {
    let mut m = with_todos(80, 20);
    update(&mut m, ctrl('t'));
    event(
        &mut m,
        Event::PermissionRequested {
            request: bash_request("a"),
        },
    );
    assert_eq!(focus(&m), Focus::Approval(Default::default()));
    update(&mut m, key(KeyCode::Char('1')));
    update(&mut m, Msg::Resize(120, 20));
    assert_eq!(focus(&m), Focus::Composer, "the sidebar shows instead");
    update(&mut m, Msg::Resize(80, 20));
    assert_eq!(focus(&m), Focus::Composer, "it stays closed");
}

#[test]
fn ux_ctrl_t_at_100_columns_still_toggles_the_sidebar() {
    let mut m = with_todos(120, 20);
    update(&mut m, ctrl('t'));
    assert!(m.sidebar_hidden);
    assert_eq!(focus(&m), Focus::Composer);
    update(&mut m, ctrl('t'));
    assert!(!m.sidebar_hidden);
}

#[test]
fn ux_ctrl_t_without_a_list_opens_nothing() {
    let mut m = session(80, 20);
    update(&mut m, ctrl('t'));
    assert_eq!(focus(&m), Focus::Composer);
    assert!(!footer_row(&m).contains("ctrl+t"));
}

// ---- Ctrl+C again to quit ------------------------------------------------------

#[test]
fn ux_the_quit_hint_expires_after_two_seconds() {
    let start = Instant::now();
    let mut m = session(80, 20);
    tick(&mut m, start);
    assert!(update(&mut m, ctrl('c')).is_empty());
    assert!(m.quit_armed);
    assert!(footer_row(&m).contains("again to quit"));
    tick(&mut m, start + Duration::from_millis(1_900));
    assert!(m.quit_armed, "still armed before two seconds");
    tick(&mut m, start + Duration::from_millis(2_100));
    assert!(!m.quit_armed);
    assert!(!footer_row(&m).contains("again to quit"));
    // A Ctrl+C now arms again rather than quitting.
    assert!(update(&mut m, ctrl('c')).is_empty());
    assert!(m.quit_armed);
    assert_eq!(update(&mut m, ctrl('c')), vec![Cmd::Quit]);
}

#[test]
fn ux_the_quit_hint_counts_from_when_it_was_armed() {
    let start = Instant::now();
    let mut m = session(80, 20);
    tick(&mut m, start);
    tick(&mut m, start + Duration::from_secs(10));
    update(&mut m, ctrl('c'));
    tick(&mut m, start + Duration::from_millis(11_500));
    assert!(m.quit_armed);
    assert_eq!(update(&mut m, ctrl('c')), vec![Cmd::Quit]);
}

// ---- the mode in the transcript ---------------------------------------------

const NOT_CARRIED_OVER: &str = "the last session here ended in yolo mode; this one starts without it: yolo is only chosen with /mode yolo or --mode yolo";
const RESUMED: &str = "yolo mode, as this session was left: every tool call runs without asking; shift+tab changes it";

#[test]
fn ux_yolo_not_carried_over_from_the_last_session_is_said_in_the_transcript() {
    let m = Session::new(80, 20)
        .mode(Mode::Build)
        .mode_source(ModeSource::YoloNotCarriedOver)
        .start();
    assert_eq!(notices(&m), vec![NOT_CARRIED_OVER.to_string()]);
    snapshot("yolo_not_carried_over", screen_of(&m));
    // Asked for with --mode, or another mode carried over: nothing to say.
    let flag = Session::new(80, 20)
        .mode(Mode::Yolo)
        .mode_source(ModeSource::Flag)
        .start();
    assert!(notices(&flag).is_empty(), "{:?}", notices(&flag));
    let edit = Session::new(80, 20)
        .mode(Mode::Edit)
        .mode_source(ModeSource::ProjectLast)
        .start();
    assert!(notices(&edit).is_empty(), "{:?}", notices(&edit));
    // A resumed session keeps its own yolo, and says so.
    let resumed = Session::new(80, 20)
        .mode(Mode::Yolo)
        .mode_source(ModeSource::Session)
        .start();
    assert_eq!(notices(&resumed), vec![RESUMED.to_string()]);
}

#[test]
fn plan1_shift_tab_cycles_build_edit_plan_and_never_lands_in_yolo() {
    let mut m = session(80, 20);
    let build = ExecutionState::new(Mode::Build, false);
    let mut seen = Vec::new();
    for _ in 0..6 {
        update(&mut m, key(KeyCode::BackTab));
        assert_ne!(m.state.mode, Mode::Yolo, "{seen:?}");
        seen.push(m.state);
    }
    assert_eq!(
        seen[..3],
        [
            ExecutionState::new(Mode::Edit, false),
            ExecutionState::new(Mode::Edit, true),
            build,
        ]
    );
    // From yolo (chosen with /mode yolo) the next press leaves it.
    type_text(&mut m, "/mode yolo");
    update(&mut m, key(KeyCode::Enter));
    assert_eq!(m.state, ExecutionState::new(Mode::Yolo, false));
    update(&mut m, key(KeyCode::BackTab));
    assert_eq!(m.state, build);
}

fn mode_lines(model: &Model) -> Vec<String> {
    notices(model)
        .into_iter()
        .filter(|n| n.contains(" mode: "))
        .collect()
}

fn confirmed(model: &mut Model, state: ExecutionState) {
    event(model, Event::SessionModeChanged { state });
}

#[test]
fn ux_shift_tab_leaves_one_line_even_once_the_runtime_confirms() {
    let mut m = session(80, 20);
    update(&mut m, key(KeyCode::BackTab));
    let edit = ExecutionState::new(Mode::Edit, false);
    assert_eq!(m.state, edit);
    confirmed(&mut m, edit);
    assert_eq!(
        mode_lines(&m),
        vec![
            "edit mode: Edit selected files or relevant workspace files automatically.".to_string()
        ]
    );
    snapshot("mode_change_line", screen_of(&m));
}

#[test]
fn ux_two_quick_mode_changes_leave_two_lines_and_no_flicker() {
    let mut m = session(80, 20);
    update(&mut m, key(KeyCode::BackTab));
    update(&mut m, key(KeyCode::BackTab));
    let plan = ExecutionState::new(Mode::Edit, true);
    assert_eq!(m.state, plan);
    confirmed(&mut m, ExecutionState::new(Mode::Edit, false));
    assert_eq!(
        m.state, plan,
        "the older confirmation does not undo the newer choice"
    );
    confirmed(&mut m, plan);
    assert_eq!(m.state, plan);
    assert_eq!(mode_lines(&m).len(), 2, "{:?}", mode_lines(&m));
}

#[test]
fn ux_slash_mode_plan_and_the_runtime_each_leave_a_line() {
    let mut m = session(80, 20);
    type_text(&mut m, "/mode yolo");
    update(&mut m, key(KeyCode::Enter));
    confirmed(&mut m, ExecutionState::new(Mode::Yolo, false));
    type_text(&mut m, "/plan");
    update(&mut m, key(KeyCode::Enter));
    confirmed(&mut m, ExecutionState::new(Mode::Yolo, true));
    // The plan is approved: the runtime leaves plan mode.
    confirmed(&mut m, ExecutionState::new(Mode::Yolo, false));
    // The same state again (a repeated announcement) adds nothing.
    confirmed(&mut m, ExecutionState::new(Mode::Yolo, false));
    let lines = mode_lines(&m);
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0].starts_with("yolo mode: "), "{lines:?}");
    assert!(lines[1].starts_with("plan mode: "), "{lines:?}");
    assert!(lines[2].starts_with("yolo mode: "), "{lines:?}");
}

#[test]
fn ux_a_mode_chosen_in_the_picker_leaves_a_line() {
    let mut m = session(80, 20);
    type_text(&mut m, "/mode");
    update(&mut m, key(KeyCode::Enter));
    assert_eq!(focus(&m), Focus::Picker);
    // The picker lists plan, build, edit, yolo, from the current one.
    update(&mut m, key(KeyCode::Down));
    update(&mut m, key(KeyCode::Enter));
    assert_eq!(mode_lines(&m).len(), 1, "{:?}", notices(&m));
    let shown = m.state;
    confirmed(&mut m, shown);
    assert_eq!(mode_lines(&m).len(), 1);
}

#[test]
fn ux_a_paste_under_the_todos_overlay_reaches_the_composer() {
    let mut m = with_todos(80, 20);
    update(&mut m, ctrl('t'));
    update(&mut m, Msg::Paste("keep this".into()));
    assert_eq!(m.composer.text(), "keep this");
}

#[test]
fn ux_an_emptied_todo_list_closes_its_overlay_for_good() {
    let mut m = with_todos(80, 20);
    update(&mut m, ctrl('t'));
    event(&mut m, Event::TodosChanged { todos: Vec::new() });
    assert_eq!(focus(&m), Focus::Composer);
    event(
        &mut m,
        Event::TodosChanged {
            todos: three_todos(),
        },
    );
    assert_eq!(focus(&m), Focus::Composer, "a new list does not pop up");
}
