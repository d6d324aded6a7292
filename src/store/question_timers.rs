//! ASK-7: the auto-continue clock of each question a protocol client was
//! asked, saved with its session so that a reloaded session shows the same
//! absolute deadline. Kept in `local_setting` (scope `session`, one key per
//! tool call), so no schema change is needed.

use super::settings::{SettingKey, set};
use super::{Store, StoreError};
use rusqlite::params;
use serde::{Deserialize, Serialize};

/// Scope of settings that belong to one session.
pub const SCOPE_SESSION: &str = "session";
/// Namespace of a session's question timers; the key is the tool call id.
pub const NAMESPACE_QUESTION_TIMERS: &str = "questionTimers";

/// Where a question's clock stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimerState {
    /// Counting down to `deadline_ms`.
    Running,
    /// Answered (or another valid action): stopped for good.
    Stopped,
    /// Auto-continue was turned off while it ran: it never fires.
    Paused,
    /// The deadline passed: the question was resolved with no answers.
    Expired,
}

/// One question's clock as saved. Times are milliseconds since the Unix
/// epoch, so they mean the same moment after a restart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimerRecord {
    pub call_id: String,
    pub asked_at_ms: i64,
    pub deadline_ms: i64,
    pub state: TimerState,
}

impl Store {
    /// Saves (or replaces) the clock of one question of a session.
    pub(crate) fn save_question_timer(
        &mut self,
        session_id: &str,
        record: &TimerRecord,
    ) -> Result<(), StoreError> {
        let key = SettingKey::new(
            SCOPE_SESSION,
            session_id,
            NAMESPACE_QUESTION_TIMERS,
            &record.call_id,
        );
        let value = serde_json::to_value(record).map_err(StoreError::Encode)?;
        self.write(|tx, now| set(tx, &key, &value, now))
    }

    /// The saved clocks of a session's questions, by call id. A row that
    /// does not read as a timer is an error naming it, never skipped
    /// silently.
    pub(crate) fn question_timers(&self, session_id: &str) -> Result<Vec<TimerRecord>, StoreError> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT key, value FROM local_setting
                 WHERE scope = ?1 AND scope_id = ?2 AND namespace = ?3
                 ORDER BY key",
            )?;
            let rows = stmt.query_map(
                params![SCOPE_SESSION, session_id, NAMESPACE_QUESTION_TIMERS],
                |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?)),
            )?;
            let mut out = Vec::new();
            for row in rows {
                let (call_id, text) = row?;
                let key = SettingKey::new(
                    SCOPE_SESSION,
                    session_id,
                    NAMESPACE_QUESTION_TIMERS,
                    &call_id,
                );
                let record: TimerRecord = serde_json::from_str(&text)
                    .map_err(|e| key.malformed(format!("not a question timer: {e}")))?;
                if record.call_id != call_id {
                    return Err(key.malformed(format!(
                        "saved for call '{}' under another call's key",
                        record.call_id
                    )));
                }
                out.push(record);
            }
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ManualClock;
    use std::sync::Arc;

    fn store() -> Store {
        Store::open_in_memory_with_clock(Arc::new(ManualClock::new(1_000))).unwrap()
    }

    fn record(call_id: &str, state: TimerState) -> TimerRecord {
        TimerRecord {
            call_id: call_id.to_string(),
            asked_at_ms: 1_700_000_000_000,
            deadline_ms: 1_700_000_300_000,
            state,
        }
    }

    #[test]
    fn ask7_timers_round_trip_per_session() {
        let mut store = store();
        assert_eq!(store.question_timers("s1").unwrap(), []);
        store
            .save_question_timer("s1", &record("call-b", TimerState::Running))
            .unwrap();
        store
            .save_question_timer("s1", &record("call-a", TimerState::Stopped))
            .unwrap();
        store
            .save_question_timer("s2", &record("call-a", TimerState::Paused))
            .unwrap();
        assert_eq!(
            store.question_timers("s1").unwrap(),
            [
                record("call-a", TimerState::Stopped),
                record("call-b", TimerState::Running)
            ]
        );
        // Saving again replaces the record of that call.
        store
            .save_question_timer("s1", &record("call-b", TimerState::Expired))
            .unwrap();
        assert_eq!(
            store.question_timers("s1").unwrap()[1].state,
            TimerState::Expired
        );
        assert_eq!(
            store.question_timers("s2").unwrap(),
            [record("call-a", TimerState::Paused)]
        );
    }

    #[test]
    fn ask7_stored_shape_is_camel_case_json() {
        let value = serde_json::to_value(record("c", TimerState::Running)).unwrap();
        assert_eq!(
            value,
            serde_json::json!({
                "callId": "c", "askedAtMs": 1_700_000_000_000_i64,
                "deadlineMs": 1_700_000_300_000_i64, "state": "running"
            })
        );
    }

    #[test]
    fn ask7_a_malformed_timer_is_an_error_naming_it() {
        let mut store = store();
        let key = SettingKey::new(SCOPE_SESSION, "s1", NAMESPACE_QUESTION_TIMERS, "call-x");
        store
            .set_setting(
                &key,
                &serde_json::json!({"callId": "call-x", "state": "ticking"}),
            )
            .unwrap();
        let err = store.question_timers("s1").unwrap_err().to_string();
        assert!(err.contains("session/s1 questionTimers.call-x"), "{err}");
        // A record filed under another call's key is refused too.
        let mut store = self::store();
        store
            .set_setting(
                &key,
                &serde_json::to_value(record("call-y", TimerState::Running)).unwrap(),
            )
            .unwrap();
        assert!(store.question_timers("s1").is_err());
    }
}
