//! The real `zcode` TUI in a pseudo-terminal against the fake model server:
//! a temporary project (the cwd) and `ZCODE_HOME`, and a runtime for the
//! server, which serves from the runtime's threads while the test drives
//! the terminal from its own.

use super::fake_model_server::{FakeModelServer, Reply, sse};
use super::pty::{Pty, PtyOptions, WAIT};
use serde_json::Value;
use std::path::Path;
use tokio::runtime::Runtime;

pub struct PtyHarness {
    pub home: tempfile::TempDir,
    pub project: tempfile::TempDir,
    pub rt: Runtime,
    pub server: FakeModelServer,
}

impl PtyHarness {
    pub fn new() -> Self {
        let rt = Runtime::new().expect("a tokio runtime");
        let server = rt.block_on(FakeModelServer::start());
        Self {
            home: tempfile::tempdir().expect("temp home"),
            project: tempfile::tempdir().expect("temp project"),
            rt,
            server,
        }
    }

    pub fn project(&self) -> &Path {
        self.project.path()
    }

    /// `zcode ARGS` in the project, its model the fake server.
    pub fn start(&self, args: &[&str]) -> Pty {
        let mut options = PtyOptions::new(
            env!("CARGO_BIN_EXE_zcode"),
            self.home.path(),
            self.project(),
        )
        .env("OPENAI_BASE_URL", &self.server.openai_base_url());
        for arg in args {
            options = options.arg(arg);
        }
        Pty::spawn(options)
    }

    /// The model's next reply is `text`.
    pub fn answer(&self, text: &str) {
        self.server
            .enqueue_all([Reply::sse(sse::openai_text(text))]);
    }

    /// Waits until the server has received `n` requests.
    pub fn wait_for_requests(&self, n: usize, pty: &Pty) {
        let arrived = self.rt.block_on(self.server.wait_for_requests(n, WAIT));
        assert!(
            arrived,
            "the server got {} requests, not {n}; the screen:\n{}",
            self.server.request_count(),
            pty.screen_text()
        );
    }

    /// The body of request `i` (0-based).
    pub fn request(&self, i: usize) -> Value {
        self.server.requests()[i].json()
    }
}
