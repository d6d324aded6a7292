//! Shared helpers of the integration tests.
#![allow(dead_code)]

#[cfg(unix)]
pub mod acp_client;
pub mod bash_rules;
pub mod fake_model_server;
pub mod fault_server;
#[cfg(unix)]
pub mod headless;
pub mod long_reply;
pub mod long_transcript;
#[cfg(unix)]
pub mod mcp_server;
#[cfg(target_os = "linux")]
pub mod proc_stats;
#[cfg(unix)]
pub mod pty;
#[cfg(unix)]
pub mod pty_harness;
#[cfg(unix)]
pub mod runtime_harness;
#[cfg(target_os = "linux")]
pub mod stream_e2e;
pub mod stream_server;
pub mod sub_agent_script;
pub mod tui;
pub mod wait;
pub mod web_sites;

use std::path::PathBuf;

use futures_util::stream;
use zcode::config::{Provider, ProviderKind};
use zcode::model::accumulate::collect_reply;
use zcode::model::sse::ByteError;
use zcode::model::{AssistantReply, HttpSettings, ProviderError, ReplyStream};

/// The bytes of `tests/fixtures/sse/{name}`.
pub fn sse_fixture(name: &str) -> Vec<u8> {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "fixtures", "sse", name]
        .iter()
        .collect();
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Splits `bytes` into chunks of the given sizes (cycled; zero counts as
/// one), so boundaries fall anywhere, mid-line and mid-character included.
pub fn split_by_sizes(bytes: &[u8], sizes: &[usize]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while at < bytes.len() {
        let size = sizes
            .get(i % sizes.len().max(1))
            .copied()
            .unwrap_or(1)
            .max(1);
        let end = (at + size).min(bytes.len());
        out.push(bytes[at..end].to_vec());
        at = end;
        i += 1;
    }
    out
}

/// A small deterministic generator for chunk sizes.
pub fn seeded_sizes(seed: u64, count: usize, max: usize) -> Vec<usize> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407)
        | 1;
    (0..count)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % max.max(1) as u64) as usize + 1
        })
        .collect()
}

/// The byte stream the parser tests feed.
pub type ChunkStream = stream::Iter<std::vec::IntoIter<Result<Vec<u8>, ByteError>>>;
/// `openai::decode_stream` or `anthropic::decode_stream`.
pub type Decoder = fn(&str, ChunkStream) -> ReplyStream;

/// Decodes these chunks into a whole reply.
pub fn decode_chunks(
    decoder: Decoder,
    chunks: Vec<Vec<u8>>,
) -> Result<AssistantReply, ProviderError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let bytes = stream::iter(chunks.into_iter().map(Ok).collect::<Vec<_>>());
    rt.block_on(collect_reply(decoder("test", bytes)))
}

/// Decodes a fixture whole, byte by byte and split at many seeded random
/// boundaries; asserts every result is the same and returns it.
pub fn decode_fixture_every_way(
    decoder: Decoder,
    name: &str,
) -> Result<AssistantReply, ProviderError> {
    let bytes = sse_fixture(name);
    let whole = decode_chunks(decoder, vec![bytes.clone()]);
    let bytewise = decode_chunks(decoder, split_by_sizes(&bytes, &[1]));
    assert_eq!(whole, bytewise, "{name}: byte-by-byte split differs");
    for seed in 0..30u64 {
        let max = [2, 3, 7, 16, 64, 512][seed as usize % 6];
        let sizes = seeded_sizes(seed, 64, max);
        let split = decode_chunks(decoder, split_by_sizes(&bytes, &sizes));
        assert_eq!(whole, split, "{name}: split with seed {seed} differs");
    }
    whole
}

/// Fast retry and timeout settings for tests against the fake server.
pub fn test_settings() -> HttpSettings {
    HttpSettings {
        connect_timeout: std::time::Duration::from_secs(2),
        idle_timeout: std::time::Duration::from_millis(300),
        max_attempts: 3,
        backoff_base: std::time::Duration::from_millis(10),
        backoff_max: std::time::Duration::from_millis(40),
        retry_after_cap: std::time::Duration::from_millis(300),
        limits: Default::default(),
    }
}

/// A catalog entry for a provider at `base_url` whose key is in
/// `FAKE_API_KEY`.
pub fn fake_provider(kind: ProviderKind, base_url: &str) -> Provider {
    Provider {
        id: "fake".into(),
        name: "Fake".into(),
        kind,
        base_url: base_url.into(),
        api_key_env: Some("FAKE_API_KEY".into()),
        api_key_optional: false,
        models: Vec::new(),
    }
}

/// Runs `req` on `p` and collects the reply, with the retries `p` told of
/// (attempt, wait and reason) in order: what a test checks of a backoff
/// instead of timing it.
pub async fn collect_observed(
    p: &dyn zcode::model::ModelProvider,
    req: &zcode::model::ModelRequest,
) -> (
    Result<AssistantReply, ProviderError>,
    Vec<zcode::model::RetryNotice>,
) {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = seen.clone();
    let observer: zcode::model::RetryObserver = std::sync::Arc::new(move |n| {
        sink.lock().unwrap_or_else(|p| p.into_inner()).push(n);
    });
    let result = match p.stream_observed(req, observer).await {
        Ok(stream) => collect_reply(stream).await,
        Err(e) => Err(e),
    };
    let notices = seen.lock().unwrap_or_else(|p| p.into_inner()).clone();
    (result, notices)
}
