//! `zcode -p` under tool faults: a tool input that makes a library panic
//! is a tool error and the run goes on; processes a command leaves running
//! in the background do not outlive zcode.

#![cfg(target_os = "linux")]

mod support;

use serde_json::json;
use support::fake_model_server::{FakeModelServer, Reply, openai_tool_result, sse};
use support::headless::{Harness, openai_env};
use support::wait::{WAIT, until};

#[tokio::test(flavor = "multi_thread")]
async fn fault_glob_panic_input_is_a_tool_error_and_the_run_goes_on() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let pattern = format!("{}a{}", "{".repeat(300), "}".repeat(300));
    let glob = json!({ "pattern": pattern }).to_string();
    let grep = json!({ "pattern": "x", "glob": pattern }).to_string();
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("call_g", "Glob", &glob), ("call_r", "Grep", &grep)],
        )),
        Reply::sse(sse::openai_text("The pattern was refused.")),
    ]);
    let run = h.run(&["-p", "find files"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout, "The pattern was refused.\n", "{run}");
    assert!(!run.stderr.contains("panicked"), "{run}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{run}");
    for id in ["call_g", "call_r"] {
        let result = openai_tool_result(&requests[1].json(), id);
        assert!(result.contains("nest"), "{id}: {result}");
    }
}

/// Whether a process `pid` exists and is not a zombie.
fn running(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
        Err(_) => false,
    }
}

/// Waits for `pid` to be gone; false if it is still there after the
/// limit that bounds a failure (the sleeps run for minutes).
async fn gone(pid: i32) -> bool {
    until(WAIT, || !running(pid)).await
}

/// The pid a command echoed as `bg=<pid>`.
fn echoed_pid(result: &str) -> i32 {
    let at = result
        .find("bg=")
        .unwrap_or_else(|| panic!("no bg= in {result}"));
    result[at + 3..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no pid in {result}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_background_children_do_not_outlive_zcode() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let commands = [
        ("call_amp", "sleep 300 & echo bg=$!"),
        ("call_nohup", "nohup sleep 300 >/dev/null 2>&1 & echo bg=$!"),
        // setsid forks when it is a group leader; the pid written is the
        // sleep's own (setsid execs it).
        (
            "call_setsid",
            "setsid sh -c 'echo bg=$$ > setsid.pid.new; mv setsid.pid.new setsid.pid; exec sleep 300' & while [ ! -e setsid.pid ]; do sleep 0.05; done; cat setsid.pid",
        ),
    ];
    let calls: Vec<(&str, &str, String)> = commands
        .iter()
        .map(|(id, cmd)| (*id, "Bash", json!({ "command": cmd }).to_string()))
        .collect();
    let calls: Vec<(&str, &str, &str)> =
        calls.iter().map(|(a, b, c)| (*a, *b, c.as_str())).collect();
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls("", &calls)),
        Reply::sse(sse::openai_text("Started them.")),
    ]);
    // The calls return without waiting for their background children: the
    // run ends within the harness's limit, long before the sleeps would.
    let run = h.run(&["-p", "start sleeps"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{run}");
    let mut pids = Vec::new();
    for (id, _) in commands {
        let result = openai_tool_result(&requests[1].json(), id);
        pids.push((id, echoed_pid(&result), result));
    }
    // zcode has exited; give the kernel a moment to finish the kills.
    let mut survivors = Vec::new();
    for (id, pid, result) in pids {
        if !gone(pid).await {
            survivors.push(format!("{id}: pid {pid} ({result})"));
            // SAFETY: kill(2) on a pid this test's command started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
    assert!(
        survivors.is_empty(),
        "still running after zcode exited: {survivors:?}\n{run}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_background_processes_are_reported_as_an_event() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    let command = "sleep 300 & echo bg=$!";
    let input = json!({ "command": command }).to_string();
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls("", &[("call_1", "Bash", &input)])),
        Reply::sse(sse::openai_text("Started.")),
    ]);
    let run = h
        .run(
            &["-p", "start a sleep", "--output-format", "stream-json"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let result = openai_tool_result(&server.requests()[1].json(), "call_1");
    let pid = echoed_pid(&result);
    let reported: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|event| event["type"] == "background_processes")
        .collect();
    let gone = gone(pid).await;
    if !gone {
        // SAFETY: kill(2) on the pid this test's command started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    assert_eq!(
        reported,
        vec![json!({"type": "background_processes", "count": 1, "commands": [command]})],
        "{run}"
    );
    assert!(gone, "pid {pid} outlived zcode");
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_io_error_is_said_once() {
    let h = Harness::new();
    let file = h.project().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let home = file.join("home").to_string_lossy().into_owned();
    let server = FakeModelServer::start().await;
    let mut env = openai_env(&server);
    env.push(("ZCODE_HOME", home));
    let run = h.run(&["-p", "hi"], &env).await;
    assert_ne!(run.code, Some(0), "{run}");
    let io = "Not a directory (os error 20)";
    assert_eq!(run.stderr.matches(io).count(), 1, "{run}");
}
