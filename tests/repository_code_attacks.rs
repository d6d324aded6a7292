//! A repository is untrusted input: opening it, or a command judged
//! read-only on it, must never run a program its own files name, and what
//! zcode sends to the model provider must come from inside it. Each test
//! builds the attacker's repository and runs the real binary against the
//! fake model server; a marker file shows whether the attacker's program
//! ran.

#![cfg(unix)]

mod support;

use std::path::{Path, PathBuf};
use support::fake_model_server::{FakeModelServer, Reply, sse};
use support::headless::{Harness, openai_env};

/// `git` in `dir`, failing the test when it fails.
fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// A repository whose configuration names an attacker's program in every
/// place git runs one from on a read: fsmonitor, a filter and a textconv
/// driver chosen by `.gitattributes`, an external diff, and a signature
/// checker. Each program touches its own marker in `markers`.
fn hostile_repository(project: &Path, markers: &Path) -> Vec<PathBuf> {
    std::fs::create_dir_all(markers).unwrap();
    git(project, &["init", "-q", "-b", "main"]);
    std::fs::write(project.join("a.txt"), "one\n").unwrap();
    git(project, &["add", "a.txt"]);
    git(
        project,
        &[
            "-c",
            "user.email=a@b",
            "-c",
            "user.name=n",
            "commit",
            "-qm",
            "init",
        ],
    );
    // Same size, new content: git must hash it (running any clean filter).
    std::fs::write(project.join("a.txt"), "two\n").unwrap();
    std::fs::write(project.join(".gitattributes"), "* filter=evil diff=evil\n").unwrap();
    let names = ["fsmonitor", "clean", "textconv", "external", "gpg"];
    for name in names {
        let script = markers.join(format!("{name}.sh"));
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\ntouch '{}'\ncat\n",
                markers.join(format!("{name}.ran")).display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let script = |name: &str| markers.join(format!("{name}.sh")).display().to_string();
    for (key, value) in [
        ("core.fsmonitor", script("fsmonitor")),
        ("filter.evil.clean", script("clean")),
        ("filter.evil.smudge", script("clean")),
        ("diff.evil.textconv", script("textconv")),
        ("diff.external", script("external")),
        ("log.showSignature", "true".to_string()),
        ("gpg.program", script("gpg")),
    ] {
        git(project, &["config", key, &value]);
    }
    names
        .iter()
        .map(|name| markers.join(format!("{name}.ran")))
        .collect()
}

fn ran(markers: &[PathBuf]) -> Vec<String> {
    markers
        .iter()
        .filter(|m| m.exists())
        .map(|m| m.display().to_string())
        .collect()
}

/// Queues one model turn that calls `tool` once per input (ids `c0`, `c1`
/// …).
fn enqueue_calls(server: &FakeModelServer, tool: &str, inputs: &[serde_json::Value]) {
    let ids: Vec<(String, String)> = inputs
        .iter()
        .enumerate()
        .map(|(i, input)| (format!("c{i}"), input.to_string()))
        .collect();
    let calls: Vec<(&str, &str, &str)> = ids
        .iter()
        .map(|(id, args)| (id.as_str(), tool, args.as_str()))
        .collect();
    server.enqueue(Reply::sse(sse::openai_tool_calls("", &calls)));
}

fn bash_inputs(commands: &[&str]) -> Vec<serde_json::Value> {
    commands
        .iter()
        .map(|c| serde_json::json!({ "command": c }))
        .collect()
}

fn system_prompt(server: &FakeModelServer, index: usize) -> String {
    server.requests()[index].json()["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Opening the repository (the environment facts read git's status) runs
/// none of its programs, with the sandbox and without it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opening_a_hostile_repository_runs_none_of_its_programs() {
    for no_sandbox in [false, true] {
        let h = Harness::new();
        let markers_dir = tempfile::tempdir().unwrap();
        let markers = hostile_repository(h.project(), markers_dir.path());
        let server = FakeModelServer::start().await;
        server.enqueue(Reply::sse(sse::openai_text("hi")));
        let mut env = openai_env(&server);
        if no_sandbox {
            env.push(("ZCODE_SANDBOX_UNAVAILABLE", "1".to_string()));
        }
        let run = h.run(&["--mode", "plan", "-p", "hello"], &env).await;
        assert_eq!(run.code, Some(0), "{run}");
        assert_eq!(
            ran(&markers),
            Vec::<String>::new(),
            "no_sandbox={no_sandbox}: {run}"
        );
        // The branch comes from HEAD; the status is read in the sandbox
        // only.
        let system = system_prompt(&server, 0);
        assert!(system.contains("- Git branch: main"), "{system}");
        assert_eq!(
            system.contains("- Git status at session start:"),
            !no_sandbox,
            "{system}"
        );
    }
}

/// A read-only `git status`, `git log` and `git diff` run by the model
/// (judged read-only, so run without a question) run none of the
/// repository's programs either: in the read-only sandbox and with the
/// program-naming settings neutralised.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_git_commands_run_none_of_the_repositorys_programs() {
    let h = Harness::new();
    let markers_dir = tempfile::tempdir().unwrap();
    let markers = hostile_repository(h.project(), markers_dir.path());
    let server = FakeModelServer::start().await;
    enqueue_calls(
        &server,
        "Bash",
        &bash_inputs(&["git status", "git log -1", "git diff --stat"]),
    );
    server.enqueue(Reply::sse(sse::openai_text("done")));
    let run = h
        .run(
            &["--mode", "plan", "-p", "look at the repository"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(ran(&markers), Vec::<String>::new(), "{run}");
}

/// An embedded bare repository built by the model file by file in edit
/// mode: the write that would make the directory a git directory is
/// asked (headless: denied), so a later `git -C dir status` has nothing
/// to run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_mode_cannot_build_a_git_directory_file_by_file() {
    let h = Harness::new();
    let markers_dir = tempfile::tempdir().unwrap();
    let marker = markers_dir.path().join("bare.ran");
    let server = FakeModelServer::start().await;
    let files = [
        (
            "dir/config",
            format!("[core]\n\tfsmonitor = touch {}\n", marker.display()),
        ),
        ("dir/refs/heads/.keep", String::new()),
        ("dir/HEAD", "ref: refs/heads/main\n".to_string()),
        ("dir/objects/.keep", String::new()),
    ];
    let writes: Vec<serde_json::Value> = files
        .iter()
        .map(|(path, content)| serde_json::json!({ "file_path": path, "content": content }))
        .collect();
    enqueue_calls(&server, "Write", &writes);
    let status = serde_json::json!({ "command": "git -C dir status" }).to_string();
    server.enqueue(Reply::sse(sse::openai_tool_calls(
        "",
        &[("s", "Bash", status.as_str())],
    )));
    server.enqueue(Reply::sse(sse::openai_text("done")));
    let run = h
        .run(
            &["--mode", "edit", "-p", "set things up"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let dir = h.project().join("dir");
    assert!(
        !(dir.join("HEAD").is_file() && dir.join("objects").is_dir()),
        "a git directory was built without a question: {run}"
    );
    assert!(
        !marker.exists(),
        "the embedded repository's fsmonitor ran: {run}"
    );
}

/// An `AGENTS.md` or `CLAUDE.md` that links out of the repository is not
/// sent to the model provider; one inside it still is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instruction_file_linking_out_of_the_repository_is_not_sent() {
    let h = Harness::new();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("id_ed25519");
    std::fs::write(&secret, "-----BEGIN OPENSSH PRIVATE KEY----- s3cr3t").unwrap();
    git(h.project(), &["init", "-q"]);
    std::os::unix::fs::symlink(&secret, h.project().join("AGENTS.md")).unwrap();
    let sub = h.project().join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::os::unix::fs::symlink(&secret, sub.join("CLAUDE.md")).unwrap();
    // A link that stays inside the repository but names a key, not
    // Markdown (a home directory that is itself a repository).
    std::fs::create_dir_all(h.project().join(".ssh")).unwrap();
    std::fs::write(h.project().join(".ssh/id_rsa"), "inner-s3cr3t").unwrap();
    let deep = h.project().join("deep");
    std::fs::create_dir_all(&deep).unwrap();
    std::os::unix::fs::symlink("../.ssh/id_rsa", deep.join("AGENTS.md")).unwrap();
    // The global file links out of $ZCODE_HOME too.
    std::os::unix::fs::symlink(&secret, h.home().join("AGENTS.md")).unwrap();
    // A link that stays inside the repository is fine.
    std::fs::create_dir_all(h.project().join("docs")).unwrap();
    std::fs::write(h.project().join("docs/agents.md"), "Use pnpm.").unwrap();
    let inner = h.project().join("inner");
    std::fs::create_dir_all(&inner).unwrap();
    std::os::unix::fs::symlink("../docs/agents.md", inner.join("AGENTS.md")).unwrap();
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("hi")));
    server.enqueue(Reply::sse(sse::openai_text("hi")));
    let run = h.run(&["-p", "hello"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    let system = system_prompt(&server, 0);
    assert!(!system.contains("s3cr3t"), "{system}");
    assert!(
        system.contains("not read"),
        "the skipped file is named: {system}"
    );
    server.enqueue(Reply::sse(sse::openai_text("hi")));
    let run = h
        .run(&["-C", "deep", "-p", "hello"], &openai_env(&server))
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(!system_prompt(&server, 1).contains("inner-s3cr3t"));
    let run = h
        .run(&["-C", "inner", "-p", "hello"], &openai_env(&server))
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let system = system_prompt(&server, 2);
    assert!(system.contains("Use pnpm."), "{system}");
    assert!(!system.contains("s3cr3t"), "{system}");
}

/// The project's memory index is read only inside the memory directory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_memory_index_linking_out_is_not_sent() {
    let h = Harness::new();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("token");
    std::fs::write(&secret, "ghp_s3cr3t").unwrap();
    let workspace = std::fs::canonicalize(h.project()).unwrap();
    let memory = h
        .home()
        .join("projects")
        .join(zcode::config::project_id(&workspace))
        .join("memory");
    std::fs::create_dir_all(&memory).unwrap();
    std::os::unix::fs::symlink(&secret, memory.join("MEMORY.md")).unwrap();
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("hi")));
    let run = h.run(&["-p", "hello"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(!system_prompt(&server, 0).contains("ghp_s3cr3t"));
}

/// Without a sandbox, git forms that read the index or show diffs (which
/// the repository's fsmonitor, filter, textconv or external diff would
/// run in) are not judged read-only: asked (headless: denied), never run
/// unasked. A form that cannot run them still runs, neutralised.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn git_without_a_sandbox_runs_none_of_the_repositorys_programs() {
    let h = Harness::new();
    let markers_dir = tempfile::tempdir().unwrap();
    let markers = hostile_repository(h.project(), markers_dir.path());
    let server = FakeModelServer::start().await;
    enqueue_calls(
        &server,
        "Bash",
        &bash_inputs(&[
            "git status",
            "git diff",
            "git log -p -1",
            "git show",
            "git log -1 --format=%G?",
            "git branch --show-current",
        ]),
    );
    server.enqueue(Reply::sse(sse::openai_text("done")));
    let mut env = openai_env(&server);
    env.push(("ZCODE_SANDBOX_UNAVAILABLE", "1".to_string()));
    let run = h.run(&["--mode", "build", "-p", "status?"], &env).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(ran(&markers), Vec::<String>::new(), "{run}");
    let body = server.requests()[1].json();
    let branch = support::fake_model_server::openai_tool_result(&body, "c5");
    assert!(branch.contains("main"), "the safe form ran: {branch}");
}
