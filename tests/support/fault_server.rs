//! A model server that misbehaves in one way, for fault tests: plain
//! HTTP/1.1 on `127.0.0.1:0`, every request answered with the same
//! [`Fault`], generated on the fly (so it can be endless).
//!
//! Every request body is recorded; a client that closes its connection
//! while the server is still writing is counted in
//! [`FaultServer::client_aborts`], with the time it was noticed.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

// The socket helpers are the fake model server's: same writes, same
// noticing of a client that went away.
use super::fake_model_server::{ClientGone as Gone, pause, send as write};

/// The wire protocol the fault is spoken in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    OpenAi,
    Anthropic,
}

/// What kind of output an endless stream sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Text,
    Reasoning,
    /// One tool call whose arguments never end.
    ToolArguments,
}

/// How the server answers every request.
#[derive(Debug, Clone)]
pub enum Fault {
    /// Deltas of `delta_bytes` bytes each, as fast as the client reads,
    /// forever.
    Endless {
        wire: Wire,
        output: Output,
        delta_bytes: usize,
    },
    /// As fast as the client reads, forever: events of about `padding`
    /// bytes that carry one byte of text each (the rest is a field the
    /// client ignores), so the client is kept busy while the output grows
    /// too slowly to reach any limit (OpenAI dialect).
    Flood { padding: usize },
    /// Only SSE comments (`: ping`), one every `every`, forever.
    KeepAliveOnly { every: Duration },
    /// One small text delta every `every`, forever.
    SlowDeltas { wire: Wire, every: Duration },
    /// A first text delta, then only keep-alives every `every`, forever.
    DeltaThenKeepAlive { wire: Wire, every: Duration },
    /// A first text delta, then the same finish reason every `every`,
    /// forever, never the end marker (OpenAI dialect).
    RepeatedFinish { every: Duration },
    /// A 200 with this content type (none when `None`) and body.
    Body {
        content_type: Option<String>,
        body: Vec<u8>,
    },
    /// One text delta, then one event whose data line is `bytes` long
    /// (sent in 64 KB pieces), then the end of a normal reply.
    HugeEvent { wire: Wire, bytes: usize },
}

#[derive(Default)]
struct Shared {
    requests: Mutex<Vec<Value>>,
    aborts: Mutex<Vec<Instant>>,
    changed: Notify,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The server; it stops when dropped.
pub struct FaultServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FaultServer {
    /// Binds `127.0.0.1:0` and starts serving (needs a tokio runtime).
    pub async fn start(fault: Fault) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared::default());
        let s = shared.clone();
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let s = s.clone();
                let fault = fault.clone();
                tokio::spawn(async move { serve(socket, s, fault).await });
            }
        });
        FaultServer { addr, shared, task }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A base URL in the OpenAI convention (`…/v1`).
    pub fn openai_base_url(&self) -> String {
        format!("{}/v1", self.url())
    }

    /// The JSON bodies of every request so far.
    pub fn requests(&self) -> Vec<Value> {
        lock(&self.shared.requests).clone()
    }

    pub fn request_count(&self) -> usize {
        lock(&self.shared.requests).len()
    }

    /// When the server noticed each client that went away mid-reply.
    pub fn client_aborts(&self) -> Vec<Instant> {
        lock(&self.shared.aborts).clone()
    }

    /// Waits until `n` requests have arrived; false on timeout.
    pub async fn wait_for_requests(&self, n: usize, timeout: Duration) -> bool {
        self.wait_until(timeout, || self.request_count() >= n).await
    }

    /// Waits until `n` clients went away mid-reply; false on timeout.
    pub async fn wait_for_client_aborts(&self, n: usize, timeout: Duration) -> bool {
        self.wait_until(timeout, || self.client_aborts().len() >= n)
            .await
    }

    /// Checks `cond` each time the server notes a change; `timeout` only
    /// bounds a failure.
    async fn wait_until(&self, timeout: Duration, cond: impl Fn() -> bool) -> bool {
        let changes = async {
            loop {
                let notified = self.shared.changed.notified();
                if cond() {
                    return;
                }
                notified.await;
            }
        };
        tokio::time::timeout(timeout, changes).await.is_ok() || cond()
    }
}

