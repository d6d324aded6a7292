//! Resize re-lays out without artefacts (TUI-5): after the terminal
//! shrinks or grows, the frame drawn on the same terminal equals a frame
//! drawn from scratch at the new size.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use std::time::Instant;
use zcode::permission::mode::{ExecutionState, Mode};
use zcode::runtime::protocol::{AlwaysOption, Event, PermissionRequest, RequestKind};
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

fn event(m: &mut Model, e: Event) {
    update(m, Msg::Runtime(e));
}

/// A session with a reply, a tool cell and a Bash approval waiting.
fn busy_model(width: u16, height: u16) -> Model {
    let mut m = Model::new(width, height);
    event(
        &mut m,
        Event::SessionStarted {
            session_id: "sess_0123456789abcdef".into(),
            workspace: "/home/dev/project".into(),
            model: "local/qwen3".into(),
            provider: "Local".into(),
            offline_demo: false,
            state: ExecutionState::new(Mode::Build, false),
            resumed: false,
            context_window: 0,
        },
    );
    update(&mut m, Msg::Tick(Instant::now()));
    event(
        &mut m,
        Event::TurnStarted {
            turn: 1,
            text: "Find where the config is parsed and run the tests".into(),
        },
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
                reason: "Bash asks before running commands in build mode".into(),
                suggestions: Vec::new(),
                always: AlwaysOption::Project,
                full_access_available: true,
                preview: None,
            },
        },
    );
    m
}

fn fresh(model: &Model, width: u16, height: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(width, height)).expect("backend");
    t.draw(|f| view(model, f)).expect("draw");
    t.backend().to_string()
}

/// Draws at the first size, resizes the same terminal through every size
/// in `sizes` (sending `Msg::Resize` as the loop does), and checks each
/// frame against a fresh terminal of that size.
fn resize_through(sizes: &[(u16, u16)]) -> String {
    let (w0, h0) = sizes[0];
    let mut m = busy_model(w0, h0);
    let mut t = Terminal::new(TestBackend::new(w0, h0)).expect("backend");
    t.draw(|f| view(&m, f)).expect("draw");
    for &(w, h) in &sizes[1..] {
        t.backend_mut().resize(w, h);
        update(&mut m, Msg::Resize(w, h));
        t.autoresize().expect("autoresize");
        t.draw(|f| view(&m, f)).expect("draw");
        assert_eq!(
            t.backend().to_string(),
            fresh(&m, w, h),
            "frame after resizing to {w}x{h} differs from a fresh draw"
        );
    }
    t.backend().to_string()
}

#[test]
fn tui5_shrinking_relayouts_like_a_fresh_draw() {
    let last = resize_through(&[(120, 30), (80, 24), (60, 20)]);
    snap!("resize_120_to_60", last);
}

#[test]
fn tui5_growing_relayouts_like_a_fresh_draw() {
    let last = resize_through(&[(60, 20), (100, 28), (160, 40)]);
    snap!("resize_60_to_160", last);
}

#[test]
fn tui5_tiny_terminals_do_not_panic() {
    resize_through(&[(80, 24), (20, 6), (1, 1), (10, 3), (80, 24)]);
}
