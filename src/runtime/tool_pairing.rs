//! Repairs how tool calls and their results pair up in a reloaded
//! transcript (RUN-5). Both dialects require every result to follow the
//! assistant message that made its call, and every call to be answered
//! before the conversation goes on; a transcript written by a crashed run,
//! or by two runs at once, may break either rule.

use crate::model::Message;

/// What a call that has no stored result is answered with.
pub const MISSING_RESULT: &str =
    "The tool call was interrupted before it finished; its effect is unknown.";

/// Puts each call's result right after the assistant message that made
/// it (in call order), answers a call without a result with
/// [`MISSING_RESULT`] and drops results that answer no call (or answer
/// one twice). Other messages keep their order.
///
/// A call's result is the first one with its id after the call, before a
/// later call reuses that id (some models number calls per turn).
pub fn repair_tool_pairing(messages: Vec<Message>) -> Vec<Message> {
    let mut used = vec![false; messages.len()];
    let mut out = Vec::with_capacity(messages.len());
    for (at, message) in messages.iter().enumerate() {
        match message {
            Message::Tool { .. } => {}
            Message::Assistant { tool_calls, .. } => {
                out.push(message.clone());
                for call in tool_calls {
                    match find_result(&messages, at, &call.id, &used) {
                        Some(j) => {
                            used[j] = true;
                            out.push(messages[j].clone());
                        }
                        None => out.push(Message::Tool {
                            call_id: call.id.clone(),
                            content: MISSING_RESULT.into(),
                            is_error: true,
                        }),
                    }
                }
            }
            Message::User { .. } => out.push(message.clone()),
        }
    }
    out
}

/// The index of the result answering the call `call_id` made at `at`.
fn find_result(messages: &[Message], at: usize, call_id: &str, used: &[bool]) -> Option<usize> {
    for (j, message) in messages.iter().enumerate().skip(at + 1) {
        match message {
            Message::Tool { call_id: id, .. } if id == call_id && !used[j] => return Some(j),
            Message::Assistant { tool_calls, .. } if tool_calls.iter().any(|c| c.id == call_id) => {
                return None;
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolCall;

    fn user(text: &str) -> Message {
        Message::User {
            content: text.into(),
        }
    }

    fn calls(ids: &[&str]) -> Message {
        Message::Assistant {
            text: String::new(),
            tool_calls: ids
                .iter()
                .map(|id| ToolCall {
                    id: (*id).into(),
                    name: "Bash".into(),
                    arguments: "{}".into(),
                })
                .collect(),
        }
    }

    fn result(id: &str, content: &str) -> Message {
        Message::Tool {
            call_id: id.into(),
            content: content.into(),
            is_error: false,
        }
    }

    fn missing(id: &str) -> Message {
        Message::Tool {
            call_id: id.into(),
            content: MISSING_RESULT.into(),
            is_error: true,
        }
    }

    #[test]
    fn run5_a_whole_transcript_is_left_as_it_is() {
        let whole = vec![
            user("u"),
            calls(&["a", "b"]),
            result("a", "1"),
            result("b", "2"),
            user("v"),
        ];
        assert_eq!(repair_tool_pairing(whole.clone()), whole);
    }

    #[test]
    fn run5_results_for_no_call_and_second_results_are_dropped() {
        let damaged = vec![
            result("stray", "x"),
            user("u"),
            calls(&["a"]),
            result("a", "1"),
            result("a", "again"),
            result("other", "y"),
        ];
        assert_eq!(
            repair_tool_pairing(damaged),
            vec![user("u"), calls(&["a"]), result("a", "1")]
        );
    }

    #[test]
    fn run5_interleaved_runs_get_their_results_back_next_to_their_calls() {
        // Two runs appended to one session at once.
        let interleaved = vec![
            user("u1"),
            user("u2"),
            calls(&["p1"]),
            calls(&["p2"]),
            result("p1", "one"),
            user("u3"),
            result("p2", "two"),
        ];
        assert_eq!(
            repair_tool_pairing(interleaved),
            vec![
                user("u1"),
                user("u2"),
                calls(&["p1"]),
                result("p1", "one"),
                calls(&["p2"]),
                result("p2", "two"),
                user("u3"),
            ]
        );
    }

    #[test]
    fn run5_a_call_without_result_is_answered_and_a_reused_id_is_not_confused() {
        let transcript = vec![
            user("u"),
            calls(&["call_0"]),
            user("v"),
            calls(&["call_0"]),
            result("call_0", "second"),
        ];
        assert_eq!(
            repair_tool_pairing(transcript),
            vec![
                user("u"),
                calls(&["call_0"]),
                missing("call_0"),
                user("v"),
                calls(&["call_0"]),
                result("call_0", "second"),
            ]
        );
    }
}
