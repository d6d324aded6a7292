//! How a WebFetch rule's content matches the URL a call fetches (RULE-3,
//! RULE-4). A rule may name a host (`domain:example.com`, or a bare
//! `example.com`), a host pattern (`domain:*.example.com`) or a URL
//! (`https://example.com/x`). The URL is the one the fetch reaches, read by
//! the fetch's own parser (`web_url`).
//!
//! Allow rules are exact: a host allows that host, a URL that URL (its
//! fragment aside). Deny and ask rules match as a user means them: a host
//! also covers its subdomains, and a URL covers that page on its host by
//! any scheme or port, with any query or fragment, and the pages under it,
//! its path compared after percent-decoding and ignoring letter case.

use super::declaration::ToolDeclaration;
use super::rules::{Rule, RuleKind, content_matches, rule_covers_tool};
use super::web_url::{fetch_host, normalize_domain, parse_fetch_url};
use url::Url;

/// What a WebFetch rule's content names.
enum Pattern {
    /// One host, in `fetch_host` form.
    Host(String),
    /// A host pattern with `*` (RULE-4 wildcard), lower-cased.
    HostWildcard(String),
    /// One URL; `scheme` is false for a rule written without one.
    Url { url: Url, scheme: bool },
    /// A URL pattern with `*`: its host part is matched against the host
    /// alone (a `*` there never reaches into the path), the rest against
    /// the path and query.
    UrlWildcard {
        scheme: String,
        host: String,
        rest: String,
    },
    /// Content that names nothing WebFetch can reach.
    Nothing,
}

fn read_pattern(content: &str) -> Pattern {
    let content = content.trim();
    if let Some(host) = content.strip_prefix("domain:") {
        return host_pattern(host);
    }
    if content.contains("://") {
        if content.contains('*') {
            return url_wildcard(content);
        }
        return match parse_fetch_url(content) {
            Ok(url) => Pattern::Url { url, scheme: true },
            Err(_) => Pattern::Nothing,
        };
    }
    if content.contains('/') && !content.contains('*') {
        // `example.com/x`: a URL without its scheme.
        return match parse_fetch_url(&format!("https://{content}")) {
            Ok(url) => Pattern::Url { url, scheme: false },
            Err(_) => Pattern::Nothing,
        };
    }
    host_pattern(content)
}

fn url_wildcard(content: &str) -> Pattern {
    let Some((scheme, after)) = content.split_once("://") else {
        return Pattern::Nothing;
    };
    let (host, rest) = match after.find(['/', '?']) {
        Some(at) => after.split_at(at),
        None => (after, ""),
    };
    let host = host.to_ascii_lowercase();
    Pattern::UrlWildcard {
        scheme: scheme.to_ascii_lowercase(),
        host: host.strip_suffix('.').unwrap_or(&host).to_string(),
        rest: rest.to_string(),
    }
}

fn host_pattern(host: &str) -> Pattern {
    let host = host.trim();
    if host.contains('*') {
        let lower = host.to_ascii_lowercase();
        let lower = lower.strip_suffix('.').unwrap_or(&lower);
        return Pattern::HostWildcard(lower.to_string());
    }
    match normalize_domain(host) {
        Some(host) => Pattern::Host(host),
        None => Pattern::Nothing,
    }
}

