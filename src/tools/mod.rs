//! Workspace tools (TOOL-1..6): the `Tool` trait and the registry.

use crate::permission::capability::Capability;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

pub mod file_state;

pub use file_state::FileStateTracker;

/// What a tool call runs with.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The session's workspace root (absolute, canonical).
    pub workspace: PathBuf,
    pub session_id: String,
    /// Cancelled when the user interrupts the turn (RUN-2).
    pub cancel: CancellationToken,
    /// Which files were read in this session, for TOOL-2's overwrite guard.
    pub files: Arc<Mutex<FileStateTracker>>,
}

/// The result handed back to the model (and shown in the UI).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    pub content: String,
    pub is_error: bool,
    /// A unified diff of what an Edit/Write changed, for display.
    pub diff: Option<String>,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            ..Default::default()
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: true,
            diff: None,
        }
    }
}

/// A tool the model can call.
pub trait Tool: Send + Sync {
    fn name(&self) -> &'static str;
    /// The text the model reads (from `assets/tools/*.md`).
    fn description(&self) -> &'static str;
    /// JSON Schema of the input.
    fn input_schema(&self) -> Value;
    fn capability(&self) -> Capability;
    /// Normalizes and validates the input (APPR-1). The error text goes to
    /// the model as a tool error; the handler does not run.
    fn validate(&self, input: Value) -> Result<Value, String>;
    /// What the approval panel shows before the call runs (e.g. Edit's diff).
    fn preview(&self, _input: &Value, _ctx: &ToolContext) -> Option<String> {
        None
    }
    fn run<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput>;
}
