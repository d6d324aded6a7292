//! Everything the screen shows, and nothing else (TUI-1).

use crate::permission::mode::ExecutionState;
use crate::runtime::protocol::{AlwaysOption, PermissionRequest, RequestKind};
use crate::store::TodoItem;
use ratatui_textarea::{CursorMove, TextArea};
use serde_json::Value;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The state of a tool call in the transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolStatus {
    Running,
    Done,
    Failed,
    Denied,
}

/// One entry of the transcript.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    User {
        text: String,
    },
    /// `streaming` while deltas still arrive; finalised by `AssistantMessage`.
    Assistant {
        text: String,
        streaming: bool,
    },
    Tool {
        call_id: String,
        tool: String,
        summary: String,
        status: ToolStatus,
        /// The first line of the output, or the denial reason.
        detail: String,
        /// The whole output (capped), shown when the cell is expanded.
        output: String,
        /// What an Edit or Write changed, as a unified diff.
        diff: Option<String>,
        /// Showing the whole output rather than its first line (Ctrl+O).
        expanded: bool,
    },
    Notice {
        text: String,
    },
    Error {
        text: String,
    },
}

/// The multi-line input: a `TextArea` does the editing (cursor, word
/// moves, deletes); `text` mirrors its lines joined with `\n` so readers
/// get a plain `&str`. The view wraps the rows itself (see
/// `view::composer`), since the textarea learns its width only while
/// drawing and the layout needs the height before that.
#[derive(Debug, Clone, Default)]
pub struct Composer {
    area: TextArea<'static>,
    text: String,
}

/// Equal when the text and the cursor are: the textarea's undo history and
/// render state do not count.
impl PartialEq for Composer {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text && self.area.cursor() == other.area.cursor()
    }
}

impl Composer {
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The lines of the text (at least one, maybe empty).
    pub fn lines(&self) -> &[String] {
        self.area.lines()
    }

    pub fn set(&mut self, text: &str) {
        self.area = TextArea::default();
        self.area.insert_str(text);
        self.sync();
    }

    /// Empties the buffer and returns what it held.
    pub fn take(&mut self) -> String {
        self.area = TextArea::default();
        std::mem::take(&mut self.text)
    }

    /// Inserts `s` at the cursor; `\n` starts a new line.
    pub fn insert_str(&mut self, s: &str) {
        self.area.insert_str(s);
        self.sync();
    }

    pub fn insert_char(&mut self, c: char) {
        self.area.insert_char(c);
        self.sync();
    }

    pub fn backspace(&mut self) {
        self.area.delete_char();
        self.sync();
    }

    pub fn delete(&mut self) {
        self.area.delete_next_char();
        self.sync();
    }

    /// Deletes the word before the cursor (Ctrl+W, Alt+Backspace).
    pub fn delete_word(&mut self) {
        self.area.delete_word();
        self.sync();
    }

    pub fn left(&mut self) {
        self.area.move_cursor(CursorMove::Back);
    }

    pub fn right(&mut self) {
        self.area.move_cursor(CursorMove::Forward);
    }

    pub fn word_left(&mut self) {
        self.area.move_cursor(CursorMove::WordBack);
    }

    pub fn word_right(&mut self) {
        self.area.move_cursor(CursorMove::WordForward);
    }

    /// Moves to the line above; false on the first line.
    pub fn up(&mut self) -> bool {
        let (row, col) = self.cursor_position();
        if row == 0 {
            return false;
        }
        self.jump(row - 1, col);
        true
    }

    /// Moves to the line below; false on the last line.
    pub fn down(&mut self) -> bool {
        let (row, col) = self.cursor_position();
        if row + 1 >= self.line_count() {
            return false;
        }
        self.jump(row + 1, col);
        true
    }

    /// Start of the current line.
    pub fn line_start(&mut self) {
        self.area.move_cursor(CursorMove::Head);
    }

    /// End of the current line.
    pub fn line_end(&mut self) {
        self.area.move_cursor(CursorMove::End);
    }

    /// Deletes from the start of the line to the cursor (Ctrl+U); at the
    /// start of a line it does nothing, unlike the textarea's own binding
    /// which would join the lines.
    pub fn kill_line_start(&mut self) {
        if self.cursor_position().1 > 0 {
            self.area.delete_line_by_head();
            self.sync();
        }
    }

    /// (row, column in chars) of the cursor.
    pub fn cursor_position(&self) -> (usize, usize) {
        let cursor = self.area.cursor();
        (cursor.0, cursor.1)
    }

    pub fn line_count(&self) -> usize {
        self.area.lines().len()
    }

