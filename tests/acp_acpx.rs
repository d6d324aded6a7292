//! A real third-party ACP client end to end: `acpx`, pinned in
//! tests/acpx/package.json and installed from the package registry with
//! `npm ci` (by `.ci/run`, or here when it is missing), runs the real
//! `zcode acp` as its agent against the fake model server. The model asks
//! for a Write in build mode, zcode asks the client with
//! `session/request_permission`, and acpx answers from its flag: approved,
//! the file is written and the answer shown; denied, nothing is written and
//! the model reads the deny. The README's acpx command runs as written.
//!
//! acpx `--format json` prints every JSON-RPC message both ways, one per
//! line, so the tests read exactly what zcode sent and what acpx chose.

mod support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;
use support::acp_client::{text_reply, tool_reply};
use support::fake_model_server::{FakeModelServer, openai_tool_result};
use support::headless::{Harness, Run};

/// Bounds one whole acpx run (zcode's start, two model turns and the exit);
/// acpx's own `--timeout` is shorter, so a hang shows as its timeout first.
const ACPX_TIMEOUT: Duration = Duration::from_secs(90);

/// The directory of the installed client's `acpx`; installs it the first
/// time.
fn acpx_bin_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/acpx");
        let bin = dir.join("node_modules/.bin");
        if !bin.join("acpx").exists() {
            let status = std::process::Command::new("npm")
                .args([
                    "ci",
                    "--no-audit",
                    "--no-fund",
                    "--loglevel=error",
                    "--prefix",
                ])
                .arg(&dir)
                .status()
                .expect(
                    "npm runs (Node.js and npm are needed for this test; see tests/acpx/README.md)",
                );
            assert!(status.success(), "npm ci in {} succeeds", dir.display());
        }
        assert!(
            bin.join("acpx").exists(),
            "{} is installed",
            bin.join("acpx").display()
        );
        bin
    })
    .clone()
}

/// A project and home whose config starts sessions in build mode, where a
/// Write is asked.
fn harness() -> Harness {
    let h = Harness::new();
    h.write_config(&json!({"permission": {"mode": "build"}}));
    std::fs::create_dir_all(h.home().join("user")).unwrap();
    h
}

/// The project as zcode and acpx see it (no symlinks), so paths compare.
fn project(h: &Harness) -> PathBuf {
    std::fs::canonicalize(h.project()).unwrap()
}

/// The model writes hello.txt, then answers.
fn write_then_answer(server: &FakeModelServer, file: &Path, answer: &str) {
    server.enqueue_all([
        tool_reply(
            "write",
            "Write",
            &json!({"file_path": file, "content": "hi\n"}).to_string(),
        ),
        text_reply(answer),
    ]);
}

/// Runs `acpx ARGS` in the project: `zcode` and `acpx` on the `PATH` are the
/// binary under test and the pinned client, `HOME` is an empty directory
/// (acpx reads its config there), and the model is the fake server.
async fn acpx(h: &Harness, server: &FakeModelServer, args: &[&str]) -> Run {
    let zcode_dir = Path::new(env!("CARGO_BIN_EXE_zcode"))
        .parent()
        .expect("the binary has a directory")
        .to_path_buf();
    let path = std::env::join_paths([zcode_dir, acpx_bin_dir()].into_iter().chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut cmd = h.process(acpx_bin_dir().join("acpx"));
    cmd.current_dir(project(h))
        .args(args)
        .env("PATH", path)
        .env("HOME", h.home().join("user"))
        .env("OPENAI_BASE_URL", server.openai_base_url());
    let out = tokio::time::timeout(ACPX_TIMEOUT, cmd.output())
        .await
        .unwrap_or_else(|_| panic!("acpx {args:?} did not finish in {ACPX_TIMEOUT:?}"))
        .expect("acpx runs");
    Run::from(out)
}

/// The JSON-RPC messages of an `acpx --format json` run, in order.
fn messages(run: &Run) -> Vec<Value> {
    run.stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}\n{run}")))
        .collect()
}

/// The one request of `method` and the response with its id.
fn exchange<'a>(messages: &'a [Value], method: &str, run: &Run) -> (&'a Value, &'a Value) {
    let requests: Vec<&Value> = messages.iter().filter(|m| m["method"] == method).collect();
    assert_eq!(requests.len(), 1, "one {method}: {run}");
    let request = requests[0];
    let response = messages
        .iter()
        .find(|m| m.get("method").is_none() && m["id"] == request["id"])
        .unwrap_or_else(|| panic!("an answer to {method}: {run}"));
    (request, response)
}

