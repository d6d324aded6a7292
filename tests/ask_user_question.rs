//! AskUserQuestion (ASK-1..4): the description, every validation limit with
//! its exact error text, the answered input and the three result texts.

use serde_json::{Value, json};
use zcode::protocol::RequestKind;
use zcode::tools::ask_user_question::{
    ALL_ANSWERED_PREFIX, Annotation, AskUserQuestionInput, AskUserQuestionTool, MISSING_ANSWERS,
    answered_input, join_labels, validate_answered,
};
use zcode::tools::registry::builtin_capability;
use zcode::tools::{Tool, ToolContext};

const PREFIX: &str = "Invalid input for AskUserQuestion: ";

fn option(label: &str) -> Value {
    json!({"label": label, "description": format!("{label} description")})
}

fn question(text: &str) -> Value {
    json!({
        "question": text,
        "header": "Choice",
        "options": [option("Alpha"), option("Beta")],
        "multiSelect": false
    })
}

fn input(questions: Vec<Value>) -> Value {
    json!({ "questions": questions })
}

fn one() -> Value {
    input(vec![question("Which one?")])
}

fn validate(value: Value) -> Result<Value, String> {
    AskUserQuestionTool.validate(value)
}

fn err(value: Value) -> String {
    match validate(value) {
        Ok(v) => panic!("expected an error, got {v}"),
        Err(e) => e,
    }
}

fn expect_err(value: Value, message: &str) {
    assert_eq!(err(value), format!("{PREFIX}{message}"));
}

/// `f` applied to a copy of `one()`'s first question.
fn with_question(f: impl FnOnce(&mut Value)) -> Value {
    let mut q = question("Which one?");
    f(&mut q);
    input(vec![q])
}

// ---------------------------------------------------------------------------
// ASK-1 description, CAP-2 capability, schema

#[test]
fn ask1_description_starts_with_contract_text_and_covers_the_rules() {
    let d = AskUserQuestionTool.description();
    assert!(d.starts_with(
        "Use this tool only when you are blocked on a decision that is genuinely the user's to make: one you cannot resolve from the request, the code, or sensible defaults."
    ));
    assert!(d.contains("\" (Recommended)\" at the end of its label"));
    assert!(d.contains("use EnterPlanMode"));
    assert!(d.contains("the user cannot see your plan until you call ExitPlanMode"));
    assert!(d.contains("\"Is this plan OK?\""));
}

#[test]
fn cap2_ask_user_question_capability_is_the_builtin_declaration() {
    assert_eq!(
        Some(AskUserQuestionTool.capability()),
        builtin_capability("AskUserQuestion")
    );
    assert_eq!(AskUserQuestionTool.name(), "AskUserQuestion");
}

#[test]
fn ask3_the_tool_asks_a_question_request() {
    assert_eq!(AskUserQuestionTool.request_kind(), RequestKind::Question);
}

#[test]
fn ask2_schema_lists_multiselect_as_required_with_default_false() {
    let schema = AskUserQuestionTool.input_schema();
    let item = &schema["properties"]["questions"]["items"];
    assert_eq!(
        item["required"],
        json!(["question", "header", "options", "multiSelect"])
    );
    assert_eq!(item["properties"]["multiSelect"]["default"], json!(false));
    assert_eq!(schema["properties"]["questions"]["maxItems"], json!(4));
    assert_eq!(item["properties"]["options"]["minItems"], json!(2));
    assert_eq!(item["properties"]["options"]["maxItems"], json!(4));
    assert!(
        item["properties"]["header"]["description"]
            .as_str()
            .unwrap()
            .contains("at most 12 characters")
    );
}

// ---------------------------------------------------------------------------
// ASK-2 validation

