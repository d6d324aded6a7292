//! FULL-2: the "Full access" answer to an approval as one transaction:
//! the session switches to yolo, its queued inputs follow, and a receipt
//! makes a retry of the same request a no-op.

use super::entries::{NewEntry, append, entry_kind};
use super::{Store, StoreError, parse_json, sessions};
use crate::permission::mode::{ExecutionState, Mode};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a Full access commit changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FullAccessReceipt {
    /// The session's state after the commit (yolo, plan flag kept).
    pub state: ExecutionState,
    /// The queued inputs switched to yolo, in queue order.
    pub queue_item_ids: Vec<String>,
    /// True when the request had already been committed and nothing changed.
    pub replayed: bool,
}

/// The stored receipt (`runtime/permission_full_access` payload).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredReceipt {
    request_id: String,
    queue_item_ids: Vec<String>,
    state: ExecutionState,
}

/// The id of the receipt entry of a request.
pub fn full_access_receipt_id(session_id: &str, request_id: &str) -> String {
    format!("{session_id}:{request_id}")
}

/// The id of the execution-state entry written with a receipt.
pub fn full_access_state_entry_id(session_id: &str, request_id: &str) -> String {
    format!("{session_id}:{request_id}:state")
}

/// Loads a receipt of this session, if the request was committed.
fn load_receipt(
    conn: &Connection,
    session_id: &str,
    entry_id: &str,
) -> Result<Option<FullAccessReceipt>, StoreError> {
    let row: Option<(String, String, String)> = conn
        .prepare_cached("SELECT session_id, kind, payload FROM session_entries WHERE id = ?1")?
        .query_row([entry_id], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })
        .optional()?;
    let Some((owner, kind, payload)) = row else {
        return Ok(None);
    };
    if owner != session_id || kind != entry_kind::PERMISSION_FULL_ACCESS {
        // The id is taken by something else: never treat it as a receipt.
        return Err(StoreError::DuplicateEntry(entry_id.to_string()));
    }
    let value = parse_json("session_entries", entry_id, &payload)?;
    let stored: StoredReceipt = serde_json::from_value(value).map_err(|e| {
        StoreError::corrupt(
            "session_entries",
            format!("row {entry_id}: malformed full access receipt: {e}"),
        )
    })?;
    Ok(Some(FullAccessReceipt {
        state: stored.state,
        queue_item_ids: stored.queue_item_ids,
        replayed: true,
    }))
}

/// Sets `payload.intent.mode` to `mode`, creating `intent` if missing.
fn with_intent_mode(id: &str, payload: Value, mode: &str) -> Result<Value, StoreError> {
    let Value::Object(mut object) = payload else {
        return Err(StoreError::corrupt(
            "input_queue",
            format!("input {id}: payload is not a JSON object"),
        ));
    };
    let intent = object
        .entry("intent")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(intent) = intent else {
        return Err(StoreError::corrupt(
            "input_queue",
            format!("input {id}: payload.intent is not a JSON object"),
        ));
    };
    intent.insert("mode".to_string(), Value::String(mode.to_string()));
    Ok(Value::Object(object))
}

/// Switches every queued input of the session to `mode`; returns their ids.
fn rewrite_queue(
    conn: &Connection,
    session_id: &str,
    mode: &str,
    now: i64,
) -> Result<Vec<String>, StoreError> {
    let rows = conn
        .prepare_cached(
            "SELECT id, payload FROM input_queue
             WHERE session_id = ?1 AND status = 'queued' ORDER BY seq",
        )?
        .query_map([session_id], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut ids = Vec::with_capacity(rows.len());
    for (id, text) in rows {
        let payload = with_intent_mode(&id, parse_json("input_queue", &id, &text)?, mode)?;
        let text = serde_json::to_string(&payload).map_err(StoreError::Encode)?;
        conn.prepare_cached(
            "UPDATE input_queue SET payload = ?2, updated_at = max(updated_at, ?3) WHERE id = ?1",
        )?
        .execute(params![id, text, now])?;
        ids.push(id);
    }
    Ok(ids)
}

impl Store {
    /// FULL-2: commits a Full access answer in one `BEGIN IMMEDIATE`
    /// transaction. The new state is yolo with `current`'s plan flag; the
    /// session's queued inputs are switched to yolo; an execution-state
    /// entry and the session row record the state (never the project's
    /// last selected mode: Full access is not a pick of a mode); a receipt
    /// entry `{session_id}:{request_id}` lists the rewritten inputs.
    ///
    /// If the receipt exists the call changes nothing and returns it with
    /// `replayed: true`: a retry never touches inputs queued since.
    pub fn commit_full_access(
        &mut self,
        session_id: &str,
        request_id: &str,
        current: ExecutionState,
    ) -> Result<FullAccessReceipt, StoreError> {
        let receipt_id = full_access_receipt_id(session_id, request_id);
        let state_id = full_access_state_entry_id(session_id, request_id);
        let state = ExecutionState::new(Mode::Yolo, current.plan_enabled);
        self.write_session(session_id, |tx, now| {
            sessions::require(tx, session_id)?;
            if let Some(receipt) = load_receipt(tx, session_id, &receipt_id)? {
                return Ok(receipt);
            }
            let queue_item_ids = rewrite_queue(tx, session_id, state.mode.as_str(), now)?;
            let state_payload = serde_json::to_value(state).map_err(StoreError::Encode)?;
            append(
                tx,
                session_id,
                &NewEntry::new(state_id, entry_kind::EXECUTION_STATE, state_payload),
                now,
            )?;
            sessions::set_execution(tx, session_id, state, now)?;
            let stored = StoredReceipt {
                request_id: request_id.to_string(),
                queue_item_ids,
                state,
            };
            let receipt_payload = serde_json::to_value(&stored).map_err(StoreError::Encode)?;
            append(
                tx,
                session_id,
                &NewEntry::new(
                    receipt_id,
                    entry_kind::PERMISSION_FULL_ACCESS,
                    receipt_payload,
                ),
                now,
            )?;
            Ok(FullAccessReceipt {
                state,
                queue_item_ids: stored.queue_item_ids,
                replayed: false,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn full2_intent_mode_is_set_and_other_fields_kept() {
        let p = with_intent_mode(
            "q",
            json!({"intent": {"mode": "build", "x": 1}, "y": 2}),
            "yolo",
        )
        .unwrap();
        assert_eq!(p, json!({"intent": {"mode": "yolo", "x": 1}, "y": 2}));
        let p = with_intent_mode("q", json!({}), "yolo").unwrap();
        assert_eq!(p, json!({"intent": {"mode": "yolo"}}));
        assert!(with_intent_mode("q", json!([1]), "yolo").is_err());
        assert!(with_intent_mode("q", json!({"intent": 3}), "yolo").is_err());
    }
}
