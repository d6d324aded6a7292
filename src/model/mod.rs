//! Model providers: the provider-neutral types, the provider trait, the
//! HTTP clients for both dialects and the offline scripted provider.

pub mod accumulate;
pub mod anthropic;
pub mod http;
pub mod openai;
pub mod reference;
pub mod scripted;
pub mod select;
pub mod sse;
pub mod types;

pub use accumulate::ReplyBuilder;
pub use http::HttpSettings;
pub use types::*;

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
    #[error("{provider}: HTTP {status}: {message}")]
    Http {
        provider: String,
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
    #[error("{provider}: the stream broke off: {message}")]
    Disconnected { provider: String, message: String },
    #[error("{provider}: the server reported an error: {message}")]
    Stream { provider: String, message: String },
    #[error("{provider}: invalid response: {message}")]
    Protocol { provider: String, message: String },
    #[error("{0}")]
    Config(String),
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
}
