//! The approval step of a call the permission check asked about: the
//! request the user sees (its kind is the tool's), the race between the
//! user and the PermissionRequest hooks (APPR-3..5), and what the answer
//! does (APPR-6..8, GRANT-1/2, FULL-2/3).

use super::guard;
use super::{evaluate, precheck};
use crate::approval::deny_text;
use crate::approval::{Answer, BrokerAnswer, ClaimHandle, race_approval};
use crate::config::hooks::HookEvent;
use crate::hooks::{HookError, PermissionHookDecision};
use crate::model::ToolCall;
use crate::permission::capability::AllowAlways;
use crate::permission::check::{Behavior, RuleId};
use crate::permission::mode::{Mode, ModeChoice};
use crate::permission::rules::{Rule, RuleKind};
use crate::permission::service::Evaluation;
use crate::protocol::{
    AlwaysOption, Event, PermissionReply, PermissionRequest, RequestKind, ResolvedBy,
};
use crate::runtime::core::{SessionCore, lock};
use crate::tools::Tool;
use serde_json::Value;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The recorded reason of a user's deny (APPR-7), whichever front end
/// the user answered in.
const USER_DENIED_REASON: &str = "Denied by the user";

/// The approval's verdict: run with this input, or not.
pub(super) enum Approval {
    Run(Value),
    /// A plan request: the user wants changes (PLAN-8).
    PlanFeedback(String),
    Denied {
        rule_id: RuleId,
        reason: String,
        text: String,
    },
    /// The call would fail if it ran (its precheck said why), so nobody
    /// was asked to approve it.
    Fails(String),
}

/// What the user is asked about (APPR-2): built from the input the call
/// would run with and its evaluation.
fn permission_request(
    core: &SessionCore,
    tool: &Arc<dyn Tool>,
    call: &ToolCall,
    request_id: String,
    input: &Value,
    eval: &Evaluation,
    cancel: &CancellationToken,
) -> PermissionRequest {
    // The tool says what it asks; the pipeline knows no tool by name.
    let kind = guard::request_kind(tool.as_ref());
    PermissionRequest {
        request_id,
        kind,
        call_id: call.id.clone(),
        tool: call.name.clone(),
        input: input.clone(),
        rule_id: eval.decision.rule_id.to_string(),
        reason: eval.decision.reason.to_string(),
        description: input
            .get("description")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_string),
        suggestions: eval.suggestions.clone(),
        // Questions and plans are answered, not granted.
        always: match eval.capability.allow_always_option() {
            _ if kind != RequestKind::Tool => AlwaysOption::None,
            // A saved rule could never lift this ask (PERM-10).
            _ if eval.decision.rule_id == RuleId::EditProtectedPath => AlwaysOption::None,
            AllowAlways::Project => AlwaysOption::Project,
            AllowAlways::Session => AlwaysOption::Session,
            AllowAlways::Never => AlwaysOption::None,
        },
        // FULL-1: the store supports it, the request is not a sub-agent's,
        // and the tool declares no askOptions policy.
        full_access_available: kind == RequestKind::Tool
            && core.agent_label().is_none()
            && eval.capability.allow_always.is_none(),
        edit_mode_available: kind == RequestKind::Tool && edit_mode_would_allow(core, eval),
        allowed_prompts: match kind {
            RequestKind::Plan => guard::allowed_prompts(tool.as_ref(), input),
            _ => Vec::new(),
        },
        preview: guard::preview(tool.as_ref(), input, &core.tool_context(cancel)),
        agent: core.agent_label(),
    }
}

/// Whether switching to edit mode would have allowed this call without a
/// question: a Write/Edit inside the workspace, asked only by the build
/// rules (not by a protected path, a project rule, a hook or a tool that
/// always asks), in build mode.
fn edit_mode_would_allow(core: &SessionCore, eval: &Evaluation) -> bool {
    let state = core.state();
    eval.capability.edits_files()
        && eval.target.inside_workspace
        && eval.target.protected.is_none()
        && state.mode == Mode::Build
        && !state.plan_enabled
        && matches!(
            eval.decision.rule_id,
            RuleId::NeedsApproval | RuleId::RiskHigh | RuleId::RiskCritical
        )
}

