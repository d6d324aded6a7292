//! The MCP test server of `examples/mcp_test_server.rs`: where its binary
//! is (built here when the test run did not build examples), and a
//! streamable-HTTP instance on 127.0.0.1.

use std::path::PathBuf;
use std::sync::OnceLock;
use tokio::io::AsyncBufReadExt;

/// The test server's executable.
pub fn test_server() -> String {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test binary's path");
        // target/debug/deps/<test> → target/debug/examples/mcp_test_server
        let debug = exe
            .parent()
            .and_then(|deps| deps.parent())
            .expect("the target directory");
        let path = debug.join("examples").join("mcp_test_server");
        if !path.exists() {
            let status = std::process::Command::new(env!("CARGO"))
                .args(["build", "--example", "mcp_test_server"])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status()
                .expect("cargo builds the MCP test server");
            assert!(status.success(), "the MCP test server builds");
        }
        path
    })
    .to_string_lossy()
    .into_owned()
}

/// A test server speaking streamable HTTP; stopped when dropped.
pub struct HttpServer {
    pub url: String,
    _child: tokio::process::Child,
}

impl HttpServer {
    pub async fn start(log: &std::path::Path) -> Self {
        let mut child = tokio::process::Command::new(test_server())
            .arg("--http")
            .env("MCP_TEST_LOG", log)
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the HTTP test server starts");
        let stdout = child.stdout.take().expect("its stdout");
        let mut lines = tokio::io::BufReader::new(stdout).lines();
        let line = tokio::time::timeout(std::time::Duration::from_secs(20), lines.next_line())
            .await
            .expect("the HTTP test server says where it listens")
            .expect("a line")
            .expect("a line");
        let url = line
            .strip_prefix("listening on ")
            .expect("listening on URL")
            .to_string();
        Self { url, _child: child }
    }
}

/// The events the test server logged.
pub fn log_lines(log: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}
