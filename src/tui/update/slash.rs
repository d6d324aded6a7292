//! Running slash commands (TUI-4) and the keys of their completion popup.

use crate::extensions::commands::{CommandFile, find};
use crate::extensions::skills::Skill;
use crate::permission::mode::{ModeChoice, parse_mode_choice};
use crate::permission::rules::{Rule, RuleKind};
use crate::protocol::Op;
use crate::runtime::session::SessionStart;
use crate::tui::cells::Cell;
use crate::tui::focus::slash_popup;
use crate::tui::keys::{ListKey, list_key};
use crate::tui::model::Model;
use crate::tui::msg::Cmd;
use crate::tui::picker::Picker;
use crate::tui::slash::{COMMANDS, CommandInfo, Parsed, SlashCommand, parse};
use crate::tui::{clipboard, export};
use crossterm::event::KeyEvent;

/// A key while the popup is open; `None` when the popup does not take it
/// (typing goes on in the composer).
pub(super) fn on_popup_key(model: &mut Model, key: KeyEvent) -> Option<Vec<Cmd>> {
    let popup = slash_popup(model)?;
    let len = popup.items.len();
    let text = model.composer.text().to_string();
    let chosen = popup.items[popup.selected].clone();
    match list_key(key) {
        ListKey::Up => model.slash.select(&text, (popup.selected + len - 1) % len),
        ListKey::Down => model.slash.select(&text, (popup.selected + 1) % len),
        ListKey::Complete => {
            let space = if chosen.arg.is_some() { " " } else { "" };
            model.composer.set(&format!("/{}{space}", chosen.name));
        }
        ListKey::Choose => {
            model.composer.take();
            model.dirty = true;
            let line = format!("/{}", chosen.name);
            return Some(match chosen.builtin {
                Some(info) => execute(model, &line, info, None),
                None => send_command_file(model, &line, &chosen.name, ""),
            });
        }
        ListKey::Close => model.slash.close_on(&text),
        _ => return None,
    }
    model.dirty = true;
    Some(Vec::new())
}

