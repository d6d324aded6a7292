//! One live session of the connection: its runtime, the task that turns
//! the runtime's events into the client's updates (and its approvals into
//! the client's requests), and the prompt waiting for its turn to end.

use super::approvals::{self, ClientAbilities};
use super::log::Log;
use super::updates::UpdateMapper;
use crate::permission::mode::ExecutionState;
use crate::protocol::{
    Event, Op, PermissionReply, PermissionRequest, RequestKind, ResolvedBy, TurnEnd,
};
use crate::runtime::RuntimeHandle;
use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{SessionNotification, SessionUpdate};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// How a prompt's turn ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnOutcome {
    Ended(TurnEnd),
    /// The provider failed; the message says why.
    Failed(String),
    /// The runtime stopped before the turn ended.
    Gone,
}

/// Why a prompt cannot start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusyError {
    /// A prompt of this session is still running.
    TurnRunning,
}

/// The parts of a session its event task and the handlers share.
pub struct LiveSession {
    pub id: String,
    pub workspace: PathBuf,
    ops: UnboundedSender<Op>,
    /// The prompt waiting for the running turn; `None`: no turn runs.
    turn: Mutex<Option<oneshot::Sender<TurnOutcome>>>,
    state: Mutex<ExecutionState>,
    /// The last error the runtime reported in this turn.
    last_error: Mutex<Option<String>>,
    /// The client requests still open for each approval, by request id:
    /// cancelled when the runtime no longer waits for them.
    open_asks: Mutex<HashMap<String, CancellationToken>>,
    runtime: Mutex<Option<JoinHandle<()>>>,
    pump: Mutex<Option<JoinHandle<()>>>,
}

impl LiveSession {
    pub fn new(
        handle_ops: UnboundedSender<Op>,
        id: String,
        workspace: PathBuf,
        state: ExecutionState,
        runtime: JoinHandle<()>,
    ) -> Arc<Self> {
        Arc::new(Self {
            id,
            workspace,
            ops: handle_ops,
            turn: Mutex::new(None),
            state: Mutex::new(state),
            last_error: Mutex::new(None),
            open_asks: Mutex::new(HashMap::new()),
            runtime: Mutex::new(Some(runtime)),
            pump: Mutex::new(None),
        })
    }

    pub fn state(&self) -> ExecutionState {
        self.state.lock().map(|s| *s).unwrap_or_default()
    }

    /// Sends `op` to the runtime; `false` when it has stopped.
    pub fn send(&self, op: Op) -> bool {
        self.ops.send(op).is_ok()
    }

    /// Starts a turn with `text`; the receiver gets how it ended.
    pub fn begin_turn(&self, op: Op) -> Result<oneshot::Receiver<TurnOutcome>, BusyError> {
        let Ok(mut turn) = self.turn.lock() else {
            return Err(BusyError::TurnRunning);
        };
        if turn.as_ref().is_some_and(|t| !t.is_closed()) {
            return Err(BusyError::TurnRunning);
        }
        let (tx, rx) = oneshot::channel();
        *turn = Some(tx);
        if let Ok(mut e) = self.last_error.lock() {
            *e = None;
        }
        if !self.send(op) {
            if let Some(tx) = turn.take() {
                let _ = tx.send(TurnOutcome::Gone);
            }
        }
        Ok(rx)
    }

    fn end_turn(&self, outcome: TurnOutcome) {
        if let Some(tx) = self.turn.lock().ok().and_then(|mut t| t.take()) {
            let _ = tx.send(outcome);
        }
    }

    /// Ends the runtime: the turn is interrupted, what it did is saved, and
    /// the runtime task is awaited (bounded).
    pub async fn close(&self) {
        let _ = self.ops.send(Op::Interrupt);
        let _ = self.ops.send(Op::Shutdown);
        let runtime = self.runtime.lock().ok().and_then(|mut r| r.take());
        if let Some(task) = runtime {
            let _ = tokio::time::timeout(std::time::Duration::from_secs(15), task).await;
        }
        if let Some(pump) = self.pump.lock().ok().and_then(|mut p| p.take()) {
            pump.abort();
        }
        self.end_turn(TurnOutcome::Gone);
    }
}

/// Everything the event task needs.
pub struct Pump {
    pub session: Arc<LiveSession>,
    pub conn: ConnectionTo<Client>,
    pub abilities: ClientAbilities,
    pub mapper: UpdateMapper,
    pub sub_agents: super::sub_agents::SubAgents,
    pub log: Log,
}

impl Pump {
    /// Sends `updates` to the client as this session's.
    pub fn send(&self, updates: Vec<SessionUpdate>) {
        for update in updates {
            if let Err(e) = self
                .conn
                .send_notification(SessionNotification::new(self.session.id.clone(), update))
            {
                self.log.line(format!("cannot send an update: {e}"));
            }
        }
    }

