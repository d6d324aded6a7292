//! One tool call from the model's request to its result (APPR-1): parse and
//! validate → PreToolUse hooks → permission decision and overlays → on ask,
//! the tool's precheck (a call that can only fail is not put to the user),
//! then the broker/hook race ([`approve`]) → the handler → the session
//! effects it returned ([`effects`]) → PostToolUse hooks.

mod approve;
mod effects;
mod guard;

use self::approve::{Approval, ask};
use self::effects::apply_effects;
use super::core::{AgentRole, SessionCore, lock};
use super::transcript::ShownResult;
use crate::approval::deny_text;
use crate::approval::url_policy::CallUrlPolicy;
use crate::config::hooks::HookEvent;
use crate::hooks::ToolResponse;
use crate::model::ToolCall;
use crate::permission::capability::SideEffectScope;
use crate::permission::check::{Behavior, Decision, HookPermission, RuleId};
use crate::permission::mode::{ExecutionState, Mode};
use crate::permission::read_rules::ReadRuleFilter;
use crate::permission::rules::RuleSet;
use crate::permission::service::Evaluation;
use crate::project_settings::{ProjectRules, RulesError};
use crate::protocol::{Denial, Event, HistoryDenial, RequestKind};
use crate::sandbox::SandboxKind;
use crate::tools::plan_mode;
use crate::tools::{SessionEffect, Tool, UrlPermission};
use serde_json::Value;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// What the model receives for one call.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    pub content: String,
    pub is_error: bool,
    /// A turn-control result: the turn ends after this call (PLAN-9).
    pub stop_turn: bool,
    /// A real user message to add after this turn's tool results (the
    /// feedback on a plan, PLAN-8).
    pub follow_up: Option<String>,
    /// How the front end was shown the result, saved with it for a resumed
    /// session to show the same.
    pub shown: ShownResult,
}

impl CallOutcome {
    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: true,
            stop_turn: false,
            follow_up: None,
            shown: ShownResult {
                failed: true,
                ..ShownResult::default()
            },
        }
    }
}

const INTERRUPTED_TEXT: &str =
    "Interrupted by the user before the tool call ran. The tool was NOT executed.";

pub async fn execute_call(
    core: &SessionCore,
    call: &ToolCall,
    cancel: &CancellationToken,
) -> CallOutcome {
    let raw_input = match parse_arguments(&call.arguments) {
        Ok(v) => v,
        Err(e) => {
            let msg = format!(
                "Invalid arguments for {}: {e}. Send a JSON object.",
                call.name
            );
            return finish_without_running(core, call, Value::Null, msg);
        }
    };
    core.emit(Event::ToolCallStarted {
        call_id: call.id.clone(),
        tool: call.name.clone(),
        input: raw_input.clone(),
    });
    let Some(tool) = core.registry.get(&call.name) else {
        let msg = format!(
            "Unknown tool {}. Available tools: {}.",
            call.name,
            core.registry.names().join(", ")
        );
        return finish_error(core, call, msg);
    };
    let input = match guard::validate(tool.as_ref(), raw_input) {
        Ok(v) => v,
        Err(msg) => return finish_error(core, call, msg),
    };

    // HOOK-3: PreToolUse may rewrite the input before the permission check.
    let pre = core
        .hooks
        .pre_tool_use(&call.name, &input, &call.id, cancel)
        .await;
    for error in &pre.errors {
        core.emit(Event::Notice {
            message: format!("PreToolUse hook: {error}"),
        });
    }
    let input = match pre.updated_input {
        Some(updated) => match guard::validate(tool.as_ref(), updated) {
            Ok(v) => v,
            Err(msg) => {
                return finish_error(
                    core,
                    call,
                    format!("Input rewritten by a PreToolUse hook is invalid: {msg}"),
                );
            }
        },
        None => input,
    };

    // An interrupt during the hooks must not let the call go ahead.
    if cancel.is_cancelled() {
        return finish_error(core, call, INTERRUPTED_TEXT.to_string());
    }
    let eval = match evaluate(core, tool.as_ref(), &input, pre.permission.as_ref()) {
        Ok(eval) => eval,
        Err(msg) => {
            return deny(
                core,
                call,
                &input,
                RuleId::ProjectDeny,
                &msg,
                deny_text::policy_denied(&call.name, &msg),
            );
        }
    };
    let kind = guard::request_kind(tool.as_ref());
    let approval = match eval.decision.behavior {
        Behavior::Allow => Approval::Run(input.clone()),
        Behavior::Deny => {
            let reason = eval.decision.reason.to_string();
            Approval::Denied {
                rule_id: eval.decision.rule_id,
                text: deny_text::policy_denied(&call.name, &reason),
                reason,
            }
        }
        // A call that can only fail is not put to the user.
        Behavior::Ask => match precheck(core, tool.as_ref(), &input, cancel) {
            Err(msg) => Approval::Fails(msg),
            Ok(()) => ask(core, &tool, call, input.clone(), &eval, cancel).await,
        },
    };
    match approval {
        Approval::Denied {
            rule_id,
            reason,
            text,
        } if kind == RequestKind::Plan && rule_id.refused_approval() => {
            // PLAN-9: a refused plan ends the turn; plan mode stays on.
            let text = if rule_id == RuleId::UserDenied {
                plan_mode::PLAN_DENIED.to_string()
            } else {
                text
            };
            let mut outcome = deny(core, call, &input, rule_id, &reason, text);
            outcome.stop_turn = true;
            outcome
        }
        Approval::Denied {
            rule_id,
            reason,
            text,
        } => deny(core, call, &input, rule_id, &reason, text),
        Approval::PlanFeedback(feedback) => {
            // The plan was sent back: not a success, though the model
            // reads PLAN-8's text as a plain result.
            core.emit(Event::ToolCallFinished {
                call_id: call.id.clone(),
                tool: call.name.clone(),
                output: plan_mode::PLAN_NOT_APPROVED.to_string(),
                is_error: true,
                diff: None,
                exit_code: None,
            });
            CallOutcome {
                content: plan_mode::PLAN_NOT_APPROVED.to_string(),
                is_error: false,
                stop_turn: false,
                follow_up: Some(feedback),
                shown: ShownResult {
                    failed: true,
                    ..ShownResult::default()
                },
            }
        }
        Approval::Fails(msg) => finish_error(core, call, msg),
        Approval::Run(_) if cancel.is_cancelled() => {
            finish_error(core, call, INTERRUPTED_TEXT.to_string())
        }
        // The evaluation already says where the call runs: the read-only
        // sandbox when allowed on its read-only judgment, else where
        // approved commands run.
        Approval::Run(input) => {
            let placement = Placement {
                sandbox: eval.sandbox,
                neutralise_git: eval.allowed_as_read_only(),
            };
            run_tool(core, &tool, call, input, placement, cancel).await
        }
    }
}

