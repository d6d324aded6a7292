//! The `input_queue` table: user input typed while a turn runs (RUN-3).

use super::{Store, StoreError, parse_json, sessions};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde_json::{Value, json};
use std::fmt;

/// Life cycle of a queued input: `queued → started → done`, and `queued` or
/// `started → cancelled`. `done` and `cancelled` are final.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InputStatus {
    Queued,
    Started,
    Done,
    Cancelled,
}

impl InputStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            InputStatus::Queued => "queued",
            InputStatus::Started => "started",
            InputStatus::Done => "done",
            InputStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "queued" => Some(InputStatus::Queued),
            "started" => Some(InputStatus::Started),
            "done" => Some(InputStatus::Done),
            "cancelled" => Some(InputStatus::Cancelled),
            _ => None,
        }
    }

    /// Whether an input may go from `self` to `to`.
    pub(crate) fn can_become(self, to: InputStatus) -> bool {
        use InputStatus::*;
        matches!(
            (self, to),
            (Queued, Started) | (Queued, Cancelled) | (Started, Done) | (Started, Cancelled)
        )
    }
}

impl fmt::Display for InputStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A stored queued input.
#[derive(Debug, Clone, PartialEq)]
pub struct QueuedInput {
    pub id: String,
    pub session_id: String,
    /// 1, 2, 3, … per session, in enqueue order.
    pub seq: i64,
    pub text: String,
    /// At least `{"intent": {"mode": …}}`.
    pub payload: Value,
    pub status: InputStatus,
    pub created_at: i64,
    pub updated_at: i64,
}

impl QueuedInput {
    /// The mode the input was typed in (`payload.intent.mode`).
    pub fn intent_mode(&self) -> Option<&str> {
        self.payload
            .get("intent")
            .and_then(|i| i.get("mode"))
            .and_then(Value::as_str)
    }
}

const COLUMNS: &str = "id, session_id, seq, text, payload, status, created_at, updated_at";

struct RawInput {
    id: String,
    session_id: String,
    seq: i64,
    text: String,
    payload: String,
    status: String,
    created_at: i64,
    updated_at: i64,
}