    /// Moves the cursor to (row, col), both clamped to the text.
    pub fn jump_to(&mut self, row: usize, col: usize) {
        self.jump(row.min(self.line_count().saturating_sub(1)), col);
    }

    /// Moves to (row, col), the column clamped to the line.
    fn jump(&mut self, row: usize, col: usize) {
        let len = self.area.lines().get(row).map_or(0, |l| l.chars().count());
        let to = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
        self.area
            .move_cursor(CursorMove::Jump(to(row), to(col.min(len))));
    }

    fn sync(&mut self) {
        self.text = self.area.lines().join("\n");
    }
}

/// One choice of the approval panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalOption {
    AllowOnce,
    AlwaysProject,
    AlwaysSession,
    FullAccess,
    /// Opens a text field: plan feedback (PLAN-8), or a deny with feedback
    /// the model receives (APPR-7).
    Feedback,
    Deny,
}

impl ApprovalOption {
    pub fn label(self, kind: RequestKind) -> &'static str {
        match (self, kind) {
            (ApprovalOption::AllowOnce, RequestKind::Plan) => "Approve the plan",
            (ApprovalOption::AllowOnce, _) => "Allow once",
            (ApprovalOption::AlwaysProject, _) => "Always allow in this project",
            (ApprovalOption::AlwaysSession, _) => "Always allow in this session",
            (ApprovalOption::FullAccess, _) => "Full access (switch to yolo)",
            (ApprovalOption::Feedback, RequestKind::Plan) => "Give feedback (keep planning)",
            (ApprovalOption::Feedback, _) => "Deny with feedback",
            (ApprovalOption::Deny, RequestKind::Question) => "Skip (deny)",
            (ApprovalOption::Deny, _) => "Deny",
        }
    }
}

/// The options a request offers, in order (APPR-6).
pub fn approval_options(request: &PermissionRequest) -> Vec<ApprovalOption> {
    match request.kind {
        RequestKind::Tool => {
            let mut options = vec![ApprovalOption::AllowOnce];
            match request.always {
                AlwaysOption::Project => options.push(ApprovalOption::AlwaysProject),
                AlwaysOption::Session => options.push(ApprovalOption::AlwaysSession),
                AlwaysOption::None => {}
            }
            if request.full_access_available {
                options.push(ApprovalOption::FullAccess);
            }
            options.push(ApprovalOption::Feedback);
            options.push(ApprovalOption::Deny);
            options
        }
        RequestKind::Plan => vec![
            ApprovalOption::AllowOnce,
            ApprovalOption::Feedback,
            ApprovalOption::Deny,
        ],
        RequestKind::Question => vec![ApprovalOption::Deny],
    }
}

/// The one line that says what a tool call does: the Bash command, the
/// file path, the URL, the pattern, how many todos, the first question;
/// else the compact JSON input.
pub fn input_summary(input: &Value) -> String {
    let field = [
        "command",
        "file_path",
        "path",
        "url",
        "pattern",
        "query",
        "description",
    ]
    .iter()
    .find_map(|k| input.get(*k).and_then(Value::as_str));
    if let Some(s) = field {
        return s.to_string();
    }
    // Lists read better as what they hold than as JSON.
    if let Some(todos) = input.get("todos").and_then(Value::as_array) {
        let noun = if todos.len() == 1 { "todo" } else { "todos" };
        return format!("{} {noun}", todos.len());
    }
    if let Some(first) = input
        .get("questions")
        .and_then(Value::as_array)
        .and_then(|q| q.first())
        .and_then(|q| q.get("question"))
        .and_then(Value::as_str)
    {
        return first.to_string();
    }
    if input.as_object().is_some_and(|o| o.is_empty()) {
        return String::new();
    }
    input.to_string()
}

/// The head plan request's Markdown rows at one width, kept by `update` so
/// a long plan is not rendered again for every frame and update (PLAN-10).
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRows {
    pub request_id: String,
    /// The panel's inner width.
    pub width: u16,
    pub monochrome: bool,
    pub lines: Vec<ratatui::text::Line<'static>>,
}