/// The tool's own checks of whether the call could succeed now.
fn precheck(
    core: &SessionCore,
    tool: &dyn Tool,
    input: &Value,
    cancel: &CancellationToken,
) -> Result<(), String> {
    guard::precheck(tool, input, &core.tool_context(cancel))
}

fn parse_arguments(arguments: &str) -> Result<Value, String> {
    if arguments.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    match serde_json::from_str::<Value>(arguments) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err("the arguments are not a JSON object".into()),
        Err(e) => Err(format!("the arguments are not valid JSON ({e})")),
    }
}

/// The rules decisions go by now: the database's and the project
/// settings files', read again for each call, so that a file changed
/// since its trust loses its allow rules at once.
fn project_rules(core: &SessionCore) -> Result<RuleSet, RulesError> {
    let store = lock(&core.store);
    ProjectRules::load(&store, &core.project_id, &core.project_root).map(|r| r.applied())
}

/// `check_permission` + overlays with the current rules and state.
fn evaluate(
    core: &SessionCore,
    tool: &dyn Tool,
    input: &Value,
    hook: Option<&HookPermission>,
) -> Result<Evaluation, String> {
    let rules: RuleSet = project_rules(core).map_err(|e| e.to_string())?;
    let read_only_agent = matches!(&core.role, AgentRole::Sub(role) if role.read_only);
    // A read-only sub-agent is judged as in build mode, whatever the
    // session's mode, and keeps only what is allowed for being read-only.
    let state = if read_only_agent {
        ExecutionState::new(Mode::Build, false)
    } else {
        core.state()
    };
    let eval = lock(&core.permissions).evaluate(tool.declaration(), input, state, &rules, hook);
    Ok(if read_only_agent {
        read_only_agent_decision(eval)
    } else {
        eval
    })
}

/// A read-only sub-agent (explore) runs a call only when it is allowed
/// and read-only (a Bash command on its read-only judgment); anything
/// else is denied, and nothing is ever put to the user.
fn read_only_agent_decision(mut eval: Evaluation) -> Evaluation {
    let cap = &eval.capability;
    let read_only_tool = cap.read_only
        && !cap.destructive
        && cap.side_effect_scope != SideEffectScope::Network
        && !cap.requires_user_interaction;
    let read_only = match &eval.bash {
        Some(bash) => bash.read_only,
        None => read_only_tool,
    };
    match eval.decision.behavior {
        Behavior::Allow if read_only => eval,
        Behavior::Deny => eval,
        _ => {
            eval.decision = Decision::deny(
                RuleId::AgentReadOnly,
                "This agent runs read-only tools and commands only; nothing it runs is put to the user",
            );
            eval
        }
    }
}

/// Where and how an allowed call runs, as its evaluation decided.
struct Placement {
    sandbox: Option<SandboxKind>,
    neutralise_git: bool,
}

