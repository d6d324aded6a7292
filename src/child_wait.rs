//! Waiting for a short-lived helper process (`git status`, `tmux
//! load-buffer`) with a deadline: a helper that hangs is killed and reaped,
//! never left to hold the caller.

use std::io;
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// How often the child is looked at while it runs.
const POLL: Duration = Duration::from_millis(5);

/// The child's exit status, or `None` when it did not end within
/// `timeout` (it is then killed and reaped).
pub fn wait_with_deadline(child: &mut Child, timeout: Duration) -> io::Result<Option<ExitStatus>> {
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(Some(status)),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(POLL),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(None);
            }
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(e);
            }
        }
    }
}
