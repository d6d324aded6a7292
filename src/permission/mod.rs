//! The permission engine: pure decisions over tools, modes and rules.

pub mod bash;
pub mod capability;
pub mod mode;
pub mod rules;
pub mod settings;
