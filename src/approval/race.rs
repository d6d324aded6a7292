//! APPR-3: the user (through the broker) and the PermissionRequest hooks
//! answer the same approval; the first answer wins and the other side is
//! withdrawn. A hook without a decision, or one that fails, withdraws and
//! leaves the user to answer.

use super::broker::BrokerAnswer;
use crate::hooks::{HookError, PermissionHookDecision};
use futures_util::future::OptionFuture;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use tokio_util::sync::CancellationToken;

const OPEN: u8 = 0;
const BROKER: u8 = 1;
const HOOK: u8 = 2;

/// Who may still win one approval's race. Shared by the broker (which claims
/// before an answer with side effects, e.g. Full access, is committed) and
/// [`race_approval`] (which claims for a deciding hook).
#[derive(Debug, Clone)]
pub struct ClaimHandle {
    inner: Arc<ClaimInner>,
}

#[derive(Debug)]
struct ClaimInner {
    state: AtomicU8,
    /// Cancelled when the broker claims the race: the hooks give up.
    hooks: CancellationToken,
}

impl ClaimHandle {
    /// A fresh race; the hooks' token is a child of `cancel`.
    pub fn new(cancel: &CancellationToken) -> Self {
        Self {
            inner: Arc::new(ClaimInner {
                state: AtomicU8::new(OPEN),
                hooks: cancel.child_token(),
            }),
        }
    }

    /// The token to run the PermissionRequest hooks with: cancelled when the
    /// broker claims the race or the approval is cancelled.
    pub fn hooks_token(&self) -> CancellationToken {
        self.inner.hooks.clone()
    }

    fn take(&self, side: u8) -> bool {
        match self
            .inner
            .state
            .compare_exchange(OPEN, side, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => true,
            Err(current) => current == side,
        }
    }

    /// Claims the win for the broker: false if a hook already won. On
    /// success the hooks are told to stop. Claiming twice is fine.
    pub fn claim(&self) -> bool {
        let won = self.take(BROKER);
        if won {
            self.inner.hooks.cancel();
        }
        won
    }

    /// Claims the win for a hook: false if the broker already claimed.
    fn claim_for_hook(&self) -> bool {
        self.take(HOOK)
    }

    /// Who has claimed the race so far.
    pub fn winner(&self) -> Option<Source> {
        match self.inner.state.load(Ordering::Acquire) {
            BROKER => Some(Source::Broker),
            HOOK => Some(Source::Hook),
            _ => None,
        }
    }
}

/// Which side answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Broker,
    Hook,
    /// The approval was cancelled (interrupt) before anyone answered.
    Cancellation,
}

/// The winning answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The broker's answer: the user's reply, or a denial without the user.
    Broker(BrokerAnswer),
    Hook(PermissionHookDecision),
    Cancelled,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RaceOutcome {
    pub answer: Answer,
    pub source: Source,
    /// Why the hooks withdrew, when they failed (for the logs).
    pub hook_error: Option<HookError>,
}

impl RaceOutcome {
    fn cancelled(hook_error: Option<HookError>) -> Self {
        Self {
            answer: Answer::Cancelled,
            source: Source::Cancellation,
            hook_error,
        }
    }
}

/// APPR-3: races `broker` against the PermissionRequest `hooks`.
///
/// The broker future is created (and, for the channel broker, its request
/// registered and shown) before this is called, and it is polled first on
/// every wake-up, so at equal times the user wins. The first answer wins:
/// a hook's decision counts only if it can claim the race (the broker has
/// not claimed it for a reply); a hook with no decision (`Ok(None)`) or an
/// error withdraws and the broker is awaited alone. The loser is dropped,
/// which withdraws the broker's request or kills the hook processes.
/// `cancel` ends both.
pub async fn race_approval<B, H>(
    broker: B,
    hooks: H,
    claim: ClaimHandle,
    cancel: &CancellationToken,
) -> RaceOutcome
where
    B: Future<Output = BrokerAnswer>,
    H: Future<Output = Result<Option<PermissionHookDecision>, HookError>>,
{
    let mut broker = std::pin::pin!(broker);
    let mut hooks = Some(Box::pin(hooks));
    let mut hook_error = None;
    loop {
        let hooks_running = hooks.is_some();
        tokio::select! {
            biased;
            _ = cancel.cancelled() => return RaceOutcome::cancelled(hook_error),
            answer = &mut broker => {
                // Whatever a hook does from now on is too late.
                claim.claim();
                if answer == BrokerAnswer::Cancelled {
                    return RaceOutcome::cancelled(hook_error);
                }
                return RaceOutcome {
                    answer: Answer::Broker(answer),
                    source: Source::Broker,
                    hook_error,
                };
            }
            Some(result) = OptionFuture::from(hooks.as_mut()), if hooks_running => {
                hooks = None;
                match result {
                    Ok(Some(decision)) if claim.claim_for_hook() => {
                        return RaceOutcome {
                            answer: Answer::Hook(decision),
                            source: Source::Hook,
                            hook_error,
                        };
                    }
                    // The broker claimed first: its answer is on the way.
                    Ok(Some(_)) | Ok(None) => {}
                    // Told to stop because the broker claimed: not a failure.
                    Err(HookError::Cancelled) if claim.winner() == Some(Source::Broker) => {}
                    Err(e) => hook_error = Some(e),
                }
            }
        }
    }
}
