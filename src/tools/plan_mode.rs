//! PLAN-3, PLAN-6..9: the EnterPlanMode and ExitPlanMode tools.
//!
//! Neither tool changes the execution state itself: each returns a
//! [`SessionEffect`] the runtime applies. EnterPlanMode's turns plan on;
//! an approved ExitPlanMode's has the runtime write the plan file
//! (`runtime::plan_file::write_plan_file`) and turn plan off.
//! ExitPlanMode asks a plan request (`RequestKind::Plan`) and `run` only
//! runs once the user approved, so its result is the approval text;
//! feedback and plain denial of a plan request are answered by the runtime
//! with [`PLAN_NOT_APPROVED`] and [`PLAN_DENIED`].

use super::input::invalid;
use super::input::kind;
use super::{SessionEffect, Tool, ToolContext, ToolOutput};
use crate::permission::capability::{Capability, SideEffectScope};
use crate::permission::declaration::{AskReason, PlanRole, ToolDeclaration};
use crate::protocol::RequestKind;
use futures_util::future::BoxFuture;
use serde_json::{Map, Value, json};

pub(crate) const ENTER_NAME: &str = "EnterPlanMode";
pub(crate) const EXIT_NAME: &str = "ExitPlanMode";
/// PLAN-6: the longest plan, in characters.
pub(crate) const PLAN_MAX_CHARS: usize = 20_000;
/// The only tool an `allowedPrompts` entry may name.
pub(crate) const ALLOWED_PROMPT_TOOL: &str = "Bash";

/// PLAN-3: EnterPlanMode's result; it ends with the exact text
/// "DO NOT write or edit any files yet".
pub(crate) const ENTER_RESULT: &str = "Entered plan mode. Plan mode is now active: you can read and explore, but you must not change anything until the user approves your plan.

1. Explore the codebase with read-only tools (Read, Glob, Grep, read-only Bash) to understand the request and the code it touches.
2. Find existing features, patterns and helpers that the change should follow or reuse.
3. Consider the approaches that could work and their trade-offs.
4. If a decision is genuinely the user's to make, ask with AskUserQuestion.
5. Design a concrete plan: the files to change, the steps in order, and how to verify the result.
6. Present the plan with ExitPlanMode; the user approves it or tells you what to change.

Remember: DO NOT write or edit any files yet";

/// PLAN-7: the first words of the approval result (exact text).
pub const PLAN_APPROVED: &str = "User has approved your plan. You can now start coding. Start with updating your todo list if applicable.";
/// PLAN-7: what separates the approval text from the plan.
pub(crate) const APPROVED_PLAN_HEADING: &str = "\n\n## Approved Plan:\n";
/// PLAN-8: the tool result when the user answered with feedback (exact text).
pub const PLAN_NOT_APPROVED: &str = "The plan was not approved by the user.";
/// PLAN-9: the tool result when the user rejected the plan; the turn ends
/// after it.
pub const PLAN_DENIED: &str = "The user rejected this plan and ended the turn. Plan mode is still active. Do not start implementing and do not call ExitPlanMode again on your own: wait for the user's next message and work out the plan with them.";

/// PLAN-7: the result of an approved ExitPlanMode: [`PLAN_APPROVED`], the
/// plan, and the requested prompts echoed back (they allow nothing).
pub fn approved_result(plan: &str, allowed_prompts: &[AllowedPrompt]) -> String {
    let mut text = format!("{PLAN_APPROVED}{APPROVED_PLAN_HEADING}{plan}");
    if !allowed_prompts.is_empty() {
        text.push_str(
            "\n\n## Requested permissions (not granted):\nThe plan listed these kinds of commands. They are recorded for reference only: every command still goes through the normal permission checks.\n",
        );
        for p in allowed_prompts {
            text.push_str(&format!("- {}: {}\n", p.tool, p.prompt));
        }
        text.truncate(text.trim_end().len());
    }
    text
}

// ---------------------------------------------------------------------------
// EnterPlanMode

#[derive(Debug, Default)]
pub struct EnterPlanModeTool;

