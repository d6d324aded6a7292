//! TodoWrite and TodoRead (TODO-1..5), their capabilities (CAP-2) and
//! their place in the registry (DIS-2).

use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use zcode::permission::mode::ExecutionState;
use zcode::store::{NewSession, Store, TodoItem, TodoPriority, TodoStatus};
use zcode::tools::registry::builtin_capability;
use zcode::tools::{
    ListModelsTool, SessionEffect, SessionServices, TodoReadTool, TodoWriteTool, Tool, ToolContext,
    ToolOutput, ToolRegistry,
};

const SESSION: &str = "sess_todo";

struct Fixture {
    store: Arc<Mutex<Store>>,
    ctx: ToolContext,
}

fn fixture() -> Fixture {
    let mut store = Store::open_in_memory().unwrap();
    store
        .create_session(&NewSession {
            id: SESSION.to_string(),
            workspace: "/tmp/ws".to_string(),
            project_id: "proj".to_string(),
            title: None,
            model: Some("p/m".to_string()),
            execution: ExecutionState::default(),
        })
        .unwrap();
    let store = Arc::new(Mutex::new(store));
    let mut ctx = ToolContext::new(PathBuf::from("/tmp/ws"), SESSION);
    ctx.session = Some(SessionServices {
        store: store.clone(),
        zcode_home: PathBuf::from("/nonexistent-zcode-home"),
        model_ref: "p/m".to_string(),
        model: None,
    });
    Fixture { store, ctx }
}

impl Fixture {
    async fn write(&self, input: Value) -> ToolOutput {
        let input = TodoWriteTool.validate(input).unwrap();
        TodoWriteTool.run(input, &self.ctx).await
    }

    async fn read(&self) -> ToolOutput {
        let input = TodoReadTool.validate(json!({})).unwrap();
        TodoReadTool.run(input, &self.ctx).await
    }

    fn stored(&self) -> Vec<TodoItem> {
        self.store.lock().unwrap().todos(SESSION).unwrap()
    }
}

/// The JSON line of a result (the line after the human summary).
fn json_of(out: &ToolOutput) -> Value {
    assert!(!out.is_error, "{}", out.content);
    let (_, json) = out.content.split_once('\n').expect("two lines");
    serde_json::from_str(json).unwrap()
}

fn item(content: &str, status: &str, priority: &str) -> Value {
    json!({"content": content, "status": status, "priority": priority})
}

fn err(input: Value) -> String {
    TodoWriteTool.validate(input).unwrap_err()
}

const P: &str = "Invalid input for TodoWrite: ";

// ---------------------------------------------------------------- TODO-1

#[test]
fn todo1_top_level_errors() {
    assert_eq!(
        err(json!([1])),
        format!("{P}expected a JSON object, got an array")
    );
    assert_eq!(
        err(json!("x")),
        format!("{P}expected a JSON object, got a string")
    );
    assert_eq!(
        err(json!({})),
        format!("{P}missing field \"todos\" (an array of items)")
    );
    assert_eq!(
        err(Value::Null),
        format!("{P}missing field \"todos\" (an array of items)")
    );
    assert_eq!(
        err(json!({"todos": null})),
        format!("{P}missing field \"todos\" (an array of items)")
    );
    assert_eq!(
        err(json!({"todos": [], "merge": true})),
        format!("{P}unknown field \"merge\"; the only field is \"todos\"")
    );
    assert_eq!(
        err(json!({"todos": 3})),
        format!("{P}todos must be an array, got a number")
    );
    assert_eq!(
        err(json!({"todos": {"content": "x"}})),
        format!("{P}todos must be an array, got an object")
    );
    assert_eq!(
        err(json!({"todos": "not json"})),
        format!("{P}todos must be an array, got a string")
    );
}

