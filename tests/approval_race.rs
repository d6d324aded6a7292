//! APPR-3..5: the broker, and its race against the PermissionRequest hooks.

#![cfg(unix)]

mod support;

use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use support::wait::{WAIT, until, within};
use tokio::sync::{Notify, mpsc};
use tokio_util::sync::CancellationToken;
use zcode::approval::{
    Answer, ApprovalBroker, BrokerAnswer, BrokerHandle, ChannelBroker, ClaimHandle,
    NO_CLIENT_ATTACHED, RaceOutcome, ReplyError, Source, race_approval,
};
use zcode::config::hooks::{HookEntry, Hooks};
use zcode::hooks::{HookError, HookRunner, PermissionHookDecision};
use zcode::protocol::{AlwaysOption, Event, PermissionReply, PermissionRequest};

fn request(id: &str, tool: &str) -> PermissionRequest {
    PermissionRequest {
        request_id: id.to_string(),
        kind: Default::default(),
        call_id: format!("call_{id}"),
        tool: tool.to_string(),
        input: json!({"command": "make"}),
        rule_id: "build.needsApproval".into(),
        reason: "This tool needs approval".into(),
        suggestions: vec![],
        always: AlwaysOption::Project,
        full_access_available: true,
        description: None,
        edit_mode_available: false,
        allowed_prompts: Vec::new(),
        preview: None,
        agent: None,
    }
}

fn allow() -> PermissionHookDecision {
    PermissionHookDecision::Allow {
        updated_input: None,
        rules: vec![],
    }
}

fn channel() -> (ChannelBroker, BrokerHandle, mpsc::UnboundedReceiver<Event>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let (broker, handle) = ChannelBroker::new(tx);
    (broker, handle, rx)
}

/// A front end that answers every request with `reply` as soon as it sees
/// it, or once `after` is signalled.
fn answering_ui(
    mut events: mpsc::UnboundedReceiver<Event>,
    handle: BrokerHandle,
    reply: PermissionReply,
    after: Option<Arc<Notify>>,
) -> tokio::task::JoinHandle<Vec<Result<(), ReplyError>>> {
    tokio::spawn(async move {
        let mut results = Vec::new();
        while let Some(event) = events.recv().await {
            if let Event::PermissionRequested { request } = event {
                if let Some(after) = &after {
                    after.notified().await;
                }
                results.push(handle.reply(&request.request_id, reply.clone()));
            }
        }
        results
    })
}

/// A hook runner whose one PermissionRequest hook sleeps in a child process
/// and records the child's pid. The child sleeps far longer than a test
/// waits, so a test that ends has not waited for it.
fn slow_hook_runner(dir: &Path) -> HookRunner {
    let script = dir.join("slow.sh");
    let pid_file = dir.join("child.pid");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat >/dev/null\nsleep 3600 &\necho $! > '{}'\nwait\necho '{{\"decision\":\"allow\"}}'\n",
            pid_file.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    HookRunner::new(
        Hooks {
            permission_request: vec![HookEntry {
                matcher: "*".into(),
                command: format!("'{}'", script.display()),
                timeout_ms: 3_600_000,
            }],
            ..Hooks::default()
        },
        "sess_1",
        dir,
    )
}

async fn read_pid(path: &Path) -> u32 {
    let read = || {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.trim().parse().ok())
    };
    assert!(
        until(WAIT, || read().is_some()).await,
        "no pid written to {}",
        path.display()
    );
    read().unwrap_or_default()
}

fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
        Err(_) => false,
    }
}

async fn wait_dead(pid: u32) -> bool {
    until(WAIT, || !alive(pid)).await
}

async fn never_decides() -> Result<Option<PermissionHookDecision>, HookError> {
    std::future::pending().await
}

// ---------------------------------------------------------------- APPR-5

