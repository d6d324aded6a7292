//! Prompt caches reuse a request's prefix, so every request of a session
//! must extend the previous one without rewriting it: reminders (plan
//! mode, todo, a changed permission mode), environment facts and tool
//! results are appended, never edited in. Seen through the real HTTP
//! providers on a local fake server, in both dialects; with the cache key
//! (OpenAI) and the breakpoints (Anthropic) on every request.

#![cfg(unix)]

mod support;

use serde_json::{Value, json};
use support::runtime_harness::{Dialect, Harness, Setup};
use zcode::model::cache_breakpoints;
use zcode::permission::mode::{Mode, ModeChoice};
use zcode::protocol::{Op, PermissionReply, TurnEnd};

const TODO_HEADLINE: &str = "The TodoWrite tool hasn't been used recently.";

/// A session of two turns: plan mode with eleven tool calls (the todo
/// reminder comes due), an approved plan (plan mode ends), a switch to
/// yolo, then a command and a final answer.
async fn long_session(dialect: Dialect) -> Harness {
    let setup = Setup::new(dialect, Mode::Build).plan();
    std::fs::write(setup.workspace_dir().join("notes.md"), "# notes\n").unwrap();
    let mut h = setup.start().await;
    for i in 0..11 {
        let id = format!("call_{i}");
        if i % 2 == 0 {
            h.enqueue_tool_calls(&[(&id, "Glob", r#"{"pattern":"*"}"#)]);
        } else {
            h.enqueue_tool_calls(&[(&id, "Read", r#"{"file_path":"notes.md"}"#)]);
        }
    }
    let plan = json!({"plan": "1. Write the parser\n2. Test it"}).to_string();
    h.enqueue_tool_calls(&[("call_plan", "ExitPlanMode", &plan)]);
    h.enqueue_text("plan approved, starting");
    h.input("plan the parser");
    let request = h.permission_request().await;
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);

    h.send(Op::SetMode {
        choice: ModeChoice::Mode(Mode::Yolo),
    });
    h.enqueue_tool_calls(&[("call_echo", "Bash", r#"{"command":"echo hi"}"#)]);
    h.enqueue_text("done");
    h.input("go on");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    h
}

/// What a request says apart from its output limit: system, tools and
/// messages, with Anthropic's breakpoints taken out (they are not part of
/// what the cache compares, and move forward each turn).
fn prompt(body: &Value) -> (Value, Value, Vec<String>) {
    let body = cache_breakpoints::without_markers(body);
    let messages = body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|m| serde_json::to_string(m).unwrap())
        .collect();
    (body["system"].clone(), body["tools"].clone(), messages)
}

fn assert_append_only(h: &Harness) {
    let bodies: Vec<Value> = h.server.requests().iter().map(|r| r.json()).collect();
    assert!(bodies.len() >= 15, "{} requests", bodies.len());
    for (i, pair) in bodies.windows(2).enumerate() {
        let (system, tools, earlier) = prompt(&pair[0]);
        let (next_system, next_tools, later) = prompt(&pair[1]);
        assert_eq!(
            system,
            next_system,
            "request {} changed the system prompt",
            i + 1
        );
        assert_eq!(tools, next_tools, "request {} changed the tools", i + 1);
        assert!(
            later.len() > earlier.len(),
            "request {} does not extend request {i}",
            i + 1
        );
        for (k, (a, b)) in earlier.iter().zip(&later).enumerate() {
            assert_eq!(a, b, "request {} rewrote message {k} of request {i}", i + 1);
        }
    }
    // The session exercised what could rewrite: each reminder was sent.
    let last = bodies.len() - 1;
    let texts = h.user_texts(last).join("\n");
    assert!(texts.contains(TODO_HEADLINE), "no todo reminder");
    assert!(texts.contains("The permission mode is now yolo"), "{texts}");
    assert!(texts.contains("<system-reminder>"), "{texts}");
}

#[tokio::test(flavor = "multi_thread")]
async fn cache_openai_requests_are_append_only_and_carry_the_session_key() {
    let h = long_session(Dialect::OpenAi).await;
    assert_append_only(&h);
    for (i, r) in h.server.requests().iter().enumerate() {
        assert_eq!(
            r.json()["prompt_cache_key"],
            h.session_id.as_str(),
            "request {i}"
        );
        // Nothing that would make llama.cpp drop its prompt cache.
        assert!(r.json().get("cache_prompt").is_none());
        assert!(r.json().get("n_keep").is_none());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn cache_anthropic_requests_are_append_only_with_moving_breakpoints() {
    let h = long_session(Dialect::Anthropic).await;
    assert_append_only(&h);
    let requests = h.server.requests();
    for (i, r) in requests.iter().enumerate() {
        let body = r.json();
        let marks = cache_breakpoints::count(&body);
        assert!(
            marks <= cache_breakpoints::MAX_BREAKPOINTS,
            "request {i}: {marks}"
        );
        // The stable prefix is marked, and so is the conversation's tail.
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        let tools = body["tools"].as_array().unwrap();
        assert_eq!(tools.last().unwrap()["cache_control"]["type"], "ephemeral");
        let messages = body["messages"].as_array().unwrap();
        let tail = messages.last().unwrap()["content"].as_array().unwrap();
        assert_eq!(
            tail.last().unwrap()["cache_control"]["type"],
            "ephemeral",
            "request {i}"
        );
        assert!(body.get("prompt_cache_key").is_none());
    }
}
