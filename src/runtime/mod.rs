//! The agent runtime: a background task that owns the session, talks to the
//! model, runs tools through the approval pipeline and persists everything.

pub mod protocol;
