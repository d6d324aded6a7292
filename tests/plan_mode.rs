//! Plan mode (PLAN-3..11): EnterPlanMode and ExitPlanMode, the plan file,
//! and the plan-mode reminder schedule.

use serde_json::{Value, json};
use std::path::Path;
use zcode::protocol::RequestKind;
use zcode::runtime::plan_file::{
    MAX_REFERENCE_BYTES, plan_file_path, plan_file_reference, read_plan_file_for_reference,
    write_plan_file,
};
use zcode::runtime::reminders::{
    PLAN_MODE_EXIT, PLAN_MODE_FULL, PLAN_MODE_SHORT, PlanReminder, PlanReminderState,
};
use zcode::tools::plan_mode::{
    AllowedPrompt, EnterPlanModeTool, ExitPlanInput, ExitPlanModeTool, PLAN_DENIED,
    PLAN_NOT_APPROVED, approved_result,
};
use zcode::tools::registry::builtin_capability;
use zcode::tools::{SessionEffect, Tool, ToolContext};

const EXIT_PREFIX: &str = "Invalid input for ExitPlanMode: ";

fn ctx() -> ToolContext {
    ToolContext::new(std::env::temp_dir(), "s")
}

fn exit_err(value: Value) -> String {
    match ExitPlanModeTool.validate(value) {
        Ok(v) => panic!("expected an error, got {v}"),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------------------
// CAP-2

#[test]
fn cap2_plan_tool_capabilities_are_the_builtin_declarations() {
    assert_eq!(
        Some(EnterPlanModeTool.capability()),
        builtin_capability("EnterPlanMode")
    );
    assert_eq!(
        Some(ExitPlanModeTool.capability()),
        builtin_capability("ExitPlanMode")
    );
    assert_eq!(EnterPlanModeTool.name(), "EnterPlanMode");
    assert_eq!(ExitPlanModeTool.name(), "ExitPlanMode");
}

// ---------------------------------------------------------------------------
// PLAN-3 EnterPlanMode

#[test]
fn plan3_enter_description_is_truthful_about_approval() {
    let d = EnterPlanModeTool.description();
    assert!(d.contains("does not ask the user for approval"));
    assert!(d.contains("non-trivial implementation work"));
    assert!(!d.contains("REQUIRES user approval"));
}

#[test]
fn plan3_enter_takes_an_empty_object() {
    assert_eq!(EnterPlanModeTool.validate(json!({})).unwrap(), json!({}));
    assert_eq!(EnterPlanModeTool.validate(Value::Null).unwrap(), json!({}));
    assert_eq!(
        EnterPlanModeTool.validate(json!({"reason": "x"})).unwrap(),
        json!({})
    );
    assert_eq!(
        EnterPlanModeTool.validate(json!("x")).unwrap_err(),
        "Invalid input for EnterPlanMode: expected a JSON object, got a string"
    );
    let schema = EnterPlanModeTool.input_schema();
    assert_eq!(schema["properties"], json!({}));
}

#[tokio::test]
async fn plan3_enter_result_ends_with_do_not_write() {
    let out = EnterPlanModeTool.run(json!({}), &ctx()).await;
    assert!(!out.is_error);
    assert!(out.content.ends_with("DO NOT write or edit any files yet"));
    assert!(out.content.contains("ExitPlanMode"));
}

#[tokio::test]
async fn plan3_entering_is_an_effect_the_runtime_applies_without_asking() {
    assert_eq!(EnterPlanModeTool.request_kind(), RequestKind::Tool);
    let out = EnterPlanModeTool.run(json!({}), &ctx()).await;
    assert_eq!(out.effects, vec![SessionEffect::EnterPlan]);
}

// ---------------------------------------------------------------------------
// PLAN-6 ExitPlanMode input

#[test]
fn plan6_plan_length_limits() {
    assert_eq!(
        exit_err(json!({"plan": ""})),
        format!("{EXIT_PREFIX}plan: must not be empty")
    );
    assert!(ExitPlanModeTool.validate(json!({"plan": "x"})).is_ok());
    let max = "é".repeat(20_000); // characters, not bytes
    assert!(ExitPlanModeTool.validate(json!({ "plan": max })).is_ok());
    let over = "a".repeat(20_001);
    assert_eq!(
        exit_err(json!({ "plan": over })),
        format!("{EXIT_PREFIX}plan: must be at most 20000 characters, got 20001")
    );
}

#[test]
fn plan6_plan_is_required_and_not_whitespace() {
    assert_eq!(
        exit_err(json!({"plan": " \n\t "})),
        format!("{EXIT_PREFIX}plan: must not be only whitespace")
    );
    assert_eq!(
        exit_err(json!({})),
        format!("{EXIT_PREFIX}plan: is required")
    );
    assert_eq!(
        exit_err(json!({"plan": 5})),
        format!("{EXIT_PREFIX}plan: must be a string, got a number")
    );
}

#[test]
fn plan6_plan_is_stored_verbatim_and_extra_fields_are_kept() {
    let plan = "  # Plan\n\n1. Do it  \n\n";
    let v = ExitPlanModeTool
        .validate(json!({"plan": plan, "planFilePath": "/x", "n": 1}))
        .unwrap();
    assert_eq!(v, json!({"plan": plan, "planFilePath": "/x", "n": 1}));
    let parsed = ExitPlanInput::parse(v).unwrap();
    assert_eq!(parsed.plan, plan);
    assert!(parsed.allowed_prompts().is_empty());
}

#[test]
fn plan6_allowed_prompts_shape() {
    let ok = json!({"plan": "p", "allowedPrompts": [{"tool": "Bash", "prompt": "run tests"}]});
    assert_eq!(ExitPlanModeTool.validate(ok.clone()).unwrap(), ok);
    let null = ExitPlanModeTool
        .validate(json!({"plan": "p", "allowedPrompts": null}))
        .unwrap();
    assert_eq!(null, json!({"plan": "p"}));
    let cases = [
        (json!("x"), "allowedPrompts: must be an array, got a string"),
        (
            json!(["x"]),
            "allowedPrompts[0]: must be an object, got a string",
        ),
        (
            json!([{"tool": "Bash", "prompt": "a"}, {"tool": "Write", "prompt": "b"}]),
            "allowedPrompts[1].tool: must be \"Bash\", got \"Write\"",
        ),
        (
            json!([{"prompt": "a"}]),
            "allowedPrompts[0].tool: is required",
        ),
        (
            json!([{"tool": "Bash"}]),
            "allowedPrompts[0].prompt: is required",
        ),
        (
            json!([{"tool": "Bash", "prompt": " "}]),
            "allowedPrompts[0].prompt: must not be empty",
        ),
        (
            json!([{"tool": "Bash", "prompt": "a", "scope": "all"}]),
            "allowedPrompts[0]: unknown field \"scope\" (allowed: tool, prompt)",
        ),
    ];
    for (prompts, message) in cases {
        assert_eq!(
            exit_err(json!({"plan": "p", "allowedPrompts": prompts})),
            format!("{EXIT_PREFIX}{message}")
        );
    }
}

// ---------------------------------------------------------------------------
// PLAN-7 / PLAN-8 / PLAN-9 texts

#[test]
fn plan7_approved_result_exact_text() {
    assert_eq!(
        approved_result("1. Do it", &[]),
        "User has approved your plan. You can now start coding. Start with updating your todo list if applicable.\n\n## Approved Plan:\n1. Do it"
    );
}

#[tokio::test]
async fn plan6_allowed_prompts_are_echoed_back_after_the_plan() {
    let input = ExitPlanModeTool
        .validate(json!({"plan": "1. Do it", "allowedPrompts": [{"tool": "Bash", "prompt": "run the tests"}]}))
        .unwrap();
    let out = ExitPlanModeTool.run(input, &ctx()).await;
    assert!(!out.is_error);
    let expected_start = approved_result("1. Do it", &[]);
    assert!(out.content.starts_with(&expected_start));
    assert!(out.content.ends_with("- Bash: run the tests"));
    assert!(out.content.contains("not granted"));
    assert_eq!(
        out.content,
        approved_result(
            "1. Do it",
            &[AllowedPrompt {
                tool: "Bash".into(),
                prompt: "run the tests".into()
            }]
        )
    );
}

#[tokio::test]
async fn plan7_exit_asks_a_plan_request_and_hands_the_plan_back_as_an_effect() {
    assert_eq!(ExitPlanModeTool.request_kind(), RequestKind::Plan);
    let input = json!({"plan": "1. Do it", "allowedPrompts": [{"tool": "Bash", "prompt": "run the tests"}]});
    assert_eq!(
        ExitPlanModeTool.allowed_prompts(&input),
        vec![AllowedPrompt {
            tool: "Bash".into(),
            prompt: "run the tests".into()
        }]
    );
    assert!(ExitPlanModeTool.allowed_prompts(&json!({})).is_empty());
    let out = ExitPlanModeTool.run(input, &ctx()).await;
    assert_eq!(
        out.effects,
        vec![SessionEffect::ExitPlan {
            plan: "1. Do it".into()
        }]
    );
    // An input that does not parse changes nothing.
    let out = ExitPlanModeTool.run(json!({}), &ctx()).await;
    assert!(out.is_error);
    assert!(out.effects.is_empty());
}

#[test]
fn plan8_feedback_and_plan9_deny_texts() {
    assert_eq!(PLAN_NOT_APPROVED, "The plan was not approved by the user.");
    assert!(PLAN_DENIED.contains("rejected"));
    assert!(PLAN_DENIED.contains("wait for the user"));
}

#[test]
fn plan10_exit_preview_is_the_plan() {
    let plan = "# Plan\n- step";
    assert_eq!(
        ExitPlanModeTool
            .preview(&json!({ "plan": plan }), &ctx())
            .as_deref(),
        Some(plan)
    );
}

#[test]
fn plan6_exit_description_says_the_plan_is_seen_only_here() {
    let d = ExitPlanModeTool.description();
    assert!(d.contains("The user sees your plan only through this tool"));
    assert!(d.contains("they grant nothing"));
}

// ---------------------------------------------------------------------------
// PLAN-7 plan file

#[test]
fn plan7_plan_file_path_sanitises_the_session_id() {
    let ws = Path::new("/ws");
    assert_eq!(
        plan_file_path(ws, "sess_AZ09-x"),
        Path::new("/ws/.zcode/plans/plan-sess_AZ09-x.md")
    );
    assert_eq!(
        plan_file_path(ws, "../a b/c.d:é"),
        Path::new("/ws/.zcode/plans/plan----a-b-c-d--.md")
    );
}

fn dir_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn plan7_write_plan_file_is_atomic_and_creates_the_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write_plan_file(tmp.path(), "s/1", "# Plan\n").unwrap();
    assert_eq!(path, tmp.path().join(".zcode/plans/plan-s-1.md"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "# Plan\n");
    // Overwriting replaces the content and leaves no temporary file.
    write_plan_file(tmp.path(), "s/1", "# Plan v2").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "# Plan v2");
    assert_eq!(dir_names(path.parent().unwrap()), vec!["plan-s-1.md"]);
    assert_eq!(
        dir_names(&tmp.path().join(".zcode")),
        vec![".gitignore", "plans"]
    );
}

/// `git` in `dir` with a fixed identity and no user or system config.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn ux_plan_files_never_show_in_git_status() {
    let tmp = tempfile::tempdir().unwrap();
    git(tmp.path(), &["init", "-q"]);
    assert_eq!(git(tmp.path(), &["status", "--porcelain"]), "");
    write_plan_file(tmp.path(), "sess_1", "# Plan\n").unwrap();
    assert_eq!(
        git(
            tmp.path(),
            &[
                "status",
                "--porcelain",
                "--untracked-files=all",
                "--ignored=no"
            ]
        ),
        ""
    );
    assert_eq!(
        std::fs::read_to_string(tmp.path().join(".zcode/.gitignore")).unwrap(),
        "*\n"
    );
    // The next plan goes into the same directory, still ignored.
    write_plan_file(tmp.path(), "sess_2", "# Other\n").unwrap();
    assert_eq!(git(tmp.path(), &["status", "--porcelain"]), "");
}

