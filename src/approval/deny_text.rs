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

/// The user said no (APPR-7). Without feedback: stop and wait. With it:
/// the user said what to do instead, which the model follows (telling it
/// to stop and wait as well would contradict the feedback).
pub fn user_denied(tool: &str, feedback: Option<&str>) -> String {
    let denied = format!("The user denied permission to use {tool}. The tool was NOT executed.");
    match feedback.map(str::trim).filter(|f| !f.is_empty()) {
        Some(feedback) => {
            format!("{denied} The user said what to do instead; follow it:\n\n{feedback}")
        }
        None => format!("{denied} Stop what you are doing and wait for the user's instructions."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ux_user_deny_with_feedback_says_follow_it_and_without_says_stop_and_wait() {
        let t = user_denied("Bash", Some(" use cargo nextest instead "));
        assert!(t.contains("was NOT executed"));
        assert!(!t.contains("wait for the user's instructions"), "{t}");
        assert!(
            t.ends_with("follow it:\n\nuse cargo nextest instead"),
            "{t}"
        );
        for none in [None, Some("  ")] {
            let t = user_denied("Bash", none);
            assert!(t.ends_with("Stop what you are doing and wait for the user's instructions."));
            assert!(!t.contains("follow"), "{t}");
        }
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
