//! Process hooks (HOOK-1..3): real shell scripts in a temporary directory.

#![cfg(unix)]

mod support;

use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use support::wait::{WAIT, until, within};
use tokio_util::sync::CancellationToken;
use zcode::config::hooks::{DEFAULT_HOOK_TIMEOUT_MS, HookEntry, Hooks};
use zcode::hooks::{HookError, HookRunner, PermissionHookDecision, ToolResponse};
use zcode::permission::check::HookPermission;
use zcode::permission::rules::Rule;
use zcode::protocol::{AlwaysOption, PermissionRequest};

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes an executable `#!/bin/sh` script and returns the command that
    /// runs it.
    fn script(&self, name: &str, body: &str) -> String {
        let path = self.path(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        format!("'{}'", path.display())
    }

    /// A hook that ignores its input and prints `output`.
    fn printing(&self, name: &str, output: &str) -> String {
        self.script(name, &format!("cat >/dev/null\necho '{output}'"))
    }

    fn runner(&self, hooks: Hooks) -> HookRunner {
        HookRunner::new(hooks, "sess_1", self.dir.path())
    }

    fn read_json(&self, name: &str) -> Value {
        let text = std::fs::read_to_string(self.path(name)).unwrap();
        serde_json::from_str(&text).unwrap()
    }
}

fn entry(matcher: &str, command: &str) -> HookEntry {
    HookEntry {
        matcher: matcher.to_string(),
        command: command.to_string(),
        timeout_ms: DEFAULT_HOOK_TIMEOUT_MS,
    }
}

fn pre(entries: Vec<HookEntry>) -> Hooks {
    Hooks {
        pre_tool_use: entries,
        ..Hooks::default()
    }
}

fn perm(entries: Vec<HookEntry>) -> Hooks {
    Hooks {
        permission_request: entries,
        ..Hooks::default()
    }
}

fn request() -> PermissionRequest {
    PermissionRequest {
        request_id: "perm_1".into(),
        kind: Default::default(),
        call_id: "call_1".into(),
        tool: "Bash".into(),
        input: json!({"command": "rm -rf build"}),
        rule_id: "build.risk.high".into(),
        reason: "High-risk tool needs approval".into(),
        suggestions: vec![Rule::with_content("Bash", "rm:*")],
        always: AlwaysOption::Project,
        full_access_available: true,
        description: None,
        edit_mode_available: false,
        allowed_prompts: Vec::new(),
        preview: None,
        agent: None,
    }
}

async fn run_pre(runner: &HookRunner) -> zcode::hooks::PreToolUseOutcome {
    runner
        .pre_tool_use(
            "Bash",
            &json!({"command": "ls"}),
            "call_1",
            &CancellationToken::new(),
        )
        .await
}

/// Whether a process exists and is not a zombie.
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
        Err(_) => false,
    }
}

async fn wait_dead(pid: u32) -> bool {
    until(WAIT, || !alive(pid)).await
}

async fn read_pid(path: &Path) -> u32 {
    let read = || {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.trim().parse().ok())
    };
    assert!(
        until(WAIT, || read().is_some()).await,
        "no pid written to {}",
        path.display()
    );
    read().unwrap_or_default()
}

// ---------------------------------------------------------------- HOOK-3

