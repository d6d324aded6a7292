//! A model server that streams one long reply as Chat Completions deltas,
//! each written on its own with an optional gap, and records when the
//! stream began and ended: the other side of the TUI's end-to-end streaming
//! checks and bench (TUI-2). Plain threads and blocking sockets, so the
//! timing is the server's own and not a runtime's.

use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, Default)]
pub struct StreamTimes {
    /// The first delta was written.
    pub started: Option<Instant>,
    /// The last byte was written.
    pub finished: Option<Instant>,
}

pub struct StreamServer {
    addr: SocketAddr,
    times: Arc<Mutex<StreamTimes>>,
}

impl StreamServer {
    /// Answers every chat request with `deltas`, `gap` apart.
    pub fn start(deltas: Vec<String>, gap: Duration) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("local address");
        let times = Arc::new(Mutex::new(StreamTimes::default()));
        let shared = times.clone();
        let deltas = Arc::new(deltas);
        std::thread::spawn(move || {
            for socket in listener.incoming().flatten() {
                let deltas = deltas.clone();
                let times = shared.clone();
                std::thread::spawn(move || {
                    let _ = serve(socket, &deltas, gap, &times);
                });
            }
        });
        Self { addr, times }
    }

    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn times(&self) -> StreamTimes {
        *self.times.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn serve(
    socket: TcpStream,
    deltas: &[String],
    gap: Duration,
    times: &Mutex<StreamTimes>,
) -> std::io::Result<()> {
    socket.set_nodelay(true)?;
    let mut reader = BufReader::new(socket.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0usize;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let mut out = socket;
    if !request_line.contains("/chat/completions") {
        out.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")?;
        return Ok(());
    }
    out.write_all(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
    )?;
    let event = |delta: serde_json::Value, finish: Option<&str>| {
        let chunk = json!({
            "id": "chatcmpl-stream",
            "object": "chat.completion.chunk",
            "model": "stream",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        });
        format!("data: {chunk}\n\n")
    };
    times.lock().unwrap_or_else(|p| p.into_inner()).started = Some(Instant::now());
    out.write_all(event(json!({"role": "assistant", "content": ""}), None).as_bytes())?;
    for delta in deltas {
        out.write_all(event(json!({"content": delta}), None).as_bytes())?;
        if !gap.is_zero() {
            std::thread::sleep(gap);
        }
    }
    out.write_all(event(json!({}), Some("stop")).as_bytes())?;
    let usage =
        json!({"choices": [], "usage": {"prompt_tokens": 1000, "completion_tokens": deltas.len()}});
    out.write_all(format!("data: {usage}\n\ndata: [DONE]\n\n").as_bytes())?;
    out.flush()?;
    times.lock().unwrap_or_else(|p| p.into_inner()).finished = Some(Instant::now());
    Ok(())
}
