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
    pub fn is_disallowed(&self, tool_name: &str) -> bool {
        self.disallowed_tools.contains(tool_name)
    }

    pub fn is_allowed(&self, tool_name: &str) -> bool {
        self.allowed_tools.contains(tool_name)
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
}