pub(super) async fn ask(
    core: &SessionCore,
    tool: &Arc<dyn Tool>,
    call: &ToolCall,
    input: Value,
    eval: &Evaluation,
    cancel: &CancellationToken,
) -> Approval {
    let request_id = format!("perm_{}", uuid::Uuid::new_v4());
    let request = permission_request(core, tool, call, request_id.clone(), &input, eval, cancel);
    let answer = if eval.decision.rule_id == RuleId::EditProtectedPath {
        // PERM-10: a write to a file that makes tools run programs is the
        // user's to allow; no PermissionRequest hook answers for them.
        user_only(core, &request, cancel).await
    } else if core.broker_handle.is_none() {
        hooks_then_deny(core, &request, cancel).await
    } else {
        let claim = ClaimHandle::new(cancel);
        let broker = core
            .broker
            .request(request.clone(), claim.clone(), cancel.clone());
        let hooks_token = claim.hooks_token();
        let hooks = core.hooks.permission_request(&request, &hooks_token);
        let outcome = race_approval(broker, hooks, claim, cancel).await;
        if let Some(HookError::Failed(errors)) = &outcome.hook_error {
            report_hook_errors(core, errors);
        }
        outcome.answer
    };
    let (approval, by) = match answer {
        Answer::Cancelled | Answer::Broker(BrokerAnswer::Cancelled) => {
            (interrupted(), ResolvedBy::Cancelled)
        }
        Answer::Broker(BrokerAnswer::Denied { reason }) => {
            (no_client(call, reason), ResolvedBy::NoClient)
        }
        Answer::Broker(BrokerAnswer::Reply(reply)) => (
            apply_reply(core, call, &request, input, reply),
            ResolvedBy::User,
        ),
        Answer::Hook(PermissionHookDecision::Deny { message }) => (
            Approval::Denied {
                rule_id: RuleId::PermissionHookDeny,
                text: deny_text::policy_denied(&call.name, &message),
                reason: message,
            },
            ResolvedBy::Hook,
        ),
        Answer::Hook(PermissionHookDecision::Allow {
            updated_input,
            rules,
        }) => {
            core.emit(Event::PermissionResolved {
                request_id: request_id.clone(),
                by: ResolvedBy::Hook,
            });
            save_project_rules(core, &rules);
            let Some(updated) = updated_input else {
                return Approval::Run(input);
            };
            return match recheck(core, tool.as_ref(), call, updated) {
                Recheck::Run(v) => Approval::Run(v),
                Recheck::Denied(a) => a,
                Recheck::AskAgain(v, eval) => {
                    if let Err(msg) = precheck(core, tool.as_ref(), &v, cancel) {
                        return Approval::Fails(msg);
                    }
                    // APPR-8: asked again with the same request id, of the
                    // user only, about the input that would now run.
                    let request =
                        permission_request(core, tool, call, request_id, &v, &eval, cancel);
                    ask_user_again(core, call, request, v, cancel).await
                }
            };
        }
    };
    core.emit(Event::PermissionResolved { request_id, by });
    approval
}

/// Without a client (headless) the deny broker would win every race at
/// once, so the PermissionRequest hooks, the only ones who can approve here,
/// are heard first; when they withdraw, the deny broker answers (APPR-5).
async fn hooks_then_deny(
    core: &SessionCore,
    request: &PermissionRequest,
    cancel: &CancellationToken,
) -> Answer {
    // Stream consumers see every request, answered or not.
    core.emit(Event::PermissionRequested {
        request: request.clone(),
    });
    if core
        .hooks
        .has_hooks(HookEvent::PermissionRequest, &request.tool)
    {
        match core.hooks.permission_request(request, cancel).await {
            Ok(Some(decision)) => return Answer::Hook(decision),
            Err(HookError::Cancelled) => return Answer::Cancelled,
            Err(HookError::Failed(errors)) => report_hook_errors(core, &errors),
            Ok(None) => {}
        }
    }
    let claim = ClaimHandle::new(cancel);
    Answer::Broker(
        core.broker
            .request(request.clone(), claim, cancel.clone())
            .await,
    )
}

/// The user alone answers (headless: the deny broker, nobody being there).
async fn user_only(
    core: &SessionCore,
    request: &PermissionRequest,
    cancel: &CancellationToken,
) -> Answer {
    if core.broker_handle.is_none() {
        // Stream consumers see every request, answered or not.
        core.emit(Event::PermissionRequested {
            request: request.clone(),
        });
    }
    Answer::Broker(broker_only(core, request, cancel).await)
}

