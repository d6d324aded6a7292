//! An in-process agent runtime wired to the fake model server through the
//! real HTTP providers, for tests that play the front end: they read the
//! runtime's events and answer (or deliberately do not answer) its
//! permission requests.
//!
//! ```ignore
//! let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
//! h.enqueue_tool_calls(&[("call_1", "Bash", r#"{"command":"touch a.txt"}"#)]);
//! h.enqueue_text("done");
//! h.input("make a file");
//! let request = h.permission_request().await;
//! h.reply(&request.request_id, PermissionReply::AllowOnce);
//! assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
//! assert_eq!(h.tool_results(1)[0].call_id, "call_1");
//! ```
//!
//! Everything lives in one temporary directory: the workspace
//! (`ws/`, canonical), the zcode home with its database (`home/`) and hook
//! scripts (`scripts/`). Every event read is kept in [`Harness::log`] and
//! printed when a wait times out.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::task::JoinHandle;
use zcode::config::hooks::{HookEntry, Hooks};
use zcode::config::{ProviderKind, project_id};
use zcode::model::anthropic::AnthropicProvider;
use zcode::model::openai::OpenAiProvider;
use zcode::model::select::SelectedModel;
use zcode::model::{HttpSettings, ModelProvider};
use zcode::permission::mode::{Mode, ModeChoice};
use zcode::permission::rules::{Rule, RuleKind};
use zcode::permission::settings::PermissionSettings;
use zcode::protocol::{Event, Op, PermissionReply, PermissionRequest, TurnEnd};
use zcode::runtime::session::SessionStart;
use zcode::runtime::{BrokerChoice, RuntimeSetup};
use zcode::store::{EntryRecord, InputStatus, Store, default_db_path, entry_kind};

use super::fake_model_server::{FakeModelServer, Reply, sse};
use super::fake_provider;
use super::wait::{WAIT, until};

/// How long a wait for an event may take before the test fails.
pub const EVENT_TIMEOUT: Duration = Duration::from_secs(5);

/// Which wire protocol the runtime's model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    OpenAi,
    Anthropic,
}

/// HTTP settings for the runtime: a long idle timeout (tests pause streams
/// on purpose) and no retries (every request consumes exactly one reply).
pub fn runtime_http_settings() -> HttpSettings {
    HttpSettings {
        connect_timeout: Duration::from_secs(2),
        idle_timeout: Duration::from_secs(20),
        max_attempts: 1,
        backoff_base: Duration::from_millis(10),
        backoff_max: Duration::from_millis(40),
        retry_after_cap: Duration::from_millis(300),
        limits: Default::default(),
    }
}

/// What a runtime is started with; see [`Setup::start`].
pub struct Setup {
    pub dialect: Dialect,
    pub mode: Mode,
    /// Start with `--mode plan` (the plan flag on top of build) instead.
    pub plan: bool,
    pub hooks: Hooks,
    pub rules: Vec<(RuleKind, Rule)>,
    /// DIS-2: tools left out of the registry.
    pub disallowed: Vec<String>,
    /// The model's context window in tokens (RUN-4 compacts near it).
    pub context_window: u64,
    /// What `/model` switches with (`Op::SetModel`).
    pub model_resolver: Option<zcode::runtime::ModelResolver>,
    /// The MCP servers of the session (config `mcpServers`).
    pub mcp_servers: serde_json::Map<String, serde_json::Value>,
    /// The config's `agents` section.
    pub agents: zcode::config::AgentsConfig,
    /// The front end's client serving file contents (an editor).
    pub client_files: Option<Arc<dyn zcode::tools::ClientFiles>>,
    dir: tempfile::TempDir,
}

impl Setup {
    pub fn new(dialect: Dialect, mode: Mode) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["ws", "home", "scripts"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        Setup {
            dialect,
            mode,
            plan: false,
            hooks: Hooks::default(),
            rules: Vec::new(),
            disallowed: Vec::new(),
            context_window: 100_000,
            model_resolver: None,
            mcp_servers: serde_json::Map::new(),
            agents: Default::default(),
            client_files: None,
            dir,
        }
    }

