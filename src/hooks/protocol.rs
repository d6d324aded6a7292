//! The JSON a hook command reads on stdin and writes on stdout (HOOK-1..3).
//!
//! Input is one camelCase object per run. Output is parsed leniently where
//! it costs nothing (unknown fields are ignored, Claude Code's
//! `hookSpecificOutput` shape is accepted) and strictly where a guess could
//! change a permission: an unknown decision word or a field of the wrong
//! type makes the whole output unparseable, which counts as "no decision".

use crate::config::hooks::HookEvent;
use crate::permission::check::HookPermission;
use crate::permission::rules::Rule;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The result of the tool call, given to PostToolUse hooks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResponse {
    pub output: String,
    pub is_error: bool,
}

/// The permission check's verdict, given to PermissionRequest hooks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionDecisionInput {
    pub behavior: String,
    pub rule_id: String,
    pub reason: String,
}

/// The event written to a hook's stdin.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookInput {
    /// `PreToolUse`, `PermissionRequest` or `PostToolUse`.
    pub hook_event_name: String,
    pub session_id: String,
    pub cwd: String,
    pub tool_name: String,
    pub tool_input: Value,
    pub tool_use_id: String,
    /// PostToolUse only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_response: Option<ToolResponse>,
    /// PermissionRequest only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<PermissionDecisionInput>,
    /// PermissionRequest only: what "Always allow" would save.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Vec<Rule>>,
}

impl HookInput {
    /// An event with the fields common to all hook events.
    pub fn new(
        event: HookEvent,
        session_id: &str,
        cwd: &str,
        tool_name: &str,
        tool_input: Value,
        tool_use_id: &str,
    ) -> Self {
        Self {
            hook_event_name: event.as_str().to_string(),
            session_id: session_id.to_string(),
            cwd: cwd.to_string(),
            tool_name: tool_name.to_string(),
            tool_input,
            tool_use_id: tool_use_id.to_string(),
            tool_response: None,
            permission_decision: None,
            suggestions: None,
        }
    }
}

/// What one PreToolUse hook answered (HOOK-3).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PreToolUseResponse {
    pub permission: Option<HookPermission>,
    /// Replaces the tool input (always a JSON object).
    pub updated_input: Option<Value>,
}

/// The answer of the PermissionRequest hook chain (HOOK-2).
#[derive(Debug, Clone, PartialEq)]
pub enum PermissionHookDecision {
    /// Run the call, with `updated_input` instead of the original input when
    /// given, and save `rules` as project allow rules.
    Allow {
        updated_input: Option<Value>,
        rules: Vec<Rule>,
    },
    Deny {
        message: String,
    },
}

/// Message of a PermissionRequest deny that gave none.
pub(crate) const DEFAULT_PERMISSION_DENY_MESSAGE: &str = "Denied by PermissionRequest hook";

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPreToolUse {
    #[serde(default)]
    decision: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    updated_input: Option<Value>,
    #[serde(default)]
    hook_specific_output: Option<RawPreToolUseSpecific>,
}

/// Claude Code's shape.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPreToolUseSpecific {
    #[serde(default)]
    permission_decision: Option<String>,
    #[serde(default)]
    permission_decision_reason: Option<String>,
    #[serde(default)]
    updated_input: Option<Value>,
}

fn object_input(value: Option<Value>) -> Result<Option<Value>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v @ Value::Object(_)) => Ok(Some(v)),
        Some(_) => Err("updatedInput must be a JSON object".to_string()),
    }
}

