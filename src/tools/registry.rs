//! The tools offered to the model, by name, in a stable order.

use super::ask_user_question::{self, AskUserQuestionTool};
use super::plan_mode::{self, EnterPlanModeTool, ExitPlanModeTool};
use super::{
    BashTool, EditTool, GlobTool, GrepTool, ListModelsTool, ReadSessionContextTool, ReadTool,
    TodoReadTool, TodoWriteTool, Tool, WebFetchTool, WriteTool,
};
use super::{agent, skill};
use super::{
    bash, edit, glob, grep, list_models, read, read_session_context, todo_read, todo_write,
    web_fetch, write,
};
use crate::model::ToolSpec;
use crate::permission::capability::Capability;
use crate::permission::declaration::ToolDeclaration;
use std::sync::Arc;

/// One built-in tool: its declaration, and how to make the tool.
pub struct Builtin {
    pub declaration: &'static ToolDeclaration,
    /// `None`: the runtime makes it, with what only the runtime has (a
    /// tool whose description lists what the session found, say); it is
    /// still declared here, for code that knows it by name.
    pub make: Option<fn() -> Arc<dyn Tool>>,
}

/// The built-in tools, in the order they are offered to the model. Adding
/// a built-in tool is its file under `src/tools/` (its `DECLARATION` and
/// its `impl Tool`) plus one line here.
pub static BUILTIN: &[Builtin] = &[
    Builtin {
        declaration: &read::DECLARATION,
        make: Some(|| Arc::new(ReadTool)),
    },
    Builtin {
        declaration: &glob::DECLARATION,
        make: Some(|| Arc::new(GlobTool)),
    },
    Builtin {
        declaration: &grep::DECLARATION,
        make: Some(|| Arc::new(GrepTool)),
    },
    Builtin {
        declaration: &write::DECLARATION,
        make: Some(|| Arc::new(WriteTool)),
    },
    Builtin {
        declaration: &edit::DECLARATION,
        make: Some(|| Arc::new(EditTool)),
    },
    Builtin {
        declaration: &bash::DECLARATION,
        make: Some(|| Arc::new(BashTool)),
    },
    Builtin {
        declaration: &web_fetch::DECLARATION,
        make: Some(|| Arc::new(WebFetchTool::new())),
    },
    Builtin {
        declaration: &todo_read::DECLARATION,
        make: Some(|| Arc::new(TodoReadTool)),
    },
    Builtin {
        declaration: &todo_write::DECLARATION,
        make: Some(|| Arc::new(TodoWriteTool)),
    },
    Builtin {
        declaration: &list_models::DECLARATION,
        make: Some(|| Arc::new(ListModelsTool::new())),
    },
    Builtin {
        declaration: &read_session_context::DECLARATION,
        make: Some(|| Arc::new(ReadSessionContextTool::new())),
    },
    Builtin {
        declaration: &ask_user_question::DECLARATION,
        make: Some(|| Arc::new(AskUserQuestionTool)),
    },
    Builtin {
        declaration: &plan_mode::ENTER_DECLARATION,
        make: Some(|| Arc::new(EnterPlanModeTool)),
    },
    Builtin {
        declaration: &plan_mode::EXIT_DECLARATION,
        make: Some(|| Arc::new(ExitPlanModeTool)),
    },
    // Built by the runtime, with the session's agents and skills.
    Builtin {
        declaration: &agent::DECLARATION,
        make: None,
    },
    Builtin {
        declaration: &skill::DECLARATION,
        make: None,
    },
];

/// The built-in tools' declarations, in `BUILTIN`'s order.
pub(crate) fn builtin_declarations() -> impl Iterator<Item = &'static ToolDeclaration> {
    BUILTIN.iter().map(|b| b.declaration)
}

/// The declaration of the built-in tool called `name`, for code that has
/// only a name (a rule, a command line).
pub fn builtin_declaration(name: &str) -> Option<&'static ToolDeclaration> {
    builtin_declarations().find(|d| d.name == name)
}

/// A built-in tool's capability (CAP-2), by name.
pub fn builtin_capability(name: &str) -> Option<Capability> {
    builtin_declaration(name).map(|d| d.capability)
}

/// The declaration a name stands for: the built-in tool's, else that of a
/// tool zcode knows nothing about (`zcode permission check mcp__s__t`).
pub fn declaration_for(name: &str) -> ToolDeclaration {
    builtin_declaration(name)
        .cloned()
        .unwrap_or_else(|| ToolDeclaration::unknown(name))
}

/// Tools that come and go while a session runs (an MCP server's, once it
/// has started or when it says its list changed).
pub(crate) trait ToolSource: Send + Sync {
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