#[tokio::test]
async fn hook3_allow_ask_deny_and_none() {
    let fx = Fixture::new();
    for (output, expected) in [
        (r#"{"decision":"allow"}"#, Some(HookPermission::Allow)),
        (r#"{"decision":"ask"}"#, Some(HookPermission::Ask)),
        (
            r#"{"decision":"deny","reason":"no"}"#,
            Some(HookPermission::Deny("no".into())),
        ),
        (r#"{"decision":null}"#, None),
        ("{}", None),
    ] {
        let cmd = fx.printing("h.sh", output);
        let out = run_pre(&fx.runner(pre(vec![entry("Bash", &cmd)]))).await;
        assert_eq!(out.permission, expected, "output {output}");
        assert!(out.errors.is_empty(), "{:?}", out.errors);
    }
    // Empty stdout is no decision either.
    let cmd = fx.script("silent.sh", "cat >/dev/null");
    let out = run_pre(&fx.runner(pre(vec![entry("Bash", &cmd)]))).await;
    assert_eq!(out.permission, None);
    assert!(out.errors.is_empty());
}

#[tokio::test]
async fn hook3_claude_code_shape() {
    let fx = Fixture::new();
    let cmd = fx.printing(
        "h.sh",
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not here","updatedInput":{"command":"true"}}}"#,
    );
    let out = run_pre(&fx.runner(pre(vec![entry("*", &cmd)]))).await;
    assert_eq!(
        out.permission,
        Some(HookPermission::Deny("not here".into()))
    );
}

#[tokio::test]
async fn hook3_deny_wins_then_ask_then_allow() {
    let fx = Fixture::new();
    let allow = fx.printing("allow.sh", r#"{"decision":"allow"}"#);
    let ask = fx.printing("ask.sh", r#"{"decision":"ask"}"#);
    let deny1 = fx.printing("deny1.sh", r#"{"decision":"deny","reason":"first"}"#);
    let deny2 = fx.printing("deny2.sh", r#"{"decision":"deny","reason":"second"}"#);
    let out = run_pre(&fx.runner(pre(vec![
        entry("Bash", &allow),
        entry("Bash", &ask),
        entry("Bash", &deny1),
        entry("Bash", &deny2),
    ])))
    .await;
    assert_eq!(out.permission, Some(HookPermission::Deny("first".into())));

    let out = run_pre(&fx.runner(pre(vec![
        entry("Bash", &allow),
        entry("Bash", &ask),
        entry("Bash", &allow),
    ])))
    .await;
    assert_eq!(out.permission, Some(HookPermission::Ask));

    let none = fx.printing("none.sh", "{}");
    let out = run_pre(&fx.runner(pre(vec![entry("Bash", &none), entry("Bash", &allow)]))).await;
    assert_eq!(out.permission, Some(HookPermission::Allow));
}

#[tokio::test]
async fn hook3_exit_2_denies_with_stderr() {
    let fx = Fixture::new();
    let cmd = fx.script(
        "h.sh",
        "cat >/dev/null\necho '{\"decision\":\"allow\"}'\necho 'rm is forbidden' >&2\nexit 2",
    );
    let out = run_pre(&fx.runner(pre(vec![entry("Bash", &cmd)]))).await;
    assert_eq!(
        out.permission,
        Some(HookPermission::Deny("rm is forbidden".into()))
    );
}

#[tokio::test]
async fn hook1_other_exit_codes_are_no_decision_with_an_error() {
    let fx = Fixture::new();
    for code in [1, 3, 127] {
        let cmd = fx.script(
            "h.sh",
            &format!(
                "cat >/dev/null\necho '{{\"decision\":\"deny\"}}'\necho oops >&2\nexit {code}"
            ),
        );
        let out = run_pre(&fx.runner(pre(vec![entry("Bash", &cmd)]))).await;
        assert_eq!(out.permission, None);
        assert_eq!(out.errors.len(), 1);
        assert!(
            out.errors[0].contains(&format!("exited with code {code}")),
            "{:?}",
            out.errors
        );
        assert!(out.errors[0].contains("oops"));
    }
}

#[tokio::test]
async fn hook1_garbage_stdout_is_no_decision_with_an_error() {
    let fx = Fixture::new();
    let garbage = fx.printing("garbage.sh", "definitely not json");
    let bad_word = fx.printing("word.sh", r#"{"decision":"perhaps"}"#);
    let allow = fx.printing("allow.sh", r#"{"decision":"allow"}"#);
    let out = run_pre(&fx.runner(pre(vec![
        entry("Bash", &garbage),
        entry("Bash", &bad_word),
        entry("Bash", &allow),
    ])))
    .await;
    // The broken hooks are skipped; the working one still counts.
    assert_eq!(out.permission, Some(HookPermission::Allow));
    assert_eq!(out.errors.len(), 2, "{:?}", out.errors);
}

#[tokio::test]
async fn hook1_spawn_failure_is_no_decision() {
    let fx = Fixture::new();
    let runner = HookRunner::new(
        pre(vec![entry("Bash", "echo '{\"decision\":\"deny\"}'")]),
        "sess_1",
        fx.path("missing-dir"),
    );
    let out = run_pre(&runner).await;
    assert_eq!(out.permission, None);
    assert_eq!(out.errors.len(), 1);
    assert!(out.errors[0].contains("cannot start"), "{:?}", out.errors);
}

#[tokio::test]
async fn hook1_timeout_kills_the_process_group() {
    let fx = Fixture::new();
    let pid_file = fx.path("child.pid");
    let cmd = fx.script(
        "slow.sh",
        &format!(
            "cat >/dev/null\nsleep 3600 &\necho $! > '{}'\nwait\necho '{{\"decision\":\"deny\"}}'",
            pid_file.display()
        ),
    );
    let mut slow = entry("Bash", &cmd);
    slow.timeout_ms = 200;
    // The hook sleeps for an hour: only its 200 ms timeout ends it.
    let out = within("the hook's timeout", run_pre(&fx.runner(pre(vec![slow])))).await;
    assert_eq!(out.permission, None);
    assert!(
        out.errors[0].contains("timed out after 200 ms"),
        "{:?}",
        out.errors
    );
    let pid = read_pid(&pid_file).await;
    assert!(wait_dead(pid).await, "the hook's child {pid} survived");
}

#[tokio::test]
async fn hook1_cancellation_kills_the_hook() {
    let fx = Fixture::new();
    let pid_file = fx.path("child.pid");
    let cmd = fx.script(
        "slow.sh",
        &format!(
            "cat >/dev/null\nsleep 3600 &\necho $! > '{}'\nwait",
            pid_file.display()
        ),
    );
    let runner = fx.runner(perm(vec![entry("Bash", &cmd)]));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let pid_path = pid_file.clone();
    tokio::spawn(async move {
        read_pid(&pid_path).await;
        trigger.cancel();
    });
    // The hook sleeps for an hour: only the cancellation ends it.
    let result = within(
        "the cancellation",
        runner.permission_request(&request(), &cancel),
    )
    .await;
    assert_eq!(result, Err(HookError::Cancelled));
    let pid = read_pid(&pid_file).await;
    assert!(wait_dead(pid).await, "the hook's child {pid} survived");
}

#[tokio::test]
async fn hook1_output_is_capped() {
    let fx = Fixture::new();
    let cmd = fx.script("big.sh", "cat >/dev/null\nhead -c 3000000 /dev/zero");
    let out = run_pre(&fx.runner(pre(vec![entry("Bash", &cmd)]))).await;
    assert_eq!(out.permission, None);
    assert!(out.errors[0].contains("exceeded"), "{:?}", out.errors);
}

#[tokio::test]
async fn fault_hook_exit_2_with_10_mb_of_stderr_gives_a_capped_reason() {
    let fx = Fixture::new();
    let cmd = fx.script(
        "loud.sh",
        "cat >/dev/null\nhead -c 10000000 /dev/zero | tr '\\0' x >&2\nexit 2",
    );
    let out = within(
        "the hook with 10 MB of stderr",
        run_pre(&fx.runner(pre(vec![entry("Bash", &cmd)]))),
    )
    .await;
    let Some(HookPermission::Deny(reason)) = out.permission else {
        panic!("exit 2 denies: {out:?}");
    };
    let cap = zcode::hooks::MAX_HOOK_REASON_CHARS;
    assert!(reason.len() < cap + 200, "{} bytes", reason.len());
    assert!(reason.starts_with(&"x".repeat(cap)), "{}", &reason[..100]);
    assert!(
        reason.ends_with("10000000 bytes in all]"),
        "{}",
        &reason[cap..]
    );

    // The PermissionRequest chain denies with the same capped reason.
    let got = fx
        .runner(perm(vec![entry("Bash", &cmd)]))
        .permission_request(&request(), &CancellationToken::new())
        .await;
    let Ok(Some(PermissionHookDecision::Deny { message })) = got else {
        panic!("{got:?}");
    };
    assert_eq!(message, reason);
}

#[tokio::test]
async fn hook3_updated_input_is_chained_and_returned() {
    let fx = Fixture::new();
    let first = fx.printing(
        "first.sh",
        r#"{"decision":"allow","updatedInput":{"command":"ls -la"}}"#,
    );
    let second = fx.script(
        "second.sh",
        &format!("cat > '{}'\necho '{{}}'", fx.path("second.json").display()),
    );
    let out = run_pre(&fx.runner(pre(vec![entry("Bash", &first), entry("Bash", &second)]))).await;
    assert_eq!(out.permission, Some(HookPermission::Allow));
    assert_eq!(out.updated_input, Some(json!({"command": "ls -la"})));
    assert_eq!(
        fx.read_json("second.json")["toolInput"],
        json!({"command": "ls -la"})
    );
}

#[tokio::test]
async fn hook1_matcher_selects_hooks() {
    let fx = Fixture::new();
    let deny = fx.printing("deny.sh", r#"{"decision":"deny"}"#);
    let out =
        run_pre(&fx.runner(pre(vec![entry("Edit|Write", &deny), entry("bash", &deny)]))).await;
    assert_eq!(out.permission, None);
    assert!(out.errors.is_empty());
    let out = run_pre(&fx.runner(pre(vec![entry("Read|Bash", &deny)]))).await;
    assert!(matches!(out.permission, Some(HookPermission::Deny(_))));
}

#[tokio::test]
async fn hook1_stdin_is_the_event_and_cwd_the_workspace() {
    let fx = Fixture::new();
    let cmd = fx.script(
        "record.sh",
        &format!(
            "cat > '{}'\npwd > '{}'",
            fx.path("pre.json").display(),
            fx.path("pwd.txt").display()
        ),
    );
    let out = run_pre(&fx.runner(pre(vec![entry("Bash", &cmd)]))).await;
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let cwd = fx.dir.path().to_string_lossy().into_owned();
    assert_eq!(
        fx.read_json("pre.json"),
        json!({
            "hookEventName": "PreToolUse",
            "sessionId": "sess_1",
            "cwd": cwd,
            "toolName": "Bash",
            "toolInput": {"command": "ls"},
            "toolUseId": "call_1"
        })
    );
    let pwd = std::fs::read_to_string(fx.path("pwd.txt")).unwrap();
    assert_eq!(
        std::fs::canonicalize(pwd.trim()).unwrap(),
        std::fs::canonicalize(fx.dir.path()).unwrap()
    );
}

// ---------------------------------------------------------------- HOOK-2

#[tokio::test]
async fn hook2_permission_request_event_and_first_decision_wins() {
    let fx = Fixture::new();
    let record = fx.script(
        "record.sh",
        &format!("cat > '{}'\necho '{{}}'", fx.path("perm.json").display()),
    );
    let allow = fx.printing(
        "allow.sh",
        r#"{"decision":"allow","updatedInput":{"command":"rm -rf build/tmp"},"rules":[{"toolName":"Bash","ruleContent":"rm -rf build/tmp"}]}"#,
    );
    let deny = fx.printing("deny.sh", r#"{"decision":"deny","message":"late"}"#);
    let runner = fx.runner(perm(vec![
        entry("Bash", &record),
        entry("Bash", &allow),
        entry("Bash", &deny),
    ]));
    let got = runner
        .permission_request(&request(), &CancellationToken::new())
        .await;
    assert_eq!(
        got,
        Ok(Some(PermissionHookDecision::Allow {
            updated_input: Some(json!({"command": "rm -rf build/tmp"})),
            rules: vec![Rule::with_content("Bash", "rm -rf build/tmp")],
        }))
    );
    let cwd = fx.dir.path().to_string_lossy().into_owned();
    assert_eq!(
        fx.read_json("perm.json"),
        json!({
            "hookEventName": "PermissionRequest",
            "sessionId": "sess_1",
            "cwd": cwd,
            "toolName": "Bash",
            "toolInput": {"command": "rm -rf build"},
            "toolUseId": "call_1",
            "permissionDecision": {
                "behavior": "ask",
                "ruleId": "build.risk.high",
                "reason": "High-risk tool needs approval"
            },
            "suggestions": [{"toolName": "Bash", "ruleContent": "rm:*"}]
        })
    );
}

#[tokio::test]
async fn hook2_deny_exit_2_none_and_errors() {
    let fx = Fixture::new();
    let cancel = CancellationToken::new();

    let deny = fx.printing("deny.sh", r#"{"decision":"deny","message":"not today"}"#);
    let got = fx
        .runner(perm(vec![entry("Bash", &deny)]))
        .permission_request(&request(), &cancel)
        .await;
    assert_eq!(
        got,
        Ok(Some(PermissionHookDecision::Deny {
            message: "not today".into()
        }))
    );

    let blocking = fx.script("block.sh", "cat >/dev/null\necho blocked >&2\nexit 2");
    let got = fx
        .runner(perm(vec![entry("Bash", &blocking)]))
        .permission_request(&request(), &cancel)
        .await;
    assert_eq!(
        got,
        Ok(Some(PermissionHookDecision::Deny {
            message: "blocked".into()
        }))
    );

    let none = fx.printing("none.sh", "{}");
    let got = fx
        .runner(perm(vec![entry("Bash", &none), entry("Edit", &deny)]))
        .permission_request(&request(), &cancel)
        .await;
    assert_eq!(got, Ok(None));
    let got = fx
        .runner(Hooks::default())
        .permission_request(&request(), &cancel)
        .await;
    assert_eq!(got, Ok(None));

    let broken = fx.script("broken.sh", "cat >/dev/null\nexit 1");
    let got = fx
        .runner(perm(vec![entry("Bash", &broken), entry("Bash", &none)]))
        .permission_request(&request(), &cancel)
        .await;
    assert!(
        matches!(got, Err(HookError::Failed(ref e)) if e.len() == 1),
        "{got:?}"
    );

    // A broken hook does not stop a later one from deciding.
    let got = fx
        .runner(perm(vec![entry("Bash", &broken), entry("Bash", &deny)]))
        .permission_request(&request(), &cancel)
        .await;
    assert!(matches!(got, Ok(Some(PermissionHookDecision::Deny { .. }))));
}

// ---------------------------------------------------------------- PostToolUse

#[tokio::test]
async fn post_tool_use_gets_the_result_and_reports_failures() {
    let fx = Fixture::new();
    let record = fx.script(
        "record.sh",
        &format!(
            "cat > '{}'\necho '{{\"decision\":\"deny\"}}'",
            fx.path("post.json").display()
        ),
    );
    let broken = fx.script("broken.sh", "cat >/dev/null\nexit 3");
    let runner = fx.runner(Hooks {
        post_tool_use: vec![entry("Edit", &record), entry("*", &broken)],
        ..Hooks::default()
    });
    let errors = runner
        .post_tool_use(
            "Edit",
            &json!({"file_path": "a.rs"}),
            "call_9",
            ToolResponse {
                output: "ok".into(),
                is_error: false,
            },
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(errors.len(), 1);
    assert!(errors[0].contains("exited with code 3"));
    let event = fx.read_json("post.json");
    assert_eq!(event["hookEventName"], "PostToolUse");
    assert_eq!(event["toolUseId"], "call_9");
    assert_eq!(
        event["toolResponse"],
        json!({"output": "ok", "isError": false})
    );
}
