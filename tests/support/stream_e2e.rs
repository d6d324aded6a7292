//! The real `zcode` TUI in a 120x40 pseudo-terminal against
//! [`super::stream_server`], streaming one long Markdown reply: how long
//! after the stream's end the whole reply is on screen, and what the
//! process spent (TUI-2). Shared by the end-to-end test (does the reply
//! arrive whole?) and the bench (the figures).

use super::long_reply::{markdown_reply, word_deltas};
use super::proc_stats::{cpu_seconds, peak_rss_mib};
use super::pty::{Pty, PtyOptions};
use super::stream_server::StreamServer;
use std::time::{Duration, Instant};

/// The reply's last line, which is on screen when the reply is.
pub const LAST_LINE: &str = "That is the whole plan: end of reply.";

#[derive(Debug, Clone, Copy)]
pub struct Figures {
    pub bytes: usize,
    pub deltas: usize,
    /// First delta written to last byte written, on the server.
    pub stream: Duration,
    /// The stream's end to the whole reply on screen and the turn over.
    pub lag: Duration,
    /// CPU of the zcode process from its start until then.
    pub cpu: f64,
    /// Its peak resident memory.
    pub rss_mib: f64,
    /// Its CPU share over `idle_for` after the reply, with nothing to do.
    pub idle_percent: f64,
}

/// Streams a reply of `kb` KiB, `gap` between deltas, and waits at most
/// `timeout` for it to be on screen; then measures `idle_for` of idling.
pub fn run(kb: usize, gap: Duration, timeout: Duration, idle_for: Duration) -> Figures {
    let text = markdown_reply(kb * 1024);
    let deltas = word_deltas(&text);
    let count = deltas.len();
    let server = StreamServer::start(deltas, gap);
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    write_config(home.path(), &server.base_url());
    let mut options = PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home.path(), project.path());
    options.rows = 40;
    options.cols = 120;
    let mut pty = Pty::spawn(options);
    let pid = pty.pid().expect("the child's pid");
    pty.wait_for_text("Ask zcode to do something");
    pty.submit("explain the parser");
    pty.wait_for("the whole reply on screen", timeout, |s| {
        let screen = s.contents();
        screen.contains(LAST_LINE) && screen.contains("ctrl+c ×2")
    });
    let shown = Instant::now();
    let cpu = cpu_seconds(pid).unwrap_or(f64::NAN);
    let rss_mib = peak_rss_mib(pid).unwrap_or(f64::NAN);
    let times = server.times();
    let (Some(started), Some(finished)) = (times.started, times.finished) else {
        panic!("the server never streamed");
    };
    std::thread::sleep(idle_for);
    let idle_cpu = cpu_seconds(pid).unwrap_or(f64::NAN) - cpu;
    let idle_percent = 100.0 * idle_cpu / idle_for.as_secs_f64().max(1e-9);
    pty.quit();
    Figures {
        bytes: text.len(),
        deltas: count,
        stream: finished - started,
        lag: shown.saturating_duration_since(finished),
        cpu,
        rss_mib,
        idle_percent,
    }
}

/// A session of `messages` messages resumed in the TUI, then left alone for
/// `idle_for`: the process's CPU share over that time, and its peak memory.
pub fn idle_with_messages(messages: usize, idle_for: Duration) -> (f64, f64) {
    use zcode::runtime::transcript::{assistant_entry, user_entry};
    use zcode::store::{SessionFilter, Store, default_db_path};
    let server = StreamServer::start(word_deltas("Hello there.\n"), Duration::ZERO);
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    let options = || {
        let mut o = PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home.path(), project.path());
        o.rows = 40;
        o.cols = 120;
        o
    };
    write_config(home.path(), &server.base_url());
    // A first run makes the session; the messages are added to it directly.
    let mut pty = Pty::spawn(options());
    pty.wait_for_text("Ask zcode to do something");
    pty.submit("hi");
    pty.wait_for_text("Hello there.");
    pty.quit();
    let mut store = Store::open(default_db_path(home.path())).expect("the store opens");
    let session = store
        .list_sessions(&SessionFilter::default(), 1)
        .expect("sessions")
        .pop()
        .expect("the session of the first run");
    for i in 0..messages / 2 {
        let user = user_entry(&format!("question {i}: why does test {i} fail?"));
        store.append_entry(&session.id, &user).expect("append");
        let reply = format!(
            "Answer {i}: the **parser** reads `input_{i}` too early.\n\n- load the config first\n- then parse\n\nlast answer {i}"
        );
        store
            .append_entry(&session.id, &assistant_entry(&reply, "", &[]))
            .expect("append");
    }
    drop(store);
    let last = format!("last answer {}", messages / 2 - 1);
    let pty = Pty::spawn(options().arg("--resume").arg(&session.id));
    let pid = pty.pid().expect("pid");
    pty.wait_for(
        "the resumed session's last message",
        Duration::from_secs(60),
        |s| s.contents().contains(&last),
    );
    // Let the resume's own work finish before the quiet time is measured.
    std::thread::sleep(Duration::from_secs(1));
    let before = cpu_seconds(pid).unwrap_or(f64::NAN);
    std::thread::sleep(idle_for);
    let idle = cpu_seconds(pid).unwrap_or(f64::NAN) - before;
    let rss = peak_rss_mib(pid).unwrap_or(f64::NAN);
    (100.0 * idle / idle_for.as_secs_f64(), rss)
}

/// A provider for the server whose model may answer at any length: a 200 KB
/// reply is past the default output limit of 32,000 tokens.
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
