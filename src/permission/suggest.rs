//! Rules offered for "always allow" (SUG-1, SUG-2).

use super::bash::{self, BashAnalysis};
use super::declaration::{RuleSubject, ToolDeclaration};
use super::rules::{Rule, rule_subject};
use serde_json::Value;

/// The approval panel shows at most this many Bash prefixes (SUG-2).
pub(crate) const MAX_SHOWN_BASH_PREFIXES: usize = 5;

/// SUG-1 fields, in order (RULE-3 minus `patch_text`).
const SUGGESTION_FIELDS: [&str; 5] = ["command", "url", "file_path", "path", "pattern"];

/// The rules an "always allow" answer would save for this call.
pub(crate) fn suggested_rules(
    tool: &ToolDeclaration,
    input: &Value,
    bash: Option<&BashAnalysis>,
) -> Vec<Rule> {
    let name = tool.name();
    if name.starts_with(super::mcp_names::PREFIX) {
        // An MCP tool's arguments are the server's own: "always allow"
        // saves the tool.
        return vec![Rule::tool(name)];
    }
    match tool.subject {
        RuleSubject::Command => match bash {
            Some(analysis) => bash::suggest_rules(analysis)
                .into_iter()
                .map(|content| Rule::with_content(name, content))
                .collect(),
            None => vec![Rule::tool(name)],
        },
        // The seed's product saved the whole URL, which never matches the
        // `domain:` subject; we save the domain.
        RuleSubject::Url => vec![match rule_subject(RuleSubject::Url, input) {
            Some(domain) => Rule::with_content(name, domain),
            None => Rule::tool(name),
        }],
        RuleSubject::Input | RuleSubject::Nothing => {
            let content = SUGGESTION_FIELDS
                .iter()
                .filter_map(|f| input.get(*f).and_then(Value::as_str))
                .find(|s| !s.trim().is_empty());
            vec![match content {
                Some(c) => Rule::with_content(name, c),
                None => Rule::tool(name),
            }]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::capability::McpHints;
    use crate::tools::registry::declaration_for;
    use serde_json::json;

    #[test]
    fn sug1_first_non_empty_field() {
        let r = suggested_rules(
            &declaration_for("Edit"),
            &json!({"file_path": "", "path": "src/a.rs"}),
            None,
        );
        assert_eq!(r, vec![Rule::with_content("Edit", "src/a.rs")]);
        let r = suggested_rules(
            &declaration_for("Glob"),
            &json!({"pattern": "**/*.rs"}),
            None,
        );
        assert_eq!(r, vec![Rule::with_content("Glob", "**/*.rs")]);
        let r = suggested_rules(
            &ToolDeclaration::mcp("mcp__fs__read", McpHints::default()),
            &json!({"path": "/a"}),
            None,
        );
        assert_eq!(r, vec![Rule::tool("mcp__fs__read")]);
        let r = suggested_rules(&declaration_for("Custom"), &json!({"n": 1}), None);
        assert_eq!(r, vec![Rule::tool("Custom")]);
    }

    #[test]
    fn sug1_webfetch_saves_the_domain() {
        let r = suggested_rules(
            &declaration_for("WebFetch"),
            &json!({"url": "https://Docs.rs/serde/latest"}),
            None,
        );
        assert_eq!(r, vec![Rule::with_content("WebFetch", "domain:docs.rs")]);
    }
}
