//! WebFetch's permission: plan mode follows the build rules (PERM-8), and
//! the `domain:` subject is the host the fetch really reaches (RULE-3,
//! PERM-9, SUG-1), however the URL is spelled.

mod support;

use serde_json::{Value, json};
use support::web_sites::webfetch_rules;
use zcode::permission::check::Behavior::{self, Allow, Ask, Deny};
use zcode::permission::check::{Decision, RuleId};
use zcode::permission::declaration::RuleSubject;
use zcode::permission::mode::{ExecutionState, Mode};
use zcode::permission::rules::{Rule, RuleSet, rule_subject};
use zcode::permission::service::PermissionService;
use zcode::permission::settings::PermissionSettings;
use zcode::tools::registry::declaration_for;
use zcode::tools::{Tool, WebFetchTool};

const BUILD: ExecutionState = ExecutionState::new(Mode::Build, false);
/// Plan on top of every mode underneath (EXEC-3).
const PLANS: [ExecutionState; 3] = [
    ExecutionState::new(Mode::Build, true),
    ExecutionState::new(Mode::Edit, true),
    ExecutionState::new(Mode::Yolo, true),
];

fn service(settings: PermissionSettings) -> (tempfile::TempDir, PermissionService) {
    let dir = tempfile::tempdir().unwrap();
    let svc = PermissionService::new(settings, dir.path(), None);
    (dir, svc)
}

fn domains(list: &[&str]) -> PermissionSettings {
    PermissionSettings {
        web_fetch_allowed_domains: list.iter().map(|d| d.to_string()).collect(),
        ..Default::default()
    }
}

fn fetch(url: &str) -> Value {
    json!({ "url": url })
}

fn decide(svc: &PermissionService, url: &str, state: ExecutionState, rules: &RuleSet) -> Decision {
    svc.evaluate(
        &declaration_for("WebFetch"),
        &fetch(url),
        state,
        rules,
        None,
    )
    .decision
}

fn behavior(
    svc: &PermissionService,
    url: &str,
    state: ExecutionState,
    rules: &RuleSet,
) -> Behavior {
    decide(svc, url, state, rules).behavior
}

// ---- PERM-8: plan mode ----

#[test]
fn perm8_webfetch_plan_asks_without_a_rule() {
    let (_d, svc) = service(PermissionSettings::default());
    for state in PLANS {
        let d = decide(
            &svc,
            "https://evil.net/collect?key=sk-live-123",
            state,
            &RuleSet::default(),
        );
        assert_eq!(d.behavior, Ask, "{state:?}: {d:?}");
        assert_eq!(d.rule_id, RuleId::NeedsApproval, "{state:?}");
    }
}

#[test]
fn perm8_webfetch_plan_preapproved_domain_is_allowed() {
    let (_d, svc) = service(domains(&["docs.rs"]));
    for state in PLANS {
        let d = decide(&svc, "https://docs.rs/serde", state, &RuleSet::default());
        assert_eq!(
            (d.behavior, d.rule_id),
            (Allow, RuleId::WebFetchDomain),
            "{state:?}"
        );
        assert_eq!(
            behavior(
                &svc,
                "https://docs.rs.evil.net/",
                state,
                &RuleSet::default()
            ),
            Ask,
            "{state:?}"
        );
    }
}

#[test]
fn perm8_webfetch_plan_project_allow_rule_allows_its_domain_only() {
    let (_d, svc) = service(PermissionSettings::default());
    let rules = webfetch_rules(&["domain:example.com"], &[], &[]);
    for state in PLANS {
        let d = decide(&svc, "https://example.com/a", state, &rules);
        assert_eq!(
            (d.behavior, d.rule_id),
            (Allow, RuleId::ProjectAllow),
            "{state:?}"
        );
        assert_eq!(
            behavior(&svc, "https://example.org/a", state, &rules),
            Ask,
            "{state:?}"
        );
    }
}

