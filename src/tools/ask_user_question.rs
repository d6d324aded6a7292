//! ASK-1..4 AskUserQuestion: a short multiple-choice questionnaire for the
//! user.
//!
//! The model sends only the questions. `validate` (the model-facing check)
//! silently drops any `answers` or `annotations` the model wrote: answers
//! come from the user alone. The approval step (the question panel) then
//! puts the user's `answers` and optional `annotations` into the input
//! (see [`answered_input`]), and [`validate_answered`] checks that input
//! again before `run` turns it into the text the model reads.
//!
//! Answer representation: one string per question, keyed by the exact
//! question text. For a single-select question it is the chosen label or
//! the text the user typed for Other; for a multi-select question it is
//! the chosen labels (and/or the Other text) joined with `", "`
//! ([`join_labels`]). A skipped question is left out of `answers`; `{}`
//! means nothing was answered.
//!
//! Previews are meant for single-select questions (the description says
//! so), but a preview on a multi-select question is not rejected: the seed
//! product does not reject it either, and refusing would cost the model a
//! turn for something the panel can simply show.

mod answers;
mod preview;

pub use answers::{
    ALL_ANSWERED_PREFIX, Annotation, AnsweredQuestion, AnsweredQuestions, MISSING_ANSWERS,
    answered_input, join_labels, validate_answered,
};

use super::input::invalid;
use super::input::kind;
use super::{Tool, ToolContext, ToolOutput};
use crate::permission::capability::Capability;
use crate::permission::declaration::{AskReason, ToolDeclaration};
use crate::protocol::RequestKind;
use futures_util::future::BoxFuture;
use serde::Serialize;
use serde_json::{Map, Value, json};

pub const NAME: &str = "AskUserQuestion";
pub(crate) const MIN_QUESTIONS: usize = 1;
pub(crate) const MAX_QUESTIONS: usize = 4;
pub(crate) const MIN_OPTIONS: usize = 2;
pub(crate) const MAX_OPTIONS: usize = 4;
/// What the description asks of `header`; longer headers are accepted and
/// cut by the UI (ASK-2).
pub(crate) const HEADER_MAX_CHARS: usize = 12;
/// The label of the free-text choice the client adds to every question.
pub(crate) const OTHER_LABEL: &str = "Other";
/// Joins the labels of a multi-select answer.
pub(crate) const MULTI_SELECT_SEPARATOR: &str = ", ";

/// One choice of a question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QuestionOption {
    pub label: String,
    pub description: String,
    /// Markdown shown in a monospace box while the option is focused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
}

/// One question of the questionnaire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    pub question: String,
    /// A short chip label (at most 12 characters asked, not enforced).
    pub header: String,
    pub options: Vec<QuestionOption>,
    pub multi_select: bool,
}

/// The model's input: the questions only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AskUserQuestionInput {
    pub questions: Vec<Question>,
}

impl AskUserQuestionInput {
    /// Validates the questions (ASK-2). `answers` and `annotations` are
    /// ignored here: they are not the model's to write.
    pub fn parse(input: Value) -> Result<Self, String> {
        let mut map = root_object(input)?;
        map.remove("answers");
        map.remove("annotations");
        parse_questions(&map)
    }
}

#[derive(Debug, Default)]
pub struct AskUserQuestionTool;

/// What AskUserQuestion is to the permission engine, the approval and the TUI.
pub(crate) static DECLARATION: ToolDeclaration = ToolDeclaration::builtin(
    NAME,
    Capability {
        requires_user_interaction: true,
        ..Capability::read_only_low("ask_user_question")
    },
)
.with_wording("use a tool", AskReason::Always("asks you a question"))
.with_request_kind(RequestKind::Question);

