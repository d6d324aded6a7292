//! Runs of the real `zcode` binary in a temporary project with a temporary
//! `ZCODE_HOME`, against the fake model server.

use super::fake_model_server::FakeModelServer;
use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use zcode::store::{EntryRecord, SessionFilter, SessionRecord, Store, default_db_path};

/// A temporary project (the cwd) and `ZCODE_HOME`.
pub struct Harness {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
}

/// What one run of the binary left.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl fmt::Display for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

impl From<std::process::Output> for Run {
    fn from(out: std::process::Output) -> Self {
        Run {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// No run may hang the suite.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(30);

/// What the binary's stdin is.
pub enum Input {
    /// `/dev/null` (what `run` gives).
    Null,
    /// A pipe that carries these bytes, then closes.
    Piped(Vec<u8>),
    /// A pipe that stays open and silent until the run ends, as some CI
    /// runners leave it.
    OpenPipe,
    /// Redirected from this file (`< file`).
    File(PathBuf),
}

impl Harness {
    pub fn new() -> Self {
        Self {
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
        }
    }

    pub fn home(&self) -> &Path {
        self.home.path()
    }

    pub fn project(&self) -> &Path {
        self.project.path()
    }

    /// Runs `zcode ARGS` in the project with only `env` of the provider
    /// variables set.
    pub async fn run(&self, args: &[&str], env: &[(&str, String)]) -> Run {
        let out = tokio::time::timeout(RUN_TIMEOUT, self.command(args, env).output())
            .await
            .unwrap_or_else(|_| panic!("zcode {args:?} did not finish in {RUN_TIMEOUT:?}"))
            .expect("zcode runs");
        Run::from(out)
    }

    /// Runs `zcode ARGS` as `run` does, with `input` as its stdin.
    pub async fn run_with_input(&self, args: &[&str], env: &[(&str, String)], input: Input) -> Run {
        let mut cmd = self.command(args, env);
        match &input {
            Input::Null => {}
            Input::Piped(_) | Input::OpenPipe => {
                cmd.stdin(Stdio::piped());
            }
            Input::File(path) => {
                cmd.stdin(std::fs::File::open(path).expect("the input file opens"));
            }
        }
        let mut child = cmd.spawn().expect("zcode starts");
        // Held until the child has exited, so an open pipe stays open.
        let stdin = child.stdin.take();
        let feeder = tokio::spawn(async move {
            match (input, stdin) {
                (Input::Piped(bytes), Some(mut stdin)) => {
                    use tokio::io::AsyncWriteExt;
                    // The child may stop reading (or never start): a broken
                    // pipe shows in its output, not here.
                    let _ = stdin.write_all(&bytes).await;
                }
                (_, held) => {
                    let _held = held;
                    std::future::pending::<()>().await;
                }
            }
        });
        let out = tokio::time::timeout(RUN_TIMEOUT, child.wait_with_output())
            .await
            .unwrap_or_else(|_| panic!("zcode {args:?} did not finish in {RUN_TIMEOUT:?}"))
            .expect("zcode runs");
        feeder.abort();
        Run::from(out)
    }

    /// The command `run` runs, for tests that need the child itself.
    pub fn command(&self, args: &[&str], env: &[(&str, String)]) -> tokio::process::Command {
        let mut cmd = self.process(env!("CARGO_BIN_EXE_zcode"));
        cmd.args(args);
        for (key, value) in env {
            cmd.env(key, value);
        }
        cmd
    }

    /// `program` run in the project with this home: stdin is empty, the
    /// output is kept, the process dies with the test, and no model
    /// credentials of the environment reach it.
    pub fn process(&self, program: impl AsRef<std::ffi::OsStr>) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(program);
        cmd.current_dir(self.project())
            .env("ZCODE_HOME", self.home())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (key, _) in std::env::vars_os() {
            let key = key.to_string_lossy();
            if key.starts_with("OPENAI_") || key.starts_with("ANTHROPIC_") {
                cmd.env_remove(key.as_ref());
            }
        }
        cmd
    }

    pub fn write_config(&self, config: &Value) {
        std::fs::write(self.home().join("config.json"), config.to_string()).unwrap();
    }

    /// An executable script in the home directory; returns its path.
    pub fn script(&self, name: &str, text: &str) -> String {
        use std::os::unix::fs::PermissionsExt;
        let path: PathBuf = self.home().join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.to_string_lossy().into_owned()
    }

    pub fn store(&self) -> Store {
        Store::open(default_db_path(self.home())).expect("the run created the database")
    }

    /// Every session (those nobody wrote in yet too), most recently
    /// updated first.
    pub fn sessions(&self) -> Vec<SessionRecord> {
        if !default_db_path(self.home()).exists() {
            return Vec::new();
        }
        let every = SessionFilter {
            include_empty: true,
            ..SessionFilter::default()
        };
        self.store().list_sessions(&every, 100).unwrap()
    }

    pub fn entries(&self, session_id: &str) -> Vec<EntryRecord> {
        self.store().entries(session_id).unwrap()
    }
}

/// The OpenAI shortcut: a base URL alone is enough (the key is optional).
pub fn openai_env(server: &FakeModelServer) -> Vec<(&'static str, String)> {
    vec![("OPENAI_BASE_URL", server.openai_base_url())]
}