#[test]
fn perm8_webfetch_plan_deny_and_ask_rules_come_first() {
    let (_d, svc) = service(domains(&["example.com", "docs.rs"]));
    let rules = webfetch_rules(
        &["domain:example.com", "domain:docs.rs"],
        &["domain:docs.rs"],
        &["domain:example.com"],
    );
    for state in PLANS {
        let d = decide(&svc, "https://example.com/", state, &rules);
        assert_eq!(
            (d.behavior, d.rule_id),
            (Deny, RuleId::ProjectDeny),
            "{state:?}"
        );
        let d = decide(&svc, "https://docs.rs/", state, &rules);
        assert_eq!(
            (d.behavior, d.rule_id),
            (Ask, RuleId::ProjectAsk),
            "{state:?}"
        );
    }
}

#[test]
fn perm8_webfetch_plan_decides_like_build_for_every_url() {
    let (_d, svc) = service(domains(&["*.github.com"]));
    let rules = webfetch_rules(&["domain:docs.rs"], &[], &["domain:evil.net"]);
    for url in [
        "https://docs.rs/x",
        "https://api.github.com/",
        "https://github.com/",
        "https://evil.net/",
        "https://example.com/",
        "http://evil.net\\@docs.rs/",
    ] {
        let build = decide(&svc, url, BUILD, &rules);
        for state in PLANS.into_iter().take(2) {
            assert_eq!(decide(&svc, url, state, &rules), build, "{url} {state:?}");
        }
    }
}

#[test]
fn perm8_webfetch_plan_other_read_only_tools_stay_allowed() {
    let (_d, svc) = service(PermissionSettings::default());
    for state in PLANS {
        for (tool, input) in [
            ("Read", json!({"file_path": "src/main.rs"})),
            ("Grep", json!({"pattern": "x"})),
        ] {
            let d = svc
                .evaluate(
                    &declaration_for(tool),
                    &input,
                    state,
                    &RuleSet::default(),
                    None,
                )
                .decision;
            assert_eq!(d.behavior, Allow, "{tool} {state:?}");
        }
    }
}

// ---- RULE-3: the domain subject is the fetched host ----

/// The host WebFetch would request for this URL: its validated input,
/// parsed again the way the fetch parses it.
fn fetched_host(url: &str) -> Option<String> {
    let input = WebFetchTool::new().validate(fetch(url)).ok()?;
    let url = url::Url::parse(input["url"].as_str()?).ok()?;
    url.host_str()
        .map(|h| h.strip_suffix('.').unwrap_or(h).to_string())
}

fn subject(url: &str) -> Option<String> {
    rule_subject(RuleSubject::Url, &fetch(url))
}

/// Every URL: the subject names the host that is fetched, or there is no
/// subject and nothing is fetched.
fn assert_subject_is_fetched_host(url: &str) {
    let fetched = fetched_host(url).map(|h| format!("domain:{h}"));
    assert_eq!(subject(url), fetched, "{url:?}");
}

const TRICKY: [&str; 24] = [
    "http://evil.net\\@example.com/",
    "http://evil.net\\\\@example.com/",
    "http://example.com@evil.net/",
    "http://example.com:pw@evil.net/",
    "http://evil.net@example.com/",
    "http://example%2ecom/",
    "http://example.com%2eevil.net/",
    "http://example.com./",
    "http://example.com../",
    "HTTP://EXAMPLE.COM/",
    "http://exa\tmple.com/",
    "http://example.com\n.evil.net/",
    "http:evil.net",
    "http:example.com",
    "https:\\\\evil.net\\x",
    "//evil.net/",
    "http://example\u{3002}com/",
    "http://\u{ff45}\u{ff58}ample.com/",
    "http://example.com:8443/",
    "http://evil.example.com/",
    "http://example.com.evil.net/",
    "http://0x7f.1/",
    "http://[0:0::1]:80/",
    "ftp://example.com/",
];

#[test]
fn rule3_webfetch_domain_subject_is_the_fetched_host() {
    for url in TRICKY {
        assert_subject_is_fetched_host(url);
    }
}

