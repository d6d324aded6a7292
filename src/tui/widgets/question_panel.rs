//! The ASK-6 question panel as a pure state machine: keys in, an outcome
//! out. Drawing lives in `question_panel_view`.
//!
//! Keys: ↑/↓ or `j`/`k` move; `1`–`9` choose directly (in a multi-select
//! question they toggle); space toggles in a multi-select question; `o`
//! (or Enter on the Other row) types an Other answer in an inline field
//! (Enter confirms, Esc leaves the field); `s` skips the question and
//! moves to the next one (on the last question it stays, and Enter then
//! goes on without answering; moving or choosing undoes the skip); Enter
//! answers and moves to the next question, after the last one to the
//! confirmation page, where Enter submits (a single question is submitted
//! by its answer, without that page); ←/→ or Tab/Shift+Tab switch
//! question (the confirmation page is the last stop); Esc rejects the
//! whole questionnaire.
//!
//! Answers: single-select = the chosen label or the Other text;
//! multi-select = the checked labels in option order, then the Other text,
//! joined with ", ". A multi-select question answered with Enter while
//! nothing is checked takes the highlighted option. Skipped questions are
//! left out of the answers map.

use crate::protocol::PermissionReply;
use crate::tools::ask_user_question::{Question, join_labels};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use serde_json::{Map, Value};

/// What the panel asks its host to do.
#[derive(Debug, Clone, PartialEq)]
pub enum PanelOutcome {
    /// Always `PermissionReply::Answers`.
    Submit(PermissionReply),
    /// The user rejected the questionnaire.
    Reject,
}

impl PanelOutcome {
    /// The reply for the runtime: a rejection is a plain `Deny`.
    pub fn into_reply(self) -> PermissionReply {
        match self {
            PanelOutcome::Submit(reply) => reply,
            PanelOutcome::Reject => PermissionReply::Deny { feedback: None },
        }
    }
}

/// Where a question stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerState {
    /// Not answered yet (counts as skipped on submit).
    Open,
    Skipped,
    Answered(String),
}

/// The user's work on one question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionState {
    /// The highlighted row: an option index, or `options.len()` for Other.
    pub cursor: usize,
    /// Checked options (multi-select).
    pub checked: Vec<bool>,
    /// The confirmed Other text, if any.
    pub other: Option<String>,
    pub answer: AnswerState,
}

/// Which page is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    Question(usize),
    Confirm,
}

/// The panel's whole state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionPanel {
    questions: Vec<Question>,
    states: Vec<QuestionState>,
    page: Page,
    /// The Other field being typed into, if any.
    editing: Option<String>,
}

impl QuestionPanel {
    pub fn new(questions: Vec<Question>) -> Self {
        let states = questions
            .iter()
            .map(|q| QuestionState {
                cursor: 0,
                checked: vec![false; q.options.len()],
                other: None,
                answer: AnswerState::Open,
            })
            .collect();
        let page = if questions.is_empty() {
            Page::Confirm
        } else {
            Page::Question(0)
        };
        Self {
            questions,
            states,
            page,
            editing: None,
        }
    }

    pub fn questions(&self) -> &[Question] {
        &self.questions
    }

    pub fn states(&self) -> &[QuestionState] {
        &self.states
    }

    pub fn page(&self) -> Page {
        self.page
    }

    /// The Other text being typed, if the field is open.
    pub fn editing(&self) -> Option<&str> {
        self.editing.as_deref()
    }

