//! TOOL-6 WebFetch redirects: every hop is decided by the permission rules
//! (PERM-7..9, PERM-8 in plan) before it is requested. Two sites on
//! 127.0.0.1 and 127.0.0.2, started by each test, stand for two hosts; each
//! records the paths it was asked for, so a refused hop is seen not to
//! have reached its host.

mod support;

use serde_json::json;
use std::sync::Arc;
use support::web_sites::{two_sites, webfetch_rules};
use zcode::approval::url_policy::CallUrlPolicy;
use zcode::permission::mode::{ExecutionState, Mode};
use zcode::permission::rules::RuleSet;
use zcode::permission::service::PermissionService;
use zcode::permission::settings::PermissionSettings;
use zcode::tools::registry::declaration_for;
use zcode::tools::{Tool, ToolContext, ToolOutput, WebFetchTool};

const BUILD: ExecutionState = ExecutionState::new(Mode::Build, false);
const PLAN: ExecutionState = ExecutionState::new(Mode::Build, true);
const YOLO: ExecutionState = ExecutionState::new(Mode::Yolo, false);

/// A tool context whose redirect check is the real permission decision
/// with these settings, rules and state.
fn ctx_with(settings: PermissionSettings, rules: RuleSet, state: ExecutionState) -> ToolContext {
    let dir = std::env::temp_dir();
    let service = PermissionService::new(settings, &dir, None);
    let mut ctx = ToolContext::new(dir, "web-redirect-test");
    ctx.url_permission = Some(Arc::new(CallUrlPolicy::new(
        service,
        rules,
        state,
        declaration_for("WebFetch"),
    )));
    ctx
}

fn build_ctx(rules: RuleSet) -> ToolContext {
    ctx_with(PermissionSettings::default(), rules, BUILD)
}

async fn fetch(ctx: &ToolContext, url: &str) -> ToolOutput {
    let tool = WebFetchTool::new();
    let input = tool.validate(json!({ "url": url })).unwrap();
    tool.run(input, ctx).await
}

#[tokio::test]
async fn tool6_redirect_to_an_allowed_host_is_followed() {
    let (mut a, mut b) = two_sites().await;
    a.serve(&[("/away", format!("{}/plain", b.base))]);
    b.serve(&[]);
    let ctx = build_ctx(webfetch_rules(&["domain:127.0.0.2"], &[], &[]));
    let out = fetch(&ctx, &format!("{}/away", a.base)).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        out.content.starts_with(&format!(
            "URL: {}/plain\n(Redirected from {}/away)\n",
            b.base, a.base
        )),
        "{}",
        out.content
    );
    assert!(
        out.content
            .ends_with(&format!("plain text from {}", b.authority))
    );
    assert_eq!(b.requested(), ["/plain"]);
}

#[tokio::test]
async fn tool6_redirect_to_a_host_not_allowed_is_refused_before_it_is_requested() {
    let (mut a, mut b) = two_sites().await;
    a.serve(&[("/away", format!("{}/plain?k=secret", b.base))]);
    b.serve(&[]);
    // The first host is allowed by a rule; the second by nothing.
    let ctx = build_ctx(webfetch_rules(&["domain:127.0.0.1"], &[], &[]));
    let out = fetch(&ctx, &format!("{}/away", a.base)).await;
    assert!(out.is_error, "{}", out.content);
    assert_eq!(
        out.content,
        format!(
            "{a}/away redirects to {b}/plain?k=secret. The redirect was not followed: fetching \
             from 127.0.0.2 is not allowed without the user's permission (fetches a page \
             from 127.0.0.2). To fetch it, call WebFetch again with the url {b}/plain?k=secret; the \
             user will be asked to allow 127.0.0.2.",
            a = a.base,
            b = b.base
        )
    );
    assert!(b.requested().is_empty(), "{:?}", b.requested());
}

#[tokio::test]
async fn tool6_redirect_to_a_denied_host_is_refused() {
    let (mut a, mut b) = two_sites().await;
    a.serve(&[("/away", format!("{}/plain", b.base))]);
    b.serve(&[]);
    let settings = PermissionSettings {
        web_fetch_allowed_domains: vec!["127.0.0.2".into()],
        ..Default::default()
    };
    let rules = webfetch_rules(&["domain:127.0.0.2"], &[], &["domain:127.0.0.2"]);
    let ctx = ctx_with(settings, rules, BUILD);
    let out = fetch(&ctx, &format!("{}/away", a.base)).await;
    assert!(out.is_error, "{}", out.content);
    assert!(
        out.content.contains(
            "The redirect was not followed: fetching from 127.0.0.2 is denied \
             (Denied by project rule WebFetch(domain:127.0.0.2))."
        ),
        "{}",
        out.content
    );
    assert!(b.requested().is_empty());
}

