//! What a model's tokens cost: the prices a config entry gives
//! (`"prices": {"input": 3, "output": 15, "cacheRead": 0.3,
//! "cacheWrite": 3.75}`, US dollars per million tokens), or for the
//! well-known models on Anthropic's and OpenAI's own APIs, their list
//! prices. Any other model has no price, and its cost is not known.

use super::catalog::ProviderKind;

/// Prices in millionths of a US dollar per million tokens (`3_000_000`
/// is $3 / MTok): whole numbers, so the catalog stays comparable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prices {
    pub input: u64,
    pub output: u64,
    /// Prompt tokens read from the cache.
    pub cache_read: u64,
    /// Prompt tokens written to the cache.
    pub cache_write: u64,
}

/// Dollars per million tokens as whole millionths; `None` for a negative,
/// non-finite or absurd price.
pub fn micros(dollars: f64) -> Option<u64> {
    if !dollars.is_finite() || !(0.0..=1_000_000.0).contains(&dollars) {
        return None;
    }
    // In range, so the cast neither wraps nor saturates.
    Some((dollars * 1_000_000.0).round() as u64)
}

impl Prices {
    /// From dollars per million tokens; a missing cache price is the input
    /// price (a cache the provider does not bill apart).
    pub fn from_dollars(
        input: f64,
        output: f64,
        cache_read: Option<f64>,
        cache_write: Option<f64>,
    ) -> Option<Prices> {
        let input = micros(input)?;
        Some(Prices {
            input,
            output: micros(output)?,
            cache_read: cache_read.map_or(Some(input), micros)?,
            cache_write: cache_write.map_or(Some(input), micros)?,
        })
    }
}

/// `(id, input, output, cache read, cache write)` in dollars per million
/// tokens, from the providers' price lists.
const ANTHROPIC: &[(&str, f64, f64, f64, f64)] = &[
    ("claude-opus-4-5", 5.0, 25.0, 0.5, 6.25),
    ("claude-opus-4-1", 15.0, 75.0, 1.5, 18.75),
    ("claude-opus-4", 15.0, 75.0, 1.5, 18.75),
    ("claude-sonnet-4-5", 3.0, 15.0, 0.3, 3.75),
    ("claude-sonnet-4", 3.0, 15.0, 0.3, 3.75),
    ("claude-3-7-sonnet", 3.0, 15.0, 0.3, 3.75),
    ("claude-haiku-4-5", 1.0, 5.0, 0.1, 1.25),
    ("claude-3-5-haiku", 0.8, 4.0, 0.08, 1.0),
];

/// OpenAI bills no cache write: writing is the input price.
const OPENAI: &[(&str, f64, f64, f64, f64)] = &[
    ("gpt-5", 1.25, 10.0, 0.125, 1.25),
    ("gpt-5-mini", 0.25, 2.0, 0.025, 0.25),
    ("gpt-5-nano", 0.05, 0.4, 0.005, 0.05),
    ("gpt-4.1", 2.0, 8.0, 0.5, 2.0),
    ("gpt-4.1-mini", 0.4, 1.6, 0.1, 0.4),
    ("gpt-4.1-nano", 0.1, 0.4, 0.025, 0.1),
    ("gpt-4o", 2.5, 10.0, 1.25, 2.5),
    ("gpt-4o-mini", 0.15, 0.6, 0.075, 0.15),
    ("o3", 2.0, 8.0, 0.5, 2.0),
    ("o4-mini", 1.1, 4.4, 0.275, 1.1),
];

const ANTHROPIC_API_HOST: &str = "api.anthropic.com";
const OPENAI_API_HOST: &str = "api.openai.com";

/// The list price of a well-known model served by its maker's own API
/// (the same id behind another base URL may be a local model or a proxy
/// with its own prices). A dated id (`claude-sonnet-4-5-20250929`,
/// `gpt-4.1-2025-04-14`) or `-latest` takes its family's price.
pub fn well_known(kind: ProviderKind, base_url: &str, model_id: &str) -> Option<Prices> {
    let (table, host) = match kind {
        ProviderKind::Anthropic => (ANTHROPIC, ANTHROPIC_API_HOST),
        ProviderKind::Openai => (OPENAI, OPENAI_API_HOST),
    };
    let url = url::Url::parse(base_url).ok()?;
    if url.host_str() != Some(host) {
        return None;
    }
    let id = model_id.to_ascii_lowercase();
    table
        .iter()
        .filter(|(name, ..)| {
            id.strip_prefix(name)
                .is_some_and(|rest| rest.is_empty() || is_version_suffix(rest))
        })
        .max_by_key(|(name, ..)| name.len())
        .and_then(|&(_, i, o, r, w)| Prices::from_dollars(i, o, Some(r), Some(w)))
}

/// `-20250929`, `-2025-04-14`, `-latest`: the same model, not another one
/// (`-5` of `claude-sonnet-4-5` is not a date).
fn is_version_suffix(rest: &str) -> bool {
    let Some(tail) = rest.strip_prefix('-') else {
        return false;
    };
    tail == "latest" || (tail.len() >= 8 && tail.chars().all(|c| c.is_ascii_digit() || c == '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANTHROPIC_URL: &str = "https://api.anthropic.com";

    #[test]
    fn cache_cost_prices_of_dated_ids_and_not_of_other_servers() {
        let sonnet = well_known(ProviderKind::Anthropic, ANTHROPIC_URL, "claude-sonnet-4-5");
        assert_eq!(sonnet.map(|p| p.input), Some(3_000_000));
        assert_eq!(
            well_known(
                ProviderKind::Anthropic,
                ANTHROPIC_URL,
                "claude-sonnet-4-5-20250929"
            ),
            sonnet
        );
        let sonnet4 = well_known(ProviderKind::Anthropic, ANTHROPIC_URL, "claude-sonnet-4");
        assert_eq!(sonnet4.map(|p| p.cache_read), Some(300_000));
        let opus = well_known(ProviderKind::Anthropic, ANTHROPIC_URL, "claude-opus-4-5");
        assert_eq!(opus.map(|p| p.output), Some(25_000_000));
        assert_eq!(
            well_known(
                ProviderKind::Openai,
                "https://api.openai.com/v1",
                "gpt-4.1-2025-04-14"
            )
            .map(|p| p.cache_read),
            Some(500_000)
        );
        // A local server calling its model gpt-4.1 is not OpenAI.
        assert_eq!(
            well_known(ProviderKind::Openai, "http://127.0.0.1:8080/v1", "gpt-4.1"),
            None
        );
        assert_eq!(
            well_known(ProviderKind::Anthropic, ANTHROPIC_URL, "claude-unknown"),
            None
        );
    }
}