/// The broker's answer to `request`, with no hook racing it.
async fn broker_only(
    core: &SessionCore,
    request: &PermissionRequest,
    cancel: &CancellationToken,
) -> BrokerAnswer {
    let claim = ClaimHandle::new(cancel);
    let answer = core
        .broker
        .request(request.clone(), claim.clone(), cancel.clone())
        .await;
    claim.claim();
    answer
}

fn report_hook_errors(core: &SessionCore, errors: &[String]) {
    for error in errors {
        core.emit(Event::Notice {
            message: format!("PermissionRequest hook: {error}"),
        });
    }
}

fn no_client(call: &ToolCall, reason: String) -> Approval {
    Approval::Denied {
        rule_id: RuleId::NoClient,
        text: deny_text::no_client(&call.name, &reason),
        reason,
    }
}

/// APPR-8's second question: the user alone answers, with the same id.
async fn ask_user_again(
    core: &SessionCore,
    call: &ToolCall,
    request: PermissionRequest,
    input: Value,
    cancel: &CancellationToken,
) -> Approval {
    let answer = broker_only(core, &request, cancel).await;
    let (approval, by) = match answer {
        BrokerAnswer::Cancelled => (interrupted(), ResolvedBy::Cancelled),
        BrokerAnswer::Denied { reason } => (no_client(call, reason), ResolvedBy::NoClient),
        BrokerAnswer::Reply(reply) => (
            apply_reply(core, call, &request, input, reply),
            ResolvedBy::User,
        ),
    };
    core.emit(Event::PermissionResolved {
        request_id: request.request_id.clone(),
        by,
    });
    approval
}

fn interrupted() -> Approval {
    Approval::Denied {
        rule_id: RuleId::Cancelled,
        reason: "Interrupted by the user".into(),
        text:
            "Interrupted by the user before the tool call was approved. The tool was NOT executed."
                .into(),
    }
}

/// Only the options a request offered are accepted (APPR-6): questions are
/// answered or rejected, plans approved, commented on or rejected.
fn reply_fits(request: &PermissionRequest, reply: &PermissionReply) -> bool {
    match (request.kind, reply) {
        (_, PermissionReply::Deny { .. }) => true,
        (RequestKind::Question, r) => matches!(r, PermissionReply::Answers { .. }),
        (RequestKind::Plan, r) => {
            matches!(
                r,
                PermissionReply::AllowOnce | PermissionReply::PlanFeedback { .. }
            )
        }
        (RequestKind::Tool, PermissionReply::AllowOnce) => true,
        (RequestKind::Tool, PermissionReply::AlwaysAllowProject { .. }) => {
            request.always == AlwaysOption::Project
        }
        (RequestKind::Tool, PermissionReply::AlwaysAllowSession) => {
            request.always == AlwaysOption::Session
        }
        (RequestKind::Tool, PermissionReply::FullAccess) => request.full_access_available,
        (RequestKind::Tool, PermissionReply::AllowEditsForSession) => request.edit_mode_available,
        (RequestKind::Tool, _) => false,
    }
}

