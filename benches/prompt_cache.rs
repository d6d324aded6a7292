//! Prompt caches on a long Anthropic session: a scripted session of 30
//! tool calls replayed through the real request builder, billed as
//! Anthropic bills cache writes (1.25×) and reads (0.1×). Prints the billed
//! input with and without the caches, then times building and billing the
//! session's requests.

#[path = "../tests/support/cache_replay.rs"]
mod cache_replay;

use cache_replay::{bill, long_session};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const CALLS: usize = 30;

/// Session lengths the report covers: the share billed should fall as a
/// session grows, never rise.
const REPORTED_CALLS: [usize; 4] = [8, 30, 60, 120];

fn report() {
    for calls in REPORTED_CALLS {
        let requests = long_session(calls);
        let bill = bill(&requests);
        let billed = bill.billed_input();
        println!(
            "prompt cache, {} requests ({calls} tool calls): input without caches {} tokens; \
             with caches billed {:.0} ({:.1}%): {} read (0.1x), {} written (1.25x), {} plain",
            requests.len(),
            bill.uncached_input,
            billed,
            billed * 100.0 / bill.uncached_input as f64,
            bill.cache_read,
            bill.cache_write,
            bill.plain,
        );
    }
}

fn bench_replay(c: &mut Criterion) {
    report();
    c.bench_function("prompt_cache_replay_30_calls", |b| {
        b.iter(|| black_box(bill(&long_session(black_box(CALLS)))))
    });
}

criterion_group!(benches, bench_replay);
criterion_main!(benches);
