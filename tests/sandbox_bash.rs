//! The read-only kernel sandbox, through the real Bash tool path: what a
//! command judged read-only may and may not do once it runs, on this
//! machine's kernel (Landlock and seccomp). Every attack is checked by its
//! effect (a file that must not appear, a listener that must see no
//! connection), not by an error message alone.
#![cfg(target_os = "linux")]

use serde_json::json;
use std::io::ErrorKind;
use std::net::TcpListener;
use std::os::unix::net::UnixListener;
use std::path::Path;
use zcode::sandbox::{SandboxPolicy, support};
use zcode::tools::{BashTool, Tool, ToolContext, ToolOutput};

/// A workspace, and a context whose commands run in `policy`'s sandbox.
fn workspace(policy: Option<SandboxPolicy>) -> (tempfile::TempDir, ToolContext) {
    assert!(
        support().available(),
        "these tests need the kernel sandbox (Landlock and seccomp): {:?}",
        support()
    );
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let mut ctx = ToolContext::new(root, "sandbox-test");
    ctx.sandbox = policy;
    (dir, ctx)
}

fn read_only() -> (tempfile::TempDir, ToolContext) {
    workspace(Some(SandboxPolicy::read_only()))
}

async fn bash(ctx: &ToolContext, command: &str) -> ToolOutput {
    let input = BashTool.validate(json!({ "command": command })).unwrap();
    BashTool.run(input, ctx).await
}

fn refused(out: &ToolOutput) -> bool {
    let text = out.content.to_lowercase();
    text.contains("permission denied") || text.contains("operation not permitted")
}

fn git(dir: &Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[tokio::test]
async fn sandbox_read_only_refuses_every_kind_of_write() {
    let (_d, ctx) = read_only();
    let ws = ctx.workspace.clone();
    std::fs::write(ws.join("keep.txt"), "original\n").unwrap();
    std::fs::create_dir(ws.join("dir")).unwrap();
    for (command, check) in [
        ("touch new.txt", "new.txt"),
        ("echo x > new.txt", "new.txt"),
        ("echo x >> keep.txt", "keep.txt"),
        ("rm keep.txt", "keep.txt"),
        ("rm -rf dir", "dir"),
        ("mkdir made", "made"),
        ("mv keep.txt moved.txt", "keep.txt"),
        ("ln -s keep.txt link", "link"),
        ("cp keep.txt copy.txt", "copy.txt"),
        ("truncate -s 0 keep.txt", "keep.txt"),
        ("mkfifo fifo", "fifo"),
        ("sed -i s/original/changed/ keep.txt", "keep.txt"),
        ("python3 -c \"open('py.txt','w').write('x')\"", "py.txt"),
    ] {
        let out = bash(&ctx, command).await;
        assert!(refused(&out), "{command}: {}", out.content);
        assert_eq!(
            std::fs::read_to_string(ws.join("keep.txt")).unwrap(),
            "original\n",
            "{command}"
        );
        let exists = ws.join(check).exists() || ws.join(check).is_symlink();
        let should_exist = matches!(check, "keep.txt" | "dir");
        assert_eq!(exists, should_exist, "{command}: {}", out.content);
    }
    // Outside the workspace too: the temp directory is not writable.
    let outside = std::env::temp_dir().join(format!("zcode-sbx-{}", std::process::id()));
    let out = bash(&ctx, &format!("touch {}", outside.display())).await;
    assert!(refused(&out), "{}", out.content);
    assert!(!outside.exists());
}

#[tokio::test]
async fn sandbox_read_only_refuses_a_write_through_a_symlink() {
    let (_d, ctx) = read_only();
    let ws = ctx.workspace.clone();
    let target_dir = tempfile::tempdir().unwrap();
    let target = target_dir.path().join("target.txt");
    std::fs::write(&target, "before\n").unwrap();
    std::os::unix::fs::symlink(&target, ws.join("link")).unwrap();
    std::os::unix::fs::symlink(target_dir.path(), ws.join("dirlink")).unwrap();
    for command in [
        "echo pwned > link",
        "echo pwned >> link",
        "tee link < /dev/null",
        "touch dirlink/new.txt",
    ] {
        let out = bash(&ctx, command).await;
        assert!(refused(&out), "{command}: {}", out.content);
    }
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "before\n");
    assert!(!target_dir.path().join("new.txt").exists());
}