#[tokio::test]
async fn tool6_redirect_ask_rule_stops_the_hop() {
    let (mut a, mut b) = two_sites().await;
    a.serve(&[("/away", format!("{}/plain", b.base))]);
    b.serve(&[]);
    let rules = webfetch_rules(&["domain:127.0.0.2"], &["domain:127.0.0.2"], &[]);
    let out = fetch(&build_ctx(rules), &format!("{}/away", a.base)).await;
    assert!(out.is_error, "{}", out.content);
    assert!(
        out.content
            .contains("(matches the project rule WebFetch(domain:127.0.0.2), which asks first)"),
        "{}",
        out.content
    );
    assert!(b.requested().is_empty());
}

#[tokio::test]
async fn tool6_redirect_on_the_approved_host_is_followed() {
    // The call was approved (here: asked and allowed once); a hop the
    // rules would ask about stays on the host that approval was for.
    let (mut a, _b) = two_sites().await;
    a.serve(&[("/old", "/plain".to_string())]);
    let out = fetch(&build_ctx(RuleSet::default()), &format!("{}/old", a.base)).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(a.requested(), ["/old", "/plain"]);
}

#[tokio::test]
async fn tool6_redirect_on_the_same_host_still_goes_through_the_rules() {
    let (mut a, _b) = two_sites().await;
    a.serve(&[("/old", "/plain".to_string())]);
    let rules = webfetch_rules(&[], &[], &["domain:127.0.0.1"]);
    let out = fetch(&build_ctx(rules), &format!("{}/old", a.base)).await;
    assert!(out.is_error, "{}", out.content);
    assert!(
        out.content.contains("fetching from 127.0.0.1 is denied"),
        "{}",
        out.content
    );
    assert_eq!(a.requested(), ["/old"]);
}

#[tokio::test]
async fn tool6_redirect_in_plan_mode_needs_a_pre_approved_domain() {
    let (mut a, mut b) = two_sites().await;
    a.serve(&[("/away", format!("{}/plain", b.base))]);
    b.serve(&[]);
    let only_a = PermissionSettings {
        web_fetch_allowed_domains: vec!["127.0.0.1".into()],
        ..Default::default()
    };
    let ctx = ctx_with(only_a, RuleSet::default(), PLAN);
    let out = fetch(&ctx, &format!("{}/away", a.base)).await;
    assert!(out.is_error, "{}", out.content);
    assert!(
        out.content.contains("call WebFetch again with the url"),
        "{}",
        out.content
    );
    assert!(b.requested().is_empty());

    let both = PermissionSettings {
        web_fetch_allowed_domains: vec!["127.0.0.1".into(), "127.0.0.2".into()],
        ..Default::default()
    };
    let ctx = ctx_with(both, RuleSet::default(), PLAN);
    let out = fetch(&ctx, &format!("{}/away", a.base)).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(b.requested(), ["/plain"]);
}

#[tokio::test]
async fn tool6_redirect_in_yolo_is_followed_as_the_first_request_would_be() {
    let (mut a, mut b) = two_sites().await;
    a.serve(&[("/away", format!("{}/plain", b.base))]);
    b.serve(&[]);
    let ctx = ctx_with(PermissionSettings::default(), RuleSet::default(), YOLO);
    let out = fetch(&ctx, &format!("{}/away", a.base)).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(b.requested(), ["/plain"]);
}

