//! What the runtime tells front ends about the model's connection: each
//! retry as it happens, and a context window the server reported for a
//! model the config does not describe.
//!
//! The window lookup runs beside the session from its start (and after a
//! `/model` switch), without holding up the first screen. It also learns
//! the name a local server serves a default-named model under, which
//! front ends then show (`ServedModelFound`). A request made
//! while it runs waits for it, at most the lookup's own bound
//! ([`crate::model::context_window::LOOKUP_TIMEOUT`]): the window decides
//! the prompt (the small_window module) and compaction.

use std::sync::Arc;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::core::{SessionCore, WindowLookupTask, lock};
use crate::model::RetryObserver;
use crate::model::context_window::{LookupAnswer, WindowLookup};
use crate::model::select::SelectedModel;
use crate::protocol::Event;

/// The window compaction assumes while none is known: small enough for
/// the local servers that do not say theirs (a llama.cpp slot of 32k is
/// common), at the cost of an early summary on a larger one.
pub const UNKNOWN_WINDOW_ASSUMED: u64 = 32_768;

/// The window compaction works with.
pub fn window_for_compaction(model: &SelectedModel) -> u64 {
    model.context_window.unwrap_or(UNKNOWN_WINDOW_ASSUMED)
}

/// Emits `Event::Retrying` for every retry of a request.
pub fn retry_observer(core: &SessionCore) -> RetryObserver {
    let events = core.events.clone();
    Arc::new(move |notice| {
        let _ = events.send(Event::Retrying {
            attempt: notice.attempt,
            max_attempts: notice.max_attempts,
            delay_ms: u64::try_from(notice.delay.as_millis()).unwrap_or(u64::MAX),
            reason: notice.reason,
        });
    })
}

/// Starts asking the server for the current model's window, if the config
/// does not give it; a lookup still running for an earlier model is
/// cancelled. The task ends when the lookup's bound has passed or when
/// [`stop_window_lookup`] cancels it; its answer applies only if the
/// model is still the one it was asked for.
pub fn start_window_lookup(core: &Arc<SessionCore>) {
    stop_window_lookup(core);
    let model = core.model();
    let Some(lookup) = model.window_lookup.clone() else {
        return;
    };
    if model.context_window.is_some() && !lookup.wants_served_name() {
        return;
    }
    let (running, watcher) = watch::channel(true);
    let cancel = CancellationToken::new();
    *lock(&core.window_lookup) = Some(WindowLookupTask {
        running: watcher,
        cancel: cancel.clone(),
    });
    let core = Arc::downgrade(core);
    tokio::spawn(async move {
        let answer = tokio::select! {
            _ = cancel.cancelled() => Default::default(),
            answer = lookup.run_full() => answer,
        };
        if let Some(core) = core.upgrade() {
            apply_lookup_answer(&core, &lookup, answer);
        }
        let _ = running.send(false);
    });
}

/// Applies what the server said, if the model is still the one it was
/// asked for: a window the config did not give, then the served name.
fn apply_lookup_answer(core: &SessionCore, lookup: &Arc<WindowLookup>, answer: LookupAnswer) {
    let (provider, label, window) = {
        let mut current = lock(&core.model);
        let same = current
            .window_lookup
            .as_ref()
            .is_some_and(|l| Arc::ptr_eq(l, lookup));
        if !same {
            return;
        }
        let window = answer.window.filter(|_| current.context_window.is_none());
        if let Some(found) = window {
            current.context_window = Some(found.tokens);
        }
        (
            current.provider_id.clone(),
            format!("{}/{}", current.provider_id, current.model_id),
            window,
        )
    };
    if let Some(found) = window {
        core.emit(Event::ContextWindowFound {
            model: label.clone(),
            context_window: found.tokens,
            source: found.source.to_string(),
        });
    }
    if let Some(name) = answer.served_name {
        core.emit(Event::ServedModelFound {
            served: format!("{provider}/{name}"),
            model: label,
        });
    }
}

/// Waits (cancellably) for a lookup under way, so that the request is
/// built for the server's answer; returns at once when none runs.
pub async fn wait_for_window(core: &SessionCore, cancel: &CancellationToken) {
    let watcher = lock(&core.window_lookup)
        .as_ref()
        .map(|task| task.running.clone());
    let Some(mut watcher) = watcher else {
        return;
    };
    tokio::select! {
        _ = cancel.cancelled() => {}
        // An error means the task is gone: nothing more to wait for.
        _ = watcher.wait_for(|running| !running) => {}
    }
}

/// Cancels the lookup under way, if any (the session ends, the model
/// changes).
pub fn stop_window_lookup(core: &SessionCore) {
    if let Some(task) = lock(&core.window_lookup).take() {
        task.cancel.cancel();
    }
}

/// `/model REF` (MODEL-3): resolves, records the session's model label,
/// then swaps and asks the server for the new model's window; a reference
/// that does not resolve changes nothing.
pub fn switch_model(core: &Arc<SessionCore>, reference: &str) {
    let current = core.model();
    let resolved = match &core.model_resolver {
        Some(resolve) => resolve(reference, &current),
        None => Err("this session cannot switch models".to_string()),
    };
    let next = match resolved {
        Ok(next) => next,
        Err(message) => {
            core.emit(Event::Error { message });
            return;
        }
    };
    let label = format!("{}/{}", next.provider_id, next.model_id);
    if let Err(e) = lock(&core.store).set_session_model(&core.session_id, &label) {
        core.emit(Event::Error {
            message: format!("could not save the session's model: {e}"),
        });
    }
    let provider = next.provider.label().to_string();
    let context_window = next.context_window;
    *lock(&core.model) = next;
    core.emit(Event::ModelChanged {
        model: label,
        provider,
        context_window,
    });
    start_window_lookup(core);
}
