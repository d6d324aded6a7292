//! What both HTTP dialects share: the lazily built client, timeouts,
//! retries with backoff, and the mapping of HTTP failures to
//! [`ProviderError`]s.
//!
//! One request goes like this: POST the JSON body; on 408/429/5xx or a
//! connection failure, wait and try again (exponential backoff, or the
//! server's `Retry-After` up to a cap); on 2xx, check from the first bytes
//! that the body is an event stream (an HTML page or other text is one
//! clear error, not retried), then read it until the first output event
//! (anything but usage). A stream that breaks off before that is retried
//! too; once output has been handed out, errors end the stream and nothing
//! is retried. The whole request, retries included, is bounded by the
//! model's request timeout, and every attempt by its content-idle limit
//! and output limit (see [`super::guard`]). Dropping the future or the
//! stream drops the connection, which aborts the request.

use std::time::Duration;

use futures_util::stream::{self, Stream, StreamExt};
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, RETRY_AFTER};
use serde_json::Value;
use tokio::sync::OnceCell;

use super::guard::{self, Clock};
use super::limits::{self, StreamLimits};
use super::sse::{self, ByteError, Sniff, SseDialect};
use super::{ProviderError, ReplyStream, RetryNotice, RetryObserver, StreamEvent};
use crate::config::Provider;

/// Timeouts and retry policy of one provider instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpSettings {
    /// Time allowed to open the TCP/TLS connection.
    pub connect_timeout: Duration,
    /// Longest silence allowed while waiting for the response head or for
    /// the next bytes of the stream.
    pub idle_timeout: Duration,
    /// Attempts per request, the first included (at least 1).
    pub max_attempts: u32,
    /// Wait before the second attempt; doubled for each further one.
    pub backoff_base: Duration,
    /// Upper bound of a backoff wait.
    pub backoff_max: Duration,
    /// Upper bound of a wait asked for by `Retry-After`.
    pub retry_after_cap: Duration,
    /// The model's output limit, content-idle limit and request timeout.
    pub limits: StreamLimits,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(300),
            max_attempts: 4,
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(8),
            retry_after_cap: Duration::from_secs(30),
            limits: StreamLimits::default(),
        }
    }
}

impl HttpSettings {
    /// The backoff before attempt `attempt + 1` (`attempt` ≥ 1).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1));
        self.backoff_base
            .saturating_mul(factor)
            .min(self.backoff_max)
    }
}

/// Longest server error message kept, in characters.
const MAX_ERROR_CHARS: usize = 300;
/// Most bytes of an error body read.
const MAX_ERROR_BODY: usize = 64 * 1024;
/// Bytes of a body looked at to tell whether it is an event stream; one
/// that is still undecided after these (blank lines only) is taken as one.
const SNIFF_BYTES: usize = 256;
/// Bytes of a body that is not an event stream read for the error.
const PREVIEW_BYTES: usize = 1024;
/// Characters of such a body shown in the error.
const PREVIEW_CHARS: usize = 200;

