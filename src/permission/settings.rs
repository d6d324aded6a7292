//! The permission inputs that come from configuration and the command line.

use super::declaration::ToolDeclaration;
use super::rules::{Rule, RuleKind, RuleParseError, rule_covers_tool};
use super::web_url::normalize_domain;
use std::collections::BTreeSet;

/// Config `permission` section plus `--allowedTools`/`--disallowedTools`,
/// already merged. `check_permission` reads only this, never the files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PermissionSettings {
    /// `allowedTools` entries without content: the whole tool.
    pub allowed_tools: BTreeSet<String>,
    /// `disallowedTools` entries without content: the whole tool.
    pub disallowed_tools: BTreeSet<String>,
    /// `allowedTools` entries with content (`Bash(git diff:*)`): allow
    /// rules for this process, matched exactly as saved allow rules are.
    pub allow_rules: Vec<Rule>,
    /// `disallowedTools` entries with content (`Bash(rm:*)`): deny rules
    /// for this process, matched exactly as saved deny rules are.
    pub deny_rules: Vec<Rule>,
    pub auto_approve_high_risk: bool,
    /// Lower-cased hosts; a leading `*.` admits every subdomain.
    pub web_fetch_allowed_domains: Vec<String>,
    /// Config `permission.readOnlyCommands`: prefixes (rule syntax) that
    /// count as read-only, but only where the read-only sandbox runs them.
    pub read_only_commands: Vec<String>,
    /// Config `sandbox`.
    pub sandbox: crate::sandbox::SandboxSettings,
}

impl PermissionSettings {
    /// Adds one `allowedTools` entry: `Tool` allows the whole tool,
    /// `Tool(content)` becomes a scoped allow rule (never the whole tool).
    pub fn add_allowed_entry(&mut self, entry: &str) -> Result<(), RuleParseError> {
        let rule = Rule::parse(entry)?;
        match rule.rule_content {
            None => {
                self.allowed_tools.insert(rule.tool_name);
            }
            Some(_) if !self.allow_rules.contains(&rule) => self.allow_rules.push(rule),
            Some(_) => {}
        }
        Ok(())
    }

    /// Adds one `disallowedTools` entry: `Tool` removes the whole tool,
    /// `Tool(content)` becomes a scoped deny rule.
    pub(crate) fn add_disallowed_entry(&mut self, entry: &str) -> Result<(), RuleParseError> {
        let rule = Rule::parse(entry)?;
        match rule.rule_content {
            None => {
                self.disallowed_tools.insert(rule.tool_name);
            }
            Some(_) if !self.deny_rules.contains(&rule) => self.deny_rules.push(rule),
            Some(_) => {}
        }
        Ok(())
    }

    /// Named by a whole-tool entry, as a deny rule names it: by name, by
    /// its server's `mcp__server`, and `Edit` and `Write` each for both.
    pub fn is_disallowed(&self, tool: &ToolDeclaration) -> bool {
        list_removes(self.disallowed_tools.iter(), tool)
    }

    /// Listed by name, or (an MCP tool) by its server's `mcp__server`.
    pub fn is_allowed(&self, tool_name: &str) -> bool {
        listed(&self.allowed_tools, tool_name)
    }

    /// Is `host` (as `web_url::fetch_host` gives it) pre-approved for
    /// WebFetch (PERM-9)? An entry matches its own host exactly; `*.parent`
    /// matches the hosts under `parent`, not `parent` itself. Entries are
    /// put in the parser's form first (case, IDNA, trailing dot, IP forms).
    pub fn web_fetch_domain_allowed(&self, host: &str) -> bool {
        self.web_fetch_allowed_domains.iter().any(|entry| {
            let entry = entry.trim();
            if let Some(parent) = entry.strip_prefix("*.") {
                let Some(parent) = normalize_domain(parent) else {
                    return false;
                };
                host.strip_suffix(parent.as_str())
                    .and_then(|sub| sub.strip_suffix('.'))
                    .is_some_and(|sub| !sub.is_empty())
            } else {
                normalize_domain(entry).is_some_and(|d| d == host)
            }
        })
    }
}

/// Whether whole-tool `disallowedTools` entries remove `tool` (DIS-2):
/// the way a deny rule covers a tool (RULE-2), so `Edit` also removes
/// `Write` and `Write` also removes `Edit`.
pub(crate) fn list_removes<'a>(
    entries: impl IntoIterator<Item = &'a String>,
    tool: &ToolDeclaration,
) -> bool {
    entries
        .into_iter()
        .any(|entry| rule_covers_tool(RuleKind::Deny, entry, tool))
}

fn listed(list: &BTreeSet<String>, tool_name: &str) -> bool {
    list.contains(tool_name)
        || super::mcp_names::server_of(tool_name)
            .is_some_and(|server| list.contains(&format!("{}{server}", super::mcp_names::PREFIX)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::registry::declaration_for;

    #[test]
    fn perm9_domain_preapproval() {
        let s = PermissionSettings {
            web_fetch_allowed_domains: vec!["docs.rs".into(), "*.github.com".into()],
            ..Default::default()
        };
        assert!(s.web_fetch_domain_allowed("docs.rs"));
        assert!(!s.web_fetch_domain_allowed("evil-docs.rs"));
        assert!(s.web_fetch_domain_allowed("api.github.com"));
        assert!(!s.web_fetch_domain_allowed("github.com"));
        assert!(!s.web_fetch_domain_allowed("evilgithub.com"));
    }

    #[test]
    fn dis2_edit_and_write_remove_each_other() {
        let s = PermissionSettings {
            disallowed_tools: ["Edit".to_string()].into(),
            ..Default::default()
        };
        assert!(s.is_disallowed(&declaration_for("Write")));
        assert!(s.is_disallowed(&declaration_for("Edit")));
        assert!(!s.is_disallowed(&declaration_for("Read")));
        let s = PermissionSettings {
            disallowed_tools: ["Write".to_string()].into(),
            ..Default::default()
        };
        assert!(s.is_disallowed(&declaration_for("Edit")));
    }

    #[test]
    fn dis1_entries_with_content_are_scoped_rules() {
        let mut s = PermissionSettings::default();
        s.add_allowed_entry("Bash(git diff:*)").unwrap();
        s.add_allowed_entry("Read").unwrap();
        s.add_disallowed_entry("Bash(rm:*)").unwrap();
        assert!(!s.is_allowed("Bash"));
        assert!(s.is_allowed("Read"));
        assert!(!s.is_disallowed(&declaration_for("Bash")));
        assert_eq!(
            s.allow_rules,
            vec![Rule::with_content("Bash", "git diff:*")]
        );
        assert_eq!(s.deny_rules, vec![Rule::with_content("Bash", "rm:*")]);
        assert!(s.add_allowed_entry("Bash(git").is_err());
    }

    #[test]
    fn mcp_tool_lists_name_a_server_or_one_tool() {
        let s = PermissionSettings {
            disallowed_tools: ["mcp__fs".to_string()].into(),
            allowed_tools: ["mcp__git__status".to_string()].into(),
            ..Default::default()
        };
        assert!(s.is_disallowed(&declaration_for("mcp__fs__write_file")));
        assert!(!s.is_disallowed(&declaration_for("mcp__fsx__write_file")));
        assert!(!s.is_disallowed(&declaration_for("mcp__git__status")));
        assert!(s.is_allowed("mcp__git__status"));
        assert!(!s.is_allowed("mcp__git__status_all"));
        assert!(!s.is_allowed("mcp__git__commit"));
    }
}
