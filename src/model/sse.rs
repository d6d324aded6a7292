//! Server-sent events over a byte stream (framed by [`SseFramer`]), and
//! the shared loop that turns them into [`StreamEvent`]s through a
//! dialect's [`SseDialect`] parser.
//!
//! Leniency that both dialects share lives here:
//! - chunk boundaries anywhere (mid-line, mid-UTF-8 character);
//! - a last event that the server closed without its blank line is still
//!   delivered; if it cannot be parsed it counts as a broken-off stream
//!   rather than as an invalid payload;
//! - a stream that ends (cleanly or not) after the finish reason but
//!   without the dialect's end marker counts as complete;
//! - a stream that ends before that is [`ProviderError::Disconnected`];
//! - one event bigger than the cap (see `limits::max_event_bytes`) is a
//!   protocol error as soon as the cap is passed, not after buffering it.

use std::collections::VecDeque;
use std::pin::Pin;
use std::time::Duration;

use futures_util::stream::{self, BoxStream, Stream, StreamExt};

use super::limits::MAX_EVENT_BYTES;
use super::{ProviderError, ReplyStream, StreamEvent};

pub use super::sse_frame::{FrameError, Sniff, SseEvent, SseFramer, sniff};

/// Why the byte stream under an SSE stream failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ByteError {
    /// No bytes arrived for this long.
    Idle(Duration),
    /// The connection failed (reset, truncated chunked body …).
    Transport(String),
}

/// What went wrong below the dialect parser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseError {
    Idle(Duration),
    Transport(String),
    /// Not UTF-8, or not SSE.
    Invalid(String),
    /// One event passed this many bytes.
    TooLarge(usize),
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

/// Frames a byte stream into SSE events of at most `max_event_bytes`
/// each. The stream ends after the first error.
pub fn sse_events<S, B>(
    bytes: S,
    max_event_bytes: usize,
) -> BoxStream<'static, Result<SseEvent, SseError>>
where
    S: Stream<Item = Result<B, ByteError>> + Send + 'static,
    B: AsRef<[u8]> + Send + 'static,
{
    struct State<S> {
        bytes: Pin<Box<S>>,
        framer: SseFramer,
        ready: VecDeque<SseEvent>,
        ended: bool,
    }
    let state = State {
        bytes: Box::pin(bytes),
        framer: SseFramer::new(max_event_bytes),
        ready: VecDeque::new(),
        ended: false,
    };
    stream::unfold(state, |mut st| async move {
        loop {
            if let Some(event) = st.ready.pop_front() {
                return Some((Ok(event), st));
            }
            if st.ended {
                return None;
            }
            let pushed = match st.bytes.next().await {
                Some(Ok(chunk)) => st.framer.push(chunk.as_ref(), &mut st.ready),
                Some(Err(e)) => {
                    st.ended = true;
                    return Some((
                        Err(match e {
                            ByteError::Idle(d) => SseError::Idle(d),
                            ByteError::Transport(m) => SseError::Transport(m),
                        }),
                        st,
                    ));
                }
                None => {
                    st.ended = true;
                    st.framer.finish(&mut st.ready)
                }
            };
            if let Err(e) = pushed {
                st.ended = true;
                st.ready.clear();
                let e = match e {
                    FrameError::NotUtf8(m) => {
                        SseError::Invalid(format!("the stream is not UTF-8: {m}"))
                    }
                    FrameError::TooLarge(max) => SseError::TooLarge(max),
                };
                return Some((Err(e), st));
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
/// stream yields at most one error, then ends. One event may hold
/// [`MAX_EVENT_BYTES`].
pub fn decode<S, B, P>(label: &str, bytes: S, parser: P) -> ReplyStream
where
    S: Stream<Item = Result<B, ByteError>> + Send + 'static,
    B: AsRef<[u8]> + Send + 'static,
    P: SseDialect,
{
    decode_capped(label, bytes, parser, MAX_EVENT_BYTES)
}

/// [`decode`] with events of at most `max_event_bytes`.
pub fn decode_capped<S, B, P>(
    label: &str,
    bytes: S,
    parser: P,
    max_event_bytes: usize,
) -> ReplyStream
where
    S: Stream<Item = Result<B, ByteError>> + Send + 'static,
    B: AsRef<[u8]> + Send + 'static,
    P: SseDialect,
{
    let state = DecodeState {
        label: label.to_string(),
        events: sse_events(bytes, max_event_bytes),
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
                        SseError::TooLarge(max) => ProviderError::Protocol {
                            provider: label,
                            message: format!(
                                "one event of the stream passed {}, the most one event may hold \
                                 (16 MB, less for smaller output limits); stopped reading",
                                megabytes(max)
                            ),
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

/// `2.3 MB`, `16 MB`.
fn megabytes(bytes: usize) -> String {
    let mb = bytes as f64 / f64::from(1 << 20);
    if mb.fract() == 0.0 {
        format!("{mb:.0} MB")
    } else {
        format!("{mb:.1} MB")
    }
}