#[test]
fn todo1_item_shape_errors() {
    assert_eq!(
        err(json!({"todos": ["write tests"]})),
        format!("{P}todos[0] must be an object with content, status and priority, got a string")
    );
    assert_eq!(
        err(json!({"todos": [item("a", "pending", "low"), null]})),
        format!("{P}todos[1] must be an object with content, status and priority, got null")
    );
    let mut with_id = item("a", "pending", "low");
    with_id["id"] = json!("1");
    assert_eq!(
        err(json!({"todos": [with_id]})),
        format!(
            "{P}todos[0] has unknown field \"id\" (items have no id: send the whole list, in order); the fields are content, status, priority"
        )
    );
    let mut with_note = item("a", "pending", "low");
    with_note["note"] = json!("x");
    assert_eq!(
        err(json!({"todos": [with_note]})),
        format!("{P}todos[0] has unknown field \"note\"; the fields are content, status, priority")
    );
}

#[test]
fn todo1_content_errors() {
    assert_eq!(
        err(json!({"todos": [{"status": "pending", "priority": "low"}]})),
        format!("{P}todos[0].content is required")
    );
    assert_eq!(
        err(json!({"todos": [item("  ", "pending", "low")]})),
        format!("{P}todos[0].content must not be empty")
    );
    assert_eq!(
        err(json!({"todos": [item("", "pending", "low")]})),
        format!("{P}todos[0].content must not be empty")
    );
    assert_eq!(
        err(json!({"todos": [{"content": 5, "status": "pending", "priority": "low"}]})),
        format!("{P}todos[0].content must be a string, got a number")
    );
}

#[test]
fn todo1_status_errors() {
    let todos = json!({"todos": [
        item("a", "pending", "low"),
        item("b", "completed", "low"),
        item("c", "done", "low"),
    ]});
    assert_eq!(
        err(todos),
        format!("{P}todos[2].status must be one of pending, in_progress, completed (got \"done\")")
    );
    assert_eq!(
        err(json!({"todos": [item("a", "Pending", "low")]})),
        format!(
            "{P}todos[0].status must be one of pending, in_progress, completed (got \"Pending\")"
        )
    );
    assert_eq!(
        err(json!({"todos": [{"content": "a", "status": 1, "priority": "low"}]})),
        format!("{P}todos[0].status must be one of pending, in_progress, completed (got a number)")
    );
    assert_eq!(
        err(json!({"todos": [{"content": "a", "priority": "low"}]})),
        format!("{P}todos[0].status is required (one of pending, in_progress, completed)")
    );
}

#[test]
fn todo1_priority_errors() {
    assert_eq!(
        err(json!({"todos": [item("a", "pending", "low"), item("b", "pending", "urgent")]})),
        format!("{P}todos[1].priority must be one of high, medium, low (got \"urgent\")")
    );
    assert_eq!(
        err(json!({"todos": [{"content": "a", "status": "pending", "priority": ["high"]}]})),
        format!("{P}todos[0].priority must be one of high, medium, low (got an array)")
    );
    assert_eq!(
        err(json!({"todos": [{"content": "a", "status": "pending"}]})),
        format!("{P}todos[0].priority is required (one of high, medium, low)")
    );
}

#[test]
fn todo1_every_problem_is_listed_up_to_ten() {
    assert_eq!(
        err(json!({"x": 1, "todos": [{"id": 1, "content": "", "status": "x"}]})),
        format!(
            "{P}unknown field \"x\"; the only field is \"todos\"; \
             todos[0] has unknown field \"id\" (items have no id: send the whole list, in order); \
             the fields are content, status, priority; \
             todos[0].content must not be empty; \
             todos[0].status must be one of pending, in_progress, completed (got \"x\"); \
             todos[0].priority is required (one of high, medium, low)"
        )
    );
    let many: Vec<Value> = (0..12)
        .map(|i| item(&format!("t{i}"), "bad", "low"))
        .collect();
    let text = err(json!({ "todos": many }));
    assert!(text.contains("todos[9].status"), "{text}");
    assert!(!text.contains("todos[10]"), "{text}");
    assert!(text.ends_with("; and 2 more problems"), "{text}");
}

#[test]
fn todo1_valid_input_is_normalized() {
    let input = json!({"todos": [item("a", "in_progress", "high")]});
    assert_eq!(TodoWriteTool.validate(input.clone()).unwrap(), input);
    assert_eq!(
        TodoWriteTool.validate(json!({"todos": []})).unwrap(),
        json!({"todos": []})
    );
    // A list sent as a JSON string is read as that list.
    let as_string = json!({"todos": json!([item("a", "pending", "low")]).to_string()});
    assert_eq!(
        TodoWriteTool.validate(as_string).unwrap(),
        json!({"todos": [item("a", "pending", "low")]})
    );
}

