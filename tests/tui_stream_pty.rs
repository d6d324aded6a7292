//! A long streamed reply reaches the real TUI's screen whole and at the
//! stream's pace (TUI-2): 60 KB of Markdown in about 10,000 deltas, sent as
//! fast as the socket takes them. A TUI whose cost grows with the square of
//! the reply falls minutes behind here; the figures themselves come from
//! `benches/tui_stream_e2e.rs`.
#![cfg(target_os = "linux")]

mod support;

use std::time::Duration;
use support::stream_e2e::run;

#[test]
fn tui2_a_60kb_streamed_reply_is_on_screen_whole_when_the_stream_ends() {
    let figures = run(
        60,
        Duration::ZERO,
        Duration::from_secs(90),
        Duration::from_millis(0),
    );
    assert!(figures.bytes >= 60 * 1024, "{figures:?}");
    eprintln!("{figures:?}");
}