    /// The events already waiting (a resumed session's history), handled
    /// now, before the client is told the session is open.
    pub fn drain(&mut self, events: &mut UnboundedReceiver<Event>) {
        while let Ok(event) = events.try_recv() {
            self.handle(event);
        }
    }

    /// Runs until the runtime's events end.
    pub fn spawn(mut self, mut events: UnboundedReceiver<Event>) {
        let session = self.session.clone();
        let task = tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                self.handle(event);
            }
            self.session.end_turn(TurnOutcome::Gone);
        });
        if let Ok(mut pump) = session.pump.lock() {
            *pump = Some(task);
        }
    }

    pub fn handle(&mut self, event: Event) {
        let updates = self.mapper.map(&event);
        self.send(updates);
        for routed in self.sub_agents.map(&event) {
            let id = routed.session_id.unwrap_or_else(|| self.session.id.clone());
            if let Err(e) = self
                .conn
                .send_notification(SessionNotification::new(id, routed.update))
            {
                self.log.line(format!("cannot send an update: {e}"));
            }
        }
        match event {
            Event::SessionStarted { state, .. } | Event::SessionModeChanged { state } => {
                if let Ok(mut s) = self.session.state.lock() {
                    *s = state;
                }
            }
            Event::Error { message } => {
                self.log
                    .line(format!("session {}: {message}", self.session.id));
                if let Ok(mut e) = self.session.last_error.lock() {
                    *e = Some(message);
                }
            }
            Event::Notice { message } => {
                self.log
                    .line(format!("session {}: {message}", self.session.id));
            }
            Event::TurnFinished { end, .. } => {
                let outcome = match end {
                    TurnEnd::Failed => TurnOutcome::Failed(
                        self.session
                            .last_error
                            .lock()
                            .ok()
                            .and_then(|e| e.clone())
                            .unwrap_or_else(|| "the model request failed".to_string()),
                    ),
                    other => TurnOutcome::Ended(other),
                };
                self.session.end_turn(outcome);
            }
            Event::CompactionFinished { .. } => {
                self.session
                    .end_turn(TurnOutcome::Ended(TurnEnd::Completed));
            }
            Event::PermissionRequested { request } => self.ask(request),
            Event::PermissionResolved { request_id, by } => {
                let token = self
                    .session
                    .open_asks
                    .lock()
                    .ok()
                    .and_then(|mut asks| asks.remove(&request_id));
                if let Some(token) = token
                    && by != ResolvedBy::User
                {
                    token.cancel();
                }
            }
            _ => {}
        }
    }

    /// Puts `request` to the client in a task of its own (several may be
    /// open at once: parallel sub-agents), then answers the runtime.
    fn ask(&mut self, request: PermissionRequest) {
        let token = CancellationToken::new();
        if let Ok(mut asks) = self.session.open_asks.lock() {
            asks.insert(request.request_id.clone(), token.clone());
        }
        let (title, kind) = match self.mapper.call(&request.call_id) {
            Some((tool, input)) => (
                super::tool_calls::title(tool, input, self.mapper.workspace()),
                super::tool_calls::kind(tool),
            ),
            None => (
                super::tool_calls::title(&request.tool, &request.input, self.mapper.workspace()),
                super::tool_calls::kind(&request.tool),
            ),
        };
        let conn = self.conn.clone();
        let session = self.session.clone();
        let abilities = self.abilities.clone();
        tokio::spawn(async move {
            let asked = async {
                match request.kind {
                    RequestKind::Tool => {
                        let (reply, _user_denied) =
                            approvals::ask_tool(&conn, &session.id, &request, title, kind).await;
                        reply
                    }
                    RequestKind::Plan => {
                        approvals::ask_plan_without_forms(&conn, &session.id, &request).await
                    }
                    RequestKind::Question => PermissionReply::Deny { feedback: None },
                }
            };
            let reply = tokio::select! {
                reply = asked => reply,
                // The runtime answered it another way (interrupt, hook):
                // nothing to send.
                () = token.cancelled() => return,
            };
            let _ = abilities;
            session.send(Op::PermissionReply {
                request_id: request.request_id.clone(),
                reply,
            });
        });
    }
}

/// The handle's parts the session keeps: ops go in the session, events to
/// the pump.
pub fn split(
    handle: RuntimeHandle,
) -> (
    UnboundedSender<Op>,
    UnboundedReceiver<Event>,
    String,
    JoinHandle<()>,
) {
    (handle.ops, handle.events, handle.session_id, handle.task)
}