#[test]
fn rule3_webfetch_domain_allow_rule_against_spellings() {
    let (_d, svc) = service(PermissionSettings::default());
    let rules = webfetch_rules(&["domain:example.com"], &[], &[]);
    let allowed = [
        "http://evil.net@example.com/",
        "http://example%2ecom/",
        "http://example.com./",
        "HTTP://EXAMPLE.COM/",
        "http://exa\tmple.com/",
        "http:example.com",
        "http://example\u{3002}com/",
        "http://\u{ff45}\u{ff58}ample.com/",
        "http://example.com:8443/",
    ];
    for url in allowed {
        assert_eq!(behavior(&svc, url, BUILD, &rules), Allow, "{url:?}");
    }
    let asked = [
        "http://evil.net\\@example.com/",
        "http://evil.net\\\\@example.com/",
        "http://example.com@evil.net/",
        "http://example.com:pw@evil.net/",
        "http://example.com%2eevil.net/",
        "http://example.com../",
        "http://example.com\n.evil.net/",
        "http:evil.net",
        "//example.com/",
        "http://evil.example.com/",
        "http://example.com.evil.net/",
        "http://evilexample.com/",
        "ftp://example.com/",
        "example.com",
    ];
    for url in asked {
        assert_eq!(behavior(&svc, url, BUILD, &rules), Ask, "{url:?}");
    }
}

#[test]
fn rule3_webfetch_domain_backslash_is_the_host_end() {
    assert_eq!(
        subject("http://evil.net\\@example.com/").as_deref(),
        Some("domain:evil.net")
    );
    assert_eq!(
        fetched_host("http://evil.net\\@example.com/").as_deref(),
        Some("evil.net")
    );
    assert_eq!(subject("http:evil.net").as_deref(), Some("domain:evil.net"));
    assert_eq!(subject("//evil.net/"), None);
}

#[test]
fn rule3_webfetch_domain_deny_rule_sees_every_spelling() {
    let (_d, svc) = service(domains(&["*.net", "evil.net"]));
    let rules = webfetch_rules(&["domain:evil.net"], &[], &["domain:evil.net"]);
    for url in [
        "https://evil.net/",
        "https://EVIL.NET./",
        "https://evil%2enet/",
        "https://evil\u{3002}net/",
        "https://example.com@evil.net/",
        "https://evil.net\\@example.com/",
        "http:evil.net/x",
        "https:\\\\evil.net\\x",
        "https://ev\til.net/",
        "https://evil.net:444/",
    ] {
        let d = decide(&svc, url, BUILD, &rules);
        assert_eq!(d.behavior, Deny, "{url:?}: {d:?}");
    }
}

#[test]
fn rule3_webfetch_domain_ip_forms_are_normalised() {
    let (_d, svc) = service(PermissionSettings::default());
    let deny = webfetch_rules(&[], &[], &["domain:127.0.0.1", "domain:[::1]"]);
    for url in [
        "http://127.0.0.1/",
        "http://0x7f.1/",
        "http://2130706433/",
        "http://0177.0.0.1/",
        "http://127.1/",
        "http://[::1]/",
        "http://[0:0:0:0:0:0:0:1]:8080/",
    ] {
        assert_eq!(behavior(&svc, url, BUILD, &deny), Deny, "{url}");
    }
    assert_eq!(subject("http://[0:0::1]/").as_deref(), Some("domain:[::1]"));
}

#[test]
fn rule3_webfetch_domain_subdomains_follow_rule4() {
    // RULE-4: `domain:example.com` is exact; a wildcard admits subdomains.
    let (_d, svc) = service(PermissionSettings::default());
    let exact = webfetch_rules(&["domain:example.com"], &[], &[]);
    assert_eq!(behavior(&svc, "https://example.com/", BUILD, &exact), Allow);
    assert_eq!(
        behavior(&svc, "https://evil.example.com/", BUILD, &exact),
        Ask
    );
    let wild = webfetch_rules(&["domain:*.example.com"], &[], &[]);
    assert_eq!(
        behavior(&svc, "https://a.b.example.com/", BUILD, &wild),
        Allow
    );
    assert_eq!(behavior(&svc, "https://example.com/", BUILD, &wild), Ask);
    assert_eq!(
        behavior(&svc, "https://evilexample.com/", BUILD, &wild),
        Ask
    );
    assert_eq!(
        behavior(&svc, "https://example.com.evil.net/", BUILD, &wild),
        Ask
    );
    assert_eq!(
        behavior(&svc, "https://evil.net\\.example.com/", BUILD, &wild),
        Ask
    );
}

