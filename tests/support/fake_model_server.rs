//! A scriptable fake model server for integration tests: plain HTTP/1.1 on
//! `127.0.0.1:0`, built on tokio's `TcpListener`.
//!
//! Every `POST` is recorded (method, path, headers, body) and answered
//! with the next [`Reply`] of a queue, in order; when the queue is empty
//! the answer is a 500 saying so. Other requests (a client asking
//! `GET /props` for the context window) are kept apart: answered by
//! [`FakeModelServer::route`] or 404, listed in [`FakeModelServer::lookups`]. Each connection serves one request and
//! then closes (`Connection: close`). A [`FakeModelServer::guard`] may
//! refuse a `POST` (one too large for the model's context, say) before
//! the queue is used.
//!
//! ```ignore
//! let server = FakeModelServer::start().await;
//! server.enqueue(Reply::sse(sse::openai_text("Hello")));          // request 1
//! server.enqueue(Reply::status(429).header("retry-after", "0"));  // request 2
//! server.enqueue(
//!     Reply::sse_chunks(["data: {...}\n\n"])                       // request 3
//!         .delay(Duration::from_millis(50))
//!         .drop_connection(),
//! );
//! // point a provider at server.openai_base_url() (…/v1) or
//! // server.anthropic_base_url(), run it, then:
//! let req = &server.requests()[0];
//! assert_eq!(req.path, "/v1/chat/completions");
//! assert_eq!(req.header("authorization"), Some("Bearer k"));
//! assert_eq!(req.json()["stream"], true);
//! ```
//!
//! A [`Reply`] is a status, headers and a body made of parts: bytes
//! ([`Reply::chunk`]), pauses ([`Reply::delay`]) and an abrupt end
//! ([`Reply::drop_connection`]: the socket closes without finishing the
//! body). The body is framed by [`Framing`]: `Chunked` (default for SSE;
//! each byte part is one HTTP chunk, so a drop is visible to the client as
//! a truncated body), `ContentLength` (default for JSON/text/status
//! replies; the length counts every byte part), or `Close` (the body ends
//! when the connection closes, so a drop looks like a clean end).
//!
//! While a reply pauses, the server watches the socket: a client that
//! closes the connection (a cancelled request) is counted in
//! [`FakeModelServer::client_aborts`].
//!
//! [`sse`] builds whole SSE bodies in both dialects (text replies, tool
//! calls) for tests that script whole sessions.
//!
//! Requests must carry their body with `Content-Length` (reqwest does for
//! JSON bodies); chunked request bodies are not supported.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// One recorded request.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    /// The request target, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Header names lower-cased, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RecordedRequest {
    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON (`Value::Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// How a reply's body is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    Chunked,
    ContentLength,
    Close,
}

/// A piece of a reply body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Bytes(Vec<u8>),
    Delay(Duration),
    /// Close the socket now, without finishing the body.
    Drop,
    /// Wait here until the gate's count of requests has arrived (or it
    /// gives up; see [`Gate`]).
    Gate(Arc<Gate>),
    /// Wait here until the test says go (see [`Reply::held`]).
    Hold(Arc<Hold>),
}

/// A pause that lasts until the test releases it: a reply that must still
/// be under way when something else happens, without guessing how long
/// that takes.
#[derive(Debug, Default)]
pub struct Hold(Notify);

impl Hold {
    pub fn new() -> Arc<Self> {
        Arc::new(Hold::default())
    }

    /// Lets the held reply go on (now, or as soon as it gets there).
    pub fn release(&self) {
        self.0.notify_one();
    }
}

impl PartialEq for Hold {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for Hold {}

/// Holds replies until `expected` of them wait at once: replies that pass
/// it were requested at overlapping times. If the requests do not
/// overlap, it gives up after a bound, so a test fails on
/// [`Gate::all_met`] rather than hanging.
pub struct Gate {
    expected: usize,
    arrived: Mutex<usize>,
    met: std::sync::atomic::AtomicBool,
    notify: tokio::sync::Notify,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("expected", &self.expected)
            .finish()
    }
}

impl PartialEq for Gate {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for Gate {}

impl Gate {
    /// A gate for `expected` overlapping requests.
    pub fn new(expected: usize) -> Arc<Self> {
        Arc::new(Gate {
            expected,
            arrived: Mutex::new(0),
            met: std::sync::atomic::AtomicBool::new(false),
            notify: tokio::sync::Notify::new(),
        })
    }

    /// Whether all `expected` requests were waiting at the same time.
    pub fn all_met(&self) -> bool {
        self.met.load(Ordering::SeqCst)
    }

    async fn pass(&self) {
        let notified = self.notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        {
            let mut arrived = lock(&self.arrived);
            *arrived += 1;
            if *arrived >= self.expected {
                self.met.store(true, Ordering::SeqCst);
                self.notify.notify_waiters();
                return;
            }
        }
        // The bound only keeps a failing test from hanging.
        let _ = tokio::time::timeout(Duration::from_secs(60), notified).await;
    }
}

/// One scripted response.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub parts: Vec<Part>,
    pub framing: Framing,
}

impl Reply {
    /// A status with an empty body.
    pub fn status(status: u16) -> Self {
        Reply {
            status,
            headers: Vec::new(),
            parts: Vec::new(),
            framing: Framing::ContentLength,
        }
    }

    /// A 200 event stream sent as one chunk.
    pub fn sse(body: impl Into<String>) -> Self {
        Self::sse_chunks([body.into()])
    }

    /// A 200 event stream sent as these chunks (one HTTP chunk each).
    pub fn sse_chunks<I, S>(chunks: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut r = Reply {
            status: 200,
            headers: vec![
                ("content-type".into(), "text/event-stream".into()),
                ("cache-control".into(), "no-cache".into()),
            ],
            parts: Vec::new(),
            framing: Framing::Chunked,
        };
        for c in chunks {
            r.parts.push(Part::Bytes(c.into().into_bytes()));
        }
        r
    }

    /// A JSON body.
    pub fn json(status: u16, body: &Value) -> Self {
        Self::status(status)
            .header("content-type", "application/json")
            .chunk(body.to_string())
    }

    /// A plain-text body.
    pub fn text(status: u16, body: &str) -> Self {
        Self::status(status)
            .header("content-type", "text/plain; charset=utf-8")
            .chunk(body)
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Appends body bytes (one HTTP chunk when chunked).
    pub fn chunk(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.parts.push(Part::Bytes(bytes.into()));
        self
    }

    /// Appends a pause.
    /// Pauses here until `hold` is released.
    pub fn held(mut self, hold: &Arc<Hold>) -> Self {
        self.parts.push(Part::Hold(hold.clone()));
        self
    }

    /// Holds the body until `gate` has seen all its requests.
    pub fn gated(mut self, gate: &Arc<Gate>) -> Self {
        self.parts.insert(0, Part::Gate(gate.clone()));
        self
    }

    pub fn delay(mut self, d: Duration) -> Self {
        self.parts.push(Part::Delay(d));
        self
    }

    /// Ends the reply by closing the socket mid-body.
    pub fn drop_connection(mut self) -> Self {
        self.parts.push(Part::Drop);
        self
    }

    pub fn framing(mut self, framing: Framing) -> Self {
        self.framing = framing;
        self
    }
}

#[derive(Default)]
struct Shared {
    queue: Mutex<VecDeque<Reply>>,
    /// Fixed replies by request path for requests other than `POST`.
    routes: Mutex<Vec<(String, Reply)>>,
    /// Requests other than `POST` (a client asking `GET /props` …).
    lookups: Mutex<Vec<RecordedRequest>>,
    requests: Mutex<Vec<RecordedRequest>>,
    aborts: AtomicUsize,
    changed: Notify,
    /// Answers a `POST` it returns a reply for, instead of the queue.
    guard: Mutex<Option<Guard>>,
}

/// See [`FakeModelServer::guard`].
type Guard = Arc<dyn Fn(&RecordedRequest) -> Option<Reply> + Send + Sync>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The server; it stops when dropped.
pub struct FakeModelServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeModelServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeModelServer {
    /// Binds `127.0.0.1:0` and starts serving (needs a tokio runtime).
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared::default());
        let s = shared.clone();
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let s = s.clone();
                tokio::spawn(async move { serve(socket, s).await });
            }
        });
        FakeModelServer { addr, shared, task }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A base URL in the OpenAI convention (`…/v1`).
    pub fn openai_base_url(&self) -> String {
        format!("{}/v1", self.url())
    }

    /// A base URL in the Anthropic convention (no `/v1`).
    pub fn anthropic_base_url(&self) -> String {
        self.url()
    }

    /// Queues the reply to the next unanswered request.
    pub fn enqueue(&self, reply: Reply) {
        lock(&self.shared.queue).push_back(reply);
    }

    /// Answers every request other than `POST` for `path` (the target
    /// without its query) with `reply`, every time: `GET /props` and the
    /// like. Such requests leave the queue alone; one without a route is
    /// answered 404.
    pub fn route(&self, path: &str, reply: Reply) {
        lock(&self.shared.routes).push((path.to_string(), reply));
    }

    /// Looks at every `POST` first: a reply `check` returns answers it
    /// (and leaves the queue alone), as a server refusing a request it
    /// cannot take would; `None` lets the queue answer. The request is
    /// recorded either way.
    pub fn guard(&self, check: impl Fn(&RecordedRequest) -> Option<Reply> + Send + Sync + 'static) {
        *lock(&self.shared.guard) = Some(Arc::new(check));
    }

    /// Requests other than `POST` so far, in arrival order (they are not
    /// among [`Self::requests`]).
    pub fn lookups(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.lookups).clone()
    }

    pub fn enqueue_all(&self, replies: impl IntoIterator<Item = Reply>) {
        lock(&self.shared.queue).extend(replies);
    }

    /// Replies not yet used.
    pub fn pending_replies(&self) -> usize {
        lock(&self.shared.queue).len()
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    pub fn request_count(&self) -> usize {
        lock(&self.shared.requests).len()
    }

    /// Replies cut short because the client closed the connection.
    pub fn client_aborts(&self) -> usize {
        self.shared.aborts.load(Ordering::SeqCst)
    }

    /// Waits until `n` requests have arrived; false on timeout.
    pub async fn wait_for_requests(&self, n: usize, timeout: Duration) -> bool {
        self.wait_until(timeout, || self.request_count() >= n).await
    }

    /// Waits until `n` client aborts were seen; false on timeout.
    pub async fn wait_for_client_aborts(&self, n: usize, timeout: Duration) -> bool {
        self.wait_until(timeout, || self.client_aborts() >= n).await
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

/// Reads one request head and body; `None` when the client went away.
async fn read_request(socket: &mut TcpStream) -> Option<RecordedRequest> {
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
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_string();
    let path = request_line.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
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
    Some(RecordedRequest {
        method,
        path,
        headers,
        body,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

async fn serve(mut socket: TcpStream, shared: Arc<Shared>) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    if request.method != "POST" {
        let target = request.path.split('?').next().unwrap_or_default();
        let reply = lock(&shared.routes)
            .iter()
            .find(|(path, _)| path == target)
            .map(|(_, reply)| reply.clone())
            .unwrap_or_else(|| Reply::json(404, &serde_json::json!({"error": "not found"})));
        lock(&shared.lookups).push(request);
        shared.changed.notify_waiters();
        if write_reply(&mut socket, &reply).await.is_err() {
            shared.aborts.fetch_add(1, Ordering::SeqCst);
            shared.changed.notify_waiters();
        }
        return;
    }
    let guard = lock(&shared.guard).clone();
    let refusal = guard.and_then(|check| check(&request));
    let reply = refusal.or_else(|| lock(&shared.queue).pop_front());
    lock(&shared.requests).push(request);
    shared.changed.notify_waiters();
    let reply = reply.unwrap_or_else(|| {
        Reply::json(
            500,
            &serde_json::json!({"error": {"message": "fake model server: no scripted reply left"}}),
        )
    });
    if write_reply(&mut socket, &reply).await.is_err() {
        shared.aborts.fetch_add(1, Ordering::SeqCst);
        shared.changed.notify_waiters();
    }
}

/// Why a reply stopped early.
/// The client closed the connection while a reply was being written.
pub struct ClientGone;

async fn write_reply(socket: &mut TcpStream, reply: &Reply) -> Result<(), ClientGone> {
    let mut head = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    match reply.framing {
        Framing::Chunked => head.push_str("transfer-encoding: chunked\r\n"),
        Framing::ContentLength => {
            let len: usize = reply
                .parts
                .iter()
                .map(|p| match p {
                    Part::Bytes(b) => b.len(),
                    _ => 0,
                })
                .sum();
            head.push_str(&format!("content-length: {len}\r\n"));
        }
        Framing::Close => {}
    }
    head.push_str("connection: close\r\n\r\n");
    send(socket, head.as_bytes()).await?;

    for part in &reply.parts {
        match part {
            Part::Bytes(b) if b.is_empty() => {}
            Part::Bytes(b) => {
                if reply.framing == Framing::Chunked {
                    let mut framed = format!("{:x}\r\n", b.len()).into_bytes();
                    framed.extend_from_slice(b);
                    framed.extend_from_slice(b"\r\n");
                    send(socket, &framed).await?;
                } else {
                    send(socket, b).await?;
                }
            }
            Part::Delay(d) => pause(socket, *d).await?,
            Part::Gate(gate) => gate.pass().await,
            Part::Hold(hold) => hold.0.notified().await,
            // Closing mid-body: with chunked framing the client sees a
            // truncated body.
            Part::Drop => return Ok(()),
        }
    }
    if reply.framing == Framing::Chunked {
        send(socket, b"0\r\n\r\n").await?;
    }
    let _ = socket.shutdown().await;
    // Let the client read everything before the socket goes away.
    let _ = tokio::time::timeout(Duration::from_secs(5), drain(socket)).await;
    Ok(())
}

pub async fn send(socket: &mut TcpStream, bytes: &[u8]) -> Result<(), ClientGone> {
    socket.write_all(bytes).await.map_err(|_| ClientGone)?;
    socket.flush().await.map_err(|_| ClientGone)
}

/// Sleeps for `d`, noticing a client that closes the connection.
pub async fn pause(socket: &mut TcpStream, d: Duration) -> Result<(), ClientGone> {
    let sleep = tokio::time::sleep(d);
    tokio::pin!(sleep);
    let mut buf = [0u8; 1024];
    loop {
        tokio::select! {
            _ = &mut sleep => return Ok(()),
            read = socket.read(&mut buf) => match read {
                Ok(0) | Err(_) => return Err(ClientGone),
                Ok(_) => {}
            },
        }
    }
}

/// Reads until the client closes its side.
async fn drain(socket: &mut TcpStream) {
    let mut buf = [0u8; 1024];
    while let Ok(n) = socket.read(&mut buf).await {
        if n == 0 {
            break;
        }
    }
}

/// The `role: tool` messages of an OpenAI request, as `(tool_call_id, content)`.
pub fn openai_tool_results(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap_or_default().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The content of the tool result answering `call_id` in an OpenAI request.
pub fn openai_tool_result(body: &Value, call_id: &str) -> String {
    openai_tool_results(body)
        .into_iter()
        .find(|(id, _)| id == call_id)
        .map(|(_, c)| c)
        .unwrap_or_else(|| panic!("no tool result for {call_id} in {body:#}"))
}

/// Whole SSE bodies in both dialects.
pub mod sse {
    use serde_json::{Value, json};

    fn event(data: &Value) -> String {
        format!("data: {data}\n\n")
    }

    fn named(name: &str, data: &Value) -> String {
        format!("event: {name}\ndata: {data}\n\n")
    }

    fn chunk(delta: Value, finish: Option<&str>) -> Value {
        json!({
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "model": "fake",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        })
    }

    fn pieces(text: &str) -> Vec<String> {
        let words: Vec<&str> = text.split_inclusive(' ').collect();
        words.chunks(2).map(|w| w.concat()).collect()
    }

    /// Chat Completions: `text` in a few deltas, `stop`, usage, `[DONE]`.
    pub fn openai_text(text: &str) -> String {
        let mut out = event(&chunk(json!({"role": "assistant", "content": ""}), None));
        for p in pieces(text) {
            out += &event(&chunk(json!({"content": p}), None));
        }
        out += &event(&chunk(json!({}), Some("stop")));
        out +=
            &event(&json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}));
        out += "data: [DONE]\n\n";
        out
    }

    /// Chat Completions: optional text, then each `(id, name, arguments)`
    /// call with its arguments split in two deltas, `tool_calls`, `[DONE]`.
    pub fn openai_tool_calls(text: &str, calls: &[(&str, &str, &str)]) -> String {
        let mut out = event(&chunk(json!({"role": "assistant", "content": null}), None));
        for p in pieces(text) {
            out += &event(&chunk(json!({"content": p}), None));
        }
        for (i, (id, name, args)) in calls.iter().enumerate() {
            let cut = args
                .char_indices()
                .nth(args.chars().count() / 2)
                .map_or(0, |(b, _)| b);
            out += &event(&chunk(
                json!({"tool_calls": [{"index": i, "id": id, "type": "function",
                    "function": {"name": name, "arguments": &args[..cut]}}]}),
                None,
            ));
            out += &event(&chunk(
                json!({"tool_calls": [{"index": i, "function": {"arguments": &args[cut..]}}]}),
                None,
            ));
        }
        out += &event(&chunk(json!({}), Some("tool_calls")));
        out += "data: [DONE]\n\n";
        out
    }

    fn anthropic_start() -> String {
        named(
            "message_start",
            &json!({"type": "message_start", "message": {"id": "msg_fake", "type": "message",
                "role": "assistant", "content": [], "model": "fake", "stop_reason": null,
                "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        )
    }

    fn anthropic_end(stop: &str) -> String {
        named(
            "message_delta",
            &json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                "usage": {"output_tokens": 5}}),
        ) + &named("message_stop", &json!({"type": "message_stop"}))
    }

    fn anthropic_text_block(index: usize, text: &str) -> String {
        let mut out = named(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index,
                "content_block": {"type": "text", "text": ""}}),
        );
        for p in pieces(text) {
            out += &named(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": index,
                    "delta": {"type": "text_delta", "text": p}}),
            );
        }
        out + &named(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        )
    }

    /// Messages: one text block, `end_turn`, `message_stop`.
    pub fn anthropic_text(text: &str) -> String {
        anthropic_start() + &anthropic_text_block(0, text) + &anthropic_end("end_turn")
    }

    /// Messages: an optional text block, then a `tool_use` block per
    /// `(id, name, arguments)` with the input split in two deltas.
    pub fn anthropic_tool_uses(text: &str, calls: &[(&str, &str, &str)]) -> String {
        let mut out = anthropic_start();
        let mut index = 0;
        if !text.is_empty() {
            out += &anthropic_text_block(0, text);
            index = 1;
        }
        for (id, name, args) in calls {
            let cut = args
                .char_indices()
                .nth(args.chars().count() / 2)
                .map_or(0, |(b, _)| b);
            out += &named(
                "content_block_start",
                &json!({"type": "content_block_start", "index": index,
                    "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
            );
            for part in [&args[..cut], &args[cut..]] {
                out += &named(
                    "content_block_delta",
                    &json!({"type": "content_block_delta", "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": part}}),
                );
            }
            out += &named(
                "content_block_stop",
                &json!({"type": "content_block_stop", "index": index}),
            );
            index += 1;
        }
        out + &anthropic_end("tool_use")
    }
}