#[tokio::test]
async fn sandbox_read_only_refuses_tcp_to_a_local_listener() {
    let (_d, ctx) = read_only();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    for command in [
        format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"),
        format!(
            "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port})); print('connected')\""
        ),
        format!(
            "python3 -c \"import socket; s=socket.socket(socket.AF_INET6); s.connect(('::1', {port}))\""
        ),
        format!(
            "python3 -c \"import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'x', ('127.0.0.1', {port}))\""
        ),
    ] {
        let out = bash(&ctx, &command).await;
        assert!(
            !out.content.contains("\nconnected"),
            "{command}: {}",
            out.content
        );
        assert!(
            refused(&out) || out.content.contains("Errno 1"),
            "{command}: {}",
            out.content
        );
    }
    match listener.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("the listener saw a connection: {other:?}"),
    }
}

#[tokio::test]
async fn sandbox_read_only_refuses_a_unix_socket_connection() {
    let (_d, ctx) = read_only();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("daemon.sock");
    let listener = UnixListener::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();
    for kind in ["SOCK_STREAM", "SOCK_SEQPACKET", "SOCK_DGRAM"] {
        let command = format!(
            "python3 -c \"import socket; s=socket.socket(socket.AF_UNIX, socket.{kind}); s.connect('{}'); print('connected')\"",
            path.display()
        );
        let out = bash(&ctx, &command).await;
        assert!(
            !out.content.contains("\nconnected"),
            "{kind}: {}",
            out.content
        );
        assert!(out.content.contains("Errno 1"), "{kind}: {}", out.content);
    }
    match listener.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("the listener saw a connection: {other:?}"),
    }
}

#[tokio::test]
async fn sandbox_read_only_stops_a_hostile_fsmonitor_in_git_status() {
    let (_d, ctx) = read_only();
    let ws = ctx.workspace.clone();
    git(&ws, &["init", "-q"]);
    std::fs::write(ws.join("a.txt"), "a\n").unwrap();
    git(&ws, &["add", "a.txt"]);
    git(&ws, &["commit", "-qm", "first"]);
    let marker = ws.join("pwned");
    git(
        &ws,
        &[
            "config",
            "core.fsmonitor",
            &format!("touch {}; echo", marker.display()),
        ],
    );
    let out = bash(&ctx, "git status").await;
    assert!(
        !marker.exists(),
        "the fsmonitor program wrote: {}",
        out.content
    );
    assert!(out.content.contains("Permission denied"), "{}", out.content);
}

