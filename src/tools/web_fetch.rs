//! TOOL-6 WebFetch: an HTTP(S) GET whose text comes back to the model, HTML
//! converted to Markdown. No model is called here: the `prompt` is echoed
//! above the content, for the model to answer from it.
//!
//! The URL is parsed once (`permission::web_url`, the parser the rules use)
//! and that `Url` is what is requested. Redirects are followed here, not by
//! the HTTP client, so that every target is decided by the permission rules
//! before it is requested.

use super::input::{self, Fields};
use super::web_redirect::{check_redirect, redirect_target};
use super::{Tool, ToolContext, ToolOutput};
use crate::permission::capability::{Capability, RiskLevel, SideEffectScope};
use crate::permission::declaration::{AskReason, PlanRole, RuleSubject, ToolDeclaration};
use crate::permission::web_url;
use futures_util::future::BoxFuture;
use reqwest::Url;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

pub const NAME: &str = "WebFetch";

/// The limits of one fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebFetchLimits {
    /// The whole request, body included.
    pub timeout: Duration,
    /// Body bytes read at most; the rest is not downloaded.
    pub max_body: usize,
    /// Characters of content returned at most.
    pub max_output: usize,
    pub max_redirects: usize,
}

impl Default for WebFetchLimits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(30),
            max_body: 5 * 1024 * 1024,
            max_output: 100_000,
            max_redirects: 5,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WebFetchInput {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

impl WebFetchInput {
    pub fn parse(input: Value) -> Result<Self, String> {
        let mut parsed: Self = Fields::new(NAME, input)?.parse()?;
        input::non_empty(NAME, "url", &parsed.url)?;
        parsed.url = parsed.url.trim().to_string();
        if parsed
            .prompt
            .as_deref()
            .is_some_and(|p| p.trim().is_empty())
        {
            parsed.prompt = None;
        }
        // The parser's serialisation: what hooks, the approval panel and
        // the rules see is the URL that is fetched.
        parsed.url = parsed.parsed_url()?.into();
        Ok(parsed)
    }

    fn parsed_url(&self) -> Result<Url, String> {
        web_url::parse_fetch_url(&self.url).map_err(|e| input::invalid(NAME, e))
    }
}

/// The WebFetch tool. Its HTTP client is built on first use.
#[derive(Debug, Default)]
pub struct WebFetchTool {
    limits: WebFetchLimits,
    client: OnceLock<Result<reqwest::Client, String>>,
}

impl WebFetchTool {
    pub fn new() -> Self {
        Self::default()
    }

    /// A WebFetch with other limits (tests use small ones).
    pub fn with_limits(limits: WebFetchLimits) -> Self {
        Self {
            limits,
            client: OnceLock::new(),
        }
    }

    pub fn limits(&self) -> WebFetchLimits {
        self.limits
    }

    fn client(&self) -> Result<&reqwest::Client, String> {
        self.client
            .get_or_init(|| {
                reqwest::Client::builder()
                    .timeout(self.limits.timeout)
                    .connect_timeout(self.limits.timeout.min(Duration::from_secs(10)))
                    // Followed by `send_following`, each target checked.
                    .redirect(reqwest::redirect::Policy::none())
                    .user_agent(concat!("zcode/", env!("CARGO_PKG_VERSION"), " (WebFetch)"))
                    .build()
                    .map_err(|e| format!("Cannot set up the HTTP client: {}", error_chain(&e)))
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// What WebFetch is to the permission engine, the approval and the TUI.
pub(crate) static DECLARATION: ToolDeclaration = ToolDeclaration::builtin(
    NAME,
    Capability {
        side_effect_scope: SideEffectScope::Network,
        risk_level: RiskLevel::Medium,
        needs_approval: true,
        ..Capability::read_only_low("webfetch")
    },
)
.with_subject(RuleSubject::Url)
.with_wording(
    "fetch a URL",
    AskReason::Fetch {
        from: "fetches a page from",
        anywhere: "fetches a page from the internet",
    },
)
// PERM-8: plan mode neither allows nor denies a fetch.
.with_plan(PlanRole::BuildRules);

impl Tool for WebFetchTool {
    fn description(&self) -> &'static str {
        include_str!("../../assets/tools/web_fetch.md")
    }

    fn compact_description(&self) -> std::borrow::Cow<'static, str> {
        include_str!("../../assets/tools/compact/web_fetch.md").into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "url": {
                    "type": "string",
                    "description": "The http:// or https:// URL to fetch"
                },
                "prompt": {
                    "type": "string",
                    "description": "What you want to learn from the page; it is repeated above the fetched content"
                }
            },
            "required": ["url"],
            "additionalProperties": false
        })
    }

    fn declaration(&self) -> &ToolDeclaration {
        &DECLARATION
    }

    fn validate(&self, input: Value) -> Result<Value, String> {
        input::normalized(NAME, &WebFetchInput::parse(input)?)
    }

    fn run<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input = match WebFetchInput::parse(input) {
                Ok(input) => input,
                Err(e) => return ToolOutput::error(e),
            };
            tokio::select! {
                out = self.fetch(&input, ctx) => out,
                _ = ctx.cancel.cancelled() => ToolOutput::error(format!("Fetching {} was interrupted.", input.url)),
            }
        })
    }
}