impl RawInput {
    fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: row.get(0)?,
            session_id: row.get(1)?,
            seq: row.get(2)?,
            text: row.get(3)?,
            payload: row.get(4)?,
            status: row.get(5)?,
            created_at: row.get(6)?,
            updated_at: row.get(7)?,
        })
    }

    fn into_record(self) -> Result<QueuedInput, StoreError> {
        let status = InputStatus::parse(&self.status).ok_or_else(|| {
            StoreError::corrupt(
                "input_queue",
                format!("input {}: unknown status '{}'", self.id, self.status),
            )
        })?;
        let payload = parse_json("input_queue", &self.id, &self.payload)?;
        Ok(QueuedInput {
            id: self.id,
            session_id: self.session_id,
            seq: self.seq,
            text: self.text,
            payload,
            status,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

fn load(conn: &Connection, id: &str) -> Result<Option<QueuedInput>, StoreError> {
    let raw = conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM input_queue WHERE id = ?1"))?
        .query_row([id], RawInput::from_row)
        .optional()?;
    raw.map(RawInput::into_record).transpose()
}

fn next_queued(conn: &Connection, session_id: &str) -> Result<Option<QueuedInput>, StoreError> {
    let raw = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM input_queue
             WHERE session_id = ?1 AND status = 'queued' ORDER BY seq LIMIT 1"
        ))?
        .query_row([session_id], RawInput::from_row)
        .optional()?;
    raw.map(RawInput::into_record).transpose()
}

fn transition(
    conn: &Connection,
    current: QueuedInput,
    to: InputStatus,
    now: i64,
) -> Result<QueuedInput, StoreError> {
    if !current.status.can_become(to) {
        return Err(StoreError::InvalidInputTransition {
            id: current.id,
            from: current.status.as_str(),
            to: to.as_str(),
        });
    }
    let updated_at = now.max(current.updated_at);
    conn.prepare_cached("UPDATE input_queue SET status = ?2, updated_at = ?3 WHERE id = ?1")?
        .execute(params![current.id, to.as_str(), updated_at])?;
    Ok(QueuedInput {
        status: to,
        updated_at,
        ..current
    })
}

impl Store {
    /// RUN-3: queues an input for a session, after everything queued before.
    pub fn enqueue_input(
        &mut self,
        session_id: &str,
        id: &str,
        text: &str,
        intent_mode: &str,
    ) -> Result<QueuedInput, StoreError> {
        let payload = json!({ "intent": { "mode": intent_mode } });
        self.write_session(session_id, |tx, now| {
            sessions::require(tx, session_id)?;
            let taken = tx
                .prepare_cached("SELECT 1 FROM input_queue WHERE id = ?1")?
                .exists([id])?;
            if taken {
                return Err(StoreError::DuplicateInput(id.to_string()));
            }
            let seq: i64 = tx
                .prepare_cached(
                    "SELECT coalesce(max(seq), 0) + 1 FROM input_queue WHERE session_id = ?1",
                )?
                .query_row([session_id], |row| row.get(0))?;
            let text_payload = serde_json::to_string(&payload).map_err(StoreError::Encode)?;
            tx.prepare_cached(&format!(
                "INSERT INTO input_queue ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6, ?6)"
            ))?
            .execute(params![id, session_id, seq, text, text_payload, now])?;
            Ok(QueuedInput {
                id: id.to_string(),
                session_id: session_id.to_string(),
                seq,
                text: text.to_string(),
                payload: payload.clone(),
                status: InputStatus::Queued,
                created_at: now,
                updated_at: now,
            })
        })
    }

    /// The inputs of a session still waiting (status `queued`), in order.
    pub fn queued_inputs(&self, session_id: &str) -> Result<Vec<QueuedInput>, StoreError> {
        self.read(|conn| {
            let raws = conn
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM input_queue
                     WHERE session_id = ?1 AND status = 'queued' ORDER BY seq"
                ))?
                .query_map([session_id], RawInput::from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            raws.into_iter().map(RawInput::into_record).collect()
        })
    }

    /// The first input of a session still waiting, if any.
    pub fn next_queued_input(&self, session_id: &str) -> Result<Option<QueuedInput>, StoreError> {
        self.read(|conn| next_queued(conn, session_id))
    }

    /// One queued input by id, whatever its status.
    pub fn queued_input(&self, id: &str) -> Result<Option<QueuedInput>, StoreError> {
        self.read(|conn| load(conn, id))
    }

    /// Moves an input to `status`, checked against its current status inside
    /// the transaction (so of two processes starting the same input only one
    /// succeeds). Returns the updated input.
    pub fn mark_input(&mut self, id: &str, status: InputStatus) -> Result<QueuedInput, StoreError> {
        self.write(|tx, now| {
            let current = load(tx, id)?.ok_or_else(|| StoreError::InputNotFound(id.to_string()))?;
            transition(tx, current, status, now)
        })
    }

    /// Cancels every input of a session still waiting, in one transaction,
    /// and returns them in order (an interrupt hands them back unsent).
    pub(crate) fn cancel_queued_inputs(
        &mut self,
        session_id: &str,
    ) -> Result<Vec<QueuedInput>, StoreError> {
        self.write_session(session_id, |tx, now| {
            let raws = tx
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM input_queue
                     WHERE session_id = ?1 AND status = 'queued' ORDER BY seq"
                ))?
                .query_map([session_id], RawInput::from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let mut cancelled = Vec::with_capacity(raws.len());
            for raw in raws {
                let current = raw.into_record()?;
                cancelled.push(transition(tx, current, InputStatus::Cancelled, now)?);
            }
            Ok(cancelled)
        })
    }

    /// Atomically takes the first queued input of a session and marks it
    /// `started`.
    pub fn claim_next_input(
        &mut self,
        session_id: &str,
    ) -> Result<Option<QueuedInput>, StoreError> {
        self.write_session(session_id, |tx, now| match next_queued(tx, session_id)? {
            Some(current) => transition(tx, current, InputStatus::Started, now).map(Some),
            None => Ok(None),
        })
    }
}
