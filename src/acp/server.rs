//! The connection: its handlers and the table of live sessions. Handlers
//! return at once (the SDK holds the dispatch loop while one runs); work
//! that waits (opening a session, a turn) runs in tasks of its own, which
//! answer the request when done.

use super::approvals::ClientAbilities;
use super::log::Log;
use super::session::{BusyError, LiveSession, Pump, TurnOutcome, split};
use super::updates::{self, UpdateMapper};
use super::{Factory, SessionRequest};
use crate::mcp::config::{Origin, ServerEntry, Transport};
use crate::permission::mode::parse_mode_choice;
use crate::protocol::{Op, TurnEnd};
use crate::runtime::session::SessionStart;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, AvailableCommand, AvailableCommandInput, AvailableCommandsUpdate,
    CancelNotification, ClientCapabilities, ContentBlock, EmbeddedResourceResource, Implementation,
    InitializeRequest, InitializeResponse, LoadSessionRequest, LoadSessionResponse,
    McpCapabilities, McpServer, NewSessionRequest, NewSessionResponse, PromptCapabilities,
    PromptRequest, PromptResponse, SessionConfigKind, SessionConfigOption,
    SessionConfigOptionValue, SessionConfigSelect, SessionConfigSelectOption, SessionUpdate,
    SetSessionConfigOptionRequest, SetSessionConfigOptionResponse, SetSessionModeRequest,
    SetSessionModeResponse, StopReason, UnstructuredCommandInput,
};
use agent_client_protocol::{Agent, Client, Error};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The connection's state.
pub struct Server {
    factory: Factory,
    settings: super::AcpSettings,
    log: Log,
    client: Mutex<ClientCapabilities>,
    sessions: Mutex<HashMap<String, Arc<LiveSession>>>,
}

fn invalid_params(message: impl Into<String>) -> Error {
    Error::invalid_params().data(serde_json::Value::String(message.into()))
}

/// The protocol's answer for a session that does not exist or is not open
/// on this connection: -32002 with `data.sessionId`.
fn session_not_found(id: &str) -> Error {
    agent_client_protocol::v1::schema::Error::session_not_found(id.to_string()).into()
}

fn invalid_request(message: impl Into<String>) -> Error {
    Error::invalid_request().data(serde_json::Value::String(message.into()))
}

impl Server {
    pub fn new(factory: Factory, settings: super::AcpSettings, log: Log) -> Arc<Self> {
        Arc::new(Self {
            factory,
            settings,
            log,
            client: Mutex::new(ClientCapabilities::default()),
            sessions: Mutex::new(HashMap::new()),
        })
    }

    fn capabilities(&self) -> ClientCapabilities {
        self.client.lock().map(|c| c.clone()).unwrap_or_default()
    }

    fn session(&self, id: &str) -> Result<Arc<LiveSession>, Error> {
        self.sessions
            .lock()
            .ok()
            .and_then(|s| s.get(id).cloned())
            .ok_or_else(|| session_not_found(id))
    }

    fn initialize(&self, request: InitializeRequest) -> InitializeResponse {
        if let Ok(mut caps) = self.client.lock() {
            *caps = request.client_capabilities.clone();
        }
        self.log.line(format!(
            "initialize: protocol {}, client {:?}",
            request.protocol_version.as_u16(),
            request.client_info.as_ref().map(|i| i.name.clone())
        ));
        InitializeResponse::new(agent_client_protocol::schema::ProtocolVersion::V1)
            .agent_capabilities(
                AgentCapabilities::new()
                    .load_session(true)
                    .prompt_capabilities(PromptCapabilities::new().embedded_context(true))
                    .mcp_capabilities(McpCapabilities::new().http(true)),
            )
            .agent_info(Implementation::new("zcode", env!("CARGO_PKG_VERSION")).title("zcode"))
    }

