//! Everything the screen shows, and nothing else (TUI-1).

use crate::extensions::commands::CommandFile;
use crate::extensions::skills::Skill;
use crate::permission::mode::ExecutionState;
use crate::protocol::PermissionRequest;
use crate::store::TodoItem;
use crate::tui::approval::ApprovalPanel;
use crate::tui::cells::Cells;
use crate::tui::composer::Composer;
use crate::tui::file_popup::{FileIndex, FilePopupState};
use crate::tui::layout::scroll::ScrollAnchor;
use crate::tui::layout::transcript::TranscriptLayout;
use crate::tui::picker::Picker;
use crate::tui::slash::PopupState;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The whole UI state.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub cells: Cells,
    pub composer: Composer,
    /// Sent inputs, oldest first, for ↑/↓ recall.
    pub history: Vec<String>,
    /// Index into `history` while recalling.
    pub history_pos: Option<usize>,
    pub approvals: VecDeque<PermissionRequest>,
    /// The panel of the head request; read it through [`Model::panel`],
    /// which checks that it belongs to the head.
    pub approval: Option<ApprovalPanel>,
    pub state: ExecutionState,
    pub session_id: String,
    pub model_label: String,
    pub workspace: String,
    /// The branch checked out in the workspace (`git_info`), read by the
    /// loop at start and after each turn.
    pub git_branch: Option<String>,
    pub busy: bool,
    pub turn_started: Option<Instant>,
    /// Time of this turn spent waiting for the user (approvals, questions,
    /// plan reviews), which is not the model's time.
    pub waited: Duration,
    /// Since when a request has waited, while one does.
    pub waiting_since: Option<Instant>,
    /// The last clock value from `Msg::Tick`.
    pub now: Option<Instant>,
    pub width: u16,
    pub height: u16,
    /// Lines scrolled back from the bottom of the transcript.
    pub scroll: usize,
    /// Where the scrolled-up window was at the last settle, so rows added
    /// below or laid out again above do not move it.
    pub scroll_anchor: Option<ScrollAnchor>,
    /// Inputs the runtime queued behind the running turn.
    pub queued: Vec<String>,
    /// Ctrl+C was pressed once on an empty idle composer.
    pub quit_armed: bool,
    /// When it was, by the clock of the ticks (the first tick after, for a
    /// model that had seen none): a tick past `QUIT_ARMED_FOR` disarms it.
    pub quit_armed_at: Option<Instant>,
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
    pub slash: PopupState,
    /// The command files, offered as slash commands (`extensions::commands`).
    pub command_files: Vec<CommandFile>,
    /// The skills the model can load, for `/skills`.
    pub skills: Vec<Skill>,
    /// The open picker (`/mode`, `/model`, `/permissions`, `/resume`).
    pub picker: Option<Picker>,
    /// Tool cells show their whole output and sub-agent cells their
    /// transcripts (Ctrl+O); new cells follow.
    pub tools_expanded: bool,
    /// The session's todo list (TODO-7), shown in the sidebar.
    pub todos: Vec<TodoItem>,
    /// The user hid the sidebar (Ctrl+T).
    pub sidebar_hidden: bool,
    /// The todo list shows as an overlay (Ctrl+T where the sidebar cannot).
    pub todos_open: bool,
    /// Mode changes shown at once but not yet confirmed by the runtime's
    /// `SessionModeChanged`, oldest first.
    pub mode_pending: Vec<ExecutionState>,
    /// The model's context window in tokens; 0 when unknown.
    pub context_window: u64,
    /// Input tokens of the last request: how full the context is.
    pub context_tokens: u64,
    /// Of those, the tokens the provider's prompt cache served.
    pub context_cached: u64,
    /// The session's tokens and cost so far (`/cost`).
    pub usage: crate::model::Usage,
    /// The cells' rows at the transcript's width, kept by `update` (TUI-2).
    pub transcript_layout: TranscriptLayout,
    /// The message of the last turn, when it failed: Enter on an empty
    /// prompt sends it again.
    pub retry: Option<String>,
    /// Where `/export` without a file writes (`$ZCODE_HOME/exports`);
    /// `None`: the temporary directory's `zcode-exports`.
    pub exports_dir: Option<std::path::PathBuf>,
    /// The workspace's paths for `@file` completion, walked a bounded
    /// number at a time.
    pub files: FileIndex,
    /// The `@file` completion list (made again after every update).
    pub file_popup: FilePopupState,
}

impl Model {
    pub fn new(width: u16, height: u16) -> Self {
        Self {
            cells: Default::default(),
            composer: Composer::default(),
            history: Vec::new(),
            history_pos: None,
            approvals: VecDeque::new(),
            approval: None,
            state: ExecutionState::default(),
            session_id: String::new(),
            model_label: String::new(),
            workspace: String::new(),
            git_branch: None,
            busy: false,
            turn_started: None,
            waited: Duration::ZERO,
            waiting_since: None,
            now: None,
            width,
            height,
            scroll: 0,
            scroll_anchor: None,
            queued: Vec::new(),
            quit_armed: false,
            quit_armed_at: None,
            dirty: true,
            monochrome: false,
            spinner: 0,
            sandbox_missing: false,
            background: 0,
            slash: Default::default(),
            command_files: Vec::new(),
            skills: Vec::new(),
            picker: None,
            tools_expanded: false,
            todos: Vec::new(),
            sidebar_hidden: false,
            todos_open: false,
            mode_pending: Vec::new(),
            context_window: 0,
            context_tokens: 0,
            context_cached: 0,
            usage: Default::default(),
            transcript_layout: Default::default(),
            retry: None,
            exports_dir: None,
            files: FileIndex::default(),
            file_popup: FilePopupState::default(),
        }
    }

    /// The head request, if one waits.
    pub fn head(&self) -> Option<&PermissionRequest> {
        self.approvals.front()
    }

    /// The head request's panel, when it is the head's.
    pub fn panel(&self) -> Option<&ApprovalPanel> {
        let head = self.head()?;
        self.approval.as_ref().filter(|p| p.is_for(head))
    }

    /// [`Model::panel`], to change.
    pub fn panel_mut(&mut self) -> Option<&mut ApprovalPanel> {
        let head = self.approvals.front()?;
        self.approval.as_mut().filter(|p| p.is_for(head))
    }

    /// The model's time since the turn started, by the last tick: the
    /// waits for the user left out.
    pub fn elapsed(&self) -> Option<Duration> {
        let start = self.turn_started?;
        let now = self.now.unwrap_or(start);
        let waiting = self
            .waiting_since
            .map_or(Duration::ZERO, |since| now.saturating_duration_since(since));
        let total = now.saturating_duration_since(start);
        Some(total.saturating_sub(self.waited + waiting))
    }

    /// Whether a request (an approval, a question, a plan review) waits for
    /// the user.
    pub fn waiting_for_user(&self) -> bool {
        !self.approvals.is_empty()
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
