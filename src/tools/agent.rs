//! The Agent tool: hands a focused task to a sub-agent, a fresh model
//! context with its own tools, and returns its final report. The runtime
//! runs the sub-agent ([`SubAgentRunner`]); this file is the tool's face:
//! its input, its description (which lists the agents) and its checks.

use super::input::{self, Fields};
use super::{Tool, ToolContext, ToolOutput};
use crate::permission::capability::Capability;
use crate::permission::declaration::{AskReason, RuleSubject, ToolDeclaration};
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub const NAME: &str = "Agent";
/// Characters of `description` at most: it is a label, not the task.
pub(crate) const MAX_DESCRIPTION_CHARS: usize = 120;
/// Characters of `prompt` at most.
pub(crate) const MAX_PROMPT_CHARS: usize = 100_000;

/// PERM-8: starting a sub-agent is read-only and allowed in plan mode;
/// what the sub-agent runs is judged call by call. Several calls of one
/// reply run at the same time.
pub(crate) static DECLARATION: ToolDeclaration = ToolDeclaration::builtin(
    NAME,
    Capability {
        allowed_in_plan_mode: true,
        ..Capability::read_only_low("agent")
    },
)
.with_subject(RuleSubject::Nothing)
.with_wording("start a sub-agent", AskReason::Effect)
.in_parallel();

/// A validated Agent call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentInput {
    pub description: String,
    pub prompt: String,
    pub subagent_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl AgentInput {
    pub fn parse(input: Value) -> Result<Self, String> {
        let parsed: AgentInput = Fields::new(NAME, input)?.parse()?;
        input::non_empty(NAME, "description", &parsed.description)?;
        input::non_empty(NAME, "prompt", &parsed.prompt)?;
        input::non_empty(NAME, "subagent_type", &parsed.subagent_type)?;
        if parsed.description.chars().count() > MAX_DESCRIPTION_CHARS {
            return Err(input::invalid(
                NAME,
                format!(
                    "\"description\" is a 3-5 word label of at most {MAX_DESCRIPTION_CHARS} characters; put the task in \"prompt\""
                ),
            ));
        }
        if parsed.prompt.chars().count() > MAX_PROMPT_CHARS {
            return Err(input::invalid(
                NAME,
                format!("\"prompt\" is longer than {MAX_PROMPT_CHARS} characters"),
            ));
        }
        Ok(AgentInput {
            description: parsed.description.trim().to_string(),
            prompt: parsed.prompt.trim().to_string(),
            subagent_type: parsed.subagent_type.trim().to_string(),
            model: parsed
                .model
                .map(|m| m.trim().to_string())
                .filter(|m| !m.is_empty()),
        })
    }
}

/// An agent the model may start, as the tool's description lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentListing {
    pub name: String,
    pub description: String,
}

/// Runs a sub-agent for an Agent call. The runtime provides it through
/// [`ToolContext::sub_agents`]; without one (a sub-agent's own context,
/// a context without a session) the tool fails.
pub trait SubAgentRunner: Send + Sync {
    fn run<'a>(&'a self, input: AgentInput, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput>;
}

impl std::fmt::Debug for dyn SubAgentRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SubAgentRunner")
    }
}

pub(crate) struct AgentTool {
    description: String,
    compact_description: String,
}

impl AgentTool {
    /// The tool, with `agents` listed in its description.
    pub fn new(agents: &[AgentListing]) -> Self {
        let list: String = agents
            .iter()
            .map(|a| format!("- {}: {}\n", a.name, one_line(&a.description)))
            .collect();
        Self {
            description: format!(
                "{}\nAvailable agents (subagent_type):\n{list}",
                include_str!("../../assets/tools/Agent.md")
            ),
            compact_description: format!(
                "{}Agents: {}.",
                include_str!("../../assets/tools/compact/Agent.md"),
                agents
                    .iter()
                    .map(|a| a.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// A description as one line of the list, capped: a custom agent's file
/// may hold pages of examples.
fn one_line(text: &str) -> String {
    const MAX: usize = 400;
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= MAX {
        joined
    } else {
        let cut: String = joined.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

impl Tool for AgentTool {
    fn declaration(&self) -> &ToolDeclaration {
        &DECLARATION
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn compact_description(&self) -> std::borrow::Cow<'_, str> {
        self.compact_description.as_str().into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "A short (3-5 word) description of the task"},
                "prompt": {"type": "string", "description": "The whole task for the sub-agent to perform"},
                "subagent_type": {"type": "string", "description": "The type of agent to use"},
                "model": {"type": "string", "description": "Optional model (see ListModels); default: the agent's own, else the current one"}
            },
            "required": ["description", "prompt", "subagent_type"],
            "additionalProperties": false
        })
    }

    fn validate(&self, input: Value) -> Result<Value, String> {
        input::normalized(NAME, &AgentInput::parse(input)?)
    }

    fn run<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input = match AgentInput::parse(input) {
                Ok(input) => input,
                Err(e) => return ToolOutput::error(e),
            };
            match &ctx.sub_agents {
                Some(runner) => runner.run(input, ctx).await,
                None => ToolOutput::error(
                    "Sub-agents cannot be started here (a sub-agent cannot start another).",
                ),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_input_is_claude_codes_shape() {
        let input = AgentInput::parse(json!({
            "description": " Find auth code ",
            "prompt": "Find where tokens are checked.",
            "subagent_type": "explore",
        }))
        .unwrap();
        assert_eq!(input.description, "Find auth code");
        assert_eq!(input.model, None);
        for bad in [
            json!({"prompt": "x", "subagent_type": "explore"}),
            json!({"description": "d", "prompt": " ", "subagent_type": "explore"}),
            json!({"description": "d", "prompt": "p", "subagent_type": ""}),
            json!({"description": "d".repeat(500), "prompt": "p", "subagent_type": "explore"}),
            json!({"description": "d", "prompt": "p", "subagent_type": "explore", "model": 3}),
        ] {
            assert!(AgentInput::parse(bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_description_lists_the_agents_on_one_line_each() {
        let tool = AgentTool::new(&[
            AgentListing {
                name: "explore".into(),
                description: "Searches.".into(),
            },
            AgentListing {
                name: "reviewer".into(),
                description: "Reviews\ncode: <example>a</example>".into(),
            },
        ]);
        assert!(tool.description().contains("- explore: Searches.\n"));
        assert!(
            tool.description()
                .contains("- reviewer: Reviews code: <example>a</example>\n")
        );
        assert!(tool.compact_description().contains("explore, reviewer"));
    }
}
