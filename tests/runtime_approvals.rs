//! The approval flow of the running agent (APPR-*, GRANT-*, HOOK-2/3,
//! FULL-2), end to end in-process: the real HTTP providers against the fake
//! model server, the real tools in a temporary workspace, the real store,
//! and the test playing the front end.

#![cfg(unix)]

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::runtime_harness::{Dialect, Harness, Setup, read_pid_file, wait_file, wait_gone};
use zcode::permission::mode::{ExecutionState, Mode};
use zcode::permission::rules::{Rule, RuleKind};
use zcode::protocol::{
    AlwaysOption, Event, PermissionReply, PermissionRequest, ResolvedBy, TurnEnd,
};
use zcode::store::{InputStatus, entry_kind, full_access_receipt_id};

fn build(dialect: Dialect) -> Setup {
    Setup::new(dialect, Mode::Build)
}

fn yolo() -> Setup {
    Setup::new(Dialect::OpenAi, Mode::Yolo)
}

fn is_permission_requested(e: &Event) -> bool {
    matches!(e, Event::PermissionRequested { .. })
}

/// The `PermissionResolved` events of the log, as `(request_id, by)`.
fn resolutions(h: &Harness) -> Vec<(String, ResolvedBy)> {
    h.log
        .iter()
        .filter_map(|e| match e {
            Event::PermissionResolved { request_id, by } => Some((request_id.clone(), *by)),
            _ => None,
        })
        .collect()
}

/// The `ToolCallFinished` outputs of the log, as `(call_id, output, is_error)`.
fn finished_calls(h: &Harness) -> Vec<(String, String, bool)> {
    h.log
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallFinished {
                call_id,
                output,
                is_error,
                ..
            } => Some((call_id.clone(), output.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

fn denials(h: &Harness) -> Vec<zcode::protocol::Denial> {
    h.log
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallDenied { denial } => Some(denial.clone()),
            _ => None,
        })
        .collect()
}

/// Starts a turn whose model calls Bash `command` once and then answers
/// "done"; returns the permission request it raises.
async fn ask_bash(h: &mut Harness, call_id: &str, command: &str) -> PermissionRequest {
    h.enqueue_bash(call_id, command);
    h.enqueue_text("done");
    h.input(&format!("please run {command}"));
    h.permission_request().await
}

// ---- APPR-2 / APPR-6: the request and "Allow once" ------------------------

async fn appr2_allow_once_runs_the_tool(dialect: Dialect) {
    let mut h = build(dialect).start().await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;

    // APPR-2: what the front end is shown.
    assert!(
        request.request_id.starts_with("perm_"),
        "{}",
        request.request_id
    );
    assert!(
        uuid_like(&request.request_id["perm_".len()..]),
        "{}",
        request.request_id
    );
    assert_eq!(request.call_id, "call_1");
    assert_eq!(request.tool, "Bash");
    assert_eq!(request.input, json!({"command": "touch a.txt"}));
    assert!(!request.rule_id.is_empty() && !request.reason.is_empty());
    // BASH-7: a non-read-only program gets its prefix rule.
    assert_eq!(
        request.suggestions,
        vec![Rule::with_content("Bash", "touch:*")]
    );
    // APPR-6: the options offered.
    assert_eq!(request.always, AlwaysOption::Project);
    assert!(request.full_access_available);
    // Nothing runs before the answer.
    assert!(!h.exists("a.txt"));
    assert_eq!(h.server.request_count(), 1);

    h.reply(&request.request_id, PermissionReply::AllowOnce);
    let (end, answer) = h.turn_finished().await;
    assert_eq!(end, TurnEnd::Completed);
    assert_eq!(answer.as_deref(), Some("done"));

    assert!(h.exists("a.txt"), "Allow once must run the tool");
    assert_eq!(
        resolutions(&h),
        vec![(request.request_id.clone(), ResolvedBy::User)]
    );
    let finished = finished_calls(&h);
    assert_eq!(finished.len(), 1, "{}", h.log_text());
    let (call_id, output, is_error) = &finished[0];
    assert_eq!(call_id, "call_1");
    assert!(!is_error, "{output}");
    // The next request carries the tool's result.
    assert_eq!(h.server.request_count(), 2);
    let results = h.tool_results(1);
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].call_id, "call_1");
    assert_eq!(&results[0].content, output);
    if dialect == Dialect::Anthropic {
        assert_eq!(results[0].is_error, Some(false));
    }
    assert!(denials(&h).is_empty());
    h.shutdown().await;
}

