//! Who answers an approval (APPR-3..5): nobody (the deny broker, used when
//! no front end can ask the user) or a front end reached through the event
//! channel (the TUI, tests).

use super::race::ClaimHandle;
use crate::protocol::{Event, PermissionReply, PermissionRequest, RequestKind};
use futures_util::future::BoxFuture;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// APPR-5: the deny broker's reason.
pub const NO_CLIENT_CONFIGURED: &str = "No permission client configured";
/// The channel broker's reason when the front end is gone.
pub const NO_CLIENT_ATTACHED: &str = "No permission client attached";

/// APPR-5: the deny broker's reason for a request: a tool declared to ask
/// the user questions is named.
pub fn no_client_configured_reason(request: &PermissionRequest) -> String {
    let asks_questions = crate::tools::registry::builtin_declaration(&request.tool)
        .is_some_and(|d| d.request_kind == RequestKind::Question);
    if asks_questions {
        format!("{NO_CLIENT_CONFIGURED} for {}", request.tool)
    } else {
        NO_CLIENT_CONFIGURED.to_string()
    }
}

/// How a broker resolved a request.
#[derive(Debug, Clone, PartialEq)]
pub enum BrokerAnswer {
    /// The user's choice.
    Reply(PermissionReply),
    /// Refused without the user: no client, no answer in time. The reason
    /// reaches the model like a denial's.
    Denied { reason: String },
    /// The request was cancelled (interrupt), or a hook won its race first.
    Cancelled,
}

/// Why [`BrokerHandle::reply`] did not deliver a reply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplyError {
    #[error("no pending permission request {0}")]
    UnknownRequest(String),
    #[error("permission request {0} was already answered by a hook")]
    AlreadyDecided(String),
}

/// Where a request's answer is delivered, and the race it belongs to.
struct Slot {
    /// Tells this registration apart from a later one under the same id.
    serial: u64,
    reply: oneshot::Sender<PermissionReply>,
    claim: ClaimHandle,
}

static NEXT_SERIAL: AtomicU64 = AtomicU64::new(1);

type Pending = Arc<Mutex<HashMap<String, Slot>>>;

fn lock(pending: &Pending) -> MutexGuard<'_, HashMap<String, Slot>> {
    // Nothing panics while holding the lock; recover the map if it ever did.
    pending.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Removes a request's slot when its future ends or is dropped (a hook won,
/// the turn was cancelled).
struct SlotGuard {
    pending: Pending,
    id: String,
    serial: u64,
}

impl SlotGuard {
    /// Removes the slot; returns whether it was still there (false: a reply
    /// was delivered or refused meanwhile).
    fn remove(&self) -> bool {
        let mut pending = lock(&self.pending);
        if pending
            .get(&self.id)
            .is_some_and(|s| s.serial == self.serial)
        {
            pending.remove(&self.id);
            true
        } else {
            false
        }
    }
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Asks a front end through the event channel. Replies come back through
/// the [`BrokerHandle`] (the runtime calls it on `Op::PermissionReply`).
#[derive(Clone)]
pub struct ChannelBroker {
    events: mpsc::UnboundedSender<Event>,
    pending: Pending,
    /// APPR-4: none by default, the user may take as long as they like.
    timeout: Option<Duration>,
}

impl std::fmt::Debug for ChannelBroker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChannelBroker")
            .field("pending", &lock(&self.pending).len())
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Delivers replies to a [`ChannelBroker`]'s pending requests.
#[derive(Clone)]
pub struct BrokerHandle {
    pending: Pending,
}

impl std::fmt::Debug for BrokerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrokerHandle")
            .field("pending", &self.pending_count())
            .finish()
    }
}

fn timeout_reason(timeout: Duration) -> String {
    let ms = timeout.as_millis();
    let shown = if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    };
    format!("No answer to the permission request within {shown}; denied")
}

impl ChannelBroker {
    pub fn new(events: mpsc::UnboundedSender<Event>) -> (ChannelBroker, BrokerHandle) {
        let pending: Pending = Arc::default();
        let broker = ChannelBroker {
            events,
            pending: pending.clone(),
            timeout: None,
        };
        (broker, BrokerHandle { pending })
    }

