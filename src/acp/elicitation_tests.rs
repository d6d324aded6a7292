use super::*;
use serde_json::json;

fn two_questions() -> Value {
    json!({"questions": [
        {"question": "Which database?", "header": "Database", "multiSelect": false,
         "options": [
            {"label": "Postgres (Recommended)", "description": "Relational"},
            {"label": "SQLite", "description": "One file"}]},
        {"question": "Which targets?", "header": "Targets", "multiSelect": true,
         "options": [
            {"label": "Linux", "description": "x86_64 and arm64"},
            {"label": "macOS", "description": "Apple silicon"},
            {"label": "Windows", "description": "MSVC"}]}
    ]})
}

/// A client's response as it arrives on the wire.
fn response(wire: Value) -> CreateElicitationResponse {
    serde_json::from_value(wire).expect("a response the schema accepts")
}

fn accept(content: Value) -> CreateElicitationResponse {
    response(json!({"action": "accept", "content": content}))
}

fn answers(reply: PermissionReply) -> Map<String, Value> {
    match reply {
        PermissionReply::Answers {
            answers,
            annotations,
        } => {
            assert_eq!(annotations, None);
            answers
        }
        other => panic!("expected answers, got {other:?}"),
    }
}

fn deny_none() -> PermissionReply {
    PermissionReply::Deny { feedback: None }
}

// ---- capabilities ------------------------------------------------------------

#[test]
fn forms_are_used_only_when_the_client_advertises_them() {
    let caps = |wire: Value| -> ClientCapabilities { serde_json::from_value(wire).unwrap() };
    assert!(client_supports_forms(&caps(
        json!({"elicitation": {"form": {}}})
    )));
    assert!(client_supports_forms(&caps(
        json!({"elicitation": {"form": {}, "url": {}}})
    )));
    assert!(!client_supports_forms(&caps(json!({}))));
    assert!(!client_supports_forms(&caps(json!({"elicitation": {}}))));
    assert!(!client_supports_forms(&caps(
        json!({"elicitation": {"url": {}}})
    )));
    assert!(!client_supports_forms(&caps(json!({"elicitation": null}))));
    // A malformed capability is read as absent by the schema, not an error.
    assert!(!client_supports_forms(&caps(json!({"elicitation": "yes"}))));
    assert!(!client_supports_forms(&caps(
        json!({"elicitation": {"form": 3}})
    )));
}

// ---- the question form on the wire ------------------------------------------

#[test]
fn ask3_question_request_wire_shape() {
    let request = question_request("sess-1", "call-7", &two_questions()).unwrap();
    let wire = serde_json::to_value(&request).unwrap();
    assert_eq!(
        wire,
        json!({
            "mode": "form",
            "sessionId": "sess-1",
            "toolCallId": "call-7",
            "message": "2 questions; answer what you can, a question left empty is skipped.",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "q1": {
                        "type": "string",
                        "title": "Database",
                        "description": "Which database?",
                        "oneOf": [
                            {"const": "Postgres (Recommended)", "title": "Postgres (Recommended)",
                             "description": "Relational"},
                            {"const": "SQLite", "title": "SQLite", "description": "One file"}
                        ]
                    },
                    "q1_other": {
                        "type": "string",
                        "title": "Other answer",
                        "description": "Your own answer, instead of a choice above",
                        "maxLength": 4000
                    },
                    "q2": {
                        "type": "array",
                        "title": "Targets",
                        "description": "Which targets?",
                        "items": {"anyOf": [
                            {"const": "Linux", "title": "Linux", "description": "x86_64 and arm64"},
                            {"const": "macOS", "title": "macOS", "description": "Apple silicon"},
                            {"const": "Windows", "title": "Windows", "description": "MSVC"}
                        ]}
                    },
                    "q2_other": {
                        "type": "string",
                        "title": "Other answer",
                        "description": "Your own answer, added to the choices above",
                        "maxLength": 4000
                    }
                }
            }
        })
    );
    // Nothing is required: every question may be skipped.
    assert!(wire["requestedSchema"].get("required").is_none());
    // The wire form reads back as the same request.
    let back: CreateElicitationRequest = serde_json::from_value(wire).unwrap();
    assert_eq!(back, request);
}

