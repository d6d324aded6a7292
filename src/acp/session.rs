//! One live session of the connection: its runtime, the task that turns
//! the runtime's events into the client's updates (and its approvals into
//! the client's requests), and the prompt waiting for its turn to end.

use super::approvals::{self, ClientAbilities};
use super::auto_continue::{self, ClockEvent, QuestionClock, TimerRecord};
use super::elicitation;
use super::log::Log;
use super::updates::UpdateMapper;
use crate::config::AutoContinueConfig;
use crate::permission::mode::ExecutionState;
use crate::protocol::{
    CompactionOutcome, Event, Op, PermissionReply, PermissionRequest, RequestKind, ResolvedBy,
    TurnEnd,
};
use crate::runtime::RuntimeHandle;
use crate::store::Store;
use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{SessionNotification, SessionUpdate};
use agent_client_protocol::v1::schema::{ToolCallContent, ToolCallUpdate, ToolCallUpdateFields};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;
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
    /// ASK-7's setting and durations; `enabled` follows the session's
    /// `auto_continue` option.
    auto_continue: Mutex<AutoContinueConfig>,
    /// The clocks of the questions waiting for the client, by call id.
    clocks: Mutex<HashMap<String, Arc<QuestionClock>>>,
    /// Where the clocks' states are saved; `None`: the store could not be
    /// opened (the clocks still run).
    timers: Mutex<Option<Store>>,
}

impl LiveSession {
    pub fn new(
        handle_ops: UnboundedSender<Op>,
        id: String,
        workspace: PathBuf,
        runtime: JoinHandle<()>,
        auto_continue: AutoContinueConfig,
        timers: Option<Store>,
    ) -> Arc<Self> {
        Arc::new(Self {
            id,
            workspace,
            ops: handle_ops,
            turn: Mutex::new(None),
            state: Mutex::new(ExecutionState::default()),
            last_error: Mutex::new(None),
            open_asks: Mutex::new(HashMap::new()),
            runtime: Mutex::new(Some(runtime)),
            pump: Mutex::new(None),
            auto_continue: Mutex::new(auto_continue),
            clocks: Mutex::new(HashMap::new()),
            timers: Mutex::new(timers),
        })
    }

    pub fn state(&self) -> ExecutionState {
        self.state.lock().map(|s| *s).unwrap_or_default()
    }

    /// Whether questions continue on their own (ASK-7).
    pub fn auto_continue(&self) -> bool {
        self.auto_continue
            .lock()
            .map(|c| c.enabled)
            .unwrap_or(false)
    }

    /// Turns ASK-7 on or off for this session: off pauses the running
    /// countdowns for good; on applies to the questions asked from now on.
    pub fn set_auto_continue(&self, enabled: bool) {
        if let Ok(mut config) = self.auto_continue.lock() {
            config.enabled = enabled;
        }
        if enabled {
            return;
        }
        let clocks: Vec<_> = self
            .clocks
            .lock()
            .map(|c| c.values().cloned().collect())
            .unwrap_or_default();
        for clock in clocks {
            if clock.pause() {
                self.save_timer(&clock.record());
            }
        }
    }

    /// The saved clocks of this session's questions.
    pub fn saved_timers(&self) -> Vec<TimerRecord> {
        self.timers
            .lock()
            .ok()
            .and_then(|store| {
                store
                    .as_ref()
                    .and_then(|s| auto_continue::load_for_session(s, &self.id).ok())
            })
            .unwrap_or_default()
    }