/// One URL of one provider, with its client and headers.
pub(crate) struct Endpoint {
    pub label: String,
    pub url: String,
    /// What a 401/403 tells the user to check.
    pub key_hint: String,
    pub headers: Vec<(&'static str, String)>,
    pub settings: HttpSettings,
    client: OnceCell<reqwest::Client>,
}

/// How one attempt failed.
enum Failure {
    Retry {
        error: ProviderError,
        after: Option<Duration>,
    },
    Fatal(ProviderError),
}

impl Endpoint {
    pub fn new(
        provider: &Provider,
        url: String,
        api_key_present: bool,
        headers: Vec<(&'static str, String)>,
        settings: HttpSettings,
    ) -> Self {
        let key_hint = match &provider.api_key_env {
            Some(var) if api_key_present => format!("the API key in {var}"),
            Some(var) => format!("the API key: {var} is not set"),
            None => format!(
                "the API key of provider '{}' (apiKeyEnv in config.json)",
                provider.id
            ),
        };
        Endpoint {
            label: provider.id.clone(),
            url,
            key_hint,
            headers,
            settings,
            client: OnceCell::new(),
        }
    }

    /// The client, built at the first request (loading TLS roots is not
    /// free, and a session may never call the model).
    async fn client(&self) -> Result<&reqwest::Client, ProviderError> {
        let connect_timeout = self.settings.connect_timeout;
        let label = self.label.clone();
        self.client
            .get_or_try_init(|| async move {
                reqwest::Client::builder()
                    .connect_timeout(connect_timeout)
                    .build()
                    .map_err(|e| {
                        ProviderError::Config(format!(
                            "{label}: cannot set up the HTTP client: {}",
                            describe(&e)
                        ))
                    })
            })
            .await
    }

    /// Sends `body` and returns the decoded event stream, retrying as the
    /// module comment says. `parser` makes a fresh dialect parser;
    /// `output_limit` is the limit in tokens the body asks for.
    pub async fn open<P, F>(
        &self,
        body: &Value,
        output_limit: u32,
        parser: F,
        on_retry: &RetryObserver,
    ) -> Result<ReplyStream, ProviderError>
    where
        P: SseDialect,
        F: Fn() -> P,
    {
        let limits = self.settings.limits;
        let mut clock = Clock::start(limits.content_idle, limits.request_timeout);
        let client = self.client().await?;
        let max = self.settings.max_attempts.max(1);
        let mut attempt = 1;
        loop {
            match self
                .attempt(client, body, parser(), &mut clock, output_limit)
                .await
            {
                Ok(stream) => return Ok(stream),
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Retry { error, after }) => {
                    let wait = match after {
                        Some(d) => d.min(self.settings.retry_after_cap),
                        None => self.settings.backoff(attempt),
                    };
                    // No attempt that could not finish in time.
                    let out_of_time = tokio::time::Instant::now() + wait >= clock.deadline();
                    if attempt >= max || out_of_time {
                        return Err(gave_up(error, attempt));
                    }
                    on_retry(RetryNotice {
                        attempt: attempt + 1,
                        max_attempts: max,
                        delay: wait,
                        reason: error.retry_reason(),
                    });
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
            }
        }
    }

    async fn attempt<P: SseDialect>(
        &self,
        client: &reqwest::Client,
        body: &Value,
        parser: P,
        clock: &mut Clock,
        output_limit: u32,
    ) -> Result<ReplyStream, Failure> {
        clock.restart_attempt();
        let idle = self.settings.idle_timeout;
        let mut request = client
            .post(&self.url)
            .header(ACCEPT, "text/event-stream")
            .json(body);
        for (name, value) in &self.headers {
            request = request.header(*name, value.as_str());
        }
        let sent = tokio::select! {
            sent = tokio::time::timeout(idle, request.send()) => sent,
            _ = tokio::time::sleep_until(clock.expires_at()) => {
                return Err(Failure::Fatal(clock.expired(&self.label)));
            }
        };
        let response = match sent {
            Err(_) => return Err(Failure::Fatal(self.idle_error())),
            Ok(Err(e)) => return Err(self.send_error(&e)),
            Ok(Ok(r)) => r,
        };
        let status = response.status();
        // Error bodies are read within the request's deadline too.
        let timed_out = || Failure::Fatal(clock.request_timed_out(&self.label));
        if !status.is_success() {
            return Err(tokio::select! {
                failure = self.status_error(response) => failure,
                _ = tokio::time::sleep_until(clock.deadline()) => timed_out(),
            });
        }
        let is_json = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.to_ascii_lowercase().contains("json"));
        if is_json {
            return Err(tokio::select! {
                e = self.json_instead_of_stream(response) => Failure::Fatal(e),
                _ = tokio::time::sleep_until(clock.deadline()) => timed_out(),
            });
        }

        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let mut bytes = idle_limited(response.bytes_stream(), idle).boxed().fuse();
        let first = tokio::select! {
            first = self.sniff(&mut bytes, content_type.as_deref()) => first?,
            _ = tokio::time::sleep_until(clock.expires_at()) => {
                return Err(Failure::Fatal(clock.expired(&self.label)));
            }
        };
        let bytes = stream::iter(first).chain(bytes);
        let decoded = sse::decode_capped(
            &self.label,
            bytes,
            parser,
            limits::max_event_bytes(output_limit),
        );
        let mut stream = guard::watch(&self.label, decoded, *clock, output_limit);
        let mut head = Vec::new();
        loop {
            match stream.next().await {
                Some(Ok(event)) => {
                    let output = !matches!(event, StreamEvent::Usage(_));
                    head.push(Ok(event));
                    if output {
                        break;
                    }
                }
                Some(Err(e @ ProviderError::Disconnected { .. })) => {
                    return Err(Failure::Retry {
                        error: e,
                        after: None,
                    });
                }
                Some(Err(e)) => return Err(Failure::Fatal(e)),
                // A stream that already ended must not be polled again.
                None => return Ok(stream::iter(head).boxed()),
            }
        }
        Ok(stream::iter(head).chain(stream).boxed())
    }

