//! The scripted provider (PROV-3) and the offline demo script.

use serde_json::{Value, json};
use zcode::model::accumulate::collect_reply;
use zcode::model::scripted::{DEMO_SCRIPT, SCRIPT_OVER, ScriptedProvider};
use zcode::model::{AssistantReply, FinishReason, ModelProvider, ModelRequest, StreamEvent};

use futures_util::StreamExt;

fn request(text: &str) -> ModelRequest {
    ModelRequest {
        model: "scripted".into(),
        system: String::new(),
        messages: vec![zcode::model::Message::User {
            content: text.into(),
        }],
        tools: vec![],
        max_output_tokens: None,
        context_window: None,
        reasoning: None,
        cache_key: None,
    }
}

async fn next(p: &ScriptedProvider) -> AssistantReply {
    collect_reply(p.stream(&request("go")).await.unwrap())
        .await
        .unwrap()
}

const SCRIPT: &str = r#"{"turns": [
  {"text": "Let me read the file you mentioned, it is short.", "reasoning": "The user wants the file.",
   "tool_calls": [{"name": "Read", "arguments": {"file_path": "src/main.rs"}},
                  {"id": "fixed", "name": "Glob", "arguments": "{not json"}]},
  {"text": "All done — ünïcödé 🌍 works.", "finish": "length"}
]}"#;

#[tokio::test]
async fn replays_turns_in_order_then_says_it_is_over() {
    let p = ScriptedProvider::from_json(SCRIPT).unwrap();
    assert!(!p.is_offline_demo());
    assert_eq!(p.label(), "scripted");

    let first = next(&p).await;
    assert_eq!(
        first.text,
        "Let me read the file you mentioned, it is short."
    );
    assert_eq!(first.reasoning, "The user wants the file.");
    assert_eq!(first.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(first.tool_calls.len(), 2);
    assert_eq!(first.tool_calls[0].name, "Read");
    assert!(first.tool_calls[0].id.starts_with("call_"));
    let args: Value = serde_json::from_str(&first.tool_calls[0].arguments).unwrap();
    assert_eq!(args, json!({"file_path": "src/main.rs"}));
    assert_eq!(first.tool_calls[1].id, "fixed");
    assert_eq!(first.tool_calls[1].arguments, "{not json");

    let second = next(&p).await;
    assert_eq!(second.text, "All done — ünïcödé 🌍 works.");
    assert_eq!(second.finish_reason, Some(FinishReason::Length));
    assert!(second.tool_calls.is_empty());

    for _ in 0..2 {
        let over = next(&p).await;
        assert_eq!(over.text, SCRIPT_OVER);
        assert_eq!(over.finish_reason, Some(FinishReason::Stop));
    }
    assert_eq!(p.requests_served(), 4);
    assert_eq!(p.requests()[0].messages, request("go").messages);
}

#[tokio::test]
async fn text_is_streamed_in_several_chunks() {
    let p = ScriptedProvider::from_json(SCRIPT).unwrap();
    let events: Vec<StreamEvent> = p
        .stream(&request("x"))
        .await
        .unwrap()
        .map(|e| e.unwrap())
        .collect()
        .await;
    let text_chunks = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::TextDelta(_)))
        .count();
    assert!((2..=4).contains(&text_chunks), "{events:?}");
    assert!(matches!(events.last(), Some(StreamEvent::Finished(_))));
}

#[tokio::test]
async fn empty_script_is_over_at_once() {
    let p = ScriptedProvider::from_json(r#"{"turns": []}"#).unwrap();
    assert_eq!(next(&p).await.text, SCRIPT_OVER);
    let p = ScriptedProvider::from_json(r#"{"turns": [], "end_text": "Bye."}"#).unwrap();
    assert_eq!(next(&p).await.text, "Bye.");
}

#[test]
fn invalid_scripts_are_errors() {
    for bad in [
        "",
        "[]",
        r#"{"turns": [{"txt": "typo"}]}"#,
        r#"{"turns": [{"finish": "maybe"}]}"#,
        r#"{"turns": [{"tool_calls": [{"name": " "}]}]}"#,
    ] {
        let err = ScriptedProvider::from_json(bad).unwrap_err();
        assert!(err.to_string().starts_with("invalid model script"), "{err}");
    }
}

#[test]
fn demo_script_loads() {
    assert!(ScriptedProvider::from_json(DEMO_SCRIPT).is_ok());
    let p = ScriptedProvider::offline_demo();
    assert!(p.is_offline_demo());
    assert_eq!(p.label(), "offline demo");
}

#[tokio::test]
async fn demo_shows_a_tool_call_then_explains_configuration() {
    let p = ScriptedProvider::offline_demo();
    let first = next(&p).await;
    assert_eq!(first.tool_calls.len(), 1);
    assert_eq!(first.tool_calls[0].name, "Glob");
    let args: Value = serde_json::from_str(&first.tool_calls[0].arguments).unwrap();
    assert_eq!(args, json!({"pattern": "*"}));
    assert_eq!(first.finish_reason, Some(FinishReason::ToolCalls));

    let second = next(&p).await;
    assert!(second.tool_calls.is_empty());
    for needle in [
        "offline demo",
        "OPENAI_BASE_URL",
        "http://127.0.0.1:8080/v1",
        "llama.cpp",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "providers",
        "$ZCODE_HOME/config.json",
        "--model provider/model",
    ] {
        assert!(
            second.text.contains(needle),
            "missing {needle}: {}",
            second.text
        );
    }

    let third = next(&p).await;
    assert!(third.text.contains("script is over"), "{}", third.text);
    assert!(third.text.contains("OPENAI_BASE_URL"), "{}", third.text);
}