    /// Opens a session (new or saved) and its runtime; the updates it has
    /// to replay are sent before this returns.
    fn open(
        self: &Arc<Self>,
        conn: &ConnectionTo<Client>,
        cwd: PathBuf,
        start: SessionStart,
        mcp_servers: Vec<McpServer>,
    ) -> Result<
        (
            Arc<LiveSession>,
            Pump,
            tokio::sync::mpsc::UnboundedReceiver<crate::protocol::Event>,
        ),
        Error,
    > {
        if !cwd.is_absolute() {
            return Err(invalid_params(format!(
                "cwd must be an absolute path: {}",
                cwd.display()
            )));
        }
        let caps = self.capabilities();
        let abilities = ClientAbilities::from_capabilities(&caps);
        let mut removed_tools = Vec::new();
        if !abilities.forms {
            // Without forms nobody can answer it: the model is not offered
            // a question it would only see refused.
            removed_tools.push("AskUserQuestion".to_string());
        }
        let session_id = Arc::new(std::sync::OnceLock::new());
        let client_files =
            super::client_files::EditorFiles::new(conn.clone(), &caps.fs, session_id.clone())
                .map(|f| Arc::new(f) as Arc<dyn crate::tools::ClientFiles>);
        let (setup, store) = self
            .factory
            .open(SessionRequest {
                cwd,
                start,
                mcp_servers: mcp_servers.iter().map(server_entry).collect(),
                removed_tools,
                client_files,
            })
            .map_err(|e| invalid_params(format!("{e:#}")))?;
        let workspace = setup.workspace.clone();
        let handle = crate::runtime::start(setup, store).map_err(|e| match e {
            crate::runtime::session::SessionError::NotFound(id) => session_not_found(&id),
            other => invalid_params(other.to_string()),
        })?;
        let (ops, events, id, task) = split(handle);
        let _ = session_id.set(id.clone());
        let timers = match self.factory.open_store() {
            Ok(store) => Some(store),
            Err(e) => {
                self.log.line(format!("question clocks are not saved: {e}"));
                None
            }
        };
        let session = LiveSession::new(
            ops,
            id.clone(),
            workspace.clone(),
            task,
            self.settings.auto_continue,
            timers,
        );
        let mut pump = Pump {
            session: session.clone(),
            conn: conn.clone(),
            abilities,
            mapper: {
                let mut mapper = UpdateMapper::new(workspace.clone());
                mapper.notices = caps.session.as_ref().is_some_and(|s| s.notices.is_some());
                mapper
            },
            sub_agents: super::sub_agents::SubAgents::new(caps.subagents.is_some(), workspace),
            log: self.log.clone(),
        };
        let mut events = events;
        // `SessionStarted` is first, already sent: it gives the mode the
        // answer names, and shows nothing itself.
        if let Ok(first) = events.try_recv() {
            pump.handle(first);
        }
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.insert(id, session.clone());
        }
        Ok((session, pump, events))
    }

    /// After the client was told the session is open: its commands, then
    /// the runtime's events as they come.
    fn go_live(
        &self,
        session: &LiveSession,
        pump: Pump,
        events: tokio::sync::mpsc::UnboundedReceiver<crate::protocol::Event>,
    ) {
        pump.send(vec![self.commands_update(&session.workspace)]);
        pump.spawn(events);
    }

    /// The commands the session's client can offer: the command files and
    /// `/compact`.
    fn commands_update(&self, workspace: &Path) -> SessionUpdate {
        let mut commands = vec![AvailableCommand::new(
            "compact",
            "Summarise older history now, to free the context",
        )];
        for c in self.factory.commands(workspace) {
            let mut command = AvailableCommand::new(c.name, c.description);
            if let Some(hint) = c.hint {
                command = command.input(AvailableCommandInput::Unstructured(
                    UnstructuredCommandInput::new(hint),
                ));
            }
            commands.push(command);
        }
        SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(commands))
    }

    /// The text of a prompt: its text, the files it links as `@path`, the
    /// resources it embeds as blocks of their own.
    fn prompt_text(blocks: &[ContentBlock]) -> Result<String, Error> {
        let mut text = String::new();
        let mut attached = String::new();
        for block in blocks {
            match block {
                ContentBlock::Text(t) => text.push_str(&t.text),
                ContentBlock::ResourceLink(link) => {
                    let shown = link
                        .uri
                        .strip_prefix("file://")
                        .map(str::to_string)
                        .unwrap_or_else(|| link.uri.clone());
                    if !text.is_empty() && !text.ends_with(char::is_whitespace) {
                        text.push(' ');
                    }
                    text.push('@');
                    text.push_str(&shown);
                    text.push(' ');
                }
                ContentBlock::Resource(resource) => match &resource.resource {
                    EmbeddedResourceResource::TextResourceContents(r) => {
                        attached.push_str(&format!(
                            "\n\n<context uri=\"{}\">\n{}\n</context>",
                            r.uri, r.text
                        ));
                    }
                    _ => {
                        return Err(invalid_params(
                            "binary resources are not supported; embed text or link the file",
                        ));
                    }
                },
                ContentBlock::Image(_) | ContentBlock::Audio(_) => {
                    return Err(invalid_params(
                        "images and audio are not supported by this agent",
                    ));
                }
                _ => return Err(invalid_params("unsupported content block")),
            }
        }
        let text = format!("{}{attached}", text.trim_end());
        if text.trim().is_empty() {
            return Err(invalid_params("the prompt is empty"));
        }
        Ok(text)
    }

    /// Ends every session: their turns are interrupted and saved.
    pub async fn close_all(&self) {
        let sessions: Vec<_> = self
            .sessions
            .lock()
            .map(|mut s| s.drain().map(|(_, v)| v).collect())
            .unwrap_or_default();
        futures_util::future::join_all(sessions.iter().map(|s| s.close())).await;
    }
}