/// Parses the stdout of a PreToolUse hook that exited 0. Blank output is no
/// decision; `Err` carries a message for the logs.
pub(crate) fn parse_pre_tool_use_output(stdout: &str) -> Result<PreToolUseResponse, String> {
    if stdout.trim().is_empty() {
        return Ok(PreToolUseResponse::default());
    }
    let raw: RawPreToolUse =
        serde_json::from_str(stdout).map_err(|e| format!("output is not valid hook JSON: {e}"))?;
    let specific = raw.hook_specific_output.unwrap_or_default();
    let (word, reason) = match specific.permission_decision {
        Some(word) => (Some(word), specific.permission_decision_reason),
        None => (raw.decision, raw.reason),
    };
    let permission = match word.as_deref() {
        None => None,
        Some("allow" | "approve") => Some(HookPermission::Allow),
        Some("ask") => Some(HookPermission::Ask),
        Some("deny" | "block") => Some(HookPermission::Deny(
            reason.unwrap_or_default().trim().to_string(),
        )),
        Some(other) => return Err(format!("unknown decision '{other}'")),
    };
    let updated_input = object_input(specific.updated_input.or(raw.updated_input))?;
    Ok(PreToolUseResponse {
        permission,
        updated_input,
    })
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPermissionRequest {
    #[serde(default)]
    decision: Option<String>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    updated_input: Option<Value>,
    #[serde(default)]
    rules: Option<Vec<Rule>>,
    #[serde(default)]
    hook_specific_output: Option<RawPermissionRequestSpecific>,
}

/// Claude Code's shape: `{"hookSpecificOutput":{"decision":{"behavior":…}}}`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPermissionRequestSpecific {
    #[serde(default)]
    decision: Option<RawBehavior>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawBehavior {
    #[serde(default)]
    behavior: Option<String>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    updated_input: Option<Value>,
}

fn deny_message(message: Option<String>) -> String {
    let message = message.unwrap_or_default().trim().to_string();
    if message.is_empty() {
        DEFAULT_PERMISSION_DENY_MESSAGE.to_string()
    } else {
        message
    }
}

/// Parses the stdout of a PermissionRequest hook that exited 0. Blank
/// output, `{}`, `"decision": null` and `"ask"` are no decision.
pub(crate) fn parse_permission_request_output(
    stdout: &str,
) -> Result<Option<PermissionHookDecision>, String> {
    if stdout.trim().is_empty() {
        return Ok(None);
    }
    let raw: RawPermissionRequest =
        serde_json::from_str(stdout).map_err(|e| format!("output is not valid hook JSON: {e}"))?;
    let specific = raw.hook_specific_output.and_then(|s| s.decision);
    let (word, message, updated_input) = match specific {
        Some(RawBehavior {
            behavior: Some(word),
            message,
            updated_input,
        }) => (Some(word), message, updated_input),
        _ => (raw.decision, raw.message, raw.updated_input),
    };
    match word.as_deref() {
        None | Some("ask") => Ok(None),
        Some("allow") => {
            let rules = raw.rules.unwrap_or_default();
            if rules.iter().any(|r| r.tool_name.trim().is_empty()) {
                return Err("a rule has an empty toolName".to_string());
            }
            Ok(Some(PermissionHookDecision::Allow {
                updated_input: object_input(updated_input)?,
                rules,
            }))
        }
        Some("deny") => Ok(Some(PermissionHookDecision::Deny {
            message: deny_message(message),
        })),
        Some(other) => Err(format!("unknown decision '{other}'")),
    }
}

/// The deny of a hook that exited with code 2: its stderr is the message.
pub(crate) fn blocking_message(stderr: &str) -> String {
    stderr.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hook3_plain_and_claude_shapes() {
        let r = parse_pre_tool_use_output(r#"{"decision":"deny","reason":" no "}"#).unwrap();
        assert_eq!(r.permission, Some(HookPermission::Deny("no".into())));
        let r = parse_pre_tool_use_output(
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask",
                "permissionDecisionReason":"hm","updatedInput":{"a":1}}}"#,
        )
        .unwrap();
        assert_eq!(r.permission, Some(HookPermission::Ask));
        assert_eq!(r.updated_input, Some(json!({"a": 1})));
        let r = parse_pre_tool_use_output(r#"{"decision":null,"continue":true}"#).unwrap();
        assert_eq!(r, PreToolUseResponse::default());
        assert_eq!(
            parse_pre_tool_use_output(" \n").unwrap(),
            PreToolUseResponse::default()
        );
        assert_eq!(
            parse_pre_tool_use_output(r#"{"decision":"approve"}"#)
                .unwrap()
                .permission,
            Some(HookPermission::Allow)
        );
    }

    #[test]
    fn hook3_malformed_output_is_an_error() {
        assert!(parse_pre_tool_use_output("hello").is_err());
        assert!(parse_pre_tool_use_output("[1]").is_err());
        assert!(parse_pre_tool_use_output(r#"{"decision":"maybe"}"#).is_err());
        assert!(parse_pre_tool_use_output(r#"{"decision":1}"#).is_err());
        assert!(parse_pre_tool_use_output(r#"{"updatedInput":"x"}"#).is_err());
    }

    #[test]
    fn hook2_permission_request_shapes() {
        assert_eq!(parse_permission_request_output("{}").unwrap(), None);
        assert_eq!(parse_permission_request_output("").unwrap(), None);
        assert_eq!(
            parse_permission_request_output(r#"{"decision":"ask"}"#).unwrap(),
            None
        );
        assert_eq!(
            parse_permission_request_output(
                r#"{"decision":"allow","updatedInput":{"x":2},"rules":[{"toolName":"Bash","ruleContent":"ls:*"}]}"#
            )
            .unwrap(),
            Some(PermissionHookDecision::Allow {
                updated_input: Some(json!({"x": 2})),
                rules: vec![Rule::with_content("Bash", "ls:*")],
            })
        );
        assert_eq!(
            parse_permission_request_output(r#"{"decision":"deny"}"#).unwrap(),
            Some(PermissionHookDecision::Deny {
                message: DEFAULT_PERMISSION_DENY_MESSAGE.into()
            })
        );
        assert_eq!(
            parse_permission_request_output(
                r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"nope"}}}"#
            )
            .unwrap(),
            Some(PermissionHookDecision::Deny {
                message: "nope".into()
            })
        );
        assert!(parse_permission_request_output(r#"{"decision":"yes"}"#).is_err());
        assert!(
            parse_permission_request_output(r#"{"decision":"allow","rules":[{"toolName":""}]}"#)
                .is_err()
        );
        assert!(parse_permission_request_output("nope").is_err());
    }

    #[test]
    fn hook1_input_is_camel_case_and_skips_absent_parts() {
        let mut input = HookInput::new(
            HookEvent::PostToolUse,
            "sess_1",
            "/w",
            "Bash",
            json!({"command": "ls"}),
            "call_1",
        );
        input.tool_response = Some(ToolResponse {
            output: "a".into(),
            is_error: false,
        });
        assert_eq!(
            serde_json::to_value(&input).unwrap(),
            json!({
                "hookEventName": "PostToolUse",
                "sessionId": "sess_1",
                "cwd": "/w",
                "toolName": "Bash",
                "toolInput": {"command": "ls"},
                "toolUseId": "call_1",
                "toolResponse": {"output": "a", "isError": false}
            })
        );
    }
}
