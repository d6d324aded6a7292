//! TODO-1..4 TodoWrite: replaces the session's whole todo list.
//!
//! Input: `{"todos": [{"content", "status", "priority"}, ...]}`, checked
//! strictly (no other fields at either level, no item id). Every problem is
//! reported with the index of the item, e.g.
//! `todos[2].status must be one of pending, in_progress, completed (got "done")`.
//!
//! Result (TODO-3): one human line, then one line of JSON
//! `{"oldTodos": [...], "todos": [...], "summary": {"pending": n,
//! "in_progress": n, "completed": n, "total": n}}`. The description tells the
//! model so; [`result_json`] builds the JSON for other readers (the UI).
//! A saved list comes with [`SessionEffect::TodosChanged`], so the runtime
//! sends it to the front ends (TODO-7).

use super::input;
use super::input::kind;
use super::{SessionEffect, Tool, ToolContext, ToolOutput, blocking};
use crate::permission::capability::{Capability, SideEffectScope};
use crate::permission::declaration::ToolDeclaration;
use crate::store::{Store, TodoItem, TodoPriority, TodoStatus};
use futures_util::future::BoxFuture;
use serde_json::{Map, Value, json};
use std::sync::{Arc, Mutex};

pub const NAME: &str = "TodoWrite";

/// The capability of the todo tools: they change this session's state
/// only.
pub(crate) const TODO_STATE: Capability = Capability {
    side_effect_scope: SideEffectScope::Session,
    ..Capability::read_only_low("todo")
};

/// The fields of one item, in the order errors list them.
pub(crate) const ITEM_FIELDS: [&str; 3] = ["content", "status", "priority"];
/// How many problems one error message lists at most.
pub(crate) const MAX_REPORTED_PROBLEMS: usize = 10;

const STATUSES: &str = "pending, in_progress, completed";
const PRIORITIES: &str = "high, medium, low";

/// Parses and checks TodoWrite's input into the new list (TODO-1). The
/// error lists every problem found (at most [`MAX_REPORTED_PROBLEMS`]),
/// separated by `; `, after the usual `Invalid input for TodoWrite: `.
///
/// One leniency: `todos` given as a string holding a JSON array (a common
/// model mistake) is read as that array; its items are then checked as
/// strictly as any others.
pub(crate) fn parse_todos(input: Value) -> Result<Vec<TodoItem>, String> {
    let mut map = match input {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        other => {
            return Err(input::invalid(
                NAME,
                format!("expected a JSON object, got {}", kind(&other)),
            ));
        }
    };
    let mut problems = Vec::new();
    for key in map.keys().filter(|k| k.as_str() != "todos") {
        problems.push(format!(
            "unknown field \"{key}\"; the only field is \"todos\""
        ));
    }
    let todos = match map.remove("todos") {
        None | Some(Value::Null) => {
            problems.push("missing field \"todos\" (an array of items)".to_string());
            None
        }
        Some(Value::Array(items)) => Some(items),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text.trim()) {
            Ok(Value::Array(items)) => Some(items),
            _ => {
                problems.push("todos must be an array, got a string".to_string());
                None
            }
        },
        Some(other) => {
            problems.push(format!("todos must be an array, got {}", kind(&other)));
            None
        }
    };
    let mut items = Vec::new();
    for (index, value) in todos.unwrap_or_default().into_iter().enumerate() {
        match parse_item(index, value) {
            Ok(item) => items.push(item),
            Err(mut errs) => problems.append(&mut errs),
        }
    }
    if problems.is_empty() {
        return Ok(items);
    }
    let more = problems.len().saturating_sub(MAX_REPORTED_PROBLEMS);
    problems.truncate(MAX_REPORTED_PROBLEMS);
    let mut message = problems.join("; ");
    if more > 0 {
        message.push_str(&format!("; and {more} more problem{}", plural(more)));
    }
    Err(input::invalid(NAME, message))
}

fn parse_item(index: usize, value: Value) -> Result<TodoItem, Vec<String>> {
    let at = format!("todos[{index}]");
    let Value::Object(mut map) = value else {
        return Err(vec![format!(
            "{at} must be an object with content, status and priority, got {}",
            kind(&value)
        )]);
    };
    let mut problems = Vec::new();
    for key in map.keys().filter(|k| !ITEM_FIELDS.contains(&k.as_str())) {
        let hint = if key == "id" {
            " (items have no id: send the whole list, in order)"
        } else {
            ""
        };
        problems.push(format!(
            "{at} has unknown field \"{key}\"{hint}; the fields are content, status, priority"
        ));
    }
    let content = match map.remove("content") {
        None | Some(Value::Null) => {
            problems.push(format!("{at}.content is required"));
            None
        }
        Some(Value::String(s)) if s.trim().is_empty() => {
            problems.push(format!("{at}.content must not be empty"));
            None
        }
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            problems.push(format!(
                "{at}.content must be a string, got {}",
                kind(&other)
            ));
            None
        }
    };
    let status = one_of(&at, "status", map.remove("status"), STATUSES, |s| {
        TodoStatus::parse(s)
    })
    .map_err(|e| problems.push(e))
    .ok();
    let priority = one_of(&at, "priority", map.remove("priority"), PRIORITIES, |s| {
        TodoPriority::parse(s)
    })
    .map_err(|e| problems.push(e))
    .ok();
    match (content, status, priority) {
        (Some(content), Some(status), Some(priority)) if problems.is_empty() => Ok(TodoItem {
            content,
            status,
            priority,
        }),
        _ => Err(problems),
    }
}