#[tokio::test]
async fn sandbox_read_only_keeps_the_output_of_read_only_commands() {
    let (_d, sandboxed) = read_only();
    let ws = sandboxed.workspace.clone();
    let plain = ToolContext::new(ws.clone(), "sandbox-test");
    std::fs::create_dir(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/main.rs"), "fn main() {}\n// needle\n").unwrap();
    std::fs::write(ws.join("README.md"), "# title\nneedle here\n").unwrap();
    git(&ws, &["init", "-q"]);
    git(&ws, &["add", "."]);
    git(&ws, &["commit", "-qm", "first"]);
    std::fs::write(ws.join("README.md"), "# title\nchanged\n").unwrap();
    let mut commands = vec![
        "ls -la src",
        "cat README.md",
        "grep -rn needle .",
        "git status",
        "git status --short",
        "git log --format=%s",
        "git diff",
        "wc -l src/main.rs README.md",
        "find . -name '*.rs' -not -path './.git/*'",
        "echo hi > /dev/null && echo done 2>&1",
    ];
    let rg = std::process::Command::new("rg")
        .arg("--version")
        .output()
        .is_ok();
    if rg {
        commands.push("rg -n needle");
    } else {
        eprintln!("rg is not installed here; the other read-only commands are compared");
    }
    for command in commands {
        let expected = bash(&plain, command).await;
        let got = bash(&sandboxed, command).await;
        assert!(!expected.is_error, "{command}: {}", expected.content);
        assert_eq!(got, expected, "{command}");
    }
}

#[tokio::test]
async fn sandbox_read_only_refuses_ptrace_mount_and_namespaces() {
    let (_d, ctx) = read_only();
    for command in [
        // ptrace of a process of the command's own.
        "python3 -c \"import ctypes,os; l=ctypes.CDLL(None,use_errno=True); print('rc', l.ptrace(16, os.getppid(), 0, 0), ctypes.get_errno())\"",
        "unshare -r true",
        "unshare -m true",
        "mount -t tmpfs none /mnt",
    ] {
        let out = bash(&ctx, command).await;
        assert!(
            refused(&out) || out.content.contains("rc -1 1"),
            "{command}: {}",
            out.content
        );
    }
}

#[tokio::test]
async fn sandbox_failure_note_tells_the_model_why() {
    let (_d, ctx) = read_only();
    let out = bash(&ctx, "touch x").await;
    assert!(out.content.contains("read-only sandbox"), "{}", out.content);
    // A command that succeeds gets no note.
    let out = bash(&ctx, "echo fine").await;
    assert!(!out.content.contains("sandbox"), "{}", out.content);
}

#[tokio::test]
async fn sandbox_workspace_write_allows_the_workspace_only() {
    let (_d, ctx) = workspace(None);
    let ws = ctx.workspace.clone();
    let mut ctx = ctx;
    ctx.sandbox = Some(SandboxPolicy::workspace_write(ws.clone(), false));
    let out = bash(
        &ctx,
        "mkdir -p sub && echo hi > sub/new.txt && cat sub/new.txt",
    )
    .await;
    assert!(out.content.starts_with("hi"), "{}", out.content);
    // Outside the workspace and the temp directory: refused. The test
    // target's own scratch directory is neither.
    let outside =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sbx-{}", std::process::id()));
    let out = bash(&ctx, &format!("touch {}", outside.display())).await;
    assert!(refused(&out), "{}", out.content);
    assert!(!outside.exists());
    // Network as configured: off here.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let out = bash(&ctx, &format!("exec 3<>/dev/tcp/127.0.0.1/{port}")).await;
    assert!(refused(&out), "{}", out.content);
    assert!(listener.accept().is_err());
}

#[tokio::test]
async fn sandbox_read_only_refuses_signals_to_processes_outside_it() {
    if support().landlock_abi < 6 {
        eprintln!(
            "Landlock ABI {} has no signal scope",
            support().landlock_abi
        );
        return;
    }
    let (_d, ctx) = read_only();
    let mut outside = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let pid = outside.id();
    let out = bash(&ctx, &format!("kill -TERM {pid}")).await;
    assert!(refused(&out), "{}", out.content);
    assert!(
        outside.try_wait().unwrap().is_none(),
        "the outside process was killed"
    );
    // Its own processes it may still signal.
    let out = bash(&ctx, "sleep 30 & kill $! && wait $!; echo status=$?").await;
    assert!(out.content.contains("status=143"), "{}", out.content);
    outside.kill().unwrap();
    outside.wait().unwrap();
}

#[tokio::test]
async fn sandbox_read_only_gives_no_writable_descriptor_but_its_streams() {
    let (_d, ctx) = read_only();
    // Every descriptor the command inherits: 0 (/dev/null), 1 and 2 (the
    // output pipe), and the one `ls` opens to list them.
    let out = bash(&ctx, "ls /proc/self/fd").await;
    let fds: Vec<&str> = out.content.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(fds, ["0", "1", "2", "3"], "{}", out.content);
    let out = bash(&ctx, "echo hi > /dev/tty").await;
    assert!(
        out.is_error || !out.content.starts_with("hi"),
        "{}",
        out.content
    );
    assert!(!out.content.contains("Exit code: 0"), "{}", out.content);
}
