//! The approval panel's state (APPR-6, APPR-7, PLAN-10, ASK-6): the options
//! a request offers, and everything the user does on the panel of the head
//! request, in one value. The panel belongs to one request: when the head
//! changes (answered here, or resolved elsewhere, by a hook) it is built
//! afresh, so no selection, scroll or feedback carries over.

use crate::protocol::{AlwaysOption, PermissionRequest, RequestKind};
use crate::tools::ask_user_question::AskUserQuestionInput;
use crate::tui::widgets::question_panel::QuestionPanel;
use ratatui::text::Line;

/// One choice of the approval panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalOption {
    AllowOnce,
    AlwaysProject,
    AlwaysSession,
    FullAccess,
    /// Write/Edit: allow the call and switch the session to edit mode.
    AllowEdits,
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
            (ApprovalOption::AllowEdits, _) => "Allow edits for the rest of this session",
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
            if request.edit_mode_available {
                options.push(ApprovalOption::AllowEdits);
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

/// Rows of the head request's body at one width, kept by `update` so a
/// long plan (its Markdown, PLAN-10) or a long command (highlighted) is not
/// rendered again for every frame, key and scroll step.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyRows {
    pub request_id: String,
    /// The panel's inner width.
    pub width: u16,
    pub monochrome: bool,
    pub lines: Vec<Line<'static>>,
}

/// The panel of the head request.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalPanel {
    /// The request this panel belongs to.
    pub request_id: String,
    /// The highlighted option.
    pub selected: usize,
    /// How far the body (a long command, diff or plan) is scrolled, in
    /// rows from its top; read only once `scrolled`.
    pub scroll: usize,
    /// The user has scrolled the body. Until then it opens where the
    /// layout puts it: a diff at its first change.
    pub scrolled: bool,
    /// The body full screen (Ctrl+O), scrolled this far. The options wait
    /// under it: nothing there answers the request.
    pub full_screen: Option<usize>,
    /// The feedback being typed, when its field is open.
    pub feedback: Option<String>,
    /// The ASK-6 panel, when the request is a question whose input reads;
    /// otherwise the plain panel lets the user reject it.
    pub question: Option<QuestionPanel>,
    /// The plan, rendered (see `BodyRows`).
    pub plan_rows: Option<BodyRows>,
    /// The command, highlighted and broken to rows (see `BodyRows`).
    pub command_rows: Option<BodyRows>,
}

impl ApprovalPanel {
    /// A fresh panel for `request`.
    pub fn new(request: &PermissionRequest) -> Self {
        let question = (request.kind == RequestKind::Question)
            .then(|| AskUserQuestionInput::parse(request.input.clone()).ok())
            .flatten()
            .map(|input| QuestionPanel::new(input.questions));
        Self {
            request_id: request.request_id.clone(),
            selected: 0,
            scroll: 0,
            scrolled: false,
            full_screen: None,
            feedback: None,
            question,
            plan_rows: None,
            command_rows: None,
        }
    }

    pub fn is_for(&self, request: &PermissionRequest) -> bool {
        self.request_id == request.request_id
    }
}
