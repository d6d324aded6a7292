//! A second real ACP client end to end, one that speaks form elicitation:
//! the official Python SDK (`agent-client-protocol`), pinned with its
//! dependencies in tests/acp-python/requirements.txt and installed into
//! tests/acp-python/.venv (by `.ci/run`, or here when it is missing or
//! holds another version). tests/acp-python/client.py runs the real
//! `zcode acp` against the fake model server, answers zcode's forms and
//! permission requests from a script, and prints what it read.
//!
//! The SDK validates every message with its own pydantic schema, written
//! by people who did not write zcode: each test also checks that it read
//! every message zcode sent without rejecting, dropping or replacing
//! anything (`schema_problems`), so a form the client cannot render shows
//! here, not in an editor.

#![cfg(unix)]

mod support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;
use support::acp_client::{acp_setup, last_user_texts, text_reply, tool_reply, two_questions};
use support::fake_model_server::{FakeModelServer, Reply, openai_tool_result, sse};
use support::headless::{Harness, Run};

/// Bounds one whole client run; the client's own bound (`--timeout`) is
/// shorter, so a hang shows as its summary with the error first.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(90);
const CLIENT_OWN_TIMEOUT_SECS: &str = "60";

fn python_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/acp-python")
}

/// The version of `package` pinned in requirements.txt.
fn pinned(package: &str) -> String {
    let text = std::fs::read_to_string(python_dir().join("requirements.txt"))
        .expect("tests/acp-python/requirements.txt is readable");
    text.lines()
        .filter_map(|l| l.split_once("=="))
        .find(|(name, _)| name.trim() == package)
        .map(|(_, version)| version.trim().to_string())
        .unwrap_or_else(|| panic!("{package} is pinned in requirements.txt"))
}

/// The SDK version installed in `python`'s environment, if any.
fn installed_sdk(python: &Path) -> Option<String> {
    let out = std::process::Command::new(python)
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('agent-client-protocol'))",
        ])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The Python of the client's environment; creates it and installs the
/// pinned packages the first time (or when it holds another version).
fn python() -> PathBuf {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let dir = python_dir();
            let venv = dir.join(".venv");
            let python = venv.join("bin/python");
            let pin = pinned("agent-client-protocol");
            if installed_sdk(&python).as_deref() != Some(pin.as_str()) {
                let status = std::process::Command::new("python3")
                    .args(["-m", "venv"])
                    .arg(&venv)
                    .status()
                    .expect(
                        "python3 runs (Python 3.10 or later with venv is needed for this test)",
                    );
                assert!(
                    status.success(),
                    "python3 -m venv {} succeeds",
                    venv.display()
                );
                let status = std::process::Command::new(venv.join("bin/pip"))
                    .args([
                        "install",
                        "--quiet",
                        "--disable-pip-version-check",
                        "--no-deps",
                        "--only-binary=:all:",
                        "-r",
                    ])
                    .arg(dir.join("requirements.txt"))
                    .status()
                    .expect("pip runs in the new environment");
                assert!(status.success(), "pip install -r requirements.txt succeeds");
            }
            assert_eq!(
                installed_sdk(&python).as_deref(),
                Some(pin.as_str()),
                "the pinned SDK is installed in {}",
                venv.display()
            );
            python
        })
        .clone()
}

/// A project whose sessions start in build mode (a Write is asked), with
/// the fake model server as the model; ASK-7's clock is off so no answer
/// races a timer.
async fn setup() -> (Harness, FakeModelServer) {
    setup_with_acp(json!({"autoContinue": {"enabled": false}})).await
}

/// As [`setup`], with this config `acp` section.
async fn setup_with_acp(acp: Value) -> (Harness, FakeModelServer) {
    acp_setup(json!({"permission": {"mode": "build"}, "acp": acp})).await
}

/// The project as zcode sees it (no symlinks), so paths compare.
fn project(h: &Harness) -> PathBuf {
    std::fs::canonicalize(h.project()).unwrap()
}

/// What one client run printed, and the run itself for messages.
struct Outcome {
    summary: Value,
    run: Run,
}

