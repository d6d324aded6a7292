//! The pure state transition: `update(&mut Model, Msg) -> Vec<Cmd>` (TUI-1).

use super::keys::{Action, action};
use super::model::{ApprovalOption, Cell, Model, ToolStatus, approval_options, input_summary};
use super::msg::{Cmd, Msg};
use super::picker::Picker;
use super::widgets::question_panel::QuestionPanel;
use crate::permission::mode::ModeChoice;
use crate::runtime::protocol::{Event, HistoryItem, Op, PermissionReply, RequestKind, TurnEnd};
use crate::tools::ask_user_question::AskUserQuestionInput;
use crossterm::event::KeyEvent;

/// Applies `msg` to `model` and returns what the loop must do.
pub fn update(model: &mut Model, msg: Msg) -> Vec<Cmd> {
    let cmds = apply(model, msg);
    // The head request's question panel exists as soon as it is shown.
    ensure_question_panel(model);
    sync_transcript(model);
    cmds
}

/// Lays out what changed in the transcript, whatever changed it, and keeps
/// the scroll within it (TUI-2).
fn sync_transcript(model: &mut Model) {
    let width = super::view::transcript_width(model);
    model
        .transcript_layout
        .sync(&model.cells, width, model.monochrome);
    // While a relayout is under way the row count is unknown; the view
    // clamps until it is done.
    if model.transcript_layout.is_complete() {
        let rows = super::view::transcript::row_count(model, width);
        let height = usize::from(super::view::transcript_height(model));
        model.scroll = model.scroll.min(rows.saturating_sub(height));
    }
}

fn apply(model: &mut Model, msg: Msg) -> Vec<Cmd> {
    match msg {
        Msg::Key(key) => on_key(model, key),
        Msg::Paste(text) => {
            if model.approvals.is_empty() {
                // Terminals send CR for line breaks inside a paste.
                let text = text.replace("\r\n", "\n").replace('\r', "\n");
                model.composer.insert_str(&text);
                model.history_pos = None;
                model.quit_armed = false;
                model.dirty = true;
            }
            Vec::new()
        }
        Msg::Resize(w, h) => {
            model.width = w;
            model.height = h;
            model.dirty = true;
            Vec::new()
        }
        Msg::Tick(now) => {
            model.now = Some(now);
            if model.busy {
                model.spinner = model.spinner.wrapping_add(1);
                model.dirty = true;
            }
            Vec::new()
        }
        Msg::Scroll(delta) => {
            scroll_by(model, i32::from(delta));
            Vec::new()
        }
        Msg::Runtime(event) => {
            on_event(model, event);
            Vec::new()
        }
        Msg::Sessions(list) => {
            model.picker = Some(Picker::sessions(&list, &model.session_id));
            model.dirty = true;
            Vec::new()
        }
        Msg::Models(list) => {
            model.picker = Some(Picker::models(&list, &model.model_label));
            model.dirty = true;
            Vec::new()
        }
        Msg::SessionReplaced => {
            let mut fresh = Model::new(model.width, model.height);
            fresh.history = std::mem::take(&mut model.history);
            fresh.composer = std::mem::take(&mut model.composer);
            fresh.monochrome = model.monochrome;
            fresh.now = model.now;
            *model = fresh;
            Vec::new()
        }
    }
}

fn page(model: &Model) -> i32 {
    i32::from(model.height.saturating_sub(6)).max(1)
}

fn scroll_by(model: &mut Model, delta: i32) {
    let delta = isize::try_from(delta).unwrap_or_default();
    model.scroll = model.scroll.saturating_add_signed(delta);
    model.dirty = true;
}

