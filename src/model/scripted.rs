//! A provider that replays a JSON script of assistant turns with no
//! network (PROV-3): for tests and for the offline demo.
//!
//! ```json
//! {"turns": [
//!   {"text": "Looking around.", "reasoning": "…",
//!    "tool_calls": [{"name": "Read", "arguments": {"file_path": "a.rs"}}],
//!    "finish": "tool_calls"},
//!   {"text": "Done."}
//! ],
//!  "end_text": "optional: the answer once the turns are used up"}
//! ```
//!
//! Each request takes the next turn, whatever it asks. Text is streamed in
//! a few chunks. `finish` is `stop`, `tool_calls`, `length` or `other`;
//! without it a turn with tool calls finishes with `tool_calls`, else
//! `stop`. A tool call may give its `id`; else one is generated. Once the
//! turns are used up, every request gets a text saying the script is over.

use std::sync::Mutex;

use futures_util::future::BoxFuture;
use futures_util::stream::{self, StreamExt};
use serde::Deserialize;
use serde_json::Value;

use super::{
    FinishReason, ModelProvider, ModelRequest, ProviderError, ReplyStream, StreamEvent, Usage,
};

/// The offline demo's script.
pub const DEMO_SCRIPT: &str = include_str!("../../assets/demo-script.json");

/// The text once a script's turns are used up, unless it sets `end_text`.
pub const SCRIPT_OVER: &str =
    "The script of this scripted model is over: it has no more turns to play.";

/// A whole script.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    pub turns: Vec<ScriptedTurn>,
    #[serde(default)]
    pub end_text: Option<String>,
}

/// One assistant turn of a script.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedTurn {
    #[serde(default)]
    pub text: String,
    #[serde(default)]
    pub reasoning: String,
    #[serde(default)]
    pub tool_calls: Vec<ScriptedToolCall>,
    #[serde(default)]
    pub finish: Option<FinishReason>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedToolCall {
    #[serde(default)]
    pub id: Option<String>,
    pub name: String,
    /// Any JSON value; a string is sent as it is (so a script can send
    /// invalid arguments), anything else as its JSON text.
    #[serde(default = "empty_object")]
    pub arguments: Value,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

/// Why a script could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("invalid model script: {0}")]
pub struct ScriptError(String);

#[derive(Debug, Default)]
struct Progress {
    next: usize,
    requests: Vec<ModelRequest>,
}

/// Replays a [`Script`].
#[derive(Debug)]
pub struct ScriptedProvider {
    script: Script,
    demo: bool,
    progress: Mutex<Progress>,
}

impl ScriptedProvider {
    pub fn new(script: Script) -> Self {
        ScriptedProvider {
            script,
            demo: false,
            progress: Mutex::new(Progress::default()),
        }
    }

    pub fn from_turns(turns: Vec<ScriptedTurn>) -> Self {
        Self::new(Script {
            turns,
            end_text: None,
        })
    }

    /// Parses a JSON script.
    pub fn from_json(text: &str) -> Result<Self, ScriptError> {
        let script: Script = serde_json::from_str(text).map_err(|e| ScriptError(e.to_string()))?;
        for (i, turn) in script.turns.iter().enumerate() {
            if turn.tool_calls.iter().any(|c| c.name.trim().is_empty()) {
                return Err(ScriptError(format!(
                    "turns[{i}]: a tool call has an empty name"
                )));
            }
        }
        Ok(Self::new(script))
    }

    /// The offline demo: [`DEMO_SCRIPT`], flagged as such.
    pub fn offline_demo() -> Self {
        let mut p = match Self::from_json(DEMO_SCRIPT) {
            Ok(p) => p,
            // The asset is tested; never fail at runtime because of it.
            Err(e) => Self::new(Script {
                turns: Vec::new(),
                end_text: Some(format!("The offline demo script is broken: {e}")),
            }),
        };
        p.demo = true;
        p
    }

    /// How many requests were answered so far.
    pub fn requests_served(&self) -> usize {
        self.lock().requests.len()
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<ModelRequest> {
        self.lock().requests.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Progress> {
        self.progress
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn next_turn(&self, request: &ModelRequest) -> ScriptedTurn {
        let mut progress = self.lock();
        progress.requests.push(request.clone());
        let turn = self.script.turns.get(progress.next).cloned();
        progress.next += 1;
        turn.unwrap_or_else(|| ScriptedTurn {
            text: self
                .script
                .end_text
                .clone()
                .unwrap_or_else(|| SCRIPT_OVER.to_string()),
            finish: Some(FinishReason::Stop),
            ..ScriptedTurn::default()
        })
    }
}

/// Splits text into up to four pieces at character boundaries (at spaces
/// where possible), so that the stream looks like one.
fn chunks(text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    let chars = text.chars().count();
    let target = chars.div_ceil(4).max(1);
    let mut out = Vec::new();
    let mut current = String::new();
    let mut count = 0;
    for c in text.chars() {
        current.push(c);
        count += 1;
        if count >= target && (c == ' ' || c == '\n' || count >= target * 2) {
            out.push(std::mem::take(&mut current));
            count = 0;
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn events(turn: ScriptedTurn) -> Vec<StreamEvent> {
    let mut out = Vec::new();
    for c in chunks(&turn.reasoning) {
        out.push(StreamEvent::ReasoningDelta(c));
    }
    for c in chunks(&turn.text) {
        out.push(StreamEvent::TextDelta(c));
    }
    let has_calls = !turn.tool_calls.is_empty();
    for (index, call) in turn.tool_calls.into_iter().enumerate() {
        let id = call
            .id
            .unwrap_or_else(|| format!("call_{}", uuid::Uuid::new_v4().simple()));
        out.push(StreamEvent::ToolCallStart {
            index,
            id: Some(id),
            name: Some(call.name),
        });
        let arguments = match call.arguments {
            Value::String(s) => s,
            other => other.to_string(),
        };
        out.push(StreamEvent::ToolCallDelta { index, arguments });
    }
    let output_tokens = out
        .iter()
        .map(|e| match e {
            StreamEvent::TextDelta(t) | StreamEvent::ReasoningDelta(t) => t.len() as u64 / 4,
            StreamEvent::ToolCallDelta { arguments, .. } => arguments.len() as u64 / 4,
            _ => 0,
        })
        .sum();
    out.push(StreamEvent::Usage(Usage {
        input_tokens: 0,
        output_tokens,
        ..Default::default()
    }));
    let finish = turn.finish.unwrap_or(if has_calls {
        FinishReason::ToolCalls
    } else {
        FinishReason::Stop
    });
    out.push(StreamEvent::Finished(finish));
    out
}

impl ModelProvider for ScriptedProvider {
    fn label(&self) -> &str {
        if self.demo {
            "offline demo"
        } else {
            "scripted"
        }
    }

    fn is_offline_demo(&self) -> bool {
        self.demo
    }

    fn stream<'a>(
        &'a self,
        request: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<ReplyStream, ProviderError>> {
        let turn = self.next_turn(request);
        Box::pin(async move {
            let events = events(turn);
            Ok(stream::iter(events.into_iter().map(Ok)).boxed())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_rejoin_to_the_text() {
        for text in [
            "",
            "a",
            "hello world",
            "ünïcödé 🌍 text that is long enough",
        ] {
            let c = chunks(text);
            assert_eq!(c.concat(), text);
            assert!(c.len() <= 4 || text.is_empty(), "{c:?}");
        }
        assert!(chunks("one two three four five six").len() > 1);
    }
}
