//! Rules offered for "always allow" (SUG-1, SUG-2).

use super::bash::{self, BashAnalysis};
use super::rules::{Rule, rule_subject};
use serde_json::Value;

/// The approval panel shows at most this many Bash prefixes (SUG-2).
pub const MAX_SHOWN_BASH_PREFIXES: usize = 5;

/// SUG-1 fields, in order (RULE-3 minus `patch_text`).
const SUGGESTION_FIELDS: [&str; 5] = ["command", "url", "file_path", "path", "pattern"];

/// The rules an "always allow" answer would save for this call.
pub fn suggested_rules(tool_name: &str, input: &Value, bash: Option<&BashAnalysis>) -> Vec<Rule> {
    if tool_name == "Bash" {
        return match bash {
            Some(analysis) => bash::suggest_rules(analysis)
                .into_iter()
                .map(|content| Rule::with_content("Bash", content))
                .collect(),
            None => vec![Rule::tool("Bash")],
        };
    }
    if tool_name.starts_with(super::mcp_names::PREFIX) {
        // An MCP tool's arguments are the server's own: "always allow"
        // saves the tool.
        return vec![Rule::tool(tool_name)];
    }
    if tool_name == "WebFetch" {
        // The seed's product saved the whole URL, which never matches the
        // `domain:` subject; we save the domain.
        return vec![match rule_subject("WebFetch", input) {
            Some(domain) => Rule::with_content("WebFetch", domain),
            None => Rule::tool("WebFetch"),
        }];
    }
    let content = SUGGESTION_FIELDS
        .iter()
        .filter_map(|f| input.get(*f).and_then(Value::as_str))
        .find(|s| !s.trim().is_empty());
    vec![match content {
        Some(c) => Rule::with_content(tool_name, c),
        None => Rule::tool(tool_name),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sug1_first_non_empty_field() {
        let r = suggested_rules("Edit", &json!({"file_path": "", "path": "src/a.rs"}), None);
        assert_eq!(r, vec![Rule::with_content("Edit", "src/a.rs")]);
        let r = suggested_rules("Glob", &json!({"pattern": "**/*.rs"}), None);
        assert_eq!(r, vec![Rule::with_content("Glob", "**/*.rs")]);
        let r = suggested_rules("mcp__fs__read", &json!({"path": "/a"}), None);
        assert_eq!(r, vec![Rule::tool("mcp__fs__read")]);
        let r = suggested_rules("Custom", &json!({"n": 1}), None);
        assert_eq!(r, vec![Rule::tool("Custom")]);
    }

    #[test]
    fn sug1_webfetch_saves_the_domain() {
        let r = suggested_rules(
            "WebFetch",
            &json!({"url": "https://Docs.rs/serde/latest"}),
            None,
        );
        assert_eq!(r, vec![Rule::with_content("WebFetch", "domain:docs.rs")]);
    }
}
