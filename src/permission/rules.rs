//! Permission rules as structured data and their matching (RULE-1..4).

use super::declaration::{CoveredBy, RuleSubject, ToolDeclaration};
use super::web_url;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// One rule: a tool name and an optional content pattern (RULE-1).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    pub tool_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_content: Option<String>,
}

impl Rule {
    pub fn tool(tool_name: impl Into<String>) -> Self {
        Self {
            tool_name: tool_name.into(),
            rule_content: None,
        }
    }

    pub fn with_content(tool_name: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_name: tool_name.into(),
            rule_content: Some(content.into()),
        }
    }
}

impl fmt::Display for Rule {
    /// Display only (`Bash(git status:*)`); never used for storage.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.rule_content {
            Some(c) => write!(f, "{}({})", self.tool_name, c),
            None => f.write_str(&self.tool_name),
        }
    }
}

impl Rule {
    /// Reads a rule as [`Rule`]'s `Display` writes it: `Tool`, or
    /// `Tool(content)` (`Bash(npm test:*)`, `Read(.env)`,
    /// `WebFetch(domain:docs.rs)`). The content runs from the first `(` to
    /// the last `)`, so it may hold parentheses itself.
    pub fn parse(text: &str) -> Result<Rule, RuleParseError> {
        let text = text.trim();
        let error = |reason| RuleParseError {
            text: text.to_string(),
            reason,
        };
        let (tool, content) = match text.find('(') {
            None => (text, None),
            Some(open) => match text[open + 1..].strip_suffix(')') {
                Some(inner) => (text[..open].trim_end(), Some(inner.trim())),
                None => return Err(error("the content must end with ')'")),
            },
        };
        if tool.is_empty() {
            return Err(error("it starts with a tool name, such as Bash or Read"));
        }
        if tool.contains(|c: char| c.is_whitespace() || c == '(' || c == ')') {
            return Err(error(
                "a tool name has no spaces or parentheses; the content goes in parentheses",
            ));
        }
        // A rule whose tool no call can have (`bash`, `Read*`) would match
        // nothing: a deny rule written so would silently deny nothing.
        if let Some(reason) = tool_name_problem(tool) {
            return Err(error(reason));
        }
        if content.is_some_and(|c| c.contains(":*") && !c.ends_with(":*")) {
            return Err(error(
                "':*' may only end the content (a prefix rule such as Bash(npm run:*))",
            ));
        }
        match content {
            Some("") => Err(error(
                "the parentheses are empty: leave them out to match every call of the tool",
            )),
            Some(content) => Ok(Rule::with_content(tool, content)),
            None => Ok(Rule::tool(tool)),
        }
    }
}

/// Why `tool` cannot be the tool of a rule: every tool name starts with
/// a capital letter (`Bash`, `WebFetch`) or is an MCP name (`mcp__server`,
/// `mcp__server__tool`), and has only letters, digits, `_` and `-`.
fn tool_name_problem(tool: &str) -> Option<&'static str> {
    let chars_ok = tool
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if let Some(rest) = tool.strip_prefix(super::mcp_names::PREFIX) {
        let server = rest.split("__").next().unwrap_or_default();
        if !chars_ok || super::mcp_names::server_name_problem(server).is_some() {
            return Some("an MCP rule names mcp__server or mcp__server__tool");
        }
        return None;
    }
    if !tool.starts_with(|c: char| c.is_ascii_uppercase()) || !chars_ok {
        return Some(
            "a tool name starts with a capital letter and has only letters and digits \
             (Bash, Read, WebFetch), or is mcp__server or mcp__server__tool",
        );
    }
    None
}

/// Text that [`Rule::parse`] does not read as a rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' is not a rule: {reason}")]
pub struct RuleParseError {
    pub text: String,
    pub reason: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleKind {
    Allow,
    Deny,
    Ask,
}

impl RuleKind {
    pub const ALL: [RuleKind; 3] = [RuleKind::Allow, RuleKind::Ask, RuleKind::Deny];

    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Allow => "allow",
            RuleKind::Deny => "deny",
            RuleKind::Ask => "ask",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "allow" => Some(RuleKind::Allow),
            "deny" => Some(RuleKind::Deny),
            "ask" => Some(RuleKind::Ask),
            _ => None,
        }
    }
}

/// Rules grouped by kind (RULE-1).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleSet {
    #[serde(default)]
    pub allow: Vec<Rule>,
    #[serde(default)]
    pub deny: Vec<Rule>,
    #[serde(default)]
    pub ask: Vec<Rule>,
}

impl RuleSet {
    pub fn rules(&self, kind: RuleKind) -> &[Rule] {
        match kind {
            RuleKind::Allow => &self.allow,
            RuleKind::Deny => &self.deny,
            RuleKind::Ask => &self.ask,
        }
    }

