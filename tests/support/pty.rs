//! Drives the real `zcode` binary in a pseudo-terminal, the way a person at
//! a terminal would: keys go in as bytes, the output feeds a virtual screen
//! (`vt100`), and tests wait for what the screen shows.
//!
//! The driver also answers the terminal queries the TUI sends at start-up
//! (crossterm's keyboard-protocol check writes `CSI ? u` then `CSI c` and
//! waits for a reply), so the binary starts as it would in a real terminal
//! instead of waiting out the query's timeout.
//!
//! Waiting is on conditions: every chunk of output wakes the waiters, who
//! check their condition against the screen. Timeouts are generous and
//! only there so a broken run fails instead of hanging.

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a test waits for anything before it fails.
pub const WAIT: Duration = Duration::from_secs(20);

/// ESC [ c: primary device attributes.
const DA1_QUERY: &[u8] = b"\x1b[c";
/// What a VT220-class terminal answers.
const DA1_REPLY: &[u8] = b"\x1b[?62c";
/// ESC [ ? u: the kitty keyboard protocol's flags query.
const KITTY_QUERY: &[u8] = b"\x1b[?u";
/// No flags set, but the protocol is supported.
const KITTY_REPLY: &[u8] = b"\x1b[?0u";

/// How the binary is started.
#[derive(Debug, Clone)]
pub struct PtyOptions {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Variables set on top of the inherited environment (whose provider
    /// variables are removed).
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
    pub rows: u16,
    pub cols: u16,
    /// Answer the kitty keyboard query as a terminal that supports it.
    pub kitty: bool,
    /// Answer terminal queries at all (a bare pty answers none).
    pub answer_queries: bool,
}

impl PtyOptions {
    /// `zcode` in `cwd` with `ZCODE_HOME=home`, 100x30, plain xterm.
    pub fn new(program: impl Into<PathBuf>, home: &Path, cwd: &Path) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            env: vec![
                ("ZCODE_HOME".into(), home.display().to_string()),
                ("TERM".into(), "xterm-256color".into()),
            ],
            cwd: cwd.to_path_buf(),
            rows: 30,
            cols: 100,
            kitty: false,
            answer_queries: true,
        }
    }

    pub fn arg(mut self, arg: &str) -> Self {
        self.args.push(arg.to_string());
        self
    }

    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    pub fn kitty(mut self, on: bool) -> Self {
        self.kitty = on;
        self
    }

    pub fn answer_queries(mut self, on: bool) -> Self {
        self.answer_queries = on;
        self
    }
}

/// What the reader thread keeps.
struct Output {
    parser: vt100::Parser,
    /// Every byte the program wrote.
    raw: Vec<u8>,
    /// The pty closed: the program and everything it started are gone.
    eof: bool,
}

struct Shared {
    output: Mutex<Output>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Output> {
        self.output.lock().unwrap_or_else(|p| p.into_inner())
    }
}

type Writer = Arc<Mutex<Box<dyn Write + Send>>>;

/// A running program in a pseudo-terminal; killed when dropped.
pub struct Pty {
    child: Box<dyn Child + Send + Sync>,
    writer: Writer,
    shared: Arc<Shared>,
    reader: Option<JoinHandle<()>>,
    master: Box<dyn MasterPty + Send>,
    started: Instant,
    exit: Option<portable_pty::ExitStatus>,
}

impl Pty {
    pub fn spawn(options: PtyOptions) -> Self {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: options.rows,
                cols: options.cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal opens");
        let mut cmd = CommandBuilder::new(&options.program);
        cmd.args(&options.args);
        cmd.cwd(&options.cwd);
        for (key, _) in std::env::vars_os() {
            let key = key.to_string_lossy();
            if key.starts_with("OPENAI_") || key.starts_with("ANTHROPIC_") || key == "NO_COLOR" {
                cmd.env_remove(key.as_ref());
            }
        }
        for (key, value) in &options.env {
            cmd.env(key, value);
        }
        let started = Instant::now();
        let child = pair.slave.spawn_command(cmd).expect("the program starts");
        // Only the child keeps the slave open, so its exit closes the pty.
        drop(pair.slave);
        let reader = pair.master.try_clone_reader().expect("pty reader");
        let writer: Writer = Arc::new(Mutex::new(pair.master.take_writer().expect("pty writer")));
        let shared = Arc::new(Shared {
            output: Mutex::new(Output {
                parser: vt100::Parser::new(
                    std::num::NonZeroU16::new(options.rows).expect("rows > 0"),
                    std::num::NonZeroU16::new(options.cols).expect("cols > 0"),
                    0,
                ),
                raw: Vec::new(),
                eof: false,
            }),
            changed: Condvar::new(),
        });
        let mut replies = Vec::new();
        if options.answer_queries {
            replies.push((DA1_QUERY, DA1_REPLY));
        }
        if options.answer_queries && options.kitty {
            replies.push((KITTY_QUERY, KITTY_REPLY));
        }
        let thread = {
            let shared = shared.clone();
            let writer = writer.clone();
            std::thread::spawn(move || read_loop(reader, &shared, &writer, &replies))
        };
        Self {
            child,
            writer,
            shared,
            reader: Some(thread),
            master: pair.master,
            started,
            exit: None,
        }
    }

