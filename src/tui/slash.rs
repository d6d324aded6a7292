//! Slash commands (TUI-4): the command table, parsing a submitted line and
//! the completion popup's state. Running a command and the popup's keys are
//! in `update::slash`.
//!
//! A line is a command when it starts with `/` followed by a name. It is
//! sent to the model as typed when it starts with `/ ` or when its first
//! word holds another `/` (a path such as `/usr/bin/env`); `//…` sends the
//! line with the first `/` removed. A `/name` that is no built-in command
//! may be a command file's (`extensions::commands`), which sends the
//! file's text; any other is an error, so a typo never reaches the model.

use crate::extensions::commands::CommandFile;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlashCommand {
    Mode,
    Plan,
    Model,
    Permissions,
    Todos,
    New,
    /// `/clear`: a fresh context, as `/new`.
    Clear,
    Resume,
    Compact,
    Init,
    Memory,
    Mcp,
    Skills,
    Copy,
    Export,
    Cost,
    Help,
    Quit,
    /// `/exit`: as `/quit`.
    Exit,
}

/// One row of the command table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandInfo {
    pub command: SlashCommand,
    pub name: &'static str,
    /// The argument, as the popup shows it; `None`: takes none.
    pub arg: Option<&'static str>,
    pub description: &'static str,
}

pub const COMMANDS: [CommandInfo; 19] = [
    CommandInfo {
        command: SlashCommand::Mode,
        name: "mode",
        arg: Some("[plan|build|edit|yolo]"),
        description: "Switch the mode (a picker without an argument)",
    },
    CommandInfo {
        command: SlashCommand::Plan,
        name: "plan",
        arg: Some("[task]"),
        description: "Turn plan mode on, then send the task if given",
    },
    CommandInfo {
        command: SlashCommand::Model,
        name: "model",
        arg: Some("[provider/model]"),
        description: "Switch the model from the next request on",
    },
    CommandInfo {
        command: SlashCommand::Permissions,
        name: "permissions",
        arg: Some("[allow|ask|deny RULE]"),
        description: "List, add or remove this project's rules; trust its settings files",
    },
    CommandInfo {
        command: SlashCommand::Todos,
        name: "todos",
        arg: None,
        description: "Show this session's todo list",
    },
    CommandInfo {
        command: SlashCommand::New,
        name: "new",
        arg: None,
        description: "Start a fresh session in this project",
    },
    CommandInfo {
        command: SlashCommand::Clear,
        name: "clear",
        arg: None,
        description: "Clear the context: a fresh session, as /new",
    },
    CommandInfo {
        command: SlashCommand::Resume,
        name: "resume",
        arg: Some("[session]"),
        description: "Resume an earlier session of this project",
    },
    CommandInfo {
        command: SlashCommand::Compact,
        name: "compact",
        arg: None,
        description: "Summarise older history now",
    },
    CommandInfo {
        command: SlashCommand::Init,
        name: "init",
        arg: None,
        description: "Ask the model to write an AGENTS.md for this repository",
    },
    CommandInfo {
        command: SlashCommand::Memory,
        name: "memory",
        arg: Some("[edit]"),
        description: "Show the instruction files and memory loaded; edit opens MEMORY.md",
    },
    CommandInfo {
        command: SlashCommand::Mcp,
        name: "mcp",
        arg: Some("[trust NAME]"),
        description: "Show the MCP servers and their tools, or trust a project server",
    },
    CommandInfo {
        command: SlashCommand::Skills,
        name: "skills",
        arg: None,
        description: "List the skills the model can load",
    },
    CommandInfo {
        command: SlashCommand::Copy,
        name: "copy",
        arg: Some("[n]"),
        description: "Copy the last answer (or its n-th code block) to the clipboard",
    },
    CommandInfo {
        command: SlashCommand::Export,
        name: "export",
        arg: Some("[file]"),
        description: "Write the conversation to a Markdown file",
    },
    CommandInfo {
        command: SlashCommand::Cost,
        name: "cost",
        arg: None,
        description: "Show the session's tokens (cached and not) and what they cost",
    },
    CommandInfo {
        command: SlashCommand::Help,
        name: "help",
        arg: None,
        description: "Show the commands and keys",
    },
    CommandInfo {
        command: SlashCommand::Quit,
        name: "quit",
        arg: None,
        description: "Quit zcode",
    },
    CommandInfo {
        command: SlashCommand::Exit,
        name: "exit",
        arg: None,
        description: "Quit zcode, as /quit",
    },
];

