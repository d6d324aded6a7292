//! The sandbox from the real entry points: `zcode -p` against the fake
//! model server (a `readOnlyCommands` entry that tries to write, plan mode,
//! the fallbacks), `zcode permission check` (how a command would run) and
//! `zcode sandbox` (one command in exactly the Bash tool's sandbox).
#![cfg(target_os = "linux")]

mod support;

use serde_json::{Value, json};
use support::fake_model_server::{FakeModelServer, Reply, openai_tool_result, sse};
use support::headless::{Harness, openai_env};
use support::proc_stats::gone_soon;

/// One Bash call by the model, then a closing answer; returns the tool
/// result the model was sent and the run's stderr.
async fn one_bash_call(h: &Harness, command: &str, mode: &str, env: &[(&str, String)]) -> String {
    let server = FakeModelServer::start().await;
    let args = json!({ "command": command }).to_string();
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls("", &[("c1", "Bash", &args)])),
        Reply::sse(sse::openai_text("done")),
    ]);
    let mut all_env = openai_env(&server);
    all_env.extend(env.iter().cloned());
    let run = h.run(&["-p", "go", "--mode", mode], &all_env).await;
    assert_eq!(run.code, Some(0), "{run}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{run}");
    openai_tool_result(&requests[1].json(), "c1")
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_read_only_commands_entry_that_writes_fails_and_the_model_learns_it() {
    let h = Harness::new();
    h.write_config(&json!({"permission": {"readOnlyCommands": ["touch:*"]}}));
    let result = one_bash_call(&h, "touch made.txt", "build", &[]).await;
    assert!(!h.project().join("made.txt").exists(), "{result}");
    assert!(result.contains("Permission denied"), "{result}");
    assert!(result.contains("read-only sandbox"), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_read_only_commands_are_asked_without_the_sandbox() {
    for (config, env) in [
        (json!({"sandbox": {"mode": "off"}}), vec![]),
        (
            json!({"sandbox": {"mode": "auto"}}),
            vec![("ZCODE_SANDBOX_UNAVAILABLE", "1".to_string())],
        ),
    ] {
        let h = Harness::new();
        let mut config = config;
        config["permission"] = json!({"readOnlyCommands": ["touch:*"]});
        h.write_config(&config);
        let result = one_bash_call(&h, "touch made.txt", "build", &env).await;
        // Asked, and nobody can answer a headless run.
        assert!(result.contains("NOT executed"), "{config}: {result}");
        assert!(!h.project().join("made.txt").exists());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_plan_mode_runs_read_only_commands_sandboxed_with_their_output() {
    let h = Harness::new();
    std::fs::write(h.project().join("present.txt"), "hello\n").unwrap();
    let result = one_bash_call(&h, "ls && cat present.txt", "plan", &[]).await;
    assert!(result.contains("present.txt"), "{result}");
    assert!(result.contains("hello"), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_required_without_a_sandbox_asks_even_read_only_commands() {
    let h = Harness::new();
    h.write_config(&json!({"sandbox": {"mode": "required"}}));
    std::fs::write(h.project().join("present.txt"), "").unwrap();
    let env = [("ZCODE_SANDBOX_UNAVAILABLE", "1".to_string())];
    let result = one_bash_call(&h, "ls", "build", &env).await;
    assert!(result.contains("NOT executed"), "{result}");
    // In `auto` the strict analysis still lets `ls` run (unsandboxed).
    let h = Harness::new();
    std::fs::write(h.project().join("present.txt"), "").unwrap();
    let result = one_bash_call(&h, "ls", "build", &env).await;
    assert!(result.contains("present.txt"), "{result}");
}

async fn check(h: &Harness, command: &str, env: &[(&str, String)]) -> (Value, String) {
    let input = json!({ "command": command }).to_string();
    let run = h
        .run(
            &["permission", "check", "--tool", "Bash", "--input", &input],
            env,
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run}"));
    (value, run.stderr)
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_permission_check_reports_how_a_command_would_run() {
    let h = Harness::new();
    let (out, stderr) = check(&h, "ls", &[]).await;
    assert_eq!(out["behavior"], "allow", "{out}");
    assert_eq!(out["sandbox"], "read-only", "{out}");
    assert!(out.get("sandboxNotice").is_none(), "{out}");
    assert!(stderr.is_empty(), "{stderr}");
    let (out, _) = check(&h, "touch x", &[]).await;
    assert_eq!(out["behavior"], "ask", "{out}");
    assert_eq!(out["sandbox"], "none", "{out}");

    h.write_config(&json!({"sandbox": {"approvedCommands": "workspace-write"}}));
    let (out, _) = check(&h, "touch x", &[]).await;
    assert_eq!(out["sandbox"], "workspace-write", "{out}");
    let (out, _) = check(&h, "ls", &[]).await;
    assert_eq!(out["sandbox"], "read-only", "{out}");

    h.write_config(&json!({"sandbox": {"mode": "off"}}));
    let (out, stderr) = check(&h, "ls", &[]).await;
    assert_eq!(out["behavior"], "allow", "{out}");
    assert_eq!(out["sandbox"], "none", "{out}");
    assert!(stderr.is_empty(), "{stderr}");

    // `auto` on a kernel without the sandbox says so, once per run.
    h.write_config(&json!({}));
    let env = [("ZCODE_SANDBOX_UNAVAILABLE", "1".to_string())];
    let (out, stderr) = check(&h, "ls", &env).await;
    assert_eq!(out["behavior"], "allow", "{out}");
    assert_eq!(out["sandbox"], "none", "{out}");
    let notice = out["sandboxNotice"].as_str().unwrap_or_default();
    assert!(notice.contains("no kernel sandbox"), "{out}");
    assert_eq!(stderr.matches("no kernel sandbox").count(), 1, "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_config_keys_are_validated() {
    let h = Harness::new();
    for (config, needle) in [
        (json!({"sandbox": {"mode": "sometimes"}}), "sandbox.mode"),
        (
            json!({"sandbox": {"approvedCommands": "all"}}),
            "sandbox.approvedCommands",
        ),
        (
            json!({"permission": {"readOnlyCommands": ["*"]}}),
            "permission.readOnlyCommands[0]",
        ),
        (
            json!({"sandbox": {"memoryLimitMiB": 0}}),
            "sandbox.memoryLimitMiB",
        ),
        (
            json!({"sandbox": {"processLimit": 0}}),
            "sandbox.processLimit",
        ),
    ] {
        h.write_config(&config);
        let run = h
            .run(
                &[
                    "permission",
                    "check",
                    "--tool",
                    "Bash",
                    "--input",
                    r#"{"command":"ls"}"#,
                ],
                &[],
            )
            .await;
        assert_eq!(run.code, Some(1), "{config}: {run}");
        assert!(run.stderr.contains(needle), "{config}: {run}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_command_runs_one_command_in_the_bash_tools_sandbox() {
    let h = Harness::new();
    let run = h.run(&["sandbox", "--", "touch", "x"], &[]).await;
    assert_eq!(run.code, Some(1), "{run}");
    assert!(run.stderr.contains("Permission denied"), "{run}");
    assert!(!h.project().join("x").exists());

    let run = h
        .run(&["sandbox", "--read-only", "--", "cat", "/etc/passwd"], &[])
        .await;
    assert_eq!(run.code, Some(0), "{run}");

    let run = h
        .run(&["sandbox", "--workspace-write", "--", "touch", "x"], &[])
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(h.project().join("x").exists());

    // Exit codes pass through; a signal is 128+N.
    let run = h.run(&["sandbox", "--", "sh", "-c", "exit 7"], &[]).await;
    assert_eq!(run.code, Some(7), "{run}");
    let run = h
        .run(&["sandbox", "--", "sh", "-c", "kill -9 $$"], &[])
        .await;
    assert_eq!(run.code, Some(137), "{run}");

    let run = h.run(&["sandbox", "--", "no-such-program-here"], &[]).await;
    assert_eq!(run.code, Some(1), "{run}");
    assert!(run.stderr.contains("no-such-program-here"), "{run}");

    let run = h
        .run(
            &["sandbox", "--read-only", "--workspace-write", "--", "true"],
            &[],
        )
        .await;
    assert_eq!(run.code, Some(2), "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_command_refuses_metadata_ipc_and_prlimit_calls() {
    use std::os::unix::fs::MetadataExt;
    let h = Harness::new();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim");
    std::fs::write(&victim, "victim\n").unwrap();
    let path = victim.to_str().unwrap();
    let stamp = |p: &std::path::Path| {
        let m = std::fs::metadata(p).unwrap();
        (m.mode(), m.uid(), m.gid(), m.mtime())
    };
    let before = stamp(&victim);
    let setxattr = format!("import os; os.setxattr('{path}', 'user.pwned', b'1')");
    for argv in [
        vec!["chmod", "u+s", path],
        vec!["chown", "0:0", path],
        vec!["touch", "-d", "2001-01-01", path],
        vec!["python3", "-c", &setxattr],
    ] {
        let mut args = vec!["sandbox", "--"];
        args.extend(&argv);
        let run = h.run(&args, &[]).await;
        assert_ne!(run.code, Some(0), "{argv:?}: {run}");
        assert_eq!(stamp(&victim), before, "{argv:?}: {run}");
    }
    let names = std::fs::read_dir(outside.path()).unwrap().count();
    assert_eq!(names, 1);

    // SAFETY: a private segment, removed below.
    let shm = unsafe { libc::shmget(libc::IPC_PRIVATE, 4096, libc::IPC_CREAT | 0o600) };
    assert!(shm >= 0);
    let id = shm.to_string();
    let run = h.run(&["sandbox", "--", "ipcrm", "-m", &id], &[]).await;
    assert_ne!(run.code, Some(0), "{run}");
    let mut ds: libc::shmid_ds = unsafe { std::mem::zeroed() };
    // SAFETY: IPC_STAT into a zeroed struct of the right type; then removal.
    let alive = unsafe { libc::shmctl(shm, libc::IPC_STAT, &mut ds) } == 0;
    unsafe { libc::shmctl(shm, libc::IPC_RMID, std::ptr::null_mut()) };
    assert!(alive, "the segment was removed from inside: {run}");

    let mut sleeper = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let pid = sleeper.id().to_string();
    let limits = || std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let before = limits();
    let run = h
        .run(
            &["sandbox", "--", "prlimit", "--pid", &pid, "--nofile=1:1"],
            &[],
        )
        .await;
    let after = limits();
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
    assert_ne!(run.code, Some(0), "{run}");
    assert_eq!(after, before, "{run}");

    let run = h
        .run(&["sandbox", "--", "sh", "-c", "ulimit -c"], &[])
        .await;
    assert_eq!(run.stdout.trim(), "0", "{run}");

    // The memory bound is the configured one (ulimit -d shows KiB).
    h.write_config(&json!({"sandbox": {"memoryLimitMiB": 100}}));
    let run = h
        .run(&["sandbox", "--", "sh", "-c", "ulimit -d"], &[])
        .await;
    assert_eq!(run.stdout.trim(), "102400", "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_command_ends_every_process_it_started() {
    let h = Harness::new();
    let double_fork = "import os, time
if os.fork() == 0:
    try: os.setsid()
    except OSError: pass
    if os.fork() == 0:
        print(os.getpid(), flush=True)
        fd = os.open('/dev/null', os.O_RDWR)
        for n in (0, 1, 2): os.dup2(fd, n)
        time.sleep(1000)
    os._exit(0)
os.wait()";
    for argv in [
        vec!["python3", "-c", double_fork],
        vec![
            "sh",
            "-c",
            "echo $( (setsid sh -c 'sleep 1000 >/dev/null 2>&1 & echo $!' &) )",
        ],
        vec!["sh", "-c", "sleep 1000 >/dev/null 2>&1 & echo $!"],
    ] {
        for mode in ["--read-only", "--workspace-write"] {
            let mut args = vec!["sandbox", mode, "--"];
            args.extend(&argv);
            let run = h.run(&args, &[]).await;
            for pid in run
                .stdout
                .lines()
                .filter_map(|l| l.trim().parse::<i32>().ok())
            {
                let ended = gone_soon(pid).await;
                if !ended {
                    // SAFETY: kill(2) of the survivor this test made.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
                assert!(
                    ended,
                    "{argv:?} {mode}: {pid} outlived zcode sandbox: {run}"
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_command_bounds_the_processes_of_a_user_other_than_root() {
    // The kernel applies RLIMIT_NPROC to users other than root only: run
    // as `nobody` (which needs root to switch to, and setpriv).
    // SAFETY: getuid has no failure mode.
    let root = unsafe { libc::getuid() } == 0;
    let setpriv = std::process::Command::new("setpriv")
        .arg("--version")
        .output()
        .is_ok();
    if !root || !setpriv {
        eprintln!("needs root and setpriv to run a command as another user");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        home.path().join("config.json"),
        json!({"sandbox": {"processLimit": 50}}).to_string(),
    )
    .unwrap();
    let fork_bomb = "import os, signal
n = 0
try:
    while n < 5000:
        if os.fork() == 0:
            signal.pause()
        n += 1
    print('unbounded', n)
except OSError as e:
    print('stopped', n, e.errno)";
    let out = tokio::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(env!("CARGO_BIN_EXE_zcode"))
        .args(["sandbox", "--", "python3", "-c", fork_bomb])
        .current_dir("/")
        .env("ZCODE_HOME", home.path())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(60), out)
        .await
        .expect("the command ends")
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.starts_with("stopped "), "{stdout}\n{stderr}");
    // EAGAIN, well before the 5000 it tried.
    assert!(stdout.trim_end().ends_with(" 11"), "{stdout}");
    let started: u32 = stdout.split(' ').nth(1).unwrap().parse().unwrap();
    assert!(started < 5000, "{stdout}");
}