/// Called by `submit` with a non-empty composer: runs a command and
/// returns its commands, or `None` when the line goes to the model (an
/// escaped `//…` line is unescaped in the composer first).
pub(super) fn submit(model: &mut Model) -> Option<Vec<Cmd>> {
    match parse(model.composer.text()) {
        Parsed::Text => None,
        Parsed::Escaped(_) => {
            // Chips stand for their pastes in what is sent.
            let full = model.composer.take();
            model.composer.set(full.strip_prefix('/').unwrap_or(&full));
            None
        }
        Parsed::Command { info, arg } => {
            // A chip in the argument stands for its paste; a command that
            // takes none says what it got as shown.
            let arg = match arg {
                Some(arg) if info.arg.is_some() => Some(model.composer.expand(&arg)),
                arg => arg,
            };
            let line = model.composer.take();
            Some(execute(model, line.trim_end(), info, arg))
        }
        Parsed::Unknown(name) if find(&model.command_files, &name).is_some() => {
            let text = model.composer.text().to_string();
            let args = text
                .strip_prefix('/')
                .and_then(|rest| rest.get(name.len()..))
                .unwrap_or("")
                .to_string();
            // A chip in the arguments stands for its paste.
            let args = model.composer.expand(&args);
            let line = model.composer.take();
            Some(send_command_file(model, line.trim_end(), &name, &args))
        }
        Parsed::Unknown(name) => {
            let line = model.composer.take();
            remember(model, line.trim_end());
            let known: Vec<String> = COMMANDS
                .iter()
                .map(|c| c.name.to_string())
                .chain(model.command_files.iter().map(|c| c.name.clone()))
                .map(|name| format!("/{name}"))
                .collect();
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

/// `/name args` of a command file: sends the file's text with its
/// placeholders replaced. The transcript shows what was sent (the runtime
/// echoes it as the turn's text), which is what the model reads.
fn send_command_file(model: &mut Model, line: &str, name: &str, args: &str) -> Vec<Cmd> {
    remember(model, line);
    model.dirty = true;
    let Some(command) = find(&model.command_files, name) else {
        return error(model, format!("/{name}: the command file is gone"));
    };
    let text = command.expand(args);
    if text.trim().is_empty() {
        return error(
            model,
            format!(
                "/{name}: {} is empty; nothing was sent",
                command.path.display()
            ),
        );
    }
    if !model.busy {
        model.busy = true;
        model.turn_started = model.now;
    }
    vec![Cmd::Send(Op::UserInput { text })]
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
        SlashCommand::Init => {
            if !model.busy {
                model.busy = true;
                model.turn_started = model.now;
            }
            vec![Cmd::Send(Op::UserInput {
                text: INIT_PROMPT.to_string(),
            })]
        }
        SlashCommand::Model => match arg {
            None => vec![Cmd::ListModels],
            Some(reference) => vec![Cmd::Send(Op::SetModel { reference })],
        },
        SlashCommand::Permissions => match arg {
            None => vec![Cmd::Send(Op::ListProjectRules)],
            Some(arg) if arg.trim() == "trust" => vec![Cmd::Send(Op::TrustProjectSettings)],
            Some(arg) => match rule_to_add(&arg) {
                Ok((kind, rule)) => vec![Cmd::Send(Op::AddProjectRule { kind, rule })],
                Err(e) => error(model, e),
            },
        },
        SlashCommand::Todos => vec![Cmd::Send(Op::ShowTodos)],
        SlashCommand::Memory => match arg.as_deref().map(str::trim) {
            None => vec![Cmd::Send(Op::ShowMemory)],
            Some("edit") => vec![Cmd::EditMemory],
            Some(_) => error(model, "/memory takes no argument, or edit".to_string()),
        },
        SlashCommand::Mcp => match arg
            .as_deref()
            .map(str::split_whitespace)
            .map(|w| w.collect::<Vec<_>>())
        {
            None => vec![Cmd::Send(Op::ShowMcp)],
            Some(words) => match words.as_slice() {
                ["trust", name] => vec![Cmd::Send(Op::TrustMcpServer {
                    name: name.to_string(),
                })],
                _ => error(model, "/mcp takes no argument, or trust NAME".to_string()),
            },
        },
        SlashCommand::New | SlashCommand::Clear | SlashCommand::Resume if model.busy => error(
            model,
            format!(
                "/{} waits for the running turn: interrupt it with Esc first",
                info.name
            ),
        ),
        SlashCommand::New | SlashCommand::Clear => vec![Cmd::StartSession(SessionStart::New)],
        SlashCommand::Resume => match arg {
            None => vec![Cmd::ListSessions],
            Some(id) => vec![Cmd::StartSession(SessionStart::Resume(id))],
        },
        SlashCommand::Compact => vec![Cmd::Send(Op::Compact)],
        SlashCommand::Copy => copy(model, arg.as_deref()),
        SlashCommand::Export => export(model, arg.as_deref()),
        SlashCommand::Cost => {
            let text = crate::tui::cost::cost_text(&model.usage);
            model.cells.push(Cell::Notice { text });
            Vec::new()
        }
        SlashCommand::Help => {
            let text = help_text(&model.command_files);
            model.cells.push(Cell::Notice { text });
            Vec::new()
        }
        SlashCommand::Skills => {
            let text = skills_text(&model.skills);
            model.cells.push(Cell::Notice { text });
            Vec::new()
        }
        SlashCommand::Quit | SlashCommand::Exit => vec![Cmd::Quit],
    }
}

/// How `/permissions` adds a rule, as its errors show it.
const ADD_RULE_EXAMPLE: &str = "/permissions add Bash(npm test:*)";

/// `/permissions allow|ask|deny RULE` (`add` is `allow`): the kind and the
/// rule, read with the rule syntax of the config and `zcode permission`.
pub(crate) fn rule_to_add(arg: &str) -> Result<(RuleKind, Rule), String> {
    let (verb, rest) = match arg.split_once(char::is_whitespace) {
        Some((verb, rest)) => (verb, rest.trim()),
        None => (arg, ""),
    };
    let kind = if verb.eq_ignore_ascii_case("add") {
        RuleKind::Allow
    } else {
        RuleKind::parse(verb).ok_or_else(|| {
            format!(
                "/permissions {verb}: start with allow, ask or deny (add is allow), then the rule, \
                 e.g. {ADD_RULE_EXAMPLE}; d in the list removes a rule"
            )
        })?
    };
    if rest.is_empty() {
        return Err(format!(
            "/permissions {verb}: give a rule after it, e.g. {ADD_RULE_EXAMPLE}"
        ));
    }
    let rule = Rule::parse(rest)
        .map_err(|e| format!("/permissions {verb}: {e}; e.g. {ADD_RULE_EXAMPLE}"))?;
    Ok((kind, rule))
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

/// `/export [file]`: the conversation as Markdown; never overwrites. By
/// default it goes outside the workspace (see `default_export_path`).
fn export(model: &mut Model, arg: Option<&str>) -> Vec<Cmd> {
    if model.cells.is_empty() {
        return error(model, "/export: the conversation is empty".to_string());
    }
    let path = match arg {
        Some(path) => expand_home(path),
        None => export::default_export_path(model.exports_dir.as_deref(), &model.session_id),
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

/// `/init`: what the model is asked. Its Write goes through the permission
/// system like any other.
const INIT_PROMPT: &str = "Write an AGENTS.md file at the root of this repository for coding agents working in it. First explore the repository (its layout, build and test commands, languages, conventions, anything surprising). Then write a concise AGENTS.md: how to build, test and lint; the layout in a few lines; code style and conventions that are not obvious; what to avoid. If an AGENTS.md or CLAUDE.md exists, improve it instead of starting over. Do not invent commands you did not find.";

/// Shown at once; the runtime confirms with `SessionModeChanged`.
fn set_mode(model: &mut Model, choice: ModeChoice) -> Vec<Cmd> {
    super::mode::choose(model, choice)
}

/// `/skills`: each skill's name, description and folder.
fn skills_text(skills: &[Skill]) -> String {
    if skills.is_empty() {
        return "no skills: a skill is a folder with a SKILL.md in .zcode/skills/, .claude/skills/ or $ZCODE_HOME/skills/".to_string();
    }
    let mut text =
        String::from("skills (the model loads one with the Skill tool when it applies):");
    for s in skills {
        let description: String = s
            .description
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .filter(|c| !c.is_control())
            .collect();
        text.push_str(&format!(
            "\n  {:<24} {description} ({}: {})",
            s.name,
            s.scope.label(),
            s.base_dir.display()
        ));
    }
    text
}

/// `/help`: the commands, the command files, then the keys.
fn help_text(files: &[CommandFile]) -> String {
    let mut text = String::from("commands:");
    for c in &COMMANDS {
        let name = match c.arg {
            Some(arg) => format!("/{} {arg}", c.name),
            None => format!("/{}", c.name),
        };
        text.push_str(&format!("\n  {name:<32} {}", c.description));
    }
    if !files.is_empty() {
        text.push_str("\ncommand files:");
        for c in files {
            let name = match &c.argument_hint {
                Some(hint) => format!("/{} {hint}", c.name),
                None => format!("/{}", c.name),
            };
            text.push_str(&format!(
                "\n  {name:<32} {} ({})",
                c.description,
                c.scope.label()
            ));
        }
    }
    text.push_str(
        "\nkeys:\
         \n  enter send (queued while busy) · shift+enter or ctrl+j newline\
         \n  shift+tab cycle modes · esc interrupt · ctrl+c clear, twice to quit · ctrl+d on an empty prompt quits\
         \n  ↑/↓ input history · pgup/pgdn, ctrl+home/end scroll · ctrl+z suspend\
         \n  ctrl+o expand or collapse tool output and sub-agents (on an approval: show it full screen) · ctrl+t show or hide the todos\
         \n  @ at the start of a word completes a file path · !command runs a shell command of your own\
         \n  a line starting with // is sent with one / removed",
    );
    text
}
