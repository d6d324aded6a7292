//! The `zcode` binary as a user runs it: `permission check|list|add|remove`
//! (CLI-5, CLI-6, PERM-14, GRANT-1, GRANT-4), `--mode` parsing (EXEC-7) and
//! `--disallowedTools` (DIS-1, DIS-2).

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

struct Env {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        Self {
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_zcode"))
            .args(args)
            .env("ZCODE_HOME", self.home.path())
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .current_dir(self.project.path())
            .output()
            .expect("zcode runs")
    }

    fn check(&self, tool: &str, input: &str, extra: &[&str]) -> Value {
        let mut args = vec!["permission", "check", "--tool", tool, "--input", input];
        args.extend_from_slice(extra);
        let out = self.run(&args);
        assert!(
            out.status.success(),
            "check failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("check prints JSON")
    }

    fn behavior(&self, tool: &str, input: &str, mode: &str) -> String {
        let mut extra = vec![];
        if mode == "plan" {
            extra.push("--plan");
        } else {
            extra.extend(["--mode", mode]);
        }
        self.check(tool, input, &extra)["behavior"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn perm14_check_answers_every_perm12_row() {
    let env = Env::new();
    let inside = env.project.path().join("new.txt");
    let inside = format!(r#"{{"file_path":"{}","content":"x"}}"#, inside.display());
    let rows: &[(&str, &str, [&str; 4])] = &[
        (
            "Read",
            r#"{"file_path":"a.txt"}"#,
            ["allow", "allow", "allow", "allow"],
        ),
        (
            "Glob",
            r#"{"pattern":"*.rs"}"#,
            ["allow", "allow", "allow", "allow"],
        ),
        (
            "Grep",
            r#"{"pattern":"x"}"#,
            ["allow", "allow", "allow", "allow"],
        ),
        (
            "TodoWrite",
            r#"{"todos":[]}"#,
            ["allow", "allow", "allow", "allow"],
        ),
        ("TodoRead", r#"{}"#, ["allow", "allow", "allow", "allow"]),
        ("ListModels", r#"{}"#, ["allow", "allow", "allow", "allow"]),
        (
            "ReadSessionContext",
            r#"{"sessionId":"sess_1","query":"q"}"#,
            ["allow", "allow", "allow", "allow"],
        ),
        ("Write", &inside, ["ask", "allow", "deny", "allow"]),
        (
            "Edit",
            r#"{"file_path":"src/x.rs","old_string":"a","new_string":"b"}"#,
            ["ask", "allow", "deny", "allow"],
        ),
        (
            "Write",
            r#"{"file_path":"/etc/outside.txt","content":"x"}"#,
            ["ask", "ask", "deny", "allow"],
        ),
        (
            "Edit",
            r#"{"file_path":"../outside.rs","old_string":"a","new_string":"b"}"#,
            ["ask", "ask", "deny", "allow"],
        ),
        (
            "Bash",
            r#"{"command":"git status"}"#,
            ["allow", "allow", "allow", "allow"],
        ),
        (
            "Bash",
            r#"{"command":"npm run build"}"#,
            ["ask", "ask", "deny", "allow"],
        ),
        (
            "WebFetch",
            r#"{"url":"https://example.com"}"#,
            ["ask", "ask", "ask", "allow"],
        ),
        (
            "AskUserQuestion",
            r#"{"questions":[]}"#,
            ["ask", "ask", "ask", "ask"],
        ),
        (
            "ExitPlanMode",
            r#"{"plan":"p"}"#,
            ["deny", "deny", "ask", "deny"],
        ),
        (
            "EnterPlanMode",
            r#"{}"#,
            ["allow", "allow", "allow", "allow"],
        ),
    ];
    for (tool, input, expected) in rows {
        for (mode, want) in ["build", "edit", "plan", "yolo"].iter().zip(expected) {
            assert_eq!(
                &env.behavior(tool, input, mode),
                want,
                "{tool} {input} in {mode}"
            );
        }
    }
}

#[test]
fn cli6_check_prints_rule_id_reason_and_bash_analysis() {
    let env = Env::new();
    let v = env.check(
        "Write",
        r#"{"file_path":"a.txt","content":"x"}"#,
        &["--mode", "PLAN"],
    );
    assert_eq!(v["behavior"], "deny");
    assert_eq!(v["ruleId"], "mode.plan.restricted");
    assert_eq!(
        v["reason"],
        "Plan mode only allows read-only, non-destructive tools"
    );

    let v = env.check("Bash", r#"{"command":"git status && npm run build"}"#, &[]);
    assert_eq!(v["behavior"], "ask");
    assert_eq!(v["safeParse"], true);
    assert_eq!(v["readOnly"], false);
    assert_eq!(v["subcommands"].as_array().unwrap().len(), 2);
    assert_eq!(v["suggestions"][0]["ruleContent"], "npm run build:*");
}

#[test]
fn bash7_every_example_through_the_binary() {
    let env = Env::new();
    for (command, suggestion) in [
        ("npm run build", "npm run build:*"),
        ("python -m pytest -k x", "python -m pytest:*"),
        ("make test", "make test:*"),
        (r#"git commit -m \"x\""#, "git commit:*"),
        ("cargo test --release", "cargo test:*"),
        ("rm -rf build", "rm -rf build"),
    ] {
        let v = env.check("Bash", &format!(r#"{{"command":"{command}"}}"#), &[]);
        assert_eq!(v["suggestions"][0]["toolName"], "Bash", "{command}");
        assert_eq!(v["suggestions"][0]["ruleContent"], suggestion, "{command}");
    }
}

#[test]
fn grant4_add_list_remove_and_check_uses_saved_rules() {
    let env = Env::new();
    let cmd = r#"{"command":"npm run build --prod"}"#;
    assert_eq!(env.behavior("Bash", cmd, "build"), "ask");
    let out = env.run(&["permission", "add", "allow", "Bash", "npm run build:*"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Saving twice is de-duplicated (GRANT-1).
    let out = env.run(&["permission", "add", "allow", "Bash", "npm run build:*"]);
    assert!(stdout(&out).contains("already saved"));
    let v = env.check("Bash", cmd, &[]);
    assert_eq!(
        (v["behavior"].as_str(), v["ruleId"].as_str()),
        (Some("allow"), Some("rule.project.allow"))
    );
    // Still denied in plan: allow rules cannot lift the plan restriction.
    assert_eq!(env.behavior("Bash", cmd, "plan"), "deny");

    env.run(&["permission", "add", "deny", "Read", "*.env"]);
    let list = stdout(&env.run(&["permission", "list"]));
    assert!(
        list.contains("allow") && list.contains("npm run build:*"),
        "{list}"
    );
    assert!(list.contains("deny") && list.contains("*.env"), "{list}");
    let json: Value =
        serde_json::from_slice(&env.run(&["permission", "list", "--json"]).stdout).unwrap();
    assert_eq!(json["rules"]["deny"][0]["toolName"], "Read");

    // Rules belong to the project: another directory does not see them.
    let other = tempfile::tempdir().unwrap();
    let other_path = other.path().to_str().unwrap();
    let list = stdout(&env.run(&["permission", "list", "--cwd", other_path]));
    assert!(list.contains("No saved rules"), "{list}");

    let out = env.run(&["permission", "remove", "allow", "Bash", "npm run build:*"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(env.behavior("Bash", cmd, "build"), "ask");
    let out = env.run(&["permission", "remove", "allow", "Bash", "npm run build:*"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("no saved allow rule"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn exec7_mode_flag_errors_exit_non_zero() {
    let env = Env::new();
    for bad in ["auto", "fast"] {
        let out = env.run(&["--mode", bad, "permission", "list"]);
        assert!(!out.status.success(), "{bad}");
        assert!(stderr(&out).contains("mode"), "{}", stderr(&out));
    }
    let v = env.check(
        "Write",
        r#"{"file_path":"a","content":""}"#,
        &["--mode", "Yolo"],
    );
    assert_eq!(v["behavior"], "allow");
}

#[test]
fn dis1_disallowed_tools_before_clap_and_dis2_in_the_decision() {
    let env = Env::new();
    let out = env.run(&[
        "--disallowedTools",
        "Read",
        "Bash(git *)",
        "permission",
        "check",
        "--tool",
        "Read",
        "--input",
        r#"{"file_path":"a"}"#,
    ]);
    // The list ends at the subcommand's name: "permission" is not a tool.
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["behavior"], "deny");
    assert_eq!(v["ruleId"], "rule.disallowedTools");
    let out = env.run(&[
        "permission",
        "check",
        "--tool",
        "Bash",
        "--input",
        r#"{"command":"git status"}"#,
        "--disallowed-tools",
        "Read",
        "Bash(git *)",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ruleId"], "rule.disallowedTools");
    let out = env.run(&["permission", "list", "--disallowedTools"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("needs at least one tool name"));
}

#[test]
fn conf2_broken_config_is_one_clear_error() {
    let env = Env::new();
    std::fs::write(
        env.home.path().join("config.json"),
        "{\n  \"permission\": {\"mode\": }\n}",
    )
    .unwrap();
    let out = env.run(&["permission", "list"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("config.json:2:"), "{err}");
    assert!(
        !Path::new(&env.home.path().join("cli/db/db.sqlite")).exists(),
        "no data touched"
    );
}

#[test]
fn cli7_help_on_every_command() {
    let env = Env::new();
    for args in [
        vec!["--help"],
        vec!["permission", "--help"],
        vec!["permission", "check", "--help"],
        vec!["permission", "list", "--help"],
        vec!["permission", "add", "--help"],
        vec!["permission", "remove", "--help"],
        vec!["sessions", "list", "--help"],
    ] {
        let out = env.run(&args);
        assert!(out.status.success(), "{args:?}");
        assert!(stdout(&out).contains("Usage"), "{args:?}");
    }
    let help = stdout(&env.run(&["--help"]));
    assert!(
        help.contains(r#""Bash(rm:*)" denies only those commands"#),
        "{help}"
    );
    assert!(stdout(&env.run(&["--version"])).starts_with("zcode "));
}

#[test]
fn cli4_sessions_list_empty() {
    let env = Env::new();
    let out = env.run(&["sessions", "list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("No sessions"));
}

/// A database as an earlier release left it (schema 1): the current
/// schema minus the tables of steps 2 to 4, with sessions and settings
/// under old ids.
fn downgrade_to_schema_1(db: &Path, sessions: &[(&str, &Path)], rules_for: &Path) {
    use zcode::config::project_id::legacy_project_id;
    drop(zcode::store::Store::open(db).unwrap());
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch(
        "DROP TABLE project_id_carry_over; DROP TABLE session_lock; DROP TABLE sub_agent;
         PRAGMA user_version = 1;",
    )
    .unwrap();
    for (id, ws) in sessions {
        let ws = ws.to_str().unwrap();
        conn.execute(
            "INSERT INTO sessions (id, workspace, project_id, mode, created_at, updated_at)
             VALUES (?1, ?2, ?3, 'build', 1, 1)",
            rusqlite::params![id, ws, legacy_project_id(Path::new(ws))],
        )
        .unwrap();
    }
    conn.execute(
        "INSERT INTO local_setting (scope, scope_id, namespace, key, value, updated_at)
         VALUES ('project', ?1, 'permission', 'ruleset', ?2, 1)",
        rusqlite::params![
            legacy_project_id(rules_for),
            r#"{"allow":[{"toolName":"Bash","ruleContent":"make deploy:*"}]}"#
        ],
    )
    .unwrap();
}

#[test]
fn grant3_cli_shared_old_id_is_not_carried_over_and_is_reported_once() {
    let env = Env::new();
    let root = std::fs::canonicalize(env.project.path()).unwrap();
    let a = root.join("a/ws");
    let b = root.join("a-ws");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let db = env.home.path().join("cli/db/db.sqlite");
    downgrade_to_schema_1(&db, &[("s1", &a), ("s2", &b)], &a);

    let first = env.run(&["permission", "list", "--cwd", a.to_str().unwrap()]);
    assert!(first.status.success(), "{}", stderr(&first));
    let note = stderr(&first);
    assert!(note.contains("no longer apply"), "{note}");
    assert!(note.contains(a.to_str().unwrap()) && note.contains(b.to_str().unwrap()));
    let out = stdout(&first);
    assert!(out.contains("No saved rules"), "{out}");
    assert!(
        out.contains("Not applied") && out.contains("make deploy:*"),
        "{out}"
    );
    // Said once; the decision does not use the shared rule.
    let again = env.run(&["permission", "list", "--cwd", b.to_str().unwrap()]);
    assert!(
        !stderr(&again).contains("no longer apply"),
        "{}",
        stderr(&again)
    );
    let v = env.check(
        "Bash",
        r#"{"command":"make deploy"}"#,
        &["--cwd", a.to_str().unwrap()],
    );
    assert_eq!(v["behavior"], "ask", "{v}");
}

#[test]
fn grant3_cli_single_directory_keeps_its_rules_and_memory() {
    let env = Env::new();
    let root = std::fs::canonicalize(env.project.path()).unwrap();
    let a = root.join("a/ws");
    std::fs::create_dir_all(&a).unwrap();
    let db = env.home.path().join("cli/db/db.sqlite");
    downgrade_to_schema_1(&db, &[("s1", &a)], &a);
    let old_memory = env
        .home
        .path()
        .join("projects")
        .join(zcode::config::project_id::legacy_project_id(&a))
        .join("memory");
    std::fs::create_dir_all(&old_memory).unwrap();
    std::fs::write(old_memory.join("notes.md"), "n").unwrap();

    let v = env.check(
        "Bash",
        r#"{"command":"make deploy"}"#,
        &["--cwd", a.to_str().unwrap()],
    );
    assert_eq!(v["ruleId"], "rule.project.allow", "{v}");
    let new_memory = env
        .home
        .path()
        .join("projects")
        .join(zcode::config::project_id(&a))
        .join("memory/notes.md");
    assert!(new_memory.is_file(), "{new_memory:?}");
}

#[test]
fn perm10_cli_protected_git_config_in_edit_mode() {
    let env = Env::new();
    std::fs::create_dir_all(env.project.path().join(".git")).unwrap();
    let v = env.check(
        "Write",
        r#"{"file_path":"./.git//config","content":"[core]\n\tfsmonitor = x\n"}"#,
        &["--mode", "edit"],
    );
    assert_eq!(v["behavior"], "ask", "{v}");
    assert_eq!(v["ruleId"], "edit.protectedPath", "{v}");
    assert_eq!(v["suggestions"], serde_json::json!([]), "{v}");
    let v = env.check(
        "Write",
        r#"{"file_path":"src/main.rs","content":"x"}"#,
        &["--mode", "edit"],
    );
    assert_eq!(v["behavior"], "allow", "{v}");
}

#[test]
fn bash5_deny_follows_the_program_through_the_binary() {
    let env = Env::new();
    for (kind, content) in [("deny", "rm:*"), ("allow", "find:*"), ("allow", "env:*")] {
        let out = env.run(&["permission", "add", kind, "Bash", content]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    for command in [
        "find . -exec rm {} \\;",
        "env -S 'rm -rf x'",
        "/bin/rm -rf x",
        "timeout 5 nice -n5 rm x",
        "bash -c 'ls && rm x'",
        "echo $(rm x)",
    ] {
        let input = serde_json::json!({ "command": command }).to_string();
        let v = env.check("Bash", &input, &[]);
        assert_eq!(
            (v["behavior"].as_str(), v["ruleId"].as_str()),
            (Some("deny"), Some("rule.project.deny")),
            "{command}: {v}"
        );
    }
    let input = serde_json::json!({ "command": "find . -name rm" }).to_string();
    assert_eq!(env.check("Bash", &input, &[])["behavior"], "allow");
}

#[test]
fn bash5_git_globals_ask_through_the_binary() {
    let env = Env::new();
    env.run(&["permission", "add", "allow", "Bash", "git:*"]);
    env.run(&["permission", "add", "ask", "Bash", "git push:*"]);
    for command in [
        "git -c x.y=z push --force",
        "git -C . --no-pager push",
        "git -c alias.p=push p",
    ] {
        let input = serde_json::json!({ "command": command }).to_string();
        let v = env.check("Bash", &input, &[]);
        assert_eq!(v["ruleId"], "rule.project.ask", "{command}: {v}");
    }
    let input = serde_json::json!({ "command": "git -C . --no-pager commit -m x" }).to_string();
    assert_eq!(
        env.check("Bash", &input, &[])["ruleId"],
        "rule.project.allow"
    );
}

fn decided(v: &Value) -> (String, String) {
    (
        v["behavior"].as_str().unwrap_or("").to_string(),
        v["ruleId"].as_str().unwrap_or("").to_string(),
    )
}

#[test]
fn perm4_deny_rules_hold_in_yolo_through_the_binary() {
    let env = Env::new();
    let out = env.run(&["permission", "add", "deny", "Bash", "rm:*"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = env.run(&["permission", "add", "deny", "Write", ".git/*"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let yolo = ["--mode", "yolo"];
    let v = env.check("Bash", r#"{"command":"rm -rf x"}"#, &yolo);
    assert_eq!(decided(&v), ("deny".into(), "rule.project.deny".into()));
    let v = env.check(
        "Write",
        r#"{"file_path":".git/config","content":"x"}"#,
        &yolo,
    );
    assert_eq!(decided(&v), ("deny".into(), "rule.project.deny".into()));
    let v = env.check("Bash", r#"{"command":"touch x"}"#, &yolo);
    assert_eq!(decided(&v), ("allow".into(), "mode.yolo".into()));
    let v = env.check(
        "Bash",
        r#"{"command":"ls"}"#,
        &["--mode", "yolo", "--disallowedTools", "Bash"],
    );
    assert_eq!(decided(&v), ("deny".into(), "rule.disallowedTools".into()));
}

#[test]
fn allowed_tools_bash_content_allows_that_command_only() {
    let env = Env::new();
    let scoped = ["--mode", "build", "--allowedTools", "Bash(git diff:*)"];
    let v = env.check("Bash", r#"{"command":"git diff"}"#, &scoped);
    assert_eq!(v["behavior"], "allow", "{v}");
    for attack in ["rm x", "touch x", "git diff; rm x", "curl http://x"] {
        let v = env.check("Bash", &format!(r#"{{"command":"{attack}"}}"#), &scoped);
        assert_eq!(v["behavior"], "ask", "{attack}: {v}");
    }
    let scoped = ["--mode", "build", "--allowedTools", "Bash(make:*)"];
    let v = env.check("Bash", r#"{"command":"make test"}"#, &scoped);
    assert_eq!(decided(&v), ("allow".into(), "rule.allowedTools".into()));
    let v = env.check("Bash", r#"{"command":"rm x"}"#, &scoped);
    assert_eq!(v["behavior"], "ask", "{v}");
    // A bare name still allows the whole tool.
    let v = env.check(
        "Bash",
        r#"{"command":"rm x"}"#,
        &["--mode", "build", "--allowedTools", "Bash"],
    );
    assert_eq!(decided(&v), ("allow".into(), "rule.allowedTools".into()));
}

#[test]
fn allowed_tools_webfetch_domain_through_the_binary() {
    let env = Env::new();
    let scoped = [
        "--mode",
        "build",
        "--allowedTools",
        "WebFetch(domain:docs.rs)",
    ];
    let v = env.check("WebFetch", r#"{"url":"https://docs.rs/x"}"#, &scoped);
    assert_eq!(decided(&v), ("allow".into(), "rule.allowedTools".into()));
    let v = env.check("WebFetch", r#"{"url":"https://evil.example/"}"#, &scoped);
    assert_eq!(v["behavior"], "ask", "{v}");
    let v = env.check(
        "WebFetch",
        r#"{"url":"https://docs.rs/x"}"#,
        &["--plan", "--allowedTools", "WebFetch(domain:docs.rs)"],
    );
    assert_ne!(v["behavior"], "allow", "{v}");
}

#[test]
fn disallowed_tools_with_content_is_a_scoped_deny_and_edit_removes_write() {
    let env = Env::new();
    let scoped = ["--mode", "yolo", "--disallowedTools", "Bash(rm:*)"];
    let v = env.check("Bash", r#"{"command":"rm -rf x"}"#, &scoped);
    assert_eq!(decided(&v), ("deny".into(), "rule.disallowedTools".into()));
    let v = env.check("Bash", r#"{"command":"touch x"}"#, &scoped);
    assert_eq!(v["behavior"], "allow", "{v}");
    let v = env.check(
        "Write",
        r#"{"file_path":"a","content":""}"#,
        &["--mode", "yolo", "--disallowedTools", "Edit"],
    );
    assert_eq!(decided(&v), ("deny".into(), "rule.disallowedTools".into()));
    let out = env.run(&[
        "permission",
        "check",
        "--tool",
        "Bash",
        "--input",
        "{}",
        "--allowedTools",
        "Bash(git",
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("is not a rule"), "{}", stderr(&out));
}

#[test]
fn permission_add_takes_a_rule_in_one_argument() {
    let env = Env::new();
    let out = env.run(&["permission", "add", "allow", "Bash(make:*)"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: Value =
        serde_json::from_slice(&env.run(&["permission", "list", "--json"]).stdout).unwrap();
    assert_eq!(json["rules"]["allow"][0]["toolName"], "Bash");
    assert_eq!(json["rules"]["allow"][0]["ruleContent"], "make:*");
    let out = env.run(&["permission", "remove", "allow", "Bash(make:*)"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn bash5_cli_models_through_the_binary() {
    let env = Env::new();
    for (kind, content) in [
        ("deny", "rm -rf:*"),
        ("deny", "cargo publish:*"),
        ("ask", "kubectl delete:*"),
        ("allow", "kubectl:*"),
        ("allow", "cargo test:*"),
        ("allow", "make test:*"),
    ] {
        let out = env.run(&["permission", "add", kind, "Bash", content]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    for (command, rule_id) in [
        ("rm -r -f x", "rule.project.deny"),
        ("rm --recursive --force x", "rule.project.deny"),
        ("cargo -q +stable publish", "rule.project.deny"),
        ("vim -c '!rm -fr x'", "rule.project.deny"),
        ("/bin/r? -rf x", "rule.project.deny"),
        ("${RM:-rm} -rf x", "rule.project.deny"),
        ("kubectl -n prod delete pod p", "rule.project.ask"),
        ("cargo test --release", "rule.project.allow"),
        ("kubectl get pods -n prod", "rule.project.allow"),
    ] {
        let input = serde_json::json!({ "command": command }).to_string();
        let v = env.check("Bash", &input, &[]);
        assert_eq!(v["ruleId"], rule_id, "{command}: {v}");
    }
    for command in [
        "cargo test --config build.rustc-wrapper=/bin/sh",
        "make test SHELL=/bin/sh",
        "kubectl --kubeconfig /tmp/k get pods",
    ] {
        let input = serde_json::json!({ "command": command }).to_string();
        let v = env.check("Bash", &input, &[]);
        assert_eq!(v["behavior"], "ask", "{command}: {v}");
    }
}

/// The everyday commands users reported as needless questions run
/// unasked through the real binary (in the sandbox), and the ones whose
/// safety rests on the sandbox are asked without it.
#[test]
fn bash4_everyday_commands_are_not_asked_through_the_binary() {
    let env = Env::new();
    std::fs::write(env.project.path().join("file"), "a\n").unwrap();
    let strictly_asked = [
        "git reflog",
        "git stash show -p",
        "if [ -f x ]; then cat x; fi",
        "for f in src/*.rs; do wc -l \"$f\"; done",
        "ls ~",
        "docker --version",
        "git diff --text",
    ];
    for command in [
        "seq 10",
        "nproc",
        "uptime",
        "free -m",
        "od -c file",
        "strings file",
        "hexdump -C file",
        "git worktree list",
        "git ls-tree HEAD",
        "git show-ref",
        "git for-each-ref",
        "git version",
        "sed 's/a/b/' file",
        "awk '{print $1}' file",
    ]
    .into_iter()
    .chain(strictly_asked)
    {
        let input = serde_json::json!({ "command": command }).to_string();
        let v = env.check("Bash", &input, &[]);
        assert_eq!(v["behavior"], "allow", "{command}: {v}");
        let out = Command::new(env!("CARGO_BIN_EXE_zcode"))
            .args(["permission", "check", "--tool", "Bash", "--input", &input])
            .env("ZCODE_HOME", env.home.path())
            .env("ZCODE_SANDBOX_UNAVAILABLE", "1")
            .current_dir(env.project.path())
            .output()
            .expect("zcode runs");
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let want = if strictly_asked.contains(&command) {
            "ask"
        } else {
            "allow"
        };
        assert_eq!(v["behavior"], want, "without a sandbox: {command}: {v}");
    }
}