/// What EnterPlanMode is to the permission engine, the approval and the TUI.
pub(crate) static ENTER_DECLARATION: ToolDeclaration = ToolDeclaration::builtin(
    ENTER_NAME,
    Capability {
        read_only: false,
        side_effect_scope: SideEffectScope::Session,
        ..Capability::read_only_low("plan_mode")
    },
)
.with_plan(PlanRole::Enter);

impl Tool for EnterPlanModeTool {
    fn description(&self) -> &'static str {
        include_str!("../../assets/tools/EnterPlanMode.md")
    }

    fn compact_description(&self) -> std::borrow::Cow<'static, str> {
        include_str!("../../assets/tools/compact/EnterPlanMode.md").into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {},
            "additionalProperties": false
        })
    }

    fn declaration(&self) -> &ToolDeclaration {
        &ENTER_DECLARATION
    }

    /// The tool takes no input; whatever fields a model sends are dropped
    /// (entering plan mode has nothing to misread).
    fn validate(&self, input: Value) -> Result<Value, String> {
        match input {
            Value::Object(_) | Value::Null => Ok(json!({})),
            other => Err(invalid(
                ENTER_NAME,
                format!("expected a JSON object, got {}", kind(&other)),
            )),
        }
    }

    fn run<'a>(&'a self, _input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async { ToolOutput::ok(ENTER_RESULT).with_effect(SessionEffect::EnterPlan) })
    }
}

// ---------------------------------------------------------------------------
// ExitPlanMode

/// One entry of `allowedPrompts`, part of the plan request too.
pub use crate::protocol::AllowedPrompt;

/// ExitPlanMode's input (PLAN-6).
#[derive(Debug, Clone, PartialEq)]
pub struct ExitPlanInput {
    /// Verbatim, 1 to 20000 characters, not all whitespace.
    pub plan: String,
    pub allowed_prompts: Option<Vec<AllowedPrompt>>,
    /// Every field of the input as given (other fields are kept), with a
    /// `null` `allowedPrompts` removed.
    pub raw: Map<String, Value>,
}

impl ExitPlanInput {
    pub fn parse(input: Value) -> Result<Self, String> {
        let mut raw = match input {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(exit_err(
                    "",
                    format!("expected a JSON object, got {}", kind(&other)),
                ));
            }
        };
        let plan = match raw.get("plan") {
            None | Some(Value::Null) => return Err(exit_err("plan", "is required")),
            Some(Value::String(plan)) => plan.clone(),
            Some(other) => {
                return Err(exit_err(
                    "plan",
                    format!("must be a string, got {}", kind(other)),
                ));
            }
        };
        if plan.is_empty() {
            return Err(exit_err("plan", "must not be empty"));
        }
        if plan.trim().is_empty() {
            return Err(exit_err("plan", "must not be only whitespace"));
        }
        let chars = plan.chars().count();
        if chars > PLAN_MAX_CHARS {
            return Err(exit_err(
                "plan",
                format!("must be at most {PLAN_MAX_CHARS} characters, got {chars}"),
            ));
        }
        if raw.get("allowedPrompts").is_some_and(Value::is_null) {
            raw.remove("allowedPrompts");
        }
        let allowed_prompts = match raw.get("allowedPrompts") {
            None => None,
            Some(value) => Some(parse_allowed_prompts(value)?),
        };
        Ok(Self {
            plan,
            allowed_prompts,
            raw,
        })
    }

    pub fn allowed_prompts(&self) -> &[AllowedPrompt] {
        self.allowed_prompts.as_deref().unwrap_or_default()
    }
}