fn uuid_like(s: &str) -> bool {
    s.len() == 36 && s.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr2_appr6_allow_once_openai() {
    appr2_allow_once_runs_the_tool(Dialect::OpenAi).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr2_appr6_allow_once_anthropic() {
    appr2_allow_once_runs_the_tool(Dialect::Anthropic).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr2_bash7_npm_run_build_suggests_its_prefix() {
    let mut h = build(Dialect::OpenAi).start().await;
    let request = ask_bash(&mut h, "call_1", "npm run build").await;
    assert_eq!(
        request.suggestions,
        vec![Rule::with_content("Bash", "npm run build:*")]
    );
    assert_eq!(request.always, AlwaysOption::Project);
    assert!(request.full_access_available);
    h.reply(
        &request.request_id,
        PermissionReply::Deny { feedback: None },
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    h.shutdown().await;
}

// ---- APPR-7: deny with feedback --------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr7_deny_with_feedback_reaches_the_model() {
    let mut h = build(Dialect::OpenAi).start().await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    h.reply(
        &request.request_id,
        PermissionReply::Deny {
            feedback: Some("  use the Write tool instead  ".into()),
        },
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);

    assert!(!h.exists("a.txt"), "a denied call must not run");
    assert!(finished_calls(&h).is_empty(), "{}", h.log_text());
    let denied = denials(&h);
    assert_eq!(denied.len(), 1, "{}", h.log_text());
    assert_eq!(denied[0].call_id, "call_1");
    assert_eq!(denied[0].tool, "Bash");
    assert_eq!(denied[0].input, json!({"command": "touch a.txt"}));
    assert_eq!(denied[0].rule_id, "approval.userDenied");
    assert_eq!(
        denied[0].reason,
        "Denied by the user: use the Write tool instead"
    );
    assert_eq!(
        resolutions(&h),
        vec![(request.request_id.clone(), ResolvedBy::User)]
    );

    let results = h.tool_results(1);
    assert_eq!(results.len(), 1, "{results:?}");
    let text = &results[0].content;
    assert_eq!(results[0].call_id, "call_1");
    assert!(text.contains("The tool was NOT executed"), "{text}");
    // The feedback says what to do instead: no "stop and wait" beside it.
    assert!(!text.contains("wait for the user's instructions"), "{text}");
    assert!(
        text.ends_with("follow it:\n\nuse the Write tool instead"),
        "{text}"
    );
    h.shutdown().await;
}

// ---- GRANT-1 / GRANT-2 -----------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grant1_always_allow_project_saves_the_rule_and_is_not_asked_again() {
    let mut h = build(Dialect::OpenAi).start().await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    assert!(h.project_rules(RuleKind::Allow).is_empty());
    h.reply(
        &request.request_id,
        PermissionReply::AlwaysAllowProject {
            rules: request.suggestions.clone(),
        },
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(h.exists("a.txt"));
    assert_eq!(
        resolutions(&h),
        vec![(request.request_id.clone(), ResolvedBy::User)]
    );
    // Saved for the project, in the store (local_setting).
    assert_eq!(
        h.project_rules(RuleKind::Allow),
        vec![Rule::with_content("Bash", "touch:*")]
    );
    assert!(h.project_rules(RuleKind::Ask).is_empty());
    assert!(h.project_rules(RuleKind::Deny).is_empty());

    // A later turn makes a call the rule covers: it runs unasked.
    std::fs::remove_file(h.path("a.txt")).unwrap();
    let mark = h.log.len();
    h.enqueue_bash("call_2", "touch a.txt");
    h.enqueue_text("again");
    h.input("once more");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(
        !h.since(mark).iter().any(is_permission_requested),
        "{}",
        h.log_text()
    );
    assert!(h.exists("a.txt"));
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grant1_always_allow_project_without_rules_saves_the_suggestions() {
    let mut h = build(Dialect::OpenAi).start().await;
    let request = ask_bash(&mut h, "call_1", "npm run build --if-present").await;
    h.reply(
        &request.request_id,
        PermissionReply::AlwaysAllowProject { rules: vec![] },
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert_eq!(h.project_rules(RuleKind::Allow), request.suggestions);
    assert_eq!(
        request.suggestions,
        vec![Rule::with_content("Bash", "npm run build:*")]
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr6_a_session_grant_is_refused_where_only_the_project_option_was_offered() {
    // Bash offers "Always allow in this project"; a reply choosing the
    // session option (APPR-6, GRANT-2) was not offered, so it is refused.
    let mut h = build(Dialect::OpenAi).start().await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    assert_eq!(request.always, zcode::protocol::AlwaysOption::Project);
    h.reply(&request.request_id, PermissionReply::AlwaysAllowSession);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(!h.exists("a.txt"), "the call must not run");
    let result = &h.tool_results(1)[0].content;
    assert!(result.contains("does not fit"), "{result}");
    for kind in RuleKind::ALL {
        assert!(h.project_rules(kind).is_empty(), "{kind:?}");
    }
    h.shutdown().await;
}

// ---- APPR-3 / HOOK-2: PermissionRequest hooks race the user ----------------

const HOOK_TIMEOUT_MS: u64 = 10_000;

/// A PermissionRequest hook that saves its stdin to `<script>.in` and then
/// runs `then`.
fn recording_hook(then: &str) -> String {
    format!("cat > \"$0.in.tmp\" && mv \"$0.in.tmp\" \"$0.in\"\n{then}")
}

fn hook_stdin(h: &Harness, script: &str) -> Value {
    let path = h.scripts.join(format!("{script}.in"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr3_hook2_hook_allow_runs_the_tool_without_the_user() {
    let mut h = build(Dialect::OpenAi)
        .permission_request(
            "Bash",
            "allow.sh",
            &recording_hook(r#"echo '{"decision":"allow"}'"#),
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    // The front end is shown the request, but never answers it.
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(h.exists("a.txt"), "the hook's allow must run the tool");
    assert_eq!(
        resolutions(&h),
        vec![(request.request_id.clone(), ResolvedBy::Hook)]
    );
    assert!(denials(&h).is_empty());
    assert_eq!(finished_calls(&h).len(), 1);
    // The hook's allow saves nothing by itself.
    assert!(h.project_rules(RuleKind::Allow).is_empty());

    // HOOK-2: what the hook read.
    let event = hook_stdin(&h, "allow.sh");
    assert_eq!(event["hookEventName"], "PermissionRequest");
    assert_eq!(event["sessionId"], h.session_id.as_str());
    assert_eq!(event["cwd"], h.workspace.to_string_lossy().as_ref());
    assert_eq!(event["toolName"], "Bash");
    assert_eq!(event["toolInput"], json!({"command": "touch a.txt"}));
    assert_eq!(event["toolUseId"], "call_1");
    assert_eq!(event["permissionDecision"]["behavior"], "ask");
    assert_eq!(
        event["permissionDecision"]["ruleId"],
        request.rule_id.as_str()
    );
    assert_eq!(
        event["suggestions"],
        json!([{"toolName": "Bash", "ruleContent": "touch:*"}])
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hook2_hook_allow_with_rules_saves_them_for_the_project() {
    let mut h = build(Dialect::OpenAi)
        .permission_request(
            "Bash",
            "allow_rules.sh",
            r#"cat >/dev/null; echo '{"decision":"allow","rules":[{"toolName":"Bash","ruleContent":"touch:*"}]}'"#,
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(h.exists("a.txt"));
    assert_eq!(
        resolutions(&h),
        vec![(request.request_id, ResolvedBy::Hook)]
    );
    assert_eq!(
        h.project_rules(RuleKind::Allow),
        vec![Rule::with_content("Bash", "touch:*")]
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr3_hook2_hook_deny_message_reaches_the_model() {
    let mut h = build(Dialect::OpenAi)
        .permission_request(
            "Bash",
            "deny.sh",
            r#"cat >/dev/null; echo '{"decision":"deny","message":"blocked by the policy hook"}'"#,
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(!h.exists("a.txt"), "a hook's deny must not run the tool");
    assert!(finished_calls(&h).is_empty());
    assert_eq!(
        resolutions(&h),
        vec![(request.request_id.clone(), ResolvedBy::Hook)]
    );
    let denied = denials(&h);
    assert_eq!(denied.len(), 1);
    assert_eq!(denied[0].rule_id, "hook.permissionRequest.deny");
    assert_eq!(denied[0].reason, "blocked by the policy hook");
    let results = h.tool_results(1);
    assert_eq!(results.len(), 1);
    assert!(
        results[0].content.contains("blocked by the policy hook"),
        "{results:?}"
    );
    assert!(results[0].content.contains("NOT executed"), "{results:?}");

    // The front end's late answer finds nothing to answer.
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    let notice = h
        .wait_for("Notice", |e| match e {
            Event::Notice { message } => Some(message.clone()),
            _ => None,
        })
        .await;
    assert!(notice.contains(&request.request_id), "{notice}");
    assert!(!h.exists("a.txt"));
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr3_hook2_hook_without_decision_withdraws_and_the_user_decides() {
    let mut h = build(Dialect::OpenAi)
        .permission_request("Bash", "silent.sh", &recording_hook(""), HOOK_TIMEOUT_MS)
        .start()
        .await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    // The hook has run and printed nothing: the request still waits.
    assert!(wait_file(&h.scripts.join("silent.sh.in"), Duration::from_secs(3)).await);
    h.expect_quiet(Duration::from_millis(300)).await;
    assert!(!h.exists("a.txt"));

    h.reply(&request.request_id, PermissionReply::AllowOnce);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(h.exists("a.txt"));
    assert_eq!(
        resolutions(&h),
        vec![(request.request_id.clone(), ResolvedBy::User)]
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr3_hook2_hook_timeout_withdraws_and_the_user_decides() {
    let mut h = build(Dialect::OpenAi)
        .permission_request(
            "Bash",
            "sleepy.sh",
            "echo $$ > \"$0.pid\"\nexec sleep 10",
            200,
        )
        .start()
        .await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    let pid = read_pid_file(&h.scripts.join("sleepy.sh.pid"), Duration::from_secs(3)).await;
    // Past the hook's timeout the request still waits for the user...
    h.expect_quiet(Duration::from_millis(600)).await;
    // ...and the timed-out hook was killed.
    assert!(
        wait_gone(pid, Duration::from_secs(2)).await,
        "hook {pid} survived its timeout"
    );

    h.reply(
        &request.request_id,
        PermissionReply::Deny {
            feedback: Some("not now".into()),
        },
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(!h.exists("a.txt"));
    assert_eq!(
        resolutions(&h),
        vec![(request.request_id.clone(), ResolvedBy::User)]
    );
    assert_eq!(denials(&h)[0].rule_id, "approval.userDenied");
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr3_user_answer_beats_a_slow_hook_at_once() {
    let mut h = build(Dialect::OpenAi)
        .permission_request(
            "Bash",
            "slow.sh",
            "echo $$ > \"$0.pid\"\nexec sleep 3600",
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    // The hook is running when the user answers.
    let pid = read_pid_file(&h.scripts.join("slow.sh.pid"), Duration::from_secs(3)).await;
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    let by = h
        .wait_for("PermissionResolved", |e| match e {
            Event::PermissionResolved { by, .. } => Some(*by),
            _ => None,
        })
        .await;
    assert_eq!(by, ResolvedBy::User);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(h.exists("a.txt"));
    // The losing hook is killed.
    assert!(
        wait_gone(pid, Duration::from_secs(2)).await,
        "the losing hook {pid} still runs"
    );
    h.shutdown().await;
}

// ---- APPR-8: a hook's updatedInput is checked again ------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr8_hook_rewrite_onto_a_project_deny_rule_is_denied() {
    let mut h = build(Dialect::OpenAi)
        .rule(
            RuleKind::Deny,
            Rule::with_content("Bash", "touch forbidden.txt"),
        )
        .permission_request(
            "Bash",
            "rewrite.sh",
            r#"cat >/dev/null; echo '{"decision":"allow","updatedInput":{"command":"touch forbidden.txt"}}'"#,
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(
        !h.exists("forbidden.txt"),
        "the rewritten call must not run"
    );
    assert!(!h.exists("a.txt"));
    assert!(finished_calls(&h).is_empty(), "{}", h.log_text());
    assert_eq!(
        resolutions(&h),
        vec![(request.request_id.clone(), ResolvedBy::Hook)]
    );
    let denied = denials(&h);
    assert_eq!(denied.len(), 1, "{}", h.log_text());
    assert_eq!(denied[0].rule_id, "rule.project.deny");
    assert!(
        denied[0].reason.contains("touch forbidden.txt"),
        "{:?}",
        denied[0]
    );
    let results = h.tool_results(1);
    assert!(results[0].content.contains("NOT executed"), "{results:?}");
    assert_eq!(h.count(is_permission_requested), 1);
    h.shutdown().await;
}

/// Model: Write notes.txt. Hook: allow, but write secret.txt instead, which
/// a project `ask` rule for Edit covers (RULE-2: Edit rules cover Write).
async fn start_write_rewritten_onto_ask_rule() -> (Harness, PermissionRequest) {
    let mut h = build(Dialect::OpenAi)
        .rule(RuleKind::Ask, Rule::with_content("Edit", "secret.txt"))
        .permission_request(
            "Write",
            "rewrite.sh",
            r#"cat >/dev/null; echo '{"decision":"allow","updatedInput":{"file_path":"secret.txt","content":"rewritten"}}'"#,
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    let args = json!({"file_path": "notes.txt", "content": "original"}).to_string();
    h.enqueue_tool_calls(&[("call_1", "Write", &args)]);
    h.enqueue_text("done");
    h.input("write the notes");
    let first = h.permission_request().await;
    assert_eq!(first.tool, "Write");
    assert_eq!(first.input["file_path"], "notes.txt");
    (h, first)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr8_hook_rewrite_onto_a_project_ask_rule_asks_the_user_again_with_the_same_id() {
    let (mut h, first) = start_write_rewritten_onto_ask_rule().await;
    // The hook approved, but its new input needs the user: asked again,
    // under the same request id, with the new input.
    let second = h.permission_request().await;
    assert_eq!(second.request_id, first.request_id);
    assert_eq!(second.call_id, "call_1");
    assert_eq!(second.tool, "Write");
    assert_eq!(second.input["file_path"], "secret.txt");
    assert_eq!(second.input["content"], "rewritten");
    assert_eq!(
        resolutions(&h),
        vec![(first.request_id.clone(), ResolvedBy::Hook)]
    );
    // Nothing is written while the user has not answered.
    h.expect_quiet(Duration::from_millis(300)).await;
    assert!(!h.exists("secret.txt") && !h.exists("notes.txt"));

    h.reply(&second.request_id, PermissionReply::AllowOnce);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert_eq!(
        std::fs::read_to_string(h.path("secret.txt")).unwrap(),
        "rewritten"
    );
    assert!(!h.exists("notes.txt"));
    assert_eq!(
        resolutions(&h),
        vec![
            (first.request_id.clone(), ResolvedBy::Hook),
            (first.request_id.clone(), ResolvedBy::User),
        ]
    );
    assert_eq!(h.count(is_permission_requested), 2);
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr8_second_request_describes_the_rewritten_input() {
    let (mut h, first) = start_write_rewritten_onto_ask_rule().await;
    let second = h.permission_request().await;
    assert_eq!(second.request_id, first.request_id);
    // The panel must show what will run: the diff of secret.txt...
    let preview = second.preview.clone().unwrap_or_default();
    assert!(
        preview.contains("secret.txt") && preview.contains("rewritten"),
        "second preview still shows the first input:\n{preview}"
    );
    // ...and "always allow" must offer a rule for the rewritten input.
    assert_eq!(
        second.suggestions,
        vec![Rule::with_content("Write", "secret.txt")]
    );
    // It is asked because of the project ask rule.
    assert_eq!(second.rule_id, "rule.project.ask");
    h.reply(&second.request_id, PermissionReply::Deny { feedback: None });
    h.turn_finished().await;
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr8_hook_plain_rewrite_runs_with_the_new_input() {
    let mut h = build(Dialect::OpenAi)
        .permission_request(
            "Bash",
            "rewrite.sh",
            r#"cat >/dev/null; echo '{"decision":"allow","updatedInput":{"command":"touch b.txt"}}'"#,
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(h.exists("b.txt"), "the rewritten command must run");
    assert!(!h.exists("a.txt"), "the original command must not run");
    assert_eq!(
        resolutions(&h),
        vec![(request.request_id.clone(), ResolvedBy::Hook)]
    );
    assert_eq!(h.count(is_permission_requested), 1);
    assert!(denials(&h).is_empty());
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr8_hook_rewrite_to_an_invalid_input_is_denied() {
    let mut h = build(Dialect::OpenAi)
        .permission_request(
            "Bash",
            "rewrite.sh",
            r#"cat >/dev/null; echo '{"decision":"allow","updatedInput":{"command":""}}'"#,
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    ask_bash(&mut h, "call_1", "touch a.txt").await;
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(!h.exists("a.txt"));
    let denied = denials(&h);
    assert_eq!(denied.len(), 1, "{}", h.log_text());
    assert_eq!(denied[0].rule_id, "hook.permissionRequest.invalidInput");
    h.shutdown().await;
}

// ---- HOOK-3: PreToolUse ----------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hook3_pre_tool_use_rewrite_is_what_the_permission_check_sees() {
    // Only the rewritten command is allowed by a project rule.
    let mut h = build(Dialect::OpenAi)
        .rule(RuleKind::Allow, Rule::with_content("Bash", "touch b.txt"))
        .pre_tool_use(
            "Bash",
            "pre.sh",
            &recording_hook(r#"echo '{"updatedInput":{"command":"touch b.txt"}}'"#),
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    h.enqueue_bash("call_1", "touch a.txt");
    h.enqueue_text("done");
    h.input("make a file");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert_eq!(
        h.count(is_permission_requested),
        0,
        "the rewritten call is allowed by the project rule:\n{}",
        h.log_text()
    );
    assert!(h.exists("b.txt"), "the tool must run the rewritten input");
    assert!(!h.exists("a.txt"));
    let event = hook_stdin(&h, "pre.sh");
    assert_eq!(event["hookEventName"], "PreToolUse");
    assert_eq!(event["toolInput"], json!({"command": "touch a.txt"}));
    assert_eq!(event["toolUseId"], "call_1");
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hook3_pre_tool_use_rewrite_is_what_the_user_is_asked_about() {
    let mut h = build(Dialect::OpenAi)
        .pre_tool_use(
            "Bash",
            "pre.sh",
            r#"cat >/dev/null; echo '{"updatedInput":{"command":"mkdir made"}}'"#,
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    assert_eq!(request.input, json!({"command": "mkdir made"}));
    assert_eq!(
        request.suggestions,
        vec![Rule::with_content("Bash", "mkdir:*")]
    );
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(h.path("made").is_dir());
    assert!(!h.exists("a.txt"));
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hook3_pre_tool_use_ask_turns_a_yolo_allow_into_an_ask() {
    let mut h = yolo()
        .pre_tool_use(
            "Bash",
            "ask.sh",
            r#"cat >/dev/null; echo '{"decision":"ask"}'"#,
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    assert_eq!(request.rule_id, "hook.preToolUse.ask");
    h.expect_quiet(Duration::from_millis(200)).await;
    assert!(!h.exists("a.txt"));
    h.reply(&request.request_id, PermissionReply::AllowOnce);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(h.exists("a.txt"));
    assert_eq!(
        resolutions(&h),
        vec![(request.request_id, ResolvedBy::User)]
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hook3_pre_tool_use_deny_denies_in_yolo() {
    let mut h = yolo()
        .pre_tool_use(
            "Bash",
            "deny.sh",
            r#"cat >/dev/null; echo '{"decision":"deny","reason":"no touching today"}'"#,
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    h.enqueue_bash("call_1", "touch a.txt");
    h.enqueue_text("ok");
    h.input("make a file");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(!h.exists("a.txt"));
    assert_eq!(h.count(is_permission_requested), 0);
    let denied = denials(&h);
    assert_eq!(denied.len(), 1, "{}", h.log_text());
    assert_eq!(denied[0].rule_id, "hook.preToolUse.deny");
    assert_eq!(denied[0].reason, "no touching today");
    let results = h.tool_results(1);
    assert!(
        results[0].content.contains("no touching today")
            && results[0].content.contains("NOT executed"),
        "{results:?}"
    );
    h.shutdown().await;
}

// ---- FULL-2: Full access with queued inputs --------------------------------

fn input_queued_ids(h: &Harness) -> Vec<(String, String)> {
    h.log
        .iter()
        .filter_map(|e| match e {
            Event::InputQueued { id, text } => Some((id.clone(), text.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full2_full_access_switches_the_session_and_its_queued_inputs_to_yolo() {
    let mut h = build(Dialect::Anthropic).start().await;
    // Turn 1 asks; its closing reply comes a little late so that the
    // queued inputs are still waiting when they are checked.
    h.enqueue_bash("call_1", "touch a.txt");
    h.server.enqueue(
        support::fake_model_server::Reply::sse_chunks(Vec::<String>::new())
            .delay(Duration::from_millis(300))
            .chunk(h.text_body("one done")),
    );
    // Turns 2 and 3, from the queue.
    h.enqueue_bash("call_2", "touch b.txt");
    h.enqueue_text("two done");
    h.enqueue_bash("call_3", "touch c.txt");
    h.enqueue_text("three done");

    h.input("one");
    let request = h.permission_request().await;
    h.input("two");
    h.input("three");
    let mut queued = Vec::new();
    while queued.len() < 2 {
        queued.push(
            h.wait_for("InputQueued", |e| match e {
                Event::InputQueued { id, text } => Some((id.clone(), text.clone())),
                _ => None,
            })
            .await,
        );
    }
    assert_eq!(queued[0].1, "two");
    assert_eq!(queued[1].1, "three");
    let ids: Vec<String> = queued.iter().map(|(id, _)| id.clone()).collect();
    // RUN-3: persisted with the mode they were typed in.
    {
        let store = h.store();
        for id in &ids {
            let input = store
                .queued_input(id)
                .unwrap()
                .expect("queued input stored");
            assert_eq!(input.intent_mode(), Some("build"), "{input:?}");
            assert_eq!(input.status, InputStatus::Queued);
        }
    }

    h.reply(&request.request_id, PermissionReply::FullAccess);
    let state = h
        .wait_for("SessionModeChanged", |e| match e {
            Event::SessionModeChanged { state } => Some(*state),
            _ => None,
        })
        .await;
    assert_eq!(state, ExecutionState::new(Mode::Yolo, false));
    {
        let store = h.store();
        // The queued inputs follow the session into yolo.
        for id in &ids {
            let input = store.queued_input(id).unwrap().unwrap();
            assert_eq!(input.intent_mode(), Some("yolo"), "{input:?}");
        }
        // The receipt of this request lists them.
        let receipt_id = full_access_receipt_id(&h.session_id, &request.request_id);
        let entries = store.entries(&h.session_id).unwrap();
        let receipt = entries
            .iter()
            .find(|e| e.id == receipt_id)
            .unwrap_or_else(|| panic!("no receipt {receipt_id} in {entries:#?}"));
        assert_eq!(receipt.kind, entry_kind::PERMISSION_FULL_ACCESS);
        assert_eq!(receipt.payload["requestId"], request.request_id.as_str());
        assert_eq!(receipt.payload["queueItemIds"], json!(ids));
        assert_eq!(receipt.payload["state"]["mode"], "yolo");
        let session = store.get_session(&h.session_id).unwrap().unwrap();
        assert_eq!(session.execution, ExecutionState::new(Mode::Yolo, false));
    }

    // Turn 1 goes on with this call allowed; the queued turns follow in
    // order and nothing is asked any more.
    let mut ends = Vec::new();
    while ends.len() < 3 {
        ends.push(h.turn_finished().await);
    }
    assert_eq!(
        ends,
        vec![
            (TurnEnd::Completed, Some("one done".to_string())),
            (TurnEnd::Completed, Some("two done".to_string())),
            (TurnEnd::Completed, Some("three done".to_string())),
        ]
    );
    let started: Vec<String> = h
        .log
        .iter()
        .filter_map(|e| match e {
            Event::TurnStarted { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(started, ["one", "two", "three"]);
    assert_eq!(h.count(is_permission_requested), 1, "{}", h.log_text());
    assert_eq!(
        resolutions(&h),
        vec![(request.request_id.clone(), ResolvedBy::User)]
    );
    assert!(h.exists("a.txt") && h.exists("b.txt") && h.exists("c.txt"));
    assert!(denials(&h).is_empty());
    for id in &ids {
        h.wait_input_status(id, InputStatus::Done).await;
    }
    assert_eq!(input_queued_ids(&h).len(), 2);
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full2_full_access_keeps_the_plan_flag() {
    // In plan mode a project ask rule still asks (PERM-7 comes first).
    let mut h = build(Dialect::OpenAi)
        .plan()
        .rule(RuleKind::Ask, Rule::with_content("Bash", "touch:*"))
        .start()
        .await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    assert_eq!(request.rule_id, "rule.project.ask");
    assert!(request.full_access_available);
    h.reply(&request.request_id, PermissionReply::FullAccess);
    let state = h
        .wait_for("SessionModeChanged", |e| match e {
            Event::SessionModeChanged { state } => Some(*state),
            _ => None,
        })
        .await;
    assert_eq!(state, ExecutionState::new(Mode::Yolo, true));
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(h.exists("a.txt"), "Full access allows the call it answered");
    let session = h.store().get_session(&h.session_id).unwrap().unwrap();
    assert_eq!(session.execution, ExecutionState::new(Mode::Yolo, true));
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full2_full_access_does_not_lift_a_deny_rule() {
    // Full access switches to yolo; a deny rule holds there (PERM-4).
    let mut h = build(Dialect::OpenAi)
        .rule(RuleKind::Deny, Rule::with_content("Bash", "rm:*"))
        .start()
        .await;
    std::fs::write(h.path("victim"), "keep").unwrap();
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    h.reply(&request.request_id, PermissionReply::FullAccess);
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(h.exists("a.txt"));
    h.enqueue_bash("call_2", "rm -f victim");
    h.enqueue_text("done");
    h.input("now remove it");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(h.exists("victim"), "{}", h.log_text());
    let denied = denials(&h);
    assert_eq!(denied.len(), 1, "{denied:?}");
    assert!(denied[0].reason.contains("rm:*"), "{denied:?}");
    let session = h.store().get_session(&h.session_id).unwrap().unwrap();
    assert_eq!(session.execution, ExecutionState::new(Mode::Yolo, false));
    h.shutdown().await;
}

// ---- APPR-3: Full access against the hooks ---------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr3_full2_full_access_claims_the_race_and_kills_the_hook() {
    let mut h = build(Dialect::OpenAi)
        .permission_request(
            "Bash",
            "slow.sh",
            "echo $$ > \"$0.pid\"\nexec sleep 3600",
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    let pid = read_pid_file(&h.scripts.join("slow.sh.pid"), Duration::from_secs(3)).await;
    h.reply(&request.request_id, PermissionReply::FullAccess);
    let state = h
        .wait_for("SessionModeChanged", |e| match e {
            Event::SessionModeChanged { state } => Some(*state),
            _ => None,
        })
        .await;
    assert_eq!(state, ExecutionState::new(Mode::Yolo, false));
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(h.exists("a.txt"));
    assert_eq!(
        resolutions(&h),
        vec![(request.request_id.clone(), ResolvedBy::User)]
    );
    assert!(
        wait_gone(pid, Duration::from_secs(2)).await,
        "the hook {pid} outlived the user's Full access"
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appr3_full_access_after_a_hook_won_changes_nothing() {
    let mut h = build(Dialect::OpenAi)
        .permission_request(
            "Bash",
            "allow.sh",
            r#"cat >/dev/null; echo '{"decision":"allow"}'"#,
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    let request = ask_bash(&mut h, "call_1", "touch a.txt").await;
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    // The panel's answer comes after the hook's: refused, no side effect.
    h.reply(&request.request_id, PermissionReply::FullAccess);
    h.wait_for("Notice", |e| {
        matches!(e, Event::Notice { .. }).then_some(())
    })
    .await;
    h.expect_quiet(Duration::from_millis(200)).await;
    assert!(
        !h.log
            .iter()
            .any(|e| matches!(e, Event::SessionModeChanged { .. })),
        "{}",
        h.log_text()
    );
    let store = h.store();
    let session = store.get_session(&h.session_id).unwrap().unwrap();
    assert_eq!(session.execution, ExecutionState::new(Mode::Build, false));
    let receipt_id = full_access_receipt_id(&h.session_id, &request.request_id);
    assert!(!store.entry_exists(&receipt_id).unwrap());
    drop(store);
    h.shutdown().await;
}

/// PERM-10: a PermissionRequest hook's allow does not lift the question
/// about a file that makes tools run programs; only the user answers it,
/// and the hook is not even consulted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perm10_a_permission_request_hook_cannot_allow_a_protected_write() {
    let mut h = build(Dialect::OpenAi)
        .permission_request(
            "Write",
            "allow_all.sh",
            &recording_hook(r#"echo '{"decision":"allow"}'"#),
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    std::fs::create_dir_all(h.workspace.join("docs")).unwrap();
    let args = json!({"file_path": "docs/../.git/config", "content": "[core]\n\tfsmonitor = touch pwned\n"})
        .to_string();
    h.enqueue_tool_calls(&[("call_1", "Write", &args)]);
    h.enqueue_text("done");
    h.input("configure git");
    let request = h.permission_request().await;
    assert_eq!(request.rule_id, "edit.protectedPath");
    h.reply(
        &request.request_id,
        PermissionReply::Deny { feedback: None },
    );
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(!h.exists(".git/config"), "the protected file was written");
    assert_eq!(
        resolutions(&h),
        vec![(request.request_id.clone(), ResolvedBy::User)]
    );
    assert!(
        !h.scripts.join("allow_all.sh.in").exists(),
        "the hook was consulted about a protected write"
    );
    h.shutdown().await;
}

/// PERM-10: a PermissionRequest hook that allows a harmless Write but
/// rewrites its input onto a protected file does not get it written: the
/// user is asked again about the input that would now run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perm10_a_hook_rewrite_onto_a_protected_file_asks_the_user_again() {
    let mut h = build(Dialect::OpenAi)
        .permission_request(
            "Write",
            "rewrite_protected.sh",
            r#"cat >/dev/null; echo '{"decision":"allow","updatedInput":{"file_path":".git/config","content":"[core] fsmonitor = x"}}'"#,
            HOOK_TIMEOUT_MS,
        )
        .start()
        .await;
    let args = json!({"file_path": "notes.txt", "content": "original"}).to_string();
    h.enqueue_tool_calls(&[("call_1", "Write", &args)]);
    h.enqueue_text("done");
    h.input("write the notes");
    let first = h.permission_request().await;
    assert_eq!(first.input["file_path"], "notes.txt");
    let second = h.permission_request().await;
    assert_eq!(second.request_id, first.request_id);
    assert_eq!(second.input["file_path"], ".git/config");
    h.reply(&second.request_id, PermissionReply::Deny { feedback: None });
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert!(!h.exists(".git/config"), "the hook's rewrite was written");
    h.shutdown().await;
}