#[test]
fn ux_an_existing_zcode_dir_and_gitignore_are_left_as_they_are() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join(".zcode")).unwrap();
    std::fs::write(tmp.path().join(".zcode/.gitignore"), "!plans/\n").unwrap();
    write_plan_file(tmp.path(), "s", "plan").unwrap();
    assert_eq!(
        std::fs::read_to_string(tmp.path().join(".zcode/.gitignore")).unwrap(),
        "!plans/\n"
    );
    // A `.zcode/` the user made without one gets none: it is theirs.
    let other = tempfile::tempdir().unwrap();
    std::fs::create_dir(other.path().join(".zcode")).unwrap();
    write_plan_file(other.path(), "s", "plan").unwrap();
    assert!(!other.path().join(".zcode/.gitignore").exists());
}

#[test]
fn plan7_write_error_is_reported() {
    let tmp = tempfile::tempdir().unwrap();
    // `.zcode` is a file, so the plans directory cannot be created.
    std::fs::write(tmp.path().join(".zcode"), "x").unwrap();
    assert!(write_plan_file(tmp.path(), "s", "plan").is_err());
}

// ---------------------------------------------------------------------------
// PLAN-11 plan file reference

#[test]
fn plan11_reference_is_cut_at_81024_bytes_on_a_char_boundary() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("plan.md");
    // 81023 ASCII bytes, then a 3-byte character straddling the limit.
    let content = format!("{}€tail", "a".repeat(MAX_REFERENCE_BYTES - 1));
    std::fs::write(&path, &content).unwrap();
    let read = read_plan_file_for_reference(&path).unwrap();
    assert_eq!(read.len(), MAX_REFERENCE_BYTES - 1);
    assert!(read.chars().all(|c| c == 'a'));

    // Exactly at the limit: everything.
    let exact = format!("{}€", "a".repeat(MAX_REFERENCE_BYTES - 3));
    std::fs::write(&path, &exact).unwrap();
    assert_eq!(read_plan_file_for_reference(&path).unwrap(), exact);
    assert_eq!(MAX_REFERENCE_BYTES, 81_024);
}