    /// Reads the first bytes of a 2xx body and returns them once they show
    /// an event stream; a body that is not one is a fatal error quoting
    /// its start. A transport error or the end of the body is handed on
    /// with the bytes, for the decoder to report.
    async fn sniff<S, B>(
        &self,
        bytes: &mut S,
        content_type: Option<&str>,
    ) -> Result<Vec<Result<B, ByteError>>, Failure>
    where
        S: Stream<Item = Result<B, ByteError>> + Unpin,
        B: AsRef<[u8]>,
    {
        let mut first = Vec::new();
        let mut prefix = Vec::new();
        loop {
            match sse::sniff(&prefix) {
                Sniff::EventStream => return Ok(first),
                Sniff::NotEventStream => {
                    return Err(Failure::Fatal(
                        self.not_an_event_stream(bytes, prefix, content_type).await,
                    ));
                }
                Sniff::NeedMore if prefix.len() >= SNIFF_BYTES => return Ok(first),
                Sniff::NeedMore => {}
            }
            match bytes.next().await {
                Some(Ok(chunk)) => {
                    let data = chunk.as_ref();
                    let take = data.len().min(SNIFF_BYTES - prefix.len());
                    prefix.extend_from_slice(&data[..take]);
                    first.push(Ok(chunk));
                }
                Some(Err(e)) => {
                    first.push(Err(e));
                    return Ok(first);
                }
                None => return Ok(first),
            }
        }
    }

    /// The error for a 2xx body that is not an event stream, with up to
    /// [`PREVIEW_BYTES`] of it read (briefly: the server may hold the rest).
    async fn not_an_event_stream<S, B>(
        &self,
        bytes: &mut S,
        mut prefix: Vec<u8>,
        content_type: Option<&str>,
    ) -> ProviderError
    where
        S: Stream<Item = Result<B, ByteError>> + Unpin,
        B: AsRef<[u8]>,
    {
        while prefix.len() < PREVIEW_BYTES {
            match tokio::time::timeout(Duration::from_millis(500), bytes.next()).await {
                Ok(Some(Ok(chunk))) => {
                    let data = chunk.as_ref();
                    let take = data.len().min(PREVIEW_BYTES - prefix.len());
                    prefix.extend_from_slice(&data[..take]);
                }
                _ => break,
            }
        }
        let text = String::from_utf8_lossy(&prefix);
        let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let body_kind = match content_type.map(str::trim).filter(|t| !t.is_empty()) {
            Some(t) if t.to_ascii_lowercase().contains("event-stream") => {
                format!("a body labelled {t}")
            }
            Some(t) => t.to_string(),
            None => "no content type".to_string(),
        };
        ProviderError::NotEventStream {
            provider: self.label.clone(),
            url: self.url.clone(),
            body_kind,
            preview: truncate_chars(&one_line, PREVIEW_CHARS),
        }
    }

    fn idle_error(&self) -> ProviderError {
        ProviderError::NoAnswer {
            provider: self.label.clone(),
            url: self.url.clone(),
            seconds: self.settings.idle_timeout.as_secs().max(1),
        }
    }

    fn send_error(&self, e: &reqwest::Error) -> Failure {
        if e.is_builder() {
            return Failure::Fatal(ProviderError::Config(format!(
                "{}: cannot build the request to {}: {}",
                self.label,
                self.url,
                describe(e)
            )));
        }
        let error = if e.is_connect() || e.is_timeout() {
            ProviderError::Connect {
                provider: self.label.clone(),
                url: self.url.clone(),
                message: connect_cause(e, self.settings.connect_timeout),
            }
        } else {
            ProviderError::Disconnected {
                provider: self.label.clone(),
                message: describe(e),
            }
        };
        Failure::Retry { error, after: None }
    }