#[test]
fn todo1_schema_is_strict() {
    let schema = TodoWriteTool.input_schema();
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(schema["required"], json!(["todos"]));
    let items = &schema["properties"]["todos"]["items"];
    assert_eq!(items["additionalProperties"], json!(false));
    assert_eq!(items["required"], json!(["content", "status", "priority"]));
    assert_eq!(
        items["properties"]["status"]["enum"],
        json!(["pending", "in_progress", "completed"])
    );
    assert_eq!(
        items["properties"]["priority"]["enum"],
        json!(["high", "medium", "low"])
    );
    assert!(items["properties"].get("id").is_none());
}

// ---------------------------------------------------------- TODO-2, TODO-3

#[tokio::test]
async fn todo2_write_replaces_the_whole_list_and_returns_the_old_one() {
    let f = fixture();
    let first = json!([
        item("Read the code", "completed", "high"),
        item("Write the fix", "in_progress", "high"),
        item("Run the tests", "pending", "medium"),
    ]);
    let out = f.write(json!({ "todos": first })).await;
    assert_eq!(
        out.content.lines().next().unwrap(),
        "Todo list updated: 3 items: 1 pending, 1 in progress, 1 completed."
    );
    assert_eq!(
        json_of(&out),
        json!({
            "oldTodos": [],
            "todos": first,
            "summary": {"pending": 1, "in_progress": 1, "completed": 1, "total": 3}
        })
    );
    assert_eq!(
        f.stored(),
        vec![
            TodoItem::new("Read the code", TodoStatus::Completed, TodoPriority::High),
            TodoItem::new("Write the fix", TodoStatus::InProgress, TodoPriority::High),
            TodoItem::new("Run the tests", TodoStatus::Pending, TodoPriority::Medium),
        ]
    );

    let second = json!([item("Ship", "pending", "low")]);
    let out = f.write(json!({ "todos": second })).await;
    let result = json_of(&out);
    assert_eq!(result["oldTodos"], first);
    assert_eq!(result["todos"], second);
    assert_eq!(
        result["summary"],
        json!({"pending": 1, "in_progress": 0, "completed": 0, "total": 1})
    );
    assert_eq!(f.stored().len(), 1);

    let out = f.write(json!({"todos": []})).await;
    assert_eq!(
        out.content.lines().next().unwrap(),
        "Todo list updated: 0 items (the list is empty)."
    );
    assert_eq!(json_of(&out)["oldTodos"], second);
    assert!(f.stored().is_empty());
}