    /// When the program was started.
    pub fn started(&self) -> Instant {
        self.started
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.process_id()
    }

    /// Types these bytes.
    pub fn send(&self, bytes: impl AsRef<[u8]>) {
        let mut w = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        w.write_all(bytes.as_ref()).expect("write to the pty");
        w.flush().expect("flush the pty");
    }

    /// Resizes the terminal (the program gets SIGWINCH).
    pub fn resize(&self, rows: u16, cols: u16) {
        let (Some(r), Some(c)) = (
            std::num::NonZeroU16::new(rows),
            std::num::NonZeroU16::new(cols),
        ) else {
            panic!("a terminal of {rows}x{cols}");
        };
        // The screen first, so the redraw lands on a screen of the new size.
        self.shared.lock().parser.set_size(r, c);
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("resize the pty");
    }

    /// Pastes `text` as a terminal with bracketed paste does.
    pub fn paste(&self, text: &str) {
        self.send(format!("\x1b[200~{text}\x1b[201~"));
    }

    /// Types `text` and Enter.
    pub fn submit(&self, text: &str) {
        self.send(text);
        self.send("\r");
    }

    /// Ctrl+C.
    pub fn ctrl_c(&self) {
        self.send([0x03]);
    }

    /// Shift+Tab as terminals send it (CSI Z).
    pub fn shift_tab(&self) {
        self.send("\x1b[Z");
    }

    /// The whole screen as text, rows joined by newlines.
    pub fn screen_text(&self) -> String {
        self.shared.lock().parser.screen().contents()
    }

    /// One row of the screen (0-based; negative counts from the bottom).
    pub fn row(&self, index: i32) -> String {
        let out = self.shared.lock();
        row_text(out.parser.screen(), index)
    }

    /// Runs `f` on the virtual screen.
    pub fn with_screen<T>(&self, f: impl FnOnce(&vt100::Screen) -> T) -> T {
        f(self.shared.lock().parser.screen())
    }

    /// Every byte the program wrote so far.
    pub fn raw_output(&self) -> Vec<u8> {
        self.shared.lock().raw.clone()
    }

    /// Runs `check` on the screen until it holds; panics with the screen
    /// after `timeout`.
    pub fn wait_for(&self, what: &str, timeout: Duration, check: impl Fn(&vt100::Screen) -> bool) {
        if !self.wait_until(timeout, |out| check(out.parser.screen())) {
            panic!(
                "timed out waiting for {what}; the screen:\n{}",
                self.screen_text()
            );
        }
    }

    /// Runs `check` on every byte written so far until it holds; panics
    /// after `timeout`.
    pub fn wait_for_output(&self, what: &str, timeout: Duration, check: impl Fn(&[u8]) -> bool) {
        if !self.wait_until(timeout, |out| check(&out.raw)) {
            panic!(
                "timed out waiting for {what}; the output:\n{:?}",
                String::from_utf8_lossy(&self.raw_output())
            );
        }
    }

    /// Waits until the screen shows `text` anywhere.
    pub fn wait_for_text(&self, text: &str) {
        self.wait_for(&format!("{text:?} on screen"), WAIT, |s| {
            s.contents().contains(text)
        });
    }

    /// Waits until the status line (second row from the bottom) starts
    /// with the mode label `label`.
    pub fn wait_for_mode(&self, label: &str) {
        let want = format!(" {label} ");
        self.wait_for(&format!("mode {label} in the status line"), WAIT, |s| {
            row_text(s, -2).starts_with(&want)
        });
    }

