//! BASH-4, BASH-5: a part of a command line that is read-only only because
//! the read-only sandbox would contain it never runs outside the sandbox.
//! An allow rule covering the rest of the line would run the whole line
//! unsandboxed, so such a line is asked. Operands Bash evaluates
//! arithmetically (`test -v 'a[$(cmd)]'`) are code, in every mode. Through
//! the real binary (`zcode permission check`, `zcode -p`).
#![cfg(target_os = "linux")]

mod support;

use serde_json::{Value, json};
use support::fake_model_server::{FakeModelServer, Reply, openai_tool_result, sse};
use support::headless::{Harness, openai_env};

async fn check(h: &Harness, command: &str, plan: bool) -> Value {
    let input = json!({ "command": command }).to_string();
    let mut args = vec!["permission", "check", "--tool", "Bash", "--input", &input];
    if plan {
        args.push("--plan");
    }
    let run = h.run(&args, &[]).await;
    assert_eq!(run.code, Some(0), "{run}");
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run}"))
}

async fn allow(h: &Harness, content: &str) {
    let run = h
        .run(&["permission", "add", "allow", "Bash", content], &[])
        .await;
    assert_eq!(run.code, Some(0), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn bash5_sandbox_only_part_beside_an_allowed_command_is_asked() {
    let h = Harness::new();
    h.write_config(&json!({"permission": {"readOnlyCommands": ["mytool:*"]}}));
    allow(&h, "npm test:*").await;
    for command in [
        "npm test; [ -v 'a[$(touch x)]' ]",
        "npm test; test -v 'a[$(touch x)]'",
        "npm test && cd /tmp",
        "npm test; cat $HOME/x",
        "npm test; ls *",
        "npm test; ls ~",
        "npm test; mytool",
        "npm test; [ -f x ]",
        "npm test; git status",
        "npm test; cargo --version",
    ] {
        let out = check(&h, command, false).await;
        assert_eq!(out["behavior"], "ask", "{command}: {out}");
        assert_eq!(out["sandbox"], "none", "{command}: {out}");
    }
    for command in [
        "npm test; cat README.md",
        "npm test && git log --oneline --no-show-signature",
    ] {
        let out = check(&h, command, false).await;
        assert_eq!(out["behavior"], "allow", "{command}: {out}");
        assert_eq!(out["sandbox"], "none", "{command}: {out}");
    }
    // Read-only as a whole: the read-only judgment decides, in the sandbox.
    for command in ["mytool", "ls * && cd src", "git status"] {
        let out = check(&h, command, false).await;
        assert_eq!(out["behavior"], "allow", "{command}: {out}");
        assert_eq!(out["sandbox"], "read-only", "{command}: {out}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn bash4_arithmetic_operands_are_code_in_plan_mode_and_build() {
    let h = Harness::new();
    for command in [
        "test -v 'a[$(touch x)]'",
        "[ -v 'a[$(touch x)]' ]",
        "[ -v 'a[x]' ]",
        "test -R 'r[0]'",
        "test -f x && [ -v \"a[\\$(id)]\" ]",
        "test -v \"$X\"",
        "test $A $B",
        "[ -f * ]",
    ] {
        let plan = check(&h, command, true).await;
        assert_eq!(plan["behavior"], "deny", "{command}: {plan}");
        let build = check(&h, command, false).await;
        assert_eq!(build["behavior"], "ask", "{command}: {build}");
    }
    for command in [
        "[ -f x ]",
        "test -n \"$X\"",
        "[ \"$A\" = \"$B\" ]",
        "test -v x",
    ] {
        let plan = check(&h, command, true).await;
        assert_eq!(plan["behavior"], "allow", "{command}: {plan}");
        assert_eq!(plan["sandbox"], "read-only", "{command}: {plan}");
    }
}

/// The attack end to end: with `touch a.txt:*` allowed, the arithmetic
/// operand beside it ran unsandboxed before; now nothing runs unasked.
#[tokio::test(flavor = "multi_thread")]
async fn bash5_allowed_command_does_not_carry_an_arithmetic_operand_out_of_the_sandbox() {
    let h = Harness::new();
    allow(&h, "touch a.txt:*").await;
    let server = FakeModelServer::start().await;
    let command = "touch a.txt; [ -v 'a[$(touch pwned)]' ]";
    let args = json!({ "command": command }).to_string();
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls("", &[("c1", "Bash", &args)])),
        Reply::sse(sse::openai_text("done")),
    ]);
    let run = h
        .run(&["-p", "go", "--mode", "build"], &openai_env(&server))
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{run}");
    let result = openai_tool_result(&requests[1].json(), "c1");
    assert!(result.contains("NOT executed"), "{result}");
    assert!(!h.project().join("pwned").exists(), "{result}");
    assert!(!h.project().join("a.txt").exists(), "{result}");
}
