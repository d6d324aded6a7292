//! The streamable-HTTP transport's set-up: its TLS provider and headers.

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use std::collections::HashMap;

/// The SDK's HTTP client is built without a TLS crypto provider of its
/// own; it uses the process default, which is ring, as the model
/// providers' client does. Installing twice is harmless.
pub(crate) fn install_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The transport's config for `url` with the configured headers.
pub(crate) fn transport_config(
    url: &str,
    headers: &[(String, String)],
) -> Result<StreamableHttpClientTransportConfig, String> {
    let mut map = HashMap::new();
    for (name, value) in headers {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("header name '{name}' is not valid"))?;
        let value = HeaderValue::from_str(value)
            .map_err(|_| format!("the value of header '{name}' is not valid"))?;
        map.insert(header, value);
    }
    Ok(StreamableHttpClientTransportConfig::with_uri(url.to_string()).custom_headers(map))
}