#[test]
fn ask3_one_question_is_the_message() {
    let input = json!({"questions": [two_questions()["questions"][0].clone()]});
    let request = question_request("s", "c", &input).unwrap();
    assert_eq!(request.message, "Which database?");
}

#[test]
fn ask3_invalid_questionnaire_is_the_tools_error() {
    let err = question_request("s", "c", &json!({"questions": []})).unwrap_err();
    assert!(
        err.starts_with("Invalid input for AskUserQuestion: questions:"),
        "{err}"
    );
    assert!(question_request("s", "c", &json!("questions")).is_err());
    assert!(question_request("s", "c", &json!(null)).is_err());
}

#[test]
fn ask3_answers_the_model_wrote_are_not_sent_or_taken() {
    let mut input = two_questions();
    input["answers"] = json!({"Which database?": "SQLite"});
    let request = question_request("s", "c", &input).unwrap();
    assert!(!serde_json::to_string(&request).unwrap().contains("answers"));
    assert_eq!(
        answers(question_reply(&input, &accept(json!({})))),
        Map::new()
    );
}

// ---- the question answers ---------------------------------------------------

#[test]
fn ask3_answers_keyed_by_question_text() {
    let reply = question_reply(
        &two_questions(),
        &accept(json!({"q1": "SQLite", "q2": ["Windows", "Linux"]})),
    );
    assert_eq!(
        answers(reply),
        json!({"Which database?": "SQLite", "Which targets?": "Linux, Windows"})
            .as_object()
            .cloned()
            .unwrap()
    );
}

#[test]
fn ask4_accepted_empty_form_is_none_answered() {
    for content in [json!({}), json!({"q1": "", "q1_other": "  ", "q2": []})] {
        assert_eq!(
            answers(question_reply(&two_questions(), &accept(content))),
            Map::new()
        );
    }
    // An accept without content at all.
    let reply = question_reply(&two_questions(), &response(json!({"action": "accept"})));
    assert_eq!(answers(reply), Map::new());
}

#[test]
fn ask4_one_question_skipped() {
    let reply = question_reply(&two_questions(), &accept(json!({"q2": ["macOS"]})));
    assert_eq!(
        answers(reply),
        json!({"Which targets?": "macOS"})
            .as_object()
            .cloned()
            .unwrap()
    );
}

#[test]
fn ask3_other_text_wins_over_a_single_choice() {
    let reply = question_reply(
        &two_questions(),
        &accept(json!({"q1": "SQLite", "q1_other": "  DuckDB  "})),
    );
    assert_eq!(answers(reply)["Which database?"], json!("DuckDB"));
    let reply = question_reply(&two_questions(), &accept(json!({"q1_other": "DuckDB"})));
    assert_eq!(answers(reply)["Which database?"], json!("DuckDB"));
}

#[test]
fn ask3_other_text_is_added_to_multi_choices() {
    let reply = question_reply(
        &two_questions(),
        &accept(json!({"q2": ["macOS"], "q2_other": "FreeBSD"})),
    );
    assert_eq!(answers(reply)["Which targets?"], json!("macOS, FreeBSD"));
    let reply = question_reply(&two_questions(), &accept(json!({"q2_other": "FreeBSD"})));
    assert_eq!(answers(reply)["Which targets?"], json!("FreeBSD"));
}

#[test]
fn ask3_labels_match_trimmed_and_case_insensitively_as_offered() {
    let reply = question_reply(
        &two_questions(),
        &accept(json!({"q1": " sqlite ", "q2": ["LINUX", "linux", "macos"]})),
    );
    let got = answers(reply);
    assert_eq!(got["Which database?"], json!("SQLite"));
    assert_eq!(got["Which targets?"], json!("Linux, macOS"));
}

#[test]
fn ask3_unknown_label_is_taken_as_own_text() {
    let reply = question_reply(
        &two_questions(),
        &accept(json!({"q1": "MariaDB", "q2": ["Haiku", "Linux", "Haiku"]})),
    );
    let got = answers(reply);
    assert_eq!(got["Which database?"], json!("MariaDB"));
    assert_eq!(got["Which targets?"], json!("Linux, Haiku"));
    // With Other text as well, a single choice takes the Other text.
    let reply = question_reply(
        &two_questions(),
        &accept(json!({"q1": "MariaDB", "q1_other": "DuckDB"})),
    );
    assert_eq!(answers(reply)["Which database?"], json!("DuckDB"));
}