    pub(crate) fn rules_mut(&mut self, kind: RuleKind) -> &mut Vec<Rule> {
        match kind {
            RuleKind::Allow => &mut self.allow,
            RuleKind::Deny => &mut self.deny,
            RuleKind::Ask => &mut self.ask,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty() && self.ask.is_empty()
    }

    /// Adds rules, skipping ones already present by (toolName, ruleContent)
    /// (GRANT-1). Returns how many were new.
    pub fn merge(&mut self, kind: RuleKind, rules: impl IntoIterator<Item = Rule>) -> usize {
        let list = self.rules_mut(kind);
        let mut added = 0;
        for rule in rules {
            if !list.contains(&rule) {
                list.push(rule);
                added += 1;
            }
        }
        added
    }

    /// Removes a rule; returns whether it was present.
    pub fn remove(&mut self, kind: RuleKind, rule: &Rule) -> bool {
        let list = self.rules_mut(kind);
        let before = list.len();
        list.retain(|r| r != rule);
        list.len() != before
    }
}

/// RULE-2: does a rule of `kind` naming `rule_tool` cover `tool`? By its
/// exact name; a rule for an MCP server (`mcp__s`) covers each of its
/// tools; and a tool declares which other tools' rules cover it too
/// (`ToolDeclaration::covered_by`: a rule for Edit covers Write).
pub(crate) fn rule_covers_tool(kind: RuleKind, rule_tool: &str, tool: &ToolDeclaration) -> bool {
    rule_names(kind, rule_tool, tool.name(), tool.covered_by)
}

/// [`rule_covers_tool`] for a tool known by its name and what covers it.
pub(crate) fn rule_names(
    kind: RuleKind,
    rule_tool: &str,
    tool_name: &str,
    covered_by: &[CoveredBy],
) -> bool {
    rule_tool == tool_name
        || super::mcp_names::covers(rule_tool, tool_name)
        || covered_by
            .iter()
            .any(|c| c.tool == rule_tool && (c.allow_too || kind != RuleKind::Allow))
}

/// The input fields a rule's content is compared with, in order (RULE-3).
pub(crate) const SUBJECT_FIELDS: [&str; 6] = [
    "command",
    "url",
    "file_path",
    "path",
    "pattern",
    "patch_text",
];

/// RULE-3: the subject of a call whose rules compare `subject`. A URL's:
/// `domain:<host>`; a tool whose rules match nothing has none.
pub fn rule_subject(subject: RuleSubject, input: &Value) -> Option<String> {
    match subject {
        RuleSubject::Url => {
            let url = input.get("url")?.as_str()?;
            return url_host(url).map(|h| format!("domain:{h}"));
        }
        RuleSubject::Nothing => return None,
        RuleSubject::Command | RuleSubject::Input => {}
    }
    SUBJECT_FIELDS
        .iter()
        .find_map(|f| input.get(*f).and_then(Value::as_str))
        .map(str::to_string)
}

/// The host of a URL WebFetch may fetch, as rules compare it: parsed by
/// the same WHATWG parser as the fetch (`web_url`), so both see one host.
/// `None` for a URL that is not http(s) with a host: no domain rule or
/// pre-approved domain matches it.
pub(crate) fn url_host(url: &str) -> Option<String> {
    let url = web_url::parse_fetch_url(url).ok()?;
    web_url::fetch_host(&url).map(str::to_string)
}

/// RULE-4: `X:*` is a word-boundary prefix, a `*` elsewhere an anchored
/// wildcard, otherwise exact equality.
pub(crate) fn content_matches(subject: &str, content: &str) -> bool {
    if let Some(prefix) = content.strip_suffix(":*") {
        return subject == prefix
            || subject
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with(' ') || rest.starts_with('\t'));
    }
    if content.contains('*') {
        return wildcard_matches(content, subject);
    }
    subject == content
}

