//! `/cost`: what the session has used, by kind of token, and what it cost
//! where the model's prices are known (`config::prices`).

use crate::figures::tokens;
use crate::model::Usage;

/// Dollars from millionths: four decimals under a dollar, else two.
pub fn dollars(micros: u64) -> String {
    if micros < 1_000_000 {
        format!(
            "${}.{:04}",
            micros / 1_000_000,
            (micros % 1_000_000 + 50) / 100
        )
    } else {
        let cents = (micros + 5_000) / 10_000;
        format!("${}.{:02}", cents / 100, cents % 100)
    }
}

/// The text `/cost` shows for the session's total usage.
pub fn cost_text(usage: &Usage) -> String {
    let cost = match (usage.cost_micros, usage.unpriced_replies) {
        (_, 0) => format!("Session cost: {}", dollars(usage.cost_micros)),
        (0, _) => "Session cost: not known (no price is known for this model; \
                   give its prices in the config as \"prices\" of the model)"
            .to_string(),
        (micros, n) => format!(
            "Session cost: at least {} ({n} {} of a model without a known price not counted)",
            dollars(micros),
            if n == 1 { "reply" } else { "replies" }
        ),
    };
    let rows = [
        ("input", usage.uncached_input_tokens()),
        ("cache read", usage.cache_read_input_tokens),
        ("cache write", usage.cache_creation_input_tokens),
        ("output", usage.output_tokens),
    ];
    let mut text = cost;
    for (kind, n) in rows {
        text.push_str(&format!("\n  {kind:<12}{:>8} tokens", tokens(n)));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_cost_dollars_read_plainly() {
        assert_eq!(dollars(0), "$0.0000");
        assert_eq!(dollars(6_450), "$0.0065");
        assert_eq!(dollars(999_949), "$0.9999");
        assert_eq!(dollars(1_234_567), "$1.23");
        assert_eq!(dollars(12_345_678), "$12.35");
    }

    #[test]
    fn cache_cost_unknown_price_is_said_not_zero() {
        let usage = Usage {
            input_tokens: 1000,
            unpriced_replies: 2,
            ..Default::default()
        };
        let text = cost_text(&usage);
        assert!(text.starts_with("Session cost: not known"), "{text}");
        assert!(!text.contains('$'), "{text}");
        let partly = Usage {
            cost_micros: 20_000,
            ..usage
        };
        assert!(
            cost_text(&partly).starts_with("Session cost: at least $0.0200 (2 replies"),
            "{}",
            cost_text(&partly)
        );
    }
}
