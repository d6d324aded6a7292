//! ASK-3, ASK-4: the user's answers, checked again, and the text the model
//! reads.

use super::{
    MULTI_SELECT_SEPARATOR, Question, at, kind, object_at, parse_questions, reject_unknown,
    root_object,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// ASK-3: the error when `run` gets an input the user has not answered.
pub const MISSING_ANSWERS: &str = "AskUserQuestion requires user answers before execution";
/// ASK-4: how the result starts when every question was answered.
pub const ALL_ANSWERED_PREFIX: &str = "User has answered your questions: ";

/// What the user added to one question besides the answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Annotation {
    /// The preview of the option the user chose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// A note the user typed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

impl Annotation {
    fn is_empty(&self) -> bool {
        self.preview.is_none() && self.notes.is_none()
    }
}

/// One question with what the user did with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnsweredQuestion {
    pub question: Question,
    /// `None`: skipped.
    pub answer: Option<String>,
    pub annotation: Annotation,
}

/// The questionnaire after the user has seen it (ASK-3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnsweredQuestions {
    pub questions: Vec<AnsweredQuestion>,
}

impl AnsweredQuestions {
    pub fn answered_count(&self) -> usize {
        self.questions.iter().filter(|q| q.answer.is_some()).count()
    }

    /// ASK-4: the text the model reads.
    pub(crate) fn result_text(&self) -> String {
        let answered: Vec<&AnsweredQuestion> = self
            .questions
            .iter()
            .filter(|q| q.answer.is_some())
            .collect();
        let skipped: Vec<&AnsweredQuestion> = self
            .questions
            .iter()
            .filter(|q| q.answer.is_none())
            .collect();
        let pairs = answered
            .iter()
            .map(|q| {
                format!(
                    "\"{}\"=\"{}\"",
                    q.question.question,
                    q.answer.as_deref().unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        let mut text = if skipped.is_empty() {
            format!(
                "{ALL_ANSWERED_PREFIX}{pairs}. You can now continue with the user's answers in mind."
            )
        } else if answered.is_empty() {
            "The user did not answer any of your questions: they skipped them or closed the \
             questionnaire without answering. Do not treat this as a refusal, and do not invent \
             the user's preferences. Continue with your own judgement: choose sensible defaults \
             from the request and the code, and say which choices you made so the user can \
             correct them."
                .to_string()
        } else {
            let skipped_list = skipped
                .iter()
                .map(|q| format!("\"{}\"", q.question.question))
                .collect::<Vec<_>>()
                .join(", ");
            let n = skipped.len();
            format!(
                "User has answered some of your questions: {pairs}. The user skipped {n} question{}: {skipped_list}. For the skipped question{}, use your own judgement: choose sensible defaults from the request and the code, and say which choices you made.",
                plural(n),
                plural(n),
            )
        };
        for q in &self.questions {
            let quoted = &q.question.question;
            if let Some(preview) = &q.annotation.preview {
                text.push_str(&format!(
                    "\n\nFor \"{quoted}\" the user selected this preview:\n{preview}"
                ));
            }
            if let Some(notes) = &q.annotation.notes {
                text.push_str(&format!("\n\nUser notes on \"{quoted}\": {notes}"));
            }
        }
        text
    }
}

/// ASK-3: validates an input the approval step has answered. `answers` is
/// required (`{}` is valid: nothing answered); each answer is a non-blank
/// string for a question that was asked. `annotations` is optional, keyed
/// the same way; blank notes or previews are dropped.
pub fn validate_answered(input: Value) -> Result<AnsweredQuestions, String> {
    let map = root_object(input)?;
    let parsed = parse_questions(&map)?;
    let answers = match map.get("answers") {
        None | Some(Value::Null) => return Err(MISSING_ANSWERS.to_string()),
        Some(Value::Object(answers)) => answers,
        Some(other) => {
            return Err(at(
                "answers",
                format!(
                    "must be an object keyed by question text, got {}",
                    kind(other)
                ),
            ));
        }
    };
    let mut result: Vec<AnsweredQuestion> = parsed
        .questions
        .into_iter()
        .map(|question| AnsweredQuestion {
            question,
            answer: None,
            annotation: Annotation::default(),
        })
        .collect();
    for (key, value) in answers {
        let path = format!("answers[\"{key}\"]");
        let index = question_index(&result, key).ok_or_else(|| {
            at(
                "answers",
                format!("\"{key}\" is not one of the questions asked"),
            )
        })?;
        let Value::String(answer) = value else {
            return Err(at(&path, format!("must be a string, got {}", kind(value))));
        };
        if answer.trim().is_empty() {
            return Err(at(
                &path,
                "must not be blank; leave the question out of answers to skip it",
            ));
        }
        result[index].answer = Some(answer.trim().to_string());
    }
    match map.get("annotations") {
        None | Some(Value::Null) => {}
        Some(Value::Object(annotations)) => {
            for (key, value) in annotations {
                let path = format!("annotations[\"{key}\"]");
                let index = question_index(&result, key).ok_or_else(|| {
                    at(
                        "annotations",
                        format!("\"{key}\" is not one of the questions asked"),
                    )
                })?;
                result[index].annotation = parse_annotation(&path, value)?;
            }
        }
        Some(other) => {
            return Err(at(
                "annotations",
                format!(
                    "must be an object keyed by question text, got {}",
                    kind(other)
                ),
            ));
        }
    }
    Ok(AnsweredQuestions { questions: result })
}

/// The input the approval step hands back: the model's questions plus the
/// user's answers (question text → answer) and annotations.
pub fn answered_input(
    questions_input: &Value,
    answers: &[(String, String)],
    annotations: &[(String, Annotation)],
) -> Value {
    let mut map = match questions_input {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    let answers: Map<String, Value> = answers
        .iter()
        .map(|(q, a)| (q.clone(), Value::String(a.clone())))
        .collect();
    map.insert("answers".into(), Value::Object(answers));
    let annotations: Map<String, Value> = annotations
        .iter()
        .filter(|(_, a)| !a.is_empty())
        .map(|(q, a)| (q.clone(), json!(a)))
        .collect();
    if annotations.is_empty() {
        map.remove("annotations");
    } else {
        map.insert("annotations".into(), Value::Object(annotations));
    }
    Value::Object(map)
}

/// A multi-select answer: the chosen labels (and any Other text) joined
/// with `", "`.
pub fn join_labels<I, S>(labels: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    labels
        .into_iter()
        .map(|l| l.as_ref().trim().to_string())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(MULTI_SELECT_SEPARATOR)
}

fn parse_annotation(path: &str, value: &Value) -> Result<Annotation, String> {
    let map = object_at(path, value)?;
    reject_unknown(map, path, &["preview", "notes"])?;
    let text = |key: &str| -> Result<Option<String>, String> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim_end().to_string())),
            Some(other) => Err(at(
                &format!("{path}.{key}"),
                format!("must be a string, got {}", kind(other)),
            )),
        }
    };
    Ok(Annotation {
        preview: text("preview")?,
        notes: text("notes")?,
    })
}

fn question_index(questions: &[AnsweredQuestion], key: &str) -> Option<usize> {
    questions
        .iter()
        .position(|q| q.question.question == key)
        .or_else(|| {
            questions
                .iter()
                .position(|q| q.question.question.trim() == key.trim())
        })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
