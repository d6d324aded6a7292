//! ASK-7: a question nobody answers continues on its own.
//!
//! One [`QuestionClock`] per question, independent of the connection: for
//! `grace` nothing happens, then [`ClockEvent::CountdownShown`] carries the
//! absolute deadline for the client's countdown, and at the deadline
//! [`ClockEvent::Expired`] says to resolve the question as accepted with no
//! answers ([`auto_continue_reply`], read by the model as "none answered",
//! ASK-4). An answer or any valid action stops the clock for good
//! ([`QuestionClock::stop`]); turning the setting off pauses a running
//! countdown, which then never fires ([`QuestionClock::pause`]). Turning
//! it on again applies to new questions only.
//!
//! The clock's state is saved with the session as a [`TimerRecord`]
//! ([`save`], [`load_for_session`]) in wall-clock milliseconds, so a
//! reloaded session resumes with the same absolute deadline
//! ([`QuestionClock::resume`]). Waiting uses tokio's clock, so tests run
//! on a paused one.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

pub use crate::store::{TimerRecord, TimerState};

use crate::config::AutoContinueConfig;
use crate::protocol::PermissionReply;
use crate::store::{Store, StoreError};

/// What a running clock reports, each at most once and in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockEvent {
    /// The grace period is over: tell the client when the question will
    /// continue, so it can show a countdown.
    CountdownShown { deadline: SystemTime },
    /// The deadline passed unanswered: resolve the question with
    /// [`auto_continue_reply`].
    Expired,
}

/// The clock of one question.
#[derive(Debug)]
pub struct QuestionClock {
    call_id: String,
    asked_at_ms: i64,
    deadline_ms: i64,
    /// Shared with the waiting task, which changes it only from Running to
    /// Expired, under the lock, before it reports.
    state: Arc<Mutex<TimerState>>,
    task: Option<JoinHandle<()>>,
}

impl QuestionClock {
    /// Starts the clock of the question `call_id`, asked at `asked_at`
    /// (taken to be now). With auto-continue off it starts paused and never
    /// fires. Needs a tokio runtime; outside one it starts paused too.
    pub fn start(
        call_id: &str,
        config: AutoContinueConfig,
        asked_at: SystemTime,
    ) -> (QuestionClock, mpsc::Receiver<ClockEvent>) {
        let asked_at_ms = unix_ms(asked_at);
        let record = TimerRecord {
            call_id: call_id.to_string(),
            asked_at_ms,
            deadline_ms: asked_at_ms.saturating_add(duration_ms(config.deadline)),
            state: TimerState::Running,
        };
        Self::resume(config, &record, asked_at)
    }

    /// A clock from a saved record, at wall-clock time `now`: the deadline
    /// stays where it was. A running record whose grace period is over
    /// shows the countdown at once, one past its deadline expires at once;
    /// with auto-continue off now, a running record pauses. Stopped, paused
    /// and expired records stay as they are and never fire.
    pub fn resume(
        config: AutoContinueConfig,
        record: &TimerRecord,
        now: SystemTime,
    ) -> (QuestionClock, mpsc::Receiver<ClockEvent>) {
        // Two events at most, so sending never waits.
        let (tx, rx) = mpsc::channel(2);
        let mut state = record.state;
        if state == TimerState::Running && !config.enabled {
            state = TimerState::Paused;
        }
        let runtime = tokio::runtime::Handle::try_current().ok();
        if state == TimerState::Running && runtime.is_none() {
            state = TimerState::Paused;
        }
        let mut clock = QuestionClock {
            call_id: record.call_id.clone(),
            asked_at_ms: record.asked_at_ms,
            deadline_ms: record.deadline_ms,
            state: Arc::new(Mutex::new(state)),
            task: None,
        };
        if let (TimerState::Running, Some(runtime)) = (state, runtime) {
            let now_ms = unix_ms(now);
            let countdown_ms = record
                .asked_at_ms
                .saturating_add(duration_ms(config.grace))
                .min(record.deadline_ms);
            let schedule = Schedule {
                start: Instant::now(),
                // Past the deadline already: no countdown, just expire.
                countdown_in: (now_ms < record.deadline_ms).then(|| until(now_ms, countdown_ms)),
                deadline_in: until(now_ms, record.deadline_ms),
                deadline: from_unix_ms(record.deadline_ms),
            };
            clock.task = Some(runtime.spawn(run(clock.state.clone(), tx, schedule)));
        }
        (clock, rx)
    }

    /// An answer or another valid action on the question: the clock stops
    /// for good (also when paused). Returns false when the question had
    /// already expired, so the late answer must not count twice.
    pub fn stop(&self) -> bool {
        let mut state = lock(&self.state);
        match *state {
            TimerState::Expired => false,
            _ => {
                *state = TimerState::Stopped;
                self.abort();
                true
            }
        }
    }