    async fn status_error(&self, response: reqwest::Response) -> Failure {
        let status = response.status();
        let after = retry_after(response.headers());
        let body = read_limited(response, self.settings.idle_timeout).await;
        let provider = self.label.clone();
        match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
                Failure::Fatal(ProviderError::Unauthorized {
                    provider,
                    status: status.as_u16(),
                    key_hint: self.key_hint.clone(),
                })
            }
            StatusCode::NOT_FOUND => Failure::Fatal(ProviderError::NotFound {
                provider,
                url: self.url.clone(),
            }),
            _ => {
                let mut message = error_message(&body, status);
                if status.is_client_error() && mentions_output_limit(&message) {
                    message.push_str(OUTPUT_LIMIT_HINT);
                } else if status.is_client_error() && mentions_context_size(&message) {
                    message.push_str(CONTEXT_SIZE_HINT);
                }
                let error = ProviderError::Http {
                    provider,
                    url: self.url.clone(),
                    status: status.as_u16(),
                    message,
                };
                let retryable = status == StatusCode::TOO_MANY_REQUESTS
                    || status == StatusCode::REQUEST_TIMEOUT
                    || status.is_server_error();
                if retryable {
                    Failure::Retry { error, after }
                } else {
                    Failure::Fatal(error)
                }
            }
        }
    }

    async fn json_instead_of_stream(&self, response: reqwest::Response) -> ProviderError {
        let body = read_limited(response, self.settings.idle_timeout).await;
        let provider = self.label.clone();
        match serde_json::from_slice::<Value>(&body) {
            Ok(v) if v.get("error").is_some_and(|e| !e.is_null()) => ProviderError::Stream {
                provider,
                message: error_message(&body, StatusCode::OK),
            },
            _ => ProviderError::Protocol {
                provider,
                message: "expected an event stream (text/event-stream) but got a JSON document; \
                          does the server support streaming?"
                    .to_string(),
            },
        }
    }
}

/// Adds "gave up after N attempts" to the last error of a retried request.
fn gave_up(error: ProviderError, attempts: u32) -> ProviderError {
    if attempts <= 1 {
        return error;
    }
    let note = format!(" (gave up after {attempts} attempts)");
    match error {
        ProviderError::Http {
            provider,
            url,
            status,
            message,
        } => ProviderError::Http {
            provider,
            url,
            status,
            message: message + &note,
        },
        ProviderError::Connect {
            provider,
            url,
            message,
        } => ProviderError::Connect {
            provider,
            url,
            message: message + &note,
        },
        ProviderError::Disconnected { provider, message } => ProviderError::Disconnected {
            provider,
            message: message + &note,
        },
        other => other,
    }
}

/// Added to a refusal that is about the output limit zcode sent.
const OUTPUT_LIMIT_HINT: &str = " (zcode sends the model's output limit: set maxOutputTokens, or maxTokensField, for this model in config.json)";

/// Whether a server's error message is about the output limit (a limit
/// above what the model allows, or one that does not fit the context).
fn mentions_output_limit(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    [
        "max_tokens",
        "max_completion_tokens",
        "maximum context length",
    ]
    .iter()
    .any(|k| m.contains(k))
}

/// Added to a refusal of a prompt larger than the server's context.
const CONTEXT_SIZE_HINT: &str = " (start the server with a larger context, llama.cpp's -c; if the server does not report its context, set contextWindow for this model in config.json so that zcode fits its prompt to it)";

/// Whether a server's error message says the prompt does not fit its
/// context (llama.cpp: "the request exceeds the available context size").
fn mentions_context_size(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("context size") || m.contains("exceed_context_size")
}

/// `Retry-After` in (possibly fractional) seconds; HTTP dates are ignored.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    let secs: f64 = text.parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)))
}