#[test]
fn ask3_a_clients_own_other_choice_is_no_answer() {
    let reply = question_reply(
        &two_questions(),
        &accept(json!({"q1": "Other", "q2": ["other", "Linux"]})),
    );
    let got = answers(reply);
    assert_eq!(got.get("Which database?"), None);
    assert_eq!(got["Which targets?"], json!("Linux"));
    let reply = question_reply(
        &two_questions(),
        &accept(json!({"q1": "Other", "q1_other": "DuckDB"})),
    );
    assert_eq!(answers(reply)["Which database?"], json!("DuckDB"));
}

#[test]
fn ask3_wrong_types_and_unknown_keys_are_ignored() {
    let reply = question_reply(
        &two_questions(),
        &accept(json!({
            "q1": 3, "q1_other": true, "q2": "Linux", "q2_other": ["x"],
            "q3": "SQLite", "zz": 1.5, "Which database?": "SQLite"
        })),
    );
    assert_eq!(answers(reply), Map::new());
    // A multi-select value on a single-select question is ignored too.
    let reply = question_reply(&two_questions(), &accept(json!({"q1": ["SQLite"]})));
    assert_eq!(answers(reply), Map::new());
}

#[test]
fn ask3_absurd_lengths_are_cut() {
    let long = "é".repeat(MAX_TEXT_CHARS * 3);
    let reply = question_reply(
        &two_questions(),
        &accept(json!({"q1_other": long, "q2": vec!["x".repeat(50); 100_000]})),
    );
    let got = answers(reply);
    let db = got["Which database?"].as_str().unwrap();
    assert_eq!(db.chars().count(), MAX_TEXT_CHARS);
    let targets = got["Which targets?"].as_str().unwrap();
    assert!(
        targets.chars().count() <= MAX_TEXT_CHARS,
        "{}",
        targets.len()
    );

    let many: Vec<String> = (0..100_000).map(|i| format!("item {i}")).collect();
    let reply = question_reply(&two_questions(), &accept(json!({"q2": many})));
    let got = answers(reply);
    assert!(got["Which targets?"].as_str().unwrap().chars().count() <= MAX_TEXT_CHARS);
}

#[test]
fn ask3_decline_cancel_and_unknown_actions_reject_the_questionnaire() {
    for wire in [
        json!({"action": "decline"}),
        json!({"action": "cancel"}),
        json!({"action": "snooze", "content": {"q1": "SQLite"}}),
    ] {
        assert_eq!(
            question_reply(&two_questions(), &response(wire)),
            deny_none()
        );
    }
}

#[test]
fn ask3_answers_for_an_input_that_no_longer_parses_are_a_deny() {
    let reply = question_reply(&json!({"questions": 3}), &accept(json!({"q1": "SQLite"})));
    assert_eq!(reply, deny_none());
}

#[test]
fn ask3_reply_passes_the_tools_own_check() {
    use crate::tools::ask_user_question::{answered_input, validate_answered};
    let reply = question_reply(
        &two_questions(),
        &accept(json!({"q1": "Postgres (Recommended)", "q2": ["Linux"], "q2_other": "BSD"})),
    );
    let pairs: Vec<(String, String)> = answers(reply)
        .into_iter()
        .map(|(q, a)| (q, a.as_str().unwrap().to_string()))
        .collect();
    let answered = validate_answered(answered_input(&two_questions(), &pairs, &[])).unwrap();
    assert_eq!(answered.answered_count(), 2);
}

// ---- the plan review --------------------------------------------------------

#[test]
fn plan7_plan_review_request_wire_shape() {
    let request = plan_review_request("s", "call-9", "1. Add a flag\n2. Test it");
    let wire = serde_json::to_value(&request).unwrap();
    assert_eq!(
        wire,
        json!({
            "mode": "form",
            "sessionId": "s",
            "toolCallId": "call-9",
            "message": "Review this implementation plan.\n\n1. Add a flag\n2. Test it",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "decision": {
                        "type": "string",
                        "title": "Decision",
                        "oneOf": [
                            {"const": "approve", "title": "Approve"},
                            {"const": "revise", "title": "Request changes"}
                        ]
                    },
                    "feedback": {
                        "type": "string",
                        "title": "What should change?",
                        "description": "Leave empty to approve or to reject the plan",
                        "maxLength": 4000
                    }
                }
            }
        })
    );
    let back: CreateElicitationRequest = serde_json::from_value(wire).unwrap();
    assert_eq!(back, request);
}