/// Does the WebFetch rule `rule` of `kind` match a call of `tool`
/// fetching `url`? A rule with content never matches a URL WebFetch would
/// refuse (the fetch refuses it anyway).
pub(crate) fn web_fetch_rule_matches(
    rule: &Rule,
    kind: RuleKind,
    tool: &ToolDeclaration,
    url: Option<&str>,
) -> bool {
    if !rule_covers_tool(kind, &rule.tool_name, tool) {
        return false;
    }
    let Some(content) = &rule.rule_content else {
        return true;
    };
    let Some(url) = url.and_then(|u| parse_fetch_url(u).ok()) else {
        return false;
    };
    let Some(host) = fetch_host(&url) else {
        return false;
    };
    let broad = kind != RuleKind::Allow;
    match read_pattern(content) {
        Pattern::Host(rule_host) => {
            host == rule_host
                || (broad
                    && host
                        .strip_suffix(rule_host.as_str())
                        .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.')))
        }
        Pattern::HostWildcard(pattern) => content_matches(host, &pattern),
        Pattern::Url {
            url: rule_url,
            scheme,
        } => {
            if broad {
                fetch_host(&rule_url) == Some(host) && path_under(&url, &rule_url)
            } else {
                fetch_host(&rule_url) == Some(host)
                    && (!scheme || rule_url.scheme() == url.scheme())
                    && ((!scheme && rule_url.port().is_none())
                        || rule_url.port_or_known_default() == url.port_or_known_default())
                    && rule_url.path() == url.path()
                    && rule_url.query() == url.query()
            }
        }
        Pattern::UrlWildcard {
            scheme,
            host: host_pattern,
            rest,
        } => {
            let scheme_ok = scheme == "*" || scheme == url.scheme();
            let (host_only, port) = split_port(&host_pattern);
            let host_ok = content_matches(host, host_only)
                && port.is_none_or(|port| {
                    port == "*"
                        || url
                            .port_or_known_default()
                            .is_some_and(|p| p.to_string() == port)
                });
            let mut target = url.path().to_string();
            if let Some(query) = url.query() {
                target.push('?');
                target.push_str(query);
            }
            let rest_ok = if rest.is_empty() {
                true
            } else if broad {
                content_matches(&comparable_path(&target), &comparable_path(&rest))
            } else {
                content_matches(&target, &rest)
            };
            (broad || scheme_ok) && host_ok && rest_ok
        }
        Pattern::Nothing => false,
    }
}

/// A host pattern's port, after an IPv6 address's brackets.
fn split_port(pattern: &str) -> (&str, Option<&str>) {
    let after_bracket = pattern.rfind(']').map_or(0, |i| i + 1);
    match pattern[after_bracket..].find(':') {
        Some(i) => (
            &pattern[..after_bracket + i],
            Some(&pattern[after_bracket + i + 1..]),
        ),
        None => (pattern, None),
    }
}

/// Is `url`'s path the rule's path or a page under it, compared after
/// percent-decoding and ignoring case (servers differ in both)?
fn path_under(url: &Url, rule: &Url) -> bool {
    let path = comparable_path(url.path());
    let rule_path = comparable_path(rule.path());
    let rule_path = rule_path.trim_end_matches('/');
    let path = path.trim_end_matches('/');
    rule_path.is_empty()
        || path == rule_path
        || path
            .strip_prefix(rule_path)
            .is_some_and(|rest| rest.starts_with('/'))
}

fn comparable_path(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            // Both digits are below 16, so the byte fits.
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(content: &str, kind: RuleKind, url: &str) -> bool {
        web_fetch_rule_matches(
            &Rule::with_content("WebFetch", content),
            kind,
            &crate::tools::registry::declaration_for("WebFetch"),
            Some(url),
        )
    }

    #[test]
    fn rule3_webfetch_domain_deny_covers_subdomains_allow_does_not() {
        assert!(matches(
            "domain:example.com",
            RuleKind::Deny,
            "https://a.example.com/"
        ));
        assert!(!matches(
            "domain:example.com",
            RuleKind::Allow,
            "https://a.example.com/"
        ));
        assert!(!matches(
            "domain:example.com",
            RuleKind::Deny,
            "https://aexample.com/"
        ));
        assert!(matches(
            "example.com",
            RuleKind::Ask,
            "https://EXAMPLE.com./"
        ));
    }

    #[test]
    fn rule3_webfetch_url_rules() {
        let deny = |url| matches("https://example.com/x", RuleKind::Deny, url);
        assert!(deny("http://example.com/X?q#f"));
        assert!(deny("https://example.com/%78/y"));
        assert!(!deny("https://example.com/xy"));
        assert!(matches(
            "https://example.com/admin",
            RuleKind::Deny,
            "http://EXAMPLE.com:8080/%61dmin/x?y"
        ));
        let allow = |url| matches("https://example.com/x", RuleKind::Allow, url);
        assert!(allow("https://example.com:443/x#f"));
        assert!(!allow("https://example.com/x?q"));
        assert!(matches(
            "example.com/docs",
            RuleKind::Allow,
            "http://example.com/docs"
        ));
        assert!(matches(
            "https://example.com/*",
            RuleKind::Allow,
            "https://example.com/a/b"
        ));
        assert!(matches(
            "https://EXAMPLE.com/*",
            RuleKind::Deny,
            "https://example.com/a"
        ));
        assert!(!matches(
            "https://example.com/*",
            RuleKind::Deny,
            "https://evil.net/"
        ));
        assert!(!matches("nonsense ::", RuleKind::Deny, "https://evil.net/"));
        assert!(!matches(
            "domain:example.com",
            RuleKind::Deny,
            "file:///etc/passwd"
        ));
        // A `*` in the host never reaches into the path.
        let wild = |url| matches("https://*.example.com/*", RuleKind::Allow, url);
        assert!(wild("https://api.example.com/x"));
        assert!(!wild("https://evil.net/x.example.com/y"));
        assert!(!wild("https://evil.net/?.example.com/"));
        assert!(matches(
            "http://localhost:*/*",
            RuleKind::Allow,
            "http://localhost:3000/a"
        ));
        assert!(!matches(
            "http://localhost:80/*",
            RuleKind::Allow,
            "http://localhost:3000/a"
        ));
    }
}
