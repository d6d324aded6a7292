//! Sessions and the project they belong to, through the real binary: empty
//! sessions are never continued or listed, `sessions list` shows when each
//! was last active, the project is the git work tree's root (and nothing
//! else can make two repositories one project), headless plan mode prints
//! its plan, and a local server's model is named as the server names it.

mod support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use support::fake_model_server::{FakeModelServer, Reply, sse};
use support::headless::{Harness, RUN_TIMEOUT, Run, openai_env};
use zcode::config::project_id::project_id;
use zcode::permission::mode::ExecutionState;
use zcode::store::{ManualClock, NewEntry, NewSession, Store, default_db_path, entry_kind};

/// Runs `zcode ARGS` in `dir`.
async fn run_in(h: &Harness, dir: &Path, args: &[&str], env: &[(&str, String)]) -> Run {
    let mut cmd = h.command(args, env);
    cmd.current_dir(dir);
    let out = tokio::time::timeout(RUN_TIMEOUT, cmd.output())
        .await
        .unwrap_or_else(|_| panic!("zcode {args:?} did not finish in {RUN_TIMEOUT:?}"))
        .expect("zcode runs");
    Run::from(out)
}

fn canon(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap()
}

/// A git directory as git lays one out (no git needed).
fn git_dir_at(dir: &Path) {
    std::fs::create_dir_all(dir.join("objects")).unwrap();
    std::fs::create_dir_all(dir.join("refs/heads")).unwrap();
    std::fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
}

fn make_repo(dir: &Path) {
    git_dir_at(&dir.join(".git"));
}

fn mkdir(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    canon(dir)
}

/// The allow rules `zcode permission list --json` shows in `dir`.
async fn allowed_in(h: &Harness, dir: &Path, env: &[(&str, String)]) -> Vec<String> {
    let run = run_in(h, dir, &["permission", "list", "--json"], env).await;
    assert_eq!(run.code, Some(0), "{run}");
    let v: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run}"));
    v["rules"]["allow"]
        .as_array()
        .map(|rules| rules.iter().map(ToString::to_string).collect())
        .unwrap_or_default()
}

async fn allow_in(h: &Harness, dir: &Path, content: &str) {
    let run = run_in(
        h,
        dir,
        &["permission", "add", "allow", "Bash", content],
        &[],
    )
    .await;
    assert_eq!(run.code, Some(0), "{run}");
}

fn mentions(rules: &[String], content: &str) -> bool {
    rules.iter().any(|r| r.contains(content))
}

// ------------------------------------------------------------ the project

