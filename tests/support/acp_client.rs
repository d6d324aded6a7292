//! `zcode acp` driven from the editor's side: the real binary as a child
//! process, connected with the official SDK's client (`Client.v1()`) over
//! its stdin and stdout, against the fake model server.
//!
//! The client advertises the capabilities a test chooses (file system,
//! form elicitation) and answers nothing by itself: a permission request
//! or an elicitation arrives as a [`PermissionAsk`] / [`ElicitationAsk`]
//! the test awaits and answers (an option id, `cancelled`, accept / decline
//! / cancel, or never). `fs/read_text_file` and `fs/write_text_file` are
//! served from an in-memory map, as an editor serves its open buffers.
//! Every `session/update` is kept, in arrival order, as the JSON the wire
//! carried, so tests assert on what a client really sees; every line in
//! either direction is kept too, for failure messages and for the check
//! that stdout carries nothing but JSON-RPC.
//!
//! [`RawAcp`] is the other mode: bytes in, lines out, no SDK, for the
//! bad-input tests.
//!
//! Every wait is bounded by [`WAIT`], so a hang fails the test.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    ClientCapabilities, CreateElicitationRequest, CreateElicitationResponse,
    ElicitationCapabilities, ElicitationFormCapabilities, FileSystemCapabilities,
    InitializeRequest, InitializeResponse, ReadTextFileRequest, ReadTextFileResponse,
    RequestPermissionRequest, RequestPermissionResponse, SessionNotification, SubagentCapabilities,
    WriteTextFileRequest, WriteTextFileResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Lines, UntypedMessage};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::Notify;

use super::fake_model_server::{FakeModelServer, Reply, openai_tool_result, sse};
use super::headless::Harness;

/// The bound on every wait: generous, so only a hang trips it.
pub const WAIT: Duration = Duration::from_secs(60);

/// A config whose only model is `fake/m` at `server`, with `extra` merged
/// in at the top level (`"acp"`, `"permission"` …).
pub fn acp_config(server: &FakeModelServer, extra: Value) -> Value {
    let mut config = json!({
        "model": "fake/m",
        "providers": [{
            "id": "fake",
            "kind": "openai",
            "baseUrl": server.openai_base_url(),
            "models": [{"id": "m", "contextWindow": 100_000}],
        }],
    });
    if let (Some(c), Some(extra)) = (config.as_object_mut(), extra.as_object()) {
        c.extend(extra.clone());
    }
    config
}

/// ASK-7's timers, short: countdown shown at once, continued after
/// `deadline_ms`.
pub fn auto_continue(grace_ms: u64, deadline_ms: u64) -> Value {
    json!({"autoContinue": {"enabled": true, "graceMs": grace_ms, "deadlineMs": deadline_ms}})
}

// ------------------------------------------------------------ scenarios

/// A fresh home and project whose config is [`acp_config`] with `extra`,
/// and the model server it points at.
pub async fn acp_setup(extra: Value) -> (Harness, FakeModelServer) {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    h.write_config(&acp_config(&server, extra));
    (h, server)
}

/// A model reply that is only `text`.
pub fn text_reply(text: &str) -> Reply {
    Reply::sse(sse::openai_text(text))
}

/// A model reply calling the tool `name` once, as `id`, with `args` (JSON
/// text).
pub fn tool_reply(id: &str, name: &str, args: &str) -> Reply {
    Reply::sse(sse::openai_tool_calls("", &[(id, name, args)]))
}

/// A model reply calling Write of `content` to `file`, as `id`.
pub fn write_reply(id: &str, file: &str, content: &str) -> Reply {
    let args = json!({"file_path": file, "content": content}).to_string();
    tool_reply(id, "Write", &args)
}

/// A model reply calling Read of `file`, as `id`.
pub fn read_reply(id: &str, file: &str) -> Reply {
    let args = json!({"file_path": file}).to_string();
    tool_reply(id, "Read", &args)
}

/// A model reply calling Bash with `command`, as `id`.
pub fn bash_reply(id: &str, command: &str) -> Reply {
    let args = json!({"command": command}).to_string();
    tool_reply(id, "Bash", &args)
}

/// A model reply that streams the first words of `text` and then holds
/// the stream for `secs` seconds, far past any wait of a test: a turn
/// still running when the test acts.
pub fn stalled_reply(text: &str, secs: u64) -> Reply {
    let first_words: String = sse::openai_text(text)
        .split("\n\n")
        .take(2)
        .map(|e| format!("{e}\n\n"))
        .collect();
    Reply::sse_chunks([first_words]).delay(Duration::from_secs(secs))
}

/// The AskUserQuestion arguments of one single-choice question "Which?"
/// with the options A and B.
pub fn which_question() -> String {
    json!({"questions": [{"question": "Which?", "header": "Pick",
        "multiSelect": false, "options": [{"label": "A", "description": "a"},
        {"label": "B", "description": "b"}]}]})
    .to_string()
}

