//! The tools offered to the model, by name, in a stable order.

use super::ask_user_question::AskUserQuestionTool;
use super::plan_mode::{EnterPlanModeTool, ExitPlanModeTool};
use super::{
    BashTool, EditTool, GlobTool, GrepTool, ListModelsTool, ReadSessionContextTool, ReadTool,
    TodoReadTool, TodoWriteTool, Tool, WebFetchTool, WriteTool,
};
use crate::model::ToolSpec;
use std::sync::Arc;

/// Tools that come and go while a session runs (an MCP server's, once it
/// has started or when it says its list changed).
pub trait ToolSource: Send + Sync {
    /// The tools offered now, in a stable order.
    fn tools(&self) -> Vec<Arc<dyn Tool>>;
}

/// A source's tools that a name filter accepts.
struct FilteredSource {
    inner: Arc<dyn ToolSource>,
    keep: Arc<dyn Fn(&str) -> bool + Send + Sync>,
}

impl ToolSource for FilteredSource {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let mut tools = self.inner.tools();
        tools.retain(|t| (self.keep)(t.name()));
        tools
    }
}

#[derive(Clone, Default)]
pub struct ToolRegistry {
    /// In registration order, which is the order of `specs()`.
    tools: Vec<Arc<dyn Tool>>,
    /// Asked on every lookup, after the fixed tools.
    sources: Vec<Arc<dyn ToolSource>>,
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
            // As a deny rule covers tools: `Edit` also removes `Write`.
            if !crate::permission::settings::list_removes(disallowed, tool.name()) {
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

    /// Adds a source of tools that change while the session runs; its
    /// tools come after the fixed ones. A fixed tool's name is never
    /// shadowed by a source's.
    pub fn add_source(&mut self, source: Arc<dyn ToolSource>) {
        self.sources.push(source);
    }

    /// The tools `keep` accepts by name, the sources' included as they
    /// change (a sub-agent's tools).
    pub fn subset(&self, keep: Arc<dyn Fn(&str) -> bool + Send + Sync>) -> ToolRegistry {
        let tools = self
            .tools
            .iter()
            .filter(|t| keep(t.name()))
            .cloned()
            .collect();
        let sources = self
            .sources
            .iter()
            .map(|source| {
                Arc::new(FilteredSource {
                    inner: source.clone(),
                    keep: keep.clone(),
                }) as Arc<dyn ToolSource>
            })
            .collect();
        ToolRegistry { tools, sources }
    }

    /// Every tool offered now: the fixed ones, then the sources'.
    pub fn all(&self) -> Vec<Arc<dyn Tool>> {
        let mut all = self.tools.clone();
        for source in &self.sources {
            for tool in source.tools() {
                if !all.iter().any(|t| t.name() == tool.name()) {
                    all.push(tool);
                }
            }
        }
        all
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        if let Some(tool) = self.tools.iter().find(|t| t.name() == name) {
            return Some(tool.clone());
        }
        self.sources
            .iter()
            .find_map(|source| source.tools().into_iter().find(|t| t.name() == name))
    }

    pub fn names(&self) -> Vec<String> {
        self.all().iter().map(|t| t.name().to_string()).collect()
    }

    pub fn len(&self) -> usize {
        self.all().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What the model is offered, in registration order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.all()
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
        self.all()
            .iter()
            .map(|t| ToolSpec {
                name: t.name().to_string(),
                description: t.compact_description().into_owned(),
                input_schema: super::compact::compact_schema(&t.input_schema()),
            })
            .collect()
    }
}