impl Tool for AskUserQuestionTool {
    fn description(&self) -> &'static str {
        include_str!("../../assets/tools/AskUserQuestion.md")
    }

    fn compact_description(&self) -> std::borrow::Cow<'static, str> {
        include_str!("../../assets/tools/compact/AskUserQuestion.md").into()
    }

    fn input_schema(&self) -> Value {
        input_schema()
    }

    fn declaration(&self) -> &ToolDeclaration {
        &DECLARATION
    }

    fn validate(&self, input: Value) -> Result<Value, String> {
        let parsed = AskUserQuestionInput::parse(input)?;
        serde_json::to_value(&parsed).map_err(|e| invalid(NAME, e))
    }

    fn preview(&self, input: &Value, _ctx: &ToolContext) -> Option<String> {
        let parsed = AskUserQuestionInput::parse(input.clone()).ok()?;
        Some(summary(&parsed))
    }

    fn run<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            match validate_answered(input) {
                Ok(answered) => ToolOutput::ok(answered.result_text()),
                Err(e) => ToolOutput::error(e),
            }
        })
    }
}

/// The questions as plain text, for an approval view without a question
/// panel.
fn summary(input: &AskUserQuestionInput) -> String {
    let mut out = String::new();
    for (i, q) in input.questions.iter().enumerate() {
        let kind = if q.multi_select { " (choose any)" } else { "" };
        out.push_str(&format!("{}. [{}] {}{kind}\n", i + 1, q.header, q.question));
        for option in &q.options {
            out.push_str(&format!("   - {}: {}\n", option.label, option.description));
        }
    }
    out
}

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "minItems": MIN_QUESTIONS,
                "maxItems": MAX_QUESTIONS,
                "description": "The questions to ask the user (1 to 4), each with a unique text",
                "items": {
                    "type": "object",
                    "properties": {
                        "question": {
                            "type": "string",
                            "description": "The complete question, clear and specific, ending with a question mark"
                        },
                        "header": {
                            "type": "string",
                            "description": "A very short label shown as a chip next to the question, at most 12 characters (e.g. \"Auth method\", \"Library\")"
                        },
                        "options": {
                            "type": "array",
                            "minItems": MIN_OPTIONS,
                            "maxItems": MAX_OPTIONS,
                            "description": "2 to 4 distinct choices. Do not add an \"Other\" option: the user can always type their own answer",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "label": {
                                        "type": "string",
                                        "description": "The choice as the user sees it, 1 to 5 words. Put a recommended option first and end its label with \" (Recommended)\""
                                    },
                                    "description": {
                                        "type": "string",
                                        "description": "What choosing this option means, or its trade-off"
                                    },
                                    "preview": {
                                        "type": "string",
                                        "description": "Optional, for single-select questions: Markdown shown in a monospace box when the option is focused (code, an ASCII mock-up, a config example). HTML must be a fragment: no <html>, <body>, <!DOCTYPE>, <script> or <style>"
                                    }
                                },
                                "required": ["label", "description"],
                                "additionalProperties": false
                            }
                        },
                        "multiSelect": {
                            "type": "boolean",
                            "default": false,
                            "description": "true when the user may choose several options; false for one choice"
                        }
                    },
                    "required": ["question", "header", "options", "multiSelect"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["questions"],
        "additionalProperties": false
    })
}

// ---------------------------------------------------------------------------
// Parsing with precise, path-naming errors.

/// `Invalid input for AskUserQuestion: <path>: <message>`; the empty path
/// is the input itself.
fn at(path: &str, message: impl std::fmt::Display) -> String {
    if path.is_empty() {
        invalid(NAME, message)
    } else {
        invalid(NAME, format!("{path}: {message}"))
    }
}

fn root_object(input: Value) -> Result<Map<String, Value>, String> {
    match input {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        other => Err(invalid(
            NAME,
            format!("expected a JSON object, got {}", kind(&other)),
        )),
    }
}

fn parse_questions(map: &Map<String, Value>) -> Result<AskUserQuestionInput, String> {
    reject_unknown(map, "", &["questions", "answers", "annotations"])?;
    let items = match map.get("questions") {
        None | Some(Value::Null) => return Err(at("questions", "is required")),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(at(
                "questions",
                format!("must be an array, got {}", kind(other)),
            ));
        }
    };
    if !(MIN_QUESTIONS..=MAX_QUESTIONS).contains(&items.len()) {
        return Err(at(
            "questions",
            format!(
                "must have {MIN_QUESTIONS} to {MAX_QUESTIONS} questions, got {}",
                items.len()
            ),
        ));
    }
    let mut questions: Vec<Question> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("questions[{i}]");
        let question = parse_question(&path, item)?;
        if let Some(j) = questions
            .iter()
            .position(|q| same_text(&q.question, &question.question))
        {
            return Err(at(
                &format!("{path}.question"),
                format!("must be unique; questions[{j}] asks the same question"),
            ));
        }
        questions.push(question);
    }
    Ok(AskUserQuestionInput { questions })
}