/// The popup shows at most this many rows.
pub const POPUP_ROWS: usize = 8;

/// What a submitted line is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// Not a command: send it as typed.
    Text,
    /// `//…`: send this instead (the line without its first `/`).
    Escaped(String),
    Command {
        info: CommandInfo,
        arg: Option<String>,
    },
    /// `/name` with no such command.
    Unknown(String),
}

pub fn parse(line: &str) -> Parsed {
    let Some(rest) = line.strip_prefix('/') else {
        return Parsed::Text;
    };
    if rest.starts_with('/') {
        return Parsed::Escaped(rest.to_string());
    }
    let (name, arg) = match rest.find(char::is_whitespace) {
        Some(i) => (&rest[..i], rest[i..].trim()),
        None => (rest, ""),
    };
    if name.is_empty() || name.contains('/') {
        return Parsed::Text;
    }
    match COMMANDS.iter().find(|c| c.name.eq_ignore_ascii_case(name)) {
        Some(info) => Parsed::Command {
            info: *info,
            arg: (!arg.is_empty()).then(|| arg.to_string()),
        },
        None => Parsed::Unknown(name.to_string()),
    }
}

/// One row of the popup: a built-in command or a command file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PopupItem {
    pub name: String,
    /// The argument, as the popup shows it.
    pub arg: Option<String>,
    pub description: String,
    /// The built-in command; `None`: a command file.
    pub builtin: Option<CommandInfo>,
}

impl PopupItem {
    fn builtin(info: &CommandInfo) -> Self {
        Self {
            name: info.name.to_string(),
            arg: info.arg.map(str::to_string),
            description: info.description.to_string(),
            builtin: Some(*info),
        }
    }

    fn file(command: &CommandFile) -> Self {
        Self {
            name: command.name.clone(),
            arg: command.argument_hint.clone(),
            description: format!("{} ({})", command.description, command.scope.label()),
            builtin: None,
        }
    }
}

/// The commands matching what follows the `/`: name prefix matches first,
/// then the other names containing it; built-in commands in table order
/// before command files in name order.
pub fn matches(query: &str, files: &[CommandFile]) -> Vec<PopupItem> {
    let query = query.to_ascii_lowercase();
    let all: Vec<PopupItem> = COMMANDS
        .iter()
        .map(PopupItem::builtin)
        .chain(files.iter().map(PopupItem::file))
        .collect();
    let (prefix, rest): (Vec<PopupItem>, Vec<PopupItem>) = all
        .into_iter()
        .partition(|c| c.name.to_ascii_lowercase().starts_with(&query));
    let inner = rest
        .into_iter()
        .filter(|c| c.name.to_ascii_lowercase().contains(&query));
    prefix.into_iter().chain(inner).collect()
}

/// The popup's selection; it belongs to the composer text it was made on,
/// so typing resets it to the first row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PopupState {
    selected: usize,
    /// The text `selected` was chosen on.
    on_text: String,
    /// The text Esc closed the popup on; it opens again once that changes.
    closed_on: Option<String>,
}

/// The popup as shown: matching commands and the highlighted index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Popup {
    pub items: Vec<PopupItem>,
    pub selected: usize,
}

impl PopupState {
    /// The popup for the composer's `text`, when it would open: a
    /// single-line text starting with `/` and no space yet, some command
    /// (built-in or one of the command `files`) matching, not closed with Esc on this text. Whether it has the keys
    /// (nothing else on top) is `focus`'s to say.
    pub fn popup(&self, text: &str, files: &[CommandFile]) -> Option<Popup> {
        let query = text.strip_prefix('/')?;
        if query.starts_with('/') || query.contains(char::is_whitespace) {
            return None;
        }
        if self.closed_on.as_deref() == Some(text) {
            return None;
        }
        let items = matches(query, files);
        if items.is_empty() {
            return None;
        }
        let selected = if self.on_text == text {
            self.selected.min(items.len() - 1)
        } else {
            0
        };
        Some(Popup { items, selected })
    }

    /// Highlights row `index` of the popup shown on `text`.
    pub fn select(&mut self, text: &str, index: usize) {
        self.selected = index;
        self.on_text = text.to_string();
    }

    /// Esc: the popup stays closed until the text changes.
    pub fn close_on(&mut self, text: &str) {
        self.closed_on = Some(text.to_string());
    }
}
