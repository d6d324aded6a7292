//! Questions (ASK-3, ASK-4), the plan review (PLAN-7..9) and deny feedback
//! (APPR-7) as ACP form elicitations: the request zcode sends and how the
//! client's response becomes the [`PermissionReply`] the runtime expects.
//!
//! Pure functions; the connection sends the requests and waits for the
//! responses. Nothing a client answers can make these panic:
//!
//! - a value of the wrong type is ignored (that question counts as skipped
//!   unless its Other text answers it), and so are keys zcode did not ask;
//! - a label that was not offered is taken as the user's own text, as if
//!   typed into Other: it came from the user's client as their answer, a
//!   client that shows a select as a plain text box sends exactly that, and
//!   ASK-3 accepts any non-blank text as an answer, so nothing is lost and
//!   nothing is invented. Where the Other field also holds text, the Other
//!   text wins for a single choice (as in the TUI) and the unknown label is
//!   dropped. A choice of "Other" itself is no answer: its text comes in
//!   the Other field;
//! - text longer than [`MAX_TEXT_CHARS`] is cut there (the schema tells the
//!   client the limit; one that ignores it still cannot flood the model).

use std::collections::BTreeMap;

use agent_client_protocol::v1::schema::{
    ClientCapabilities, CreateElicitationRequest, CreateElicitationResponse, ElicitationAction,
    ElicitationContentValue, ElicitationFormMode, ElicitationSchema, ElicitationSessionScope,
    EnumOption, MultiSelectPropertySchema, StringPropertySchema, ToolCallId,
};
use serde_json::{Map, Value};

use crate::protocol::PermissionReply;
use crate::tools::ask_user_question::{AskUserQuestionInput, OTHER_LABEL, Question, join_labels};

/// Longest text taken from a free-text field, in characters.
pub const MAX_TEXT_CHARS: usize = 4000;
/// The plan review's choice field and its values.
pub const PLAN_DECISION: &str = "decision";
pub const PLAN_APPROVE: &str = "approve";
pub const PLAN_REVISE: &str = "revise";
/// The plan review's free-text field.
pub const PLAN_FEEDBACK: &str = "feedback";
/// What the plan review's message starts with; the plan follows.
pub const PLAN_REVIEW_MESSAGE: &str = "Review this implementation plan.";
/// The deny feedback form's one field.
pub const DENY_INSTEAD: &str = "instead";
/// The deny feedback form's question (APPR-7).
pub const DENY_QUESTION: &str = "What should it do instead?";
/// The title of every question's free-text field.
pub const OTHER_ANSWER_TITLE: &str = "Other answer";

/// Whether the client can show form elicitations; without it zcode does
/// not offer AskUserQuestion, asks for the plan review as a permission
/// request, and sends no deny feedback form.
pub fn client_supports_forms(caps: &ClientCapabilities) -> bool {
    caps.elicitation
        .as_ref()
        .is_some_and(|elicitation| elicitation.supports_form())
}

/// The property of question `index` (0-based): `q1`, `q2`, …
pub fn question_key(index: usize) -> String {
    format!("q{}", index + 1)
}

/// The free-text property of question `index` (0-based): `q1_other`, …
pub fn other_key(index: usize) -> String {
    format!("q{}_other", index + 1)
}

/// AskUserQuestion as one form: per question a choice field (single or
/// multiple) and an Other text, none required so any question can be
/// skipped. `Err` is the tool's own validation message for an input that
/// is not a valid questionnaire.
pub fn question_request(
    session_id: &str,
    call_id: &str,
    input: &Value,
) -> Result<CreateElicitationRequest, String> {
    let parsed = AskUserQuestionInput::parse(input.clone())?;
    let mut schema = ElicitationSchema::new();
    for (i, q) in parsed.questions.iter().enumerate() {
        let options: Vec<EnumOption> = q
            .options
            .iter()
            .map(|o| EnumOption::new(&o.label, &o.label).description(o.description.clone()))
            .collect();
        let other_description = if q.multi_select {
            "Your own answer, added to the choices above"
        } else {
            "Your own answer, instead of a choice above"
        };
        schema = if q.multi_select {
            schema.property(
                question_key(i),
                MultiSelectPropertySchema::titled(options)
                    .title(q.header.clone())
                    .description(q.question.clone()),
                false,
            )
        } else {
            schema.property(
                question_key(i),
                StringPropertySchema::new()
                    .title(q.header.clone())
                    .description(q.question.clone())
                    .one_of(options),
                false,
            )
        };
        schema = schema.property(
            other_key(i),
            free_text(OTHER_ANSWER_TITLE, other_description),
            false,
        );
    }
    let message = match parsed.questions.as_slice() {
        [only] => only.question.clone(),
        all => format!(
            "{} questions; answer what you can, a question left empty is skipped.",
            all.len()
        ),
    };
    Ok(form(session_id, call_id, schema, message))
}

