//! Every test runs on tokio's paused clock: time moves only by `advance`.

use super::*;
use tokio::sync::mpsc::error::TryRecvError;
use tokio::time::advance;

/// 2023-11-14T22:13:20Z.
const ASKED_MS: i64 = 1_700_000_000_000;

fn asked_at() -> SystemTime {
    from_unix_ms(ASKED_MS)
}

fn config() -> AutoContinueConfig {
    AutoContinueConfig::default()
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// Lets the clock's task run after the time moved.
async fn settle() {
    for _ in 0..8 {
        tokio::task::yield_now().await;
    }
}

async fn step(d: Duration) {
    advance(d).await;
    settle().await;
}

fn nothing_yet(rx: &mut mpsc::Receiver<ClockEvent>) {
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
}

/// No event now, and none can come any more.
fn silent_for_good(rx: &mut mpsc::Receiver<ClockEvent>) {
    assert!(rx.try_recv().is_err());
}

fn countdown_at(deadline_ms: i64) -> ClockEvent {
    ClockEvent::CountdownShown {
        deadline: from_unix_ms(deadline_ms),
    }
}

fn record(state: TimerState) -> TimerRecord {
    TimerRecord {
        call_id: "call-1".to_string(),
        asked_at_ms: ASKED_MS,
        deadline_ms: ASKED_MS + 300_000,
        state,
    }
}

#[tokio::test(start_paused = true)]
async fn ask7_hidden_grace_then_countdown_then_expiry() {
    let (clock, mut rx) = QuestionClock::start("call-1", config(), asked_at());
    assert_eq!(clock.state(), TimerState::Running);
    assert_eq!(clock.deadline(), from_unix_ms(ASKED_MS + 300_000));
    assert_eq!(clock.call_id(), "call-1");
    settle().await;
    nothing_yet(&mut rx);
    step(ms(59_999)).await;
    nothing_yet(&mut rx);
    step(ms(1)).await;
    assert_eq!(rx.try_recv(), Ok(countdown_at(ASKED_MS + 300_000)));
    step(ms(239_999)).await;
    nothing_yet(&mut rx);
    assert_eq!(clock.state(), TimerState::Running);
    step(ms(1)).await;
    assert_eq!(rx.try_recv(), Ok(ClockEvent::Expired));
    assert_eq!(clock.state(), TimerState::Expired);
    assert_eq!(clock.record(), record(TimerState::Expired));
    // Done: the task ended and nothing else comes.
    assert_eq!(rx.recv().await, None);
}

#[tokio::test(start_paused = true)]
async fn ask7_an_answer_during_grace_stops_the_clock_for_good() {
    let (clock, mut rx) = QuestionClock::start("call-1", config(), asked_at());
    step(secs(30)).await;
    assert!(clock.stop());
    assert_eq!(clock.state(), TimerState::Stopped);
    step(secs(3600)).await;
    silent_for_good(&mut rx);
    assert_eq!(clock.state(), TimerState::Stopped);
    // Stopping again, or pausing, changes nothing.
    assert!(clock.stop());
    assert!(!clock.pause());
    assert_eq!(clock.record().state, TimerState::Stopped);
}

#[tokio::test(start_paused = true)]
async fn ask7_an_answer_during_the_countdown_stops_it() {
    let (clock, mut rx) = QuestionClock::start("call-1", config(), asked_at());
    step(secs(61)).await;
    assert!(matches!(
        rx.try_recv(),
        Ok(ClockEvent::CountdownShown { .. })
    ));
    assert!(clock.stop());
    step(secs(3600)).await;
    silent_for_good(&mut rx);
    assert_eq!(clock.state(), TimerState::Stopped);
}

#[tokio::test(start_paused = true)]
async fn ask7_a_late_answer_after_expiry_does_not_count() {
    let (clock, mut rx) = QuestionClock::start("call-1", config(), asked_at());
    step(secs(300)).await;
    assert_eq!(rx.try_recv(), Ok(countdown_at(ASKED_MS + 300_000)));
    assert_eq!(rx.try_recv(), Ok(ClockEvent::Expired));
    assert!(!clock.stop());
    assert!(!clock.pause());
    assert_eq!(clock.state(), TimerState::Expired);
}

#[tokio::test(start_paused = true)]
async fn ask7_turning_it_off_pauses_a_running_countdown_for_good() {
    let (clock, mut rx) = QuestionClock::start("call-1", config(), asked_at());
    step(secs(90)).await;
    assert!(matches!(
        rx.try_recv(),
        Ok(ClockEvent::CountdownShown { .. })
    ));
    assert!(clock.pause());
    assert_eq!(clock.state(), TimerState::Paused);
    step(secs(24 * 3600)).await;
    silent_for_good(&mut rx);
    assert!(!clock.pause());
    // An answer to a paused question still stops it.
    assert!(clock.stop());
    assert_eq!(clock.state(), TimerState::Stopped);
}

#[tokio::test(start_paused = true)]
async fn ask7_paused_during_grace_shows_no_countdown() {
    let (clock, mut rx) = QuestionClock::start("call-1", config(), asked_at());
    step(secs(10)).await;
    assert!(clock.pause());
    step(secs(600)).await;
    silent_for_good(&mut rx);
    assert_eq!(clock.record().state, TimerState::Paused);
}

#[tokio::test(start_paused = true)]
async fn ask7_setting_off_when_asked_never_fires() {
    let off = AutoContinueConfig {
        enabled: false,
        ..config()
    };
    let (clock, mut rx) = QuestionClock::start("call-1", off, asked_at());
    assert_eq!(clock.state(), TimerState::Paused);
    step(secs(3600)).await;
    silent_for_good(&mut rx);
    // The deadline it would have had is still recorded.
    assert_eq!(clock.record(), record(TimerState::Paused));
}

#[tokio::test(start_paused = true)]
async fn ask7_short_configured_timers() {
    let short = AutoContinueConfig {
        enabled: true,
        grace: ms(0),
        deadline: ms(50),
    };
    let (_clock, mut rx) = QuestionClock::start("call-1", short, asked_at());
    settle().await;
    assert_eq!(rx.try_recv(), Ok(countdown_at(ASKED_MS + 50)));
    step(ms(50)).await;
    assert_eq!(rx.try_recv(), Ok(ClockEvent::Expired));
}

#[tokio::test(start_paused = true)]
async fn ask7_resumed_after_grace_keeps_the_absolute_deadline() {
    // Reloaded two minutes after the question, with a config that now says
    // ten seconds: the saved deadline wins.
    let now = from_unix_ms(ASKED_MS + 120_000);
    let changed = AutoContinueConfig {
        enabled: true,
        grace: secs(1),
        deadline: secs(10),
    };
    let (clock, mut rx) = QuestionClock::resume(changed, &record(TimerState::Running), now);
    settle().await;
    assert_eq!(rx.try_recv(), Ok(countdown_at(ASKED_MS + 300_000)));
    step(ms(179_999)).await;
    nothing_yet(&mut rx);
    step(ms(1)).await;
    assert_eq!(rx.try_recv(), Ok(ClockEvent::Expired));
    assert_eq!(clock.record(), record(TimerState::Expired));
}

#[tokio::test(start_paused = true)]
async fn ask7_resumed_during_grace_waits_for_the_rest_of_it() {
    let now = from_unix_ms(ASKED_MS + 10_000);
    let (_clock, mut rx) = QuestionClock::resume(config(), &record(TimerState::Running), now);
    step(ms(49_999)).await;
    nothing_yet(&mut rx);
    step(ms(1)).await;
    assert_eq!(rx.try_recv(), Ok(countdown_at(ASKED_MS + 300_000)));
}

#[tokio::test(start_paused = true)]
async fn ask7_resumed_past_the_deadline_expires_at_once() {
    let now = from_unix_ms(ASKED_MS + 400_000);
    let (clock, mut rx) = QuestionClock::resume(config(), &record(TimerState::Running), now);
    settle().await;
    // No countdown for a deadline already gone.
    assert_eq!(rx.try_recv(), Ok(ClockEvent::Expired));
    assert_eq!(clock.state(), TimerState::Expired);
}

#[tokio::test(start_paused = true)]
async fn ask7_resumed_with_the_setting_off_pauses() {
    let off = AutoContinueConfig {
        enabled: false,
        ..config()
    };
    let (clock, mut rx) =
        QuestionClock::resume(off, &record(TimerState::Running), from_unix_ms(ASKED_MS));
    assert_eq!(clock.state(), TimerState::Paused);
    step(secs(600)).await;
    silent_for_good(&mut rx);
}

#[tokio::test(start_paused = true)]
async fn ask7_finished_records_stay_finished() {
    for state in [TimerState::Stopped, TimerState::Paused, TimerState::Expired] {
        let (clock, mut rx) =
            QuestionClock::resume(config(), &record(state), from_unix_ms(ASKED_MS));
        step(secs(600)).await;
        silent_for_good(&mut rx);
        assert_eq!(clock.state(), state);
    }
}

#[tokio::test(start_paused = true)]
async fn ask7_absurd_saved_times_never_panic() {
    for (asked_at_ms, deadline_ms) in [
        (i64::MAX, i64::MAX),
        (i64::MIN, i64::MIN),
        (0, i64::MAX),
        (i64::MAX, 0),
        (-5, -1),
    ] {
        let record = TimerRecord {
            call_id: "c".to_string(),
            asked_at_ms,
            deadline_ms,
            state: TimerState::Running,
        };
        let (clock, _rx) = QuestionClock::resume(config(), &record, asked_at());
        step(secs(1)).await;
        let _ = clock.deadline();
        let _ = rfc3339_utc(clock.deadline());
        let _ = clock.record();
    }
}

#[tokio::test(start_paused = true)]
async fn ask7_a_dropped_receiver_does_not_stop_or_break_the_clock() {
    let (clock, rx) = QuestionClock::start("call-1", config(), asked_at());
    drop(rx);
    step(secs(300)).await;
    assert_eq!(clock.state(), TimerState::Expired);
}

#[tokio::test(start_paused = true)]
async fn ask7_dropping_the_clock_ends_its_task() {
    let (clock, mut rx) = QuestionClock::start("call-1", config(), asked_at());
    drop(clock);
    settle().await;
    assert_eq!(rx.recv().await, None);
}

#[test]
fn ask7_outside_a_runtime_the_clock_starts_paused() {
    let (clock, mut rx) = QuestionClock::start("call-1", config(), asked_at());
    assert_eq!(clock.state(), TimerState::Paused);
    assert!(rx.try_recv().is_err());
}

#[tokio::test(start_paused = true)]
async fn ask7_saved_with_the_session_and_resumed_after_a_restart() {
    let mut store = Store::open_in_memory().unwrap();
    let (clock, _rx) = QuestionClock::start("call-1", config(), asked_at());
    save(&mut store, "sess", &clock.record()).unwrap();
    drop(clock);
    let (other, _rx) = QuestionClock::start("call-2", config(), asked_at());
    assert!(other.stop());
    save(&mut store, "sess", &other.record()).unwrap();

    let loaded = load_for_session(&store, "sess").unwrap();
    assert_eq!(loaded.len(), 2);
    assert_eq!(loaded[0], record(TimerState::Running));
    assert_eq!(loaded[1].state, TimerState::Stopped);
    assert_eq!(load_for_session(&store, "another").unwrap(), []);

    let (resumed, mut rx) =
        QuestionClock::resume(config(), &loaded[0], from_unix_ms(ASKED_MS + 250_000));
    assert_eq!(resumed.deadline(), from_unix_ms(ASKED_MS + 300_000));
    settle().await;
    assert_eq!(rx.try_recv(), Ok(countdown_at(ASKED_MS + 300_000)));
    step(secs(50)).await;
    assert_eq!(rx.try_recv(), Ok(ClockEvent::Expired));
    save(&mut store, "sess", &resumed.record()).unwrap();
    assert_eq!(
        load_for_session(&store, "sess").unwrap()[0].state,
        TimerState::Expired
    );
}

#[test]
fn ask7_expiry_resolves_as_none_answered() {
    assert_eq!(
        auto_continue_reply(),
        PermissionReply::Answers {
            answers: Map::new(),
            annotations: None
        }
    );
}

#[test]
fn ask7_countdown_meta_and_text_name_the_deadline() {
    let deadline = from_unix_ms(ASKED_MS + 300_000);
    assert_eq!(
        Value::Object(countdown_meta(deadline)),
        json!({"zcode": {"autoContinue": {
            "deadlineMs": 1_700_000_300_000_i64,
            "deadline": "2023-11-14T22:18:20.000Z"
        }}})
    );
    assert!(countdown_text(deadline).contains("2023-11-14T22:18:20.000Z"));
}

#[test]
fn rfc3339_utc_known_dates() {
    assert_eq!(rfc3339_utc(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    assert_eq!(
        rfc3339_utc(from_unix_ms(951_782_400_123)),
        "2000-02-29T00:00:00.123Z"
    );
    assert_eq!(
        rfc3339_utc(from_unix_ms(1_798_761_599_999)),
        "2026-12-31T23:59:59.999Z"
    );
    // Before the epoch reads as the epoch.
    let before = UNIX_EPOCH.checked_sub(secs(10)).unwrap();
    assert_eq!(unix_ms(before), 0);
    assert_eq!(from_unix_ms(-1), UNIX_EPOCH);
}