/// The session's options: ASK-7's auto-continue, on or off.
pub const AUTO_CONTINUE_OPTION: &str = "auto_continue";

fn config_options(session: &LiveSession) -> Vec<SessionConfigOption> {
    vec![
        SessionConfigOption::new(
            AUTO_CONTINUE_OPTION,
            "Auto-continue questions",
            SessionConfigKind::Select(SessionConfigSelect::new(
                if session.auto_continue() { "on" } else { "off" },
                vec![
                    SessionConfigSelectOption::new("on", "On").description(
                        "A question nobody answers continues without answers after the deadline",
                    ),
                    SessionConfigSelectOption::new("off", "Off")
                        .description("Questions wait for an answer; running countdowns pause"),
                ],
            )),
        )
        .description("Whether a question nobody answers continues on its own"),
    ]
}

/// The value of the auto-continue option: `on`/`off`, or a boolean.
fn auto_continue_value(value: &SessionConfigOptionValue) -> Option<bool> {
    if let Some(b) = value.as_bool() {
        return Some(b);
    }
    match value.as_value_id().map(|v| v.0.as_ref()) {
        Some("on") => Some(true),
        Some("off") => Some(false),
        _ => None,
    }
}

/// A server the client passes, as the MCP hub takes it. The client is the
/// user's own program, so its servers are trusted as the config's are.
fn server_entry(server: &McpServer) -> ServerEntry {
    let (name, transport) = match server {
        McpServer::Stdio(s) => (
            s.name.clone(),
            Ok(Transport::Stdio {
                command: s.command.to_string_lossy().into_owned(),
                args: s.args.clone(),
                env: s
                    .env
                    .iter()
                    .map(|v| (v.name.clone(), v.value.clone()))
                    .collect(),
            }),
        ),
        McpServer::Http(s) => (
            s.name.clone(),
            Ok(Transport::Http {
                url: s.url.clone(),
                headers: s
                    .headers
                    .iter()
                    .map(|h| (h.name.clone(), h.value.clone()))
                    .collect(),
            }),
        ),
        McpServer::Sse(s) => (
            s.name.clone(),
            Err("SSE servers are not supported; use streamable HTTP".to_string()),
        ),
        _ => (
            "unnamed".to_string(),
            Err("this kind of MCP server is not supported".to_string()),
        ),
    };
    ServerEntry {
        name,
        origin: Origin::Config,
        digest: String::new(),
        transport,
    }
}

