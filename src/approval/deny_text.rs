//! What the model reads when a call is not executed (APPR-7).

/// A rule, a mode or a hook refused the call.
pub fn policy_denied(tool: &str, reason: &str) -> String {
    format!("Permission to use {tool} was denied: {reason}. The tool was NOT executed.")
}

/// Nobody can answer approvals in this run (APPR-5: headless, no UI).
pub fn no_client(tool: &str, reason: &str) -> String {
    format!(
        "Permission to use {tool} was denied: {reason}. The tool was NOT executed. \
Nobody can approve tool calls in this run: do not retry it; continue without it or finish with what you have."
    )
}

/// The user said no (APPR-7): stop and wait, plus their feedback.
pub fn user_denied(tool: &str, feedback: Option<&str>) -> String {
    let mut text = format!(
        "The user denied permission to use {tool}. The tool was NOT executed. \
Stop what you are doing and wait for the user's instructions."
    );
    if let Some(feedback) = feedback.map(str::trim).filter(|f| !f.is_empty()) {
        text.push_str("\n\nThe user's feedback: ");
        text.push_str(feedback);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appr7_user_deny_says_not_executed_stop_and_wait_then_feedback() {
        let t = user_denied("Bash", Some("use cargo nextest instead"));
        assert!(t.contains("was NOT executed"));
        assert!(t.contains("wait for the user's instructions"));
        assert!(t.ends_with("The user's feedback: use cargo nextest instead"));
        assert!(!user_denied("Bash", Some("  ")).contains("feedback"));
    }

    #[test]
    fn perm8_reason_reaches_the_model() {
        let t = policy_denied(
            "Write",
            "Plan mode only allows read-only, non-destructive tools",
        );
        assert!(t.contains("Plan mode only allows read-only, non-destructive tools"));
        assert!(t.contains("NOT executed"));
    }
}