#[test]
fn plan11_missing_or_blank_file_has_no_reference() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("plan.md");
    assert_eq!(read_plan_file_for_reference(&path), None);
    std::fs::write(&path, " \n").unwrap();
    assert_eq!(read_plan_file_for_reference(&path), None);
}

#[test]
fn plan11_reference_text() {
    let path = Path::new("/ws/.zcode/plans/plan-s.md");
    let text = plan_file_reference(path, "# Plan\n1. step\n");
    assert!(text.starts_with("A plan file exists from plan mode at: /ws/.zcode/plans/plan-s.md"));
    assert!(text.contains("# Plan\n1. step"));
    assert!(text.ends_with(
        "If this plan is relevant to the current work and not already complete, continue working on it."
    ));
}

// ---------------------------------------------------------------------------
// PLAN-4 / PLAN-5 reminders

#[test]
fn plan4_full_text_starts_with_contract_text_and_lays_out_the_phases() {
    assert!(PLAN_MODE_FULL.starts_with(
        "Plan mode is active. The user indicated that they do not want you to execute yet -- you MUST NOT make any edits, run any non-readonly tools (including changing configs or making commits), or otherwise make any changes to the system."
    ));
    for phase in [
        "Phase 1: Understand",
        "Phase 2: Design",
        "Phase 3: Review",
        "Phase 4: Finish",
    ] {
        assert!(PLAN_MODE_FULL.contains(phase), "{phase}");
    }
    assert!(PLAN_MODE_FULL.contains(
        "you may launch at most 3 explore sub-agents (subagent_type `explore`) in parallel"
    ));
    assert!(PLAN_MODE_FULL.contains("ask with AskUserQuestion"));
    assert!(PLAN_MODE_FULL.contains(
        "Your turn must end with either AskUserQuestion (to clarify something) or ExitPlanMode (to present the plan)."
    ));
    assert!(PLAN_MODE_SHORT.starts_with("Plan mode is still active"));
    assert!(PLAN_MODE_EXIT.starts_with("Plan mode has ended."));
    assert!(PLAN_MODE_EXIT.contains("make edits, run tools"));
    assert_eq!(PlanReminder::Full.text(), PLAN_MODE_FULL);
    assert_eq!(PlanReminder::Short.kind(), "runtime_mode");
}

