//! The permission inputs that come from configuration and the command line.

use super::web_url::normalize_domain;
use std::collections::BTreeSet;

/// Config `permission` section plus `--allowedTools`/`--disallowedTools`,
/// already merged. `check_permission` reads only this, never the files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PermissionSettings {
    pub allowed_tools: BTreeSet<String>,
    pub disallowed_tools: BTreeSet<String>,
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
    /// Listed by name, or (an MCP tool) by its server's `mcp__server`.
    pub fn is_disallowed(&self, tool_name: &str) -> bool {
        listed(&self.disallowed_tools, tool_name)
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

fn listed(list: &BTreeSet<String>, tool_name: &str) -> bool {
    list.contains(tool_name)
        || super::mcp_names::server_of(tool_name)
            .is_some_and(|server| list.contains(&format!("{}{server}", super::mcp_names::PREFIX)))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn mcp_tool_lists_name_a_server_or_one_tool() {
        let s = PermissionSettings {
            disallowed_tools: ["mcp__fs".to_string()].into(),
            allowed_tools: ["mcp__git__status".to_string()].into(),
            ..Default::default()
        };
        assert!(s.is_disallowed("mcp__fs__write_file"));
        assert!(!s.is_disallowed("mcp__fsx__write_file"));
        assert!(!s.is_disallowed("mcp__git__status"));
        assert!(s.is_allowed("mcp__git__status"));
        assert!(!s.is_allowed("mcp__git__status_all"));
        assert!(!s.is_allowed("mcp__git__commit"));
    }
}
