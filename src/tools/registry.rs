//! The tools offered to the model, by name, in a stable order.

use super::ask_user_question::AskUserQuestionTool;
use super::plan_mode::{EnterPlanModeTool, ExitPlanModeTool};
use super::{
    BashTool, EditTool, GlobTool, GrepTool, ListModelsTool, ReadSessionContextTool, ReadTool,
    TodoReadTool, TodoWriteTool, Tool, WebFetchTool, WriteTool,
};
use crate::model::ToolSpec;
use std::sync::Arc;

#[derive(Clone, Default)]
pub struct ToolRegistry {
    /// In registration order, which is the order of `specs()`.
    tools: Vec<Arc<dyn Tool>>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The built-in tools, in the order of `BUILTIN_TOOLS`, less
    /// those named in `disallowed` (DIS-2: a disallowed tool is not offered
    /// to the model at all).
    pub fn builtin(disallowed: &[String]) -> ToolRegistry {
        let all: [Arc<dyn Tool>; 14] = [
            Arc::new(ReadTool),
            Arc::new(GlobTool),
            Arc::new(GrepTool),
            Arc::new(WriteTool),
            Arc::new(EditTool),
            Arc::new(BashTool),
            Arc::new(WebFetchTool::new()),
            Arc::new(TodoReadTool),
            Arc::new(TodoWriteTool),
            Arc::new(ListModelsTool::new()),
            Arc::new(ReadSessionContextTool::new()),
            Arc::new(AskUserQuestionTool),
            Arc::new(EnterPlanModeTool),
            Arc::new(ExitPlanModeTool),
        ];
        let mut registry = Self::new();
        for tool in all {
            if !disallowed.iter().any(|name| name == tool.name()) {
                registry.register(tool);
            }
        }
        registry
    }

    /// Adds a tool at the end; a tool of the same name is replaced in place.
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        match self.tools.iter_mut().find(|t| t.name() == tool.name()) {
            Some(slot) => *slot = tool,
            None => self.tools.push(tool),
        }
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.name() == name).cloned()
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// What the model is offered, in registration order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .iter()
            .map(|t| ToolSpec {
                name: t.name().to_string(),
                description: t.description().to_string(),
                input_schema: t.input_schema(),
            })
            .collect()
    }

    /// What the model is offered when its context window is small: each
    /// tool's compact description and its schema without prose.
    pub fn compact_specs(&self) -> Vec<ToolSpec> {
        self.tools
            .iter()
            .map(|t| ToolSpec {
                name: t.name().to_string(),
                description: t.compact_description().into_owned(),
                input_schema: super::compact::compact_schema(&t.input_schema()),
            })
            .collect()
    }
}