/// Two questions: a single choice and a multiple choice.
pub fn two_questions() -> String {
    json!({"questions": [
        {"question": "Which language?", "header": "Language", "multiSelect": false,
         "options": [{"label": "Rust", "description": "Compiled, no GC"},
                     {"label": "Go", "description": "Compiled, GC"}]},
        {"question": "What to add?", "header": "Extras", "multiSelect": true,
         "options": [{"label": "Tests", "description": "Unit tests"},
                     {"label": "Docs", "description": "A README"},
                     {"label": "CI", "description": "A workflow"}]},
    ]})
    .to_string()
}

/// The text of the user messages of an OpenAI request.
pub fn user_texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

/// The user messages of the last request the model got.
pub fn last_user_texts(server: &FakeModelServer) -> Vec<String> {
    let requests = server.requests();
    user_texts(&requests.last().expect("a model request").json())
}

/// The names of the tools an OpenAI request offers.
pub fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The tool result the model read for `call_id` in the last request.
pub fn last_tool_result(server: &FakeModelServer, call_id: &str) -> String {
    let requests = server.requests();
    let last = requests.last().expect("the model was asked");
    openai_tool_result(&last.json(), call_id)
}

/// The first diff in the content of the updates of `call_id`.
pub fn diff_of(updates: &[Value], call_id: &str) -> Option<Value> {
    updates
        .iter()
        .filter(|u| u["toolCallId"] == call_id)
        .flat_map(|u| u["content"].as_array().cloned().unwrap_or_default())
        .find(|c| c["type"] == "diff")
}

/// Whether the saved `entries` hold a user message containing `text`.
pub fn has_user_message(entries: &[zcode::store::EntryRecord], text: &str) -> bool {
    entries.iter().any(|e| {
        e.kind == zcode::store::entry_kind::USER_MESSAGE && e.payload.to_string().contains(text)
    })
}

/// What the client says it can do.
#[derive(Debug, Clone, Default)]
pub struct ClientOptions {
    pub fs_read: bool,
    pub fs_write: bool,
    pub elicitation_form: bool,
    /// ACP's sub-agent sessions (unstable in the SDK).
    pub subagents: bool,
    /// The editor's open buffers, served by `fs/read_text_file`.
    pub buffers: BTreeMap<PathBuf, String>,
}

impl ClientOptions {
    /// Nothing beyond the protocol's baseline, as acpx.
    pub fn plain() -> Self {
        Self::default()
    }

    /// Form elicitation, no file system.
    pub fn with_forms() -> Self {
        Self {
            elicitation_form: true,
            ..Self::default()
        }
    }

    /// Everything: file system both ways and form elicitation.
    pub fn editor() -> Self {
        Self {
            fs_read: true,
            fs_write: true,
            elicitation_form: true,
            subagents: false,
            buffers: BTreeMap::new(),
        }
    }

    /// Also understands sub-agents as child sessions.
    pub fn with_subagents(mut self) -> Self {
        self.subagents = true;
        self
    }

    pub fn buffer(mut self, path: impl Into<PathBuf>, text: &str) -> Self {
        self.buffers.insert(path.into(), text.to_string());
        self
    }

    fn capabilities(&self) -> ClientCapabilities {
        let mut fs = FileSystemCapabilities::new();
        fs.read_text_file = self.fs_read;
        fs.write_text_file = self.fs_write;
        let mut caps = ClientCapabilities::new().fs(fs);
        if self.subagents {
            caps = caps.subagents(SubagentCapabilities::new());
        }
        if self.elicitation_form {
            let mut elicitation = ElicitationCapabilities::new();
            elicitation.form = Some(ElicitationFormCapabilities::new());
            caps.elicitation(elicitation)
        } else {
            caps
        }
    }
}

/// A JSON-RPC error as the client received it.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i32,
    pub message: String,
    pub data: Option<Value>,
}

impl From<agent_client_protocol::Error> for RpcError {
    fn from(e: agent_client_protocol::Error) -> Self {
        RpcError {
            code: i32::from(e.code),
            message: e.message,
            data: e.data,
        }
    }
}

/// Which way a line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Client to zcode (its stdin).
    Sent,
    /// zcode to client (its stdout).
    Received,
}

/// A permission request waiting for the test's answer.
pub struct PermissionAsk {
    /// `session/request_permission`'s params as the wire carried them.
    pub request: Value,
    responder: Responder<RequestPermissionResponse>,
    held: Arc<Shared>,
}

impl std::fmt::Debug for PermissionAsk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PermissionAsk({})", self.request)
    }
}