/// Which user messages (1-based) got which reminder, for `n` messages with
/// two model requests after each (a tool call in between).
fn schedule(n: u32) -> Vec<(u32, PlanReminder)> {
    let mut state = PlanReminderState::default();
    let mut got = Vec::new();
    for message in 1..=n {
        state.on_real_user_message();
        for _request in 0..2 {
            if let Some(r) = state.before_request(true) {
                got.push((message, r));
            }
        }
    }
    got
}

#[test]
fn plan4_schedule_over_12_user_messages() {
    use PlanReminder::{Full, Short};
    assert_eq!(schedule(12), vec![(1, Full), (6, Short), (11, Short)]);
}

#[test]
fn plan4_every_fifth_injection_is_full_again() {
    use PlanReminder::{Full, Short};
    assert_eq!(
        schedule(31),
        vec![
            (1, Full),
            (6, Short),
            (11, Short),
            (16, Short),
            (21, Short),
            (26, Full),
            (31, Short)
        ]
    );
}

#[test]
fn plan5_exit_reminder_once_then_a_new_period_starts_full() {
    let mut s = PlanReminderState::default();
    s.on_real_user_message();
    assert_eq!(s.before_request(true), Some(PlanReminder::Full));
    s.on_real_user_message();
    assert_eq!(s.before_request(true), None);
    // Plan ends (approved ExitPlanMode): one exit reminder, then nothing.
    assert_eq!(s.before_request(false), Some(PlanReminder::Exit));
    assert_eq!(s.before_request(false), None);
    s.on_real_user_message();
    assert_eq!(s.before_request(false), None);
    // Plan again: the new period starts with the full text.
    assert_eq!(s.before_request(true), Some(PlanReminder::Full));
}

#[test]
fn plan5_no_exit_reminder_when_the_model_never_saw_plan_mode() {
    let mut s = PlanReminderState::default();
    for _ in 0..3 {
        s.on_real_user_message();
        assert_eq!(s.before_request(false), None);
    }
    assert_eq!(s, PlanReminderState::default());
}

#[test]
fn plan4_reset_starts_the_next_period_with_the_full_text() {
    let mut s = PlanReminderState::default();
    assert_eq!(s.next_reminder(), Some(PlanReminder::Full));
    for _ in 0..5 {
        s.on_real_user_message();
    }
    assert_eq!(s.next_reminder(), Some(PlanReminder::Short));
    s.reset();
    assert_eq!(s.next_reminder(), Some(PlanReminder::Full));
    assert_eq!(s.next_reminder(), None);
}