fn one_of<T>(
    at: &str,
    key: &str,
    value: Option<Value>,
    allowed: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T, String> {
    let rule = format!("{at}.{key} must be one of {allowed}");
    match value {
        None | Some(Value::Null) => Err(format!("{at}.{key} is required (one of {allowed})")),
        Some(Value::String(s)) => parse(&s).ok_or_else(|| format!("{rule} (got \"{s}\")")),
        Some(other) => Err(format!("{rule} (got {})", kind(&other))),
    }
}

/// `{"pending": n, "in_progress": n, "completed": n, "total": n}`.
pub fn summary(todos: &[TodoItem]) -> Value {
    let count = |status| todos.iter().filter(|t| t.status == status).count();
    json!({
        "pending": count(TodoStatus::Pending),
        "in_progress": count(TodoStatus::InProgress),
        "completed": count(TodoStatus::Completed),
        "total": todos.len(),
    })
}

/// One line: `3 items: 1 pending, 1 in progress, 1 completed`.
pub(crate) fn summary_line(todos: &[TodoItem]) -> String {
    let count = |status| todos.iter().filter(|t| t.status == status).count();
    if todos.is_empty() {
        return "0 items (the list is empty)".to_string();
    }
    format!(
        "{} item{}: {} pending, {} in progress, {} completed",
        todos.len(),
        plural(todos.len()),
        count(TodoStatus::Pending),
        count(TodoStatus::InProgress),
        count(TodoStatus::Completed)
    )
}

/// The JSON part of TodoWrite's result (TODO-3).
pub(crate) fn result_json(old: &[TodoItem], new: &[TodoItem]) -> Value {
    json!({
        "oldTodos": old,
        "todos": new,
        "summary": summary(new),
    })
}

/// TodoWrite's whole result text: a human line, then the JSON on one line.
pub(crate) fn result_text(old: &[TodoItem], new: &[TodoItem]) -> String {
    let mut line = format!("Todo list updated: {}.", summary_line(new));
    let in_progress = new
        .iter()
        .filter(|t| t.status == TodoStatus::InProgress)
        .count();
    if in_progress > 1 {
        line.push_str(&format!(
            " Note: {in_progress} items are in_progress; keep one at a time when you can."
        ));
    }
    format!("{line}\n{}", result_json(old, new))
}

/// The session's store, or the tool error every session-state tool gives
/// without one (TODO-4).
pub(crate) fn session_store(
    tool: &str,
    ctx: &ToolContext,
) -> Result<Arc<Mutex<Store>>, ToolOutput> {
    ctx.session
        .as_ref()
        .map(|s| s.store.clone())
        .ok_or_else(|| {
            ToolOutput::error(format!(
                "{tool} is unavailable here: this context has no session to keep a todo list in."
            ))
        })
}

pub(crate) fn lock(store: &Mutex<Store>) -> std::sync::MutexGuard<'_, Store> {
    store.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Debug, Default)]
pub struct TodoWriteTool;

/// What TodoWrite is to the permission engine, the approval and the TUI.
pub(crate) static DECLARATION: ToolDeclaration =
    ToolDeclaration::builtin(NAME, TODO_STATE).tracking_todos();

impl Tool for TodoWriteTool {
    fn description(&self) -> &'static str {
        include_str!("../../assets/tools/TodoWrite.md")
    }

    fn compact_description(&self) -> std::borrow::Cow<'static, str> {
        include_str!("../../assets/tools/compact/TodoWrite.md").into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "todos": {
                    "type": "array",
                    "description": "The complete new todo list, in order; it replaces the current list",
                    "items": {
                        "type": "object",
                        "properties": {
                            "content": {
                                "type": "string",
                                "minLength": 1,
                                "description": "What to do, as a short imperative sentence"
                            },
                            "status": {
                                "type": "string",
                                "enum": ["pending", "in_progress", "completed"]
                            },
                            "priority": {
                                "type": "string",
                                "enum": ["high", "medium", "low"]
                            }
                        },
                        "required": ["content", "status", "priority"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["todos"],
            "additionalProperties": false
        })
    }

    fn declaration(&self) -> &ToolDeclaration {
        &DECLARATION
    }

    fn validate(&self, input: Value) -> Result<Value, String> {
        let todos = parse_todos(input)?;
        Ok(json!({ "todos": todos }))
    }

    fn run<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let todos = match parse_todos(input) {
                Ok(todos) => todos,
                Err(e) => return ToolOutput::error(e),
            };
            let store = match session_store(NAME, ctx) {
                Ok(store) => store,
                Err(e) => return e,
            };
            let session_id = ctx.session_id.clone();
            blocking(
                move || match lock(&store).replace_todos(&session_id, &todos) {
                    Ok(old) => ToolOutput::ok(result_text(&old, &todos))
                        .with_effect(SessionEffect::TodosChanged),
                    Err(e) => ToolOutput::error(format!("Cannot save the todo list: {e}")),
                },
            )
            .await
        })
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
