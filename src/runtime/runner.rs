//! The runtime task: receives `Op`s, runs one turn at a time, queues inputs
//! that arrive meanwhile (RUN-3) and starts them in order.

use super::compaction;
use super::core::{SessionCore, lock};
use super::turn::run_turn;
use crate::permission::rules::{Rule, RuleKind};
use crate::project_settings::{ProjectRules, trust};
use crate::protocol::{CompactionOutcome, Event, Op, ReturnedInput, SavedRule, TurnEnd};
use crate::store::{InputStatus, StoreError, TodoStatus};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

struct RunningTurn {
    handle: JoinHandle<TurnEnd>,
    cancel: CancellationToken,
    /// The queued input this turn came from, marked done when it ends.
    input_id: Option<String>,
}

/// `/compact` while no turn runs: the compaction as a task of its own, so
/// that an interrupt cancels it and the loop keeps taking ops meanwhile.
struct RunningCompaction {
    handle: JoinHandle<()>,
    cancel: CancellationToken,
}

/// Runs until `Op::Shutdown` or until every sender is dropped; a running
/// turn is then cancelled and awaited so nothing is left half-written, and
/// what its commands left running in the background is ended.
pub async fn run(core: Arc<SessionCore>, mut ops: UnboundedReceiver<Op>) {
    let heartbeat = tokio::spawn(keep_session_lock(core.clone()));
    let mut turn: Option<RunningTurn> = None;
    let mut compacting: Option<RunningCompaction> = None;
    let mut turn_counter = 0u64;
    let mut background_poll = tokio::time::interval(crate::tools::background::POLL_INTERVAL);
    background_poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
                    // What commands left running may end (or start more)
                    // between tool calls; the front end's count follows.
                    _ = background_poll.tick(), if core.processes.is_tracking() => {
                        core.refresh_background();
                    }
                    op = ops.recv() => {
                        let Some(op) = op else { break };
                        match op {
                            Op::Shutdown => break,
                            Op::UserInput { text } => {
                                if turn.is_some() || compacting.is_some() {
                                    queue_input(&core, text);
                                } else {
                                    // RUN-3: inputs queued earlier (by a previous
                                    // process) start first, in order.
                                    let (input_id, text) = match next_queued(&core) {
                                        Some((id, older)) => {
                                            queue_input(&core, text);
                                            (Some(id), older)
                                        }
                                        None => (None, text),
                                    };
                                    turn_counter += 1;
                                    turn = Some(start_turn(&core, turn_counter, text, input_id));
                                }
                            }
                            Op::Compact => {
                                if compacting.is_some() {
                                    core.emit(Event::Notice {
                                        message: "the conversation is being compacted already".into(),
                                    });
                                } else if turn.is_some() {
                                    core.compact_requested.store(true, std::sync::atomic::Ordering::SeqCst);
                                    core.emit(Event::Notice {
                                        message: "a turn is running: the conversation will be compacted before the next request to the model".into(),
                                    });
                                } else {
                                    compacting = Some(start_compaction(&core));
                                }
                            }
                            Op::Interrupt => {
                                if let Some(c) = &compacting {
                                    c.cancel.cancel();
                                    return_queued_inputs(&core);
                                } else if let Some(t) = &turn {
                                    t.cancel.cancel();
                                    // What was typed behind the turn is the
                                    // user's again; inputs sent from now on
                                    // run as usual.
                                    return_queued_inputs(&core);
                                }
                            }
                            Op::PermissionReply { request_id, reply } => {
                                core.reply_permission(&request_id, reply);
                            }
                            Op::SetMode { choice } => {
                                if let Err(e) = core.change_mode(choice) {
                                    core.emit(Event::Error { message: e.to_string() });
                                }
                            }
                            Op::SetModel { reference } => {
                                super::model_events::switch_model(&core, &reference)
                            }
                            Op::ListProjectRules => send_project_rules(&core),
                            Op::TrustProjectSettings => trust_project_settings(&core),
                            Op::RemoveProjectRule { kind, rule } => remove_project_rule(&core, kind, &rule),
                            Op::AddProjectRule { kind, rule } => add_project_rule(&core, kind, rule),
                            Op::ShowTodos => show_todos(&core),
                            Op::ShowMemory => core.emit(Event::Notice {
                                message: super::instructions::memory_report(&core.context),
                            }),
                            Op::ShowMcp => core.emit(Event::Notice {
                                message: format!("MCP servers\n{}", crate::mcp::render_report(&core.mcp.report())),
                            }),
                            Op::TrustMcpServer { name } => trust_mcp_server(&core, &name),
                            Op::RunShell { command } => {
                                if turn.is_some() || compacting.is_some() {
                                    core.emit(Event::Error {
                                        message: format!("!{command}: a turn is running; run it once the turn ends, or interrupt the turn with Esc first"),
                                    });
                                } else {
                                    turn_counter += 1;
                                    turn = Some(start_user_shell(&core, turn_counter, command));
                                }
                            }
                        }
                    }
                    ended = wait_for_compaction(&mut compacting) => {
                        compacting = None;
                        if let Err(e) = ended {
                            core.emit(Event::Error { message: format!("the compaction stopped unexpectedly: {e}") });
                            core.emit(Event::CompactionFinished { outcome: CompactionOutcome::Failed });
                        }
                        if let Some((id, text)) = next_queued(&core) {
                            turn_counter += 1;
                            turn = Some(start_turn(&core, turn_counter, text, Some(id)));
                        }
                    }
                    ended = wait_for(&mut turn) => {
                        let finished = turn.take();
                        // A turn that failed or was interrupted leaves a
                        // `/compact` made meanwhile for the next request.
                        let ended_well = matches!(
                            ended,
                            Ok(TurnEnd::Completed | TurnEnd::Stopped | TurnEnd::RoundLimit)
                        );
        if let Err(e) = ended {
                            core.emit(Event::Error { message: format!("the turn stopped unexpectedly: {e}") });
                            super::turn::close_unanswered_calls(&core);
                            core.finish_turn(TurnEnd::Failed, None);
                        }
                        if let Some(id) = finished.and_then(|t| t.input_id) {
                            let _ = lock(&core.store).mark_input(&id, InputStatus::Done);
                        }
                        // `/compact` came during the turn, which sent no
                        // request after it: compact now, before what is queued.
                        if ended_well && core.compact_requested.load(std::sync::atomic::Ordering::SeqCst) {
                            compacting = Some(start_compaction(&core));
                        } else if let Some((id, text)) = next_queued(&core) {
                            turn_counter += 1;
                            turn = Some(start_turn(&core, turn_counter, text, Some(id)));
                        }
                    }
                }
    }
    if let Some(t) = turn {
        t.cancel.cancel();
        let _ = t.handle.await;
    }
    if let Some(c) = compacting {
        c.cancel.cancel();
        let _ = c.handle.await;
    }
    // Nothing a command started outlives the session.
    super::model_events::stop_window_lookup(&core);
    core.mcp.shutdown();
    core.end_background().await;
    heartbeat.abort();
    // STORE-2: the next process may take the session at once. A failure
    // (a full disk) leaves a lock whose holder is gone: taken over too.
    let _ = lock(&core.store).release_session();
}

