//! Everything the screen shows, and nothing else (TUI-1).

use crate::permission::mode::ExecutionState;
use crate::runtime::protocol::{AlwaysOption, PermissionRequest, RequestKind};
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
    },
    Notice {
        text: String,
    },
    Error {
        text: String,
    },
}

/// A multi-line input buffer with a cursor (a byte offset on a char
/// boundary).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Composer {
    text: String,
    cursor: usize,
}

impl Composer {
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub fn set(&mut self, text: &str) {
        self.text = text.to_string();
        self.cursor = self.text.len();
    }

    /// Empties the buffer and returns what it held.
    pub fn take(&mut self) -> String {
        self.cursor = 0;
        std::mem::take(&mut self.text)
    }

    pub fn insert_str(&mut self, s: &str) {
        self.text.insert_str(self.cursor, s);
        self.cursor += s.len();
    }

    pub fn insert_char(&mut self, c: char) {
        self.text.insert(self.cursor, c);
        self.cursor += c.len_utf8();
    }

    pub fn backspace(&mut self) {
        if let Some((i, _)) = self.text[..self.cursor].char_indices().next_back() {
            self.text.replace_range(i..self.cursor, "");
            self.cursor = i;
        }
    }

    pub fn delete(&mut self) {
        if let Some(c) = self.text[self.cursor..].chars().next() {
            let end = self.cursor + c.len_utf8();
            self.text.replace_range(self.cursor..end, "");
        }
    }

    pub fn left(&mut self) {
        if let Some((i, _)) = self.text[..self.cursor].char_indices().next_back() {
            self.cursor = i;
        }
    }

    pub fn right(&mut self) {
        if let Some(c) = self.text[self.cursor..].chars().next() {
            self.cursor += c.len_utf8();
        }
    }

    /// Start of the current line.
    pub fn line_start(&mut self) {
        self.cursor = self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1);
    }

    /// End of the current line.
    pub fn line_end(&mut self) {
        self.cursor = self.text[self.cursor..]
            .find('\n')
            .map_or(self.text.len(), |i| self.cursor + i);
    }

    /// Deletes from the start of the line to the cursor (Ctrl+U).
    pub fn kill_line_start(&mut self) {
        let start = self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1);
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// (row, column in chars) of the cursor.
    pub fn cursor_position(&self) -> (usize, usize) {
        let before = &self.text[..self.cursor];
        let row = before.matches('\n').count();
        let col = before
            .rsplit('\n')
            .next()
            .map_or(0, |line| line.chars().count());
        (row, col)
    }

    pub fn line_count(&self) -> usize {
        self.text.split('\n').count()
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
/// file path, the URL, the pattern; else the compact JSON input.
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
    match field {
        Some(s) => s.to_string(),
        None if input.as_object().is_some_and(|o| o.is_empty()) => String::new(),
        None => input.to_string(),
    }
}

/// The whole UI state.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub cells: Vec<Cell>,
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
    /// The cells' rows at the transcript's width, kept by `update` (TUI-2).
    pub transcript_layout: crate::tui::transcript_layout::TranscriptLayout,
}

impl Model {
    pub fn new(width: u16, height: u16) -> Self {
        Self {
            cells: Vec::new(),
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