#[tokio::test]
async fn appr5_deny_broker_answers_at_once() {
    let cancel = CancellationToken::new();
    let claim = ClaimHandle::new(&cancel);
    let answer = ApprovalBroker::Deny
        .request(request("perm_1", "Bash"), claim.clone(), cancel.clone())
        .await;
    assert_eq!(
        answer,
        BrokerAnswer::Denied {
            reason: "No permission client configured".into()
        }
    );
    let answer = ApprovalBroker::Deny
        .request(request("perm_2", "AskUserQuestion"), claim, cancel)
        .await;
    assert_eq!(
        answer,
        BrokerAnswer::Denied {
            reason: "No permission client configured for AskUserQuestion".into()
        }
    );
}

#[tokio::test]
async fn appr5_deny_broker_in_a_race_with_a_silent_hook() {
    let cancel = CancellationToken::new();
    let claim = ClaimHandle::new(&cancel);
    let broker =
        ApprovalBroker::Deny.request(request("perm_1", "Bash"), claim.clone(), cancel.clone());
    let outcome = race_approval(broker, never_decides(), claim, &cancel).await;
    assert_eq!(outcome.source, Source::Broker);
    assert!(matches!(
        outcome.answer,
        Answer::Broker(BrokerAnswer::Denied { .. })
    ));
}

#[tokio::test]
async fn appr5_channel_broker_without_a_client_denies() {
    let (broker, handle, rx) = channel();
    drop(rx);
    let cancel = CancellationToken::new();
    let answer = broker
        .request(request("perm_1", "Bash"), ClaimHandle::new(&cancel), cancel)
        .await;
    assert_eq!(
        answer,
        BrokerAnswer::Denied {
            reason: NO_CLIENT_ATTACHED.into()
        }
    );
    assert_eq!(handle.pending_count(), 0);
}

// ---------------------------------------------------------------- APPR-4

// On the paused clock: a day passes in no time, and the configured 20 ms
// is measured on the same clock.
#[tokio::test(start_paused = true)]
async fn appr4_no_timeout_by_default_and_a_configured_one_denies() {
    let (broker, handle, _rx) = channel();
    let cancel = CancellationToken::new();
    let waiting = broker.request(
        request("perm_1", "Bash"),
        ClaimHandle::new(&cancel),
        cancel.clone(),
    );
    let result = tokio::time::timeout(Duration::from_secs(24 * 3600), waiting).await;
    assert!(result.is_err(), "the default broker must keep waiting");
    assert_eq!(
        handle.pending_count(),
        0,
        "dropping the future withdraws it"
    );

    let broker = broker.with_timeout(Some(Duration::from_millis(20)));
    let answer = broker
        .request(request("perm_2", "Bash"), ClaimHandle::new(&cancel), cancel)
        .await;
    let BrokerAnswer::Denied { reason } = answer else {
        panic!("expected a denial, got {answer:?}");
    };
    assert!(reason.contains("within 20 ms"), "{reason}");
    assert_eq!(handle.pending_count(), 0);
}

#[tokio::test]
async fn appr4_reply_to_unknown_request_is_an_error() {
    let (_broker, handle, _rx) = channel();
    assert_eq!(
        handle.reply("perm_nope", PermissionReply::AllowOnce),
        Err(ReplyError::UnknownRequest("perm_nope".into()))
    );
}

#[tokio::test]
async fn appr4_cancelling_the_broker_removes_its_slot() {
    let (broker, handle, mut rx) = channel();
    let cancel = CancellationToken::new();
    let waiting = broker.request(
        request("perm_1", "Bash"),
        ClaimHandle::new(&cancel),
        cancel.clone(),
    );
    assert!(handle.is_pending("perm_1"));
    assert!(matches!(
        rx.recv().await,
        Some(Event::PermissionRequested { .. })
    ));
    cancel.cancel();
    assert_eq!(waiting.await, BrokerAnswer::Cancelled);
    assert!(!handle.is_pending("perm_1"));
    assert!(handle.reply("perm_1", PermissionReply::AllowOnce).is_err());
}

#[tokio::test]
async fn appr4_duplicate_request_id_is_denied_not_overwritten() {
    let (broker, handle, _rx) = channel();
    let cancel = CancellationToken::new();
    let first = broker.request(
        request("perm_1", "Bash"),
        ClaimHandle::new(&cancel),
        cancel.clone(),
    );
    let second = broker
        .request(
            request("perm_1", "Bash"),
            ClaimHandle::new(&cancel),
            cancel.clone(),
        )
        .await;
    assert!(matches!(second, BrokerAnswer::Denied { .. }));
    handle.reply("perm_1", PermissionReply::AllowOnce).unwrap();
    assert_eq!(first.await, BrokerAnswer::Reply(PermissionReply::AllowOnce));
}