#[tokio::test(flavor = "multi_thread")]
async fn project_is_git_root() {
    let h = Harness::new();
    let root = canon(h.project());
    make_repo(&root);
    let sub = mkdir(&root.join("src/deep"));
    allow_in(&h, &root, "make:*").await;
    // Rules saved at the root apply in a subdirectory, and the other way.
    assert!(mentions(&allowed_in(&h, &sub, &[]).await, "make:*"));
    allow_in(&h, &sub, "cargo test:*").await;
    assert!(mentions(&allowed_in(&h, &root, &[]).await, "cargo test:*"));

    // A session started in the subdirectory belongs to the root's project
    // but works in the subdirectory.
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("Done.")));
    let run = run_in(&h, &sub, &["-p", "hello"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    let session = &h.sessions()[0];
    assert_eq!(session.workspace, sub.to_string_lossy());
    assert_eq!(session.project_id, project_id(&root));
    let listed = run_in(&h, &root, &["sessions", "list"], &[]).await;
    assert!(listed.stdout.contains(&session.id), "{listed}");
}

#[tokio::test(flavor = "multi_thread")]
async fn project_root_never_merges_two_repositories_rules() {
    let h = Harness::new();
    let root = canon(h.project());
    make_repo(&root);
    allow_in(&h, &root, "make:*").await;
    let outside = tempfile::tempdir().unwrap();
    let outside = canon(outside.path());

    // A repository nested in this one is a project of its own.
    let inner = mkdir(&root.join("vendor/inner"));
    make_repo(&inner);
    let inner_src = mkdir(&inner.join("src"));
    assert!(!mentions(&allowed_in(&h, &inner_src, &[]).await, "make:*"));

    // A linked worktree (`.git` file) is a project of its own.
    let wt = mkdir(&root.join("wt"));
    git_dir_at(&root.join(".git/worktrees/wt"));
    std::fs::write(
        wt.join(".git"),
        format!("gitdir: {}\n", root.join(".git/worktrees/wt").display()),
    )
    .unwrap();
    assert!(!mentions(&allowed_in(&h, &wt, &[]).await, "make:*"));

    // Inside a bare repository (or `.git/` itself) there is no work tree.
    let bare = root.join("mirror.git");
    git_dir_at(&bare);
    assert!(!mentions(&allowed_in(&h, &bare, &[]).await, "make:*"));
    assert!(!mentions(
        &allowed_in(&h, &root.join(".git/refs"), &[]).await,
        "make:*"
    ));

    // The environment cannot point another directory at this repository.
    let git_env = [
        ("GIT_DIR", root.join(".git").to_string_lossy().into_owned()),
        ("GIT_WORK_TREE", root.to_string_lossy().into_owned()),
    ];
    assert!(!mentions(
        &allowed_in(&h, &outside, &git_env).await,
        "make:*"
    ));

    // A link out of the repository leads out of its project; a link into
    // it leads in.
    std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
    assert!(!mentions(
        &allowed_in(&h, &root.join("out"), &[]).await,
        "make:*"
    ));
    let link = outside.join("into-repo");
    std::os::unix::fs::symlink(&inner_src, &link).unwrap();
    let via_link = allowed_in(&h, &link, &[]).await;
    assert!(!mentions(&via_link, "make:*"), "{via_link:?}");
    allow_in(&h, &inner, "inner-only:*").await;
    assert!(mentions(&allowed_in(&h, &link, &[]).await, "inner-only:*"));
    assert!(!mentions(&allowed_in(&h, &root, &[]).await, "inner-only:*"));
}

#[tokio::test(flavor = "multi_thread")]
async fn project_rules_of_a_subdirectory_are_carried_over_once() {
    let h = Harness::new();
    let root = canon(h.project());
    let sub = mkdir(&root.join("sub"));
    let other = mkdir(&root.join("other"));
    // Before the repository existed, both subdirectories were projects:
    // one with a session, one with saved rules only.
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("Done.")));
    let run = run_in(&h, &sub, &["-p", "hello"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    allow_in(&h, &sub, "cargo test:*").await;
    allow_in(&h, &other, "lint:*").await;
    make_repo(&root);

    // The sessions table knows `sub`: carried over from the root.
    let first = run_in(&h, &root, &["permission", "list", "--json"], &[]).await;
    assert!(first.stdout.contains("cargo test:*"), "{first}");
    assert!(first.stderr.contains("carried over"), "{first}");
    assert_eq!(h.sessions()[0].project_id, project_id(&root));
    // `other` is met when zcode starts there.
    let there = allowed_in(&h, &other, &[]).await;
    assert!(
        mentions(&there, "lint:*") && mentions(&there, "cargo test:*"),
        "{there:?}"
    );
    // Once: nothing more to carry, nothing more said.
    let again = run_in(&h, &root, &["permission", "list", "--json"], &[]).await;
    assert!(again.stdout.contains("lint:*"), "{again}");
    assert!(!again.stderr.contains("carried over"), "{again}");
}

// ------------------------------------------------------- empty sessions

/// 2020-01-02 03:04:05 UTC.
const LONG_AGO: i64 = 1_577_934_245_000;

/// A session of the harness's project with one exchange, last active at
/// `at`; and a newer one nobody wrote in.
fn talked_and_empty(h: &Harness, at: i64) {
    let workspace = canon(h.project());
    let clock = Arc::new(ManualClock::new(at));
    let mut store = Store::open_with_clock(default_db_path(h.home()), clock.clone()).unwrap();
    let new = |id: &str| NewSession {
        id: id.into(),
        workspace: workspace.to_string_lossy().into_owned(),
        project_id: project_id(&workspace),
        title: None,
        model: None,
        execution: ExecutionState::default(),
    };
    store.create_session(&new("sess_talked")).unwrap();
    store
        .append_entry(
            "sess_talked",
            &NewEntry::new(
                "e1",
                entry_kind::USER_MESSAGE,
                json!({"text": "what is the magic word?"}),
            ),
        )
        .unwrap();
    store
        .append_entry(
            "sess_talked",
            &NewEntry::new(
                "e2",
                entry_kind::ASSISTANT_MESSAGE,
                json!({"text": "Xyzzy."}),
            ),
        )
        .unwrap();
    clock.advance(60_000);
    store.create_session(&new("sess_empty")).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn empty_session_is_never_continued() {
    let h = Harness::new();
    talked_and_empty(&h, LONG_AGO);
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("Still xyzzy.")));
    let run = h
        .run(
            &["-p", "--continue", "--output-format", "json", "and again?"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let result: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(result["session_id"], "sess_talked", "{run}");
    let sent = server.requests()[0].body_text();
    assert!(sent.contains("what is the magic word?"), "{sent}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_list_has_a_time_column_and_no_empty_sessions() {
    let h = Harness::new();
    talked_and_empty(&h, LONG_AGO);
    let tz = [("TZ", "UTC".to_string())];
    let run = h.run(&["sessions", "list"], &tz).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(run.stdout.contains("sess_talked"), "{run}");
    assert!(!run.stdout.contains("sess_empty"), "{run}");
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("sess_talked"))
        .unwrap();
    assert!(line.contains("2020-01-02 03:04"), "{line}");
    // Local time: the same moment in another zone.
    let tokyo = [("TZ", "Asia/Tokyo".to_string())];
    let run = h.run(&["sessions", "list"], &tokyo).await;
    if Path::new("/usr/share/zoneinfo/Asia/Tokyo").exists() {
        assert!(run.stdout.contains("2020-01-02 12:04"), "{run}");
    }
    let json = h.run(&["sessions", "list", "--json"], &tz).await;
    assert!(!json.stdout.contains("sess_empty"), "{json}");
}

// ---------------------------------------------------- headless plan mode

const PLAN: &str = "1. Add the parser\n2. Test it";

fn plan_reply(server: &FakeModelServer) {
    let input = json!({ "plan": PLAN }).to_string();
    server.enqueue(Reply::sse(sse::openai_tool_calls(
        "Here is my plan.",
        &[("call_p", "ExitPlanMode", input.as_str())],
    )));
}

#[tokio::test(flavor = "multi_thread")]
async fn headless_plan_mode_prints_the_plan() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    plan_reply(&server);
    let run = h
        .run(
            &["-p", "--mode", "plan", "plan the parser"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout, format!("{PLAN}\n"), "{run}");
    assert!(run.stderr.contains("plan was not approved"), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn headless_plan_mode_json_result_is_the_plan_not_approved() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    plan_reply(&server);
    let run = h
        .run(
            &[
                "-p",
                "--mode",
                "plan",
                "--output-format",
                "json",
                "plan the parser",
            ],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let r: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(r["result"], PLAN, "{r}");
    assert_eq!(r["plan_approved"], false, "{r}");
    assert_eq!(r["subtype"], "success", "{r}");
    assert_eq!(r["is_error"], false, "{r}");
}

#[tokio::test(flavor = "multi_thread")]
async fn headless_plan_mode_without_exit_plan_mode_prints_the_last_message() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("The plan: add a parser.")));
    let run = h
        .run(
            &["-p", "--mode", "plan", "--output-format", "json", "plan it"],
            &openai_env(&server),
        )
        .await;
    let r: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(r["result"], "The plan: add a parser.", "{r}");
    assert_eq!(r["plan_approved"], false, "{r}");
    // Outside plan mode there is no such field.
    server.enqueue(Reply::sse(sse::openai_text("Done.")));
    let run = h
        .run(
            &["-p", "--mode", "build", "--output-format", "json", "do it"],
            &openai_env(&server),
        )
        .await;
    let r: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert!(r.get("plan_approved").is_none(), "{r}");
}

// ------------------------------------------------ a local server's model

#[tokio::test(flavor = "multi_thread")]
async fn llama_cpp_model_is_named_as_the_server_serves_it() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.route(
        "/v1/models",
        Reply::json(
            200,
            &json!({"object": "list", "data": [
                {"id": "/models/qwen2.5-coder-7b-q4_k_m.gguf", "meta": {"n_ctx_train": 32768}}
            ]}),
        ),
    );
    server.enqueue(Reply::sse(sse::openai_text("Hi.")));
    let run = h
        .run(
            &["-p", "--output-format", "json", "hello"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let r: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(r["model"], "openai/qwen2.5-coder-7b-q4_k_m.gguf", "{r}");
    // The request keeps the configured name.
    assert_eq!(server.requests()[0].json()["model"], "gpt-4.1");
}

#[tokio::test(flavor = "multi_thread")]
async fn llama_cpp_model_name_lookup_failing_keeps_the_configured_name() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    // No /v1/models route: the server answers 404.
    server.enqueue(Reply::sse(sse::openai_text("Hi.")));
    let run = h
        .run(
            &["-p", "--output-format", "json", "hello"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let r: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(r["model"], "openai/gpt-4.1", "{r}");
}