fn parse_allowed_prompts(value: &Value) -> Result<Vec<AllowedPrompt>, String> {
    let Value::Array(items) = value else {
        return Err(exit_err(
            "allowedPrompts",
            format!("must be an array, got {}", kind(value)),
        ));
    };
    let mut prompts = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("allowedPrompts[{i}]");
        let Value::Object(map) = item else {
            return Err(exit_err(
                &path,
                format!("must be an object, got {}", kind(item)),
            ));
        };
        if let Some(key) = map.keys().find(|k| *k != "tool" && *k != "prompt") {
            return Err(exit_err(
                &path,
                format!("unknown field \"{key}\" (allowed: tool, prompt)"),
            ));
        }
        let tool = match map.get("tool") {
            None | Some(Value::Null) => {
                return Err(exit_err(&format!("{path}.tool"), "is required"));
            }
            Some(Value::String(tool)) if tool == ALLOWED_PROMPT_TOOL => tool.clone(),
            Some(Value::String(tool)) => {
                return Err(exit_err(
                    &format!("{path}.tool"),
                    format!("must be \"{ALLOWED_PROMPT_TOOL}\", got \"{tool}\""),
                ));
            }
            Some(other) => {
                return Err(exit_err(
                    &format!("{path}.tool"),
                    format!("must be \"{ALLOWED_PROMPT_TOOL}\", got {}", kind(other)),
                ));
            }
        };
        let prompt_path = format!("{path}.prompt");
        let prompt = match map.get("prompt") {
            None | Some(Value::Null) => return Err(exit_err(&prompt_path, "is required")),
            Some(Value::String(p)) if p.trim().is_empty() => {
                return Err(exit_err(&prompt_path, "must not be empty"));
            }
            Some(Value::String(p)) => p.clone(),
            Some(other) => {
                return Err(exit_err(
                    &prompt_path,
                    format!("must be a string, got {}", kind(other)),
                ));
            }
        };
        prompts.push(AllowedPrompt { tool, prompt });
    }
    Ok(prompts)
}

#[derive(Debug, Default)]
pub struct ExitPlanModeTool;

/// What ExitPlanMode is to the permission engine, the approval and the TUI.
pub(crate) static EXIT_DECLARATION: ToolDeclaration = ToolDeclaration::builtin(
    EXIT_NAME,
    Capability {
        read_only: false,
        side_effect_scope: SideEffectScope::Session,
        requires_user_interaction: true,
        ..Capability::read_only_low("plan_mode")
    },
)
.with_wording(
    "use a tool",
    AskReason::Always("asks you to approve its plan"),
)
.with_request_kind(RequestKind::Plan)
.with_plan(PlanRole::Exit);

impl Tool for ExitPlanModeTool {
    fn description(&self) -> &'static str {
        include_str!("../../assets/tools/ExitPlanMode.md")
    }

    fn compact_description(&self) -> std::borrow::Cow<'static, str> {
        include_str!("../../assets/tools/compact/ExitPlanMode.md").into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "plan": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": PLAN_MAX_CHARS,
                    "description": "The implementation plan to present to the user, in Markdown: the approach, the files to change, the steps in order, and how to verify the result"
                },
                "allowedPrompts": {
                    "type": "array",
                    "description": "Optional: the kinds of Bash commands the implementation will need, described for the user (e.g. \"run the test suite\"). They are shown with the plan but grant no permission",
                    "items": {
                        "type": "object",
                        "properties": {
                            "tool": { "type": "string", "enum": [ALLOWED_PROMPT_TOOL] },
                            "prompt": {
                                "type": "string",
                                "description": "A short description of the kind of command, e.g. \"install dependencies\""
                            }
                        },
                        "required": ["tool", "prompt"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["plan"]
        })
    }

    fn declaration(&self) -> &ToolDeclaration {
        &EXIT_DECLARATION
    }

    fn validate(&self, input: Value) -> Result<Value, String> {
        Ok(Value::Object(ExitPlanInput::parse(input)?.raw))
    }

    /// The approval view shows the plan itself.
    fn preview(&self, input: &Value, _ctx: &ToolContext) -> Option<String> {
        ExitPlanInput::parse(input.clone()).ok().map(|i| i.plan)
    }

    fn allowed_prompts(&self, input: &Value) -> Vec<AllowedPrompt> {
        ExitPlanInput::parse(input.clone())
            .map(|plan| plan.allowed_prompts().to_vec())
            .unwrap_or_default()
    }

    fn run<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            match ExitPlanInput::parse(input) {
                Ok(input) => ToolOutput::ok(approved_result(&input.plan, input.allowed_prompts()))
                    .with_effect(SessionEffect::ExitPlan { plan: input.plan }),
                Err(e) => ToolOutput::error(e),
            }
        })
    }
}

/// `Invalid input for ExitPlanMode: <path>: <message>`.
fn exit_err(path: &str, message: impl std::fmt::Display) -> String {
    if path.is_empty() {
        invalid(EXIT_NAME, message)
    } else {
        invalid(EXIT_NAME, format!("{path}: {message}"))
    }
}
