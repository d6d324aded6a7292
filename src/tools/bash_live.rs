//! Bash's live output: what a running command prints, sent to the front
//! end while it runs, coalesced so that a command printing fast costs at
//! most one event per [`LIVE_INTERVAL`], and bounded: of output that piles
//! up between two sends only the last [`LIVE_PENDING_MAX`] bytes are kept
//! (a front end shows the last lines). The whole output still comes with
//! the call's result.

use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// The shortest time between two sends.
pub const LIVE_INTERVAL: Duration = Duration::from_millis(100);

/// Bytes of unsent output kept; older ones are dropped.
pub const LIVE_PENDING_MAX: usize = 4096;

/// Where a running tool sends its output as it comes.
#[derive(Clone)]
pub struct LiveOutput(Arc<dyn Fn(String) + Send + Sync>);

impl LiveOutput {
    pub fn new(send: impl Fn(String) + Send + Sync + 'static) -> Self {
        Self(Arc::new(send))
    }
}

impl std::fmt::Debug for LiveOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LiveOutput")
    }
}

/// Output waiting to be sent, and when it may be.
#[derive(Debug)]
pub struct LiveFeed {
    sink: LiveOutput,
    pending: Vec<u8>,
    /// The earliest time of the next send.
    next: Instant,
}

impl LiveFeed {
    /// A feed whose first output may go at once (`now`).
    pub fn new(sink: LiveOutput, now: Instant) -> Self {
        Self {
            sink,
            pending: Vec::new(),
            next: now,
        }
    }

    /// Output read from the command.
    pub fn push(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
        if self.pending.len() > LIVE_PENDING_MAX {
            let mut cut = self.pending.len() - LIVE_PENDING_MAX;
            // From a line's start when the kept part has one.
            if let Some(nl) = self.pending[cut..].iter().position(|b| *b == b'\n') {
                cut += nl + 1;
            }
            self.pending.drain(..cut);
        }
    }

    /// When the output waiting may be sent; `None` while there is none.
    pub fn due(&self) -> Option<Instant> {
        (!self.pending.is_empty()).then_some(self.next)
    }

    /// Sends what waits (but a character cut in two, which waits for its
    /// other bytes); the next send is [`LIVE_INTERVAL`] after `now`.
    pub fn flush(&mut self, now: Instant) {
        let keep = incomplete_tail(&self.pending);
        let ready = self.pending.len() - keep;
        if ready > 0 {
            let text = String::from_utf8_lossy(&self.pending[..ready]).into_owned();
            self.pending.drain(..ready);
            (self.sink.0)(text);
        }
        self.next = now + LIVE_INTERVAL;
    }

    /// Sends all that waits, once the command is done, so that the live
    /// text is the whole output read (a short command's too).
    pub fn finish(&mut self) {
        if !self.pending.is_empty() {
            let text = String::from_utf8_lossy(&self.pending).into_owned();
            self.pending.clear();
            (self.sink.0)(text);
        }
    }
}

/// How many bytes at the end of `bytes` start a UTF-8 character that is
/// not complete yet.
fn incomplete_tail(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let b = bytes[bytes.len() - back];
        if b & 0b1100_0000 == 0b1000_0000 {
            continue; // a continuation byte: look further back
        }
        let needed = match b {
            b if b & 0b1110_0000 == 0b1100_0000 => 2,
            b if b & 0b1111_0000 == 0b1110_0000 => 3,
            b if b & 0b1111_1000 == 0b1111_0000 => 4,
            _ => 1,
        };
        return if needed > back { back } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn feed() -> (LiveFeed, Arc<Mutex<Vec<String>>>, Instant) {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let into = sent.clone();
        let now = Instant::now();
        let sink = LiveOutput::new(move |text| into.lock().unwrap().push(text));
        (LiveFeed::new(sink, now), sent, now)
    }

    #[tokio::test(start_paused = true)]
    async fn live_bash_output_is_coalesced_never_one_event_per_write() {
        let (mut feed, sent, start) = feed();
        assert_eq!(feed.due(), None, "nothing to send");
        feed.push(b"first\n");
        assert_eq!(feed.due(), Some(start), "the first output goes at once");
        feed.flush(start);
        // A thousand writes before the interval is over: one send.
        for i in 0..1000 {
            feed.push(format!("line {i}\n").as_bytes());
        }
        assert_eq!(feed.due(), Some(start + LIVE_INTERVAL));
        feed.flush(start + LIVE_INTERVAL);
        let sent = sent.lock().unwrap();
        assert_eq!(sent.len(), 2);
        assert_eq!(sent[0], "first\n");
        assert!(sent[1].ends_with("line 999\n"));
        assert!(
            sent[1].len() <= LIVE_PENDING_MAX,
            "bounded: {}",
            sent[1].len()
        );
        assert!(sent[1].starts_with("line "), "cut at a line start");
    }

    #[test]
    fn live_bash_output_keeps_a_split_character_for_the_next_send() {
        let (mut feed, sent, start) = feed();
        let bytes = "é✓".as_bytes();
        feed.push(&bytes[..3]); // é and the first byte of ✓
        feed.flush(start);
        feed.push(&bytes[3..]);
        feed.flush(start + LIVE_INTERVAL);
        assert_eq!(
            *sent.lock().unwrap(),
            vec!["é".to_string(), "✓".to_string()]
        );
    }
}
