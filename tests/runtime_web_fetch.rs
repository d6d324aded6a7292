//! WebFetch through the whole call pipeline: plan mode asks (PERM-8), and
//! redirect targets are decided with the session's rules and mode (the
//! pipeline hands WebFetch its permission check).
#![cfg(unix)]

mod support;

use serde_json::json;
use support::runtime_harness::{Dialect, Setup};
use support::web_sites::two_sites;
use zcode::permission::mode::Mode;
use zcode::permission::rules::{Rule, RuleKind};
use zcode::protocol::{PermissionReply, TurnEnd};

fn webfetch_call(url: &str) -> String {
    json!({ "url": url }).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn perm8_webfetch_plan_asks_and_runs_once_allowed() {
    let (mut a, _b) = two_sites().await;
    a.serve(&[]);
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build)
        .plan()
        .start()
        .await;
    let url = format!("{}/plain?q=from-the-plan", a.base);
    h.enqueue_tool_calls(&[("w1", "WebFetch", &webfetch_call(&url))]);
    h.enqueue_text("read it");
    h.input("look this up");
    let request = h.permission_request().await;
    assert_eq!(request.tool, "WebFetch");
    assert_eq!(request.input["url"], url);
    assert_eq!(
        request.suggestions,
        vec![Rule::with_content("WebFetch", "domain:127.0.0.1")]
    );
    // Nothing was fetched before the answer.
    assert!(a.requested().is_empty());
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let result = &h.tool_results(1)[0];
    assert!(
        result
            .content
            .ends_with(&format!("plain text from {}", a.authority)),
        "{}",
        result.content
    );
    assert_eq!(a.requested(), ["/plain?q=from-the-plan"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn tool6_redirect_pipeline_refuses_a_host_the_rules_do_not_allow() {
    let (mut a, mut b) = two_sites().await;
    a.serve(&[
        ("/away", format!("{}/plain", b.base)),
        ("/old", "/plain".to_string()),
    ]);
    b.serve(&[]);
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build)
        .rule(
            RuleKind::Allow,
            Rule::with_content("WebFetch", "domain:127.0.0.1"),
        )
        .start()
        .await;
    h.enqueue_tool_calls(&[
        (
            "w1",
            "WebFetch",
            &webfetch_call(&format!("{}/away", a.base)),
        ),
        ("w2", "WebFetch", &webfetch_call(&format!("{}/old", a.base))),
    ]);
    h.enqueue_text("done");
    h.input("fetch");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let results = h.tool_results(1);
    assert!(
        results[0].content.contains(&format!(
            "The redirect was not followed: fetching from 127.0.0.2 is not allowed without the \
             user's permission (fetches a page from 127.0.0.2). To fetch it, call WebFetch again with \
             the url {}/plain",
            b.base
        )),
        "{}",
        results[0].content
    );
    assert!(b.requested().is_empty(), "{:?}", b.requested());
    assert!(
        results[1]
            .content
            .ends_with(&format!("plain text from {}", a.authority)),
        "{}",
        results[1].content
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn tool6_redirect_pipeline_follows_a_host_a_rule_allows() {
    let (mut a, mut b) = two_sites().await;
    a.serve(&[("/away", format!("{}/plain", b.base))]);
    b.serve(&[]);
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build)
        .plan()
        .rule(
            RuleKind::Allow,
            Rule::with_content("WebFetch", "domain:127.0.0.*"),
        )
        .start()
        .await;
    h.enqueue_tool_calls(&[(
        "w1",
        "WebFetch",
        &webfetch_call(&format!("{}/away", a.base)),
    )]);
    h.enqueue_text("done");
    h.input("fetch");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let result = &h.tool_results(1)[0];
    assert!(
        result
            .content
            .ends_with(&format!("plain text from {}", b.authority)),
        "{}",
        result.content
    );
}