    fn save_timer(&self, record: &TimerRecord) {
        if let Ok(mut store) = self.timers.lock()
            && let Some(store) = store.as_mut()
        {
            let _ = auto_continue::save(store, &self.id, record);
        }
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
        if !self.send(op)
            && let Some(tx) = turn.take()
        {
            let _ = tx.send(TurnOutcome::Gone);
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
            // Only `/compact` starts one (a prompt never runs beside a turn).
            Event::CompactionFinished { outcome } => {
                let (said, end) = match outcome {
                    CompactionOutcome::Compacted => {
                        ("Older history was summarised.", TurnEnd::Completed)
                    }
                    CompactionOutcome::NothingToCompact => (
                        "Nothing to compact yet: there is no earlier turn.",
                        TurnEnd::Completed,
                    ),
                    CompactionOutcome::Failed => (
                        "The compaction failed; nothing changed.",
                        TurnEnd::Completed,
                    ),
                    CompactionOutcome::Interrupted => {
                        ("The compaction was cancelled.", TurnEnd::Interrupted)
                    }
                };
                self.send(vec![SessionUpdate::AgentMessageChunk(
                    super::updates::text_chunk(said),
                )]);
                self.session.end_turn(TurnOutcome::Ended(end));
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
        let log = self.log.clone();
        tokio::spawn(async move {
            let asked = async {
                match request.kind {
                    RequestKind::Tool => {
                        let (reply, user_denied) =
                            approvals::ask_tool(&conn, &session.id, &request, title, kind).await;
                        if user_denied && abilities.forms {
                            ask_deny_feedback(&conn, &session.id, &request).await
                        } else {
                            reply
                        }
                    }
                    RequestKind::Plan if abilities.forms => {
                        ask_plan_review(&conn, &session.id, &request).await
                    }
                    RequestKind::Plan => {
                        approvals::ask_plan_without_forms(&conn, &session.id, &request).await
                    }
                    RequestKind::Question if abilities.forms => {
                        ask_question(&conn, &session, &request, &log).await
                    }
                    // Not offered to the model without forms; should a
                    // call come anyway, nobody can answer it.
                    RequestKind::Question => PermissionReply::Deny { feedback: None },
                }
            };
            let reply = tokio::select! {
                reply = asked => reply,
                // The runtime answered it another way (interrupt, hook):
                // nothing to send.
                () = token.cancelled() => return,
            };
            session.send(Op::PermissionReply {
                request_id: request.request_id.clone(),
                reply,
            });
        });
    }
}

/// After a deny, "What should it do instead?": its text reaches the model
/// with the deny (APPR-7). No answer is a plain deny.
async fn ask_deny_feedback(
    conn: &ConnectionTo<Client>,
    session_id: &str,
    request: &PermissionRequest,
) -> PermissionReply {
    let form = elicitation::deny_feedback_request(session_id, &request.call_id, &request.tool);
    let feedback = match approvals::send_and_wait(conn, form).await {
        Ok(response) => elicitation::deny_feedback_text(&response),
        Err(_) => None,
    };
    PermissionReply::Deny { feedback }
}

/// The plan review as a form: approve, changes, or deny (PLAN-7..9).
async fn ask_plan_review(
    conn: &ConnectionTo<Client>,
    session_id: &str,
    request: &PermissionRequest,
) -> PermissionReply {
    let form =
        elicitation::plan_review_request(session_id, &request.call_id, approvals::plan_of(request));
    match approvals::send_and_wait(conn, form).await {
        Ok(response) => elicitation::plan_review_reply(&response),
        Err(_) => PermissionReply::Deny { feedback: None },
    }
}

/// AskUserQuestion as a form, under ASK-7's clock: after the grace the
/// client is told the deadline; at the deadline the form is withdrawn and
/// the question resolved with no answers. An answer stops the clock.
async fn ask_question(
    conn: &ConnectionTo<Client>,
    session: &Arc<LiveSession>,
    request: &PermissionRequest,
    log: &Log,
) -> PermissionReply {
    let form = match elicitation::question_request(&session.id, &request.call_id, &request.input) {
        Ok(form) => form,
        Err(e) => {
            log.line(format!(
                "cannot put question {} to the client: {e}",
                request.call_id
            ));
            return PermissionReply::Deny { feedback: None };
        }
    };
    let config = session.auto_continue.lock().map(|c| *c).unwrap_or_default();
    let (clock, mut ticks) = QuestionClock::start(&request.call_id, config, SystemTime::now());
    let clock = Arc::new(clock);
    if let Ok(mut clocks) = session.clocks.lock() {
        clocks.insert(request.call_id.clone(), clock.clone());
    }
    session.save_timer(&clock.record());
    let forget = || {
        if let Ok(mut clocks) = session.clocks.lock() {
            clocks.remove(&request.call_id);
        }
        session.save_timer(&clock.record());
    };
    let answer = approvals::send_and_wait(conn, form);
    tokio::pin!(answer);
    let mut ticking = true;
    loop {
        tokio::select! {
            answer = &mut answer => {
                let in_time = clock.stop();
                forget();
                if !in_time {
                    return auto_continue::auto_continue_reply();
                }
                return match answer {
                    Ok(response) => elicitation::question_reply(&request.input, &response),
                    Err(_) => PermissionReply::Deny { feedback: None },
                };
            }
            tick = ticks.recv(), if ticking => match tick {
                Some(ClockEvent::CountdownShown { deadline }) => {
                    let update = ToolCallUpdate::new(
                        request.call_id.clone(),
                        ToolCallUpdateFields::new().content(vec![ToolCallContent::from(
                            auto_continue::countdown_text(deadline),
                        )]),
                    )
                    .meta(auto_continue::countdown_meta(deadline));
                    let _ = conn.send_notification(SessionNotification::new(
                        session.id.clone(),
                        SessionUpdate::ToolCallUpdate(update),
                    ));
                }
                Some(ClockEvent::Expired) => {
                    forget();
                    log.line(format!(
                        "question {} continued without answers (ASK-7)",
                        request.call_id
                    ));
                    // Returning drops the wait, which withdraws the form.
                    return auto_continue::auto_continue_reply();
                }
                // Paused or stopped: only an answer ends the wait now.
                None => ticking = false,
            },
        }
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
