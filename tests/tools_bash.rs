//! TOOL-4 Bash: output, exit codes, the workspace as cwd, timeouts and
//! cancellation killing the whole process group, the output budget.

mod support;

use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;
use support::wait::{WAIT, until, within};
use zcode::tools::bash::{BashInput, DEFAULT_TIMEOUT_MS};
use zcode::tools::{BashTool, Tool, ToolContext, ToolOutput};

fn ws() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    (dir, ToolContext::new(root, "bash-test"))
}

async fn bash(ctx: &ToolContext, input: Value) -> ToolOutput {
    let input = BashTool.validate(input).unwrap();
    BashTool.run(input, ctx).await
}

/// The pids a command printed, one per line, each line just digits.
fn pids(output: &str) -> Vec<i32> {
    output
        .lines()
        .filter_map(|l| l.trim().parse::<i32>().ok())
        .collect()
}

/// Whether `pid` is a live process (a zombie waiting to be reaped counts as
/// gone).
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => {
            let status = std::process::Command::new("kill")
                .args(["-0", &pid.to_string()])
                .stderr(std::process::Stdio::null())
                .status()
                .unwrap();
            status.success()
        }
    }
}

/// Waits for the kernel to finish tearing processes down. The processes
/// the tests start sleep far longer than this waits, so only a kill ends
/// them in time.
async fn gone(pid: i32) -> bool {
    until(WAIT, || !alive(pid)).await
}

#[tokio::test]
async fn tool4_bash_returns_output_and_exit_code() {
    let (_d, ctx) = ws();
    let out = bash(&ctx, json!({"command": "echo hello"})).await;
    assert!(!out.is_error);
    assert_eq!(out.content, "hello\n\nExit code: 0");
}

#[tokio::test]
async fn tool4_bash_nonzero_exit_is_reported_not_an_error() {
    let (_d, ctx) = ws();
    let out = bash(&ctx, json!({"command": "echo oops >&2; exit 3"})).await;
    assert!(!out.is_error, "a failing command is a normal result");
    assert_eq!(out.content, "oops\n\nExit code: 3");
}

#[tokio::test]
async fn tool4_bash_combines_stdout_and_stderr_in_order() {
    let (_d, ctx) = ws();
    let out = bash(
        &ctx,
        json!({"command": "echo one; echo two >&2; echo three; echo four >&2"}),
    )
    .await;
    assert_eq!(out.content, "one\ntwo\nthree\nfour\n\nExit code: 0");
}

#[tokio::test]
async fn tool4_bash_runs_in_the_workspace() {
    let (_d, ctx) = ws();
    let out = bash(&ctx, json!({"command": "pwd -P"})).await;
    assert_eq!(
        out.content,
        format!("{}\n\nExit code: 0", ctx.workspace.display())
    );
    std::fs::write(ctx.workspace.join("marker.txt"), "").unwrap();
    let out = bash(&ctx, json!({"command": "ls"})).await;
    assert!(out.content.starts_with("marker.txt\n"), "{}", out.content);
}

#[tokio::test]
async fn tool4_bash_stdin_is_empty_and_no_output_is_said() {
    let (_d, ctx) = ws();
    // A stdin left open would keep `cat` waiting for ever.
    let out = within(
        "cat on an empty stdin",
        bash(&ctx, json!({"command": "cat"})),
    )
    .await;
    assert_eq!(out.content, "(no output)\n\nExit code: 0");
}

#[tokio::test]
async fn tool4_bash_uses_bash() {
    let (_d, ctx) = ws();
    let out = bash(&ctx, json!({"command": "echo ${BASH_VERSION:+bash}"})).await;
    assert!(out.content.starts_with("bash\n"), "{}", out.content);
}

#[tokio::test]
async fn tool4_bash_timeout_kills_the_process_group() {
    let (_d, ctx) = ws();
    let out = within(
        "the 500 ms timeout",
        bash(
            &ctx,
            json!({"command": "sleep 3600 & echo $!; sleep 3600", "timeout": 500}),
        ),
    )
    .await;
    assert!(out.is_error);
    assert!(
        out.content
            .ends_with("Command timed out after 500 ms; its process group was killed."),
        "{}",
        out.content
    );
    let pids = pids(&out.content);
    assert_eq!(pids.len(), 1, "{}", out.content);
    assert!(gone(pids[0]).await, "background sleep {} survived", pids[0]);
}