/// Runs the client with `script` (its `cwd` is the project).
async fn client(h: &Harness, script: Value) -> Outcome {
    let mut script = script;
    script["cwd"] = json!(project(h));
    let script_path = h.home().join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let mut cmd = h.process(python());
    cmd.current_dir(project(h))
        .arg(python_dir().join("client.py"))
        .arg("--zcode")
        .arg(env!("CARGO_BIN_EXE_zcode"))
        .arg("--script")
        .arg(&script_path)
        .args(["--timeout", CLIENT_OWN_TIMEOUT_SECS]);
    let out = tokio::time::timeout(CLIENT_TIMEOUT, cmd.output())
        .await
        .unwrap_or_else(|_| panic!("the Python client did not finish in {CLIENT_TIMEOUT:?}"))
        .expect("the Python client runs");
    let run = Run::from(out);
    let summary = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("the client's summary is JSON ({e}):\n{run}"));
    Outcome { summary, run }
}

impl Outcome {
    /// The run went through, one turn ended normally, every request had a
    /// scripted answer, and the SDK read everything zcode sent as it was.
    fn assert_clean(&self) {
        self.assert_clean_with_stops(json!(["end_turn"]));
    }

    /// As [`Outcome::assert_clean`], for a run whose turns end so.
    fn assert_clean_with_stops(&self, stops: Value) {
        let s = &self.summary;
        assert_eq!(self.run.code, Some(0), "{:#}\n{}", s, self.run.stderr);
        assert!(s.get("error").is_none(), "{:#}\n{}", s, self.run.stderr);
        assert_eq!(
            s["schema_problems"],
            json!([]),
            "{:#}",
            s["schema_problems"]
        );
        assert_eq!(s["client_errors"], json!([]), "{:#}", s["client_errors"]);
        assert_eq!(s["unscripted"], 0, "{s:#}");
        assert_eq!(s["stop_reasons"], stops, "{s:#}");
        assert_eq!(s["exit_code"], 0, "zcode exits when the client goes: {s:#}");
    }

    fn session_id(&self) -> &str {
        self.summary["session_id"].as_str().expect("a session id")
    }

    /// The one form zcode sent, as the SDK read it.
    fn only_form(&self) -> &Value {
        let forms = self.summary["elicitations"]
            .as_array()
            .expect("elicitations");
        assert_eq!(forms.len(), 1, "{:#}", self.summary);
        let form = &forms[0];
        // A form scoped to the session, which the SDK knows as such.
        assert_eq!(form["mode"], "ElicitationFormSessionMode", "{form:#}");
        assert_eq!(form["sessionId"], self.session_id(), "{form:#}");
        form
    }

    /// The status updates of tool call `id`, in order.
    fn tool_statuses(&self, id: &str) -> Vec<String> {
        self.summary["updates"]
            .as_array()
            .expect("updates")
            .iter()
            .filter(|u| u["toolCallId"] == id)
            .filter_map(|u| u["status"].as_str().map(str::to_string))
            .collect()
    }
}

/// The tool result the model read for `call_id` in the last request.
fn last_result(server: &FakeModelServer, call_id: &str) -> String {
    let requests = server.requests();
    openai_tool_result(&requests.last().expect("a model request").json(), call_id)
}

// ------------------------------------------------------------ questions

/// The model asks (call `q1`), then closes with a text.
fn script_question(server: &FakeModelServer, questions: &str) {
    server.enqueue_all([
        tool_reply("q1", "AskUserQuestion", questions),
        text_reply("Thanks."),
    ]);
}