/// Wraps a body stream: each wait for bytes is bounded by `idle`.
fn idle_limited<S, B>(
    body: S,
    idle: Duration,
) -> impl Stream<Item = Result<B, ByteError>> + Send + 'static
where
    S: Stream<Item = Result<B, reqwest::Error>> + Send + 'static,
    B: Send + 'static,
{
    stream::unfold(Some(Box::pin(body)), move |state| async move {
        let mut body = state?;
        match tokio::time::timeout(idle, body.next()).await {
            Err(_) => Some((Err(ByteError::Idle(idle)), None)),
            Ok(Some(Ok(b))) => Some((Ok(b), Some(body))),
            Ok(Some(Err(e))) => Some((Err(ByteError::Transport(describe(&e))), None)),
            Ok(None) => None,
        }
    })
}

/// Reads at most [`MAX_ERROR_BODY`] bytes of a body, silently stopping at
/// an error or a silence of `idle`.
async fn read_limited(mut response: reqwest::Response, idle: Duration) -> Vec<u8> {
    let mut out = Vec::new();
    while out.len() < MAX_ERROR_BODY {
        match tokio::time::timeout(idle, response.chunk()).await {
            Ok(Ok(Some(chunk))) => out.extend_from_slice(&chunk),
            _ => break,
        }
    }
    out.truncate(MAX_ERROR_BODY);
    out
}

/// The server's error message from a body: `error.message`, `error` (a
/// string), `message` or `detail` of a JSON body, else the text itself;
/// one line, at most [`MAX_ERROR_CHARS`] characters.
pub(crate) fn error_message(body: &[u8], status: StatusCode) -> String {
    let from_json = serde_json::from_slice::<Value>(body).ok().and_then(|v| {
        let pick = |v: &Value| -> Option<String> {
            match v {
                Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
                Value::Object(_) => v
                    .get("message")
                    .and_then(Value::as_str)
                    .filter(|s| !s.trim().is_empty())
                    .map(String::from),
                _ => None,
            }
        };
        v.get("error")
            .and_then(pick)
            .or_else(|| v.get("message").and_then(pick))
            .or_else(|| v.get("detail").and_then(pick))
            .or_else(|| v.get("error").map(|e| e.to_string()))
    });
    let text = match from_json {
        Some(m) => m,
        None => {
            let raw = String::from_utf8_lossy(body);
            html_text(&raw).unwrap_or_else(|| raw.into_owned())
        }
    };
    let mut one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // "502 Bad Gateway" after "HTTP 502" says the code twice.
    let code = status.as_str();
    if let Some(rest) = one_line.strip_prefix(code)
        && rest.starts_with(' ')
    {
        one_line = rest.trim().to_string();
    }
    if one_line.is_empty() {
        return status
            .canonical_reason()
            .unwrap_or("no error message")
            .to_string();
    }
    truncate_chars(&one_line, MAX_ERROR_CHARS)
}

/// At most `max` characters, with `…` when cut.
pub(crate) fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// What reqwest and hyper wrap the real cause in.
const GENERIC_WRAPPERS: [&str; 5] = [
    "error sending request",
    "client error (Connect)",
    "client error (SendRequest)",
    "error decoding response body",
    "request or response body error",
];

/// Why a connection could not be made, in plain words and without the URL
/// (the error names it): `connection refused`, `the host name does not
/// resolve (…)`, `no connection within 10 s`, `TLS handshake failed: …`;
/// else the causes as [`describe`] joins them.
fn connect_cause(e: &reqwest::Error, connect_timeout: Duration) -> String {
    let mut io: Option<&std::io::Error> = None;
    let mut texts = Vec::new();
    let mut current: Option<&dyn std::error::Error> = Some(e);
    while let Some(err) = current {
        if io.is_none() {
            io = err.downcast_ref::<std::io::Error>();
        }
        texts.push(err.to_string());
        current = err.source();
    }
    let innermost = texts.last().map(String::as_str).unwrap_or_default();
    let all = texts.join(" | ").to_ascii_lowercase();
    if all.contains("dns error") || all.contains("failed to lookup address") {
        let why = innermost
            .trim_start_matches("failed to lookup address information:")
            .trim();
        return format!("the host name does not resolve ({why})");
    }
    if let Some(io) = io {
        match io.kind() {
            std::io::ErrorKind::ConnectionRefused => return "connection refused".to_string(),
            std::io::ErrorKind::TimedOut => {}
            _ if io.get_ref().is_none() => return without_os_code(&io.to_string()),
            _ => {}
        }
    }
    if e.is_timeout() || all.contains("timed out") {
        let millis = connect_timeout.as_millis();
        let waited = if millis.is_multiple_of(1000) {
            format!("{} s", millis / 1000)
        } else {
            format!("{:.1} s", connect_timeout.as_secs_f64())
        };
        return format!("no connection within {waited}");
    }
    if ["certificate", "tls", "handshake", "corrupt message"]
        .iter()
        .any(|k| all.contains(k))
    {
        let hint = if all.contains("corrupt message") || all.contains("invalidcontenttype") {
            "; is the server plain http:// rather than https://?"
        } else {
            ""
        };
        return format!("TLS handshake failed: {}{hint}", without_os_code(innermost));
    }
    describe(e)
}

