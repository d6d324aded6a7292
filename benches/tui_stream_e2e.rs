//! End to end (TUI-2): the real `zcode` in a 120x40 pseudo-terminal, a
//! model server on 127.0.0.1 streaming one long Markdown reply in
//! word-sized deltas 1 ms apart. Prints, per size, the stream's own
//! duration, how long after its end the whole reply was on screen, the CPU
//! and peak memory of the process (start included), and its idle CPU after;
//! then the idle CPU of a resumed session of 10,000 messages.
//!
//! `cargo bench --bench tui_stream_e2e` (sizes in KiB as arguments, default
//! 10 60 200).

#[allow(dead_code)]
#[path = "../tests/support/long_reply.rs"]
mod long_reply;
#[allow(dead_code)]
#[path = "../tests/support/proc_stats.rs"]
mod proc_stats;
#[allow(dead_code)]
#[path = "../tests/support/pty.rs"]
mod pty;
#[allow(dead_code)]
#[path = "../tests/support/stream_e2e.rs"]
mod stream_e2e;
#[allow(dead_code)]
#[path = "../tests/support/stream_server.rs"]
mod stream_server;

use std::time::Duration;

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10, 60, 200]
    } else {
        sizes
    };
    println!(
        "size    deltas  stream    on screen after end   cpu     cpu/KB    peak RSS  idle cpu"
    );
    for kb in sizes {
        let f = stream_e2e::run(
            kb,
            Duration::from_millis(1),
            Duration::from_secs(600),
            Duration::from_secs(3),
        );
        let stream = f.stream.as_secs_f64();
        let lag = f.lag.as_secs_f64();
        println!(
            "{kb:>3} KB  {:>6}  {stream:>6.2} s  {lag:>6.3} s ({:>4.1}%)      {:>5.2} s  {:>5.1} ms  {:>5.1} MiB  {:>4.2}%",
            f.deltas,
            100.0 * lag / stream,
            f.cpu,
            1000.0 * f.cpu / (f.bytes as f64 / 1024.0),
            f.rss_mib,
            f.idle_percent,
        );
    }
    let idle_for = Duration::from_secs(30);
    let (idle, rss) = stream_e2e::idle_with_messages(10_000, idle_for);
    println!(
        "10,000 messages resumed, then idle for {} s: cpu {idle:.2}%, peak RSS {rss:.1} MiB",
        idle_for.as_secs()
    );
}