#[test]
fn ask2_valid_input_is_normalized_with_multiselect_default() {
    let mut q = question("Which one?");
    q.as_object_mut().unwrap().remove("multiSelect");
    let v = validate(input(vec![q])).unwrap();
    assert_eq!(v["questions"][0]["multiSelect"], json!(false));
    assert_eq!(v["questions"][0]["options"][0]["label"], json!("Alpha"));
    assert!(v["questions"][0]["options"][0].get("preview").is_none());
    // "true" as a string is coerced.
    let v = validate(with_question(|q| q["multiSelect"] = json!("true"))).unwrap();
    assert_eq!(v["questions"][0]["multiSelect"], json!(true));
}

#[test]
fn ask2_question_count_limits() {
    expect_err(json!({}), "questions: is required");
    expect_err(
        json!({"questions": "x"}),
        "questions: must be an array, got a string",
    );
    expect_err(
        input(vec![]),
        "questions: must have 1 to 4 questions, got 0",
    );
    let four: Vec<Value> = (1..=4).map(|i| question(&format!("Q{i}?"))).collect();
    assert!(validate(input(four)).is_ok());
    let five: Vec<Value> = (1..=5).map(|i| question(&format!("Q{i}?"))).collect();
    expect_err(input(five), "questions: must have 1 to 4 questions, got 5");
    expect_err(json!([1]), "expected a JSON object, got an array");
}

#[test]
fn ask2_question_texts_are_unique() {
    expect_err(
        input(vec![
            question("Which one?"),
            question("Other?"),
            question(" which ONE? "),
        ]),
        "questions[2].question: must be unique; questions[0] asks the same question",
    );
}

#[test]
fn ask2_option_count_limits() {
    expect_err(
        with_question(|q| q["options"] = json!([option("A")])),
        "questions[0].options: must have 2 to 4 options, got 1",
    );
    let four = json!([option("A"), option("B"), option("C"), option("D")]);
    assert!(validate(with_question(|q| q["options"] = four)).is_ok());
    let five = json!([
        option("A"),
        option("B"),
        option("C"),
        option("D"),
        option("E")
    ]);
    let mut q2 = question("Second?");
    q2["options"] = five;
    expect_err(
        input(vec![question("First?"), q2]),
        "questions[1].options: must have 2 to 4 options, got 5",
    );
    expect_err(
        with_question(|q| q["options"] = json!({})),
        "questions[0].options: must be an array, got an object",
    );
    expect_err(
        with_question(|q| {
            q.as_object_mut().unwrap().remove("options");
        }),
        "questions[0].options: is required",
    );
}

#[test]
fn ask2_option_labels_are_unique() {
    expect_err(
        with_question(|q| q["options"] = json!([option("Alpha"), option("Beta"), option("beta ")])),
        "questions[0].options[2].label: must be unique; options[1] has the same label",
    );
}

#[test]
fn ask2_other_is_not_an_option_label_in_any_case() {
    for label in ["Other", "other", " OTHER "] {
        expect_err(
            with_question(|q| q["options"] = json!([option("Alpha"), option(label)])),
            "questions[0].options[1].label: must not be \"Other\"; the user always gets an Other choice to type their own answer",
        );
    }
    // A label that merely contains the word is fine.
    assert!(
        validate(with_question(
            |q| q["options"] = json!([option("Alpha"), option("Other tool")])
        ))
        .is_ok()
    );
}

#[test]
fn ask2_required_strings_must_not_be_blank() {
    expect_err(
        with_question(|q| q["question"] = json!("  ")),
        "questions[0].question: must not be empty",
    );
    expect_err(
        with_question(|q| q["header"] = json!("")),
        "questions[0].header: must not be empty",
    );
    expect_err(
        with_question(|q| {
            q.as_object_mut().unwrap().remove("header");
        }),
        "questions[0].header: is required",
    );
    expect_err(
        with_question(|q| q["options"][0]["label"] = json!("\t")),
        "questions[0].options[0].label: must not be empty",
    );
    expect_err(
        with_question(|q| q["options"][1]["description"] = json!(" ")),
        "questions[0].options[1].description: must not be empty",
    );
    expect_err(
        with_question(|q| q["options"][1]["preview"] = json!(" \n")),
        "questions[0].options[1].preview: must not be empty",
    );
    expect_err(
        with_question(|q| q["question"] = json!(3)),
        "questions[0].question: must be a string, got a number",
    );
}