async fn run_tool(
    core: &SessionCore,
    tool: &Arc<dyn Tool>,
    call: &ToolCall,
    input: Value,
    placement: Placement,
    cancel: &CancellationToken,
) -> CallOutcome {
    core.emit(Event::ToolCallRunning {
        call_id: call.id.clone(),
    });
    let mut ctx = core.tool_context(cancel);
    ctx.call_id = call.id.clone();
    ctx.sandbox = placement.sandbox.map(|kind| core.sandbox_policy(kind));
    ctx.neutralise_git = placement.neutralise_git;
    ctx.read_filter = read_filter(core, tool.as_ref());
    ctx.url_permission = url_permission(core, tool.as_ref());
    ctx.live_output = Some(live_output(core, &call.id));
    // A panicking or stuck tool is a failed call, not a broken session.
    let mut output = guard::run(tool.as_ref(), input.clone(), &ctx).await;
    // A command may have left processes running in the background.
    core.refresh_background();
    // A failed call changes nothing in the session.
    let effects = if output.is_error {
        Vec::new()
    } else {
        std::mem::take(&mut output.effects)
    };
    let (announcements, changes): (Vec<_>, Vec<_>) = effects
        .into_iter()
        .partition(SessionEffect::is_announcement);
    // The state changes first, so the result comes after what it says.
    apply_effects(core, changes);
    core.emit(Event::ToolCallFinished {
        call_id: call.id.clone(),
        tool: call.name.clone(),
        output: output.content.clone(),
        is_error: output.failed(),
        diff: output.diff.clone(),
        exit_code: output.exit_code,
    });
    if core.hooks.has_hooks(HookEvent::PostToolUse, &call.name) {
        let response = ToolResponse {
            output: output.content.clone(),
            is_error: output.is_error,
        };
        for error in core
            .hooks
            .post_tool_use(&call.name, &input, &call.id, response, cancel)
            .await
        {
            core.emit(Event::Notice {
                message: format!("PostToolUse hook: {error}"),
            });
        }
    }
    apply_effects(core, announcements);
    CallOutcome {
        shown: ShownResult {
            failed: output.failed(),
            exit_code: output.exit_code,
            denial: None,
        },
        content: output.content,
        is_error: output.is_error,
        stop_turn: false,
        follow_up: None,
    }
}

/// Sends what a running call prints to the front end as it comes.
fn live_output(core: &SessionCore, call_id: &str) -> crate::tools::bash_live::LiveOutput {
    let events = core.events.clone();
    let call_id = call_id.to_string();
    crate::tools::bash_live::LiveOutput::new(move |text| {
        let _ = events.send(Event::ToolOutputDelta {
            call_id: call_id.clone(),
            text,
        });
    })
}

/// For a tool that reaches the network: the decision its run applies to
/// URLs it was not approved for (WebFetch's redirects). Without readable
/// project rules there is none, and the tool stays on its approved host.
/// For a tool that searches directories (Grep, Glob): the files the
/// project's Read deny and ask rules cover, which it leaves out.
fn read_filter(core: &SessionCore, tool: &dyn Tool) -> Option<Arc<ReadRuleFilter>> {
    if !tool.declaration().honours_read_rules {
        return None;
    }
    let rules = project_rules(core).ok()?;
    ReadRuleFilter::new(&rules, &core.workspace).map(Arc::new)
}

fn url_permission(core: &SessionCore, tool: &dyn Tool) -> Option<Arc<dyn UrlPermission>> {
    let declaration = tool.declaration();
    if declaration.capability.side_effect_scope != SideEffectScope::Network {
        return None;
    }
    let rules = project_rules(core).ok()?;
    let state = core.state();
    let service = lock(&core.permissions).clone();
    Some(Arc::new(CallUrlPolicy::new(
        service,
        rules,
        state,
        declaration.clone(),
    )))
}

fn deny(
    core: &SessionCore,
    call: &ToolCall,
    input: &Value,
    rule_id: RuleId,
    reason: &str,
    text: String,
) -> CallOutcome {
    let input = if input.is_null() {
        serde_json::from_str(&call.arguments).unwrap_or(Value::Null)
    } else {
        input.clone()
    };
    core.emit(Event::ToolCallDenied {
        denial: Denial {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            input,
            rule_id: rule_id.to_string(),
            reason: reason.to_string(),
            agent: core.agent_label(),
        },
    });
    let mut outcome = CallOutcome::error(text);
    outcome.shown.denial = Some(HistoryDenial {
        rule_id: rule_id.to_string(),
        reason: reason.to_string(),
    });
    outcome
}

fn finish_error(core: &SessionCore, call: &ToolCall, msg: String) -> CallOutcome {
    core.emit(Event::ToolCallFinished {
        call_id: call.id.clone(),
        tool: call.name.clone(),
        output: msg.clone(),
        is_error: true,
        diff: None,
        exit_code: None,
    });
    CallOutcome::error(msg)
}

fn finish_without_running(
    core: &SessionCore,
    call: &ToolCall,
    input: Value,
    msg: String,
) -> CallOutcome {
    core.emit(Event::ToolCallStarted {
        call_id: call.id.clone(),
        tool: call.name.clone(),
        input,
    });
    finish_error(core, call, msg)
}