/// The user's answer, with its side effects (GRANT-1, GRANT-2, FULL-2).
fn apply_reply(
    core: &SessionCore,
    call: &ToolCall,
    request: &PermissionRequest,
    input: Value,
    reply: PermissionReply,
) -> Approval {
    if !reply_fits(request, &reply) {
        let reason = format!("The reply does not fit this {} request", call.name);
        return Approval::Denied {
            rule_id: RuleId::InvalidReply,
            text: deny_text::policy_denied(&call.name, &reason),
            reason,
        };
    }
    match reply {
        PermissionReply::AllowOnce => Approval::Run(input),
        PermissionReply::Answers {
            answers,
            annotations,
        } if request.kind == RequestKind::Question => {
            // ASK-3: the answers come only from the user, into the input,
            // which the tool validates again before it runs.
            let mut input = input;
            if let Some(object) = input.as_object_mut() {
                object.insert("answers".into(), Value::Object(answers));
                if let Some(annotations) = annotations {
                    object.insert("annotations".into(), annotations);
                }
            }
            Approval::Run(input)
        }
        PermissionReply::PlanFeedback { feedback } if request.kind == RequestKind::Plan => {
            Approval::PlanFeedback(feedback)
        }
        PermissionReply::Answers { .. } | PermissionReply::PlanFeedback { .. } => {
            let reason = format!("The reply does not fit a {} request", call.name);
            Approval::Denied {
                rule_id: RuleId::InvalidReply,
                text: deny_text::policy_denied(&call.name, &reason),
                reason,
            }
        }
        PermissionReply::AlwaysAllowProject { rules } => {
            let rules = if rules.is_empty() {
                request.suggestions.clone()
            } else {
                rules
            };
            save_project_rules(core, &rules);
            Approval::Run(input)
        }
        PermissionReply::AlwaysAllowSession => {
            lock(&core.permissions).grant_session(&call.name);
            Approval::Run(input)
        }
        PermissionReply::AllowEditsForSession => {
            // The user allowed this call whatever happens to the mode; a
            // mode change that could not be saved is reported.
            // For this session: the project's next session starts in the
            // mode it would have.
            if let Err(e) = core.change_mode_for_session(ModeChoice::Mode(Mode::Edit)) {
                core.emit(Event::Error {
                    message: e.to_string(),
                });
            }
            Approval::Run(input)
        }
        PermissionReply::FullAccess => {
            if !request.full_access_available {
                return Approval::Denied {
                    rule_id: RuleId::FullAccessUnavailable,
                    reason: "Full access is not available for this tool".into(),
                    text: deny_text::policy_denied(
                        &call.name,
                        "Full access is not available for this tool",
                    ),
                };
            }
            match grant_full_access(core, &request.request_id) {
                Ok(()) => Approval::Run(input),
                Err(msg) => Approval::Denied {
                    rule_id: RuleId::FullAccessFailed,
                    text: deny_text::policy_denied(&call.name, &msg),
                    reason: msg,
                },
            }
        }
        PermissionReply::Deny { feedback } => Approval::Denied {
            rule_id: RuleId::UserDenied,
            reason: match &feedback {
                Some(f) if !f.trim().is_empty() => format!("{USER_DENIED_REASON}: {}", f.trim()),
                _ => USER_DENIED_REASON.into(),
            },
            text: deny_text::user_denied(&call.name, feedback.as_deref()),
        },
    }
}

/// FULL-2/3: one transaction, then the memory state, then the event.
fn grant_full_access(core: &SessionCore, request_id: &str) -> Result<(), String> {
    // Store, then execution: the order every mode change takes.
    let receipt = {
        let mut store = lock(&core.store);
        let mut execution = lock(&core.execution);
        let receipt = store
            .commit_full_access(&core.session_id, request_id, execution.state())
            .map_err(|e| format!("Full access could not be saved ({e})"))?;
        execution.adopt_persisted(receipt.state);
        receipt
    };
    core.emit(Event::SessionModeChanged {
        state: receipt.state,
    });
    Ok(())
}

fn save_project_rules(core: &SessionCore, rules: &[Rule]) {
    if rules.is_empty() {
        return;
    }
    let result = lock(&core.store).add_project_rules(&core.project_id, RuleKind::Allow, rules);
    if let Err(e) = result {
        core.emit(Event::Error {
            message: format!("could not save the rule for this project: {e}"),
        });
    }
}

enum Recheck {
    Run(Value),
    Denied(Approval),
    AskAgain(Value, Evaluation),
}

/// APPR-8: a hook approved with a new input: validate it and decide again.
fn recheck(core: &SessionCore, tool: &dyn Tool, call: &ToolCall, updated: Value) -> Recheck {
    let input = match guard::validate(tool, updated) {
        Ok(v) => v,
        Err(msg) => {
            let reason = format!("Input rewritten by a PermissionRequest hook is invalid: {msg}");
            return Recheck::Denied(Approval::Denied {
                rule_id: RuleId::PermissionHookInvalidInput,
                text: deny_text::policy_denied(&call.name, &reason),
                reason,
            });
        }
    };
    let eval = match evaluate(core, tool, &input, None) {
        Ok(e) => e,
        Err(msg) => {
            return Recheck::Denied(Approval::Denied {
                rule_id: RuleId::ProjectDeny,
                text: deny_text::policy_denied(&call.name, &msg),
                reason: msg,
            });
        }
    };
    match eval.decision.behavior {
        Behavior::Deny => {
            let reason = eval.decision.reason.to_string();
            Recheck::Denied(Approval::Denied {
                rule_id: eval.decision.rule_id,
                text: deny_text::policy_denied(&call.name, &reason),
                reason,
            })
        }
        // PERM-10: a rewrite onto a protected file is the user's to allow.
        _ if eval.decision.rule_id == RuleId::ProjectAsk
            || eval.decision.rule_id == RuleId::EditProtectedPath
            || eval.target.memory_file =>
        {
            Recheck::AskAgain(input, eval)
        }
        _ => Recheck::Run(input),
    }
}