#[tokio::test]
async fn tool4_bash_cancellation_kills_grandchildren() {
    let (_d, ctx) = ws();
    let cancel = ctx.cancel.clone();
    // The command says when both sleeps run; the cancellation comes then.
    let started = ctx.workspace.join("started");
    let canceller = tokio::spawn(async move {
        assert!(
            until(WAIT, || started.exists()).await,
            "the command never started"
        );
        cancel.cancel();
    });
    let out = within(
        "the cancellation",
        bash(
            &ctx,
            json!({"command": "sleep 3600 & echo $!; (sleep 3600 & echo $!; touch started; wait) & wait"}),
        ),
    )
    .await;
    canceller.await.unwrap();
    assert!(out.is_error);
    assert!(
        out.content
            .ends_with("Command was interrupted; its process group was killed."),
        "{}",
        out.content
    );
    let pids = pids(&out.content);
    assert_eq!(pids.len(), 2, "{}", out.content);
    for pid in pids {
        assert!(gone(pid).await, "process {pid} survived the cancellation");
    }
}

#[tokio::test]
async fn tool4_bash_sigterm_ignored_escalates_to_sigkill() {
    let (_d, ctx) = ws();
    let out = bash(
        &ctx,
        json!({"command": "trap '' TERM; sleep 3600 & echo $!; wait", "timeout": 300}),
    )
    .await;
    assert!(out.is_error);
    assert!(out.content.contains("timed out"), "{}", out.content);
    let pids = pids(&out.content);
    assert_eq!(pids.len(), 1, "{}", out.content);
    assert!(gone(pids[0]).await);
}

#[tokio::test]
async fn tool4_bash_background_process_does_not_hold_the_result() {
    let (_d, ctx) = ws();
    let out = within(
        "the result before the background sleep ends",
        bash(
            &ctx,
            json!({"command": "sleep 3600 & echo $! > bg.pid; echo started"}),
        ),
    )
    .await;
    let bg = std::fs::read_to_string(ctx.workspace.join("bg.pid")).unwrap();
    // SAFETY: kill(2) on the sleep this test started.
    unsafe { libc::kill(bg.trim().parse().unwrap(), libc::SIGKILL) };
    assert_eq!(out.content, "started\n\nExit code: 0");
}

#[tokio::test]
async fn tool4_bash_truncates_long_output_with_a_note() {
    let (_d, ctx) = ws();
    let out = bash(&ctx, json!({"command": "seq 1 100000"})).await;
    assert!(!out.is_error);
    assert!(out.content.starts_with("1\n2\n3\n"));
    assert!(out.content.ends_with("99999\n100000\n\nExit code: 0"));
    assert!(
        out.content.contains("bytes of output cut here"),
        "{}",
        &out.content[..200]
    );
    let total: usize = (1..=100000).map(|n: u32| n.to_string().len() + 1).sum();
    let cut = total - 30_000;
    assert!(
        out.content
            .contains(&format!("[{cut} bytes of output cut here")),
        "expected {cut} cut"
    );
    assert!(out.content.len() < 31_000);
}

#[tokio::test]
async fn tool4_bash_signal_death_is_reported() {
    let (_d, ctx) = ws();
    let out = bash(&ctx, json!({"command": "kill -KILL $$"})).await;
    assert!(!out.is_error);
    assert!(
        out.content.ends_with("Killed by signal 9"),
        "{}",
        out.content
    );
}

#[test]
fn tool4_bash_timeout_defaults_and_maximum() {
    let input = BashInput::parse(json!({"command": "ls"})).unwrap();
    assert_eq!(input.timeout(), Duration::from_millis(DEFAULT_TIMEOUT_MS));
    assert_eq!(DEFAULT_TIMEOUT_MS, 120_000);
    let input = BashInput::parse(json!({"command": "ls", "timeout": 600000})).unwrap();
    assert_eq!(input.timeout(), Duration::from_secs(600));
    assert!(BashInput::parse(json!({"command": "ls", "timeout": 600001})).is_err());
    let described = BashTool
        .validate(json!({"command": "ls", "description": "List files"}))
        .unwrap();
    assert_eq!(described["description"], "List files");
}

#[tokio::test]
async fn tool4_bash_missing_workspace_is_a_clear_error() {
    let ctx = ToolContext::new(PathBuf::from("/nonexistent/zcode-ws"), "x");
    let out = bash(&ctx, json!({"command": "true"})).await;
    assert!(out.is_error);
    assert!(out.content.starts_with("Cannot start"), "{}", out.content);
}