fn stop_reason(outcome: TurnOutcome) -> Result<PromptResponse, Error> {
    match outcome {
        TurnOutcome::Ended(TurnEnd::Completed | TurnEnd::Stopped) => {
            Ok(PromptResponse::new(StopReason::EndTurn))
        }
        TurnOutcome::Ended(TurnEnd::Interrupted) => Ok(PromptResponse::new(StopReason::Cancelled)),
        TurnOutcome::Ended(TurnEnd::RoundLimit) => {
            Ok(PromptResponse::new(StopReason::MaxTurnRequests))
        }
        TurnOutcome::Ended(TurnEnd::Failed) | TurnOutcome::Failed(_) | TurnOutcome::Gone => {
            let message = match outcome {
                TurnOutcome::Failed(m) => m,
                _ => "the session ended before the turn did".to_string(),
            };
            Err(Error::internal_error().data(serde_json::Value::String(message)))
        }
    }
}

/// Serves ACP on stdin and stdout until the client closes stdin; then
/// every session's turn is interrupted and saved.
pub async fn serve_stdio(
    factory: Factory,
    settings: super::AcpSettings,
    log: Log,
) -> anyhow::Result<()> {
    let stdout = super::transport::StdoutLines::start(std::io::stdout());
    let transport = agent_client_protocol::Lines::new(
        stdout.sink(),
        super::transport::incoming_lines(tokio::io::stdin(), super::transport::MAX_LINE_BYTES),
    );
    let server = Server::new(factory, settings, log.clone());
    log.line("zcode acp started");
    // An editor ends its agent with SIGTERM (or SIGINT) as often as by
    // closing stdin: either way the turns are interrupted and saved.
    let served = tokio::select! {
        served = serve(server.clone(), transport) => served,
        signal = termination() => {
            log.line(format!("{signal}: ending the sessions"));
            Ok(())
        }
    };
    server.close_all().await;
    // The last answers are on stdout before the process ends.
    // Bounded: a connection handle still alive somewhere must not hold
    // the exit.
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        tokio::task::spawn_blocking(move || stdout.finish()),
    )
    .await;
    log.line(match &served {
        Ok(()) => "client closed the connection".to_string(),
        Err(e) => format!("connection ended: {e}"),
    });
    served.map_err(|e| anyhow::anyhow!("ACP connection failed: {e}"))
}

