//! A Read deny or ask rule is about a file's contents, whichever tool
//! reads them: Grep and Glob given the path, a directory search that
//! meets the file, and shell commands whose words name it (directly,
//! through a redirection or a glob, or by walking a directory). Checked
//! through the real binary: `zcode permission check` and a headless run.

#![cfg(unix)]

mod support;

use serde_json::{Value, json};
use std::process::{Command, Output};
use support::fake_model_server::{FakeModelServer, Reply, openai_tool_result, sse};
use support::headless::{Harness, openai_env};

const SECRET: &str = "API_KEY=sk-live-s3cr3t";

fn zcode(h: &Harness, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zcode"))
        .args(args)
        .env("ZCODE_HOME", h.home())
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .current_dir(h.project())
        .output()
        .expect("zcode runs")
}

fn check(h: &Harness, tool: &str, input: &Value, extra: &[&str]) -> (String, String) {
    let input = input.to_string();
    let mut args = vec!["permission", "check", "--tool", tool, "--input", &input];
    args.extend_from_slice(extra);
    let out = zcode(h, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    (
        v["behavior"].as_str().unwrap_or_default().to_string(),
        v["ruleId"].as_str().unwrap_or_default().to_string(),
    )
}

fn project_with_secret(h: &Harness) {
    let p = h.project();
    std::fs::write(p.join(".env"), SECRET).unwrap();
    std::fs::create_dir_all(p.join("config")).unwrap();
    std::fs::write(p.join("config/prod.env"), SECRET).unwrap();
    std::fs::write(p.join("README.md"), "hello\n").unwrap();
    std::os::unix::fs::symlink(p.join(".env"), p.join("innocent.txt")).unwrap();
    let out = zcode(h, &["permission", "add", "deny", "Read", "*.env"]);
    assert!(out.status.success(), "{out:?}");
}

fn bash(command: &str) -> Value {
    json!({ "command": command })
}

#[test]
fn read_deny_covers_grep_and_glob_given_the_path() {
    let h = Harness::new();
    project_with_secret(&h);
    for mode in ["build", "edit", "plan"] {
        let extra: Vec<&str> = if mode == "plan" {
            vec!["--plan"]
        } else {
            vec!["--mode", mode]
        };
        let grep = json!({"pattern": ".", "path": ".env"});
        assert_eq!(check(&h, "Grep", &grep, &extra).0, "deny", "{mode}");
        let grep = json!({"pattern": ".", "path": "config/prod.env"});
        assert_eq!(check(&h, "Grep", &grep, &extra).0, "deny", "{mode}");
        let read = json!({"file_path": "innocent.txt"});
        assert_eq!(check(&h, "Read", &read, &extra).0, "deny", "{mode}");
        let grep = json!({"pattern": ".", "path": "README.md"});
        assert_eq!(check(&h, "Grep", &grep, &extra).0, "allow", "{mode}");
    }
}

#[test]
fn read_deny_covers_shell_reads_of_the_file() {
    let h = Harness::new();
    project_with_secret(&h);
    for command in [
        "cat .env",
        "cat ./.env",
        "head -n 5 config/prod.env",
        "cat < .env",
        "wc -c README.md && cat .env",
        "cat .e*",
        "cat config/*.env",
        "cat innocent.txt",
        "cat .en?",
        "file -f.env",
        "cd config && cat prod.env",
        "git show HEAD:config/prod.env",
        "git cat-file -p :.env",
    ] {
        for extra in [&["--mode", "build"][..], &["--plan"][..]] {
            let (behavior, rule) = check(&h, "Bash", &bash(command), extra);
            // Plan mode may deny it first, for a command it never allows.
            assert_eq!(behavior, "deny", "{command} {extra:?}");
            if extra == ["--mode", "build"] {
                assert_eq!(rule, "rule.project.deny", "{command}");
            }
        }
    }
    // What reads no covered file is decided as before.
    for command in [
        "cat README.md",
        "grep -r hello README.md",
        "ls -la",
        "wc -l README.md",
    ] {
        let (behavior, _) = check(&h, "Bash", &bash(command), &["--mode", "build"]);
        assert_eq!(behavior, "allow", "{command}");
    }
    // A recursive reader of a directory holding a covered file is asked
    // about (it may skip the file), whatever spelling turns it on.
    for command in [
        "grep --directories=recurse KEY config",
        "grep -d recurse KEY config",
        "grep --recu KEY config",
        "diff -r config /tmp",
        "rg KEY config",
        "git grep KEY",
    ] {
        let (behavior, _) = check(&h, "Bash", &bash(command), &["--mode", "build"]);
        assert_ne!(behavior, "allow", "{command}");
    }
    // A word only the shell can expand is asked about, not allowed.
    let (behavior, _) = check(&h, "Bash", &bash("cat \"$F\""), &["--mode", "build"]);
    assert_ne!(behavior, "allow");
}

/// A directory search leaves the covered files out and says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grep_and_glob_leave_covered_files_out_of_a_directory_search() {
    let h = Harness::new();
    project_with_secret(&h);
    let server = FakeModelServer::start().await;
    let grep = json!({"pattern": "s3cr3t|hello", "output_mode": "content"}).to_string();
    let glob = json!({"pattern": "**/*"}).to_string();
    server.enqueue(Reply::sse(sse::openai_tool_calls(
        "",
        &[("g", "Grep", grep.as_str()), ("l", "Glob", glob.as_str())],
    )));
    server.enqueue(Reply::sse(sse::openai_text("done")));
    let run = h
        .run(
            &["--mode", "plan", "-p", "find the key"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let body = server.requests()[1].json();
    let grep_result = openai_tool_result(&body, "g");
    assert!(grep_result.contains("hello"), "{grep_result}");
    assert!(!grep_result.contains("s3cr3t"), "{grep_result}");
    assert!(grep_result.contains("left out"), "{grep_result}");
    let glob_result = openai_tool_result(&body, "l");
    assert!(glob_result.contains("README.md"), "{glob_result}");
    assert!(!glob_result.contains("prod.env"), "{glob_result}");
}
