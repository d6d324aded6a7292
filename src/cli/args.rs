//! The command-line grammar (CLI-1..7), as clap definitions.

use crate::headless::OutputFormat;
use crate::permission::mode::{ModeChoice, parse_mode_choice};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// A terminal coding agent with a permission system you control down to the
/// single shell subcommand.
#[derive(Debug, Parser)]
#[command(name = "zcode", version, about, long_about = None)]
#[command(after_help = TOOL_LIST_HELP)]
pub struct Cli {
    /// Starting mode: plan, build, edit or yolo (case-insensitive).
    #[arg(long, global = true, value_name = "MODE", value_parser = parse_mode_arg)]
    pub mode: Option<ModeChoice>,

    /// Run as if started in DIR.
    #[arg(short = 'C', long = "cd", global = true, value_name = "DIR")]
    pub cd: Option<PathBuf>,

    /// Run the task without a UI and print the answer (headless). The task
    /// is the argument, else what is piped to stdin; `-` reads it from
    /// stdin. Piped input next to a task is sent with it.
    #[arg(short = 'p', long = "print")]
    pub print: bool,

    /// The task of a headless run, as an option (`-` reads it from stdin).
    #[arg(long = "prompt", value_name = "TASK")]
    pub prompt: Option<String>,

    /// The task. With -p it runs headless; without, the terminal UI opens
    /// and starts on it. A task that starts with '-' goes after `--`.
    #[arg(value_name = "TASK")]
    pub task: Option<String>,

    /// Words after the task: a task given twice, refused with a hint to
    /// quote it (clap's own "unexpected argument" would not say why).
    #[arg(hide = true, value_name = "MORE")]
    pub more_tasks: Vec<String>,

    /// Output of a headless run: the answer as text, one JSON result object,
    /// or one JSON event per line.
    #[arg(long = "output-format", value_enum, default_value_t = OutputFormat::Text, value_name = "FORMAT")]
    pub output_format: OutputFormat,

    /// The model, as provider/model or a model id (see `zcode models`).
    #[arg(long, global = true, value_name = "MODEL")]
    pub model: Option<String>,

    /// Resume a session by id, or by any unique start of it (the short id
    /// the UI shows). Without an id the terminal UI opens the session
    /// picker (Esc there starts a new session); with -p, the latest
    /// session here.
    #[arg(short = 'r', long, value_name = "SESSION_ID", num_args = 0..=1, default_missing_value = "")]
    pub resume: Option<String>,

    /// Continue the latest session of this directory.
    #[arg(short = 'c', long = "continue", conflicts_with = "resume")]
    pub continue_latest: bool,

    /// With --resume or --continue: continue in a new session that starts
    /// with a copy of that one (for a session another zcode is using).
    #[arg(long = "fork-session")]
    pub fork_session: bool,

    /// Claude Code's name for the starting mode: default (or manual) is
    /// build, acceptEdits is edit, plan is plan, bypassPermissions is yolo;
    /// zcode's own names work too. It must agree with --mode.
    #[arg(long = "permission-mode", global = true, value_name = "MODE", value_parser = super::permission_mode_args::parse_permission_mode)]
    pub permission_mode: Option<ModeChoice>,

    /// Start in yolo: tool calls run without asking, except what deny rules
    /// and --disallowedTools forbid (the same as --mode yolo).
    #[arg(long = "dangerously-skip-permissions", global = true)]
    pub dangerously_skip_permissions: bool,