// ---------------------------------------------------------------- APPR-3

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn appr3_a_reply_sent_on_seeing_the_event_always_lands() {
    let (broker, handle, rx) = channel();
    let ui = answering_ui(rx, handle.clone(), PermissionReply::AllowOnce, None);
    for i in 0..200 {
        let cancel = CancellationToken::new();
        let claim = ClaimHandle::new(&cancel);
        let fut = broker.request(
            request(&format!("perm_{i}"), "Bash"),
            claim.clone(),
            cancel.clone(),
        );
        // Give the UI a head start: the reply may land before the first poll.
        if i % 2 == 0 {
            tokio::task::yield_now().await;
        }
        let outcome = race_approval(fut, never_decides(), claim, &cancel).await;
        assert_eq!(
            outcome.answer,
            Answer::Broker(BrokerAnswer::Reply(PermissionReply::AllowOnce)),
            "request {i}"
        );
    }
    assert_eq!(handle.pending_count(), 0);
    drop(broker);
    let results = ui.await.unwrap();
    assert_eq!(results.len(), 200);
    assert!(results.iter().all(Result::is_ok));
}

#[tokio::test]
async fn appr3_hook_allow_beats_a_slow_broker_and_the_slot_is_cleaned_up() {
    let (broker, handle, mut rx) = channel();
    let cancel = CancellationToken::new();
    let claim = ClaimHandle::new(&cancel);
    let fut = broker.request(request("perm_1", "Bash"), claim.clone(), cancel.clone());
    assert!(handle.is_pending("perm_1"));
    let outcome = race_approval(fut, async { Ok(Some(allow())) }, claim.clone(), &cancel).await;
    assert_eq!(
        outcome,
        RaceOutcome {
            answer: Answer::Hook(allow()),
            source: Source::Hook,
            hook_error: None,
        }
    );
    assert!(!handle.is_pending("perm_1"));
    assert!(matches!(
        rx.recv().await,
        Some(Event::PermissionRequested { .. })
    ));
    // The user's late answer is refused, and so is a late claim.
    assert!(handle.reply("perm_1", PermissionReply::FullAccess).is_err());
    assert!(!claim.claim());
    assert_eq!(claim.winner(), Some(Source::Hook));
}

#[tokio::test]
async fn appr3_real_hook_allow_beats_the_broker() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("allow.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ncat >/dev/null\necho '{\"decision\":\"allow\"}'\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let runner = HookRunner::new(
        Hooks {
            permission_request: vec![HookEntry {
                matcher: "Bash".into(),
                command: format!("'{}'", script.display()),
                timeout_ms: 5_000,
            }],
            ..Hooks::default()
        },
        "sess_1",
        dir.path(),
    );
    let (broker, handle, _rx) = channel();
    let cancel = CancellationToken::new();
    let claim = ClaimHandle::new(&cancel);
    let req = request("perm_1", "Bash");
    let fut = broker.request(req.clone(), claim.clone(), cancel.clone());
    let token = claim.hooks_token();
    let hooks = async move { runner.permission_request(&req, &token).await };
    let outcome = race_approval(fut, hooks, claim, &cancel).await;
    assert_eq!(outcome.answer, Answer::Hook(allow()));
    assert_eq!(handle.pending_count(), 0);
}