#[test]
fn plan7_approve_approves_even_with_feedback() {
    for content in [
        json!({"decision": "approve"}),
        json!({"decision": " approve ", "feedback": "also add docs"}),
    ] {
        assert_eq!(
            plan_review_reply(&accept(content)),
            PermissionReply::AllowOnce
        );
    }
}

#[test]
fn plan8_feedback_without_approve_is_feedback() {
    for content in [
        json!({"decision": "revise", "feedback": "  Split step 2  "}),
        json!({"feedback": "Split step 2"}),
        json!({"decision": "yes please", "feedback": "Split step 2"}),
        json!({"decision": 1, "feedback": "Split step 2"}),
    ] {
        assert_eq!(
            plan_review_reply(&accept(content)),
            PermissionReply::PlanFeedback {
                feedback: "Split step 2".to_string()
            }
        );
    }
    let long = "x".repeat(MAX_TEXT_CHARS + 10);
    match plan_review_reply(&accept(json!({"feedback": long}))) {
        PermissionReply::PlanFeedback { feedback } => {
            assert_eq!(feedback.len(), MAX_TEXT_CHARS)
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn plan9_anything_else_is_a_deny() {
    for wire in [
        json!({"action": "accept"}),
        json!({"action": "accept", "content": {}}),
        json!({"action": "accept", "content": {"decision": "revise"}}),
        json!({"action": "accept", "content": {"decision": "revise", "feedback": "   "}}),
        json!({"action": "accept", "content": {"feedback": ["a"]}}),
        json!({"action": "accept", "content": {"decision": ["approve"]}}),
        json!({"action": "accept", "content": {"decision": "APPROVED"}}),
        json!({"action": "decline"}),
        json!({"action": "cancel"}),
        json!({"action": "later"}),
    ] {
        assert_eq!(
            plan_review_reply(&response(wire.clone())),
            deny_none(),
            "{wire}"
        );
    }
}

// ---- deny feedback ----------------------------------------------------------

#[test]
fn appr7_deny_feedback_request_wire_shape() {
    let request = deny_feedback_request("s", "call-3", "Bash");
    let wire = serde_json::to_value(&request).unwrap();
    assert_eq!(
        wire,
        json!({
            "mode": "form",
            "sessionId": "s",
            "toolCallId": "call-3",
            "message": "Bash was denied. What should it do instead?",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "instead": {
                        "type": "string",
                        "title": "What should it do instead?",
                        "description": "Optional: what the model should do instead; leave empty to just deny",
                        "maxLength": 4000
                    }
                }
            }
        })
    );
    let back: CreateElicitationRequest = serde_json::from_value(wire).unwrap();
    assert_eq!(back, request);
}

#[test]
fn appr7_deny_feedback_text_only_from_accepted_text() {
    assert_eq!(
        deny_feedback_text(&accept(json!({"instead": "  run the tests first "}))),
        Some("run the tests first".to_string())
    );
    for wire in [
        json!({"action": "accept"}),
        json!({"action": "accept", "content": {}}),
        json!({"action": "accept", "content": {"instead": ""}}),
        json!({"action": "accept", "content": {"instead": " \n "}}),
        json!({"action": "accept", "content": {"instead": 5}}),
        json!({"action": "accept", "content": {"instead": ["a"]}}),
        json!({"action": "accept", "content": {"other": "text"}}),
        json!({"action": "decline"}),
        json!({"action": "cancel"}),
        json!({"action": "unknown"}),
    ] {
        assert_eq!(deny_feedback_text(&response(wire.clone())), None, "{wire}");
    }
    let long = "y".repeat(MAX_TEXT_CHARS * 2);
    let text = deny_feedback_text(&accept(json!({"instead": long}))).unwrap();
    assert_eq!(text.len(), MAX_TEXT_CHARS);
}

#[test]
fn cut_keeps_character_boundaries() {
    assert_eq!(cut("abc"), "abc");
    let s = "日本".repeat(MAX_TEXT_CHARS);
    assert_eq!(cut(&s).chars().count(), MAX_TEXT_CHARS);
}