    /// Waits for `check` on the shared output; false on timeout.
    fn wait_until(&self, timeout: Duration, check: impl Fn(&Output) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        let mut out = self.shared.lock();
        loop {
            if check(&out) {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            out = self
                .shared
                .changed
                .wait_timeout(out, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// Quits the TUI as a user does (Ctrl+C twice on an idle, empty
    /// composer) and waits for the exit.
    pub fn quit(&mut self) -> portable_pty::ExitStatus {
        self.ctrl_c();
        self.wait_for("the quit hint", WAIT, |s| {
            s.contents().contains("again to quit")
        });
        self.ctrl_c();
        self.wait_exit(WAIT)
    }

    /// Waits for the program to exit and its output to be read to the end.
    pub fn wait_exit(&mut self, timeout: Duration) -> portable_pty::ExitStatus {
        if let Some(status) = &self.exit {
            return status.clone();
        }
        let deadline = Instant::now() + timeout;
        // The pty closes when the program (and anything it left running)
        // is gone; then its exit status is there to collect.
        self.wait_until(timeout, |out| out.eof);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    self.exit = Some(status.clone());
                    self.wait_until(deadline.saturating_duration_since(Instant::now()), |out| {
                        out.eof
                    });
                    return status;
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Ok(None) => panic!(
                    "the program did not exit within {timeout:?}; the screen:\n{}",
                    self.screen_text()
                ),
                Err(e) => panic!("cannot wait for the program: {e}"),
            }
        }
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        if self.exit.is_none() && !matches!(self.child.try_wait(), Ok(Some(_))) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        // The reader ends when the pty closes; a grandchild that still
        // holds it must not hang the test, so the thread is left alone
        // unless the output already ended.
        if self.shared.lock().eof
            && let Some(thread) = self.reader.take()
        {
            let _ = thread.join();
        }
    }
}

/// Row `index` of `screen` (negative counts from the bottom), trailing
/// spaces trimmed.
pub fn row_text(screen: &vt100::Screen, index: i32) -> String {
    let (rows, cols) = screen.size();
    let (rows, cols) = (rows.get(), cols.get());
    let row = if index < 0 {
        i32::from(rows) + index
    } else {
        index
    };
    let Ok(row) = u16::try_from(row) else {
        return String::new();
    };
    screen
        .rows(0, cols)
        .nth(usize::from(row))
        .unwrap_or_default()
        .trim_end()
        .to_string()
}

/// Reads the program's output into the screen, answering terminal queries
/// on the way.
fn read_loop(
    mut reader: Box<dyn Read + Send>,
    shared: &Shared,
    writer: &Writer,
    replies: &[(&[u8], &[u8])],
) {
    let mut buf = [0u8; 8192];
    // Per query: where the next unanswered occurrence may start.
    let mut scanned = vec![0usize; replies.len()];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let answers = {
            let mut out = shared.lock();
            out.parser.process(&buf[..n]);
            out.raw.extend_from_slice(&buf[..n]);
            find_queries(&out.raw, replies, &mut scanned)
        };
        if !answers.is_empty() {
            let mut w = writer.lock().unwrap_or_else(|p| p.into_inner());
            for reply in answers {
                let _ = w.write_all(reply);
            }
            let _ = w.flush();
        }
        shared.changed.notify_all();
    }
    shared.lock().eof = true;
    shared.changed.notify_all();
}

/// The replies to the queries that completed in `raw` since the last call,
/// in the order the queries were sent.
fn find_queries<'a>(
    raw: &[u8],
    replies: &[(&[u8], &'a [u8])],
    scanned: &mut [usize],
) -> Vec<&'a [u8]> {
    let mut found: Vec<(usize, &'a [u8])> = Vec::new();
    for ((query, reply), from) in replies.iter().zip(scanned.iter_mut()) {
        let mut at = *from;
        while let Some(pos) = raw
            .get(at..)
            .and_then(|rest| rest.windows(query.len()).position(|w| w == *query))
        {
            found.push((at + pos, reply));
            at += pos + query.len();
        }
        // A query cut by the end of this chunk is finished in the next.
        *from = at.max(raw.len().saturating_sub(query.len() - 1));
    }
    found.sort_by_key(|(pos, _)| *pos);
    found.into_iter().map(|(_, reply)| reply).collect()
}