#[test]
fn ask2_header_over_12_characters_is_accepted() {
    let v = validate(with_question(|q| {
        q["header"] = json!("A header far longer than twelve")
    }))
    .unwrap();
    assert_eq!(
        v["questions"][0]["header"],
        json!("A header far longer than twelve")
    );
}

#[test]
fn ask2_shapes_and_unknown_fields() {
    expect_err(
        input(vec![json!("Which?")]),
        "questions[0]: must be an object, got a string",
    );
    expect_err(
        with_question(|q| q["options"][0] = json!(["x"])),
        "questions[0].options[0]: must be an object, got an array",
    );
    expect_err(
        with_question(|q| q["multiSelect"] = json!("maybe")),
        "questions[0].multiSelect: must be true or false",
    );
    expect_err(
        with_question(|q| q["multi_select"] = json!(true)),
        "questions[0]: unknown field \"multi_select\" (allowed: question, header, options, multiSelect)",
    );
    expect_err(
        with_question(|q| q["options"][0]["value"] = json!(1)),
        "questions[0].options[0]: unknown field \"value\" (allowed: label, description, preview)",
    );
    let mut extra = one();
    extra["metadata"] = json!({});
    expect_err(
        extra,
        "unknown field \"metadata\" (allowed: questions, answers, annotations)",
    );
}

#[test]
fn ask2_preview_must_be_an_html_fragment() {
    let cases = [
        ("<!DOCTYPE html><p>x</p>", "<!DOCTYPE>"),
        ("<Html><p>x</p></Html>", "<html>"),
        ("<body>x</body>", "<body>"),
        ("<p>x</p><SCRIPT>alert(1)</SCRIPT>", "<script>"),
        ("<style>p{}</style>", "<style>"),
    ];
    for (preview, tag) in cases {
        expect_err(
            with_question(|q| q["options"][0]["preview"] = json!(preview)),
            &format!(
                "questions[0].options[0].preview: HTML in a preview must be a fragment, found {tag}; leave out <html>, <body>, <!DOCTYPE>, <script> and <style>"
            ),
        );
    }
    for fine in [
        "## Layout\n\n```\n+------+\n| side |\n+------+\n```",
        "<div class=\"card\"><b>Title</b></div>",
        "```html\n<!DOCTYPE html>\n<html><body></body></html>\n```",
        "Adds a `<script>` tag to the page",
    ] {
        let v = validate(with_question(|q| q["options"][0]["preview"] = json!(fine))).unwrap();
        assert_eq!(v["questions"][0]["options"][0]["preview"], json!(fine));
    }
}

#[test]
fn ask2_preview_on_a_multiselect_question_is_accepted() {
    // Decision: previews are meant for single-select questions (the
    // description says so) but are not rejected on multi-select ones.
    let v = validate(with_question(|q| {
        q["multiSelect"] = json!(true);
        q["options"][0]["preview"] = json!("```\ncode\n```");
    }))
    .unwrap();
    assert_eq!(v["questions"][0]["multiSelect"], json!(true));
}

// ---------------------------------------------------------------------------
// ASK-3 answers

#[test]
fn ask3_model_written_answers_are_stripped_by_validate() {
    let mut value = one();
    value["answers"] = json!({"Which one?": "Alpha"});
    value["annotations"] = json!({"Which one?": {"notes": "made up"}});
    let v = validate(value).unwrap();
    assert!(v.get("answers").is_none());
    assert!(v.get("annotations").is_none());
    assert_eq!(validate_answered(v).unwrap_err(), MISSING_ANSWERS);
}