#[tokio::test]
async fn appr3_broker_beats_a_slow_hook_and_the_hook_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let runner = slow_hook_runner(dir.path());
    let (broker, handle, _rx) = channel();
    let cancel = CancellationToken::new();
    let claim = ClaimHandle::new(&cancel);
    let req = request("perm_1", "Bash");
    let fut = broker.request(req.clone(), claim.clone(), cancel.clone());
    let token = claim.hooks_token();
    let hooks = async move { runner.permission_request(&req, &token).await };
    let pid_file = dir.path().join("child.pid");
    let reply_handle = handle.clone();
    tokio::spawn(async move {
        read_pid(&pid_file).await;
        reply_handle
            .reply("perm_1", PermissionReply::AllowOnce)
            .unwrap();
    });
    // The hook sleeps for an hour: only the user's answer ends the race.
    let outcome = within(
        "the race",
        race_approval(fut, hooks, claim.clone(), &cancel),
    )
    .await;
    assert_eq!(outcome.source, Source::Broker);
    assert_eq!(
        outcome.answer,
        Answer::Broker(BrokerAnswer::Reply(PermissionReply::AllowOnce))
    );
    assert_eq!(outcome.hook_error, None);
    assert_eq!(claim.winner(), Some(Source::Broker));
    let pid = read_pid(&dir.path().join("child.pid")).await;
    assert!(
        wait_dead(pid).await,
        "the losing hook's child {pid} survived"
    );
}

#[tokio::test]
async fn appr3_hook_without_decision_withdraws_and_the_broker_answers() {
    let (broker, handle, rx) = channel();
    // The user answers once the hook has had its say.
    let hook_done = Arc::new(Notify::new());
    let ui = answering_ui(
        rx,
        handle,
        PermissionReply::AlwaysAllowSession,
        Some(hook_done.clone()),
    );
    let cancel = CancellationToken::new();
    let claim = ClaimHandle::new(&cancel);
    let fut = broker.request(request("perm_1", "Bash"), claim.clone(), cancel.clone());
    let hooks = async move {
        hook_done.notify_one();
        Ok(None)
    };
    let outcome = race_approval(fut, hooks, claim, &cancel).await;
    assert_eq!(
        outcome,
        RaceOutcome {
            answer: Answer::Broker(BrokerAnswer::Reply(PermissionReply::AlwaysAllowSession)),
            source: Source::Broker,
            hook_error: None,
        }
    );
    drop(broker);
    assert!(ui.await.unwrap().iter().all(Result::is_ok));
}

#[tokio::test]
async fn appr3_hook_error_withdraws_and_the_broker_answers() {
    let (broker, handle, rx) = channel();
    // The user answers once the hook has failed.
    let hook_done = Arc::new(Notify::new());
    let _ui = answering_ui(
        rx,
        handle,
        PermissionReply::Deny {
            feedback: Some("later".into()),
        },
        Some(hook_done.clone()),
    );
    let cancel = CancellationToken::new();
    let claim = ClaimHandle::new(&cancel);
    let fut = broker.request(request("perm_1", "Bash"), claim.clone(), cancel.clone());
    let failing = async move {
        hook_done.notify_one();
        Err(HookError::Failed(vec![
            "hook `x`: timed out after 5 ms".into(),
        ]))
    };
    let outcome = race_approval(fut, failing, claim, &cancel).await;
    assert_eq!(outcome.source, Source::Broker);
    assert_eq!(
        outcome.answer,
        Answer::Broker(BrokerAnswer::Reply(PermissionReply::Deny {
            feedback: Some("later".into())
        }))
    );
    assert!(matches!(outcome.hook_error, Some(HookError::Failed(_))));
}

#[tokio::test]
async fn appr3_a_broker_claim_beats_a_hook_deciding_during_the_commit() {
    // A broker with a side effect claims the race, then commits; a hook
    // deciding meanwhile must not win.
    let cancel = CancellationToken::new();
    let claim = ClaimHandle::new(&cancel);
    let hook_may_answer = Arc::new(Notify::new());
    let hook_answered = Arc::new(Notify::new());
    let committed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let broker = {
        let claim = claim.clone();
        let notify = hook_may_answer.clone();
        let answered = hook_answered.clone();
        let committed = committed.clone();
        async move {
            assert!(claim.claim());
            notify.notify_one();
            // The commit ends only after the hook has decided.
            answered.notified().await;
            committed.store(true, std::sync::atomic::Ordering::SeqCst);
            BrokerAnswer::Reply(PermissionReply::FullAccess)
        }
    };
    let hooks = {
        let notify = hook_may_answer.clone();
        let answered = hook_answered.clone();
        async move {
            notify.notified().await;
            answered.notify_one();
            Ok(Some(PermissionHookDecision::Deny {
                message: "too late".into(),
            }))
        }
    };
    let outcome = race_approval(broker, hooks, claim.clone(), &cancel).await;
    assert_eq!(
        outcome.answer,
        Answer::Broker(BrokerAnswer::Reply(PermissionReply::FullAccess))
    );
    assert!(committed.load(std::sync::atomic::Ordering::SeqCst));
    assert_eq!(claim.winner(), Some(Source::Broker));
}

