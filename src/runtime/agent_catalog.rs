//! Which sub-agents a session may start: the built-in `explore` and
//! `general-purpose` agents and the project's and user's own definitions,
//! with the tools each gets and how many run at a time.

use crate::tools::agent::AgentListing;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;

const EXPLORE_PROMPT: &str = include_str!("../../assets/agents/explore.md");
const GENERAL_PROMPT: &str = include_str!("../../assets/agents/general-purpose.md");

/// Tools no sub-agent gets (PLAN-12; depth 1: sub-agents never start
/// sub-agents).
pub const NEVER_FOR_SUB_AGENTS: [&str; 3] = ["EnterPlanMode", "ExitPlanMode", "Agent"];

/// The tools of an explore agent: reading and searching only.
pub const EXPLORE_TOOLS: [&str; 5] = ["Read", "Glob", "Grep", "Bash", "TodoRead"];

/// The tools a sub-agent is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// Every tool of the session but [`NEVER_FOR_SUB_AGENTS`].
    All,
    /// These, where the session has them, less [`NEVER_FOR_SUB_AGENTS`].
    Named(Vec<String>),
}

impl ToolChoice {
    pub fn allows(&self, tool: &str) -> bool {
        if NEVER_FOR_SUB_AGENTS.contains(&tool) {
            return false;
        }
        match self {
            ToolChoice::All => true,
            ToolChoice::Named(names) => names.iter().any(|n| n == tool),
        }
    }
}

/// One kind of sub-agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentKind {
    pub name: String,
    pub description: String,
    /// Its instructions: the system prompt's rules.
    pub prompt: String,
    pub tools: ToolChoice,
    /// A model reference (MODEL-3); `None`: the parent's.
    pub model: Option<String>,
    /// Only read-only calls run, and nothing is asked.
    pub read_only: bool,
    /// The file it was read from; `None` for a built-in agent.
    pub source: Option<PathBuf>,
}

/// The built-in agents.
pub fn builtin_agents() -> Vec<AgentKind> {
    vec![
        AgentKind {
            name: "explore".into(),
            description: "Fast read-only search of the codebase: finds files, code and facts and \
                          reports them with file:line. Use it for questions that need wide \
                          searching; several can run in parallel with distinct focuses."
                .into(),
            prompt: EXPLORE_PROMPT.into(),
            tools: ToolChoice::Named(EXPLORE_TOOLS.iter().map(|t| t.to_string()).collect()),
            model: None,
            read_only: true,
            source: None,
        },
        AgentKind {
            name: "general-purpose".into(),
            description: "Researches and carries out a multi-step task on its own, with every \
                          tool but plan mode and sub-agents, under the session's permissions."
                .into(),
            prompt: GENERAL_PROMPT.into(),
            tools: ToolChoice::All,
            model: None,
            read_only: false,
            source: None,
        },
    ]
}

/// The agents of one session and what limits them.
pub struct AgentCatalog {
    kinds: Vec<AgentKind>,
    /// One permit per sub-agent running (`agents.maxParallel`).
    slots: Arc<Semaphore>,
    /// The last number given per agent type ("explore #2").
    numbers: Mutex<HashMap<String, u32>>,
}

impl std::fmt::Debug for AgentCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentCatalog")
            .field("kinds", &self.names())
            .finish_non_exhaustive()
    }
}

impl Default for AgentCatalog {
    fn default() -> Self {
        Self::new(
            builtin_agents(),
            crate::config::AgentsConfig::DEFAULT_MAX_PARALLEL,
        )
    }
}

impl AgentCatalog {
    /// `kinds` in the order they are listed; `max_parallel` at least 1.
    pub fn new(kinds: Vec<AgentKind>, max_parallel: usize) -> Self {
        Self {
            kinds,
            slots: Arc::new(Semaphore::new(max_parallel.max(1))),
            numbers: Mutex::default(),
        }
    }

    pub fn names(&self) -> Vec<&str> {
        self.kinds.iter().map(|k| k.name.as_str()).collect()
    }

    /// What the Agent tool's description lists.
    pub fn listings(&self) -> Vec<AgentListing> {
        self.kinds
            .iter()
            .map(|k| AgentListing {
                name: k.name.clone(),
                description: k.description.clone(),
            })
            .collect()
    }

    /// The agent named `name`, compared without case (models trained on
    /// other agents write `Explore`).
    pub fn find(&self, name: &str) -> Option<&AgentKind> {
        self.kinds
            .iter()
            .find(|k| k.name.eq_ignore_ascii_case(name))
    }

    /// The permits of running sub-agents.
    pub fn slots(&self) -> Arc<Semaphore> {
        self.slots.clone()
    }

    /// The next number of `agent_type` in this session; `stored` is how
    /// many the session's saved transcript already has (a resumed
    /// session goes on counting).
    pub fn next_number(&self, agent_type: &str, stored: u32) -> u32 {
        let mut numbers = self.numbers.lock().unwrap_or_else(|e| e.into_inner());
        let last = numbers.entry(agent_type.to_string()).or_insert(stored);
        *last = (*last).max(stored) + 1;
        *last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan12_no_sub_agent_gets_plan_mode_or_agent_tools() {
        for kind in builtin_agents() {
            for tool in NEVER_FOR_SUB_AGENTS {
                assert!(!kind.tools.allows(tool), "{} {tool}", kind.name);
            }
        }
        let named = ToolChoice::Named(vec!["Agent".into(), "Read".into()]);
        assert!(!named.allows("Agent") && named.allows("Read") && !named.allows("Write"));
    }

    #[test]
    fn explore_is_read_only_with_search_tools() {
        let catalog = AgentCatalog::default();
        let explore = catalog.find("Explore").expect("found without case");
        assert!(explore.read_only);
        for tool in ["Read", "Glob", "Grep", "Bash", "TodoRead"] {
            assert!(explore.tools.allows(tool));
        }
        for tool in ["Write", "Edit", "WebFetch", "TodoWrite", "AskUserQuestion"] {
            assert!(!explore.tools.allows(tool), "{tool}");
        }
        assert!(!catalog.find("general-purpose").unwrap().read_only);
        assert!(catalog.find("nope").is_none());
    }

    #[test]
    fn numbers_go_on_per_type_and_after_a_resume() {
        let catalog = AgentCatalog::default();
        assert_eq!(catalog.next_number("explore", 0), 1);
        assert_eq!(catalog.next_number("explore", 0), 2);
        assert_eq!(catalog.next_number("general-purpose", 0), 1);
        let resumed = AgentCatalog::default();
        assert_eq!(resumed.next_number("explore", 4), 5);
    }
}