/// How often a running session's lock shows its holder is alive.
const HEARTBEAT_EVERY: Duration = Duration::from_secs(20);

/// Refreshes the session lock's heartbeat (what tells a process on another
/// host that this one still runs). A lock taken over meanwhile stops the
/// session from writing.
async fn keep_session_lock(core: Arc<SessionCore>) {
    let mut tick = tokio::time::interval(HEARTBEAT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    loop {
        tick.tick().await;
        let refreshed = lock(&core.store).refresh_session_lock();
        if let Err(e @ StoreError::SessionTakenOver { .. }) = refreshed {
            core.fail_saving(&e);
            return;
        }
    }
}

/// GRANT-4: the project's rules, the database's then each settings
/// file's, allow then ask then deny, with where each comes from.
fn send_project_rules(core: &SessionCore) {
    let loaded = ProjectRules::load(&lock(&core.store), &core.project_id, &core.project_root);
    match loaded {
        Ok(loaded) => {
            let rules = loaded
                .listed()
                .into_iter()
                .map(|l| SavedRule {
                    kind: l.kind,
                    rule: l.rule,
                    source: l.source,
                    applied: l.applied,
                })
                .collect();
            core.emit(Event::ProjectRules { rules });
        }
        Err(e) => core.emit(Event::Error {
            message: format!("could not read the project's rules: {e}"),
        }),
    }
}

/// `/permissions trust`: trusts every project settings file as it is now.
fn trust_project_settings(core: &SessionCore) {
    let message = {
        let mut store = lock(&core.store);
        match ProjectRules::load(&store, &core.project_id, &core.project_root) {
            Err(e) => Err(format!("could not trust the project settings: {e}")),
            Ok(loaded) if loaded.files.is_empty() => {
                Ok("this project has no .zcode/settings.json or .claude/settings.json".to_string())
            }
            Ok(loaded) => {
                let mut names = Vec::new();
                let mut failed = None;
                for f in &loaded.files {
                    match trust::trust(&mut store, &core.project_id, f.file, &f.digest) {
                        Ok(()) => names.push(f.file.relative_path()),
                        Err(e) => failed = Some(e),
                    }
                }
                match failed {
                    Some(e) => Err(format!("could not trust the project settings: {e}")),
                    None => Ok(format!(
                        "trusted {} as it is now: its allow rules apply; a change to it needs trust again",
                        names.join(" and ")
                    )),
                }
            }
        }
    };
    match message {
        Ok(message) => core.emit(Event::Notice { message }),
        Err(message) => core.emit(Event::Error { message }),
    }
    send_project_rules(core);
}

/// GRANT-4: checks read the rules from the store, so the next one already
/// goes without it.
fn remove_project_rule(core: &SessionCore, kind: RuleKind, rule: &Rule) {
    let removed = lock(&core.store).remove_project_rule(&core.project_id, kind, rule);
    match removed {
        Ok(true) => core.emit(Event::Notice {
            message: format!("removed the project rule {} {rule}", kind.as_str()),
        }),
        Ok(false) => core.emit(Event::Notice {
            message: format!("no saved project rule {} {rule}", kind.as_str()),
        }),
        Err(e) => core.emit(Event::Error {
            message: format!("could not remove the project rule: {e}"),
        }),
    }
    send_project_rules(core);
}

/// GRANT-4: saved like an "always allow" answer; checks read the rules
/// from the store, so the next one already goes by it.
fn add_project_rule(core: &SessionCore, kind: RuleKind, rule: Rule) {
    let added =
        lock(&core.store).add_project_rules(&core.project_id, kind, std::slice::from_ref(&rule));
    match added {
        Ok(0) => core.emit(Event::Notice {
            message: format!(
                "the project rule {} {rule} was already saved",
                kind.as_str()
            ),
        }),
        Ok(_) => core.emit(Event::Notice {
            message: format!("saved the project rule {} {rule}", kind.as_str()),
        }),
        Err(e) => core.emit(Event::Error {
            message: format!("could not save the project rule: {e}"),
        }),
    }
    send_project_rules(core);
}

/// `/todos`: the list with status marks and completed/total.
fn show_todos(core: &SessionCore) {
    let todos = lock(&core.store).todos(&core.session_id);
    match todos {
        Ok(items) if items.is_empty() => core.emit(Event::Notice {
            message: "no todos in this session".into(),
        }),
        Ok(items) => {
            let done = items
                .iter()
                .filter(|t| t.status == TodoStatus::Completed)
                .count();
            let mut message = format!("todos ({done}/{} completed)", items.len());
            for item in &items {
                message.push_str(&format!("\n{} {}", item.status.mark(), item.content));
            }
            core.emit(Event::Notice { message });
        }
        Err(e) => core.emit(Event::Error {
            message: format!("could not read the todo list: {e}"),
        }),
    }
}

/// Resolves when the running turn ends; never, when there is none.
async fn wait_for(turn: &mut Option<RunningTurn>) -> Result<TurnEnd, tokio::task::JoinError> {
    match turn {
        Some(t) => (&mut t.handle).await,
        None => std::future::pending().await,
    }
}

/// Resolves when the running compaction ends; never, when there is none.
async fn wait_for_compaction(
    compacting: &mut Option<RunningCompaction>,
) -> Result<(), tokio::task::JoinError> {
    match compacting {
        Some(c) => (&mut c.handle).await,
        None => std::future::pending().await,
    }
}

/// `/compact` now: announced at once, so the front end shows it as busy.
/// A flag set for the next request is spent by this compaction.
fn start_compaction(core: &Arc<SessionCore>) -> RunningCompaction {
    core.compact_requested
        .store(false, std::sync::atomic::Ordering::SeqCst);
    core.emit(Event::CompactionStarted);
    let cancel = CancellationToken::new();
    let task_core = core.clone();
    let task_cancel = cancel.clone();
    let handle = tokio::spawn(async move {
        let outcome = compaction::compact(&task_core, &task_cancel, true).await;
        task_core.emit(Event::CompactionFinished { outcome });
    });
    RunningCompaction { handle, cancel }
}

fn start_turn(
    core: &Arc<SessionCore>,
    n: u64,
    text: String,
    input_id: Option<String>,
) -> RunningTurn {
    let cancel = CancellationToken::new();
    let task_core = core.clone();
    let task_cancel = cancel.clone();
    let handle = tokio::spawn(async move { run_turn(&task_core, n, text, task_cancel).await });
    RunningTurn {
        handle,
        cancel,
        input_id,
    }
}

/// `!command`: the user's own command, run as a turn of its own so that
/// Esc interrupts it and inputs sent meanwhile wait behind it.
fn start_user_shell(core: &Arc<SessionCore>, n: u64, command: String) -> RunningTurn {
    let cancel = CancellationToken::new();
    let task_core = core.clone();
    let task_cancel = cancel.clone();
    let handle = tokio::spawn(async move {
        super::user_shell::run_user_shell(&task_core, n, command, task_cancel).await
    });
    RunningTurn {
        handle,
        cancel,
        input_id: None,
    }
}

/// RUN-3: persisted with the mode it was typed in.
fn queue_input(core: &SessionCore, text: String) {
    let id = format!("in_{}", uuid::Uuid::new_v4().simple());
    let mode = core.state().label();
    let result = lock(&core.store).enqueue_input(&core.session_id, &id, &text, mode);
    match result {
        Ok(_) => core.emit(Event::InputQueued { id, text }),
        Err(e) => core.emit(Event::Error {
            message: format!("could not queue the input: {e}"),
        }),
    }
}

/// Cancels the queued inputs and hands them back to the front end.
fn return_queued_inputs(core: &SessionCore) {
    let cancelled = lock(&core.store).cancel_queued_inputs(&core.session_id);
    match cancelled {
        Ok(inputs) if inputs.is_empty() => {}
        Ok(inputs) => core.emit(Event::InputsReturned {
            inputs: inputs
                .into_iter()
                .map(|q| ReturnedInput {
                    id: q.id,
                    text: q.text,
                })
                .collect(),
        }),
        Err(e) => core.emit(Event::Error {
            message: format!("could not take back the queued inputs: {e}"),
        }),
    }
}

fn next_queued(core: &SessionCore) -> Option<(String, String)> {
    match lock(&core.store).claim_next_input(&core.session_id) {
        Ok(next) => next.map(|q| (q.id, q.text)),
        Err(e) => {
            core.emit(Event::Error {
                message: format!("could not read the input queue: {e}"),
            });
            None
        }
    }
}

/// `/mcp trust NAME`: remembers the trust for this project and starts the
/// server now.
fn trust_mcp_server(core: &SessionCore, name: &str) {
    let Some(digest) = core.mcp.untrusted_digest(name) else {
        core.emit(Event::Notice {
            message: format!(
                "No project MCP server named '{name}' is waiting for trust (see /mcp)."
            ),
        });
        return;
    };
    if let Err(e) =
        crate::mcp::trust::trust(&mut lock(&core.store), &core.project_id, name, &digest)
    {
        core.emit(Event::Error {
            message: format!("could not save the trust in MCP server {name}: {e}"),
        });
        return;
    }
    core.mcp.start_trusted(name);
    core.emit(Event::Notice {
        message: format!(
            "MCP server {name} is trusted for this project and starting; /mcp shows it."
        ),
    });
}