    /// Denies requests left unanswered for `timeout` (off by default).
    pub fn with_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// Registers the request's reply slot, then emits
    /// `Event::PermissionRequested`, both before returning: a reply sent as
    /// soon as the event is seen always finds its slot. The future waits for
    /// the reply, the optional timeout or `cancel`; dropping it withdraws
    /// the request.
    pub fn request(
        &self,
        request: PermissionRequest,
        claim: ClaimHandle,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, BrokerAnswer> {
        let id = request.request_id.clone();
        let (tx, mut rx) = oneshot::channel();
        let serial = NEXT_SERIAL.fetch_add(1, Ordering::Relaxed);
        {
            let mut pending = lock(&self.pending);
            if pending.contains_key(&id) {
                let reason = format!("Duplicate permission request id {id}");
                return Box::pin(std::future::ready(BrokerAnswer::Denied { reason }));
            }
            pending.insert(
                id.clone(),
                Slot {
                    serial,
                    reply: tx,
                    claim,
                },
            );
        }
        let guard = SlotGuard {
            pending: self.pending.clone(),
            id,
            serial,
        };
        if self
            .events
            .send(Event::PermissionRequested { request })
            .is_err()
        {
            drop(guard);
            return Box::pin(std::future::ready(BrokerAnswer::Denied {
                reason: NO_CLIENT_ATTACHED.to_string(),
            }));
        }
        let timeout = self.timeout;
        Box::pin(async move {
            let expired = async {
                match timeout {
                    Some(d) => tokio::time::sleep(d).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                _ = cancel.cancelled() => {
                    guard.remove();
                    BrokerAnswer::Cancelled
                }
                reply = &mut rx => match reply {
                    Ok(reply) => BrokerAnswer::Reply(reply),
                    // The slot was dropped unanswered: a hook claimed the race.
                    Err(_) => BrokerAnswer::Cancelled,
                },
                _ = expired => {
                    if guard.remove() {
                        BrokerAnswer::Denied {
                            reason: timeout.map(timeout_reason).unwrap_or_default(),
                        }
                    } else {
                        // A reply was delivered just as the time ran out.
                        match rx.try_recv() {
                            Ok(reply) => BrokerAnswer::Reply(reply),
                            Err(_) => BrokerAnswer::Cancelled,
                        }
                    }
                }
            }
        })
    }
}

impl BrokerHandle {
    /// Delivers the user's reply. The reply first claims the request's race
    /// (so a hook answering at the same moment cannot also win); fails if
    /// the id is unknown (answered, withdrawn, never asked) or a hook has
    /// already won. Never panics.
    pub fn reply(&self, request_id: &str, reply: PermissionReply) -> Result<(), ReplyError> {
        let mut pending = lock(&self.pending);
        let slot = pending
            .remove(request_id)
            .ok_or_else(|| ReplyError::UnknownRequest(request_id.to_string()))?;
        if !slot.claim.claim() {
            return Err(ReplyError::AlreadyDecided(request_id.to_string()));
        }
        // Sent under the lock: a timeout that finds the slot gone knows the
        // reply is already in the channel.
        slot.reply
            .send(reply)
            .map_err(|_| ReplyError::UnknownRequest(request_id.to_string()))
    }

    /// Whether a request still waits for its reply.
    pub fn is_pending(&self, request_id: &str) -> bool {
        lock(&self.pending).contains_key(request_id)
    }

    pub fn pending_count(&self) -> usize {
        lock(&self.pending).len()
    }

    /// The waiting requests' ids, sorted.
    pub fn pending_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = lock(&self.pending).keys().cloned().collect();
        ids.sort();
        ids
    }
}

/// The approval broker of a session.
#[derive(Debug, Clone)]
pub enum ApprovalBroker {
    /// APPR-5: denies at once (headless without a permission client).
    Deny,
    Channel(ChannelBroker),
}

impl ApprovalBroker {
    /// Starts a request; see [`ChannelBroker::request`].
    pub fn request(
        &self,
        request: PermissionRequest,
        claim: ClaimHandle,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, BrokerAnswer> {
        match self {
            ApprovalBroker::Deny => Box::pin(std::future::ready(BrokerAnswer::Denied {
                reason: no_client_configured_reason(&request),
            })),
            ApprovalBroker::Channel(broker) => broker.request(request, claim, cancel),
        }
    }
}
