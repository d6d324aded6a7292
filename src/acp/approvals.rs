//! Approvals put to the client (`session/request_permission`), and the
//! questions and plan reviews that go out as forms (`elicitation/create`)
//! where the client supports them. Whatever the client answers, or fails
//! to, becomes one `PermissionReply`: an option zcode did not offer, a
//! cancelled request or an error is a deny.

use crate::protocol::{AlwaysOption, PermissionReply, PermissionRequest, RequestKind};
use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ClientCapabilities, PermissionOption, PermissionOptionKind, RequestPermissionOutcome,
    RequestPermissionRequest, ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};

/// Sends `request` to the client and waits for its answer. Should the
/// wait be dropped (the runtime stopped waiting: an interrupt, a hook, a
/// question that continued on its own), the client is told to cancel it,
/// so its dialog closes.
pub async fn send_and_wait<Req>(
    conn: &ConnectionTo<Client>,
    request: Req,
) -> Result<Req::Response, agent_client_protocol::Error>
where
    Req: agent_client_protocol::JsonRpcRequest,
{
    struct CancelOnDrop(Option<agent_client_protocol::RequestCancellationHandle>);
    impl Drop for CancelOnDrop {
        fn drop(&mut self) {
            if let Some(handle) = self.0.take() {
                let _ = handle.cancel();
            }
        }
    }
    let sent = conn.send_request(request);
    let mut guard = CancelOnDrop(Some(sent.cancellation_handle()));
    let answer = sent.block_task().await;
    guard.0 = None;
    answer
}

/// The option ids zcode offers (see the README's "Editors" section).
pub mod option {
    pub const ALLOW_ONCE: &str = "allow_once";
    pub const ALWAYS_PROJECT: &str = "allow_always_project";
    pub const ALWAYS_SESSION: &str = "allow_always_session";
    pub const EDITS_SESSION: &str = "allow_edits_session";
    pub const FULL_ACCESS: &str = "full_access";
    pub const DENY: &str = "deny";
    pub const APPROVE: &str = "approve";
}

/// What the client said it can do, as the approvals need it.
#[derive(Debug, Clone, Default)]
pub struct ClientAbilities {
    /// `elicitation.form`: questions, plan reviews and deny feedback as forms.
    pub forms: bool,
}

impl ClientAbilities {
    pub fn from_capabilities(caps: &ClientCapabilities) -> Self {
        Self {
            forms: super::elicitation::client_supports_forms(caps),
        }
    }
}

/// The options of a tool approval, as APPR-6 and FULL-1 allow them for
/// `request`.
pub fn tool_options(request: &PermissionRequest) -> Vec<PermissionOption> {
    let mut options = vec![PermissionOption::new(
        option::ALLOW_ONCE,
        "Allow once",
        PermissionOptionKind::AllowOnce,
    )];
    match request.always {
        AlwaysOption::Project => {
            let rules: Vec<String> = request
                .suggestions
                .iter()
                .map(ToString::to_string)
                .collect();
            let name = if rules.is_empty() {
                "Always allow in this project".to_string()
            } else {
                format!("Always allow in this project: {}", rules.join(", "))
            };
            options.push(PermissionOption::new(
                option::ALWAYS_PROJECT,
                name,
                PermissionOptionKind::AllowAlways,
            ));
        }
        AlwaysOption::Session => options.push(PermissionOption::new(
            option::ALWAYS_SESSION,
            format!("Always allow {} in this session", request.tool),
            PermissionOptionKind::AllowAlways,
        )),
        AlwaysOption::None => {}
    }
    if request.edit_mode_available {
        options.push(PermissionOption::new(
            option::EDITS_SESSION,
            "Allow edits for the rest of this session",
            PermissionOptionKind::AllowAlways,
        ));
    }
    if request.full_access_available {
        options.push(PermissionOption::new(
            option::FULL_ACCESS,
            "Full access: allow everything for this session",
            PermissionOptionKind::AllowAlways,
        ));
    }
    options.push(PermissionOption::new(
        option::DENY,
        "Deny",
        PermissionOptionKind::RejectOnce,
    ));
    options
}

/// The reply an option id stands for; `None`: an id zcode did not offer
/// for `request` (a deny).
pub fn reply_for_option(request: &PermissionRequest, id: &str) -> Option<PermissionReply> {
    let offered = tool_options(request)
        .iter()
        .any(|o| o.option_id.0.as_ref() == id);
    if !offered {
        return None;
    }
    Some(match id {
        option::ALLOW_ONCE => PermissionReply::AllowOnce,
        option::ALWAYS_PROJECT => PermissionReply::AlwaysAllowProject {
            rules: request.suggestions.clone(),
        },
        option::ALWAYS_SESSION => PermissionReply::AlwaysAllowSession,
        option::EDITS_SESSION => PermissionReply::AllowEditsForSession,
        option::FULL_ACCESS => PermissionReply::FullAccess,
        _ => PermissionReply::Deny { feedback: None },
    })
}

/// The tool call an approval is about, as the client shows it with the
/// options. A sub-agent's call names the agent.
fn approval_tool_call(
    request: &PermissionRequest,
    title: String,
    kind: ToolKind,
) -> ToolCallUpdate {
    let title = match &request.agent {
        Some(agent) => format!("{agent} · {title}"),
        None => title,
    };
    let mut fields = ToolCallUpdateFields::new()
        .title(title)
        .kind(kind)
        .raw_input(request.input.clone());
    if let Some(preview) = &request.preview {
        fields = fields.content(vec![preview.clone().into()]);
    }
    ToolCallUpdate::new(request.call_id.clone(), fields)
}