/// The whole UI state.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub cells: crate::tui::cells::Cells,
    pub composer: Composer,
    /// Sent inputs, oldest first, for ↑/↓ recall.
    pub history: Vec<String>,
    /// Index into `history` while recalling.
    pub history_pos: Option<usize>,
    pub approvals: VecDeque<PermissionRequest>,
    /// The ASK-6 panel of the head request when it is a question, with the
    /// id of the request it belongs to.
    pub question: Option<(String, crate::tui::widgets::question_panel::QuestionPanel)>,
    /// The highlighted option of the head request.
    pub approval_selected: usize,
    /// The feedback being typed for the head request, when its field is open.
    pub feedback: Option<String>,
    /// How far the head request's body (a long plan) is scrolled.
    pub approval_scroll: u16,
    pub state: ExecutionState,
    pub session_id: String,
    pub model_label: String,
    pub workspace: String,
    /// The branch checked out in the workspace (`git_info`), read by the
    /// loop at start and after each turn.
    pub git_branch: Option<String>,
    pub busy: bool,
    pub turn_started: Option<Instant>,
    /// The last clock value from `Msg::Tick`.
    pub now: Option<Instant>,
    pub width: u16,
    pub height: u16,
    /// Lines scrolled back from the bottom of the transcript.
    pub scroll: usize,
    /// Inputs the runtime queued behind the running turn.
    pub queued: Vec<String>,
    /// Ctrl+C was pressed once on an empty idle composer.
    pub quit_armed: bool,
    /// Something changed since the last draw.
    pub dirty: bool,
    /// `NO_COLOR`: no colours, only modifiers.
    pub monochrome: bool,
    /// Advances on every tick while busy.
    pub spinner: usize,
    /// Commands judged read-only run without the kernel sandbox (or, with
    /// `sandbox.mode` "required", are asked): the status line says so.
    pub sandbox_missing: bool,
    /// Processes finished commands left running (ended with the session).
    pub background: usize,
    /// The slash popup's selection (TUI-4).
    pub slash: crate::tui::slash::PopupState,
    /// The open picker (`/mode`, `/model`, `/permissions`, `/resume`).
    pub picker: Option<crate::tui::picker::Picker>,
    /// Tool cells show their whole output (Ctrl+O); new cells follow.
    pub tools_expanded: bool,
    /// The plan of the head request, rendered (see `PlanRows`).
    pub plan_rows: Option<PlanRows>,
    /// The session's todo list (TODO-7), shown in the sidebar.
    pub todos: Vec<TodoItem>,
    /// The user hid the sidebar (Ctrl+T).
    pub sidebar_hidden: bool,
    /// The model's context window in tokens; 0 when unknown.
    pub context_window: u64,
    /// Input tokens of the last request: how full the context is.
    pub context_tokens: u64,
    /// The cells' rows at the transcript's width, kept by `update` (TUI-2).
    pub transcript_layout: crate::tui::transcript_layout::TranscriptLayout,
}

impl Model {
    pub fn new(width: u16, height: u16) -> Self {
        Self {
            cells: Default::default(),
            composer: Composer::default(),
            history: Vec::new(),
            history_pos: None,
            approvals: VecDeque::new(),
            question: None,
            approval_selected: 0,
            feedback: None,
            approval_scroll: 0,
            state: ExecutionState::default(),
            session_id: String::new(),
            model_label: String::new(),
            workspace: String::new(),
            git_branch: None,
            busy: false,
            turn_started: None,
            now: None,
            width,
            height,
            scroll: 0,
            queued: Vec::new(),
            quit_armed: false,
            dirty: true,
            monochrome: false,
            spinner: 0,
            sandbox_missing: false,
            background: 0,
            slash: Default::default(),
            picker: None,
            tools_expanded: false,
            plan_rows: None,
            todos: Vec::new(),
            sidebar_hidden: false,
            context_window: 0,
            context_tokens: 0,
            transcript_layout: Default::default(),
        }
    }

    /// Seconds since the turn started, by the last tick.
    pub fn elapsed(&self) -> Option<Duration> {
        match (self.turn_started, self.now) {
            (Some(start), Some(now)) => Some(now.saturating_duration_since(start)),
            (Some(_), None) => Some(Duration::ZERO),
            _ => None,
        }
    }

    /// The session id without its `sess_` prefix, first 8 characters.
    pub fn short_session(&self) -> &str {
        let id = self
            .session_id
            .strip_prefix("sess_")
            .unwrap_or(&self.session_id);
        let end = id.char_indices().nth(8).map_or(id.len(), |(i, _)| i);
        &id[..end]
    }
}

#[cfg(test)]
mod summary_tests {
    use super::input_summary;
    use serde_json::json;

    #[test]
    fn tui2_tool_cells_summarise_lists_not_json() {
        assert_eq!(input_summary(&json!({"command": "ls"})), "ls");
        assert_eq!(
            input_summary(&json!({"todos": [{"content": "a"}, {"content": "b"}]})),
            "2 todos"
        );
        assert_eq!(
            input_summary(&json!({"todos": [{"content": "a"}]})),
            "1 todo"
        );
        assert_eq!(
            input_summary(&json!({"questions": [{"question": "Which CI?"}]})),
            "Which CI?"
        );
        assert_eq!(input_summary(&json!({})), "");
        assert_eq!(input_summary(&json!({"n": 1})), r#"{"n":1}"#);
    }
}