#[test]
fn ask3_missing_answers_error_text_is_exact() {
    assert_eq!(
        validate_answered(one()).unwrap_err(),
        "AskUserQuestion requires user answers before execution"
    );
    let mut null = one();
    null["answers"] = Value::Null;
    assert_eq!(validate_answered(null).unwrap_err(), MISSING_ANSWERS);
}

#[tokio::test]
async fn ask3_run_without_answers_is_the_missing_answers_error() {
    let ctx = ToolContext::new(std::env::temp_dir(), "s");
    let input = validate(one()).unwrap();
    let out = AskUserQuestionTool.run(input, &ctx).await;
    assert!(out.is_error);
    assert_eq!(out.content, MISSING_ANSWERS);
}

#[test]
fn ask3_empty_answers_object_is_valid() {
    let answered = answered_input(&one(), &[], &[]);
    assert_eq!(answered["answers"], json!({}));
    let a = validate_answered(answered).unwrap();
    assert_eq!(a.answered_count(), 0);
    assert_eq!(a.questions[0].answer, None);
}

#[test]
fn ask3_blank_answer_is_rejected() {
    let answered = answered_input(&one(), &[("Which one?".into(), "  ".into())], &[]);
    assert_eq!(
        validate_answered(answered).unwrap_err(),
        format!(
            "{PREFIX}answers[\"Which one?\"]: must not be blank; leave the question out of answers to skip it"
        )
    );
}

#[test]
fn ask3_answer_to_an_unknown_question_is_rejected() {
    let answered = answered_input(&one(), &[("Which two?".into(), "Alpha".into())], &[]);
    assert_eq!(
        validate_answered(answered).unwrap_err(),
        format!("{PREFIX}answers: \"Which two?\" is not one of the questions asked")
    );
    let answered = answered_input(
        &one(),
        &[],
        &[(
            "Nope?".into(),
            Annotation {
                preview: None,
                notes: Some("n".into()),
            },
        )],
    );
    assert_eq!(
        validate_answered(answered).unwrap_err(),
        format!("{PREFIX}annotations: \"Nope?\" is not one of the questions asked")
    );
}

#[test]
fn ask3_answer_shapes() {
    let mut v = one();
    v["answers"] = json!(["Alpha"]);
    assert_eq!(
        validate_answered(v).unwrap_err(),
        format!("{PREFIX}answers: must be an object keyed by question text, got an array")
    );
    let mut v = one();
    v["answers"] = json!({"Which one?": ["Alpha", "Beta"]});
    assert_eq!(
        validate_answered(v).unwrap_err(),
        format!("{PREFIX}answers[\"Which one?\"]: must be a string, got an array")
    );
    let mut v = one();
    v["answers"] = json!({"Which one?": "Alpha"});
    v["annotations"] = json!({"Which one?": {"mood": "x"}});
    assert_eq!(
        validate_answered(v).unwrap_err(),
        format!(
            "{PREFIX}annotations[\"Which one?\"]: unknown field \"mood\" (allowed: preview, notes)"
        )
    );
}

#[test]
fn ask3_answered_input_is_validated_again() {
    // The approval step cannot smuggle in bad questions: the questions are
    // checked with the answers.
    let mut bad = one();
    bad["questions"][0]["options"] = json!([option("Only")]);
    let answered = answered_input(&bad, &[("Which one?".into(), "Only".into())], &[]);
    assert_eq!(
        validate_answered(answered).unwrap_err(),
        format!("{PREFIX}questions[0].options: must have 2 to 4 options, got 1")
    );
}

#[test]
fn ask3_single_select_answer_is_a_label_or_other_text() {
    for answer in ["Alpha", "Something else entirely"] {
        let a = validate_answered(answered_input(
            &one(),
            &[("Which one?".into(), answer.into())],
            &[],
        ))
        .unwrap();
        assert_eq!(a.questions[0].answer.as_deref(), Some(answer));
    }
}