/// `Network is unreachable (os error 101)` → `network is unreachable`.
fn without_os_code(text: &str) -> String {
    let text = match text.find(" (os error ") {
        Some(cut) => &text[..cut],
        None => text,
    };
    let mut chars = text.trim().chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The readable part of an HTML error page: its title, else its text
/// without tags; `None` for a body that is not HTML.
fn html_text(text: &str) -> Option<String> {
    let lower = text.trim_start().to_ascii_lowercase();
    if !(lower.starts_with("<!doctype html") || lower.starts_with("<html")) {
        return None;
    }
    let title = lower.find("<title>").and_then(|start| {
        let from = start + "<title>".len();
        lower[from..]
            .find("</title>")
            .map(|len| text.trim_start()[from..from + len].to_string())
    });
    let readable = match title.filter(|t| !t.trim().is_empty()) {
        Some(t) => t,
        None => {
            let mut out = String::new();
            let mut in_tag = false;
            for c in text.chars() {
                match c {
                    '<' => {
                        in_tag = true;
                        out.push(' ');
                    }
                    '>' => in_tag = false,
                    c if !in_tag => out.push(c),
                    _ => {}
                }
            }
            out
        }
    };
    Some(readable.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// A reqwest error with its causes, one line, without the URL (the
/// errors that need it name it themselves).
fn describe(e: &reqwest::Error) -> String {
    let url_note = e.url().map(|u| format!(" for url ({u})"));
    let mut parts: Vec<String> = Vec::new();
    let mut current: Option<&dyn std::error::Error> = Some(e);
    while let Some(err) = current {
        let mut text = err.to_string();
        if let Some(note) = &url_note {
            text = text.replace(note.as_str(), "");
        }
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        current = err.source();
    }
    // The wrappers say nothing the error's own text does not.
    if parts.len() > 1 {
        parts.retain(|p| !GENERIC_WRAPPERS.contains(&p.as_str()));
    }
    let joined = parts.join(": ");
    truncate_chars(
        &joined.split_whitespace().collect::<Vec<_>>().join(" "),
        MAX_ERROR_CHARS,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let s = HttpSettings::default();
        assert_eq!(s.backoff(1), Duration::from_millis(500));
        assert_eq!(s.backoff(2), Duration::from_millis(1000));
        assert_eq!(s.backoff(3), Duration::from_millis(2000));
        assert_eq!(s.backoff(30), Duration::from_secs(8));
    }

    #[test]
    fn error_messages_are_extracted_and_short() {
        let ok = StatusCode::BAD_REQUEST;
        assert_eq!(
            error_message(br#"{"error":{"message":"bad model","type":"x"}}"#, ok),
            "bad model"
        );
        assert_eq!(error_message(br#"{"error":"nope"}"#, ok), "nope");
        assert_eq!(error_message(br#"{"message":"m"}"#, ok), "m");
        assert_eq!(error_message(br#"{"detail":"d"}"#, ok), "d");
        assert_eq!(error_message(b"plain\ntext  here", ok), "plain text here");
        assert_eq!(error_message(b"", ok), "Bad Request");
        let long = "é".repeat(1000);
        let m = error_message(long.as_bytes(), ok);
        assert_eq!(m.chars().count(), MAX_ERROR_CHARS + 1);
        assert!(m.ends_with('…'));
    }

    #[test]
    fn retry_after_seconds() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert(RETRY_AFTER, "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert(RETRY_AFTER, "0.5".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_millis(500)));
        h.insert(
            RETRY_AFTER,
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), None);
    }
}
