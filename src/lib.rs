//! zcode: a terminal coding agent with a permission system the developer
//! controls down to the single shell subcommand.

pub mod approval;
pub mod child_wait;
pub mod cli;
pub mod config;
pub mod git_info;
pub mod headless;
pub mod hooks;
pub mod model;
pub mod permission;
pub mod protocol;
pub mod runtime;
pub mod sandbox;
pub mod session;
pub mod store;
pub mod terminal_text;
pub mod tools;
pub mod tui;
