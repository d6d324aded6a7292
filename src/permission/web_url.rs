//! The URL a WebFetch call reaches, parsed with the WHATWG parser the HTTP
//! client itself uses (RULE-3). The permission subject, the pre-approved
//! domain check and the fetch all read the same parsed `Url`, so a URL
//! cannot name one host to the rules and another to the network
//! (`http://evil.net\@example.com/` is evil.net for both).

use std::fmt;
use url::{Host, Url};

/// Why a URL is not one WebFetch may fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UrlRefusal {
    Invalid(url::ParseError),
    Scheme(String),
    NoHost,
}

impl fmt::Display for UrlRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlRefusal::Invalid(e) => write!(f, "\"url\" is not a valid URL ({e})"),
            UrlRefusal::Scheme(scheme) => write!(
                f,
                "\"url\" must be an http:// or https:// URL, not {scheme}:"
            ),
            UrlRefusal::NoHost => f.write_str("\"url\" has no host"),
        }
    }
}

/// Parses an absolute http(s) URL with a host; anything else is refused.
pub(crate) fn parse_fetch_url(raw: &str) -> Result<Url, UrlRefusal> {
    let url = Url::parse(raw).map_err(UrlRefusal::Invalid)?;
    check_fetch_url(&url)?;
    Ok(url)
}

/// The same conditions for a URL parsed elsewhere (a redirect's target).
pub(crate) fn check_fetch_url(url: &Url) -> Result<(), UrlRefusal> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(UrlRefusal::Scheme(url.scheme().to_string()));
    }
    if fetch_host(url).is_none() {
        return Err(UrlRefusal::NoHost);
    }
    Ok(())
}

/// The host as rules and settings compare it: the parser's serialisation
/// (lower-cased, IDNA to punycode, IPv4 normalised, IPv6 in brackets)
/// without the one trailing dot of a fully qualified name, which names
/// the same DNS entry.
pub(crate) fn fetch_host(url: &Url) -> Option<&str> {
    let host = url.host_str()?;
    let host = host.strip_suffix('.').unwrap_or(host);
    (!host.is_empty()).then_some(host)
}

/// A configured domain in the form `fetch_host` produces, so that
/// `Bücher.de`, `[::1]` or `::1` in the settings match what is fetched.
/// `None` for an entry that is no host at all.
pub(crate) fn normalize_domain(domain: &str) -> Option<String> {
    let domain = domain.trim();
    let bracketed;
    let input = if domain.contains(':') && !domain.starts_with('[') {
        bracketed = format!("[{domain}]");
        bracketed.as_str()
    } else {
        domain
    };
    let host = Host::parse(input).ok()?.to_string();
    let host = host.strip_suffix('.').unwrap_or(&host);
    (!host.is_empty()).then(|| host.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(raw: &str) -> Option<String> {
        parse_fetch_url(raw)
            .ok()
            .and_then(|u| fetch_host(&u).map(str::to_string))
    }

    #[test]
    fn rule3_webfetch_domain_host_forms() {
        assert_eq!(
            host("https://User@Docs.RS:443/x?y").as_deref(),
            Some("docs.rs")
        );
        assert_eq!(host("http://[::1]:8080/").as_deref(), Some("[::1]"));
        assert_eq!(host("http://0x7f.1/").as_deref(), Some("127.0.0.1"));
        assert_eq!(host("http://example.com./").as_deref(), Some("example.com"));
        assert_eq!(
            host("http://bücher.de/").as_deref(),
            Some("xn--bcher-kva.de")
        );
        assert_eq!(host("ftp://example.com/"), None);
        assert_eq!(host("//example.com/"), None);
        assert_eq!(host("nonsense"), None);
        assert!(matches!(
            parse_fetch_url("file:///etc/passwd"),
            Err(UrlRefusal::Scheme(_))
        ));
    }

    #[test]
    fn perm9_configured_domains_are_normalised() {
        assert_eq!(normalize_domain(" Docs.RS ").as_deref(), Some("docs.rs"));
        assert_eq!(
            normalize_domain("bücher.de.").as_deref(),
            Some("xn--bcher-kva.de")
        );
        assert_eq!(normalize_domain("::1").as_deref(), Some("[::1]"));
        assert_eq!(normalize_domain("[::1]").as_deref(), Some("[::1]"));
        assert_eq!(normalize_domain("0x7f.1").as_deref(), Some("127.0.0.1"));
        assert_eq!(normalize_domain("exa mple.com"), None);
        assert_eq!(normalize_domain(""), None);
    }
}
