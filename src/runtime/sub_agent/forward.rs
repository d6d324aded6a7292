//! A sub-agent's events on their way to the front end: tagged with the
//! Agent call that started it, except what belongs to the session as a
//! whole (an approval closing, the mode changing), which goes on as it
//! is. Its token usage is added to the session's as it arrives.

use crate::model::{Message, Usage};
use crate::protocol::Event;
use crate::runtime::core::SessionCore;
use tokio::sync::mpsc::UnboundedReceiver;

/// What the forwarding saw of a sub-agent's run.
#[derive(Debug, Default)]
pub(super) struct Progress {
    pub tool_calls: u32,
    pub usage: Usage,
    /// Its final answer, as its turn reported it.
    pub answer: Option<String>,
    /// The last error it reported (a failed request).
    pub last_error: Option<String>,
}

/// Passes the sub-agent's events on until its core is gone.
pub(super) async fn forward(
    parent: &SessionCore,
    call_id: &str,
    label: &str,
    mut events: UnboundedReceiver<Event>,
) -> Progress {
    let mut progress = Progress::default();
    while let Some(event) = events.recv().await {
        match &event {
            // The session's own business: a UI closes the approval panel
            // or shows the new mode wherever they came from.
            Event::PermissionResolved { .. } | Event::SessionModeChanged { .. } => {
                parent.emit(event);
                continue;
            }
            Event::ToolCallStarted { .. } => progress.tool_calls += 1,
            Event::Usage { usage, .. } => {
                progress.usage.add(*usage);
                parent.add_usage(*usage);
            }
            Event::Error { message } => progress.last_error = Some(message.clone()),
            Event::TurnFinished { answer, .. } => progress.answer = answer.clone(),
            _ => {}
        }
        parent.emit(Event::SubAgentEvent {
            parent_tool_use_id: call_id.to_string(),
            label: label.to_string(),
            event: Box::new(event),
        });
    }
    progress
}

/// The last text the sub-agent wrote, for a report it never finished.
pub(super) fn last_text(core: &SessionCore) -> Option<String> {
    core.conversation()
        .history
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::Assistant { text, .. } if !text.trim().is_empty() => Some(text.clone()),
            _ => None,
        })
}