/// The session updates of one kind.
fn updates<'a>(messages: &'a [Value], kind: &str) -> Vec<&'a Value> {
    messages
        .iter()
        .filter(|m| {
            m["method"] == "session/update" && m["params"]["update"]["sessionUpdate"] == kind
        })
        .map(|m| &m["params"]["update"])
        .collect()
}

/// The agent's message text, chunks joined.
fn agent_text(messages: &[Value]) -> String {
    updates(messages, "agent_message_chunk")
        .iter()
        .filter_map(|u| u["content"]["text"].as_str())
        .collect()
}

/// The stop reason of the one `session/prompt`.
fn stop_reason(messages: &[Value], run: &Run) -> String {
    let (_, response) = exchange(messages, "session/prompt", run);
    response["result"]["stopReason"]
        .as_str()
        .unwrap_or_else(|| panic!("a stop reason: {response}\n{run}"))
        .to_string()
}

/// `acpx --agent AGENT ANSWER_ALL --format json --timeout 60 exec PROMPT`.
async fn acpx_json(
    h: &Harness,
    server: &FakeModelServer,
    agent: &str,
    answer_all: &str,
    prompt: &str,
) -> Run {
    acpx(
        h,
        server,
        &[
            "--agent",
            agent,
            answer_all,
            "--format",
            "json",
            "--timeout",
            "60",
            "exec",
            prompt,
        ],
    )
    .await
}

/// The option ids of a `session/request_permission`, in order.
fn option_ids(ask: &Value) -> Vec<&str> {
    ask["params"]["options"]
        .as_array()
        .expect("options")
        .iter()
        .filter_map(|o| o["optionId"].as_str())
        .collect()
}

/// The client's answer to a permission request selected `option`.
fn assert_selected(answer: &Value, option: &str, run: &Run) {
    assert_eq!(
        answer["result"]["outcome"],
        json!({"outcome": "selected", "optionId": option}),
        "{run}"
    );
}

/// The Write's tool call ended `failed`.
fn assert_write_failed(messages: &[Value], run: &Run) {
    assert!(
        updates(messages, "tool_call_update")
            .iter()
            .any(|u| u["toolCallId"] == "write" && u["status"] == "failed"),
        "{run}"
    );
}