/// The client's answer to [`question_request`] as the reply the runtime
/// expects (ASK-3): accepted → the answers keyed by question text (`{}`
/// when nothing was filled in: none answered, ASK-4); declined, cancelled
/// or anything else → the questionnaire is rejected, like Esc in the TUI.
pub fn question_reply(input: &Value, response: &CreateElicitationResponse) -> PermissionReply {
    let Some(content) = accepted(response) else {
        return deny();
    };
    let Ok(parsed) = AskUserQuestionInput::parse(input.clone()) else {
        // The request was built from this input; an input that no longer
        // parses cannot be answered.
        return deny();
    };
    let mut answers = Map::new();
    for (i, q) in parsed.questions.iter().enumerate() {
        let other = content.get(&other_key(i)).and_then(text_value);
        let choice = content.get(&question_key(i));
        if let Some(answer) = answer_of(q, choice, other) {
            answers.insert(q.question.clone(), Value::String(answer));
        }
    }
    PermissionReply::Answers {
        answers,
        annotations: None,
    }
}

/// One question's answer from its choice field and Other text; `None`:
/// skipped.
fn answer_of(
    q: &Question,
    choice: Option<&ElicitationContentValue>,
    other: Option<String>,
) -> Option<String> {
    let answer = if q.multi_select {
        let picked: Vec<&str> = match choice {
            Some(ElicitationContentValue::StringArray(items)) => {
                items.iter().map(String::as_str).collect()
            }
            _ => Vec::new(),
        };
        // Offered labels in the order offered (as the TUI lists them),
        // then the user's own texts in the order sent.
        let mut labels: Vec<String> = q
            .options
            .iter()
            .filter(|o| picked.iter().any(|p| same_text(p, &o.label)))
            .map(|o| o.label.clone())
            .collect();
        let mut own_chars = 0;
        for text in picked.iter().map(|p| p.trim()) {
            if text.is_empty()
                || same_text(text, OTHER_LABEL)
                || q.options.iter().any(|o| same_text(text, &o.label))
                || labels.iter().any(|l| l == text)
            {
                continue;
            }
            // Enough own text to fill the limit ends the list: a client
            // sending thousands of items costs nothing more.
            own_chars += text.chars().count();
            labels.push(text.to_string());
            if own_chars > MAX_TEXT_CHARS {
                break;
            }
        }
        labels.extend(other);
        join_labels(labels)
    } else {
        let chosen = match choice {
            Some(ElicitationContentValue::String(s)) => {
                let s = s.trim();
                q.options
                    .iter()
                    .find(|o| same_text(s, &o.label))
                    .map(|o| o.label.clone())
                    .or_else(|| own_text(s))
            }
            _ => None,
        };
        // Other wins over a choice, as in the TUI.
        other.or(chosen).unwrap_or_default()
    };
    let answer = cut(answer.trim());
    (!answer.is_empty()).then_some(answer)
}

/// A choice that was not offered, kept as the user's own text; blank or
/// "Other" itself (a client's own Other choice, whose text comes in the
/// Other field) is no answer.
fn own_text(choice: &str) -> Option<String> {
    (!choice.is_empty() && !same_text(choice, OTHER_LABEL)).then(|| choice.to_string())
}