#[tokio::test]
async fn tool6_redirect_tricky_locations_are_decided_on_their_parsed_host() {
    let (mut a, mut b) = two_sites().await;
    let bh = b.authority.clone();
    let ah = a.authority.clone();
    let b_port = bh.rsplit(':').next().unwrap().to_string();
    // Each resolves (WHATWG) to site B, however it is written.
    let to_b = [
        format!("//{bh}/plain"),
        format!("\\\\{bh}/plain"),
        format!("/\\{bh}/plain"),
        format!("\\/{bh}/plain"),
        format!("HTTP://{bh}/plain"),
        format!("http://{ah}@{bh}/plain"),
        format!("//127.0.0.\t2:{b_port}/plain"),
        format!("//0x7f.0.0.2:{b_port}/plain"),
        format!("http://127.0.0.2%2e:{b_port}/plain"),
    ];
    let mut redirects: Vec<(&str, String)> = Vec::new();
    let paths: Vec<String> = (0..to_b.len()).map(|i| format!("/b{i}")).collect();
    for (path, location) in paths.iter().zip(&to_b) {
        redirects.push((path.as_str(), location.clone()));
    }
    // And these stay on site A.
    redirects.push(("/a0", format!("http://{bh}@{ah}/plain")));
    redirects.push(("/a1", format!("http://{ah}\\@{bh}/plain")));
    redirects.push(("/dir/a2", "../plain".to_string()));
    redirects.push(("/a3", "plain".to_string()));
    a.serve(&redirects);
    b.serve(&[]);

    let ctx = build_ctx(webfetch_rules(&["domain:127.0.0.1"], &[], &[]));
    for (path, location) in paths.iter().zip(&to_b) {
        let out = fetch(&ctx, &format!("{}{path}", a.base)).await;
        assert!(out.is_error, "{location:?}: {}", out.content);
        assert!(
            out.content
                .contains("/plain. The redirect was not followed: fetching from 127.0.0.2 is"),
            "{location:?}: {}",
            out.content
        );
    }
    assert!(b.requested().is_empty(), "{:?}", b.requested());

    let out = fetch(&ctx, &format!("{}/a0", a.base)).await;
    assert!(
        out.content.ends_with(&format!("plain text from {ah}")),
        "{}",
        out.content
    );
    let out = fetch(&ctx, &format!("{}/a1", a.base)).await;
    assert!(out.content.starts_with("HTTP 404"), "{}", out.content);
    let out = fetch(&ctx, &format!("{}/dir/a2", a.base)).await;
    assert!(!out.is_error, "{}", out.content);
    let out = fetch(&ctx, &format!("{}/a3", a.base)).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(b.requested().is_empty(), "{:?}", b.requested());

    // The same forms are followed once B is allowed.
    let ctx = build_ctx(webfetch_rules(
        &["domain:127.0.0.1", "domain:127.0.0.2"],
        &[],
        &[],
    ));
    for path in &paths {
        let out = fetch(&ctx, &format!("{}{path}", a.base)).await;
        assert!(!out.is_error, "{path}: {}", out.content);
    }
    assert_eq!(b.requested().len(), paths.len());
}

#[tokio::test]
async fn tool6_redirect_to_what_webfetch_cannot_fetch_is_refused() {
    let (mut a, _b) = two_sites().await;
    a.serve(&[
        ("/file", "file:///etc/passwd".to_string()),
        ("/ftp", "ftp://127.0.0.1/x".to_string()),
        ("/empty-host", "http://".to_string()),
    ]);
    let ctx = ctx_with(PermissionSettings::default(), RuleSet::default(), YOLO);
    let out = fetch(&ctx, &format!("{}/file", a.base)).await;
    assert!(
        out.content.contains(
            "redirects (302) to file:///etc/passwd, which WebFetch cannot fetch: \"url\" must be an http:// or https:// URL, not file:"
        ),
        "{}",
        out.content
    );
    let out = fetch(&ctx, &format!("{}/ftp", a.base)).await;
    assert!(
        out.is_error && out.content.contains("not ftp:"),
        "{}",
        out.content
    );
    let out = fetch(&ctx, &format!("{}/empty-host", a.base)).await;
    assert!(
        out.is_error && out.content.contains("to an invalid URL \"http://\""),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn tool6_redirect_loop_between_hosts_is_stopped() {
    let (mut a, mut b) = two_sites().await;
    a.serve(&[("/ping", format!("{}/pong", b.base))]);
    b.serve(&[("/pong", format!("{}/ping", a.base))]);
    let ctx = ctx_with(PermissionSettings::default(), RuleSet::default(), YOLO);
    let out = fetch(&ctx, &format!("{}/ping", a.base)).await;
    assert!(out.is_error);
    assert_eq!(
        out.content,
        format!(
            "Fetching {}/ping failed: the redirects go in a loop (back to {}/ping).",
            a.base, a.base
        )
    );
    assert_eq!(a.requested(), ["/ping"]);
    assert_eq!(b.requested(), ["/pong"]);
}

#[tokio::test]
async fn tool6_redirect_without_a_permission_check_stays_on_the_approved_host() {
    let (mut a, mut b) = two_sites().await;
    a.serve(&[
        ("/away", format!("{}/plain", b.base)),
        ("/old", "/plain".to_string()),
    ]);
    b.serve(&[]);
    let ctx = ToolContext::new(std::env::temp_dir(), "web-redirect-test");
    let out = fetch(&ctx, &format!("{}/away", a.base)).await;
    assert!(out.is_error);
    assert!(
        out.content
            .contains("(no permission rules are available to this call)"),
        "{}",
        out.content
    );
    assert!(b.requested().is_empty());
    let out = fetch(&ctx, &format!("{}/old", a.base)).await;
    assert!(!out.is_error, "{}", out.content);
}
