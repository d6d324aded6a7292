//! `zcode acp`: zcode as an Agent Client Protocol agent.

pub mod auto_continue;
pub mod elicitation;
