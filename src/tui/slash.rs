//! Slash commands (TUI-4): the command table, parsing a submitted line,
//! the completion popup's state and keys, and running a command.
//!
//! A line is a command when it starts with `/` followed by a name. It is
//! sent to the model as typed when it starts with `/ ` or when its first
//! word holds another `/` (a path such as `/usr/bin/env`); `//…` sends the
//! line with the first `/` removed. Any other `/name` that is not a
//! command is an error, so a typo never reaches the model.

use super::model::{Cell, Model};
use super::msg::Cmd;
use super::picker::{ListKey, Picker, list_key};
use super::{clipboard, export};
use crate::permission::mode::{ModeChoice, parse_mode_choice};
use crate::runtime::protocol::Op;
use crate::runtime::session::SessionStart;
use crossterm::event::KeyEvent;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlashCommand {
    Mode,
    Plan,
    Model,
    Permissions,
    Todos,
    New,
    Resume,
    Compact,
    Copy,
    Export,
    Help,
    Quit,
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

pub const COMMANDS: [CommandInfo; 12] = [
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
        arg: None,
        description: "List and remove this project's saved rules",
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
        command: SlashCommand::Resume,
        name: "resume",
        arg: Some("[session]"),
        description: "Resume an earlier session of this project",
    },
    CommandInfo {
        command: SlashCommand::Compact,
        name: "compact",
        arg: None,
        description: "Summarise older history before the next request",
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

/// The commands matching what follows the `/`: name prefix matches first,
/// then the other names containing it, each in table order.
pub fn matches(query: &str) -> Vec<&'static CommandInfo> {
    let query = query.to_ascii_lowercase();
    let prefix = COMMANDS.iter().filter(|c| c.name.starts_with(&query));
    let inner = COMMANDS
        .iter()
        .filter(|c| !c.name.starts_with(&query) && c.name.contains(&query));
    prefix.chain(inner).collect()
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
    pub items: Vec<&'static CommandInfo>,
    pub selected: usize,
}

/// The popup, when it is open: a single-line composer starting with `/`
/// and no space yet, some command matching, nothing else on top.
pub fn popup(model: &Model) -> Option<Popup> {
    if !model.approvals.is_empty() || model.picker.is_some() {
        return None;
    }
    let text = model.composer.text();
    let query = text.strip_prefix('/')?;
    if query.starts_with('/') || query.contains(char::is_whitespace) {
        return None;
    }
    if model.slash.closed_on.as_deref() == Some(text) {
        return None;
    }
    let items = matches(query);
    if items.is_empty() {
        return None;
    }
    let selected = if model.slash.on_text == text {
        model.slash.selected.min(items.len() - 1)
    } else {
        0
    };
    Some(Popup { items, selected })
}

/// A key while the popup is open; `None` when the popup does not take it
/// (typing goes on in the composer).
pub fn on_popup_key(model: &mut Model, key: KeyEvent) -> Option<Vec<Cmd>> {
    let popup = popup(model)?;
    let len = popup.items.len();
    let text = model.composer.text().to_string();
    let chosen = popup.items[popup.selected];
    match list_key(key) {
        ListKey::Up => select(model, text, (popup.selected + len - 1) % len),
        ListKey::Down => select(model, text, (popup.selected + 1) % len),
        ListKey::Complete => {
            let space = if chosen.arg.is_some() { " " } else { "" };
            model.composer.set(&format!("/{}{space}", chosen.name));
        }
        ListKey::Choose => {
            model.composer.take();
            model.dirty = true;
            return Some(execute(model, &format!("/{}", chosen.name), *chosen, None));
        }
        ListKey::Close => model.slash.closed_on = Some(text),
        _ => return None,
    }
    model.dirty = true;
    Some(Vec::new())
}

fn select(model: &mut Model, text: String, index: usize) {
    model.slash.selected = index;
    model.slash.on_text = text;
}

/// Called by `submit` with a non-empty composer: runs a command and
/// returns its commands, or `None` when the line goes to the model (an
/// escaped `//…` line is unescaped in the composer first).
pub fn submit(model: &mut Model) -> Option<Vec<Cmd>> {
    match parse(model.composer.text()) {
        Parsed::Text => None,
        Parsed::Escaped(text) => {
            model.composer.set(&text);
            None
        }
        Parsed::Command { info, arg } => {
            let line = model.composer.take();
            Some(execute(model, line.trim_end(), info, arg))
        }
        Parsed::Unknown(name) => {
            let line = model.composer.take();
            remember(model, line.trim_end());
            let known: Vec<String> = COMMANDS.iter().map(|c| format!("/{}", c.name)).collect();
            model.cells.push(Cell::Error {
                text: format!(
                    "unknown command /{name}; the commands are {} (start the line with // to send it as text)",
                    known.join(", ")
                ),
            });
            Some(Vec::new())
        }
    }
}

/// Input history keeps commands too, for ↑ recall.
fn remember(model: &mut Model, line: &str) {
    model.history_pos = None;
    if model.history.last().map(String::as_str) != Some(line) {
        model.history.push(line.to_string());
    }
    model.scroll = 0;
}

fn error(model: &mut Model, text: String) -> Vec<Cmd> {
    model.cells.push(Cell::Error { text });
    Vec::new()
}

/// Runs one command; `line` is what was typed, for the input history.
fn execute(model: &mut Model, line: &str, info: CommandInfo, arg: Option<String>) -> Vec<Cmd> {
    remember(model, line);
    model.dirty = true;
    if info.arg.is_none()
        && let Some(arg) = arg.as_ref()
    {
        return error(
            model,
            format!("/{} takes no argument (got '{arg}')", info.name),
        );
    }
    match info.command {
        SlashCommand::Mode => match arg {
            None => {
                model.picker = Some(Picker::modes(model.state));
                Vec::new()
            }
            Some(arg) => match parse_mode_choice(&arg) {
                Ok(choice) => set_mode(model, choice),
                Err(e) => error(model, format!("/mode: {e}")),
            },
        },
        SlashCommand::Plan => {
            let mut cmds = set_mode(model, ModeChoice::Plan);
            if let Some(task) = arg {
                if !model.busy {
                    model.busy = true;
                    model.turn_started = model.now;
                }
                cmds.push(Cmd::Send(Op::UserInput { text: task }));
            }
            cmds
        }
        SlashCommand::Model => match arg {
            None => vec![Cmd::ListModels],
            Some(reference) => vec![Cmd::Send(Op::SetModel { reference })],
        },
        SlashCommand::Permissions => vec![Cmd::Send(Op::ListProjectRules)],
        SlashCommand::Todos => vec![Cmd::Send(Op::ShowTodos)],
        SlashCommand::New | SlashCommand::Resume if model.busy => error(
            model,
            format!(
                "/{} waits for the running turn: interrupt it with Esc first",
                info.name
            ),
        ),
        SlashCommand::New => vec![Cmd::StartSession(SessionStart::New)],
        SlashCommand::Resume => match arg {
            None => vec![Cmd::ListSessions],
            Some(id) => vec![Cmd::StartSession(SessionStart::Resume(id))],
        },
        SlashCommand::Compact => vec![Cmd::Send(Op::Compact)],
        SlashCommand::Copy => copy(model, arg.as_deref()),
        SlashCommand::Export => export(model, arg.as_deref()),
        SlashCommand::Help => {
            model.cells.push(Cell::Notice { text: help_text() });
            Vec::new()
        }
        SlashCommand::Quit => vec![Cmd::Quit],
    }
}

/// `/copy [n]`: the last answer, or its n-th code block (from 1).
fn copy(model: &mut Model, arg: Option<&str>) -> Vec<Cmd> {
    let Some(answer) = export::last_answer(&model.cells).map(str::to_string) else {
        return error(model, "/copy: there is no answer to copy yet".to_string());
    };
    let blocks = export::code_blocks(&answer);
    let (text, what) = match arg {
        None => (answer, "the last answer".to_string()),
        Some(n) => {
            let index = n
                .parse::<usize>()
                .ok()
                .filter(|&i| i >= 1 && i <= blocks.len());
            let Some(index) = index else {
                let has = match blocks.len() {
                    0 => "the last answer has no code block".to_string(),
                    1 => "the last answer has one code block: /copy 1".to_string(),
                    n => format!("the last answer has {n} code blocks: /copy 1 to /copy {n}"),
                };
                return error(model, format!("/copy {n}: {has}"));
            };
            (blocks[index - 1].clone(), format!("code block {index}"))
        }
    };
    if let Err(e) = clipboard::osc52(&text) {
        return error(model, format!("/copy: {e}"));
    }
    let mut note = format!(
        "copied {what} ({} characters) to the clipboard",
        text.chars().count()
    );
    if arg.is_none() && !blocks.is_empty() {
        note.push_str(&match blocks.len() {
            1 => "; /copy 1 copies its code block".to_string(),
            n => format!("; /copy 1 to /copy {n} copy one of its code blocks"),
        });
    }
    model.cells.push(Cell::Notice { text: note });
    vec![Cmd::Copy(text)]
}

/// `/export [file]`: the conversation as Markdown; never overwrites.
fn export(model: &mut Model, arg: Option<&str>) -> Vec<Cmd> {
    if model.cells.is_empty() {
        return error(model, "/export: the conversation is empty".to_string());
    }
    let path = match arg {
        Some(path) => expand_home(path),
        None => std::path::PathBuf::from(export::default_export_name(&model.session_id)),
    };
    let header = export::ExportHeader {
        session_id: &model.session_id,
        workspace: &model.workspace,
        model: &model.model_label,
    };
    let markdown = export::transcript_markdown(&model.cells, &header);
    vec![Cmd::Export { path, markdown }]
}

/// `~/…` as the shell would read it.
fn expand_home(path: &str) -> std::path::PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => std::path::Path::new(&home).join(rest),
        _ => std::path::PathBuf::from(path),
    }
}

/// Shown at once; the runtime confirms with `SessionModeChanged`.
fn set_mode(model: &mut Model, choice: ModeChoice) -> Vec<Cmd> {
    model.state = model.state.apply(choice);
    vec![Cmd::Send(Op::SetMode { choice })]
}

/// `/help`: the commands, then the keys.
pub fn help_text() -> String {
    let mut text = String::from("commands:");
    for c in &COMMANDS {
        let name = match c.arg {
            Some(arg) => format!("/{} {arg}", c.name),
            None => format!("/{}", c.name),
        };
        text.push_str(&format!("\n  {name:<32} {}", c.description));
    }
    text.push_str(
        "\nkeys:\
         \n  enter send (queued while busy) · shift+enter or ctrl+j newline\
         \n  shift+tab cycle modes · esc interrupt · ctrl+c clear, twice to quit\
         \n  ↑/↓ input history · pgup/pgdn, ctrl+home/end scroll · ctrl+z suspend\
         \n  ctrl+o expand or collapse tool output · ctrl+t show or hide the todos\
         \n  a line starting with // is sent with one / removed",
    );
    text
}