    /// The built-in tools, in the order of [`BUILTIN`], less those named
    /// in `disallowed` (DIS-2: a disallowed tool is not offered to the
    /// model at all).
    pub fn builtin(disallowed: &[String]) -> ToolRegistry {
        let mut registry = Self::new();
        for builtin in BUILTIN {
            // As a deny rule covers tools: `Edit` also removes `Write`.
            let removed =
                crate::permission::settings::list_removes(disallowed, builtin.declaration);
            if let Some(make) = builtin.make.filter(|_| !removed) {
                registry.register(make());
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
    pub(crate) fn add_source(&mut self, source: Arc<dyn ToolSource>) {
        self.sources.push(source);
    }

    /// The tools `keep` accepts by name, the sources' included as they
    /// change (a sub-agent's tools).
    pub(crate) fn subset(&self, keep: Arc<dyn Fn(&str) -> bool + Send + Sync>) -> ToolRegistry {
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
    pub(crate) fn compact_specs(&self) -> Vec<ToolSpec> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::capability::{RiskLevel, SideEffectScope};
    use crate::permission::declaration::{PlanRole, RequestKind, RuleSubject};

    #[test]
    fn cap2_the_declaration_list_and_the_registry_agree() {
        let registry = ToolRegistry::builtin(&[]);
        let declared: Vec<&str> = builtin_declarations().map(|d| d.name.as_ref()).collect();
        let made: Vec<&str> = BUILTIN
            .iter()
            .filter(|b| b.make.is_some())
            .map(|b| b.declaration.name.as_ref())
            .collect();
        assert_eq!(registry.names(), made);
        for tool in registry.all() {
            let listed = builtin_declaration(tool.name()).expect("listed");
            assert_eq!(tool.declaration(), listed, "{}", tool.name());
            assert_eq!(tool.capability(), listed.capability);
            assert_eq!(tool.request_kind(), listed.request_kind);
        }
        let mut names = declared.clone();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), declared.len(), "a name declared twice");
        assert!(builtin_declaration("Nope").is_none());
        assert_eq!(declaration_for("Nope"), ToolDeclaration::unknown("Nope"));
    }

    #[test]
    fn cap2_table_rows() {
        let get = |name| builtin_declaration(name).expect("declared");
        let w = get("Write").capability;
        assert_eq!(w.permission_name, "edit");
        assert!(!w.read_only && w.needs_approval);
        assert_eq!(
            (w.side_effect_scope, w.risk_level),
            (SideEffectScope::Workspace, RiskLevel::Medium)
        );
        assert_eq!(get("Edit").capability, w);
        let b = get("Bash").capability;
        assert_eq!(
            (b.side_effect_scope, b.risk_level),
            (SideEffectScope::System, RiskLevel::High)
        );
        let f = get("WebFetch").capability;
        assert!(f.read_only && f.needs_approval);
        assert!(get("AskUserQuestion").capability.requires_user_interaction);
        assert!(get("ExitPlanMode").capability.requires_user_interaction);
        assert!(!get("EnterPlanMode").capability.needs_approval);
    }

    #[test]
    fn what_each_built_in_declares_beyond_its_capability() {
        let get = |name| builtin_declaration(name).expect("declared");
        assert_eq!(get("Bash").subject, RuleSubject::Command);
        assert_eq!(get("WebFetch").subject, RuleSubject::Url);
        for name in ["Read", "Write", "Edit", "Glob", "Grep"] {
            assert_eq!(get(name).subject, RuleSubject::Input, "{name}");
        }
        assert_eq!(get("WebFetch").plan, PlanRole::BuildRules);
        assert_eq!(get("EnterPlanMode").plan, PlanRole::Enter);
        assert_eq!(get("ExitPlanMode").plan, PlanRole::Exit);
        assert_eq!(get("AskUserQuestion").request_kind, RequestKind::Question);
        assert_eq!(get("ExitPlanMode").request_kind, RequestKind::Plan);
        let tracking: Vec<&str> = builtin_declarations()
            .filter(|d| d.tracks_todos)
            .map(|d| d.name.as_ref())
            .collect();
        assert_eq!(tracking, ["TodoWrite"]);
        let searching: Vec<&str> = builtin_declarations()
            .filter(|d| d.honours_read_rules)
            .map(|d| d.name.as_ref())
            .collect();
        assert_eq!(searching, ["Glob", "Grep"]);
        // No built-in tool runs its calls side by side yet.
        // Only sub-agents run side by side: every other call waits for the
        // one before it.
        let parallel: Vec<&str> = builtin_declarations()
            .filter(|d| d.parallel)
            .map(|d| d.name())
            .collect();
        assert_eq!(parallel, ["Agent"]);
    }
}
