//! The permission engine: pure decisions over tools, modes and rules.

pub mod ask_reason;
pub mod bash;
pub mod capability;
pub mod check;
pub mod declaration;
pub mod mcp_names;
pub mod mode;
pub mod path_rules;
pub mod paths;
pub mod protected;
pub mod read_rules;
pub mod rule_id;
pub mod rule_source;
pub mod rules;
pub mod service;
pub mod settings;
pub mod suggest;
pub mod web_rules;
pub mod web_url;
