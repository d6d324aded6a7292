//! Server-sent-event framing over a byte stream (via `eventsource-stream`),
//! and the shared loop that turns SSE events into [`StreamEvent`]s through a
//! dialect's [`SseDialect`] parser.
//!
//! Leniency that both dialects share lives here:
//! - chunk boundaries anywhere (mid-line, mid-UTF-8 character);
//! - a last event that the server closed without its blank line is still
//!   delivered; if it cannot be parsed it counts as a broken-off stream
//!   rather than as an invalid payload;
//! - a stream that ends (cleanly or not) after the finish reason but
//!   without the dialect's end marker counts as complete;
//! - a stream that ends before that is [`ProviderError::Disconnected`].

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use eventsource_stream::{EventStreamError, Eventsource};
use futures_util::stream::{self, BoxStream, Stream, StreamExt};

use super::{ProviderError, ReplyStream, StreamEvent};

/// Why the byte stream under an SSE stream failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ByteError {
    /// No bytes arrived for this long.
    Idle(Duration),
    /// The connection failed (reset, truncated chunked body …).
    Transport(String),
}

/// One SSE event as the dialect parsers see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field; `message` when absent.
    pub event: String,
    pub data: String,
    /// True when the server closed the stream before terminating this
    /// event with a blank line: its data may be cut short.
    pub at_eof: bool,
}

/// What went wrong below the dialect parser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseError {
    Idle(Duration),
    Transport(String),
    /// Not UTF-8, or not SSE.
    Invalid(String),
}

/// What a dialect parser says after one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// The dialect's end marker (`[DONE]`, `message_stop`): stop reading.
    Done,
}

/// A dialect's stateful event parser.
pub trait SseDialect: Send + 'static {
    /// Parses one event, appending what it means to `out`.
    fn on_event(
        &mut self,
        event: &SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Flow, ProviderError>;
}

/// A byte chunk or the synthetic terminator appended at a clean end.
enum Chunk<B> {
    Data(B),
    Eof,
}

impl<B: AsRef<[u8]>> AsRef<[u8]> for Chunk<B> {
    fn as_ref(&self) -> &[u8] {
        match self {
            Chunk::Data(b) => b.as_ref(),
            Chunk::Eof => b"\n\n",
        }
    }
}

/// Appends `\n\n` after a clean end so that an unterminated last event is
/// dispatched, and raises `eof` when it does.
struct Terminated<S> {
    inner: S,
    eof: Arc<AtomicBool>,
    done: bool,
}

impl<S, B> Stream for Terminated<S>
where
    S: Stream<Item = Result<B, ByteError>> + Unpin,
{
    type Item = Result<Chunk<B>, ByteError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.done {
            return Poll::Ready(None);
        }
        match self.inner.poll_next_unpin(cx) {
            Poll::Ready(Some(Ok(b))) => Poll::Ready(Some(Ok(Chunk::Data(b)))),
            Poll::Ready(Some(Err(e))) => {
                self.done = true;
                Poll::Ready(Some(Err(e)))
            }
            Poll::Ready(None) => {
                self.done = true;
                self.eof.store(true, Ordering::SeqCst);
                Poll::Ready(Some(Ok(Chunk::Eof)))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Frames a byte stream into SSE events. The stream ends after the first
/// error.
pub fn sse_events<S, B>(bytes: S) -> BoxStream<'static, Result<SseEvent, SseError>>
where
    S: Stream<Item = Result<B, ByteError>> + Send + 'static,
    B: AsRef<[u8]> + Send + 'static,
{
    let eof = Arc::new(AtomicBool::new(false));
    let terminated = Terminated {
        inner: Box::pin(bytes),
        eof: eof.clone(),
        done: false,
    };
    let events = terminated.eventsource();
    stream::unfold(Some(events), move |state| {
        let eof = eof.clone();
        async move {
            let mut events = state?;
            match events.next().await? {
                Ok(e) => {
                    // eventsource-stream hands out every event already
                    // complete in its buffer before it polls for more
                    // bytes, so an event seen after the terminator was
                    // completed by it.
                    let at_eof = eof.load(Ordering::SeqCst);
                    let event = SseEvent {
                        event: e.event,
                        data: e.data,
                        at_eof,
                    };
                    Some((Ok(event), Some(events)))
                }
                Err(EventStreamError::Transport(ByteError::Idle(d))) => {
                    Some((Err(SseError::Idle(d)), None))
                }
                Err(EventStreamError::Transport(ByteError::Transport(m))) => {
                    Some((Err(SseError::Transport(m)), None))
                }
                Err(EventStreamError::Utf8(e)) => Some((
                    Err(SseError::Invalid(format!("the stream is not UTF-8: {e}"))),
                    None,
                )),
                Err(EventStreamError::Parser(e)) => Some((
                    Err(SseError::Invalid(format!(
                        "not a server-sent event stream: {e:?}"
                    ))),
                    None,
                )),
            }
        }
    })
    .boxed()
}

struct DecodeState<P> {
    label: String,
    events: BoxStream<'static, Result<SseEvent, SseError>>,
    parser: P,
    queue: VecDeque<StreamEvent>,
    seen_finish: bool,
    ended: bool,
}

/// Decodes a byte stream with a dialect parser into a [`ReplyStream`]. The
/// stream yields at most one error, then ends.
pub fn decode<S, B, P>(label: &str, bytes: S, parser: P) -> ReplyStream
where
    S: Stream<Item = Result<B, ByteError>> + Send + 'static,
    B: AsRef<[u8]> + Send + 'static,
    P: SseDialect,
{
    let state = DecodeState {
        label: label.to_string(),
        events: sse_events(bytes),
        parser,
        queue: VecDeque::new(),
        seen_finish: false,
        ended: false,
    };
    stream::unfold(state, |mut st| async move {
        loop {
            if let Some(ev) = st.queue.pop_front() {
                if matches!(ev, StreamEvent::Finished(_)) {
                    st.seen_finish = true;
                }
                return Some((Ok(ev), st));
            }
            if st.ended {
                return None;
            }
            let item = st.events.next().await;
            match item {
                Some(Ok(event)) => match st.parser.on_event(&event, &mut st.queue) {
                    Ok(Flow::Continue) => {}
                    Ok(Flow::Done) => st.ended = true,
                    Err(e) => {
                        st.ended = true;
                        st.queue.clear();
                        let e = match e {
                            ProviderError::Protocol { provider, message } if event.at_eof => {
                                ProviderError::Disconnected {
                                    provider,
                                    message: format!(
                                        "the connection closed in the middle of an event ({message})"
                                    ),
                                }
                            }
                            other => other,
                        };
                        return Some((Err(e), st));
                    }
                },
                Some(Err(err)) => {
                    st.ended = true;
                    let label = st.label.clone();
                    let e = match err {
                        SseError::Idle(d) => ProviderError::IdleTimeout {
                            provider: label,
                            seconds: d.as_secs().max(1),
                        },
                        // A break after the finish reason loses nothing.
                        SseError::Transport(_) if st.seen_finish => return None,
                        SseError::Transport(m) => ProviderError::Disconnected {
                            provider: label,
                            message: m,
                        },
                        SseError::Invalid(m) => ProviderError::Protocol {
                            provider: label,
                            message: m,
                        },
                    };
                    return Some((Err(e), st));
                }
                None => {
                    st.ended = true;
                    if st.seen_finish {
                        return None;
                    }
                    let e = ProviderError::Disconnected {
                        provider: st.label.clone(),
                        message: "the server closed the stream before the reply was complete"
                            .to_string(),
                    };
                    return Some((Err(e), st));
                }
            }
        }
    })
    .boxed()
}
