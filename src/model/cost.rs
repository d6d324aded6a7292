//! What one reply cost, from its usage and the model's prices
//! (`config::prices`).

use super::Usage;
use crate::config::prices::Prices;

/// The cost of these tokens in millionths of a dollar, rounded.
pub fn cost_micros(prices: &Prices, usage: &Usage) -> u64 {
    let parts = [
        (usage.uncached_input_tokens(), prices.input),
        (usage.output_tokens, prices.output),
        (usage.cache_read_input_tokens, prices.cache_read),
        (usage.cache_creation_input_tokens, prices.cache_write),
    ];
    let total: u128 = parts
        .iter()
        .map(|&(tokens, price)| u128::from(tokens) * u128::from(price))
        .sum();
    u64::try_from((total + 500_000) / 1_000_000).unwrap_or(u64::MAX)
}

/// One reply's usage with its cost: priced, or counted as unpriced.
pub fn with_cost(usage: Usage, prices: Option<&Prices>) -> Usage {
    match prices {
        Some(prices) => Usage {
            cost_micros: cost_micros(prices, &usage),
            unpriced_replies: 0,
            ..usage
        },
        None => Usage {
            cost_micros: 0,
            unpriced_replies: 1,
            ..usage
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_cost_weights_each_kind_of_token() {
        let prices = Prices::from_dollars(3.0, 15.0, Some(0.3), Some(3.75)).unwrap();
        let usage = Usage {
            input_tokens: 1_000_000 + 2_000_000 + 100_000,
            output_tokens: 10_000,
            cache_read_input_tokens: 2_000_000,
            cache_creation_input_tokens: 100_000,
            ..Default::default()
        };
        // $3 + $0.15 + $0.60 + $0.375
        assert_eq!(cost_micros(&prices, &usage), 4_125_000);
        assert_eq!(Prices::from_dollars(-1.0, 1.0, None, None), None);
        assert_eq!(
            Prices::from_dollars(2.0, 8.0, None, None).map(|p| p.cache_read),
            Some(2_000_000)
        );
    }
}
