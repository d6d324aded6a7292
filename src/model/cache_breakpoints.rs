//! Anthropic prompt-cache breakpoints (`cache_control: {"type":
//! "ephemeral"}`) on a Messages request body.
//!
//! The cache is a prefix cache over tools, system and messages, in that
//! order; a breakpoint asks the API to write the prefix up to its block and
//! to look for an earlier entry ending at one of the blocks before it. So
//! four breakpoints, the API's limit:
//!
//! - the last tool definition and the system prompt: the stable prefix,
//!   the same for every request of a session;
//! - the last block of the newest user message: the conversation's tail,
//!   written now and read by the next request;
//! - the last block of the user message before it: where the previous
//!   request put its tail, so this request reads exactly that entry however
//!   many blocks the last reply and its tool results added.
//!
//! The markers are not part of the cached content, so moving them forward
//! each turn keeps every earlier entry valid.

use serde_json::{Map, Value, json};

/// The most breakpoints one request may carry.
pub const MAX_BREAKPOINTS: usize = 4;

/// User messages whose last block is marked, newest first.
const TAIL_MARKS: usize = 2;

fn marker() -> Value {
    json!({"type": "ephemeral"})
}

/// Adds the breakpoints to a built body (`tools`, `system` as a string,
/// `messages` with block arrays).
pub fn mark(body: &mut Map<String, Value>) {
    if let Some(Value::Array(tools)) = body.get_mut("tools")
        && let Some(Value::Object(last)) = tools.last_mut()
    {
        last.insert("cache_control".into(), marker());
    }
    if let Some(Value::String(system)) = body.get("system") {
        // The marker needs a block: the string becomes one text block.
        let block = json!([{"type": "text", "text": system, "cache_control": marker()}]);
        body.insert("system".into(), block);
    }
    if let Some(Value::Array(messages)) = body.get_mut("messages") {
        let users = messages
            .iter_mut()
            .rev()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .take(TAIL_MARKS);
        for message in users {
            if let Some(Value::Object(block)) = message
                .get_mut("content")
                .and_then(Value::as_array_mut)
                .and_then(|blocks| blocks.last_mut())
            {
                block.insert("cache_control".into(), marker());
            }
        }
    }
}

/// How many breakpoints a body carries (for tests and the benchmark).
pub fn count(body: &Value) -> usize {
    match body {
        Value::Object(map) => {
            usize::from(map.contains_key("cache_control")) + map.values().map(count).sum::<usize>()
        }
        Value::Array(items) => items.iter().map(count).sum(),
        _ => 0,
    }
}

/// The body with every breakpoint removed: what the cache compares.
pub fn without_markers(body: &Value) -> Value {
    match body {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != "cache_control")
                .map(|(k, v)| (k.clone(), without_markers(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_markers).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(users: usize) -> Map<String, Value> {
        let mut messages = Vec::new();
        for i in 0..users {
            messages.push(json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("t{i}"), "is_error": false},
                {"type": "text", "text": "reminder"}
            ]}));
            messages.push(json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": format!("t{}", i + 1), "name": "Glob", "input": {}}
            ]}));
        }
        let Value::Object(map) = json!({
            "system": "rules",
            "tools": [{"name": "A"}, {"name": "B"}],
            "messages": messages,
        }) else {
            unreachable!()
        };
        map
    }

    #[test]
    fn cache_anthropic_breakpoints_never_exceed_four() {
        for users in 0..30 {
            let mut b = body(users);
            mark(&mut b);
            let b = Value::Object(b);
            assert!(count(&b) <= MAX_BREAKPOINTS, "{users} user messages");
            assert_eq!(count(&b), 2 + users.min(2), "{users} user messages");
        }
    }

    #[test]
    fn cache_anthropic_breakpoints_on_prefix_and_the_two_newest_user_messages() {
        let mut b = body(3);
        mark(&mut b);
        let b = Value::Object(b);
        assert_eq!(b["tools"][1]["cache_control"], marker());
        assert!(b["tools"][0].get("cache_control").is_none());
        assert_eq!(
            b["system"],
            json!([{"type": "text", "text": "rules", "cache_control": {"type": "ephemeral"}}])
        );
        let marked: Vec<usize> = b["messages"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .filter(|(_, m)| count(m) > 0)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(marked, vec![2, 4]);
        assert_eq!(b["messages"][4]["content"][1]["cache_control"], marker());
        assert_eq!(count(&without_markers(&b)), 0);
    }
}