/// Serves ACP over `transport`.
pub async fn serve(
    server: Arc<Server>,
    transport: impl agent_client_protocol::ConnectTo<Agent> + 'static,
) -> Result<(), Error> {
    let s_init = server.clone();
    let s_new = server.clone();
    let s_load = server.clone();
    let s_prompt = server.clone();
    let s_cancel = server.clone();
    let s_mode = server.clone();
    let s_option = server.clone();
    Agent
        .v1()
        .name("zcode")
        .on_receive_request(
            async move |request: InitializeRequest, responder, _cx| {
                responder.respond(s_init.initialize(request))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder, cx| {
                let server = s_new.clone();
                tokio::spawn(async move {
                    match server.open(&cx, request.cwd, SessionStart::New, request.mcp_servers) {
                        Ok((session, pump, events)) => {
                            let _ = responder.respond(
                                NewSessionResponse::new(session.id.clone())
                                    .modes(updates::mode_state(session.state()))
                                    .config_options(config_options(&session)),
                            );
                            server.go_live(&session, pump, events);
                        }
                        Err(e) => {
                            let _ = responder.respond_with_error(e);
                        }
                    }
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest, responder, cx| {
                let server = s_load.clone();
                tokio::spawn(async move {
                    let id = request.session_id.0.to_string();
                    if server.session(&id).is_ok() {
                        let _ = responder.respond_with_error(invalid_request(format!(
                            "session {id} is already open on this connection"
                        )));
                        return;
                    }
                    match server.open(
                        &cx,
                        request.cwd,
                        SessionStart::Resume(id),
                        request.mcp_servers,
                    ) {
                        Ok((session, mut pump, mut events)) => {
                            // The history goes out before the answer, its
                            // questions with the deadlines they had.
                            pump.mapper.question_timers = session
                                .saved_timers()
                                .into_iter()
                                .map(|r| (r.call_id.clone(), r))
                                .collect();
                            pump.drain(&mut events);
                            let _ = responder.respond(
                                LoadSessionResponse::new()
                                    .modes(updates::mode_state(session.state()))
                                    .config_options(config_options(&session)),
                            );
                            server.go_live(&session, pump, events);
                        }
                        Err(e) => {
                            let _ = responder.respond_with_error(e);
                        }
                    }
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder, _cx| {
                let session = match s_prompt.session(&request.session_id.0) {
                    Ok(s) => s,
                    Err(e) => return responder.respond_with_error(e),
                };
                let text = match Server::prompt_text(&request.prompt) {
                    Ok(t) => t,
                    Err(e) => return responder.respond_with_error(e),
                };
                let op = if text.trim() == "/compact" {
                    Op::Compact
                } else {
                    match s_prompt.factory.expand_command(&session.workspace, &text) {
                        Ok(text) => Op::UserInput { text },
                        Err(e) => {
                            return responder
                                .respond_with_error(invalid_params(format!("{e:#}")));
                        }
                    }
                };
                let waiting = match session.begin_turn(op) {
                    Ok(rx) => rx,
                    Err(BusyError::TurnRunning) => {
                        return responder.respond_with_error(invalid_request(
                            "a prompt is already running in this session; cancel it or wait for it to end",
                        ));
                    }
                };
                tokio::spawn(async move {
                    let outcome = waiting.await.unwrap_or(TurnOutcome::Gone);
                    match stop_reason(outcome) {
                        Ok(response) => {
                            let _ = responder.respond(response);
                        }
                        Err(e) => {
                            let _ = responder.respond_with_error(e);
                        }
                    }
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: CancelNotification, _cx| {
                if let Ok(session) = s_cancel.session(&notification.session_id.0) {
                    session.send(Op::Interrupt);
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: SetSessionModeRequest, responder, _cx| {
                let session = match s_mode.session(&request.session_id.0) {
                    Ok(s) => s,
                    Err(e) => return responder.respond_with_error(e),
                };
                match parse_mode_choice(&request.mode_id.0) {
                    Ok(choice) => {
                        session.send(Op::SetMode { choice });
                        responder.respond(SetSessionModeResponse::new())
                    }
                    Err(e) => responder.respond_with_error(invalid_params(e.to_string())),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionConfigOptionRequest, responder, _cx| {
                let session = match s_option.session(&request.session_id.0) {
                    Ok(s) => s,
                    Err(e) => return responder.respond_with_error(e),
                };
                if request.config_id.0.as_ref() != AUTO_CONTINUE_OPTION {
                    return responder.respond_with_error(invalid_params(format!(
                        "unknown option: {} (options: {AUTO_CONTINUE_OPTION})",
                        request.config_id.0
                    )));
                }
                match auto_continue_value(&request.value) {
                    Some(on) => {
                        session.set_auto_continue(on);
                        responder.respond(SetSessionConfigOptionResponse::new(config_options(
                            &session,
                        )))
                    }
                    None => responder
                        .respond_with_error(invalid_params("auto_continue takes on or off")),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_to(transport)
        .await
}

/// Resolves when the process is asked to end (SIGTERM, SIGINT, SIGHUP).
async fn termination() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
        _ = hup.recv() => "SIGHUP",
    }
}