fn on_key(model: &mut Model, key: KeyEvent) -> Vec<Cmd> {
    if ensure_question_panel(model) {
        return on_question_key(model, key);
    }
    // TUI-4: an open picker, then the slash popup, see keys first.
    if model.approvals.is_empty() {
        if model.picker.is_some() {
            return super::picker::on_key(model, key);
        }
        if let Some(cmds) = super::slash::on_popup_key(model, key) {
            model.quit_armed = false;
            return cmds;
        }
    }
    let act = action(key);
    if act == Action::Ignore {
        return Vec::new();
    }
    model.dirty = true;
    if act != Action::Interrupt {
        model.quit_armed = false;
    }
    // The sidebar toggles in any state, an open approval included.
    if act == Action::ToggleSidebar {
        model.sidebar_hidden = !model.sidebar_hidden;
        return Vec::new();
    }
    // So do the tool outputs: reading a command's output helps to answer.
    if act == Action::ToggleToolOutput {
        toggle_tool_output(model);
        return Vec::new();
    }
    if !model.approvals.is_empty() {
        return on_approval_key(model, act);
    }
    match act {
        Action::Submit => submit(model),
        Action::Newline => {
            model.composer.insert_char('\n');
            Vec::new()
        }
        Action::CycleMode => {
            let current = if model.state.plan_enabled {
                ModeChoice::Plan
            } else {
                ModeChoice::Mode(model.state.mode)
            };
            let at = ModeChoice::CYCLE.iter().position(|c| *c == current);
            let next = match at {
                Some(i) => ModeChoice::CYCLE[(i + 1) % ModeChoice::CYCLE.len()],
                None => ModeChoice::CYCLE[0],
            };
            // Shown at once; the runtime confirms with `SessionModeChanged`.
            model.state = model.state.apply(next);
            vec![Cmd::Send(Op::SetMode { choice: next })]
        }
        Action::Cancel => {
            if model.busy {
                vec![Cmd::Send(Op::Interrupt)]
            } else {
                Vec::new()
            }
        }
        Action::Interrupt => {
            if model.busy {
                model.quit_armed = false;
                vec![Cmd::Send(Op::Interrupt)]
            } else if !model.composer.is_empty() {
                model.composer.take();
                model.history_pos = None;
                model.quit_armed = false;
                Vec::new()
            } else if model.quit_armed {
                vec![Cmd::Quit]
            } else {
                model.quit_armed = true;
                Vec::new()
            }
        }
        Action::Suspend => vec![Cmd::Suspend],
        Action::PageUp => {
            scroll_by(model, page(model));
            Vec::new()
        }
        Action::PageDown => {
            scroll_by(model, -page(model));
            Vec::new()
        }
        Action::Top => {
            // Clamped to the top row once the transcript is synchronised.
            model.scroll = usize::MAX;
            Vec::new()
        }
        Action::Bottom => {
            model.scroll = 0;
            Vec::new()
        }
        // In a multi-line draft the arrows move between its lines; at its
        // edges (and on an empty or recalled composer) they recall history.
        Action::Up => {
            if model.history_pos.is_some() || !model.composer.up() {
                recall(model, true);
            }
            Vec::new()
        }
        Action::Down => {
            if model.history_pos.is_some() || !model.composer.down() {
                recall(model, false);
            }
            Vec::new()
        }
        Action::Home if !model.composer.is_empty() => {
            model.composer.line_start();
            Vec::new()
        }
        Action::End if !model.composer.is_empty() => {
            model.composer.line_end();
            Vec::new()
        }
        Action::Home => {
            model.scroll = usize::MAX;
            Vec::new()
        }
        Action::End => {
            model.scroll = 0;
            Vec::new()
        }
        Action::WordLeft => {
            model.composer.word_left();
            Vec::new()
        }
        Action::WordRight => {
            model.composer.word_right();
            Vec::new()
        }
        Action::DeleteWord => {
            model.composer.delete_word();
            Vec::new()
        }
        Action::Left => {
            model.composer.left();
            Vec::new()
        }
        Action::Right => {
            model.composer.right();
            Vec::new()
        }
        Action::LineStart => {
            model.composer.line_start();
            Vec::new()
        }
        Action::LineEnd => {
            model.composer.line_end();
            Vec::new()
        }
        Action::Backspace => {
            model.composer.backspace();
            Vec::new()
        }
        Action::Delete => {
            model.composer.delete();
            Vec::new()
        }
        Action::KillLine => {
            model.composer.kill_line_start();
            Vec::new()
        }
        Action::Char(c) => {
            model.composer.insert_char(c);
            model.history_pos = None;
            Vec::new()
        }
        Action::Ignore | Action::ToggleSidebar | Action::ToggleToolOutput => Vec::new(),
    }
}

