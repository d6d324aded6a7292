//! The whole workload of an editor's turn through `zcode acp` against the
//! same turn in `zcode -p`: the real binary, a model server on 127.0.0.1
//! streaming one long Markdown reply in word-sized deltas as fast as it
//! can. Each process does the whole job (start, one session, the streamed
//! reply, the end); the figures are its wall time and CPU (user + system,
//! from the kernel at exit), and the CPU per KiB of reply, which should
//! stay flat as the reply grows. In ACP every delta is one `session/update`
//! line on stdout, read here as an editor would.
//!
//! `cargo bench --bench acp_stream` (sizes in KiB as arguments, default
//! 10 60 200).

#[allow(dead_code)]
#[path = "../tests/support/long_reply.rs"]
mod long_reply;
#[allow(dead_code)]
#[path = "../tests/support/stream_server.rs"]
mod stream_server;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ZCODE: &str = env!("CARGO_BIN_EXE_zcode");

fn write_config(home: &std::path::Path, base_url: &str) {
    let config = serde_json::json!({
        "model": "bench/stream",
        "providers": [{
            "id": "bench",
            "kind": "openai",
            "baseUrl": base_url,
            "models": [{"id": "stream", "contextWindow": 1_000_000, "maxOutputTokens": 1_000_000}],
        }],
    });
    std::fs::write(home.join("config.json"), config.to_string()).expect("write config.json");
}

/// Waits for `pid` and returns its CPU seconds (user + system).
fn reap_cpu(pid: u32) -> f64 {
    let mut status = 0;
    // SAFETY: `rusage` is plain data the kernel fills in; `pid` is our own
    // child, not yet reaped.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid as i32, &mut status, 0, &mut usage) };
    assert_eq!(r, pid as i32, "wait4 failed");
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// A server streaming a `kb` KiB reply as fast as it can, a zcode home
/// configured for it, and an empty workspace.
fn streaming_setup(
    kb: usize,
) -> (
    stream_server::StreamServer,
    tempfile::TempDir,
    tempfile::TempDir,
) {
    let reply = long_reply::markdown_reply(kb * 1024);
    let server =
        stream_server::StreamServer::start(long_reply::word_deltas(&reply), Duration::ZERO);
    let home = tempfile::tempdir().expect("home");
    let work = tempfile::tempdir().expect("workspace");
    write_config(home.path(), &server.base_url());
    (server, home, work)
}

struct Figures {
    wall: Duration,
    cpu: f64,
    lines: usize,
}

// The children are reaped by `reap_cpu` (wait4, for their CPU figures).
#[allow(clippy::zombie_processes)]
fn run_acp(kb: usize) -> Figures {
    let (_server, home, work) = streaming_setup(kb);
    let started = Instant::now();
    // A wrapper (a profiler) may stand in for the binary.
    let program = std::env::var("ZCODE_BENCH_WRAPPER").unwrap_or_else(|_| ZCODE.to_string());
    let mut child = Command::new(program)
        .arg("acp")
        .env("ZCODE_HOME", home.path())
        .current_dir(work.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start zcode acp");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut lines = 0;
    let mut read_until = |id: u64, lines: &mut usize| -> serde_json::Value {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                stdout.read_line(&mut line).expect("read") > 0,
                "zcode acp ended early"
            );
            *lines += 1;
            let message: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
            if message["id"] == id {
                return message;
            }
        }
    };
    let send = |stdin: &mut std::process::ChildStdin, message: serde_json::Value| {
        writeln!(stdin, "{message}").expect("write");
    };
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}),
    );
    read_until(1, &mut lines);
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
        "params": {"cwd": work.path(), "mcpServers": []}}),
    );
    let session = read_until(2, &mut lines)["result"]["sessionId"].clone();
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": "write it"}]}}),
    );
    let answer = read_until(3, &mut lines);
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    drop(stdin);
    let cpu = reap_cpu(pid);
    Figures {
        wall: started.elapsed(),
        cpu,
        lines,
    }
}

#[allow(clippy::zombie_processes)]
fn run_headless(kb: usize) -> Figures {
    let (_server, home, work) = streaming_setup(kb);
    let started = Instant::now();
    let child = Command::new(ZCODE)
        .args(["-p", "write it"])
        .env("ZCODE_HOME", home.path())
        .current_dir(work.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start zcode -p");
    let cpu = reap_cpu(child.id());
    Figures {
        wall: started.elapsed(),
        cpu,
        lines: 0,
    }
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10, 60, 200]
    } else {
        sizes
    };
    println!("size     front end   lines    wall      cpu     cpu/KiB");
    for kb in sizes {
        for (name, f) in [("zcode acp", run_acp(kb)), ("zcode -p", run_headless(kb))] {
            println!(
                "{kb:>4} KiB  {name:<10} {:>6}  {:>6.3} s  {:>6.3} s  {:>6.2} ms",
                f.lines,
                f.wall.as_secs_f64(),
                f.cpu,
                1000.0 * f.cpu / kb as f64,
            );
        }
    }
}