#[tokio::test]
async fn todo2_several_in_progress_are_accepted_with_a_note() {
    let f = fixture();
    let out = f
        .write(
            json!({"todos": [item("a", "in_progress", "high"), item("b", "in_progress", "low")]}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        out.content.lines().next().unwrap(),
        "Todo list updated: 2 items: 0 pending, 2 in progress, 0 completed. \
         Note: 2 items are in_progress; keep one at a time when you can."
    );
    assert_eq!(json_of(&out)["summary"]["in_progress"], json!(2));
    assert_eq!(f.stored().len(), 2);
}

#[tokio::test]
async fn todo1_invalid_input_reaching_run_saves_nothing() {
    let f = fixture();
    f.write(json!({"todos": [item("keep", "pending", "low")]}))
        .await;
    let out = TodoWriteTool
        .run(json!({"todos": [item("x", "done", "low")]}), &f.ctx)
        .await;
    assert!(out.is_error);
    assert_eq!(
        out.content,
        format!("{P}todos[0].status must be one of pending, in_progress, completed (got \"done\")")
    );
    assert_eq!(
        f.stored(),
        vec![TodoItem::new(
            "keep",
            TodoStatus::Pending,
            TodoPriority::Low
        )]
    );
}

// ---------------------------------------------------------------- TODO-4

#[tokio::test]
async fn todo4_without_a_session_both_tools_fail_clearly() {
    let ctx = ToolContext::new(PathBuf::from("/tmp/ws"), SESSION);
    let out = TodoWriteTool
        .run(json!({"todos": [item("a", "pending", "low")]}), &ctx)
        .await;
    assert!(out.is_error);
    assert_eq!(
        out.content,
        "TodoWrite is unavailable here: this context has no session to keep a todo list in."
    );
    let out = TodoReadTool.run(json!({}), &ctx).await;
    assert!(out.is_error);
    assert_eq!(
        out.content,
        "TodoRead is unavailable here: this context has no session to keep a todo list in."
    );
}

#[tokio::test]
async fn todo4_unknown_session_is_a_tool_error() {
    let f = fixture();
    let mut ctx = f.ctx.clone();
    ctx.session_id = "sess_gone".to_string();
    let out = TodoWriteTool
        .run(json!({"todos": [item("a", "pending", "low")]}), &ctx)
        .await;
    assert!(out.is_error);
    assert!(
        out.content.starts_with("Cannot save the todo list: "),
        "{}",
        out.content
    );
    assert!(out.content.contains("sess_gone"), "{}", out.content);
    assert!(out.effects.is_empty());
}

#[tokio::test]
async fn todo7_a_saved_list_tells_the_runtime_to_announce_it() {
    let f = fixture();
    let out = f
        .write(json!({"todos": [item("a", "pending", "low")]}))
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(out.effects, vec![SessionEffect::TodosChanged]);
    // Reading changes nothing to announce.
    assert!(f.read().await.effects.is_empty());
}

// ---------------------------------------------------------------- TODO-5

#[tokio::test]
async fn todo5_read_returns_the_current_list_and_summary() {
    let f = fixture();
    let out = f.read().await;
    assert_eq!(
        out.content.lines().next().unwrap(),
        "Current todo list: 0 items (the list is empty)."
    );
    assert_eq!(
        json_of(&out),
        json!({
            "todos": [],
            "summary": {"pending": 0, "in_progress": 0, "completed": 0, "total": 0}
        })
    );

    let list = json!([
        item("a", "completed", "low"),
        item("b", "completed", "medium"),
        item("c", "pending", "high"),
    ]);
    f.write(json!({ "todos": list })).await;
    let out = f.read().await;
    assert_eq!(
        out.content.lines().next().unwrap(),
        "Current todo list: 3 items: 1 pending, 0 in progress, 2 completed."
    );
    assert_eq!(
        json_of(&out),
        json!({
            "todos": list,
            "summary": {"pending": 1, "in_progress": 0, "completed": 2, "total": 3}
        })
    );
}

#[test]
fn todo5_read_takes_no_parameters() {
    assert_eq!(TodoReadTool.validate(json!({})).unwrap(), json!({}));
    assert_eq!(TodoReadTool.validate(Value::Null).unwrap(), json!({}));
    assert_eq!(
        TodoReadTool.validate(json!({"all": true})).unwrap_err(),
        "Invalid input for TodoRead: unknown field \"all\"; TodoRead takes no parameters (pass {})"
    );
    assert_eq!(
        TodoReadTool.validate(json!([])).unwrap_err(),
        "Invalid input for TodoRead: expected a JSON object, got an array"
    );
    assert_eq!(
        TodoReadTool.input_schema(),
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
}

// ------------------------------------------------------------ CAP-2, DIS-2

#[test]
fn cap2_session_tools_declare_the_builtin_capability() {
    let tools: Vec<Arc<dyn Tool>> = vec![
        Arc::new(TodoWriteTool),
        Arc::new(TodoReadTool),
        Arc::new(ListModelsTool::new()),
    ];
    for tool in tools {
        let declared = builtin_capability(tool.name());
        assert!(declared.is_some(), "{}", tool.name());
        assert_eq!(Some(tool.capability()), declared, "{}", tool.name());
        assert!(!tool.description().trim().is_empty());
    }
}

#[test]
fn dis2_registry_offers_the_session_tools_unless_disallowed() {
    let registry = ToolRegistry::builtin(&[]);
    let names = registry.names();
    for name in ["TodoRead", "TodoWrite", "ListModels", "ReadSessionContext"] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    let registry = ToolRegistry::builtin(&["TodoWrite".to_string(), "ListModels".to_string()]);
    assert!(registry.get("TodoWrite").is_none());
    assert!(registry.get("ListModels").is_none());
    assert!(registry.get("TodoRead").is_some());
}