/// ExitPlanMode's review (PLAN-7..9) as a form: the plan in the message, a
/// choice between Approve and Request changes, and what should change.
pub fn plan_review_request(
    session_id: &str,
    call_id: &str,
    plan: &str,
) -> CreateElicitationRequest {
    let decision = StringPropertySchema::new().title("Decision").one_of(vec![
        EnumOption::new(PLAN_APPROVE, "Approve"),
        EnumOption::new(PLAN_REVISE, "Request changes"),
    ]);
    let schema = ElicitationSchema::new()
        .property(PLAN_DECISION, decision, false)
        .property(
            PLAN_FEEDBACK,
            free_text(
                "What should change?",
                "Leave empty to approve or to reject the plan",
            ),
            false,
        );
    let message = format!("{PLAN_REVIEW_MESSAGE}\n\n{plan}");
    form(session_id, call_id, schema, message)
}

/// The client's answer to [`plan_review_request`]: Approve → approve
/// (PLAN-7, any feedback beside it is not sent); otherwise non-empty
/// feedback → feedback (PLAN-8); anything else, a decline or a cancel →
/// deny (PLAN-9).
pub fn plan_review_reply(response: &CreateElicitationResponse) -> PermissionReply {
    let Some(content) = accepted(response) else {
        return deny();
    };
    let approved = matches!(
        content.get(PLAN_DECISION),
        Some(ElicitationContentValue::String(s)) if s.trim() == PLAN_APPROVE
    );
    if approved {
        return PermissionReply::AllowOnce;
    }
    match content.get(PLAN_FEEDBACK).and_then(text_value) {
        Some(feedback) => PermissionReply::PlanFeedback { feedback },
        None => deny(),
    }
}

/// After the user denied `tool` (not after a cancel): the optional "What
/// should it do instead?" form (APPR-7), since ACP's permission request has
/// no field for it.
pub fn deny_feedback_request(
    session_id: &str,
    call_id: &str,
    tool: &str,
) -> CreateElicitationRequest {
    let schema = ElicitationSchema::new().property(
        DENY_INSTEAD,
        free_text(
            DENY_QUESTION,
            "Optional: what the model should do instead; leave empty to just deny",
        ),
        false,
    );
    let message = format!("{} was denied. {DENY_QUESTION}", cut(tool));
    form(session_id, call_id, schema, message)
}

/// The feedback from [`deny_feedback_request`]'s answer: accepted,
/// non-blank text; `None` for anything else (the deny stands without it).
pub fn deny_feedback_text(response: &CreateElicitationResponse) -> Option<String> {
    accepted(response)?.get(DENY_INSTEAD).and_then(text_value)
}

// ---------------------------------------------------------------------------

fn form(
    session_id: &str,
    call_id: &str,
    schema: ElicitationSchema,
    message: String,
) -> CreateElicitationRequest {
    let scope =
        ElicitationSessionScope::new(session_id.to_string()).tool_call_id(ToolCallId::new(call_id));
    CreateElicitationRequest::new(ElicitationFormMode::new(scope, schema), message)
}

fn free_text(title: &str, description: &str) -> StringPropertySchema {
    let max = u32::try_from(MAX_TEXT_CHARS).unwrap_or(u32::MAX);
    StringPropertySchema::new()
        .title(title.to_string())
        .description(description.to_string())
        .max_length(max)
}

/// The content of an accepted response (empty when the client sent none);
/// `None` for a decline, a cancel or an action zcode does not know.
fn accepted(
    response: &CreateElicitationResponse,
) -> Option<BTreeMap<String, ElicitationContentValue>> {
    match &response.action {
        ElicitationAction::Accept(accept) => Some(accept.content.clone().unwrap_or_default()),
        _ => None,
    }
}

/// A text field's value: trimmed, cut to the limit, `None` when blank or
/// not a string.
fn text_value(value: &ElicitationContentValue) -> Option<String> {
    match value {
        ElicitationContentValue::String(s) => {
            let text = cut(s.trim());
            (!text.is_empty()).then_some(text)
        }
        _ => None,
    }
}

/// At most [`MAX_TEXT_CHARS`] characters, ending on a character boundary.
fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        Some((end, _)) => text[..end].trim_end().to_string(),
        None => text.to_string(),
    }
}

/// Labels are matched trimmed and case-insensitively, as the tool checks
/// them for uniqueness.
fn same_text(a: &str, b: &str) -> bool {
    a.trim().to_lowercase() == b.trim().to_lowercase()
}

fn deny() -> PermissionReply {
    PermissionReply::Deny { feedback: None }
}

#[cfg(test)]
#[path = "elicitation_tests.rs"]
mod tests;
