//! The `todo` table: a session's todo list (TODO-4).

use super::{Store, StoreError, sessions};
use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

impl TodoStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TodoStatus::Pending => "pending",
            TodoStatus::InProgress => "in_progress",
            TodoStatus::Completed => "completed",
        }
    }

    /// The mark a list of todos shows for this status, wherever it shows
    /// (the TUI's sidebar, `/todos`), so they read alike.
    pub fn mark(self) -> &'static str {
        match self {
            TodoStatus::Pending => "☐",
            TodoStatus::InProgress => "▶",
            TodoStatus::Completed => "✓",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(TodoStatus::Pending),
            "in_progress" => Some(TodoStatus::InProgress),
            "completed" => Some(TodoStatus::Completed),
            _ => None,
        }
    }
}

impl fmt::Display for TodoStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TodoPriority {
    High,
    Medium,
    Low,
}

impl TodoPriority {
    pub fn as_str(self) -> &'static str {
        match self {
            TodoPriority::High => "high",
            TodoPriority::Medium => "medium",
            TodoPriority::Low => "low",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "high" => Some(TodoPriority::High),
            "medium" => Some(TodoPriority::Medium),
            "low" => Some(TodoPriority::Low),
            _ => None,
        }
    }
}

impl fmt::Display for TodoPriority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TodoItem {
    pub content: String,
    pub status: TodoStatus,
    pub priority: TodoPriority,
}

impl TodoItem {
    pub fn new(content: impl Into<String>, status: TodoStatus, priority: TodoPriority) -> Self {
        Self {
            content: content.into(),
            status,
            priority,
        }
    }
}

fn load(conn: &Connection, session_id: &str) -> Result<Vec<TodoItem>, StoreError> {
    let rows = conn
        .prepare_cached(
            "SELECT position, content, status, priority FROM todo
             WHERE session_id = ?1 ORDER BY position",
        )?
        .query_map([session_id], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(3)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    rows.into_iter()
        .map(|(position, content, status, priority)| {
            let bad = |what: &str, value: &str| {
                StoreError::corrupt(
                    "todo",
                    format!("session {session_id} position {position}: unknown {what} '{value}'"),
                )
            };
            Ok(TodoItem {
                status: TodoStatus::parse(&status).ok_or_else(|| bad("status", &status))?,
                priority: TodoPriority::parse(&priority)
                    .ok_or_else(|| bad("priority", &priority))?,
                content,
            })
        })
        .collect()
}

impl Store {
    /// TODO-4: replaces a session's todo list in one transaction (read old,
    /// delete, insert in order, touch the session) and returns the old list.
    pub fn replace_todos(
        &mut self,
        session_id: &str,
        items: &[TodoItem],
    ) -> Result<Vec<TodoItem>, StoreError> {
        self.write_session(session_id, |tx, now| {
            sessions::require(tx, session_id)?;
            let old = load(tx, session_id)?;
            tx.prepare_cached("DELETE FROM todo WHERE session_id = ?1")?
                .execute([session_id])?;
            let mut insert = tx.prepare_cached(
                "INSERT INTO todo (session_id, position, content, status, priority)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for (position, item) in items.iter().enumerate() {
                let position = i64::try_from(position).unwrap_or(i64::MAX);
                insert.execute(params![
                    session_id,
                    position,
                    item.content,
                    item.status.as_str(),
                    item.priority.as_str(),
                ])?;
            }
            sessions::touch(tx, session_id, now)?;
            Ok(old)
        })
    }

    /// A session's todo list in order (empty for an unknown session).
    pub fn todos(&self, session_id: &str) -> Result<Vec<TodoItem>, StoreError> {
        self.read(|conn| load(conn, session_id))
    }
}
