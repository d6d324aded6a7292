//! Waiting without racing the clock. A test waits for what it checks (a
//! condition, a future, an event); the limit here only bounds a failure,
//! so a test that passes never depends on how long anything took, and a
//! slow machine only makes a failing test slower to report.
//!
//! This is the one place in tests/ that polls with a pause between looks;
//! `tests/no_wall_clock.rs` keeps it so.

use std::future::Future;
use std::time::Duration;

/// How long a test waits for something that should happen before calling
/// it a failure. Generous: it only bounds a hang.
pub const WAIT: Duration = Duration::from_secs(60);

/// The pause between two looks at a condition nothing signals.
const POLL: Duration = Duration::from_millis(10);

/// Awaits `fut`, failing the test with `what` if it hangs.
pub async fn within<F: Future>(what: &str, fut: F) -> F::Output {
    match tokio::time::timeout(WAIT, fut).await {
        Ok(out) => out,
        Err(_) => panic!("{what}: not done within {WAIT:?}"),
    }
}

/// Polls `cond` until it holds; false once `limit` has passed without it.
pub async fn until(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let polled = async {
        while !cond() {
            tokio::time::sleep(POLL).await;
        }
    };
    tokio::time::timeout(limit, polled).await.is_ok()
}

/// [`until`] for a test without a runtime.
pub fn until_blocking(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + limit;
    while !cond() {
        if std::time::Instant::now() >= deadline {
            return cond();
        }
        std::thread::sleep(POLL);
    }
    true
}