    /// More detail on stderr: with -p, the session, model and project
    /// before the run and how to resume it after (the terminal UI shows
    /// them already; Ctrl+O there expands tool output).
    #[arg(long)]
    pub verbose: bool,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// `--disallowedTools`/`--allowedTools` are read before clap runs (DIS-1),
/// so their help lives here.
pub const TOOL_LIST_HELP: &str = "\
Tool lists (for this process only; never written to config):
  --disallowedTools <TOOL>...  Deny tools in every mode, yolo included (also
                               --disallowed-tools). Takes every following
                               argument up to the next one starting with '-'
                               or naming a subcommand; commas and spaces also
                               separate entries. A bare name removes the tool
                               (Edit also removes Write);
                               \"Bash(rm:*)\" denies only those commands.
  --allowedTools <TOOL>...     Allow without asking (also --allowed-tools), same
                               syntax: \"Bash(git diff:*)\" allows only those
                               commands, a bare name the whole tool. Never in
                               plan mode.";

fn parse_mode_arg(value: &str) -> Result<ModeChoice, String> {
    parse_mode_choice(value).map_err(|e| e.to_string())
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The interactive terminal UI (the default).
    Tui,
    /// Inspect and edit the permission rules saved for a project.
    #[command(subcommand)]
    Permission(PermissionCommand),
    /// List saved sessions.
    #[command(subcommand)]
    Sessions(SessionsCommand),
    /// List the models of the catalog; [current] marks the one a new
    /// session would use (with --model, that model).
    Models,
    /// Run one command inside exactly the kernel sandbox the Bash tool uses.
    Sandbox(SandboxArgs),
    /// The MCP servers of this project: their state and tools, and trust
    /// for the servers of its .mcp.json.
    #[command(subcommand)]
    Mcp(McpCommand),
    /// Serve the Agent Client Protocol on stdin and stdout, so that an
    /// editor or another ACP client (Zed, JetBrains IDEs, Neovim, acpx)
    /// runs zcode as its agent.
    Acp,
}

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Start every server as a session would, then show each one's state
    /// and tools.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        cwd: CwdArg,
    },
    /// Trust a server of the project's .mcp.json, as it is defined now.
    Trust {
        name: String,
        #[command(flatten)]
        cwd: CwdArg,
    },
    /// Withdraw the trust in a project server.
    Untrust {
        name: String,
        #[command(flatten)]
        cwd: CwdArg,
    },
}

impl Command {
    /// The name it is called by on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Tui => "tui",
            Command::Permission(_) => "permission",
            Command::Sessions(_) => "sessions",
            Command::Models => "models",
            Command::Sandbox(_) => "sandbox",
            Command::Mcp(_) => "mcp",
            Command::Acp => "acp",
        }
    }
}

#[derive(Debug, Args)]
pub struct SandboxArgs {
    /// Nothing writable but /dev/null and the terminal, no network (the
    /// default; what commands judged read-only run in).
    #[arg(long, conflicts_with = "workspace_write")]
    pub read_only: bool,
    /// Writable: the workspace (the current directory, or --cwd) and the
    /// temp directory; network as config `sandbox.network` says.
    #[arg(long)]
    pub workspace_write: bool,
    #[command(flatten)]
    pub cwd: CwdArg,
    /// The program and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct CwdArg {
    /// The project directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RuleKindArg {
    Allow,
    Ask,
    Deny,
}

#[derive(Debug, Subcommand)]
pub enum PermissionCommand {
    /// Show the decision for one tool call, as JSON, with the rule that made it.
    Check {
        /// Tool name, e.g. Bash, Write, WebFetch.
        #[arg(long, value_name = "NAME")]
        tool: String,
        /// The tool input as a JSON object, e.g. '{"command":"git status"}'.
        #[arg(long, value_name = "JSON")]
        input: String,
        /// Evaluate with plan mode on.
        #[arg(long)]
        plan: bool,
        #[command(flatten)]
        cwd: CwdArg,
    },
    /// List the project's rules with their kind and where each comes from.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        cwd: CwdArg,
    },
    /// Save a project rule, as the "always" choice of an approval would.
    Add {
        #[arg(value_enum)]
        kind: RuleKindArg,
        /// Tool name, e.g. Bash.
        tool: String,
        /// Rule content, e.g. 'git status:*' (none: the whole tool).
        content: Option<String>,
        #[command(flatten)]
        cwd: CwdArg,
    },
    /// Delete a saved project rule.
    Remove {
        #[arg(value_enum)]
        kind: RuleKindArg,
        tool: String,
        content: Option<String>,
        #[command(flatten)]
        cwd: CwdArg,
    },
    /// Trust the project's .zcode/settings.json and .claude/settings*.json
    /// as they are now, so that their allow rules apply (their deny and ask
    /// rules always do); a changed file needs trust again.
    Trust {
        #[command(flatten)]
        cwd: CwdArg,
    },
    /// Withdraw the trust in the project's settings files.
    Untrust {
        #[command(flatten)]
        cwd: CwdArg,
    },
}

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// List sessions, most recently updated first.
    List {
        /// Sessions of every project, not only the current one, with the
        /// sub-agents each started listed under it.
        #[arg(long)]
        all: bool,
        /// At most this many.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        cwd: CwdArg,
    },
}
