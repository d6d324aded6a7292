//! Command-line entry: argument definitions and subcommands.

pub mod tool_list_args;
