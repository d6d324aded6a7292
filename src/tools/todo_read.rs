//! TODO-5 TodoRead: the session's current todo list.
//!
//! Result: one human line, then one line of JSON `{"todos": [...],
//! "summary": {...}}` with the items and summary of TodoWrite's result.

use super::input::{no_parameters, no_parameters_schema};
use super::todo_write::{lock, session_store, summary, summary_line};
use super::{Tool, ToolContext, ToolOutput, blocking};
use crate::permission::declaration::ToolDeclaration;

use crate::store::TodoItem;
use futures_util::future::BoxFuture;
use serde_json::{Value, json};

pub const NAME: &str = "TodoRead";

/// TodoRead's result text: a human line, then the JSON on one line.
pub(crate) fn result_text(todos: &[TodoItem]) -> String {
    format!(
        "Current todo list: {}.\n{}",
        summary_line(todos),
        json!({ "todos": todos, "summary": summary(todos) })
    )
}

#[derive(Debug, Default)]
pub struct TodoReadTool;

/// What TodoRead is to the permission engine, the approval and the TUI.
pub(crate) static DECLARATION: ToolDeclaration =
    ToolDeclaration::builtin(NAME, super::todo_write::TODO_STATE);

impl Tool for TodoReadTool {
    fn description(&self) -> &'static str {
        include_str!("../../assets/tools/TodoRead.md")
    }

    fn compact_description(&self) -> std::borrow::Cow<'static, str> {
        include_str!("../../assets/tools/compact/TodoRead.md").into()
    }

    fn input_schema(&self) -> Value {
        no_parameters_schema()
    }

    fn declaration(&self) -> &ToolDeclaration {
        &DECLARATION
    }

    fn validate(&self, input: Value) -> Result<Value, String> {
        no_parameters(NAME, input)
    }

    fn run<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            if let Err(e) = no_parameters(NAME, input) {
                return ToolOutput::error(e);
            }
            let store = match session_store(NAME, ctx) {
                Ok(store) => store,
                Err(e) => return e,
            };
            let session_id = ctx.session_id.clone();
            blocking(move || match lock(&store).todos(&session_id) {
                Ok(todos) => ToolOutput::ok(result_text(&todos)),
                Err(e) => ToolOutput::error(format!("Cannot read the todo list: {e}")),
            })
            .await
        })
    }
}