    /// Leaves `tool` out of the registry (`--disallowedTools`).
    pub fn disallow(mut self, tool: &str) -> Self {
        self.disallowed.push(tool.to_string());
        self
    }

    /// Serves file contents through `client` (an editor over ACP).
    pub fn client_files(mut self, client: Arc<dyn zcode::tools::ClientFiles>) -> Self {
        self.client_files = Some(client);
        self
    }

    /// Starts with `--mode plan` (plan flag on, build underneath).
    pub fn plan(mut self) -> Self {
        self.plan = true;
        self
    }

    /// The directory hook scripts are written to.
    /// The workspace before the runtime starts (for files such as AGENTS.md).
    pub fn workspace_dir(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    /// `ZCODE_HOME` before the runtime starts.
    pub fn home_dir(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub fn scripts_dir(&self) -> PathBuf {
        self.dir.path().join("scripts")
    }

    /// Writes an executable `#!/bin/sh` script and returns its path.
    pub fn script(&self, name: &str, body: &str) -> String {
        let path = self.scripts_dir().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.to_string_lossy().into_owned()
    }

    /// Adds a PreToolUse hook running this script body for `matcher`.
    pub fn pre_tool_use(mut self, matcher: &str, name: &str, body: &str, timeout_ms: u64) -> Self {
        let command = self.script(name, body);
        self.hooks.pre_tool_use.push(HookEntry {
            matcher: matcher.into(),
            command,
            timeout_ms,
        });
        self
    }

    /// Adds a PermissionRequest hook running this script body for `matcher`.
    pub fn permission_request(
        mut self,
        matcher: &str,
        name: &str,
        body: &str,
        timeout_ms: u64,
    ) -> Self {
        let command = self.script(name, body);
        self.hooks.permission_request.push(HookEntry {
            matcher: matcher.into(),
            command,
            timeout_ms,
        });
        self
    }

    /// A project rule saved in the store before the runtime starts.
    pub fn rule(mut self, kind: RuleKind, rule: Rule) -> Self {
        self.rules.push((kind, rule));
        self
    }

    /// Starts the fake server and the runtime (`--mode <mode>` or
    /// `--mode plan`, channel broker, a new session).
    pub async fn start(self) -> Harness {
        let server = FakeModelServer::start().await;
        let workspace = std::fs::canonicalize(self.dir.path().join("ws")).unwrap();
        let home = self.dir.path().join("home");
        let project = project_id(&workspace);
        let db = default_db_path(&home);
        let mut store = Store::open(&db).unwrap();
        for (kind, rule) in &self.rules {
            store
                .add_project_rules(&project, *kind, std::slice::from_ref(rule))
                .unwrap();
        }
        let provider: Arc<dyn ModelProvider> = match self.dialect {
            Dialect::OpenAi => Arc::new(OpenAiProvider::new(
                &fake_provider(ProviderKind::Openai, &server.openai_base_url()),
                Some("test-key".into()),
                runtime_http_settings(),
            )),
            Dialect::Anthropic => Arc::new(AnthropicProvider::new(
                &fake_provider(ProviderKind::Anthropic, &server.anthropic_base_url()),
                Some("test-key".into()),
                runtime_http_settings(),
            )),
        };
        let setup = RuntimeSetup {
            workspace: workspace.clone(),
            project_id: project.clone(),
            zcode_home: home.clone(),
            model: SelectedModel {
                provider,
                provider_id: "fake".into(),
                model_id: "fake-model".into(),
                reasoning: None,
                context_window: Some(self.context_window),
                window_lookup: None,
                prices: None,
            },
            settings: PermissionSettings::default(),
            hooks: self.hooks,
            disallowed_tools: self.disallowed.clone(),
            start: SessionStart::New,
            explicit_mode: Some(if self.plan {
                ModeChoice::Plan
            } else {
                ModeChoice::Mode(self.mode)
            }),
            config_mode: None,
            headless: false,
            broker: BrokerChoice::Channel,
            model_resolver: self.model_resolver,
            mcp: zcode::mcp::McpSetup {
                timeout: std::time::Duration::from_secs(20),
                ..zcode::mcp::McpSetup::load(&self.mcp_servers, &workspace, &|_: &str| None)
            },
            agents: self.agents,
            client_files: self.client_files,
        };
        let handle = zcode::runtime::start(setup, store).unwrap();
        let mut harness = Harness {
            server,
            dialect: self.dialect,
            workspace,
            scripts: self.dir.path().join("scripts"),
            db,
            project_id: project,
            session_id: handle.session_id,
            ops: handle.ops,
            events: handle.events,
            task: Some(handle.task),
            log: Vec::new(),
            _dir: self.dir,
        };
        harness
            .wait_for("SessionStarted", |e| {
                matches!(e, Event::SessionStarted { .. }).then_some(())
            })
            .await;
        harness
    }
}

/// A tool result as the model received it in a request.
#[derive(Debug, Clone, PartialEq)]
pub struct SeenToolResult {
    pub call_id: String,
    pub content: String,
    /// Only the Messages dialect carries it.
    pub is_error: Option<bool>,
}

/// A running runtime and the fake server behind it.
pub struct Harness {
    pub server: FakeModelServer,
    pub dialect: Dialect,
    /// The workspace, canonical.
    pub workspace: PathBuf,
    pub scripts: PathBuf,
    pub db: PathBuf,
    pub project_id: String,
    pub session_id: String,
    pub ops: UnboundedSender<Op>,
    events: UnboundedReceiver<Event>,
    task: Option<JoinHandle<()>>,
    /// Every event read so far, in order.
    pub log: Vec<Event>,
    _dir: tempfile::TempDir,
}

impl Harness {
    // ---- the model's side ----------------------------------------------

    /// A reply calling these `(id, tool, arguments)` in this dialect.
    pub fn tool_calls_reply(&self, calls: &[(&str, &str, &str)]) -> Reply {
        Reply::sse(self.tool_calls_body(calls))
    }

    pub fn tool_calls_body(&self, calls: &[(&str, &str, &str)]) -> String {
        match self.dialect {
            Dialect::OpenAi => sse::openai_tool_calls("", calls),
            Dialect::Anthropic => sse::anthropic_tool_uses("", calls),
        }
    }

    /// A plain text reply in this dialect.
    pub fn text_reply(&self, text: &str) -> Reply {
        Reply::sse(self.text_body(text))
    }

    pub fn text_body(&self, text: &str) -> String {
        match self.dialect {
            Dialect::OpenAi => sse::openai_text(text),
            Dialect::Anthropic => sse::anthropic_text(text),
        }
    }

    pub fn enqueue_tool_calls(&self, calls: &[(&str, &str, &str)]) {
        self.server.enqueue(self.tool_calls_reply(calls));
    }

    pub fn enqueue_text(&self, text: &str) {
        self.server.enqueue(self.text_reply(text));
    }

    /// One Bash call.
    pub fn enqueue_bash(&self, call_id: &str, command: &str) {
        let args = serde_json::json!({ "command": command }).to_string();
        self.enqueue_tool_calls(&[(call_id, "Bash", &args)]);
    }

    /// The `messages` of the `index`-th request (0-based).
    pub fn request_messages(&self, index: usize) -> Vec<Value> {
        let requests = self.server.requests();
        let request = requests
            .get(index)
            .unwrap_or_else(|| panic!("no request {index}; {} so far", requests.len()));
        request.json()["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// The tool results the `index`-th request carried, in order.
    pub fn tool_results(&self, index: usize) -> Vec<SeenToolResult> {
        let mut out = Vec::new();
        for m in self.request_messages(index) {
            match self.dialect {
                Dialect::OpenAi if m["role"] == "tool" => out.push(SeenToolResult {
                    call_id: m["tool_call_id"].as_str().unwrap_or_default().into(),
                    content: m["content"].as_str().unwrap_or_default().into(),
                    is_error: None,
                }),
                Dialect::Anthropic if m["role"] == "user" => {
                    for block in m["content"].as_array().into_iter().flatten() {
                        if block["type"] == "tool_result" {
                            out.push(SeenToolResult {
                                call_id: block["tool_use_id"].as_str().unwrap_or_default().into(),
                                content: block["content"].as_str().unwrap_or_default().into(),
                                is_error: block["is_error"].as_bool(),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The user texts the `index`-th request carried, in order.
    pub fn user_texts(&self, index: usize) -> Vec<String> {
        let mut out = Vec::new();
        for m in self.request_messages(index) {
            if m["role"] != "user" {
                continue;
            }
            match &m["content"] {
                Value::String(s) => out.push(s.clone()),
                Value::Array(blocks) => out.extend(
                    blocks
                        .iter()
                        .filter(|b| b["type"] == "text")
                        .filter_map(|b| b["text"].as_str().map(str::to_string)),
                ),
                _ => {}
            }
        }
        out
    }

    /// The assistant texts the `index`-th request carried, in order.
    pub fn assistant_texts(&self, index: usize) -> Vec<String> {
        let mut out = Vec::new();
        for m in self.request_messages(index) {
            if m["role"] != "assistant" {
                continue;
            }
            match &m["content"] {
                Value::String(s) if !s.is_empty() => out.push(s.clone()),
                Value::Array(blocks) => out.extend(
                    blocks
                        .iter()
                        .filter(|b| b["type"] == "text")
                        .filter_map(|b| b["text"].as_str().map(str::to_string)),
                ),
                _ => {}
            }
        }
        out
    }

    // ---- the front end's side ------------------------------------------

    pub fn send(&self, op: Op) {
        self.ops.send(op).expect("the runtime stopped");
    }

    pub fn input(&self, text: &str) {
        self.send(Op::UserInput { text: text.into() });
    }

    pub fn reply(&self, request_id: &str, reply: PermissionReply) {
        self.send(Op::PermissionReply {
            request_id: request_id.into(),
            reply,
        });
    }

    pub fn interrupt(&self) {
        self.send(Op::Interrupt);
    }

    /// The next event, or `None` after `timeout`.
    pub async fn try_next(&mut self, timeout: Duration) -> Option<Event> {
        match tokio::time::timeout(timeout, self.events.recv()).await {
            Ok(Some(event)) => {
                self.log.push(event.clone());
                Some(event)
            }
            Ok(None) | Err(_) => None,
        }
    }

    /// Reads events until `pick` returns something; fails the test after
    /// [`EVENT_TIMEOUT`].
    pub async fn wait_for<T>(
        &mut self,
        what: &str,
        mut pick: impl FnMut(&Event) -> Option<T>,
    ) -> T {
        let found = tokio::time::timeout(EVENT_TIMEOUT, async {
            loop {
                let event = self.try_next(EVENT_TIMEOUT).await?;
                if let Some(found) = pick(&event) {
                    return Some(found);
                }
            }
        })
        .await;
        match found {
            Ok(Some(found)) => found,
            _ => panic!(
                "timed out waiting for {what}; events so far:\n{}",
                self.log_text()
            ),
        }
    }

    /// Asserts that no event at all arrives for `d`.
    pub async fn expect_quiet(&mut self, d: Duration) {
        if let Some(event) = self.try_next(d).await {
            panic!(
                "expected no event for {d:?}, got {event:?}; events so far:\n{}",
                self.log_text()
            );
        }
    }

    pub async fn permission_request(&mut self) -> PermissionRequest {
        self.wait_for("PermissionRequested", |e| match e {
            Event::PermissionRequested { request } => Some(request.clone()),
            _ => None,
        })
        .await
    }

    pub async fn turn_finished(&mut self) -> (TurnEnd, Option<String>) {
        self.wait_for("TurnFinished", |e| match e {
            Event::TurnFinished { end, answer } => Some((*end, answer.clone())),
            _ => None,
        })
        .await
    }

    /// The events logged from position `from` on.
    pub fn since(&self, from: usize) -> &[Event] {
        &self.log[from..]
    }

    pub fn log_text(&self) -> String {
        self.log
            .iter()
            .map(|e| format!("  {e:?}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub fn count(&self, pred: impl Fn(&Event) -> bool) -> usize {
        self.log.iter().filter(|e| pred(e)).count()
    }

    // ---- the store -----------------------------------------------------

    /// A second connection to the runtime's database.
    pub fn store(&self) -> Store {
        Store::open(&self.db).unwrap()
    }

    pub fn entries(&self) -> Vec<EntryRecord> {
        self.store().entries(&self.session_id).unwrap()
    }

    /// The conversation entries (user, assistant, tool result), in order.
    pub fn conversation(&self) -> Vec<EntryRecord> {
        self.entries()
            .into_iter()
            .filter(|e| {
                [
                    entry_kind::USER_MESSAGE,
                    entry_kind::ASSISTANT_MESSAGE,
                    entry_kind::TOOL_RESULT,
                ]
                .contains(&e.kind.as_str())
            })
            .collect()
    }

    pub fn conversation_kinds(&self) -> Vec<String> {
        self.conversation().into_iter().map(|e| e.kind).collect()
    }

    /// Waits until a queued input has `status` (the runner marks an input
    /// done just after its turn's `TurnFinished`).
    pub async fn wait_input_status(&self, id: &str, status: InputStatus) {
        let now = || {
            let input = self.store().queued_input(id).unwrap();
            input.as_ref().map(|q| q.status)
        };
        let reached = until(WAIT, || now() == Some(status)).await;
        assert!(reached, "input {id} is {:?}, not {status:?}", now());
    }

    pub fn project_rules(&self, kind: RuleKind) -> Vec<Rule> {
        self.store()
            .project_rules(&self.project_id)
            .unwrap()
            .rules(kind)
            .to_vec()
    }

    // ---- the workspace -------------------------------------------------

    pub fn path(&self, rel: &str) -> PathBuf {
        self.workspace.join(rel)
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }

    /// Ends the runtime task and waits for it; the files stay until the
    /// harness is dropped.
    pub async fn stop(&mut self) {
        let _ = self.ops.send(Op::Shutdown);
        if let Some(task) = self.task.take() {
            tokio::time::timeout(Duration::from_secs(5), task)
                .await
                .expect("the runtime task did not end after Shutdown")
                .expect("the runtime task panicked");
        }
    }

    /// Ends the runtime task, waits for it, and removes the files.
    pub async fn shutdown(mut self) {
        self.stop().await;
    }
}

// ---- processes -------------------------------------------------------------

/// Whether a process runs (zombies count as gone).
pub fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .and_then(|(_, rest)| rest.split_ascii_whitespace().next())
            .is_some_and(|state| !matches!(state, "Z" | "X")),
        Err(_) => false,
    }
}

/// Waits up to `timeout` for a process to be gone.
pub async fn wait_gone(pid: u32, timeout: Duration) -> bool {
    until(timeout, || !process_alive(pid)).await
}

/// Waits up to `timeout` for a file holding a pid and returns the pid.
pub async fn read_pid_file(path: &Path, timeout: Duration) -> u32 {
    let read = || {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.trim().parse().ok())
    };
    assert!(
        until(timeout, || read().is_some()).await,
        "no pid in {} after {timeout:?}",
        path.display()
    );
    read().unwrap_or_default()
}

/// Waits up to `timeout` for a file to exist.
pub async fn wait_file(path: &Path, timeout: Duration) -> bool {
    until(timeout, || path.exists()).await
}