    /// Auto-continue was turned off: a running countdown pauses and never
    /// fires. Returns whether it was running.
    pub fn pause(&self) -> bool {
        let mut state = lock(&self.state);
        if *state != TimerState::Running {
            return false;
        }
        *state = TimerState::Paused;
        self.abort();
        true
    }

    pub fn state(&self) -> TimerState {
        *lock(&self.state)
    }

    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The absolute moment the question continues on its own.
    pub fn deadline(&self) -> SystemTime {
        from_unix_ms(self.deadline_ms)
    }

    /// The clock as saved with the session.
    pub fn record(&self) -> TimerRecord {
        TimerRecord {
            call_id: self.call_id.clone(),
            asked_at_ms: self.asked_at_ms,
            deadline_ms: self.deadline_ms,
            state: self.state(),
        }
    }

    fn abort(&self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

impl Drop for QuestionClock {
    fn drop(&mut self) {
        self.abort();
    }
}

/// When the waiting task reports, as delays from `start`: the moment the
/// clock was made, not the later one when its task first runs.
struct Schedule {
    start: Instant,
    countdown_in: Option<Duration>,
    deadline_in: Duration,
    deadline: SystemTime,
}

async fn run(state: Arc<Mutex<TimerState>>, tx: mpsc::Sender<ClockEvent>, schedule: Schedule) {
    let start = schedule.start;
    if let Some(delay) = schedule.countdown_in {
        sleep_for(start, delay).await;
        // Checked and sent under the lock: once `stop` or `pause` returns,
        // nothing more is reported. The receiver may be gone; the clock
        // still runs to its end.
        let current = lock(&state);
        if *current != TimerState::Running {
            return;
        }
        let _ = tx.try_send(ClockEvent::CountdownShown {
            deadline: schedule.deadline,
        });
    }
    sleep_for(start, schedule.deadline_in).await;
    let mut current = lock(&state);
    if *current != TimerState::Running {
        return;
    }
    *current = TimerState::Expired;
    let _ = tx.try_send(ClockEvent::Expired);
}

/// Sleeps until `start + delay`; a delay past what the clock can hold
/// never ends.
async fn sleep_for(start: Instant, delay: Duration) {
    match start.checked_add(delay) {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Saves a question's clock with its session (ASK-7).
pub fn save(store: &mut Store, session_id: &str, record: &TimerRecord) -> Result<(), StoreError> {
    store.save_question_timer(session_id, record)
}

/// The saved clocks of a session's questions, to resume on load.
pub fn load_for_session(store: &Store, session_id: &str) -> Result<Vec<TimerRecord>, StoreError> {
    store.question_timers(session_id)
}

/// The reply that resolves an expired question: accepted with no answers,
/// which the model reads as "none answered" (ASK-4).
pub fn auto_continue_reply() -> PermissionReply {
    PermissionReply::Answers {
        answers: Map::new(),
        annotations: None,
    }
}

/// The `_meta` of the countdown's `tool_call_update`:
/// `{"zcode": {"autoContinue": {"deadlineMs": …, "deadline": "…Z"}}}`.
pub fn countdown_meta(deadline: SystemTime) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(
        "zcode".to_string(),
        json!({"autoContinue": {
            "deadlineMs": unix_ms(deadline),
            "deadline": rfc3339_utc(deadline),
        }}),
    );
    meta
}

/// The countdown's text for clients that show only content.
pub fn countdown_text(deadline: SystemTime) -> String {
    format!(
        "No answer yet: continuing without answers at {} unless you answer first.",
        rfc3339_utc(deadline)
    )
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`; times before 1970 read as the epoch.
pub fn rfc3339_utc(at: SystemTime) -> String {
    let ms = unix_ms(at);
    let (secs, millis) = (ms.div_euclid(1000), ms.rem_euclid(1000));
    let (days, day_secs) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        day_secs / 3600,
        day_secs % 3600 / 60,
        day_secs % 60
    )
}

/// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = (if mp < 10 { mp + 3 } else { mp - 9 }) as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Milliseconds since the Unix epoch; before it reads as 0, beyond i64 as
/// i64::MAX.
pub fn unix_ms(at: SystemTime) -> i64 {
    at.duration_since(UNIX_EPOCH).map(duration_ms).unwrap_or(0)
}

/// The moment `ms` after the epoch (negative reads as the epoch).
pub fn from_unix_ms(ms: i64) -> SystemTime {
    let ms = u64::try_from(ms).unwrap_or(0);
    UNIX_EPOCH
        .checked_add(Duration::from_millis(ms))
        .unwrap_or(UNIX_EPOCH)
}

fn duration_ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// From `now_ms` to `at_ms`, zero when already past.
fn until(now_ms: i64, at_ms: i64) -> Duration {
    let ms = at_ms.saturating_sub(now_ms).max(0);
    Duration::from_millis(u64::try_from(ms).unwrap_or(0))
}

/// A poisoned lock still holds a valid state: the writers only assign.
fn lock(state: &Mutex<TimerState>) -> MutexGuard<'_, TimerState> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
#[path = "auto_continue_tests.rs"]
mod tests;