/// Reads one request head and its `Content-Length` body; `Some(None)`
/// for a request other than `POST` (a context window lookup).
async fn read_request(socket: &mut TcpStream) -> Option<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    let head_end = loop {
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos;
        }
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    if !head.starts_with("post ") {
        return Some(None);
    }
    let length = head
        .lines()
        .filter_map(|l| l.strip_prefix("content-length:"))
        .find_map(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&tmp[..n]);
    }
    body.truncate(length);
    Some(Some(body))
}

async fn serve(mut socket: TcpStream, shared: Arc<Shared>, fault: Fault) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    // Only model requests misbehave; a lookup is told there is nothing.
    let Some(body) = request else {
        let _ = write(
            &mut socket,
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        )
        .await;
        return;
    };
    lock(&shared.requests).push(serde_json::from_slice(&body).unwrap_or(Value::Null));
    shared.changed.notify_waiters();
    if answer(&mut socket, &fault).await.is_err() {
        lock(&shared.aborts).push(Instant::now());
        shared.changed.notify_waiters();
    }
}

async fn answer(socket: &mut TcpStream, fault: &Fault) -> Result<(), Gone> {
    match fault {
        Fault::Body { content_type, body } => {
            let mut head = "HTTP/1.1 200 OK\r\n".to_string();
            if let Some(ct) = content_type {
                head.push_str(&format!("content-type: {ct}\r\n"));
            }
            head.push_str(&format!(
                "content-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            ));
            write(socket, head.as_bytes()).await?;
            write(socket, body).await?;
            let _ = socket.shutdown().await;
            drain(socket).await;
            Ok(())
        }
        Fault::Endless {
            wire,
            output,
            delta_bytes,
        } => {
            sse_head(socket).await?;
            chunk(socket, &start(*wire, *output)).await?;
            let one = delta(*wire, *output, &"x".repeat(*delta_bytes));
            // Batch deltas so that the server is never the bottleneck.
            let batch = one.repeat((64 * 1024 / one.len()).max(1));
            loop {
                chunk(socket, &batch).await?;
            }
        }
        Fault::Flood { padding } => {
            sse_head(socket).await?;
            chunk(socket, &start(Wire::OpenAi, Output::Text)).await?;
            let one = event(
                &json!({"choices": [{"index": 0, "delta": {"content": "x"}}],
                "pad": "p".repeat(*padding)}),
            );
            let batch = one.repeat((64 * 1024 / one.len()).max(1));
            loop {
                chunk(socket, &batch).await?;
            }
        }
        Fault::KeepAliveOnly { every } => {
            sse_head(socket).await?;
            loop {
                chunk(socket, ": ping\n\n").await?;
                pause(socket, *every).await?;
            }
        }
        Fault::SlowDeltas { wire, every } => {
            sse_head(socket).await?;
            chunk(socket, &start(*wire, Output::Text)).await?;
            loop {
                chunk(socket, &delta(*wire, Output::Text, "tick ")).await?;
                pause(socket, *every).await?;
            }
        }
        Fault::DeltaThenKeepAlive { wire, every } => {
            sse_head(socket).await?;
            chunk(socket, &start(*wire, Output::Text)).await?;
            chunk(socket, &delta(*wire, Output::Text, "partial answer")).await?;
            loop {
                pause(socket, *every).await?;
                chunk(socket, ": keep-alive\n\n").await?;
            }
        }
        Fault::RepeatedFinish { every } => {
            sse_head(socket).await?;
            chunk(socket, &start(Wire::OpenAi, Output::Text)).await?;
            chunk(socket, &delta(Wire::OpenAi, Output::Text, "done")).await?;
            let finish =
                event(&json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
            loop {
                pause(socket, *every).await?;
                chunk(socket, &finish).await?;
            }
        }
        Fault::HugeEvent { wire, bytes } => {
            sse_head(socket).await?;
            chunk(socket, &start(*wire, Output::Text)).await?;
            chunk(socket, &delta(*wire, Output::Text, "before ")).await?;
            let piece = "y".repeat(64 * 1024);
            let mut sent = 0;
            // A valid text delta, only very long.
            let open = match wire {
                Wire::OpenAi => "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"",
                Wire::Anthropic => {
                    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\""
                }
            };
            let close = match wire {
                Wire::OpenAi => "\"}}]}\n\n",
                Wire::Anthropic => "\"}}\n\n",
            };
            chunk(socket, open).await?;
            while sent < *bytes {
                let n = piece.len().min(*bytes - sent);
                chunk(socket, &piece[..n]).await?;
                sent += n;
            }
            chunk(socket, close).await?;
            chunk(socket, &end(*wire)).await?;
            write(socket, b"0\r\n\r\n").await?;
            let _ = socket.shutdown().await;
            drain(socket).await;
            Ok(())
        }
    }
}

async fn sse_head(socket: &mut TcpStream) -> Result<(), Gone> {
    write(
        socket,
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\
          transfer-encoding: chunked\r\nconnection: close\r\n\r\n",
    )
    .await
}

async fn chunk(socket: &mut TcpStream, text: &str) -> Result<(), Gone> {
    if text.is_empty() {
        return Ok(());
    }
    let mut framed = format!("{:x}\r\n", text.len()).into_bytes();
    framed.extend_from_slice(text.as_bytes());
    framed.extend_from_slice(b"\r\n");
    write(socket, &framed).await
}

async fn drain(socket: &mut TcpStream) {
    let mut buf = [0u8; 1024];
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        while let Ok(n) = socket.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
}

fn event(data: &Value) -> String {
    format!("data: {data}\n\n")
}

fn named(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// What comes before the first delta.
fn start(wire: Wire, output: Output) -> String {
    match wire {
        Wire::OpenAi => {
            let mut out = event(&json!({"choices": [{"index": 0,
                "delta": {"role": "assistant", "content": ""}}]}));
            if output == Output::ToolArguments {
                out += &event(&json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                    {"index": 0, "id": "call_1", "type": "function",
                     "function": {"name": "Read", "arguments": "{\"file_path\":\""}}]}}]}));
            }
            out
        }
        Wire::Anthropic => {
            let mut out = named(
                "message_start",
                &json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
                    "role": "assistant", "content": [], "model": "fault",
                    "usage": {"input_tokens": 1, "output_tokens": 1}}}),
            );
            let block = match output {
                Output::Text => json!({"type": "text", "text": ""}),
                Output::Reasoning => json!({"type": "thinking", "thinking": ""}),
                Output::ToolArguments => {
                    json!({"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}})
                }
            };
            out += &named(
                "content_block_start",
                &json!({"type": "content_block_start", "index": 0, "content_block": block}),
            );
            out
        }
    }
}