fn submit(model: &mut Model) -> Vec<Cmd> {
    if model.composer.text().trim().is_empty() {
        return Vec::new();
    }
    if let Some(cmds) = super::slash::submit(model) {
        return cmds;
    }
    let text = model.composer.take();
    model.history_pos = None;
    if model.history.last() != Some(&text) {
        model.history.push(text.clone());
    }
    model.scroll = 0;
    if !model.busy {
        // The runtime starts a turn at once; `TurnStarted` confirms it.
        model.busy = true;
        model.turn_started = model.now;
    }
    vec![Cmd::Send(Op::UserInput { text })]
}

/// ↑/↓ recall history while the composer is empty or showing a recalled
/// entry; otherwise they do nothing.
fn recall(model: &mut Model, back: bool) {
    if model.history.is_empty() {
        return;
    }
    let recalling = model.history_pos.is_some();
    if !recalling && !model.composer.is_empty() {
        return;
    }
    let last = model.history.len() - 1;
    let next = match (model.history_pos, back) {
        (None, true) => Some(last),
        (None, false) => None,
        (Some(i), true) => Some(i.saturating_sub(1)),
        (Some(i), false) if i >= last => None,
        (Some(i), false) => Some(i + 1),
    };
    model.history_pos = next;
    match next.and_then(|i| model.history.get(i)) {
        Some(text) => {
            let text = text.clone();
            model.composer.set(&text);
        }
        None => {
            model.composer.take();
        }
    }
}

/// Makes sure a question at the head of the queue has its panel (ASK-6);
/// false when the head is not a question (or its input cannot be read, in
/// which case the plain approval panel lets the user reject it).
fn ensure_question_panel(model: &mut Model) -> bool {
    let Some(request) = model.approvals.front() else {
        model.question = None;
        return false;
    };
    if request.kind != RequestKind::Question {
        return false;
    }
    if model
        .question
        .as_ref()
        .is_some_and(|(id, _)| *id == request.request_id)
    {
        return true;
    }
    match AskUserQuestionInput::parse(request.input.clone()) {
        Ok(input) => {
            model.question = Some((
                request.request_id.clone(),
                QuestionPanel::new(input.questions),
            ));
            true
        }
        Err(_) => false,
    }
}

fn on_question_key(model: &mut Model, key: KeyEvent) -> Vec<Cmd> {
    model.dirty = true;
    // Ctrl+C still interrupts the turn that waits on the question.
    if action(key) == Action::Interrupt {
        return vec![Cmd::Send(Op::Interrupt)];
    }
    let Some((_, panel)) = model.question.as_mut() else {
        return Vec::new();
    };
    let Some(outcome) = panel.handle_key(key) else {
        return Vec::new();
    };
    model.question = None;
    let Some(request) = model.approvals.pop_front() else {
        return Vec::new();
    };
    model.approval_selected = 0;
    vec![Cmd::Send(Op::PermissionReply {
        request_id: request.request_id,
        reply: outcome.into_reply(),
    })]
}

fn on_feedback_key(model: &mut Model, act: Action) -> Vec<Cmd> {
    let Some(text) = model.feedback.as_mut() else {
        return Vec::new();
    };
    match act {
        Action::Char(c) => text.push(c),
        Action::Newline => text.push('\n'),
        Action::Backspace => {
            text.pop();
        }
        Action::Cancel => model.feedback = None,
        Action::Interrupt => return vec![Cmd::Send(Op::Interrupt)],
        Action::Submit if !text.trim().is_empty() => {
            let feedback = text.trim().to_string();
            model.feedback = None;
            let Some(request) = model.approvals.pop_front() else {
                return Vec::new();
            };
            model.approval_selected = 0;
            model.approval_scroll = 0;
            let reply = if request.kind == RequestKind::Plan {
                PermissionReply::PlanFeedback { feedback }
            } else {
                PermissionReply::Deny {
                    feedback: Some(feedback),
                }
            };
            return vec![Cmd::Send(Op::PermissionReply {
                request_id: request.request_id,
                reply,
            })];
        }
        _ => {}
    }
    Vec::new()
}

