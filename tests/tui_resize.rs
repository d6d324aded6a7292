//! Resize re-lays out without artefacts (TUI-5): after the terminal
//! shrinks or grows, the frame drawn on the same terminal equals a frame
//! drawn from scratch at the new size.

mod support;

use serde_json::json;
use std::time::Instant;
use support::tui::{Session, event, render, screen, snapshot, turn_started};
use zcode::runtime::protocol::{AlwaysOption, Event, PermissionRequest, RequestKind};
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