    /// Text pasted while the Other field is open goes into it (newlines
    /// become spaces); otherwise it is ignored.
    pub fn handle_paste(&mut self, text: &str) {
        if let Some(field) = &mut self.editing {
            field.extend(text.chars().map(|c| if c.is_control() { ' ' } else { c }));
        }
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> Option<PanelOutcome> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        if key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            return None;
        }
        if self.editing.is_some() {
            self.edit_key(key);
            return self.submit_if_single();
        }
        match key.code {
            KeyCode::Esc => return Some(PanelOutcome::Reject),
            KeyCode::Tab | KeyCode::Right => self.switch(true),
            KeyCode::BackTab | KeyCode::Left => self.switch(false),
            _ => {}
        }
        match self.page {
            Page::Confirm => {
                if key.code == KeyCode::Enter {
                    return Some(PanelOutcome::Submit(self.reply()));
                }
            }
            Page::Question(i) => {
                self.question_key(i, key.code);
                return self.submit_if_single();
            }
        }
        None
    }

    /// One question: its answer (or skipping it) submits, with no review
    /// page to confirm on.
    fn submit_if_single(&self) -> Option<PanelOutcome> {
        (self.questions.len() == 1 && self.page == Page::Confirm)
            .then(|| PanelOutcome::Submit(self.reply()))
    }

    /// The reply the panel would submit now.
    pub fn reply(&self) -> PermissionReply {
        let mut answers = Map::new();
        for (q, s) in self.questions.iter().zip(&self.states) {
            if let AnswerState::Answered(a) = &s.answer {
                answers.insert(q.question.clone(), Value::String(a.clone()));
            }
        }
        PermissionReply::Answers {
            answers,
            annotations: None,
        }
    }

    fn edit_key(&mut self, key: KeyEvent) {
        let Page::Question(i) = self.page else {
            self.editing = None;
            return;
        };
        let Some(field) = &mut self.editing else {
            return;
        };
        match key.code {
            KeyCode::Esc => self.editing = None,
            KeyCode::Backspace => {
                field.pop();
            }
            KeyCode::Char(c) => field.push(c),
            KeyCode::Enter => {
                let text = field.trim().to_string();
                self.editing = None;
                let multi = self.questions.get(i).is_some_and(|q| q.multi_select);
                let Some(state) = self.states.get_mut(i) else {
                    return;
                };
                state.other = (!text.is_empty()).then_some(text.clone());
                if multi {
                    self.refresh_multi(i);
                    return;
                }
                if text.is_empty() {
                    return;
                }
                state.answer = AnswerState::Answered(text);
                self.advance(i);
            }
            _ => {}
        }
    }

    fn question_key(&mut self, i: usize, code: KeyCode) {
        let (Some(q), Some(state)) = (self.questions.get(i), self.states.get_mut(i)) else {
            return;
        };
        let rows = q.options.len() + 1;
        let choosing = matches!(
            code,
            KeyCode::Up | KeyCode::Down | KeyCode::Char('j' | 'k' | ' ' | 'o' | '1'..='9')
        );
        if choosing && state.answer == AnswerState::Skipped {
            state.answer = AnswerState::Open;
        }
        match code {
            KeyCode::Up | KeyCode::Char('k') => state.cursor = state.cursor.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => state.cursor = (state.cursor + 1).min(rows - 1),
            KeyCode::Char(' ') if q.multi_select => {
                if state.cursor < q.options.len() {
                    toggle(&mut state.checked, state.cursor);
                    self.refresh_multi(i);
                } else {
                    self.open_other(i);
                }
            }
            KeyCode::Char(c @ '1'..='9') => {
                let n = c as usize - '1' as usize;
                if n >= rows {
                    return;
                }
                state.cursor = n;
                if n == q.options.len() {
                    self.open_other(i);
                } else if q.multi_select {
                    toggle(&mut state.checked, n);
                    self.refresh_multi(i);
                } else {
                    self.answer(i);
                }
            }
            KeyCode::Char('o') => {
                state.cursor = q.options.len();
                self.open_other(i);
            }
            KeyCode::Char('s') => {
                state.answer = AnswerState::Skipped;
                if i + 1 < self.questions.len() {
                    self.advance(i);
                }
            }
            KeyCode::Enter => {
                if state.answer == AnswerState::Skipped {
                    self.advance(i);
                } else if state.cursor == q.options.len() && !q.multi_select {
                    self.open_other(i);
                } else {
                    self.answer(i);
                }
            }
            _ => {}
        }
    }

    /// Records the answer of question `i` from its state and moves on.
    fn answer(&mut self, i: usize) {
        let (Some(q), Some(state)) = (self.questions.get(i), self.states.get_mut(i)) else {
            return;
        };
        let answer = if q.multi_select {
            let labels = multi_labels(q, state);
            if labels.is_empty() {
                match q.options.get(state.cursor) {
                    Some(option) => {
                        if let Some(c) = state.checked.get_mut(state.cursor) {
                            *c = true;
                        }
                        option.label.clone()
                    }
                    None => {
                        self.open_other(i);
                        return;
                    }
                }
            } else {
                join_labels(labels)
            }
        } else {
            match q.options.get(state.cursor) {
                Some(option) => {
                    state.other = None;
                    option.label.clone()
                }
                None => return,
            }
        };
        state.answer = AnswerState::Answered(answer);
        self.advance(i);
    }

    /// Keeps an answered multi-select question's answer in step with its
    /// checkboxes when the user comes back and changes them.
    fn refresh_multi(&mut self, i: usize) {
        let (Some(q), Some(state)) = (self.questions.get(i), self.states.get_mut(i)) else {
            return;
        };
        if !matches!(state.answer, AnswerState::Answered(_)) {
            return;
        }
        let labels = multi_labels(q, state);
        state.answer = if labels.is_empty() {
            AnswerState::Open
        } else {
            AnswerState::Answered(join_labels(labels))
        };
    }

    fn open_other(&mut self, i: usize) {
        let previous = self.states.get(i).and_then(|s| s.other.clone());
        self.editing = Some(previous.unwrap_or_default());
    }

    fn advance(&mut self, i: usize) {
        self.page = if i + 1 < self.questions.len() {
            Page::Question(i + 1)
        } else {
            Page::Confirm
        };
    }

    /// Tab/→ (`forward`) and Shift+Tab/← move between the questions and the
    /// confirmation page, which comes last; they stop at either end.
    fn switch(&mut self, forward: bool) {
        let n = self.questions.len();
        self.page = match (self.page, forward) {
            (Page::Question(i), true) if i + 1 < n => Page::Question(i + 1),
            (Page::Question(_), true) => Page::Confirm,
            (Page::Question(i), false) => Page::Question(i.saturating_sub(1)),
            (Page::Confirm, false) if n > 0 => Page::Question(n - 1),
            (Page::Confirm, _) => Page::Confirm,
        };
    }
}

/// The checked labels in option order, then the Other text.
fn multi_labels<'a>(q: &'a Question, state: &'a QuestionState) -> Vec<&'a str> {
    let mut labels: Vec<&str> = q
        .options
        .iter()
        .zip(&state.checked)
        .filter(|(_, c)| **c)
        .map(|(o, _)| o.label.as_str())
        .collect();
    if let Some(other) = &state.other {
        labels.push(other);
    }
    labels
}

fn toggle(checked: &mut [bool], i: usize) {
    if let Some(c) = checked.get_mut(i) {
        *c = !*c;
    }
}
