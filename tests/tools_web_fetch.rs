//! TOOL-6 WebFetch against a tiny HTTP server on 127.0.0.1 started by each
//! test: HTML to Markdown, text and JSON as they are, binary refused, HTTP
//! errors, redirects, size and output caps, timeouts.

mod support;

use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use support::web_sites::read_request_path;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::Notify;
use zcode::tools::web_fetch::WebFetchLimits;
use zcode::tools::{Tool, ToolContext, ToolOutput, WebFetchTool};

/// One canned response: status line, headers, body.
fn route(path: &str) -> (u16, Vec<(&'static str, String)>, Vec<u8>) {
    let html = |body: &str| {
        (
            200,
            vec![("Content-Type", "text/html; charset=utf-8".to_string())],
            body.as_bytes().to_vec(),
        )
    };
    match path {
        "/page.html" => html(
            "<!doctype html><html><head><title>T</title><style>p{color:red}</style></head>\
             <body><h1>Welcome</h1><p>Some <b>bold</b> text and a <a href=\"/docs\">link</a>.</p>\
             <script>window.evil = 1;</script><ul><li>one</li><li>two</li></ul></body></html>",
        ),
        "/data.json" => (
            200,
            vec![("Content-Type", "application/json".to_string())],
            br#"{"name": "zcode", "tags": ["a", "<b>"]}"#.to_vec(),
        ),
        "/plain" => (
            200,
            vec![("Content-Type", "text/plain".to_string())],
            b"just text <b>not html</b>\n".to_vec(),
        ),
        "/image.png" => (
            200,
            vec![("Content-Type", "image/png".to_string())],
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec(),
        ),
        "/octets" => (200, vec![], b"\x00\x01\x02binary".to_vec()),
        "/sniffed" => (
            200,
            vec![],
            b"<!DOCTYPE html><p>sniffed <em>page</em></p>".to_vec(),
        ),
        "/latin1" => (
            200,
            vec![("Content-Type", "text/plain; charset=ISO-8859-1".to_string())],
            b"caf\xe9".to_vec(),
        ),
        "/big" => (
            200,
            vec![("Content-Type", "text/plain".to_string())],
            "0123456789".repeat(500).into_bytes(),
        ),
        "/redirect" => (302, vec![("Location", "/plain".to_string())], Vec::new()),
        "/loop" => (302, vec![("Location", "/loop".to_string())], Vec::new()),
        // Six hops from /chain/0 to /chain/6, which is a page.
        chain if chain.starts_with("/chain/") => match chain[7..].parse::<u32>() {
            Ok(n) if n < 6 => (
                302,
                vec![("Location", format!("/chain/{}", n + 1))],
                Vec::new(),
            ),
            _ => (
                200,
                vec![("Content-Type", "text/plain".to_string())],
                b"end of the chain".to_vec(),
            ),
        },
        "/error" => (
            500,
            vec![("Content-Type", "text/html".to_string())],
            b"<h1>Internal trouble</h1>".to_vec(),
        ),
        _ => (
            404,
            vec![("Content-Type", "text/plain".to_string())],
            b"no such page".to_vec(),
        ),
    }
}

/// Serves `route` on 127.0.0.1 until the test ends; returns the base URL.
async fn server() -> String {
    server_telling(Arc::new(Notify::new())).await
}

/// [`server`], notifying `slow_asked` when `/slow` is asked for. `/slow`
/// never answers.
async fn server_telling(slow_asked: Arc<Notify>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let slow_asked = slow_asked.clone();
            tokio::spawn(async move {
                let Some(path) = read_request_path(&mut stream).await else {
                    return;
                };
                if path == "/slow" {
                    slow_asked.notify_one();
                    std::future::pending::<()>().await;
                }
                let (status, headers, body) = route(&path);
                let mut head = format!(
                    "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
                    body.len()
                );
                for (k, v) in headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(&body).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    format!("http://{addr}")
}

fn ctx() -> ToolContext {
    ToolContext::new(std::env::temp_dir(), "web-test")
}

async fn fetch(tool: &WebFetchTool, input: Value) -> ToolOutput {
    let input = tool.validate(input).unwrap();
    tool.run(input, &ctx()).await
}

#[tokio::test]
async fn tool6_html_becomes_markdown() {
    let base = server().await;
    let tool = WebFetchTool::new();
    let out = fetch(&tool, json!({"url": format!("{base}/page.html")})).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        out.content.starts_with(&format!(
            "URL: {base}/page.html\nContent-Type: text/html\n\n"
        )),
        "{}",
        out.content
    );
    assert!(out.content.contains("# Welcome"), "{}", out.content);
    assert!(
        out.content
            .contains("Some **bold** text and a [link](/docs)."),
        "{}",
        out.content
    );
    assert!(
        out.content.contains("*   one") || out.content.contains("- one"),
        "{}",
        out.content
    );
    assert!(!out.content.contains("evil"), "{}", out.content);
    assert!(!out.content.contains("color:red"), "{}", out.content);
    assert!(!out.content.contains("<p>"), "{}", out.content);
}

#[tokio::test]
async fn tool6_json_and_text_pass_through() {
    let base = server().await;
    let tool = WebFetchTool::new();
    let out = fetch(&tool, json!({"url": format!("{base}/data.json")})).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("Content-Type: application/json\n"));
    assert!(
        out.content
            .ends_with(r#"{"name": "zcode", "tags": ["a", "<b>"]}"#),
        "{}",
        out.content
    );

    let out = fetch(&tool, json!({"url": format!("{base}/plain")})).await;
    assert!(
        out.content.ends_with("just text <b>not html</b>\n"),
        "{}",
        out.content
    );

    let out = fetch(&tool, json!({"url": format!("{base}/latin1")})).await;
    assert!(out.content.ends_with("café"), "{}", out.content);

    let out = fetch(&tool, json!({"url": format!("{base}/sniffed")})).await;
    assert!(
        out.content.contains("Content-Type: unknown\n"),
        "{}",
        out.content
    );
    assert!(
        out.content.ends_with("sniffed _page_") || out.content.ends_with("sniffed *page*"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn tool6_prompt_is_echoed_above_the_content() {
    let base = server().await;
    let tool = WebFetchTool::new();
    let out = fetch(
        &tool,
        json!({"url": format!("{base}/plain"), "prompt": "What does it say?"}),
    )
    .await;
    assert!(
        out.content.contains("Prompt: What does it say?\n"),
        "{}",
        out.content
    );
    let prompt_at = out.content.find("Prompt:").unwrap();
    let body_at = out.content.find("just text").unwrap();
    assert!(prompt_at < body_at);
}

#[tokio::test]
async fn tool6_binary_content_is_refused() {
    let base = server().await;
    let tool = WebFetchTool::new();
    let out = fetch(&tool, json!({"url": format!("{base}/image.png")})).await;
    assert!(out.is_error);
    assert!(out.content.contains("is image/png"), "{}", out.content);
    assert!(
        out.content.contains("text, HTML and JSON only"),
        "{}",
        out.content
    );

    let out = fetch(&tool, json!({"url": format!("{base}/octets")})).await;
    assert!(out.is_error);
    assert!(out.content.contains("binary data"), "{}", out.content);
}

#[tokio::test]
async fn tool6_http_errors_are_reported() {
    let base = server().await;
    let tool = WebFetchTool::new();
    let out = fetch(&tool, json!({"url": format!("{base}/nothing-here")})).await;
    assert!(out.is_error);
    assert_eq!(
        out.content,
        format!("HTTP 404 Not Found from {base}/nothing-here\n\nResponse body:\nno such page")
    );
    let out = fetch(&tool, json!({"url": format!("{base}/error")})).await;
    assert!(out.is_error);
    assert!(
        out.content.starts_with("HTTP 500 Internal Server Error"),
        "{}",
        out.content
    );
    assert!(
        out.content.contains("# Internal trouble"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn tool6_follows_redirects_up_to_the_limit() {
    let base = server().await;
    let tool = WebFetchTool::new();
    let out = fetch(&tool, json!({"url": format!("{base}/redirect")})).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        out.content.starts_with(&format!(
            "URL: {base}/plain\n(Redirected from {base}/redirect)\n"
        )),
        "{}",
        out.content
    );

    let out = fetch(&tool, json!({"url": format!("{base}/loop")})).await;
    assert!(out.is_error);
    assert!(
        out.content.contains("the redirects go in a loop"),
        "{}",
        out.content
    );

    let out = fetch(&tool, json!({"url": format!("{base}/chain/0")})).await;
    assert!(out.is_error);
    assert!(
        out.content.contains("more than 5 redirects"),
        "{}",
        out.content
    );
    let out = fetch(&tool, json!({"url": format!("{base}/chain/2")})).await;
    assert!(!out.is_error, "{}", out.content);
}

#[tokio::test]
async fn tool6_body_size_cap_stops_reading() {
    let base = server().await;
    let tool = WebFetchTool::with_limits(WebFetchLimits {
        max_body: 1000,
        ..WebFetchLimits::default()
    });
    let out = fetch(&tool, json!({"url": format!("{base}/big")})).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        out.content.contains(
            "(The response was larger than 1000 bytes; only the first 1000 bytes were read.)"
        ),
        "{}",
        out.content
    );
    let body = out.content.rsplit("\n\n").next().unwrap();
    assert_eq!(body.len(), 1000);
}

#[tokio::test]
async fn tool6_output_cap_with_a_note() {
    let base = server().await;
    let tool = WebFetchTool::with_limits(WebFetchLimits {
        max_output: 100,
        ..WebFetchLimits::default()
    });
    let out = fetch(&tool, json!({"url": format!("{base}/big")})).await;
    assert!(
        out.content
            .ends_with("(Content truncated: showing the first 100 of 5000 characters.)"),
        "{}",
        out.content
    );
    assert!(out.content.len() < 400);
}

#[tokio::test]
async fn tool6_timeout_is_reported() {
    let base = server().await;
    let tool = WebFetchTool::with_limits(WebFetchLimits {
        timeout: Duration::from_millis(300),
        ..WebFetchLimits::default()
    });
    let out = fetch(&tool, json!({"url": format!("{base}/slow")})).await;
    assert!(out.is_error);
    assert!(
        out.content.contains("timed out after 0.3 s"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn tool6_cancellation_stops_the_fetch() {
    let slow_asked = Arc::new(Notify::new());
    let base = server_telling(slow_asked.clone()).await;
    let tool = WebFetchTool::new();
    let ctx = ctx();
    let cancel = ctx.cancel.clone();
    // Cancelled while the server holds the request.
    tokio::spawn(async move {
        slow_asked.notified().await;
        cancel.cancel();
    });
    let input = tool
        .validate(json!({"url": format!("{base}/slow")}))
        .unwrap();
    let out = tool.run(input, &ctx).await;
    assert!(out.is_error);
    assert!(out.content.contains("was interrupted"), "{}", out.content);
}

#[tokio::test]
async fn tool6_connection_refused_is_reported() {
    // Bind then drop, so nothing listens on the port.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let tool = WebFetchTool::new();
    let out = fetch(&tool, json!({"url": format!("http://127.0.0.1:{port}/")})).await;
    assert!(out.is_error);
    assert!(
        out.content.starts_with("Cannot connect to"),
        "{}",
        out.content
    );
}

#[test]
fn tool6_only_http_urls_are_accepted() {
    let tool = WebFetchTool::new();
    for url in [
        "file:///etc/passwd",
        "ftp://example.com/",
        "javascript:alert(1)",
        "data:text/plain,hi",
    ] {
        let err = tool.validate(json!({"url": url})).unwrap_err();
        assert!(
            err.contains("must be an http:// or https:// URL"),
            "{url}: {err}"
        );
    }
    assert!(
        tool.validate(json!({"url": "https://example.com/x?y=1"}))
            .is_ok()
    );
    assert!(tool.validate(json!({"url": "not a url"})).is_err());
}

#[test]
fn tool6_default_limits() {
    let limits = WebFetchLimits::default();
    assert_eq!(limits.timeout, Duration::from_secs(30));
    assert_eq!(limits.max_body, 5 * 1024 * 1024);
    assert_eq!(limits.max_output, 100_000);
    assert_eq!(limits.max_redirects, 5);
    assert_eq!(WebFetchTool::new().limits(), limits);
}