/// The agent's message is `text` and the turn ended normally.
fn assert_answered(messages: &[Value], text: &str, run: &Run) {
    assert_eq!(agent_text(messages), text, "{run}");
    assert_eq!(stop_reason(messages, run), "end_turn", "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn acpx_approves_a_write_in_build_mode_and_zcode_writes_the_file() {
    let h = harness();
    let file = project(&h).join("hello.txt");
    let server = FakeModelServer::start().await;
    write_then_answer(&server, &file, "hello.txt now says hi.");
    let run = acpx_json(
        &h,
        &server,
        "zcode acp",
        "--approve-all",
        "create hello.txt saying hi",
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    let messages = messages(&run);

    // The session runs where acpx is, with no MCP servers of the client's.
    let (new, created) = exchange(&messages, "session/new", &run);
    assert_eq!(
        new["params"]["cwd"],
        project(&h).to_string_lossy().as_ref(),
        "{run}"
    );
    let session_id = created["result"]["sessionId"]
        .as_str()
        .expect("a session id");

    // zcode asked before writing, with its options; acpx allowed once.
    let (ask, answer) = exchange(&messages, "session/request_permission", &run);
    let ids = option_ids(ask);
    assert_eq!(
        ids,
        [
            "allow_once",
            "allow_always_project",
            "allow_edits_session",
            "full_access",
            "deny"
        ],
        "{ask}"
    );
    assert_eq!(ask["params"]["toolCall"]["toolCallId"], "write", "{ask}");
    assert_selected(answer, "allow_once", &run);

    // acpx serves files (fs.writeTextFile), so the Write reached it and acpx
    // wrote the file; the tool call completed, the model read the result
    // and its answer is acpx's output; the turn ended normally.
    let (write, written) = exchange(&messages, "fs/write_text_file", &run);
    assert_eq!(
        write["params"]["path"],
        file.to_string_lossy().as_ref(),
        "{write}"
    );
    assert_eq!(write["params"]["content"], "hi\n", "{write}");
    assert_eq!(write["params"]["sessionId"], session_id, "{write}");
    assert!(written.get("error").is_none(), "{written}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hi\n");
    let calls = updates(&messages, "tool_call");
    assert!(
        calls
            .iter()
            .any(|c| c["toolCallId"] == "write" && c["kind"] == "edit"),
        "{run}"
    );
    // The call waits for the approval as pending (no status is pending),
    // and runs only once acpx has answered.
    let started = calls
        .iter()
        .find(|c| c["toolCallId"] == "write")
        .expect("the Write's tool call");
    assert!(
        started.get("status").is_none() || started["status"] == "pending",
        "{started}"
    );
    let position = |found: &dyn Fn(&Value) -> bool| {
        messages
            .iter()
            .position(found)
            .unwrap_or_else(|| panic!("in {run}"))
    };
    let answered = position(&|m| m.get("method").is_none() && m["id"] == ask["id"]);
    let running = position(&|m| {
        m["params"]["update"]["toolCallId"] == "write"
            && m["params"]["update"]["status"] == "in_progress"
    });
    assert!(answered < running, "{run}");
    let done = updates(&messages, "tool_call_update")
        .into_iter()
        .find(|u| u["toolCallId"] == "write" && u["status"] == "completed")
        .unwrap_or_else(|| panic!("the Write completes: {run}"));
    let diff = done["content"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "diff"))
        .unwrap_or_else(|| panic!("the Write carries a diff: {done}"));
    assert_eq!(diff["path"], file.to_string_lossy().as_ref(), "{done}");
    assert_eq!(diff["newText"], "hi\n", "{done}");
    let second = server.requests()[1].json();
    let result = openai_tool_result(&second, "write");
    assert!(result.starts_with("Created"), "{result}");
    assert_answered(&messages, "hello.txt now says hi.", &run);
    assert!(
        !messages.iter().any(|m| m["method"] == "elicitation/create"),
        "acpx offers no elicitation, so none is sent: {run}"
    );
    // acpx closed zcode's stdin and went: the session is saved, with the
    // call and its result.
    let sessions = h.sessions();
    assert_eq!(sessions.len(), 1, "{run}");
    assert_eq!(sessions[0].id, session_id);
    assert_eq!(sessions[0].workspace, project(&h).to_string_lossy());
    let kinds: Vec<String> = h
        .entries(&sessions[0].id)
        .into_iter()
        .map(|e| e.kind)
        .collect();
    assert!(kinds.iter().any(|k| k == "tool_result"), "{kinds:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn acpx_denies_a_write_and_the_model_reads_the_deny() {
    let h = harness();
    let file = project(&h).join("hello.txt");
    let server = FakeModelServer::start().await;
    write_then_answer(&server, &file, "Understood, I left it alone.");
    let run = acpx_json(
        &h,
        &server,
        "zcode acp",
        "--deny-all",
        "create hello.txt saying hi",
    )
    .await;
    // acpx's exit status when permissions were asked and none approved.
    assert_eq!(run.code, Some(5), "{run}");
    let messages = messages(&run);

    let (_, answer) = exchange(&messages, "session/request_permission", &run);
    assert_selected(answer, "deny", &run);
    assert!(!file.exists(), "a denied Write writes nothing");
    assert!(
        !messages.iter().any(|m| m["method"] == "fs/write_text_file"),
        "{run}"
    );
    // No elicitation capability: the deny has no "instead" form, and the
    // model reads the plain user deny (APPR-7).
    assert!(
        !messages.iter().any(|m| m["method"] == "elicitation/create"),
        "{run}"
    );
    let second = server.requests()[1].json();
    assert_eq!(
        openai_tool_result(&second, "write"),
        zcode::approval::deny_text::user_denied("Write", None)
    );
    assert_write_failed(&messages, &run);
    assert_answered(&messages, "Understood, I left it alone.", &run);
}

/// Read and Edit go through the client's files too: acpx answers
/// `fs/read_text_file` from its disk and `fs/write_text_file` writes it.
#[tokio::test(flavor = "multi_thread")]
async fn acpx_serves_the_file_a_read_and_an_edit_use() {
    let h = harness();
    let file = project(&h).join("notes.txt");
    std::fs::write(&file, "one\ntwo\n").unwrap();
    let path = file.to_string_lossy().into_owned();
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        tool_reply("read", "Read", &json!({"file_path": path}).to_string()),
        tool_reply(
            "edit",
            "Edit",
            &json!({"file_path": path, "old_string": "two", "new_string": "2"}).to_string(),
        ),
        text_reply("Edited."),
    ]);
    let run = acpx_json(
        &h,
        &server,
        "zcode acp",
        "--approve-all",
        "change two to 2 in notes.txt",
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    let messages = messages(&run);
    let reads: Vec<&Value> = messages
        .iter()
        .filter(|m| m["method"] == "fs/read_text_file")
        .collect();
    assert!(!reads.is_empty(), "the Read asks the client: {run}");
    assert!(
        reads.iter().all(|r| r["params"]["path"] == path.as_str()),
        "{run}"
    );
    let read_result = openai_tool_result(&server.requests()[1].json(), "read");
    assert!(
        read_result.contains("one") && read_result.contains("two"),
        "{read_result}"
    );
    let (write, _) = exchange(&messages, "fs/write_text_file", &run);
    assert_eq!(write["params"]["content"], "one\n2\n", "{write}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\n2\n");
    // Only the Edit was asked about; the Read needs no approval.
    let (ask, _) = exchange(&messages, "session/request_permission", &run);
    assert_eq!(ask["params"]["toolCall"]["toolCallId"], "edit", "{ask}");
    assert_answered(&messages, "Edited.", &run);
}

/// A file request the client refuses is a tool error naming the file: acpx
/// serves only its `--cwd`, so an approved Write outside the project fails
/// there, and nothing is written behind the client's back.
#[tokio::test(flavor = "multi_thread")]
async fn acpx_refuses_a_write_outside_its_folder_and_the_model_reads_the_error() {
    let h = harness();
    let outside = tempfile::tempdir().unwrap();
    let file = std::fs::canonicalize(outside.path())
        .unwrap()
        .join("hello.txt");
    let server = FakeModelServer::start().await;
    write_then_answer(&server, &file, "It failed.");
    let run = acpx_json(
        &h,
        &server,
        "zcode acp",
        "--approve-all",
        "create hello.txt elsewhere",
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    let messages = messages(&run);
    let (_, refused) = exchange(&messages, "fs/write_text_file", &run);
    assert!(refused.get("error").is_some(), "{refused}");
    assert!(!file.exists(), "zcode does not write it itself");
    let result = openai_tool_result(&server.requests()[1].json(), "write");
    assert!(result.contains(&*file.to_string_lossy()), "{result}");
    assert_write_failed(&messages, &run);
    assert_answered(&messages, "It failed.", &run);
}

/// The model presents a plan in plan mode, then answers.
fn plan_then_answer(server: &FakeModelServer, plan: &str, answer: &str) {
    server.enqueue_all([
        tool_reply("plan", "ExitPlanMode", &json!({"plan": plan}).to_string()),
        text_reply(answer),
    ]);
}

/// acpx has no forms, so the plan review reaches it as a permission request
/// for a `switch_mode` call with Approve and Deny; `--approve-all` picks
/// Approve: plan mode ends and the plan is saved (PLAN-7).
#[tokio::test(flavor = "multi_thread")]
async fn acpx_approves_a_plan_review_sent_as_a_switch_mode_permission() {
    let h = harness();
    let server = FakeModelServer::start().await;
    let plan = "# Hello\n\n1. Write hello.txt";
    plan_then_answer(&server, plan, "Starting.");
    let run = acpx_json(
        &h,
        &server,
        "zcode acp --mode plan",
        "--approve-all",
        "plan hello.txt",
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
    let messages = messages(&run);
    let (_, created) = exchange(&messages, "session/new", &run);
    let session_id = created["result"]["sessionId"]
        .as_str()
        .expect("a session id");
    assert_eq!(created["result"]["modes"]["currentModeId"], "plan", "{run}");

    let (ask, answer) = exchange(&messages, "session/request_permission", &run);
    assert_eq!(ask["params"]["toolCall"]["kind"], "switch_mode", "{ask}");
    let ids = option_ids(ask);
    assert_eq!(ids, ["approve", "deny"], "{ask}");
    assert_selected(answer, "approve", &run);

    let result = openai_tool_result(&server.requests()[1].json(), "plan");
    assert!(
        result.starts_with(zcode::tools::plan_mode::PLAN_APPROVED),
        "{result}"
    );
    let saved = project(&h)
        .join(".zcode/plans")
        .join(format!("plan-{session_id}.md"));
    assert_eq!(std::fs::read_to_string(&saved).unwrap().trim_end(), plan);
    assert!(
        updates(&messages, "current_mode_update")
            .iter()
            .any(|u| u["currentModeId"] == "build"),
        "plan mode ends: {run}"
    );
    assert_answered(&messages, "Starting.", &run);
}

/// `--deny-all` picks Deny: a plain deny ends the turn at once, plan mode
/// stays on and no plan is saved (PLAN-9).
#[tokio::test(flavor = "multi_thread")]
async fn acpx_denies_a_plan_review_and_the_turn_ends() {
    let h = harness();
    let server = FakeModelServer::start().await;
    plan_then_answer(&server, "# Hello", "never sent");
    let run = acpx_json(
        &h,
        &server,
        "zcode acp --mode plan",
        "--deny-all",
        "plan hello.txt",
    )
    .await;
    assert_eq!(run.code, Some(5), "{run}");
    let messages = messages(&run);
    let (_, answer) = exchange(&messages, "session/request_permission", &run);
    assert_selected(answer, "deny", &run);
    assert_eq!(server.request_count(), 1, "the model is not asked again");
    assert!(!project(&h).join(".zcode/plans").exists());
    assert!(
        !updates(&messages, "current_mode_update")
            .iter()
            .any(|u| u["currentModeId"] != "plan"),
        "plan mode stays on: {run}"
    );
    assert_answered(&messages, "", &run);
}

/// The README's "Editors" section.
fn readme_editors() -> String {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let editors = readme
        .split("\n## Editors\n")
        .nth(1)
        .expect("the README has an Editors section");
    editors.split("\n## ").next().unwrap_or(editors).to_string()
}

/// The acpx command of the README's "Editors" section, split into words as
/// a shell would (it uses only double quotes).
fn readme_acpx_command() -> Vec<String> {
    let editors = readme_editors();
    let line = editors
        .lines()
        .find(|l| l.starts_with("acpx --agent \"zcode acp\""))
        .expect("the Editors section shows the acpx command");
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            '#' if !quoted && word.is_empty() => break,
            c => word.push(c),
        }
    }
    assert!(!quoted, "balanced quotes in {line}");
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[tokio::test(flavor = "multi_thread")]
async fn readme_acpx_command_runs_zcode_and_prints_the_answer() {
    let words = readme_acpx_command();
    assert_eq!(words[0], "acpx", "{words:?}");
    let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    let h = harness();
    let file = project(&h).join("hello.txt");
    let server = FakeModelServer::start().await;
    write_then_answer(&server, &file, "hello.txt now says hi.");
    let run = acpx(&h, &server, &args).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hi\n");
    // acpx's text output: the tool call, the answer, the stop reason.
    assert!(run.stdout.contains("[tool] "), "{run}");
    assert!(run.stdout.contains("(completed)"), "{run}");
    assert!(run.stdout.contains("hello.txt now says hi."), "{run}");
    assert!(run.stdout.contains("[done] end_turn"), "{run}");
}

/// The `agent_servers` entries of the README's JSON examples (Zed's
/// settings.json, a JetBrains IDE's acp.json), as `(name, command, args)`.
fn readme_agent_servers() -> Vec<(String, String, Vec<String>)> {
    let editors = readme_editors();
    let mut entries = Vec::new();
    for block in editors.split("```json\n").skip(1) {
        let json = block.split("\n```").next().unwrap_or(block);
        let value: Value = serde_json::from_str(json)
            .unwrap_or_else(|e| panic!("the README's JSON parses ({e}):\n{json}"));
        let servers = value["agent_servers"]
            .as_object()
            .unwrap_or_else(|| panic!("agent_servers in {json}"));
        for (name, server) in servers {
            let command = server["command"].as_str().expect("a command").to_string();
            let args = server["args"]
                .as_array()
                .expect("args")
                .iter()
                .map(|a| a.as_str().expect("a string argument").to_string())
                .collect();
            entries.push((name.clone(), command, args));
        }
    }
    entries
}

#[tokio::test(flavor = "multi_thread")]
async fn readme_agent_server_entries_start_an_agent_a_client_can_use() {
    let entries = readme_agent_servers();
    assert!(
        entries.len() >= 2,
        "Zed's and JetBrains' entries: {entries:?}"
    );
    for (name, command, args) in entries {
        assert_eq!(name, "zcode");
        // The JetBrains example names the binary by its full path, which
        // here is the binary under test.
        assert_eq!(
            Path::new(&command).file_name().and_then(|n| n.to_str()),
            Some("zcode"),
            "{command}"
        );
        let agent = std::iter::once("zcode".to_string())
            .chain(args.iter().map(|a| format!("\"{a}\"")))
            .collect::<Vec<_>>()
            .join(" ");
        let h = harness();
        let file = project(&h).join("hello.txt");
        let server = FakeModelServer::start().await;
        write_then_answer(&server, &file, "done");
        let run = acpx(
            &h,
            &server,
            &[
                "--agent",
                &agent,
                "--approve-all",
                "--format",
                "quiet",
                "--timeout",
                "60",
                "exec",
                "create hello.txt saying hi",
            ],
        )
        .await;
        assert_eq!(run.code, Some(0), "{command} {args:?}: {run}");
        assert_eq!(run.stdout.trim(), "done", "{run}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "hi\n");
    }
}