/// One delta carrying `text`.
fn delta(wire: Wire, output: Output, text: &str) -> String {
    match (wire, output) {
        (Wire::OpenAi, Output::Text) => {
            event(&json!({"choices": [{"index": 0, "delta": {"content": text}}]}))
        }
        (Wire::OpenAi, Output::Reasoning) => {
            event(&json!({"choices": [{"index": 0, "delta": {"reasoning_content": text}}]}))
        }
        (Wire::OpenAi, Output::ToolArguments) => event(&json!({"choices": [{"index": 0,
            "delta": {"tool_calls": [{"index": 0, "function": {"arguments": text}}]}}]})),
        (Wire::Anthropic, output) => {
            let delta = match output {
                Output::Text => json!({"type": "text_delta", "text": text}),
                Output::Reasoning => json!({"type": "thinking_delta", "thinking": text}),
                Output::ToolArguments => {
                    json!({"type": "input_json_delta", "partial_json": text})
                }
            };
            named(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": 0, "delta": delta}),
            )
        }
    }
}

/// The end of a normal text reply.
fn end(wire: Wire) -> String {
    match wire {
        Wire::OpenAi => {
            event(&json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
                + "data: [DONE]\n\n"
        }
        Wire::Anthropic => {
            named(
                "content_block_stop",
                &json!({"type": "content_block_stop", "index": 0}),
            ) + &named(
                "message_delta",
                &json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                    "usage": {"output_tokens": 5}}),
            ) + &named("message_stop", &json!({"type": "message_stop"}))
        }
    }
}