fn on_approval_key(model: &mut Model, act: Action) -> Vec<Cmd> {
    if model.feedback.is_some() {
        return on_feedback_key(model, act);
    }
    let Some(request) = model.approvals.front() else {
        return Vec::new();
    };
    let options = approval_options(request);
    match act {
        Action::Up => {
            model.approval_selected = model.approval_selected.saturating_sub(1);
            Vec::new()
        }
        Action::Down => {
            if model.approval_selected + 1 < options.len() {
                model.approval_selected += 1;
            }
            Vec::new()
        }
        Action::Submit => match options.get(model.approval_selected) {
            Some(opt) => answer(model, *opt),
            None => Vec::new(),
        },
        Action::Char(c) => match c.to_digit(10).map(|d| d as usize) {
            Some(d) if d >= 1 && d <= options.len() => answer(model, options[d - 1]),
            _ => Vec::new(),
        },
        Action::Cancel => answer(model, ApprovalOption::Deny),
        // Ctrl+C while a turn waits on an approval interrupts it.
        Action::Interrupt => vec![Cmd::Send(Op::Interrupt)],
        Action::PageUp if request.kind == RequestKind::Plan => {
            model.approval_scroll = model
                .approval_scroll
                .saturating_sub(u16::try_from(page(model).unsigned_abs()).unwrap_or(u16::MAX));
            Vec::new()
        }
        Action::PageDown if request.kind == RequestKind::Plan => {
            model.approval_scroll = model
                .approval_scroll
                .saturating_add(u16::try_from(page(model).unsigned_abs()).unwrap_or(u16::MAX));
            Vec::new()
        }
        Action::PageUp => {
            scroll_by(model, page(model));
            Vec::new()
        }
        Action::PageDown => {
            scroll_by(model, -page(model));
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Replies to the head request. The panel closes when the runtime reports
/// `PermissionResolved`; it is popped here too so a fast user never answers
/// the same request twice.
fn answer(model: &mut Model, option: ApprovalOption) -> Vec<Cmd> {
    if option == ApprovalOption::Feedback {
        model.feedback = Some(String::new());
        return Vec::new();
    }
    let Some(request) = model.approvals.pop_front() else {
        return Vec::new();
    };
    model.approval_selected = 0;
    model.approval_scroll = 0;
    let reply = match option {
        ApprovalOption::Feedback => PermissionReply::Deny { feedback: None },
        ApprovalOption::AllowOnce => PermissionReply::AllowOnce,
        ApprovalOption::AlwaysProject => PermissionReply::AlwaysAllowProject {
            rules: request.suggestions.clone(),
        },
        ApprovalOption::AlwaysSession => PermissionReply::AlwaysAllowSession,
        ApprovalOption::FullAccess => PermissionReply::FullAccess,
        ApprovalOption::Deny => PermissionReply::Deny { feedback: None },
    };
    vec![Cmd::Send(Op::PermissionReply {
        request_id: request.request_id,
        reply,
    })]
}

fn on_event(model: &mut Model, event: Event) {
    model.dirty = true;
    match event {
        Event::SessionStarted {
            session_id,
            workspace,
            model: label,
            offline_demo,
            state,
            resumed,
            context_window,
            ..
        } => {
            model.context_window = context_window;
            model.session_id = session_id;
            model.workspace = workspace;
            model.model_label = label;
            model.state = state;
            if offline_demo {
                push_notice(
                    model,
                    "offline demo provider (scripted replies): no model is configured. Set OPENAI_BASE_URL \
                     (e.g. http://127.0.0.1:8080/v1) or OPENAI_API_KEY or ANTHROPIC_API_KEY, or add a provider \
                     to $ZCODE_HOME/config.json; see the README.",
                );
            }
            if resumed {
                push_notice(model, "resumed session");
            }
        }
        Event::TurnStarted { text, .. } => {
            model.busy = true;
            if model.turn_started.is_none() {
                model.turn_started = model.now;
            }
            if let Some(i) = model.queued.iter().position(|q| *q == text) {
                model.queued.remove(i);
            }
            model.cells.push(Cell::User { text });
        }
        Event::InputQueued { text, .. } => model.queued.push(text),
        Event::AssistantDelta { text } => match model.cells.last_mut() {
            Some(Cell::Assistant {
                text: current,
                streaming: true,
            }) => current.push_str(&text),
            _ => model.cells.push(Cell::Assistant {
                text,
                streaming: true,
            }),
        },
        Event::ReasoningDelta { .. } => model.dirty = false,
        // The last request's input is what the context holds now; a
        // provider that reports none leaves the last figure.
        Event::Usage { usage, .. } => {
            model.dirty = usage.input_tokens > 0 && usage.input_tokens != model.context_tokens;
            if usage.input_tokens > 0 {
                model.context_tokens = usage.input_tokens;
            }
        }
        Event::TodosChanged { todos } => model.todos = todos,
        Event::AssistantMessage { text } => match model.cells.last_mut() {
            Some(Cell::Assistant {
                text: current,
                streaming,
            }) if *streaming => {
                *current = text;
                *streaming = false;
            }
            _ => {
                if !text.is_empty() {
                    model.cells.push(Cell::Assistant {
                        text,
                        streaming: false,
                    });
                }
            }
        },
        Event::ToolCallStarted {
            call_id,
            tool,
            input,
        } => {
            finish_streaming(model);
            model.cells.push(Cell::Tool {
                call_id,
                tool,
                summary: input_summary(&input),
                status: ToolStatus::Running,
                detail: String::new(),
                output: String::new(),
                diff: None,
                expanded: model.tools_expanded,
            });
        }
        Event::PermissionRequested { request } => model.approvals.push_back(request),
        Event::PermissionResolved { request_id, .. } => {
            if let Some(i) = model
                .approvals
                .iter()
                .position(|r| r.request_id == request_id)
            {
                model.approvals.remove(i);
                if i == 0 {
                    model.approval_selected = 0;
                }
            }
        }
        Event::ToolCallFinished {
            call_id,
            output,
            is_error,
            diff,
            ..
        } => {
            let status = if is_error {
                ToolStatus::Failed
            } else {
                ToolStatus::Done
            };
            let line = first_line(&output);
            if set_tool(model, &call_id, status, line) {
                set_tool_output(model, &call_id, kept_output(&output), diff);
            }
        }
        Event::ToolCallDenied { denial } => {
            if !set_tool(
                model,
                &denial.call_id,
                ToolStatus::Denied,
                denial.reason.clone(),
            ) {
                model.cells.push(Cell::Tool {
                    call_id: denial.call_id,
                    tool: denial.tool,
                    summary: input_summary(&denial.input),
                    status: ToolStatus::Denied,
                    detail: denial.reason,
                    output: String::new(),
                    diff: None,
                    expanded: model.tools_expanded,
                });
            }
        }
        Event::ContextCompacted { kept_messages } => push_notice(
            model,
            &format!("older history was summarised ({kept_messages} messages kept)"),
        ),
        Event::SessionModeChanged { state } => model.state = state,
        Event::History { items } => replay_history(model, items),
        Event::ModelChanged {
            model: label,
            context_window,
            ..
        } => {
            push_notice(model, &format!("model: {label} (from the next request on)"));
            model.model_label = label;
            // The context use shown so far was measured against the old
            // window; the next request's usage replaces the count.
            model.context_window = context_window;
        }
        Event::ProjectRules { rules } => {
            let selected = model.picker.as_ref().map_or(0, |p| p.selected);
            let mut picker = Picker::rules(rules);
            picker.selected = selected.min(picker.items.len().saturating_sub(1));
            model.picker = Some(picker);
        }
        Event::Notice { message } => push_notice(model, &message),
        Event::Error { message } => model.cells.push(Cell::Error { text: message }),
        Event::TurnFinished { end, .. } => {
            finish_streaming(model);
            match end {
                TurnEnd::Interrupted => push_notice(model, "interrupted"),
                TurnEnd::RoundLimit => push_notice(model, "stopped: tool-call round limit reached"),
                TurnEnd::Completed | TurnEnd::Stopped | TurnEnd::Failed => {}
            }
            // A tool still "running" when its turn ends was cut off.
            for cell in &mut model.cells {
                if let Cell::Tool { status, .. } = cell
                    && *status == ToolStatus::Running
                {
                    *status = ToolStatus::Failed;
                }
            }
            model.busy = false;
            model.turn_started = None;
        }
    }
}

/// A resumed session's conversation as cells.
fn replay_history(model: &mut Model, items: Vec<HistoryItem>) {
    for item in items {
        let cell = match item {
            HistoryItem::User { text } => Cell::User { text },
            HistoryItem::Assistant { text } => Cell::Assistant {
                text,
                streaming: false,
            },
            HistoryItem::Tool {
                call_id,
                tool,
                input,
                output,
                is_error,
            } => Cell::Tool {
                call_id,
                tool,
                summary: input_summary(&input),
                status: if is_error {
                    ToolStatus::Failed
                } else {
                    ToolStatus::Done
                },
                detail: first_line(&output),
                output: kept_output(&output),
                diff: None,
                expanded: model.tools_expanded,
            },
            HistoryItem::Summary => Cell::Notice {
                text: "older history was summarised".into(),
            },
        };
        model.cells.push(cell);
    }
}

fn push_notice(model: &mut Model, text: &str) {
    model.cells.push(Cell::Notice {
        text: text.to_string(),
    });
}

fn finish_streaming(model: &mut Model) {
    if let Some(Cell::Assistant { streaming, .. }) = model.cells.last_mut() {
        *streaming = false;
    }
}

/// Updates the tool cell of `call_id`; false when there is none.
fn set_tool(model: &mut Model, id: &str, new_status: ToolStatus, new_detail: String) -> bool {
    for cell in model.cells.iter_mut().rev() {
        if let Cell::Tool {
            call_id,
            status,
            detail,
            ..
        } = cell
            && call_id == id
        {
            *status = new_status;
            *detail = new_detail;
            return true;
        }
    }
    false
}

/// Tool output rows a cell keeps: enough to read, bounded in memory.
const KEPT_OUTPUT_LINES: usize = 500;

/// The output a tool cell keeps: at most `KEPT_OUTPUT_LINES` lines, tabs
/// and control characters made printable, outer blank lines dropped.
fn kept_output(output: &str) -> String {
    let mut lines: Vec<String> = output
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .take(KEPT_OUTPUT_LINES)
        .map(|l| {
            l.replace('\t', "    ")
                .chars()
                .filter(|c| !c.is_control())
                .collect()
        })
        .collect();
    let total = output.lines().count();
    if total > KEPT_OUTPUT_LINES {
        lines.push(format!("… {} more lines", total - KEPT_OUTPUT_LINES));
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

/// Stores the output and diff of the tool cell of `id`.
fn set_tool_output(model: &mut Model, id: &str, new_output: String, new_diff: Option<String>) {
    for cell in model.cells.iter_mut().rev() {
        if let Cell::Tool {
            call_id,
            output,
            diff,
            ..
        } = cell
            && call_id == id
        {
            *output = new_output;
            *diff = new_diff;
            return;
        }
    }
}

/// Ctrl+O: every tool cell shows its whole output, or its first line again.
fn toggle_tool_output(model: &mut Model) {
    model.tools_expanded = !model.tools_expanded;
    for cell in &mut model.cells {
        if let Cell::Tool { expanded, .. } = cell {
            *expanded = model.tools_expanded;
        }
    }
}

/// The first non-empty line of a tool's output, tabs and control
/// characters made printable, outer whitespace trimmed.
fn first_line(output: &str) -> String {
    let line = output
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    line.replace('\t', "  ")
        .chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .to_string()
}