#[tokio::test]
async fn appr3_reply_after_a_hook_claimed_is_refused() {
    let (broker, handle, _rx) = channel();
    let cancel = CancellationToken::new();
    let claim = ClaimHandle::new(&cancel);
    let fut = broker.request(request("perm_1", "Bash"), claim.clone(), cancel.clone());
    // Once a hook has won, the request is withdrawn and a late claim fails.
    let hooks = async { Ok(Some(allow())) };
    let outcome = race_approval(fut, hooks, claim.clone(), &cancel).await;
    assert_eq!(outcome.source, Source::Hook);
    assert!(!claim.claim());
    assert!(matches!(
        handle.reply("perm_1", PermissionReply::FullAccess),
        Err(ReplyError::UnknownRequest(_))
    ));
}

#[tokio::test]
async fn appr3_claim_refuses_a_reply_when_a_hook_won_first() {
    // Direct check of the claim order in the broker handle.
    let (broker, handle, _rx) = channel();
    let cancel = CancellationToken::new();
    let claim = ClaimHandle::new(&cancel);
    let _fut = broker.request(request("perm_1", "Bash"), claim.clone(), cancel.clone());
    // A hook wins through the race (simulated by a hook-only race).
    let outcome = race_approval(
        std::future::pending::<BrokerAnswer>(),
        async { Ok(Some(allow())) },
        claim.clone(),
        &cancel,
    )
    .await;
    assert_eq!(outcome.source, Source::Hook);
    assert_eq!(
        handle.reply("perm_1", PermissionReply::FullAccess),
        Err(ReplyError::AlreadyDecided("perm_1".into()))
    );
}

#[tokio::test]
async fn appr3_cancellation_ends_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let runner = slow_hook_runner(dir.path());
    let (broker, handle, _rx) = channel();
    let cancel = CancellationToken::new();
    let claim = ClaimHandle::new(&cancel);
    let req = request("perm_1", "Bash");
    let fut = broker.request(req.clone(), claim.clone(), cancel.clone());
    let token = claim.hooks_token();
    let hooks = async move { runner.permission_request(&req, &token).await };
    let pid_file = dir.path().join("child.pid");
    let trigger = cancel.clone();
    tokio::spawn(async move {
        read_pid(&pid_file).await;
        trigger.cancel();
    });
    // The hook sleeps for an hour: only the cancellation ends the race.
    let outcome = within("the race", race_approval(fut, hooks, claim, &cancel)).await;
    assert_eq!(outcome.answer, Answer::Cancelled);
    assert_eq!(outcome.source, Source::Cancellation);
    assert_eq!(handle.pending_count(), 0);
    let pid = read_pid(&dir.path().join("child.pid")).await;
    assert!(wait_dead(pid).await, "the hook's child {pid} survived");
}

#[tokio::test]
async fn appr4_a_finished_request_does_not_withdraw_a_newer_one_with_its_id() {
    let (broker, handle, _rx) = channel();
    let cancel = CancellationToken::new();
    let old = broker.request(
        request("perm_1", "Bash"),
        ClaimHandle::new(&cancel),
        cancel.clone(),
    );
    handle.reply("perm_1", PermissionReply::AllowOnce).unwrap();
    let new = broker.request(
        request("perm_1", "Bash"),
        ClaimHandle::new(&cancel),
        cancel.clone(),
    );
    drop(old);
    assert!(handle.is_pending("perm_1"));
    handle.reply("perm_1", PermissionReply::AllowOnce).unwrap();
    assert_eq!(new.await, BrokerAnswer::Reply(PermissionReply::AllowOnce));
}
