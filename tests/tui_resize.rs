//! Resize re-lays out without artefacts (TUI-5): after the terminal
//! shrinks or grows, the frame drawn on the same terminal equals a frame
//! drawn from scratch at the new size.

mod support;

use serde_json::json;
use std::time::Instant;
use support::tui::{Session, event, render, screen, snapshot, turn_started};
use zcode::protocol::{AlwaysOption, Event, PermissionRequest, RequestKind};
use zcode::tui::{Model, Msg, update, view};

/// A session with a reply, a tool cell and a Bash approval waiting.
fn busy_model(width: u16, height: u16) -> Model {
    let mut m = Session::new(width, height)
        .model("local/qwen3", "Local")
        .start();
    update(&mut m, Msg::Tick(Instant::now()));
    turn_started(
        &mut m,
        1,
        "Find where the config is parsed and run the tests",
    );
    event(
        &mut m,
        Event::AssistantMessage {
            text: "The config is parsed in `src/config/file.rs`, which reads the JSON with line and column positions for errors. I will run the tests next.".into(),
        },
    );
    event(
        &mut m,
        Event::ToolCallStarted {
            call_id: "call_1".into(),
            tool: "Bash".into(),
            input: json!({"command": "cargo test --workspace --all-features -- --nocapture"}),
        },
    );
    event(
        &mut m,
        Event::PermissionRequested {
            request: PermissionRequest {
                request_id: "perm_1".into(),
                kind: RequestKind::Tool,
                call_id: "call_1".into(),
                tool: "Bash".into(),
                input: json!({"command": "cargo test --workspace --all-features -- --nocapture"}),
                rule_id: "ask.default".into(),
                reason: "runs a command that can change files".into(),
                suggestions: Vec::new(),
                always: AlwaysOption::Project,
                full_access_available: true,
                description: None,
                edit_mode_available: false,
                allowed_prompts: Vec::new(),
                preview: None,
                agent: None,
            },
        },
    );
    m
}

/// Draws at the first size, resizes the same terminal through every size
/// in `sizes` (sending `Msg::Resize` as the loop does), and checks each
/// frame against a fresh terminal of that size.
fn resize_through(sizes: &[(u16, u16)]) -> String {
    let (w0, h0) = sizes[0];
    let mut m = busy_model(w0, h0);
    let mut t = render(&m, w0, h0);
    for &(w, h) in &sizes[1..] {
        t.backend_mut().resize(w, h);
        update(&mut m, Msg::Resize(w, h));
        t.autoresize().expect("autoresize");
        t.draw(|f| view(&m, f)).expect("draw");
        assert_eq!(
            t.backend().to_string(),
            screen(&m, w, h),
            "frame after resizing to {w}x{h} differs from a fresh draw"
        );
    }
    t.backend().to_string()
}

#[test]
fn tui5_shrinking_relayouts_like_a_fresh_draw() {
    let last = resize_through(&[(120, 30), (80, 24), (60, 20)]);
    snapshot("resize_120_to_60", last);
}

#[test]
fn tui5_growing_relayouts_like_a_fresh_draw() {
    let last = resize_through(&[(60, 20), (100, 28), (160, 40)]);
    snapshot("resize_60_to_160", last);
}

#[test]
fn tui5_tiny_terminals_do_not_panic() {
    resize_through(&[(80, 24), (20, 6), (1, 1), (10, 3), (80, 24)]);
}

/// Every panel drawn at every small size (down to 1x1) and through resizes:
/// nothing panics, whatever is open (TUI-5).
#[test]
fn tui5_every_panel_survives_tiny_and_odd_sizes() {
    use zcode::store::{TodoItem, TodoPriority, TodoStatus};
    let todo = |content: &str, status| TodoItem {
        content: content.into(),
        status,
        priority: TodoPriority::Medium,
    };
    let with_todos = |m: &mut Model| {
        event(
            m,
            Event::TodosChanged {
                todos: vec![
                    todo("Read the parser", TodoStatus::Completed),
                    todo("Add a test for unknown keys", TodoStatus::InProgress),
                    todo("Update the README", TodoStatus::Pending),
                ],
            },
        );
    };
    let mut states: Vec<(&str, Model)> = Vec::new();
    let mut m = busy_model(120, 30);
    with_todos(&mut m);
    states.push(("bash approval + sidebar", m));

    let mut m = Session::new(120, 30).start();
    with_todos(&mut m);
    support::tui::type_text(&mut m, "/");
    assert!(
        zcode::tui::focus::slash_popup(&m).is_some(),
        "the popup is open"
    );
    states.push(("slash popup", m));

    let mut m = Session::new(120, 30).start();
    support::tui::type_text(&mut m, "/mode");
    update(&mut m, support::tui::key(crossterm::event::KeyCode::Enter));
    assert!(m.picker.is_some(), "the mode picker is open");
    states.push(("mode picker", m));

    let mut plan = busy_model(120, 30);
    plan.approvals.clear();
    let mut request = support::tui::bash_request("perm_plan");
    request.kind = RequestKind::Plan;
    request.tool = "ExitPlanMode".into();
    request.input =
        json!({"plan": "# Plan\n\n".to_string() + &"- step with some words\n".repeat(40)});
    request.always = AlwaysOption::None;
    event(&mut plan, Event::PermissionRequested { request });
    states.push(("plan approval", plan));

    let mut question = busy_model(120, 30);
    question.approvals.clear();
    let mut request = support::tui::bash_request("perm_q");
    request.kind = RequestKind::Question;
    request.tool = "AskUserQuestion".into();
    request.input = json!({"questions": [{"question": "Which CI provider should the project use?", "header": "CI", "multiSelect": true, "options": [{"label": "GitHub Actions", "description": "hosted runners"}, {"label": "GitLab CI", "description": "self-hosted"}]}]});
    request.always = AlwaysOption::None;
    event(&mut question, Event::PermissionRequested { request });
    update(&mut question, Msg::Tick(Instant::now()));
    assert!(
        question.panel().is_some_and(|p| p.question.is_some()),
        "the question panel is open"
    );
    states.push(("question panel", question));

    for (name, model) in states {
        for width in [1u16, 2, 3, 5, 8, 13, 21, 34, 55, 99, 100, 101] {
            for height in [1u16, 2, 3, 4, 6, 9, 14] {
                let mut m = model.clone();
                update(&mut m, Msg::Resize(width, height));
                let shown = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    screen(&m, width, height)
                }));
                assert!(shown.is_ok(), "{name} panicked at {width}x{height}");
            }
        }
    }
}
