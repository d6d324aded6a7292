//! A refused call's reason as the user reads it: a sentence saying who
//! refused it ("You denied this", "Denied by rule Bash(rm:*) saved for
//! this project"). The runtime's recorded reason stays precise for the
//! model and for `-p --output-format json`; this is only its wording in
//! the transcript.

/// The words a refused call's cell shows for its rule id and reason.
pub fn denial_words(rule_id: &str, reason: &str) -> String {
    match rule_id {
        "approval.userDenied" => match user_feedback(reason) {
            Some(note) => format!("You denied this: {note}"),
            None => "You denied this".to_string(),
        },
        "approval.cancelled" => "You interrupted before it ran".to_string(),
        "rule.project.deny" => match reason.strip_prefix("Denied by project rule ") {
            Some(rest) => {
                let (rule, why) = split_note(rest);
                let place = if rule.contains(" in ") {
                    ""
                } else {
                    " saved for this project"
                };
                format!("Denied by rule {rule}{place}{why}")
            }
            None => sentence(reason),
        },
        "rule.disallowedTools" => {
            if let Some(rule) = reason.strip_prefix("Denied by disallowedTools entry ") {
                format!("Denied by rule {rule} of --disallowedTools")
            } else if let Some(tool) = reason
                .strip_prefix("Tool ")
                .and_then(|r| r.strip_suffix(" is explicitly disallowed"))
            {
                format!("{tool} is turned off by --disallowedTools")
            } else {
                sentence(reason)
            }
        }
        "hook.preToolUse.deny" if reason == "Denied by PreToolUse hook" => {
            "A PreToolUse hook denied this".to_string()
        }
        "hook.permissionRequest.deny" if reason == "Denied by PermissionRequest hook" => {
            "A PermissionRequest hook denied this".to_string()
        }
        _ => sentence(reason),
    }
}

/// The note a user gave with a deny, after the recorded reason ("Denied by
/// the user: use Write"; older sessions say "Denied in TUI").
fn user_feedback(reason: &str) -> Option<&str> {
    ["Denied by the user", "Denied in TUI"]
        .iter()
        .find_map(|prefix| reason.strip_prefix(prefix))
        .and_then(|rest| rest.strip_prefix(':'))
        .map(str::trim)
        .filter(|note| !note.is_empty())
}

/// `Bash(rm:*): the command reads …` → the rule and `: the command …`.
fn split_note(rest: &str) -> (&str, &str) {
    // A rule's content may hold ": " inside its parentheses.
    let close = rest.rfind(')').map_or(0, |i| i + 1);
    match rest[close..].find(": ") {
        Some(i) => (&rest[..close + i], &rest[close + i..]),
        None => (rest, ""),
    }
}

/// The reason with a capital first letter, as a sentence starts.
fn sentence(reason: &str) -> String {
    let mut chars = reason.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "Denied".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::denial_words;

    #[test]
    fn denial_texts_read_as_sentences() {
        assert_eq!(
            denial_words("approval.userDenied", "Denied by the user"),
            "You denied this"
        );
        assert_eq!(
            denial_words("approval.userDenied", "Denied in TUI: use Write instead"),
            "You denied this: use Write instead"
        );
        assert_eq!(
            denial_words("rule.project.deny", "Denied by project rule Bash(rm:*)"),
            "Denied by rule Bash(rm:*) saved for this project"
        );
        assert_eq!(
            denial_words(
                "rule.project.deny",
                "Denied by project rule Read(./.env): the command reads a file it covers"
            ),
            "Denied by rule Read(./.env) saved for this project: the command reads a file it covers"
        );
        assert_eq!(
            denial_words(
                "rule.project.deny",
                "Denied by project rule Bash(rm:*) in .zcode/settings.json"
            ),
            "Denied by rule Bash(rm:*) in .zcode/settings.json"
        );
        assert_eq!(
            denial_words("rule.disallowedTools", "Tool Bash is explicitly disallowed"),
            "Bash is turned off by --disallowedTools"
        );
        assert_eq!(
            denial_words(
                "rule.disallowedTools",
                "Denied by disallowedTools entry Bash(rm:*)"
            ),
            "Denied by rule Bash(rm:*) of --disallowedTools"
        );
        assert_eq!(
            denial_words("approval.cancelled", "Interrupted by the user"),
            "You interrupted before it ran"
        );
        assert_eq!(
            denial_words("mode.plan.restricted", "plan mode only allows reading"),
            "Plan mode only allows reading"
        );
    }
}
