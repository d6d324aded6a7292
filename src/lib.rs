//! zcode: a terminal coding agent with a permission system the developer
//! controls down to the single shell subcommand.
//!
//! # How a request flows
//!
//! A front end turns what the user does into `Op`s and draws the `Event`s
//! that come back; it never calls the runtime's internals. The runtime owns
//! the session: it talks to the model, sends every tool call through the
//! approval pipeline and saves everything in the store as it happens.
//!
//! ```text
//!   cli: arguments, config, then starts one of the front ends
//!    |   (`zcode permission|sessions|models|sandbox|mcp` work without a runtime)
//!    v
//!   tui (terminal UI)        headless (`zcode -p`)                 front ends
//!      |        ^               |        ^
//!      | Op     | Event         | Op     | Event      Op/Event: protocol
//!      v        |               v        |
//!   +------------------------------------------------------------------+
//!   | runtime                                                          |
//!   |   runner: takes Ops, queues inputs, starts one turn at a time    |
//!   |   core: the session (execution state, history, grants, store)    |
//!   |   turn: stream the reply, run its tool calls, feed results back  |
//!   |   tool_call: one call end to end (below), then its effects       |
//!   |   compaction, reminders (plan mode, todos), transcript, session  |
//!   +------------------------------------------------------------------+
//!      | request / stream                  | each tool call
//!      v                                   v
//!   model providers (model)           runtime::tool_call
//!     openai: Chat Completions          validate the input
//!       and compatible servers          PreToolUse hooks ............ hooks
//!     anthropic: Messages               permission decision ..... permission
//!     scripted: offline replay            (modes, rules, Bash analysis)
//!                                       on "ask": PermissionRequested
//!                                         Event; the user's Op reply races
//!                                         the PermissionRequest hooks
//!                                         (broker, race) ....... approval
//!                                       the tool runs ................ tools
//!                                         (read-only Bash runs in the
//!                                         kernel sandbox ...... sandbox;
//!                                         an MCP tool calls its server
//!                                         ........................ mcp)
//!                                       PostToolUse hooks
//!                                       the tool's session effects (enter
//!                                         or leave plan, todos changed)
//!
//!   store (SQLite): sessions, entries, todos, queued inputs, project rules;
//!     written by the runtime and the approval pipeline, read on resume
//!   config: config.json, the model catalog, hooks, project ids; read by
//!     cli before the runtime starts
//! ```
//!
//! # Modules
//!
//! - [`cli`]: the command line; parses arguments, loads the config and
//!   opens the store, then starts the TUI or a headless run, or answers a
//!   subcommand (`permission`, `sessions`, `models`, `sandbox`) itself.
//! - [`tui`]: the terminal UI, an Elm-style app (`Model`, `Msg`, pure
//!   `update` and `view`) over the runtime's `Op`/`Event` protocol.
//! - [`acp`]: `zcode acp`, zcode as an Agent Client Protocol agent for
//!   editors; questions, the plan review and deny feedback as the
//!   protocol's form elicitation, and ASK-7's auto-continue clock.
//! - [`headless`]: `zcode -p`, one task without a UI; the answer on stdout,
//!   everything else on stderr, optionally as JSON or one event per line.
//! - [`protocol`]: `Op` and `Event`, the language between the runtime and
//!   its front ends, and the permission request and reply types.
//! - [`runtime`]: the agent runtime, a background task that owns the
//!   session, runs turns and each tool call end to end (`tool_call`),
//!   compacts the context, injects reminders and persists everything.
//! - [`model`]: model providers behind one trait: the OpenAI-compatible
//!   and Anthropic HTTP clients, the scripted offline provider, model
//!   references and the model a session starts with.
//! - [`tools`]: the tools offered to the model (files, Bash, search,
//!   WebFetch, todos, questions, plan mode, models, other sessions) and
//!   their registry.
//! - [`approval`]: who answers a permission request (the broker), the race
//!   between the user and the PermissionRequest hooks, the texts of
//!   denials and the URL policy of a running call.
//! - [`mcp`]: the MCP client: servers from the config and a trusted
//!   project `.mcp.json`, started in parallel; their tools are offered as
//!   `mcp__server__tool` with their annotations as the capability.
//! - [`permission`]: the permission engine: pure decisions over tools,
//!   modes and rules, including the Bash analysis on a real shell parser
//!   and the rules suggested for "always allow".
//! - [`sandbox`]: the kernel sandbox (Landlock and seccomp) under shell
//!   commands, so that a flaw in the Bash analysis cannot write, delete or
//!   reach the network.
//! - [`hooks`]: user-configured shell commands run around a tool call
//!   (PreToolUse, PermissionRequest, PostToolUse).
//! - [`store`]: the SQLite database shared by every zcode process of the
//!   user: sessions, their entries, todos, settings and the input queue.
//! - [`project_settings`]: team rules checked into the project
//!   (`.zcode/settings.json`, `.claude/settings.json`) and the trust their
//!   allow rules need.
//! - [`config`]: `config.json`, the model catalog, hook entries and
//!   per-workspace project ids.
//! - [`extensions`]: what a project or the user adds with Markdown files:
//!   custom agent definitions, skills and slash commands.
//! - [`session`]: per-session state kept in memory but persisted first
//!   (mode changes).
//! - [`git_info`]: the repository's branch, read from `.git` without
//!   running git.
//! - [`git_env`]: the environment that keeps git from running programs a
//!   repository names, for zcode's own git reads and read-only commands.
//! - [`proc_table`]: the process table in `/proc` (pids, parents, groups).
//! - [`child_wait`]: waiting for a short-lived helper process with a
//!   deadline, killing and reaping it when it hangs.
//! - [`figures`]: how token counts, durations and a sub-agent's figures
//!   read, the same in the TUI and in `zcode -p`.
//! - [`terminal_text`]: neutralises control characters in text from the
//!   model or a tool before it reaches a terminal.
//!
//! # Requirement ids
//!
//! Comments and test names cite requirements by id (`PERM-8`, `BASH-6`;
//! `perm8_…` as a test-name prefix). `docs/requirements.md` in the
//! repository explains every id and says where it is implemented and
//! tested; `tests/requirement_ids.rs` keeps it complete.

pub mod acp;
pub mod approval;
pub mod child_wait;
pub mod cli;
pub mod config;
pub mod extensions;
pub mod figures;
pub mod git_env;
pub mod git_info;
pub mod headless;
pub mod hooks;
pub mod mcp;
pub mod model;
pub mod permission;
pub mod proc_table;
pub mod project_settings;
pub mod protocol;
pub mod runtime;
pub mod sandbox;
pub mod session;
pub mod store;
pub mod terminal_text;
pub mod tools;
pub mod tui;