/// What kind of body a response has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyKind {
    Html,
    Text,
    Binary,
}

/// The kind of a MIME type (lowercase, without parameters); `None` when
/// the type says nothing useful and the body decides.
fn kind_of(mime: &str) -> Option<BodyKind> {
    let text_like_apps = [
        "application/json",
        "application/xml",
        "application/javascript",
        "application/x-javascript",
        "application/ecmascript",
        "application/x-yaml",
        "application/yaml",
        "application/toml",
        "application/x-sh",
        "application/sql",
        "application/graphql",
        "application/x-ndjson",
        "application/rss+xml",
        "application/atom+xml",
    ];
    match mime {
        "" | "application/unknown" => None,
        "text/html" | "application/xhtml+xml" => Some(BodyKind::Html),
        m if m.starts_with("text/")
            || text_like_apps.contains(&m)
            || m.ends_with("+json")
            || m.ends_with("+xml") =>
        {
            Some(BodyKind::Text)
        }
        _ => Some(BodyKind::Binary),
    }
}

fn sniff(body: &[u8]) -> BodyKind {
    let head = &body[..body.len().min(1024)];
    if head.contains(&0) {
        return BodyKind::Binary;
    }
    let start = String::from_utf8_lossy(head)
        .trim_start()
        .to_ascii_lowercase();
    if start.starts_with("<!doctype html") || start.starts_with("<html") {
        BodyKind::Html
    } else {
        BodyKind::Text
    }
}

/// An error with its causes, on one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Cuts `text` to `max` characters, at a character boundary.
fn cap_chars(text: &str, max: usize) -> (&str, bool) {
    match text.char_indices().nth(max) {
        Some((cut, _)) => (&text[..cut], true),
        None => (text, false),
    }
}

