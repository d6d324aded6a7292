//! Per-session state that lives in memory but is persisted first.

pub mod execution;