#[test]
fn ask3_multiselect_answer_is_labels_joined_with_comma_space() {
    assert_eq!(
        join_labels(["Alpha", " Beta ", "", "my own"]),
        "Alpha, Beta, my own"
    );
    let mut q = one();
    q["questions"][0]["multiSelect"] = json!(true);
    let a = validate_answered(answered_input(
        &q,
        &[("Which one?".into(), join_labels(["Alpha", "Beta"]))],
        &[],
    ))
    .unwrap();
    assert_eq!(a.questions[0].answer.as_deref(), Some("Alpha, Beta"));
}

// ---------------------------------------------------------------------------
// ASK-4 result texts

fn two() -> Value {
    input(vec![question("Which database?"), question("Which cache?")])
}

async fn run_answered(value: Value) -> String {
    let ctx = ToolContext::new(std::env::temp_dir(), "s");
    let out = AskUserQuestionTool.run(value, &ctx).await;
    assert!(!out.is_error, "{}", out.content);
    out.content
}

#[tokio::test]
async fn ask4_all_answered_result() {
    let text = run_answered(answered_input(
        &two(),
        &[
            ("Which database?".into(), "Alpha".into()),
            ("Which cache?".into(), "Beta".into()),
        ],
        &[],
    ))
    .await;
    assert!(text.starts_with(ALL_ANSWERED_PREFIX));
    assert_eq!(
        text,
        "User has answered your questions: \"Which database?\"=\"Alpha\", \"Which cache?\"=\"Beta\". You can now continue with the user's answers in mind."
    );
}

#[tokio::test]
async fn ask4_notes_and_preview_follow_the_answers() {
    let text = run_answered(answered_input(
        &two(),
        &[
            ("Which database?".into(), "Alpha".into()),
            ("Which cache?".into(), "Beta".into()),
        ],
        &[(
            "Which cache?".into(),
            Annotation {
                preview: Some("```\nredis\n```".into()),
                notes: Some("keep it local".into()),
            },
        )],
    ))
    .await;
    assert!(text.starts_with("User has answered your questions: \"Which database?\"=\"Alpha\", \"Which cache?\"=\"Beta\"."));
    assert!(text.ends_with(
        "\n\nFor \"Which cache?\" the user selected this preview:\n```\nredis\n```\n\nUser notes on \"Which cache?\": keep it local"
    ));
}

#[tokio::test]
async fn ask4_some_answered_result_counts_the_skipped() {
    let text = run_answered(answered_input(
        &two(),
        &[("Which cache?".into(), "Beta".into())],
        &[],
    ))
    .await;
    assert_eq!(
        text,
        "User has answered some of your questions: \"Which cache?\"=\"Beta\". The user skipped 1 question: \"Which database?\". For the skipped question, use your own judgement: choose sensible defaults from the request and the code, and say which choices you made."
    );
}

#[tokio::test]
async fn ask4_none_answered_is_not_a_refusal() {
    let text = run_answered(answered_input(&two(), &[], &[])).await;
    assert!(text.contains("Do not treat this as a refusal"));
    assert!(text.contains("do not invent the user's preferences"));
    assert!(!text.starts_with(ALL_ANSWERED_PREFIX));
}

#[test]
fn ask2_parse_exposes_the_questions_for_the_panel() {
    let parsed = AskUserQuestionInput::parse(two()).unwrap();
    assert_eq!(parsed.questions.len(), 2);
    assert_eq!(parsed.questions[1].question, "Which cache?");
    assert_eq!(parsed.questions[1].options[1].label, "Beta");
    assert!(!parsed.questions[1].multi_select);
    let ctx = ToolContext::new(std::env::temp_dir(), "s");
    let preview = AskUserQuestionTool.preview(&two(), &ctx).unwrap();
    assert!(preview.starts_with("1. [Choice] Which database?\n   - Alpha: Alpha description\n"));
}
