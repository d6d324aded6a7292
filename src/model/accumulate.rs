//! Folds a stream of [`StreamEvent`]s into one [`AssistantReply`].

use std::collections::BTreeMap;

use futures_util::StreamExt;

use super::{AssistantReply, ProviderError, ReplyStream, StreamEvent, ToolCall};

#[derive(Debug, Default, Clone)]
struct PartialCall {
    id: Option<String>,
    name: Option<String>,
    arguments: String,
}

/// Builds an [`AssistantReply`] from stream events.
///
/// - Text and reasoning deltas are concatenated.
/// - Tool calls are keyed by `index` and come out in index order. The first
///   non-empty id and name win (servers may send them once or repeat them on
///   every chunk); argument fragments are concatenated. A call that never
///   got an id is given `call_<uuid>`; one that never got arguments gets
///   `{}`.
/// - A `Usage` event carries running totals: the last one wins.
/// - The last finish reason wins.
#[derive(Debug, Default, Clone)]
pub struct ReplyBuilder {
    text: String,
    reasoning: String,
    calls: BTreeMap<usize, PartialCall>,
    usage: super::Usage,
    finish_reason: Option<super::FinishReason>,
}

impl ReplyBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, event: StreamEvent) {
        match event {
            StreamEvent::TextDelta(t) => self.text.push_str(&t),
            StreamEvent::ReasoningDelta(t) => self.reasoning.push_str(&t),
            StreamEvent::ToolCallStart { index, id, name } => {
                let call = self.calls.entry(index).or_default();
                if call.id.is_none() {
                    call.id = id.filter(|s| !s.is_empty());
                }
                if call.name.is_none() {
                    call.name = name.filter(|s| !s.is_empty());
                }
            }
            StreamEvent::ToolCallDelta { index, arguments } => {
                self.calls
                    .entry(index)
                    .or_default()
                    .arguments
                    .push_str(&arguments);
            }
            StreamEvent::Usage(u) => self.usage = u,
            StreamEvent::Finished(r) => self.finish_reason = Some(r),
        }
    }

    /// The text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// True when nothing but usage has arrived.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty() && self.reasoning.is_empty() && self.calls.is_empty()
    }

    pub fn finish(self) -> AssistantReply {
        let tool_calls = self
            .calls
            .into_values()
            .map(|c| ToolCall {
                id: c
                    .id
                    .unwrap_or_else(|| format!("call_{}", uuid::Uuid::new_v4().simple())),
                name: c.name.unwrap_or_default(),
                arguments: if c.arguments.trim().is_empty() {
                    "{}".to_string()
                } else {
                    c.arguments
                },
            })
            .collect();
        AssistantReply {
            text: self.text,
            reasoning: self.reasoning,
            tool_calls,
            finish_reason: self.finish_reason,
            usage: self.usage,
        }
    }
}

/// Drains a reply stream into a whole reply; the first error ends it.
pub async fn collect_reply(mut stream: ReplyStream) -> Result<AssistantReply, ProviderError> {
    let mut builder = ReplyBuilder::new();
    while let Some(event) = stream.next().await {
        builder.push(event?);
    }
    Ok(builder.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FinishReason, Usage};

    fn build(events: Vec<StreamEvent>) -> AssistantReply {
        let mut b = ReplyBuilder::new();
        for e in events {
            b.push(e);
        }
        b.finish()
    }

    fn start(index: usize, id: Option<&str>, name: Option<&str>) -> StreamEvent {
        StreamEvent::ToolCallStart {
            index,
            id: id.map(String::from),
            name: name.map(String::from),
        }
    }

    fn args(index: usize, a: &str) -> StreamEvent {
        StreamEvent::ToolCallDelta {
            index,
            arguments: a.to_string(),
        }
    }

    #[test]
    fn concatenates_text_and_reasoning() {
        let r = build(vec![
            StreamEvent::ReasoningDelta("think ".into()),
            StreamEvent::TextDelta("Hel".into()),
            StreamEvent::ReasoningDelta("more".into()),
            StreamEvent::TextDelta("lo".into()),
            StreamEvent::Finished(FinishReason::Stop),
        ]);
        assert_eq!(r.text, "Hello");
        assert_eq!(r.reasoning, "think more");
        assert_eq!(r.finish_reason, Some(FinishReason::Stop));
        assert!(r.tool_calls.is_empty());
    }

    #[test]
    fn id_sent_once_or_on_every_chunk() {
        let once = build(vec![
            start(0, Some("a"), Some("Read")),
            args(0, "{\"x\""),
            args(0, ":1}"),
        ]);
        let every = build(vec![
            start(0, Some("a"), Some("Read")),
            args(0, "{\"x\""),
            start(0, Some("a"), Some("Read")),
            args(0, ":1}"),
        ]);
        assert_eq!(once, every);
        assert_eq!(once.tool_calls[0].id, "a");
        assert_eq!(once.tool_calls[0].name, "Read");
        assert_eq!(once.tool_calls[0].arguments, "{\"x\":1}");
    }

    #[test]
    fn id_may_come_after_the_name() {
        let r = build(vec![
            start(0, None, Some("Read")),
            args(0, "{}"),
            start(0, Some("late"), None),
        ]);
        assert_eq!(r.tool_calls[0].id, "late");
    }

    #[test]
    fn parallel_calls_keyed_by_index() {
        let r = build(vec![
            start(1, Some("b"), Some("Glob")),
            start(0, Some("a"), Some("Read")),
            args(1, "{\"pattern\":"),
            args(0, "{\"file_path\":\"x\"}"),
            args(1, "\"*\"}"),
        ]);
        assert_eq!(r.tool_calls.len(), 2);
        assert_eq!(r.tool_calls[0].id, "a");
        assert_eq!(r.tool_calls[1].id, "b");
        assert_eq!(r.tool_calls[1].arguments, "{\"pattern\":\"*\"}");
    }

    #[test]
    fn missing_id_is_generated_and_missing_args_are_empty_object() {
        let r = build(vec![start(0, None, Some("Glob")), start(0, Some(""), None)]);
        assert!(r.tool_calls[0].id.starts_with("call_"));
        assert!(r.tool_calls[0].id.len() > 10);
        assert_eq!(r.tool_calls[0].arguments, "{}");
    }

    #[test]
    fn usage_keeps_the_last_totals() {
        let r = build(vec![
            StreamEvent::Usage(Usage {
                input_tokens: 10,
                output_tokens: 1,
                ..Default::default()
            }),
            StreamEvent::Usage(Usage {
                input_tokens: 10,
                output_tokens: 7,
                ..Default::default()
            }),
        ]);
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: 10,
                output_tokens: 7,
                ..Default::default()
            }
        );
        assert_eq!(r.finish_reason, None);
    }
}