/// Asks the client about a tool call; the reply and whether the user
/// chose to deny (rather than the request failing or being cancelled).
pub async fn ask_tool(
    conn: &ConnectionTo<Client>,
    session_id: &str,
    request: &PermissionRequest,
    title: String,
    kind: ToolKind,
) -> (PermissionReply, bool) {
    let ask = RequestPermissionRequest::new(
        session_id.to_string(),
        approval_tool_call(request, title, kind),
        tool_options(request),
    );
    match send_and_wait(conn, ask).await {
        Ok(response) => match response.outcome {
            RequestPermissionOutcome::Selected(selected) => {
                let id = selected.option_id.0.as_ref();
                match reply_for_option(request, id) {
                    Some(PermissionReply::Deny { .. }) => {
                        (PermissionReply::Deny { feedback: None }, true)
                    }
                    Some(reply) => (reply, false),
                    None => (PermissionReply::Deny { feedback: None }, false),
                }
            }
            _ => (PermissionReply::Deny { feedback: None }, false),
        },
        Err(_) => (PermissionReply::Deny { feedback: None }, false),
    }
}

/// The plan an ExitPlanMode request puts to the user (empty if missing).
pub fn plan_of(request: &PermissionRequest) -> &str {
    request
        .input
        .get("plan")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
}

/// The plan review for a client without forms: a permission request for a
/// `switch_mode` call with Approve and Deny, as other agents' adapters do.
pub async fn ask_plan_without_forms(
    conn: &ConnectionTo<Client>,
    session_id: &str,
    request: &PermissionRequest,
) -> PermissionReply {
    let plan = plan_of(request).to_string();
    let call = ToolCallUpdate::new(
        request.call_id.clone(),
        ToolCallUpdateFields::new()
            .title("Ready to code? Review this implementation plan.")
            .kind(ToolKind::SwitchMode)
            .content(vec![plan.into()])
            .raw_input(request.input.clone()),
    );
    let ask = RequestPermissionRequest::new(
        session_id.to_string(),
        call,
        vec![
            PermissionOption::new(option::APPROVE, "Approve", PermissionOptionKind::AllowOnce),
            PermissionOption::new(option::DENY, "Deny", PermissionOptionKind::RejectOnce),
        ],
    );
    match send_and_wait(conn, ask).await {
        Ok(response) => match response.outcome {
            RequestPermissionOutcome::Selected(s) if s.option_id.0.as_ref() == option::APPROVE => {
                PermissionReply::AllowOnce
            }
            _ => PermissionReply::Deny { feedback: None },
        },
        Err(_) => PermissionReply::Deny { feedback: None },
    }
}

/// Whether `request` is one a form answers (where the client has forms).
pub fn is_form_kind(request: &PermissionRequest) -> bool {
    matches!(request.kind, RequestKind::Question | RequestKind::Plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::rules::Rule;
    use serde_json::json;

    fn request(always: AlwaysOption, full: bool, edits: bool) -> PermissionRequest {
        PermissionRequest {
            request_id: "perm_1".into(),
            kind: RequestKind::Tool,
            call_id: "c1".into(),
            tool: "Bash".into(),
            input: json!({"command": "cargo test"}),
            rule_id: "mode.build".into(),
            reason: "runs a command".into(),
            description: None,
            suggestions: vec![Rule {
                tool_name: "Bash".into(),
                rule_content: Some("cargo test:*".into()),
            }],
            always,
            full_access_available: full,
            edit_mode_available: edits,
            allowed_prompts: Vec::new(),
            preview: None,
            agent: None,
        }
    }

    #[test]
    fn appr6_options_follow_the_request() {
        let ids = |r: &PermissionRequest| -> Vec<String> {
            tool_options(r)
                .iter()
                .map(|o| o.option_id.0.to_string())
                .collect()
        };
        assert_eq!(
            ids(&request(AlwaysOption::Project, true, false)),
            ["allow_once", "allow_always_project", "full_access", "deny"]
        );
        assert_eq!(
            ids(&request(AlwaysOption::Session, false, true)),
            [
                "allow_once",
                "allow_always_session",
                "allow_edits_session",
                "deny"
            ]
        );
        assert_eq!(
            ids(&request(AlwaysOption::None, false, false)),
            ["allow_once", "deny"]
        );
        let project = &tool_options(&request(AlwaysOption::Project, false, false))[1];
        assert_eq!(
            project.name,
            "Always allow in this project: Bash(cargo test:*)"
        );
    }

    #[test]
    fn appr6_an_option_not_offered_is_no_reply() {
        let r = request(AlwaysOption::None, false, false);
        assert_eq!(
            reply_for_option(&r, "allow_once"),
            Some(PermissionReply::AllowOnce)
        );
        // Full access was not offered: choosing it is not honoured.
        assert_eq!(reply_for_option(&r, "full_access"), None);
        assert_eq!(reply_for_option(&r, "allow_always_project"), None);
        assert_eq!(reply_for_option(&r, ""), None);
        let r = request(AlwaysOption::Project, true, false);
        assert_eq!(
            reply_for_option(&r, "allow_always_project"),
            Some(PermissionReply::AlwaysAllowProject {
                rules: r.suggestions.clone()
            })
        );
        assert_eq!(
            reply_for_option(&r, "full_access"),
            Some(PermissionReply::FullAccess)
        );
    }
}
