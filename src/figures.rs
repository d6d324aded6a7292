//! How counts read for a person, the same in the TUI and in `zcode -p`:
//! token counts ("12k"), durations ("14 s") and what a sub-agent did
//! ("7 tool calls · 12k tokens · 14 s").

use crate::model::Usage;

/// 850, 2.4k, 24k, 1.2M.
pub fn tokens(n: u64) -> String {
    fn one_decimal(value: u64, unit: u64, suffix: &str) -> String {
        let tenths = (value * 10 + unit / 2) / unit;
        if tenths.is_multiple_of(10) {
            format!("{}{suffix}", tenths / 10)
        } else {
            format!("{}.{}{suffix}", tenths / 10, tenths % 10)
        }
    }
    match n {
        0..=999 => n.to_string(),
        1_000..=9_949 => one_decimal(n, 1_000, "k"),
        9_950..=999_499 => format!("{}k", (n + 500) / 1_000),
        _ => one_decimal(n, 1_000_000, "M"),
    }
}

/// Whole seconds under a minute ("14 s"), then minutes and seconds
/// ("2 min 5 s"), then hours and minutes ("1 h 4 min").
pub fn duration(ms: u64) -> String {
    let secs = ms / 1000;
    match secs {
        0..=59 => format!("{secs} s"),
        60..=3599 => format!("{} min {} s", secs / 60, secs % 60),
        _ => format!("{} h {} min", secs / 3600, secs % 3600 / 60),
    }
}

/// What a sub-agent did so far or in all: "7 tool calls · 12k tokens ·
/// 14 s" (input and output tokens together).
pub fn agent_figures(tool_calls: u32, usage: Usage, elapsed_ms: u64) -> String {
    let noun = if tool_calls == 1 {
        "tool call"
    } else {
        "tool calls"
    };
    let used = usage.input_tokens.saturating_add(usage.output_tokens);
    format!(
        "{tool_calls} {noun} · {} tokens · {}",
        tokens(used),
        duration(elapsed_ms)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tui2_token_counts_read_short() {
        assert_eq!(tokens(850), "850");
        assert_eq!(tokens(2_400), "2.4k");
        assert_eq!(tokens(3_000), "3k");
        assert_eq!(tokens(24_300), "24k");
        assert_eq!(tokens(200_000), "200k");
        assert_eq!(tokens(1_000_000), "1M");
        assert_eq!(tokens(1_250_000), "1.3M");
    }

    #[test]
    fn ux_durations_read_in_the_largest_units_that_matter() {
        assert_eq!(duration(0), "0 s");
        assert_eq!(duration(14_300), "14 s");
        assert_eq!(duration(125_000), "2 min 5 s");
        assert_eq!(duration(3_840_000), "1 h 4 min");
    }

    #[test]
    fn ux_agent_figures_count_tools_tokens_and_time() {
        let usage = Usage {
            input_tokens: 11_000,
            output_tokens: 1_300,
            ..Default::default()
        };
        assert_eq!(
            agent_figures(7, usage, 14_000),
            "7 tool calls · 12k tokens · 14 s"
        );
        assert_eq!(
            agent_figures(1, Usage::default(), 900),
            "1 tool call · 0 tokens · 0 s"
        );
    }
}