#[test]
fn rule3_webfetch_domain_preapproved_domains_use_the_same_host() {
    let (_d, svc) = service(domains(&[
        "example.com",
        "*.github.com",
        "Bücher.DE",
        "::1",
    ]));
    let none = RuleSet::default();
    for url in [
        "https://example.com./x",
        "https://EXAMPLE.com/",
        "https://example\u{3002}com/",
        "https://api.github.com/",
        "https://bücher.de/",
        "https://xn--bcher-kva.de/",
        "http://[::1]:3000/",
    ] {
        assert_eq!(behavior(&svc, url, BUILD, &none), Allow, "{url}");
    }
    for url in [
        "http://evil.net\\@example.com/",
        "http://example.com@evil.net/",
        "https://github.com/",
        "https://api.github.com.evil.net/",
        "https://evil.net\\.github.com/",
        "https://example.com.evil.net/",
        "http:evil.net",
    ] {
        assert_eq!(behavior(&svc, url, BUILD, &none), Ask, "{url}");
    }
}

#[test]
fn sug1_webfetch_domain_suggestion_names_the_fetched_host() {
    let (_d, svc) = service(PermissionSettings::default());
    let eval = svc.evaluate(
        &declaration_for("WebFetch"),
        &fetch("http://evil.net\\@example.com/"),
        BUILD,
        &RuleSet::default(),
        None,
    );
    assert_eq!(
        eval.suggestions,
        vec![Rule::with_content("WebFetch", "domain:evil.net")]
    );
}

#[test]
fn rule3_webfetch_domain_validated_input_is_the_fetched_url() {
    // The input hooks and the approval panel see is the parser's form.
    let tool = WebFetchTool::new();
    let cases = [
        (
            "http://evil.net\\@example.com/",
            "http://evil.net/@example.com/",
        ),
        ("http:evil.net", "http://evil.net/"),
        (
            "HTTP://Example\u{3002}COM:80/a b",
            "http://example.com/a%20b",
        ),
        ("http://exa\tmple.com/", "http://example.com/"),
        ("http://0x7f.1/", "http://127.0.0.1/"),
    ];
    for (raw, fetched) in cases {
        let input = tool.validate(fetch(raw)).unwrap();
        assert_eq!(input["url"], fetched, "{raw:?}");
    }
}

// ---- Deny and ask rules written as a user writes them ----

#[test]
fn webfetch_deny_rule_for_an_exact_url_matches_it() {
    let (_d, svc) = service(domains(&["example.com"]));
    let rules = webfetch_rules(&[], &[], &["https://example.com/x"]);
    for url in [
        "https://example.com/x",
        "https://EXAMPLE.com./x",
        "http://example.com/x",
        "https://example.com/x?y=1",
        "https://example.com/x#top",
        "https://example.com/x/",
        "https://example.com/x/deeper",
        "https://example.com/%78",
        "https://example.com/./x",
        "https://example.com/a/../x",
        "https://example.com:8443/x",
    ] {
        let d = decide(&svc, url, BUILD, &rules);
        assert_eq!(d.behavior, Deny, "{url:?}: {d:?}");
    }
    for url in [
        "https://example.com/",
        "https://example.com/xy",
        "https://other.net/x",
    ] {
        assert_ne!(behavior(&svc, url, BUILD, &rules), Deny, "{url:?}");
    }
}