impl PermissionAsk {
    /// `(optionId, kind, name)` of every option offered, in order.
    pub fn options(&self) -> Vec<(String, String, String)> {
        self.request["options"]
            .as_array()
            .map(|options| {
                options
                    .iter()
                    .map(|o| {
                        (
                            o["optionId"].as_str().unwrap_or_default().to_string(),
                            o["kind"].as_str().unwrap_or_default().to_string(),
                            o["name"].as_str().unwrap_or_default().to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn option_ids(&self) -> Vec<String> {
        self.options().into_iter().map(|(id, _, _)| id).collect()
    }

    pub fn tool_call_id(&self) -> String {
        self.request["toolCall"]["toolCallId"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Answers with this option id, offered or not.
    pub fn select(self, option_id: &str) {
        let response: RequestPermissionResponse = serde_json::from_value(
            json!({"outcome": {"outcome": "selected", "optionId": option_id}}),
        )
        .expect("a selected outcome");
        self.responder
            .respond(response)
            .expect("the answer is sent");
    }

    /// Answers `cancelled`, as a client does for a cancelled turn.
    pub fn cancel(self) {
        let response: RequestPermissionResponse =
            serde_json::from_value(json!({"outcome": {"outcome": "cancelled"}}))
                .expect("a cancelled outcome");
        self.responder
            .respond(response)
            .expect("the answer is sent");
    }

    /// Never answers: the request stays open for the client's lifetime.
    pub fn hold(self) {
        let held = self.held.clone();
        lock(&held.held).push(Box::new(self.responder));
    }

    /// Answers with a JSON-RPC error, as a client whose dialog broke.
    pub fn fail(self) {
        self.responder
            .respond_with_error(agent_client_protocol::Error::internal_error())
            .expect("the error is sent");
    }
}

/// An `elicitation/create` waiting for the test's answer.
pub struct ElicitationAsk {
    /// The request's params as the wire carried them.
    pub request: Value,
    responder: Responder<CreateElicitationResponse>,
    held: Arc<Shared>,
}

impl std::fmt::Debug for ElicitationAsk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ElicitationAsk({})", self.request)
    }
}

impl ElicitationAsk {
    pub fn message(&self) -> &str {
        self.request["message"].as_str().unwrap_or_default()
    }

    /// `requestedSchema.properties`.
    pub fn properties(&self) -> &Value {
        &self.request["requestedSchema"]["properties"]
    }

    /// Accepts with this content object (`{}` for a form left empty).
    pub fn accept(self, content: Value) {
        self.answer(json!({"action": "accept", "content": content}));
    }

    pub fn decline(self) {
        self.answer(json!({"action": "decline"}));
    }

    pub fn cancel(self) {
        self.answer(json!({"action": "cancel"}));
    }

    /// Any response object, e.g. an action zcode does not know.
    pub fn respond_raw(self, response: Value) {
        self.answer(response);
    }

    /// Answers with a JSON-RPC error.
    pub fn fail(self) {
        self.responder
            .respond_with_error(agent_client_protocol::Error::internal_error())
            .expect("the error is sent");
    }

    /// Never answers.
    pub fn hold(self) {
        let held = self.held.clone();
        lock(&held.held).push(Box::new(self.responder));
    }

    fn answer(self, response: Value) {
        let response: CreateElicitationResponse =
            serde_json::from_value(response).expect("an elicitation response");
        self.responder
            .respond(response)
            .expect("the answer is sent");
    }
}

/// What the connection has seen so far.
#[derive(Default)]
pub struct Seen {
    /// `session/update` params, in order.
    updates: Vec<Value>,
    /// Updates the SDK's schema could not read: `(params, error)`.
    unreadable_updates: Vec<(Value, String)>,
    /// Other notifications: `(method, params)`.
    other_notifications: Vec<(String, Value)>,
    /// Requests other than the ones served: `(method, params)`.
    other_requests: Vec<(String, Value)>,
    permissions: VecDeque<PermissionAsk>,
    /// Every permission request, answered or not.
    permission_log: Vec<Value>,
    elicitations: VecDeque<ElicitationAsk>,
    elicitation_log: Vec<Value>,
    /// The editor's buffers.
    buffers: BTreeMap<PathBuf, String>,
    /// Paths read through `fs/read_text_file`, in order.
    fs_reads: Vec<PathBuf>,
    /// `(path, content)` written through `fs/write_text_file`, in order.
    fs_writes: Vec<(PathBuf, String)>,
    /// Every line both ways.
    wire: Vec<(Dir, String)>,
    /// The child's stdout ended.
    stdout_closed: bool,
}

impl Seen {
    /// The first update of this kind for this session, if any.
    pub fn updates_of_session(&self, session: &str, kind: &str) -> Option<Value> {
        self.updates
            .iter()
            .find(|u| u["sessionId"] == session && u["update"]["sessionUpdate"] == kind)
            .cloned()
    }
}

struct Shared {
    seen: Mutex<Seen>,
    changed: Notify,
    /// Responders kept unanswered on purpose.
    held: Mutex<Vec<Box<dyn std::any::Any + Send>>>,
    stderr: Mutex<String>,
}

impl Shared {
    fn update(&self, f: impl FnOnce(&mut Seen)) {
        f(&mut lock(&self.seen));
        self.changed.notify_waiters();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A prompt in flight.
pub struct PromptCall {
    task: tokio::task::JoinHandle<Result<Value, RpcError>>,
    shared: Arc<Shared>,
}

impl PromptCall {
    /// The `session/prompt` response (or error), within [`WAIT`].
    pub async fn response(self) -> Result<Value, RpcError> {
        match tokio::time::timeout(WAIT, self.task).await {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => panic!("the prompt task failed: {e}"),
            Err(_) => panic!(
                "no session/prompt response within {WAIT:?}\n{}",
                diagnostics(&self.shared)
            ),
        }
    }

    /// The stop reason of a successful turn.
    pub async fn stop_reason(self) -> String {
        let shared = self.shared.clone();
        let response = self
            .response()
            .await
            .unwrap_or_else(|e| panic!("session/prompt failed: {e:?}\n{}", diagnostics(&shared)));
        response["stopReason"]
            .as_str()
            .unwrap_or_else(|| panic!("no stopReason in {response}"))
            .to_string()
    }

    pub fn is_finished(&self) -> bool {
        self.task.is_finished()
    }
}

/// `zcode acp` and the SDK client connected to it.
pub struct AcpClient {
    cx: ConnectionTo<Agent>,
    shared: Arc<Shared>,
    child: Child,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    connection: tokio::task::JoinHandle<()>,
    finish: Option<tokio::sync::oneshot::Sender<()>>,
    /// The `initialize` response.
    pub init: Value,
}

impl Drop for AcpClient {
    fn drop(&mut self) {
        if let Some(finish) = self.finish.take() {
            let _ = finish.send(());
        }
        self.connection.abort();
    }
}

impl AcpClient {
    /// Starts `zcode acp` in the harness's project with its home, connects
    /// and initializes with `options`' capabilities.
    pub async fn start(h: &Harness, options: ClientOptions) -> Self {
        Self::start_with_env(h, options, &[]).await
    }

    pub async fn start_with_env(
        h: &Harness,
        options: ClientOptions,
        env: &[(&str, String)],
    ) -> Self {
        let mut client = Self::connect(h, options.buffers.clone(), env).await;
        let init =
            InitializeRequest::new(ProtocolVersion::V1).client_capabilities(options.capabilities());
        let response: InitializeResponse = client
            .within("initialize", client.cx.send_request(init).block_task())
            .await
            .unwrap_or_else(|e| panic!("initialize failed: {e:?}\n{}", client.diagnostics()));
        client.init = serde_json::to_value(response).expect("the response serializes");
        client
    }

    /// Spawns and connects without initializing.
    pub async fn connect(
        h: &Harness,
        buffers: BTreeMap<PathBuf, String>,
        env: &[(&str, String)],
    ) -> Self {
        let mut cmd = h.command(&["acp"], env);
        cmd.stdin(Stdio::piped());
        let mut child = cmd.spawn().expect("zcode acp starts");
        let stdin = Arc::new(tokio::sync::Mutex::new(child.stdin.take()));
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let shared = Arc::new(Shared {
            seen: Mutex::new(Seen {
                buffers,
                ..Seen::default()
            }),
            changed: Notify::new(),
            held: Mutex::new(Vec::new()),
            stderr: Mutex::new(String::new()),
        });
        tokio::spawn(collect_stderr(stderr, shared.clone()));

        let incoming = {
            let shared = shared.clone();
            futures_util::stream::unfold(Some(BufReader::new(stdout).lines()), move |lines| {
                let shared = shared.clone();
                async move {
                    let mut lines = lines?;
                    match lines.next_line().await {
                        Ok(Some(line)) => {
                            shared.update(|s| s.wire.push((Dir::Received, line.clone())));
                            Some((Ok(line), Some(lines)))
                        }
                        Ok(None) => {
                            shared.update(|s| s.stdout_closed = true);
                            None
                        }
                        Err(e) => {
                            shared.update(|s| s.stdout_closed = true);
                            Some((Err(e), None))
                        }
                    }
                }
            })
        };
        let outgoing = {
            let shared = shared.clone();
            let stdin = stdin.clone();
            futures_util::sink::unfold((), move |(), line: String| {
                let shared = shared.clone();
                let stdin = stdin.clone();
                async move {
                    shared.update(|s| s.wire.push((Dir::Sent, line.clone())));
                    let mut guard = stdin.lock().await;
                    let pipe = guard.as_mut().ok_or_else(|| {
                        std::io::Error::new(std::io::ErrorKind::BrokenPipe, "disconnected")
                    })?;
                    pipe.write_all(line.as_bytes()).await?;
                    pipe.write_all(b"\n").await?;
                    pipe.flush().await?;
                    Ok::<(), std::io::Error>(())
                }
            })
        };
        let transport = Lines::new(Box::pin(outgoing), Box::pin(incoming));

        let (cx_tx, cx_rx) = tokio::sync::oneshot::channel();
        let (finish_tx, finish_rx) = tokio::sync::oneshot::channel::<()>();
        let builder = handlers(Client.v1(), shared.clone());
        let connection = tokio::spawn(async move {
            let _ = builder
                .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
                    let _ = cx_tx.send(cx);
                    let _ = finish_rx.await;
                    Ok(())
                })
                .await;
        });
        let cx = tokio::time::timeout(WAIT, cx_rx)
            .await
            .expect("the connection starts")
            .expect("the connection hands out its handle");
        AcpClient {
            cx,
            shared,
            child,
            stdin,
            connection,
            finish: Some(finish_tx),
            init: Value::Null,
        }
    }

    /// The SDK connection, for typed requests.
    pub fn connection(&self) -> &ConnectionTo<Agent> {
        &self.cx
    }

    /// Sends any request by method name and JSON params.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let message = UntypedMessage::new(method, params).expect("params are an object");
        self.within(method, self.cx.send_request(message).block_task())
            .await
            .map_err(RpcError::from)
    }

    pub async fn notify(&self, method: &str, params: Value) {
        let message = UntypedMessage::new(method, params).expect("params are an object");
        self.cx
            .send_notification(message)
            .expect("the notification is sent");
    }

    /// A client started with `options` and one session in the project.
    pub async fn start_with_session(h: &Harness, options: ClientOptions) -> (Self, String) {
        let client = Self::start(h, options).await;
        let session = client.new_session(h.project()).await;
        (client, session)
    }

    /// `session/set_mode`, which must succeed.
    pub async fn set_mode(&self, session_id: &str, mode: &str) {
        self.request(
            "session/set_mode",
            json!({"sessionId": session_id, "modeId": mode}),
        )
        .await
        .unwrap_or_else(|e| panic!("session/set_mode {mode}: {e:?}\n{}", self.diagnostics()));
    }

    /// Waits for the `current_mode_update` to `mode`.
    pub async fn wait_mode(&self, mode: &str) -> Value {
        self.wait_update(&format!("current_mode_update {mode}"), |u| {
            u["sessionUpdate"] == "current_mode_update" && u["currentModeId"] == mode
        })
        .await
    }

    /// Waits for the first `agent_message_chunk`.
    pub async fn wait_first_words(&self, what: &str) -> Value {
        self.wait_update(what, |u| u["sessionUpdate"] == "agent_message_chunk")
            .await
    }

    /// The `update` object of every `session/update` so far, in order.
    pub fn update_bodies(&self) -> Vec<Value> {
        self.updates()
            .into_iter()
            .map(|u| u["update"].clone())
            .collect()
    }

    /// `session/load` of `session_id` in `cwd`, which must succeed; its
    /// response.
    pub async fn load_session(&self, session_id: &str, cwd: &Path) -> Value {
        self.request(
            "session/load",
            json!({"sessionId": session_id, "cwd": cwd, "mcpServers": []}),
        )
        .await
        .unwrap_or_else(|e| panic!("session/load: {e:?}\n{}", self.diagnostics()))
    }

    /// `session/new` in the harness's project; the session id.
    pub async fn new_session(&self, cwd: &Path) -> String {
        let response = self
            .request("session/new", json!({"cwd": cwd, "mcpServers": []}))
            .await
            .unwrap_or_else(|e| panic!("session/new failed: {e:?}\n{}", self.diagnostics()));
        response["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no sessionId in {response}"))
            .to_string()
    }

    /// `session/new`'s whole response.
    pub async fn new_session_response(&self, cwd: &Path) -> Value {
        self.request("session/new", json!({"cwd": cwd, "mcpServers": []}))
            .await
            .unwrap_or_else(|e| panic!("session/new failed: {e:?}\n{}", self.diagnostics()))
    }

    /// Starts a turn with a text prompt; the response comes later.
    pub fn prompt(&self, session_id: &str, text: &str) -> PromptCall {
        self.prompt_blocks(session_id, json!([{"type": "text", "text": text}]))
    }

    /// Starts a turn with these content blocks.
    pub fn prompt_blocks(&self, session_id: &str, blocks: Value) -> PromptCall {
        let message = UntypedMessage::new(
            "session/prompt",
            json!({"sessionId": session_id, "prompt": blocks}),
        )
        .expect("params are an object");
        let sent = self.cx.send_request(message);
        PromptCall {
            task: tokio::spawn(async move { sent.block_task().await.map_err(RpcError::from) }),
            shared: self.shared.clone(),
        }
    }

    /// A whole turn: prompt, answer nothing, return the stop reason.
    pub async fn run_turn(&self, session_id: &str, text: &str) -> String {
        self.prompt(session_id, text).stop_reason().await
    }

    pub async fn cancel(&self, session_id: &str) {
        self.notify("session/cancel", json!({"sessionId": session_id}))
            .await;
    }

    /// The next permission request not yet taken.
    pub async fn next_permission(&self) -> PermissionAsk {
        self.wait_for("a session/request_permission", |s| {
            s.permissions.pop_front()
        })
        .await
    }

    /// The next elicitation not yet taken.
    pub async fn next_elicitation(&self) -> ElicitationAsk {
        self.wait_for("an elicitation/create", |s| s.elicitations.pop_front())
            .await
    }

    /// Every `session/update` so far (params: `{sessionId, update}`).
    pub fn updates(&self) -> Vec<Value> {
        lock(&self.shared.seen).updates.clone()
    }

    /// The `update` objects of this kind (`sessionUpdate` value), in order.
    pub fn updates_of(&self, kind: &str) -> Vec<Value> {
        lock(&self.shared.seen)
            .updates
            .iter()
            .map(|u| u["update"].clone())
            .filter(|u| u["sessionUpdate"] == kind)
            .collect()
    }

    /// Waits until an update satisfies `pred`; returns it (the `update`
    /// object).
    pub async fn wait_update(&self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        self.wait_for(what, |s| {
            s.updates
                .iter()
                .map(|u| &u["update"])
                .find(|u| pred(u))
                .cloned()
        })
        .await
    }

    /// Waits for the `tool_call_update` of `call_id` with this status.
    pub async fn wait_tool_status(&self, call_id: &str, status: &str) -> Value {
        self.wait_update(&format!("tool call {call_id} {status}"), |u| {
            u["sessionUpdate"] == "tool_call_update"
                && u["toolCallId"] == call_id
                && u["status"] == status
        })
        .await
    }

    /// The text of every `agent_message_chunk` so far, joined.
    pub fn agent_text(&self) -> String {
        self.updates_of("agent_message_chunk")
            .iter()
            .filter_map(|u| u["content"]["text"].as_str().map(str::to_string))
            .collect()
    }

    /// Every permission request so far, answered or not.
    pub fn permission_log(&self) -> Vec<Value> {
        lock(&self.shared.seen).permission_log.clone()
    }

    pub fn elicitation_log(&self) -> Vec<Value> {
        lock(&self.shared.seen).elicitation_log.clone()
    }

    pub fn fs_reads(&self) -> Vec<PathBuf> {
        lock(&self.shared.seen).fs_reads.clone()
    }

    pub fn fs_writes(&self) -> Vec<(PathBuf, String)> {
        lock(&self.shared.seen).fs_writes.clone()
    }

    pub fn buffer(&self, path: &Path) -> Option<String> {
        lock(&self.shared.seen).buffers.get(path).cloned()
    }

    /// Requests zcode sent that this client does not serve.
    pub fn other_requests(&self) -> Vec<(String, Value)> {
        lock(&self.shared.seen).other_requests.clone()
    }

    pub fn other_notifications(&self) -> Vec<(String, Value)> {
        lock(&self.shared.seen).other_notifications.clone()
    }

    /// Every line both ways so far.
    pub fn wire(&self) -> Vec<(Dir, String)> {
        lock(&self.shared.seen).wire.clone()
    }

    pub fn stderr(&self) -> String {
        lock(&self.shared.stderr).clone()
    }

    /// The process id, for tests that signal it.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Asserts that every line zcode wrote is one JSON-RPC 2.0 message and
    /// that every update the SDK's schema could read.
    pub fn assert_clean_wire(&self) {
        let seen = lock(&self.shared.seen);
        for (dir, line) in &seen.wire {
            if *dir != Dir::Received {
                continue;
            }
            let value: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("stdout carried a non-JSON line ({e}): {line}"));
            assert_eq!(value["jsonrpc"], "2.0", "not JSON-RPC 2.0: {line}");
        }
        assert!(
            seen.unreadable_updates.is_empty(),
            "updates the ACP schema cannot read: {:#?}",
            seen.unreadable_updates
        );
    }

    /// Closes the client's side as an editor that quits would: its end
    /// of both pipes goes away.
    pub async fn disconnect(&mut self) {
        self.stdin.lock().await.take();
        if let Some(finish) = self.finish.take() {
            let _ = finish.send(());
        }
        self.connection.abort();
    }

    /// Closes stdin only (end of input), keeping stdout read.
    pub async fn close_stdin(&self) {
        self.stdin.lock().await.take();
    }

    /// Waits for the process to exit, within [`WAIT`].
    pub async fn wait_exit(&mut self) -> ExitStatus {
        match tokio::time::timeout(WAIT, self.child.wait()).await {
            Ok(status) => status.expect("waiting for zcode acp"),
            Err(_) => panic!(
                "zcode acp did not exit within {WAIT:?}\n{}",
                self.diagnostics()
            ),
        }
    }

    /// Ends the client gracefully: stdin closed, then the process waited
    /// for.
    pub async fn shutdown(mut self) -> ExitStatus {
        self.disconnect().await;
        self.wait_exit().await
    }

    /// The stderr and the last lines of the wire, for failure messages.
    pub fn diagnostics(&self) -> String {
        diagnostics(&self.shared)
    }

    /// Waits until `take` finds something; panics with the diagnostics
    /// after [`WAIT`].
    pub async fn wait_for<T>(&self, what: &str, mut take: impl FnMut(&mut Seen) -> Option<T>) -> T {
        // Woken by each change; `WAIT` only bounds a failure.
        let found = tokio::time::timeout(WAIT, async {
            loop {
                let notified = self.shared.changed.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if let Some(found) = take(&mut lock(&self.shared.seen)) {
                    return found;
                }
                notified.await;
            }
        })
        .await;
        match found {
            Ok(found) => found,
            Err(_) => panic!("waited {WAIT:?} for {what}\n{}", self.diagnostics()),
        }
    }

    async fn within<T>(&self, what: &str, future: impl Future<Output = T>) -> T {
        match tokio::time::timeout(WAIT, future).await {
            Ok(v) => v,
            Err(_) => panic!(
                "no answer to {what} within {WAIT:?}\n{}",
                self.diagnostics()
            ),
        }
    }
}

/// The client's handlers: the served requests, a catch-all for the rest,
/// and every notification recorded.
fn handlers(
    builder: agent_client_protocol::v1::Builder<Client>,
    shared: Arc<Shared>,
) -> agent_client_protocol::v1::Builder<Client, impl agent_client_protocol::HandleDispatchFrom<Agent>>
{
    let permissions = shared.clone();
    let elicitations = shared.clone();
    let reads = shared.clone();
    let writes = shared.clone();
    let other_requests = shared.clone();
    let notifications = shared;
    builder
        .name("zcode-tests")
        .on_receive_request(
            async move |request: RequestPermissionRequest, responder, _cx| {
                let request = serde_json::to_value(&request).unwrap_or(Value::Null);
                let held = permissions.clone();
                permissions.update(|s| {
                    s.permission_log.push(request.clone());
                    s.permissions.push_back(PermissionAsk {
                        request,
                        responder,
                        held,
                    });
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: CreateElicitationRequest, responder, _cx| {
                let request = serde_json::to_value(&request).unwrap_or(Value::Null);
                let held = elicitations.clone();
                elicitations.update(|s| {
                    s.elicitation_log.push(request.clone());
                    s.elicitations.push_back(ElicitationAsk {
                        request,
                        responder,
                        held,
                    });
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ReadTextFileRequest, responder, _cx| {
                let path = request.path.clone();
                let mut found = None;
                reads.update(|s| {
                    s.fs_reads.push(path.clone());
                    found = s.buffers.get(&path).cloned();
                });
                match found {
                    Some(text) => {
                        let text = slice_lines(&text, request.line, request.limit);
                        responder.respond(ReadTextFileResponse::new(text))
                    }
                    None => responder.respond_with_error(
                        agent_client_protocol::v1::schema::Error::resource_not_found(Some(
                            path.display().to_string(),
                        ))
                        .into(),
                    ),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: WriteTextFileRequest, responder, _cx| {
                writes.update(|s| {
                    s.fs_writes
                        .push((request.path.clone(), request.content.clone()));
                    s.buffers
                        .insert(request.path.clone(), request.content.clone());
                });
                responder.respond(WriteTextFileResponse::new())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: UntypedMessage, responder: Responder<Value>, _cx| {
                other_requests.update(|s| {
                    s.other_requests
                        .push((request.method.clone(), request.params.clone()))
                });
                responder.respond_with_error(agent_client_protocol::Error::method_not_found())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |message: UntypedMessage, _cx| {
                let UntypedMessage { method, params } = message;
                notifications.update(|s| {
                    if method == "session/update" {
                        if let Err(e) =
                            serde_json::from_value::<SessionNotification>(params.clone())
                        {
                            s.unreadable_updates.push((params.clone(), e.to_string()));
                        }
                        s.updates.push(params);
                    } else {
                        s.other_notifications.push((method, params));
                    }
                });
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
}

/// The stderr and the last lines of the wire, for failure messages.
fn diagnostics(shared: &Shared) -> String {
    let seen = lock(&shared.seen);
    let start = seen.wire.len().saturating_sub(40);
    let mut out = String::from("--- last wire lines\n");
    for (dir, line) in &seen.wire[start..] {
        let arrow = if *dir == Dir::Sent { "->" } else { "<-" };
        let shown: String = line.chars().take(600).collect();
        out.push_str(&format!("{arrow} {shown}\n"));
    }
    out.push_str("--- stderr\n");
    out.push_str(&lock(&shared.stderr));
    out
}

/// `line` (1-based) and `limit` as `fs/read_text_file` defines them.
fn slice_lines(text: &str, line: Option<u32>, limit: Option<u32>) -> String {
    if line.is_none() && limit.is_none() {
        return text.to_string();
    }
    let start = line.unwrap_or(1).max(1) as usize - 1;
    let count = limit.map_or(usize::MAX, |l| l as usize);
    text.split_inclusive('\n').skip(start).take(count).collect()
}

async fn collect_stderr(stderr: tokio::process::ChildStderr, shared: Arc<Shared>) {
    let mut stderr = stderr;
    let mut buf = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let mut kept = lock(&shared.stderr);
        // A runaway writer must not eat the test's memory.
        if kept.len() < 1 << 20 {
            kept.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    }
}

/// `zcode acp` with bytes in and lines out, no SDK in between.
pub struct RawAcp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    /// Every line read so far.
    pub read: Vec<String>,
    stderr: Arc<Shared>,
}

impl RawAcp {
    pub async fn start(h: &Harness) -> Self {
        let mut cmd = h.command(&["acp"], &[]);
        cmd.stdin(Stdio::piped());
        let mut child = cmd.spawn().expect("zcode acp starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let shared = Arc::new(Shared {
            seen: Mutex::new(Seen::default()),
            changed: Notify::new(),
            held: Mutex::new(Vec::new()),
            stderr: Mutex::new(String::new()),
        });
        tokio::spawn(collect_stderr(stderr, shared.clone()));
        RawAcp {
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
            read: Vec::new(),
            stderr: shared,
        }
    }

    /// Writes these bytes as they are.
    pub async fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).await.expect("zcode reads its stdin");
        stdin.flush().await.expect("zcode reads its stdin");
    }

    /// Writes one line (a newline is added).
    pub async fn send_line(&mut self, line: &str) {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.send_bytes(&bytes).await;
    }

    pub async fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string()).await;
    }

    /// The next line on stdout, parsed; panics on a non-JSON line, on end
    /// of output or after [`WAIT`].
    pub async fn next_message(&mut self) -> Value {
        let line = match tokio::time::timeout(WAIT, self.lines.next_line()).await {
            Ok(Ok(Some(line))) => line,
            Ok(Ok(None)) => panic!("stdout ended\n{}", self.diagnostics()),
            Ok(Err(e)) => panic!("reading stdout: {e}\n{}", self.diagnostics()),
            Err(_) => panic!("nothing on stdout within {WAIT:?}\n{}", self.diagnostics()),
        };
        self.read.push(line.clone());
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carried a non-JSON line ({e}): {line}"))
    }

    /// The next line on stdout, parsed, or `None` at the end of output;
    /// panics on a non-JSON line or after [`WAIT`].
    pub async fn next_message_or_end(&mut self) -> Option<Value> {
        let line = match tokio::time::timeout(WAIT, self.lines.next_line()).await {
            Ok(Ok(Some(line))) => line,
            Ok(Ok(None)) | Ok(Err(_)) => return None,
            Err(_) => panic!("nothing on stdout within {WAIT:?}\n{}", self.diagnostics()),
        };
        self.read.push(line.clone());
        Some(
            serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carried a non-JSON line ({e}): {line}")),
        )
    }

    /// Reads until a response (no `method`) with this id; notifications on
    /// the way are kept in [`Self::read`].
    pub async fn response_to(&mut self, id: &Value) -> Value {
        loop {
            let message = self.next_message().await;
            if message.get("method").is_none() && &message["id"] == id {
                return message;
            }
        }
    }

    /// Reads until any response (a message with no `method`).
    pub async fn next_response(&mut self) -> Value {
        loop {
            let message = self.next_message().await;
            if message.get("method").is_none() {
                return message;
            }
        }
    }

    /// Sends a request and reads its response.
    pub async fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.response_to(&id).await
    }

    /// `initialize` with no client capabilities; panics unless it succeeds.
    /// Starts `zcode acp` and initializes it as request 1.
    pub async fn start_initialized(h: &Harness) -> Self {
        let mut raw = Self::start(h).await;
        raw.initialize(1).await;
        raw
    }

    /// `session/new` in the project as request `id`; the whole response.
    pub async fn new_session(&mut self, h: &Harness, id: i64) -> Value {
        self.request(
            json!(id),
            "session/new",
            json!({"cwd": h.project(), "mcpServers": []}),
        )
        .await
    }

    /// `session/new` in the project as request `id`; the session id.
    pub async fn new_session_id(&mut self, h: &Harness, id: i64) -> String {
        let response = self.new_session(h, id).await;
        response["result"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no sessionId in {response}"))
            .to_string()
    }

    pub async fn initialize(&mut self, id: i64) -> Value {
        let response = self
            .request(
                json!(id),
                "initialize",
                json!({"protocolVersion": 1, "clientCapabilities": {}}),
            )
            .await;
        assert!(response.get("result").is_some(), "{response}");
        response
    }

    /// Closes stdin.
    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    pub async fn wait_exit(&mut self) -> ExitStatus {
        match tokio::time::timeout(WAIT, self.child.wait()).await {
            Ok(status) => status.expect("waiting for zcode acp"),
            Err(_) => panic!(
                "zcode acp did not exit within {WAIT:?}\n{}",
                self.diagnostics()
            ),
        }
    }

    pub fn stderr(&self) -> String {
        lock(&self.stderr.stderr).clone()
    }

    pub fn diagnostics(&self) -> String {
        let start = self.read.len().saturating_sub(20);
        format!(
            "--- last lines read\n{}\n--- stderr\n{}",
            self.read[start..].join("\n"),
            self.stderr()
        )
    }
}

/// The JSON-RPC error code of a raw response, if it is an error.
pub fn error_code(response: &Value) -> Option<i64> {
    response["error"]["code"].as_i64()
}

/// Asserts a stream of updates keeps each tool call's story in order:
/// `tool_call` first, then updates, ending in one terminal status.
pub fn assert_tool_call_story(updates: &[Value], call_id: &str) {
    let story: Vec<&Value> = updates
        .iter()
        .filter(|u| u["toolCallId"] == call_id)
        .collect();
    assert!(!story.is_empty(), "no updates for {call_id}");
    assert_eq!(
        story[0]["sessionUpdate"], "tool_call",
        "the first update of {call_id} announces it: {story:#?}"
    );
    let terminal: Vec<&&Value> = story
        .iter()
        .filter(|u| u["status"] == "completed" || u["status"] == "failed")
        .collect();
    assert_eq!(
        terminal.len(),
        1,
        "one terminal status for {call_id}: {story:#?}"
    );
    assert!(
        std::ptr::eq(*terminal[0], *story.last().unwrap()),
        "nothing follows {call_id}'s terminal status: {story:#?}"
    );
}
