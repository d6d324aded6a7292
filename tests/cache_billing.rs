//! A long scripted Anthropic session (24+ tool calls) replayed through the
//! real request builder is billed at most a fifth of its uncached input
//! once the cache breakpoints are in place (see `support/cache_replay.rs`
//! for how the bill is made).

#[path = "support/cache_replay.rs"]
mod cache_replay;

use cache_replay::{bill, long_session};
use zcode::model::cache_breakpoints::{MAX_BREAKPOINTS, count};

const CALLS: usize = 30;

#[test]
fn cache_anthropic_long_session_is_billed_at_most_a_fifth_of_its_uncached_input() {
    let requests = long_session(CALLS);
    assert_eq!(requests.len(), CALLS + 1);
    let bill = bill(&requests);
    let ratio = bill.billed_input() / bill.uncached_input as f64;
    assert!(
        ratio <= 0.2,
        "billed {:.0} of {} uncached input tokens ({:.1}%): {bill:?}",
        bill.billed_input(),
        bill.uncached_input,
        ratio * 100.0
    );
    // Every request after the first reads what the one before wrote.
    assert!(bill.cache_read > bill.uncached_input / 2, "{bill:?}");
}

#[test]
fn cache_anthropic_breakpoints_never_exceed_four_in_a_long_session() {
    for (i, request) in long_session(CALLS).iter().enumerate() {
        let body = zcode::model::anthropic::request_body(request);
        assert!(count(&body) <= MAX_BREAKPOINTS, "request {i}");
    }
}