impl WebFetchTool {
    async fn fetch(&self, input: &WebFetchInput, ctx: &ToolContext) -> ToolOutput {
        let url = match input.parsed_url() {
            Ok(url) => url,
            Err(e) => return ToolOutput::error(e),
        };
        let client = match self.client() {
            Ok(client) => client,
            Err(e) => return ToolOutput::error(e),
        };
        let mut response = match self.send_following(client, &url, ctx).await {
            Ok(response) => response,
            Err(e) => return ToolOutput::error(e),
        };
        let status = response.status();
        let final_url = response.url().clone();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let mime = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let charset = content_type.split(';').skip(1).find_map(|param| {
            let (key, value) = param.split_once('=')?;
            (key.trim().eq_ignore_ascii_case("charset"))
                .then(|| value.trim().trim_matches('"').to_string())
        });
        let declared = kind_of(&mime);

        if status.is_success() && declared == Some(BodyKind::Binary) {
            let size = response
                .content_length()
                .map(|n| format!(", {n} bytes"))
                .unwrap_or_default();
            return ToolOutput::error(format!(
                "{final_url} is {mime}{size}, not text. WebFetch returns text, HTML and JSON only."
            ));
        }

        // The body, up to the limit.
        let mut body = Vec::new();
        let mut truncated = false;
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    let room = self.limits.max_body - body.len();
                    if chunk.len() > room {
                        body.extend_from_slice(&chunk[..room]);
                        truncated = true;
                        break;
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) => return ToolOutput::error(self.describe_error(&final_url, &e)),
            }
        }
        let kind = declared.unwrap_or_else(|| sniff(&body));

        let decoded = match (kind, status.is_success()) {
            (BodyKind::Binary, true) => {
                return ToolOutput::error(format!(
                    "{final_url} is binary data ({} bytes), not text. WebFetch returns text, HTML and JSON only.",
                    body.len()
                ));
            }
            (BodyKind::Binary, false) => String::new(),
            _ => decode(&body, charset.as_deref()),
        };
        let content = if kind == BodyKind::Html {
            html_to_markdown(&decoded)
        } else {
            decoded
        };

        if !status.is_success() {
            let reason = status.canonical_reason().unwrap_or("");
            let mut text = format!("HTTP {} {reason} from {final_url}", status.as_u16());
            let excerpt = content.trim();
            if !excerpt.is_empty() {
                let (excerpt, cut) = cap_chars(excerpt, 2000);
                text.push_str("\n\nResponse body:\n");
                text.push_str(excerpt);
                if cut {
                    text.push_str("\n[…]");
                }
            }
            return ToolOutput::error(text);
        }

        let mut out = format!("URL: {final_url}\n");
        if final_url != url {
            out.push_str(&format!("(Redirected from {url})\n"));
        }
        let shown_type = if mime.is_empty() { "unknown" } else { &mime };
        out.push_str(&format!("Content-Type: {shown_type}\n"));
        if let Some(prompt) = &input.prompt {
            out.push_str(&format!(
                "Prompt: {prompt}\n(Answer the prompt from the content below.)\n"
            ));
        }
        if truncated {
            out.push_str(&format!(
                "(The response was larger than {} bytes; only the first {} bytes were read.)\n",
                self.limits.max_body, self.limits.max_body
            ));
        }
        out.push('\n');
        let (shown, cut) = cap_chars(&content, self.limits.max_output);
        if shown.trim().is_empty() {
            out.push_str("(The page has no text content.)\n");
        } else {
            out.push_str(shown);
        }
        if cut {
            out.push_str(&format!(
                "\n\n(Content truncated: showing the first {} of {} characters.)",
                self.limits.max_output,
                content.chars().count()
            ));
        }
        ToolOutput::ok(out)
    }

    /// GETs `first`, then each redirect target that `check_redirect`
    /// admits, within the hop limit and one overall timeout.
    async fn send_following(
        &self,
        client: &reqwest::Client,
        first: &Url,
        ctx: &ToolContext,
    ) -> Result<reqwest::Response, String> {
        let deadline = Instant::now() + self.limits.timeout;
        let mut visited = vec![first.clone()];
        let mut current = first.clone();
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(self.timed_out(&current));
            }
            let request = client
                .get(current.clone())
                .timeout(remaining)
                .header(
                    reqwest::header::ACCEPT,
                    "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.5",
                );
            let response = request
                .send()
                .await
                .map_err(|e| self.describe_error(&current, &e))?;
            let next = match redirect_target(&current, &response) {
                None => return Ok(response),
                Some(target) => target?,
            };
            if visited.contains(&next) {
                return Err(format!(
                    "Fetching {first} failed: the redirects go in a loop (back to {next})."
                ));
            }
            if visited.len() > self.limits.max_redirects {
                return Err(format!(
                    "Fetching {first} failed: more than {} redirects.",
                    self.limits.max_redirects
                ));
            }
            check_redirect(first, &current, &next, ctx)?;
            visited.push(next.clone());
            current = next;
        }
    }

    fn timed_out(&self, url: &Url) -> String {
        format!(
            "Fetching {url} timed out after {} s.",
            self.limits.timeout.as_secs_f64()
        )
    }

    fn describe_error(&self, url: &Url, e: &reqwest::Error) -> String {
        if e.is_timeout() {
            self.timed_out(url)
        } else if e.is_connect() {
            format!("Cannot connect to {url}: {}", error_chain(e))
        } else {
            format!("Fetching {url} failed: {}", error_chain(e))
        }
    }
}

/// Bytes to text in the declared charset (UTF-8 by default; a BOM wins).
fn decode(body: &[u8], charset: Option<&str>) -> String {
    let encoding = charset
        .and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes()))
        .unwrap_or(encoding_rs::UTF_8);
    let (text, _, _) = encoding.decode(body);
    text.into_owned()
}

fn html_to_markdown(html: &str) -> String {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec![
            "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed",
        ])
        .build();
    converter.convert(html).unwrap_or_else(|_| html.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_kinds() {
        assert_eq!(kind_of("text/html"), Some(BodyKind::Html));
        assert_eq!(kind_of("text/plain"), Some(BodyKind::Text));
        assert_eq!(kind_of("application/json"), Some(BodyKind::Text));
        assert_eq!(kind_of("application/vnd.api+json"), Some(BodyKind::Text));
        assert_eq!(kind_of("image/png"), Some(BodyKind::Binary));
        assert_eq!(kind_of("application/pdf"), Some(BodyKind::Binary));
        assert_eq!(kind_of(""), None);
        assert_eq!(sniff(b"  <!DOCTYPE html><p>x"), BodyKind::Html);
        assert_eq!(sniff(b"plain"), BodyKind::Text);
        assert_eq!(sniff(b"\x89PNG\0\0"), BodyKind::Binary);
    }

    #[test]
    fn decodes_latin1() {
        assert_eq!(decode(b"caf\xe9", Some("iso-8859-1")), "café");
        assert_eq!(decode("café".as_bytes(), None), "café");
    }
}
