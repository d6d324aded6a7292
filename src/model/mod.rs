//! Model providers: the provider-neutral types, the provider trait, the
//! HTTP clients for both dialects and the offline scripted provider.

pub mod accumulate;
pub mod anthropic;
pub mod cache_breakpoints;
pub mod context_window;
pub mod cost;
mod guard;
pub mod http;
pub mod limits;
pub mod openai;
pub mod reference;
pub mod scripted;
pub mod select;
pub mod sse;
mod sse_frame;
pub mod types;

pub use accumulate::ReplyBuilder;
pub use http::HttpSettings;
pub use types::*;

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;

/// A streamed reply. Dropping it cancels the request.
pub type ReplyStream = BoxStream<'static, Result<StreamEvent, ProviderError>>;

/// Why a model request failed. `Display` is one clear line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    #[error("{provider}: authentication failed (HTTP {status}): check {key_hint}")]
    Unauthorized {
        provider: String,
        /// 401 or 403.
        status: u16,
        key_hint: String,
    },
    #[error("{provider}: not found (HTTP 404) at {url}: check the base URL and the model id")]
    NotFound { provider: String, url: String },
    #[error("{provider}: HTTP {status} from {url}: {message}")]
    Http {
        provider: String,
        url: String,
        status: u16,
        message: String,
    },
    #[error("{provider}: cannot connect to {url}: {message}")]
    Connect {
        provider: String,
        url: String,
        message: String,
    },
    #[error("{provider}: no data for {seconds} s; gave up waiting")]
    IdleTimeout { provider: String, seconds: u64 },
    /// The server took the connection but sent no response head.
    #[error("{provider}: no answer from {url} for {seconds} s; gave up waiting")]
    NoAnswer {
        provider: String,
        url: String,
        seconds: u64,
    },
    /// Bytes (keep-alives, say) arrive, but no content.
    #[error(
        "{provider}: no reply content for {seconds} s (nothing or only keep-alives arrived); gave up waiting. \
         Raise contentIdleTimeoutSecs for this model if it is just slow"
    )]
    ContentIdle { provider: String, seconds: u64 },
    #[error(
        "{provider}: the request took longer than {seconds} s; gave up. \
         Raise requestTimeoutSecs for this model if replies take that long"
    )]
    RequestTimeout { provider: String, seconds: u64 },
    /// The server streamed past the output limit it was sent.
    #[error(
        "{provider}: the reply passed the output limit of {limit} tokens (about {estimated} arrived) \
         and the server did not stop it; raise maxOutputTokens for this model"
    )]
    OutputLimit {
        provider: String,
        limit: u32,
        estimated: u64,
    },
    /// A 2xx answer whose body is not an event stream (an HTML page, say).
    #[error(
        "{provider}: the server at {url} answered 200 with {body_kind}, not an event stream: {preview}; \
         check the base URL"
    )]
    NotEventStream {
        provider: String,
        url: String,
        /// `text/html; charset=utf-8`, `no content type` …
        body_kind: String,
        /// The first characters of the body, on one line.
        preview: String,
    },
    #[error("{provider}: the stream broke off: {message}")]
    Disconnected { provider: String, message: String },
    #[error("{provider}: the server reported an error: {message}")]
    Stream { provider: String, message: String },
    #[error("{provider}: invalid response: {message}")]
    Protocol { provider: String, message: String },
    #[error("{0}")]
    Config(String),
}

/// A failed attempt of a model request that is tried again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryNotice {
    /// The attempt about to start (2 for the first retry).
    pub attempt: u32,
    pub max_attempts: u32,
    /// The wait before it.
    pub delay: Duration,
    /// Why the last attempt failed, in a few words ("connection refused",
    /// "HTTP 503").
    pub reason: String,
}

/// Told of every retry as it is about to wait.
pub type RetryObserver = Arc<dyn Fn(RetryNotice) + Send + Sync>;

impl ProviderError {
    /// A few words for a retry line.
    pub fn retry_reason(&self) -> String {
        match self {
            ProviderError::Connect { message, .. } => message.clone(),
            ProviderError::Http { status, .. } => format!("HTTP {status}"),
            ProviderError::Disconnected { .. } => "the stream broke off".to_string(),
            other => other.to_string(),
        }
    }
}

/// A model backend speaking one dialect.
pub trait ModelProvider: Send + Sync {
    /// A short label for status lines and errors (`openai`, `offline demo`).
    fn label(&self) -> &str;

    /// True for the scripted offline provider, which must say so.
    fn is_offline_demo(&self) -> bool {
        false
    }

    /// Starts one request. Retries (429/5xx, a stream dropped before any
    /// output) happen inside; once events flow, errors end the stream.
    fn stream<'a>(
        &'a self,
        request: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<ReplyStream, ProviderError>>;

    /// [`Self::stream`], telling `on_retry` of each retry as it happens.
    /// Providers that never retry need not implement it.
    fn stream_observed<'a>(
        &'a self,
        request: &'a ModelRequest,
        on_retry: RetryObserver,
    ) -> BoxFuture<'a, Result<ReplyStream, ProviderError>> {
        drop(on_retry);
        self.stream(request)
    }
}