/// A client with forms that prompts "set up the project" and gives the
/// question form of the scripted questions this `answer`.
async fn answer_question_form(h: &Harness, answer: Value) -> Outcome {
    client(
        h,
        json!({
            "forms": true,
            "prompts": ["set up the project"],
            "elicitations": [answer],
        }),
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_reads_the_question_form_and_its_answers_reach_the_model() {
    let (h, server) = setup().await;
    script_question(&server, &two_questions());
    let out = answer_question_form(
        &h,
        json!({"action": "accept", "content":
            {"q1": "Rust", "q2": ["Tests", "Docs"], "q2_other": "A changelog"}}),
    )
    .await;
    out.assert_clean();

    // The form as the SDK read it: scoped to the question's tool call, a
    // titled single choice, a titled multiple choice, an Other text each,
    // nothing required (a question may be skipped).
    let form = out.only_form();
    assert_eq!(form["toolCallId"], "q1", "{form:#}");
    assert_eq!(
        form["message"], "2 questions; answer what you can, a question left empty is skipped.",
        "{form:#}"
    );
    let schema = &form["requestedSchema"];
    assert_eq!(schema["type"], "object", "{schema:#}");
    assert!(schema.get("required").is_none(), "{schema:#}");
    let props = &schema["properties"];
    assert_eq!(
        props["q1"],
        json!({"type": "string", "title": "Language", "description": "Which language?",
               "oneOf": [{"const": "Rust", "title": "Rust", "description": "Compiled, no GC"},
                         {"const": "Go", "title": "Go", "description": "Compiled, GC"}]}),
        "{props:#}"
    );
    assert_eq!(props["q2"]["type"], "array", "{props:#}");
    assert_eq!(props["q2"]["title"], "Extras", "{props:#}");
    assert_eq!(props["q2"]["description"], "What to add?", "{props:#}");
    let items: Vec<&str> = props["q2"]["items"]["anyOf"]
        .as_array()
        .unwrap_or_else(|| panic!("titled items: {props:#}"))
        .iter()
        .filter_map(|o| o["const"].as_str())
        .collect();
    assert_eq!(items, ["Tests", "Docs", "CI"], "{props:#}");
    for other in ["q1_other", "q2_other"] {
        assert_eq!(props[other]["type"], "string", "{props:#}");
        assert_eq!(props[other]["title"], "Other answer", "{props:#}");
        assert_eq!(props[other]["maxLength"], 4000, "{props:#}");
    }
    assert_eq!(props.as_object().map(|p| p.len()), Some(4), "{props:#}");

    // The answers reached the model, keyed by question text.
    assert_eq!(server.request_count(), 2);
    let result = last_result(&server, "q1");
    assert!(
        result.starts_with("User has answered your questions: "),
        "{result}"
    );
    assert!(result.contains(r#""Which language?"="Rust""#), "{result}");
    assert!(
        result.contains(r#""What to add?"="Tests, Docs, A changelog""#),
        "{result}"
    );
    assert_eq!(
        out.tool_statuses("q1").last().map(String::as_str),
        Some("completed")
    );
    assert!(
        out.summary["permissions"] == json!([]),
        "a form, not a permission request"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_declines_a_question_and_the_model_reads_it_was_not_answered() {
    let (h, server) = setup().await;
    let one = json!({"questions": [
        {"question": "Which language?", "header": "Language", "multiSelect": false,
         "options": [{"label": "Rust", "description": "Compiled"},
                     {"label": "Go", "description": "Garbage collected"}]},
    ]})
    .to_string();
    script_question(&server, &one);
    let out = answer_question_form(&h, json!({"action": "decline"})).await;
    out.assert_clean();
    let form = out.only_form();
    // One question: its text is the message.
    assert_eq!(form["message"], "Which language?", "{form:#}");
    assert_eq!(form["toolCallId"], "q1", "{form:#}");

    // Declined is the questionnaire rejected (Esc in the TUI), not "none
    // answered".
    assert_eq!(server.request_count(), 2);
    let result = last_result(&server, "q1");
    assert!(result.contains("NOT executed"), "{result}");
    assert!(
        !result.contains("The user did not answer any of your questions"),
        "{result}"
    );
    assert_eq!(
        out.tool_statuses("q1").last().map(String::as_str),
        Some("failed")
    );
}

// ------------------------------------------------------------ plan review

const PLAN: &str = "1. Add a parser.\n2. Test it.";

/// The model presents the plan (call `p1`), then closes with a text.
fn script_plan(server: &FakeModelServer) {
    let args = json!({"plan": PLAN}).to_string();
    server.enqueue_all([
        tool_reply("p1", "ExitPlanMode", &args),
        text_reply("Going on."),
    ]);
}

fn plan_file(h: &Harness, session: &str) -> PathBuf {
    project(h)
        .join(".zcode")
        .join("plans")
        .join(format!("plan-{session}.md"))
}

/// The plan review form as the SDK read it: the plan in the message, a
/// titled choice between Approve and Request changes, a feedback text.
fn assert_plan_review_form(form: &Value) {
    assert_eq!(
        form["message"],
        format!("Review this implementation plan.\n\n{PLAN}"),
        "{form:#}"
    );
    assert_eq!(form["toolCallId"], "p1", "{form:#}");
    let props = &form["requestedSchema"]["properties"];
    assert_eq!(
        props["decision"]["oneOf"],
        json!([{"const": "approve", "title": "Approve"},
               {"const": "revise", "title": "Request changes"}]),
        "{props:#}"
    );
    assert_eq!(props["decision"]["type"], "string", "{props:#}");
    assert_eq!(props["feedback"]["type"], "string", "{props:#}");
    assert_eq!(
        props["feedback"]["title"], "What should change?",
        "{props:#}"
    );
}

/// A plan-mode prompt "plan a parser" whose model presents [`PLAN`]
/// (`p1`), run by a client with or without forms that gives `answers`
/// (the script's `elicitations` or `permissions`).
async fn plan_review(forms: bool, answers: Value) -> (Harness, FakeModelServer, Outcome) {
    let (h, server) = setup().await;
    script_plan(&server);
    let mut script = json!({"forms": forms, "mode": "plan", "prompts": ["plan a parser"]});
    if let (Some(script), Some(answers)) = (script.as_object_mut(), answers.as_object()) {
        script.extend(answers.clone());
    }
    let out = client(&h, script).await;
    (h, server, out)
}

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_approves_the_plan_review_and_the_plan_file_is_written() {
    let (h, server, out) = plan_review(
        true,
        json!({"elicitations": [{"action": "accept", "content": {"decision": "approve"}}]}),
    )
    .await;
    out.assert_clean();
    assert_plan_review_form(out.only_form());
    assert_eq!(
        out.summary["permissions"],
        json!([]),
        "a form, not a permission request"
    );

    // PLAN-7: written under .zcode/plans, the model reads the approved
    // plan, and the session leaves plan mode for the mode underneath.
    assert_eq!(
        std::fs::read_to_string(plan_file(&h, out.session_id())).unwrap_or_default(),
        PLAN
    );
    assert_eq!(server.request_count(), 2);
    let result = last_result(&server, "p1");
    assert!(result.contains("## Approved Plan:"), "{result}");
    assert!(result.contains(PLAN), "{result}");
    assert!(
        out.summary["updates"]
            .as_array()
            .expect("updates")
            .iter()
            .any(|u| u["sessionUpdate"] == "current_mode_update" && u["currentModeId"] == "build"),
        "back to build: {:#}",
        out.summary["updates"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_sends_plan_feedback_and_the_model_reads_it_as_a_user_message() {
    let feedback = "Add error handling first.";
    let (h, server, out) = plan_review(
        true,
        json!({"elicitations": [{"action": "accept", "content":
            {"decision": "revise", "feedback": feedback}}]}),
    )
    .await;
    out.assert_clean();
    assert_plan_review_form(out.only_form());

    // PLAN-8: not approved, the feedback is the user's next message, plan
    // mode stays on and no plan file is written.
    assert_eq!(server.request_count(), 2);
    let result = last_result(&server, "p1");
    assert!(
        result.contains("The plan was not approved by the user."),
        "{result}"
    );
    let users = last_user_texts(&server);
    assert!(
        users.iter().any(|u| u.contains(feedback)),
        "the feedback is a user message: {users:?}"
    );
    assert!(!plan_file(&h, out.session_id()).exists());
    assert!(h.sessions()[0].execution.plan_enabled);
}

// ------------------------------------------------------------ deny feedback

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_denies_a_write_and_what_it_should_do_instead_reaches_the_model() {
    let (h, server) = setup().await;
    let file = project(&h).join("x.txt");
    let args = json!({"file_path": file, "content": "x"}).to_string();
    server.enqueue_all([tool_reply("w1", "Write", &args), text_reply("Understood.")]);
    let instead = "write it to y.txt instead";
    let out = client(
        &h,
        json!({
            "forms": true,
            "prompts": ["write x"],
            "permissions": ["deny"],
            "elicitations": [{"action": "accept", "content": {"instead": instead}}],
        }),
    )
    .await;
    out.assert_clean();

    // The permission request as the SDK read it, answered by option id.
    let asks = out.summary["permissions"].as_array().expect("permissions");
    assert_eq!(asks.len(), 1, "{:#}", out.summary);
    assert_eq!(asks[0]["toolCall"]["toolCallId"], "w1", "{:#}", asks[0]);
    let options: Vec<(&str, &str)> = asks[0]["options"]
        .as_array()
        .expect("options")
        .iter()
        .map(|o| (o["optionId"].as_str().unwrap(), o["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        options.first(),
        Some(&("allow_once", "allow_once")),
        "{options:?}"
    );
    assert_eq!(
        options.last(),
        Some(&("deny", "reject_once")),
        "{options:?}"
    );

    // Then the optional "What should it do instead?" form (APPR-7).
    let form = out.only_form();
    assert_eq!(form["toolCallId"], "w1", "{form:#}");
    assert!(
        form["message"]
            .as_str()
            .is_some_and(|m| m.ends_with("What should it do instead?")),
        "{form:#}"
    );
    let schema = &form["requestedSchema"];
    assert!(schema.get("required").is_none(), "optional: {schema:#}");
    assert_eq!(
        schema["properties"]["instead"]["type"], "string",
        "{schema:#}"
    );

    // Nothing written; the model reads the deny with the user's text.
    assert!(!file.exists());
    assert_eq!(server.request_count(), 2);
    let result = last_result(&server, "w1");
    assert!(result.contains(instead), "{result}");
    assert_eq!(
        out.tool_statuses("w1").last().map(String::as_str),
        Some("failed")
    );
}

// ------------------------------------------------------------ ASK-7

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_question_nobody_answers_is_withdrawn_and_continues_on_its_own_ask7() {
    // The countdown at once, the question continued after a second; the
    // client holds the form until zcode withdraws it (or the turn ends).
    let (h, server) = setup_with_acp(
        json!({"autoContinue": {"enabled": true, "graceMs": 0, "deadlineMs": 1000}}),
    )
    .await;
    script_question(&server, &two_questions());
    let out = answer_question_form(&h, json!({"action": "hold"})).await;
    out.assert_clean();
    let form = out.only_form();
    assert_eq!(
        form["withdrawn"], true,
        "zcode withdrew the form ($/cancel_request) before the turn ended: {form:#}"
    );

    // The countdown as the SDK read it: content for clients that show
    // only that, and the deadline in `_meta` for those that count down.
    let updates = out.summary["updates"].as_array().expect("updates");
    let countdown = updates
        .iter()
        .find(|u| u["toolCallId"] == "q1" && !u["_meta"]["zcode"]["autoContinue"].is_null())
        .unwrap_or_else(|| panic!("a countdown update: {updates:#?}"));
    let deadline = &countdown["_meta"]["zcode"]["autoContinue"];
    assert!(deadline["deadlineMs"].is_u64(), "{countdown:#}");
    assert!(
        deadline["deadline"]
            .as_str()
            .is_some_and(|d| d.ends_with('Z')),
        "{countdown:#}"
    );
    assert!(
        countdown["content"]
            .to_string()
            .contains("continuing without answers"),
        "{countdown:#}"
    );

    // ASK-4: the model reads that none was answered, and goes on.
    assert_eq!(server.request_count(), 2);
    let result = last_result(&server, "q1");
    assert!(
        result.starts_with("The user did not answer any of your questions"),
        "{result}"
    );
    assert_eq!(
        out.tool_statuses("q1").last().map(String::as_str),
        Some("completed")
    );
}

// ------------------------------------------------------------ updates

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_reads_every_update_of_a_tool_round_trip_as_sent() {
    // The todo list, a Write and an Edit, each allowed once: the plan,
    // tool calls with locations, diffs and usage as the SDK reads them.
    let (h, server) = setup().await;
    let file = project(&h).join("notes.txt");
    let todos = json!({"todos": [
        {"content": "Write the notes", "status": "in_progress", "priority": "high"},
        {"content": "Fix a word", "status": "pending", "priority": "low"},
    ]})
    .to_string();
    let write = json!({"file_path": file, "content": "one\ntwo\n"}).to_string();
    let edit = json!({"file_path": file, "old_string": "two", "new_string": "three"}).to_string();
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("t1", "TodoWrite", &todos), ("w1", "Write", &write)],
        )),
        tool_reply("e1", "Edit", &edit),
        text_reply("Written and fixed."),
    ]);
    let out = client(
        &h,
        json!({
            "forms": true,
            "prompts": ["write the notes"],
            "permissions": ["allow_once", "allow_once"],
        }),
    )
    .await;
    out.assert_clean();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\nthree\n");
    assert_eq!(server.request_count(), 3);

    let updates = out.summary["updates"].as_array().expect("updates");
    let plan = updates
        .iter()
        .rfind(|u| u["sessionUpdate"] == "plan")
        .unwrap_or_else(|| panic!("a plan: {updates:#?}"));
    assert_eq!(
        plan["entries"],
        json!([
            {"content": "Write the notes", "priority": "high", "status": "in_progress"},
            {"content": "Fix a word", "priority": "low", "status": "pending"},
        ]),
        "{plan:#}"
    );
    // The Write's diff is a new file's; the Edit's may be the whole file
    // or the changed text (as other agents send it): either way it holds
    // the change.
    for (id, kind, old, new) in [
        ("w1", "edit", None, "one\ntwo\n"),
        ("e1", "edit", Some("two"), "three"),
    ] {
        let start = updates
            .iter()
            .find(|u| u["sessionUpdate"] == "tool_call" && u["toolCallId"] == id)
            .unwrap_or_else(|| panic!("tool_call {id}: {updates:#?}"));
        assert_eq!(start["kind"], kind, "{start:#}");
        assert_eq!(
            start["locations"][0]["path"],
            file.to_string_lossy().as_ref(),
            "{start:#}"
        );
        assert_eq!(
            out.tool_statuses(id).last().map(String::as_str),
            Some("completed")
        );
        let diff = updates
            .iter()
            .filter(|u| u["toolCallId"] == id)
            .filter_map(|u| u["content"].as_array())
            .flatten()
            .find(|c| c["type"] == "diff")
            .unwrap_or_else(|| panic!("a diff for {id}: {updates:#?}"));
        assert_eq!(diff["path"], file.to_string_lossy().as_ref(), "{diff:#}");
        assert!(
            diff["newText"].as_str().is_some_and(|t| t.contains(new)),
            "{diff:#}"
        );
        match old {
            None => assert!(diff.get("oldText").is_none(), "a new file: {diff:#}"),
            Some(old) => assert!(
                diff["oldText"].as_str().is_some_and(|t| t.contains(old)),
                "{diff:#}"
            ),
        }
    }
    assert!(
        updates.iter().any(|u| u["sessionUpdate"] == "usage_update"),
        "{updates:#?}"
    );
}

// ------------------------------------------------------------ without forms

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_without_forms_gets_the_plan_review_as_a_switch_mode_permission() {
    let (h, server, out) = plan_review(false, json!({"permissions": ["approve"]})).await;
    out.assert_clean();
    assert_eq!(
        out.summary["elicitations"],
        json!([]),
        "no form without the capability"
    );
    // No form to put it in: AskUserQuestion is not offered at all.
    let tools = server.requests()[0].json()["tools"].to_string();
    assert!(tools.contains("\"ExitPlanMode\""), "{tools}");
    assert!(!tools.contains("\"AskUserQuestion\""), "{tools}");

    let asks = out.summary["permissions"].as_array().expect("permissions");
    assert_eq!(asks.len(), 1, "{:#}", out.summary);
    assert_eq!(asks[0]["toolCall"]["toolCallId"], "p1", "{:#}", asks[0]);
    assert_eq!(asks[0]["toolCall"]["kind"], "switch_mode", "{:#}", asks[0]);
    assert_eq!(
        asks[0]["options"],
        json!([{"optionId": "approve", "name": "Approve", "kind": "allow_once"},
               {"optionId": "deny", "name": "Deny", "kind": "reject_once"}]),
        "{:#}",
        asks[0]
    );
    assert_eq!(
        std::fs::read_to_string(plan_file(&h, out.session_id())).unwrap_or_default(),
        PLAN
    );
    assert!(last_result(&server, "p1").contains("## Approved Plan:"));
}

// ------------------------------------------------------------ session/load

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_reloads_a_session_and_reads_its_replayed_history() {
    let (h, server) = setup_with_acp(json!({"autoContinue": {"enabled": true}})).await;
    script_question(&server, &two_questions());
    let first =
        answer_question_form(&h, json!({"action": "accept", "content": {"q1": "Go"}})).await;
    first.assert_clean();

    // A new client process loads it: the history comes back as updates
    // the SDK reads as they were sent, and no model request is made.
    let again = client(&h, json!({"forms": true, "load": first.session_id()})).await;
    again.assert_clean_with_stops(json!([]));
    assert_eq!(server.request_count(), 2);
    let updates = again.summary["updates"].as_array().expect("updates");
    let text_of = |kind: &str| -> String {
        updates
            .iter()
            .filter(|u| u["sessionUpdate"] == kind)
            .filter_map(|u| u["content"]["text"].as_str())
            .collect()
    };
    assert!(
        text_of("user_message_chunk").contains("set up the project"),
        "{updates:#?}"
    );
    assert!(
        text_of("agent_message_chunk").contains("Thanks."),
        "{updates:#?}"
    );
    let call = updates
        .iter()
        .find(|u| u["sessionUpdate"] == "tool_call" && u["toolCallId"] == "q1")
        .unwrap_or_else(|| panic!("the question's call replayed: {updates:#?}"));
    assert_eq!(call["status"], "completed", "{call:#}");
    assert!(
        call["content"]
            .to_string()
            .contains(r#"\"Which language?\"=\"Go\""#),
        "the answer as the model read it: {call:#}"
    );
    // ASK-7's clock as it ended, in the call's `_meta`.
    let clock = &call["_meta"]["zcode"]["autoContinue"];
    assert_eq!(clock["state"], "stopped", "{call:#}");
    assert!(clock["deadlineMs"].is_u64(), "{call:#}");
}

// ------------------------------------------------------------ config option

/// The SDK sets ASK-7's `auto_continue` option through
/// `session/set_config_option` and reads zcode's answer as a select now
/// `off`; that a paused clock never fires is the Rust-side tests' job (it
/// cannot be shown here without waiting).
#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_turns_auto_continue_off_with_the_session_config_option() {
    let (h, server) = setup_with_acp(json!({"autoContinue": {"enabled": true}})).await;
    script_question(&server, &two_questions());
    let out = client(
        &h,
        json!({
            "forms": true,
            "config": {"auto_continue": "off"},
            "prompts": ["set up the project"],
            "elicitations": [{"action": "accept", "content": {"q1": "Rust"}}],
        }),
    )
    .await;
    out.assert_clean();
    let options = out.summary["config_options"]
        .as_array()
        .expect("config options");
    let auto = options
        .iter()
        .find(|o| o["id"] == "auto_continue")
        .unwrap_or_else(|| panic!("auto_continue: {options:#?}"));
    assert_eq!(auto["type"], "select", "{auto:#}");
    assert_eq!(auto["currentValue"], "off", "{auto:#}");
    assert!(last_result(&server, "q1").contains(r#""Which language?"="Rust""#));
}