#[test]
fn webfetch_deny_rule_for_a_bare_host_matches_it_and_its_subdomains() {
    let (_d, svc) = service(domains(&["*.example.com", "example.com"]));
    for content in [
        "example.com",
        "domain:example.com",
        "Example.COM.",
        "domain:EXAMPLE.com",
    ] {
        let rules = webfetch_rules(&[], &[], &[content]);
        for url in [
            "https://example.com/",
            "https://api.example.com/v1",
            "https://a.b.example.com/",
            "https://EXAMPLE.com./x",
        ] {
            let d = decide(&svc, url, BUILD, &rules);
            assert_eq!(d.behavior, Deny, "{content} {url:?}: {d:?}");
        }
        for url in ["https://evilexample.com/", "https://example.com.evil.net/"] {
            assert_ne!(
                behavior(&svc, url, BUILD, &rules),
                Deny,
                "{content} {url:?}"
            );
        }
    }
}

#[test]
fn webfetch_ask_rule_for_a_subdomain_or_url_asks_even_where_allowed() {
    let (_d, svc) = service(domains(&["*.example.com"]));
    let rules = webfetch_rules(
        &[],
        &["api.example.com", "https://docs.example.com/private"],
        &[],
    );
    assert_eq!(
        decide(&svc, "https://api.example.com/x", BUILD, &rules).rule_id,
        RuleId::ProjectAsk
    );
    assert_eq!(
        decide(&svc, "https://docs.example.com/private/a", BUILD, &rules).rule_id,
        RuleId::ProjectAsk
    );
    assert_eq!(
        behavior(&svc, "https://docs.example.com/public", BUILD, &rules),
        Allow
    );
}

#[test]
fn webfetch_allow_rules_stay_exact() {
    let (_d, svc) = service(PermissionSettings::default());
    // A bare host allows that host only, a URL that URL only.
    let rules = webfetch_rules(&["docs.rs", "https://example.com/a"], &[], &[]);
    assert_eq!(behavior(&svc, "https://docs.rs/x", BUILD, &rules), Allow);
    assert_eq!(behavior(&svc, "https://evil.docs.rs/x", BUILD, &rules), Ask);
    assert_eq!(
        behavior(&svc, "https://example.com/a", BUILD, &rules),
        Allow
    );
    assert_eq!(
        behavior(&svc, "https://example.com/a#f", BUILD, &rules),
        Allow
    );
    for url in [
        "https://example.com/a/b",
        "https://example.com/a?secret=1",
        "https://example.com/b",
        "http://example.com/a",
    ] {
        assert_eq!(behavior(&svc, url, BUILD, &rules), Ask, "{url:?}");
    }
}

// ---- allowedTools entries with content ----

fn allowed_entries(entries: &[&str]) -> PermissionSettings {
    let mut settings = PermissionSettings::default();
    for e in entries {
        settings.add_allowed_entry(e).unwrap();
    }
    settings
}

#[test]
fn allowed_tools_webfetch_domain_allows_that_host_only_and_never_in_plan() {
    let (_d, svc) = service(allowed_entries(&["WebFetch(domain:docs.rs)"]));
    let none = RuleSet::default();
    let d = decide(&svc, "https://docs.rs/x", BUILD, &none);
    assert_eq!((d.behavior, d.rule_id), (Allow, RuleId::AllowedTools));
    for url in ["https://evil.example/", "https://docs.rs.evil.example/"] {
        assert_eq!(behavior(&svc, url, BUILD, &none), Ask, "{url}");
    }
    for state in PLANS {
        assert_ne!(
            behavior(&svc, "https://docs.rs/x", state, &none),
            Allow,
            "{state:?}"
        );
    }
}

#[test]
fn allowed_tools_whole_webfetch_never_in_plan() {
    let (_d, svc) = service(allowed_entries(&["WebFetch"]));
    let none = RuleSet::default();
    assert_eq!(
        behavior(&svc, "https://anything.example/", BUILD, &none),
        Allow
    );
    for state in PLANS {
        assert_eq!(
            behavior(&svc, "https://anything.example/", state, &none),
            Ask,
            "{state:?}"
        );
    }
}
