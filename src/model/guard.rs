//! Watches a decoded reply stream: stops it once the output passes the
//! limit (the server should have stopped it; some ignore the limit and
//! stream forever), when no content arrives for too long (keep-alives keep
//! the connection busy without saying anything), and when the request as a
//! whole runs out of time.

use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use tokio::time::Instant;

use super::limits::{BYTES_PER_TOKEN, output_cutoff_bytes};
use super::{ProviderError, ReplyStream, StreamEvent};

/// The two clocks of one request: the time of the last content (or of the
/// attempt's start) and the deadline of the whole request.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Clock {
    content_idle: Duration,
    last_content: Instant,
    request_timeout: Duration,
    deadline: Instant,
}

impl Clock {
    /// A request that starts now.
    pub fn start(content_idle: Duration, request_timeout: Duration) -> Self {
        let now = Instant::now();
        Clock {
            content_idle,
            last_content: now,
            request_timeout,
            deadline: now + request_timeout,
        }
    }

    /// The next attempt of the same request: the content clock restarts,
    /// the deadline stays.
    pub fn restart_attempt(&mut self) {
        self.last_content = Instant::now();
    }

    pub fn saw_content(&mut self) {
        self.last_content = Instant::now();
    }

    /// When the first of the two limits is reached.
    pub fn expires_at(&self) -> Instant {
        (self.last_content + self.content_idle).min(self.deadline)
    }

    /// The request's deadline.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// The error of the limit reached at `expires_at`.
    pub fn expired(&self, provider: &str) -> ProviderError {
        if self.deadline <= self.last_content + self.content_idle {
            self.request_timed_out(provider)
        } else {
            ProviderError::ContentIdle {
                provider: provider.to_string(),
                seconds: seconds(self.content_idle),
            }
        }
    }

    pub fn request_timed_out(&self, provider: &str) -> ProviderError {
        ProviderError::RequestTimeout {
            provider: provider.to_string(),
            seconds: seconds(self.request_timeout),
        }
    }
}

/// Whole seconds for messages, at least 1.
fn seconds(d: Duration) -> u64 {
    d.as_secs().max(1)
}

struct Watch {
    label: String,
    inner: ReplyStream,
    clock: Clock,
    limit_tokens: u32,
    cutoff_bytes: u64,
    output_bytes: u64,
    /// The error to hand out after the event that passed the limit.
    pending: Option<ProviderError>,
    done: bool,
}

impl Watch {
    /// Ends the stream and lets go of the connection at once.
    fn stop(mut self) -> Self {
        self.done = true;
        self.inner = stream::empty().boxed();
        self
    }
}

/// Text, reasoning or a tool call: what resets the content-idle clock.
/// Usage and finish reasons do not (a server repeating them forever says
/// nothing).
fn is_content(event: &StreamEvent) -> bool {
    !matches!(event, StreamEvent::Usage(_) | StreamEvent::Finished(_))
}

/// Bytes of output an event carries.
fn output_bytes(event: &StreamEvent) -> u64 {
    let n = match event {
        StreamEvent::TextDelta(t) | StreamEvent::ReasoningDelta(t) => t.len(),
        StreamEvent::ToolCallDelta { arguments, .. } => arguments.len(),
        StreamEvent::ToolCallStart { id, name, .. } => {
            id.as_ref().map_or(0, String::len) + name.as_ref().map_or(0, String::len)
        }
        StreamEvent::Usage(_) | StreamEvent::Finished(_) => 0,
    };
    n as u64
}

/// Wraps `inner`; see the module comment. Output is counted as text,
/// reasoning and tool-call bytes, a token taken as
/// [`BYTES_PER_TOKEN`] bytes, with slack ([`output_cutoff_bytes`]). The
/// event that passes the limit is still handed out, then the error.
pub(crate) fn watch(
    label: &str,
    inner: ReplyStream,
    clock: Clock,
    limit_tokens: u32,
) -> ReplyStream {
    let state = Watch {
        label: label.to_string(),
        inner,
        clock,
        limit_tokens,
        cutoff_bytes: output_cutoff_bytes(limit_tokens),
        output_bytes: 0,
        pending: None,
        done: false,
    };
    stream::unfold(state, |mut st| async move {
        if st.done {
            return None;
        }
        if let Some(e) = st.pending.take() {
            return Some((Err(e), st.stop()));
        }
        let next = tokio::select! {
            biased;
            next = st.inner.next() => next,
            _ = tokio::time::sleep_until(st.clock.expires_at()) => {
                let e = st.clock.expired(&st.label);
                return Some((Err(e), st.stop()));
            }
        };
        match next {
            None => None,
            Some(Err(e)) => Some((Err(e), st.stop())),
            Some(Ok(event)) => {
                if is_content(&event) {
                    st.clock.saw_content();
                }
                st.output_bytes += output_bytes(&event);
                if st.output_bytes > st.cutoff_bytes {
                    st.pending = Some(ProviderError::OutputLimit {
                        provider: st.label.clone(),
                        limit: st.limit_tokens,
                        estimated: st.output_bytes / BYTES_PER_TOKEN,
                    });
                }
                Some((Ok(event), st))
            }
        }
    })
    // Callers may poll again after the end.
    .fuse()
    .boxed()
}