/// Anchored glob with `*` as the only metacharacter; linear-time greedy
/// matching with backtracking to the last star (no regex, no blow-up).
fn wildcard_matches(pattern: &str, text: &str) -> bool {
    let p = pattern.as_bytes();
    let t = text.as_bytes();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

/// Does a non-Bash rule of `kind` match this call (RULE-2..4)?
pub(crate) fn rule_of_kind_matches(
    rule: &Rule,
    kind: RuleKind,
    tool: &ToolDeclaration,
    subject: Option<&str>,
) -> bool {
    if !rule_covers_tool(kind, &rule.tool_name, tool) {
        return false;
    }
    match (&rule.rule_content, subject) {
        (None, _) => true,
        (Some(content), Some(subject)) => content_matches(subject, content),
        (Some(_), None) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::registry::declaration_for;
    use serde_json::json;

    #[test]
    fn grant4_a_rule_reads_back_as_it_is_written() {
        for rule in [
            Rule::tool("WebFetch"),
            Rule::with_content("Bash", "npm test:*"),
            Rule::with_content("Read", ".env"),
            Rule::with_content("Bash", "echo (a):*"),
        ] {
            assert_eq!(Rule::parse(&rule.to_string()), Ok(rule));
        }
        assert_eq!(
            Rule::parse("  Bash ( git status:* ) "),
            Ok(Rule::with_content("Bash", "git status:*"))
        );
        for bad in [
            "",
            "(x)",
            "Bash(npm test",
            "Bash()",
            "My Tool(x)",
            "Bash)x(",
            "bash(make:*)",
            "Bash*",
            "mcp__(x)",
            "Bash(npm:* test)",
        ] {
            let e = Rule::parse(bad).expect_err(bad);
            assert_eq!(e.text, bad.trim(), "{e}");
        }
    }

    #[test]
    fn rule4_prefix_has_word_boundary() {
        assert!(content_matches("git status", "git status:*"));
        assert!(content_matches("git status -s", "git status:*"));
        assert!(content_matches("git status\t-s", "git status:*"));
        assert!(!content_matches("git statusx", "git status:*"));
        assert!(!content_matches("git", "git status:*"));
    }

    #[test]
    fn rule4_wildcard_is_anchored() {
        assert!(content_matches("src/main.rs", "src/*.rs"));
        assert!(content_matches("src/a/b.rs", "src/*.rs"));
        assert!(!content_matches("xsrc/main.rs", "src/*.rs"));
        assert!(!content_matches("src/main.rsx", "src/*.rs"));
        assert!(content_matches("anything", "*"));
        assert!(content_matches("a.b", "a*b"));
        assert!(content_matches("aXbYb", "a*b"));
        assert!(!content_matches("aXbYc", "a*b"));
        // Regex metacharacters are literal.
        assert!(content_matches("a.(b)", "a.(*)"));
        assert!(!content_matches("axxb", "a.*b"));
    }

    #[test]
    fn rule4_exact_otherwise() {
        assert!(content_matches("/tmp/x", "/tmp/x"));
        assert!(!content_matches("/tmp/xy", "/tmp/x"));
    }

    fn covers(kind: RuleKind, rule_tool: &str, tool: &str) -> bool {
        rule_covers_tool(kind, rule_tool, &declaration_for(tool))
    }

    #[test]
    fn rule2_edit_covers_write() {
        let allow = RuleKind::Allow;
        assert!(covers(allow, "Edit", "Write"));
        assert!(covers(allow, "Edit", "Edit"));
        assert!(!covers(allow, "Write", "Edit"));
        assert!(!covers(allow, "edit", "Edit"));
    }

    #[test]
    fn rule2_write_deny_and_ask_cover_edit() {
        for kind in [RuleKind::Deny, RuleKind::Ask] {
            assert!(covers(kind, "Write", "Edit"));
            assert!(covers(kind, "Edit", "Write"));
            assert!(covers(kind, "Read", "Grep") && covers(kind, "Read", "Glob"));
        }
        assert!(!covers(RuleKind::Allow, "Write", "Edit"));
        assert!(covers(RuleKind::Allow, "Edit", "Write"));
        assert!(!covers(RuleKind::Allow, "Read", "Grep"));
        assert!(!covers(RuleKind::Deny, "Write", "Read"));
        assert!(!covers(RuleKind::Deny, "Grep", "Read"));
    }

    #[test]
    fn rule3_subject_order_and_webfetch_domain() {
        let input = json!({"path": "p", "file_path": "f", "pattern": "x"});
        assert_eq!(
            rule_subject(RuleSubject::Input, &input).as_deref(),
            Some("f")
        );
        let input = json!({"url": "https://User@Docs.RS:443/x?y"});
        assert_eq!(
            rule_subject(RuleSubject::Url, &input).as_deref(),
            Some("domain:docs.rs")
        );
        assert_eq!(
            rule_subject(RuleSubject::Url, &json!({"url": "nonsense"})),
            None
        );
        assert_eq!(rule_subject(RuleSubject::Input, &json!({"limit": 3})), None);
        assert_eq!(url_host("http://[::1]:8080/").as_deref(), Some("[::1]"));
    }

    #[test]
    fn rule1_merge_dedups_by_tool_and_content() {
        let mut set = RuleSet::default();
        let n = set.merge(
            RuleKind::Allow,
            [
                Rule::with_content("Bash", "ls:*"),
                Rule::with_content("Bash", "ls:*"),
                Rule::tool("Read"),
            ],
        );
        assert_eq!(n, 2);
        assert_eq!(set.merge(RuleKind::Allow, [Rule::tool("Read")]), 0);
        assert!(set.remove(RuleKind::Allow, &Rule::tool("Read")));
        assert_eq!(set.allow, vec![Rule::with_content("Bash", "ls:*")]);
    }
}