fn parse_question(path: &str, item: &Value) -> Result<Question, String> {
    let map = object_at(path, item)?;
    reject_unknown(map, path, &["question", "header", "options", "multiSelect"])?;
    let question = string_at(map, path, "question")?;
    let header = string_at(map, path, "header")?;
    let options_path = format!("{path}.options");
    let items = match map.get("options") {
        None | Some(Value::Null) => return Err(at(&options_path, "is required")),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(at(
                &options_path,
                format!("must be an array, got {}", kind(other)),
            ));
        }
    };
    if !(MIN_OPTIONS..=MAX_OPTIONS).contains(&items.len()) {
        return Err(at(
            &options_path,
            format!(
                "must have {MIN_OPTIONS} to {MAX_OPTIONS} options, got {}",
                items.len()
            ),
        ));
    }
    let mut options: Vec<QuestionOption> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let option_path = format!("{options_path}[{i}]");
        let option = parse_option(&option_path, item)?;
        if let Some(j) = options
            .iter()
            .position(|o| same_text(&o.label, &option.label))
        {
            return Err(at(
                &format!("{option_path}.label"),
                format!("must be unique; options[{j}] has the same label"),
            ));
        }
        options.push(option);
    }
    let multi_select = match map.get("multiSelect") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) if s.trim() == "true" => true,
        Some(Value::String(s)) if s.trim() == "false" => false,
        Some(_) => {
            return Err(at(&format!("{path}.multiSelect"), "must be true or false"));
        }
    };
    Ok(Question {
        question,
        header,
        options,
        multi_select,
    })
}

fn parse_option(path: &str, item: &Value) -> Result<QuestionOption, String> {
    let map = object_at(path, item)?;
    reject_unknown(map, path, &["label", "description", "preview"])?;
    let label = string_at(map, path, "label")?;
    if same_text(&label, OTHER_LABEL) {
        return Err(at(
            &format!("{path}.label"),
            "must not be \"Other\"; the user always gets an Other choice to type their own answer",
        ));
    }
    let description = string_at(map, path, "description")?;
    let preview = match map.get("preview") {
        None | Some(Value::Null) => None,
        Some(_) => {
            let preview = string_at(map, path, "preview")?;
            if let Some(tag) = preview::forbidden_tag(&preview) {
                return Err(at(
                    &format!("{path}.preview"),
                    format!(
                        "HTML in a preview must be a fragment, found {tag}; leave out <html>, <body>, <!DOCTYPE>, <script> and <style>"
                    ),
                ));
            }
            Some(preview)
        }
    };
    Ok(QuestionOption {
        label,
        description,
        preview,
    })
}

fn object_at<'a>(path: &str, value: &'a Value) -> Result<&'a Map<String, Value>, String> {
    match value {
        Value::Object(map) => Ok(map),
        other => Err(at(path, format!("must be an object, got {}", kind(other)))),
    }
}

/// A required, non-blank string field, kept verbatim.
fn string_at(map: &Map<String, Value>, path: &str, key: &str) -> Result<String, String> {
    let field = format!("{path}.{key}");
    match map.get(key) {
        None | Some(Value::Null) => Err(at(&field, "is required")),
        Some(Value::String(s)) if s.trim().is_empty() => Err(at(&field, "must not be empty")),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(at(&field, format!("must be a string, got {}", kind(other)))),
    }
}

fn reject_unknown(map: &Map<String, Value>, path: &str, allowed: &[&str]) -> Result<(), String> {
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(key) => Err(at(
            path,
            format!("unknown field \"{key}\" (allowed: {})", allowed.join(", ")),
        )),
    }
}

/// Question texts and labels are compared trimmed and case-insensitively.
fn same_text(a: &str, b: &str) -> bool {
    a.trim().to_lowercase() == b.trim().to_lowercase()
}
