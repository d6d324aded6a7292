//! The read-only kernel sandbox, through the real Bash tool path: what a
//! command judged read-only may and may not do once it runs, on this
//! machine's kernel (Landlock and seccomp). Every attack is checked by its
//! effect (a file that must not appear, a listener that must see no
//! connection), not by an error message alone.
#![cfg(target_os = "linux")]

mod support;

use serde_json::json;
use std::io::ErrorKind;
use std::net::TcpListener;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use support::proc_stats::gone_soon;
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
    let out = bash(&ctx, &format!("touch {}", sh_quote(&outside))).await;
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
            &format!("touch {}; echo", sh_quote(&marker)),
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

/// A directory this test may write to that no writable root of `policy`
/// covers: the build's scratch directory, the checkout, the home
/// directory, /var/tmp or /dev/shm, whichever is outside them all. (A
/// checkout under /tmp lies inside the temp directory.)
fn outside_every_root(policy: &SandboxPolicy) -> PathBuf {
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let roots: Vec<PathBuf> = policy.writable_roots.iter().map(|r| canonical(r)).collect();
    let candidates = [
        Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR"))),
        Some(PathBuf::from(env!("CARGO_MANIFEST_DIR"))),
        std::env::var_os("HOME").map(PathBuf::from),
        Some(PathBuf::from("/var/tmp")),
        Some(PathBuf::from("/dev/shm")),
    ];
    for dir in candidates.into_iter().flatten() {
        let dir = canonical(&dir);
        if roots.iter().any(|root| dir.starts_with(root)) {
            continue;
        }
        let probe = dir.join(format!(".sbx-probe-{}", std::process::id()));
        if std::fs::create_dir(&probe).is_ok() {
            let _ = std::fs::remove_dir(&probe);
            return dir;
        }
    }
    panic!("no directory outside {roots:?} this test may write to");
}

/// `path` as one shell word, whatever letters it has.
fn sh_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', "'\\''"))
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
    // Outside the workspace and the temp directory: refused.
    let outside = outside_every_root(ctx.sandbox.as_ref().unwrap())
        .join(format!("sbx {} ü", std::process::id()));
    let out = bash(&ctx, &format!("touch {}", sh_quote(&outside))).await;
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

/// A root-owned (the tests' own user) file outside the workspace, with its
/// metadata as it was before any attack.
struct OutsideFile {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
}

#[derive(Debug, PartialEq, Eq)]
struct Metadata {
    mode: u32,
    uid: u32,
    gid: u32,
    mtime: i64,
    atime: i64,
    xattrs: Vec<u8>,
    /// Inode flags (chattr).
    flags: libc::c_long,
}

impl OutsideFile {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("victim");
        std::fs::write(&path, "victim\n").unwrap();
        Self { _dir: dir, path }
    }

    fn metadata(&self) -> Metadata {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::symlink_metadata(&self.path).unwrap();
        let c = std::ffi::CString::new(self.path.as_os_str().as_encoded_bytes()).unwrap();
        let mut names = vec![0u8; 4096];
        // SAFETY: a buffer of the given size and a NUL-terminated path.
        let n = unsafe { libc::llistxattr(c.as_ptr(), names.as_mut_ptr().cast(), names.len()) };
        names.truncate(usize::try_from(n).unwrap_or(0));
        const FS_IOC_GETFLAGS: libc::c_ulong = 0x8008_6601;
        let file = std::fs::File::open(&self.path).unwrap();
        let mut flags: libc::c_long = 0;
        // SAFETY: FS_IOC_GETFLAGS into a long, on a descriptor we own.
        unsafe {
            use std::os::fd::AsRawFd;
            libc::ioctl(file.as_raw_fd(), FS_IOC_GETFLAGS, &mut flags);
        }
        Metadata {
            mode: m.mode(),
            uid: m.uid(),
            gid: m.gid(),
            mtime: m.mtime(),
            atime: m.atime(),
            xattrs: names,
            flags,
        }
    }
}

/// The metadata calls, each by the tool an attacker would reach for and
/// by the raw call from python (every syscall of the family).
fn metadata_attacks(path: &str) -> Vec<String> {
    let py = |code: &str| format!("python3 -c \"import os; p='{path}'; {code}; print('changed')\"");
    vec![
        format!("chmod u+s {path}"),
        format!("chmod 777 {path}"),
        format!("chown $(id -u):$(id -g) {path}"),
        format!("chown -h 1:1 {path}"),
        format!("touch -d 2001-01-01 {path}"),
        format!("touch -h -d 2001-01-01 {path}"),
        format!("chattr +d {path}"),
        py("os.chmod(p, 0o4777)"),
        py("fd = os.open(p, os.O_RDONLY); os.fchmod(fd, 0o777)"),
        py("os.chmod(p, 0o777, follow_symlinks=False)"),
        py("os.chown(p, os.getuid(), os.getgid())"),
        py("os.lchown(p, os.getuid(), os.getgid())"),
        py("fd = os.open(p, os.O_RDONLY); os.fchown(fd, os.getuid(), os.getgid())"),
        py("os.utime(p, (1, 1))"),
        py("fd = os.open(p, os.O_RDONLY); os.utime(fd, (1, 1))"),
        py("os.setxattr(p, 'user.pwned', b'1')"),
        py("os.setxattr(p, 'user.pwned', b'1', follow_symlinks=False)"),
        py("fd = os.open(p, os.O_RDONLY); os.setxattr(fd, 'user.pwned', b'1')"),
        py(
            "os.setxattr(p, 'system.posix_acl_access', bytes.fromhex('0200000001000600ffffffff04000400ffffffff10000600ffffffff20000400ffffffff'))",
        ),
        // The raw syscalls libc does not wrap everywhere: utime, utimes,
        // futimesat, fchmodat2.
        py(
            "import ctypes; l = ctypes.CDLL(None, use_errno=True); rc = l.syscall(132, p.encode(), None); assert rc == 0, ctypes.get_errno()",
        ),
        py(
            "import ctypes; l = ctypes.CDLL(None, use_errno=True); rc = l.syscall(235, p.encode(), None); assert rc == 0, ctypes.get_errno()",
        ),
        py(
            "import ctypes; l = ctypes.CDLL(None, use_errno=True); rc = l.syscall(261, -100, p.encode(), None); assert rc == 0, ctypes.get_errno()",
        ),
        py(
            "import ctypes; l = ctypes.CDLL(None, use_errno=True); rc = l.syscall(452, -100, p.encode(), 0o777, 0); assert rc == 0, ctypes.get_errno()",
        ),
    ]
}

#[tokio::test]
async fn sandbox_read_only_refuses_chmod_chown_utime_and_xattrs_outside_the_workspace() {
    let (_d, ctx) = read_only();
    let victim = OutsideFile::new();
    // A setxattr the test itself makes, so that a removal would show.
    let c = std::ffi::CString::new(victim.path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: NUL-terminated strings and a one-byte value.
    let rc = unsafe {
        libc::setxattr(
            c.as_ptr(),
            c"user.keep".as_ptr(),
            b"1".as_ptr().cast(),
            1,
            0,
        )
    };
    assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
    let before = victim.metadata();
    let path = victim.path.display().to_string();
    let mut attacks = metadata_attacks(&path);
    attacks.push(format!(
        "python3 -c \"import os; os.removexattr('{path}', 'user.keep'); print('changed')\""
    ));
    attacks.push(format!(
        "python3 -c \"import os; os.removexattr('{path}', 'user.keep', follow_symlinks=False); print('changed')\""
    ));
    for command in attacks {
        let out = bash(&ctx, &command).await;
        assert!(
            !out.content.contains("changed"),
            "{command}: {}",
            out.content
        );
        assert!(
            refused(&out)
                || out.content.contains("Errno 1")
                || out.content.contains("AssertionError: 1"),
            "{command}: {}",
            out.content
        );
        assert_eq!(victim.metadata(), before, "{command}: {}", out.content);
    }
    // Inside the workspace too: read-only means its metadata as well.
    let own = ctx.workspace.join("own.sh");
    std::fs::write(&own, "echo\n").unwrap();
    let out = bash(&ctx, "chmod +x own.sh").await;
    assert!(refused(&out), "{}", out.content);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&own).unwrap().permissions().mode() & 0o111,
        0
    );
}

#[tokio::test]
async fn sandbox_workspace_write_refuses_setuid_and_setgid_bits() {
    let (_d, mut ctx) = workspace(None);
    ctx.sandbox = Some(SandboxPolicy::workspace_write(ctx.workspace.clone(), false));
    let victim = OutsideFile::new();
    let before = victim.metadata();
    let path = victim.path.display().to_string();
    let py = |code: &str| format!("python3 -c \"import os; p='{path}'; {code}; print('changed')\"");
    for command in [
        format!("chmod u+s {path}"),
        format!("chmod g+s {path}"),
        py("os.chmod(p, 0o4755)"),
        py("fd = os.open(p, os.O_RDONLY); os.fchmod(fd, 0o2755)"),
        py(
            "import ctypes; l = ctypes.CDLL(None, use_errno=True); rc = l.syscall(452, -100, p.encode(), 0o4755, 0); assert rc == 0, ctypes.get_errno()",
        ),
        "touch own && chmod u+s own".to_string(),
    ] {
        let out = bash(&ctx, &command).await;
        assert!(
            !out.content.contains("changed"),
            "{command}: {}",
            out.content
        );
        assert_eq!(victim.metadata(), before, "{command}: {}", out.content);
    }
    use std::os::unix::fs::PermissionsExt;
    let own = std::fs::metadata(ctx.workspace.join("own")).unwrap();
    assert_eq!(own.permissions().mode() & 0o6000, 0);
    // Ordinary modes in the workspace are what builds set: allowed.
    let out = bash(&ctx, "touch run.sh && chmod +x run.sh && echo ok").await;
    assert!(out.content.starts_with("ok"), "{}", out.content);
}

/// A SysV shared memory segment, message queue and semaphore set, and a
/// POSIX message queue, made by the test (outside any sandbox), removed
/// when dropped.
struct OutsideIpc {
    shm: libc::c_int,
    msg: libc::c_int,
    sem: libc::c_int,
    /// A POSIX message queue, and its name.
    mq: libc::mqd_t,
    mq_name: std::ffi::CString,
}

impl OutsideIpc {
    fn new() -> Self {
        let mq_name = std::ffi::CString::new(format!("/zcode-sbx-{}", std::process::id())).unwrap();
        // SAFETY: plain IPC calls with constant arguments and a
        // NUL-terminated queue name.
        let ipc = unsafe {
            Self {
                shm: libc::shmget(libc::IPC_PRIVATE, 4096, libc::IPC_CREAT | 0o600),
                msg: libc::msgget(libc::IPC_PRIVATE, libc::IPC_CREAT | 0o600),
                sem: libc::semget(libc::IPC_PRIVATE, 1, libc::IPC_CREAT | 0o600),
                mq: libc::mq_open(
                    mq_name.as_ptr(),
                    libc::O_CREAT | libc::O_RDWR,
                    0o600 as libc::mode_t,
                    std::ptr::null::<libc::mq_attr>(),
                ),
                mq_name,
            }
        };
        assert!(ipc.mq >= 0, "{}", std::io::Error::last_os_error());
        assert!(
            ipc.shm >= 0 && ipc.msg >= 0 && ipc.sem >= 0,
            "{}",
            std::io::Error::last_os_error()
        );
        ipc
    }

    /// The first bytes of the segment.
    fn shm_bytes(&self) -> Vec<u8> {
        // SAFETY: attach read-only, copy 8 bytes of the 4096, detach.
        unsafe {
            let p = libc::shmat(self.shm, std::ptr::null(), libc::SHM_RDONLY);
            assert_ne!(p as isize, -1, "the segment is gone");
            let bytes = std::slice::from_raw_parts(p as *const u8, 8).to_vec();
            libc::shmdt(p);
            bytes
        }
    }

    /// Whether a message is waiting in the queue (taken if so).
    fn message_waiting(&self) -> bool {
        let mut buf = [0u8; 64];
        // SAFETY: a receive buffer larger than the size given.
        let n = unsafe { libc::msgrcv(self.msg, buf.as_mut_ptr().cast(), 16, 0, libc::IPC_NOWAIT) };
        n >= 0
    }

    fn semaphore(&self) -> libc::c_int {
        // SAFETY: GETVAL of semaphore 0 of a set of one.
        unsafe { libc::semctl(self.sem, 0, libc::GETVAL) }
    }

    /// Messages waiting in the POSIX queue (-1: the queue is gone).
    fn mq_messages(&self) -> libc::c_long {
        // SAFETY: mq_getattr into a zeroed struct; a fresh open by name
        // shows whether the queue still exists.
        unsafe {
            let mut attr: libc::mq_attr = std::mem::zeroed();
            libc::mq_getattr(self.mq, &mut attr);
            let again = libc::mq_open(self.mq_name.as_ptr(), libc::O_RDONLY);
            if again < 0 {
                return -1;
            }
            libc::mq_close(again);
            attr.mq_curmsgs
        }
    }

    fn attacks(&self) -> Vec<String> {
        let py = |code: String| {
            format!("python3 -c \"import ctypes; l = ctypes.CDLL(None, use_errno=True); {code}\"")
        };
        vec![
            py(format!(
                "l.shmat.restype = ctypes.c_void_p; p = l.shmat({}, None, 0); \
                 assert p not in (None, ctypes.c_void_p(-1).value), ctypes.get_errno(); \
                 ctypes.memmove(p, b'pwned', 5); print('changed')",
                self.shm
            )),
            py(format!(
                "b = ctypes.create_string_buffer(b'\\x01' + bytes(7) + b'pwned'); \
                 rc = l.msgsnd({}, b, 5, 0o4000); assert rc == 0, ctypes.get_errno(); print('changed')",
                self.msg
            )),
            py(format!(
                "b = (ctypes.c_short * 3)(0, 1, 0o4000); rc = l.semop({}, b, 1); \
                 assert rc == 0, ctypes.get_errno(); print('changed')",
                self.sem
            )),
            py(format!(
                "b = (ctypes.c_short * 3)(0, 1, 0o4000); rc = l.semtimedop({}, b, 1, None); \
                 assert rc == 0, ctypes.get_errno(); print('changed')",
                self.sem
            )),
            py(format!(
                "rc = l.semctl({}, 0, 16, 5); assert rc == 0, ctypes.get_errno(); print('changed')",
                self.sem
            )),
            format!("ipcrm -m {} && echo changed", self.shm),
            format!("ipcrm -q {} && echo changed", self.msg),
            format!("ipcrm -s {} && echo changed", self.sem),
            "ipcmk -M 4096 && echo changed".to_string(),
            py(format!(
                "q = l.mq_open(b'{0}', 1); assert q >= 0, ctypes.get_errno(); \
                 rc = l.mq_send(q, b'pwned', 5, 0); assert rc == 0, ctypes.get_errno(); print('changed')",
                self.mq_name.to_str().unwrap()
            )),
            py(format!(
                "rc = l.mq_unlink(b'{0}'); assert rc == 0, ctypes.get_errno(); print('changed')",
                self.mq_name.to_str().unwrap()
            )),
        ]
    }

    fn check_untouched(&self, command: &str) {
        assert_eq!(self.shm_bytes(), [0u8; 8], "{command}");
        assert!(!self.message_waiting(), "{command}");
        assert_eq!(self.semaphore(), 0, "{command}");
        assert_eq!(self.mq_messages(), 0, "{command}");
    }
}

impl Drop for OutsideIpc {
    fn drop(&mut self) {
        // SAFETY: IPC_RMID of the ids this value made.
        unsafe {
            libc::shmctl(self.shm, libc::IPC_RMID, std::ptr::null_mut());
            libc::msgctl(self.msg, libc::IPC_RMID, std::ptr::null_mut());
            libc::semctl(self.sem, 0, libc::IPC_RMID);
            libc::mq_close(self.mq);
            libc::mq_unlink(self.mq_name.as_ptr());
        }
    }
}

#[tokio::test]
async fn sandbox_refuses_sysv_ipc_and_message_queues_of_processes_outside_it() {
    let ipc = OutsideIpc::new();
    let (_d, read_only_ctx) = read_only();
    let (_w, mut write_ctx) = workspace(None);
    write_ctx.sandbox = Some(SandboxPolicy::workspace_write(
        write_ctx.workspace.clone(),
        false,
    ));
    for ctx in [&read_only_ctx, &write_ctx] {
        for command in ipc.attacks() {
            let out = bash(ctx, &command).await;
            assert!(
                !out.content.contains("changed"),
                "{command}: {}",
                out.content
            );
            ipc.check_untouched(&command);
        }
    }
}

/// The soft limit of open files of `pid`, as /proc shows it.
fn open_files_limit(pid: u32) -> String {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap()
        .to_string()
}

/// The nice value of `pid` (field 19 of its stat line).
fn nice_value(pid: u32) -> String {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let (_, rest) = stat.rsplit_once(") ").unwrap();
    rest.split_ascii_whitespace().nth(16).unwrap().to_string()
}

#[tokio::test]
async fn sandbox_refuses_prlimit_and_priority_changes_of_outside_processes() {
    let mut outside = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let pid = outside.id();
    let (limits, nice) = (open_files_limit(pid), nice_value(pid));
    let (_d, read_only_ctx) = read_only();
    let (_w, mut write_ctx) = workspace(None);
    write_ctx.sandbox = Some(SandboxPolicy::workspace_write(
        write_ctx.workspace.clone(),
        false,
    ));
    for ctx in [&read_only_ctx, &write_ctx] {
        for command in [
            format!("prlimit --pid {pid} --nofile=1:1 && echo changed"),
            format!("prlimit --pid {pid} --core=0:0 && echo changed"),
            format!("renice -n 15 -p {pid} && echo changed"),
            "renice -n 15 -u $(id -u) && echo changed".to_string(),
            format!("taskset -p 1 {pid} && echo changed"),
            format!("ionice -c 3 -p {pid} && echo changed"),
            format!("chrt -b -p 0 {pid} && echo changed"),
        ] {
            let out = bash(ctx, &command).await;
            assert!(
                !out.content.contains("changed"),
                "{command}: {}",
                out.content
            );
            assert_eq!(open_files_limit(pid), limits, "{command}");
            assert_eq!(nice_value(pid), nice, "{command}");
        }
        // Its own limits a command still sets, and reads others'.
        let out = bash(ctx, "ulimit -n 64 && ulimit -n").await;
        assert!(out.content.starts_with("64\n"), "{}", out.content);
        let out = bash(
            ctx,
            &format!("prlimit --pid {pid} --nofile --output SOFT --noheadings"),
        )
        .await;
        assert!(!out.is_error && out.exit_code == Some(0), "{}", out.content);
    }
    outside.kill().unwrap();
    outside.wait().unwrap();
}

#[tokio::test]
async fn sandbox_bounds_memory_and_turns_core_dumps_off() {
    let (_d, ctx) = read_only();
    let out = bash(&ctx, "ulimit -c; ulimit -d").await;
    let lines: Vec<&str> = out.content.lines().collect();
    assert_eq!(lines[0], "0", "{}", out.content);
    assert_ne!(lines[1], "unlimited", "{}", out.content);
    // Eight GiB asked at once (zeroed lazily: without a bound it succeeds
    // at no cost, which is what makes the bound visible cheaply).
    let out = bash(
        &ctx,
        "python3 -c \"b = bytearray(8 << 30); print('allocated')\"",
    )
    .await;
    assert!(!out.content.contains("allocated"), "{}", out.content);
    assert!(out.content.contains("MemoryError"), "{}", out.content);
    // Small programs are untouched.
    let out = bash(
        &ctx,
        "python3 -c \"b = bytearray(64 << 20); print('allocated')\"",
    )
    .await;
    assert!(out.content.starts_with("allocated"), "{}", out.content);
}

/// Daemons that leave the command's process group and session and hide
/// their marker; each prints the pid that must not outlive the command.
const DAEMONS: [&str; 4] = [
    "echo $( (setsid sh -c 'sleep 1000 >/dev/null 2>&1 & echo $!' &) )",
    "python3 -c \"
import os, time
if os.fork() == 0:
    try: os.setsid()
    except OSError: pass
    if os.fork() == 0:
        print(os.getpid(), flush=True)
        fd = os.open('/dev/null', os.O_RDWR)
        for n in (0, 1, 2): os.dup2(fd, n)
        time.sleep(1000)
    os._exit(0)
os.wait()
\"",
    "env -i python3 -c \"
import os, time
r, w = os.pipe()
if os.fork() == 0:
    try: os.setpgid(0, 0)
    except OSError: pass
    print(os.getpid(), flush=True)
    fd = os.open('/dev/null', os.O_RDWR)
    for n in (0, 1, 2): os.dup2(fd, n)
    os.write(w, b'x')
    time.sleep(1000)
os.read(r, 1)
\"",
    "nohup sleep 1000 >/dev/null 2>&1 & echo $!",
];

/// The pids a daemon command printed.
fn printed_pids(text: &str) -> Vec<i32> {
    text.lines().filter_map(|l| l.trim().parse().ok()).collect()
}

#[tokio::test]
async fn sandbox_ends_every_process_a_command_started_when_it_ends() {
    let (_d, read_only_ctx) = read_only();
    let (_w, mut write_ctx) = workspace(None);
    write_ctx.sandbox = Some(SandboxPolicy::workspace_write(
        write_ctx.workspace.clone(),
        false,
    ));
    for ctx in [&read_only_ctx, &write_ctx] {
        for command in DAEMONS {
            let out = bash(ctx, command).await;
            for pid in printed_pids(&out.content) {
                let ended = gone_soon(pid).await;
                if !ended {
                    // SAFETY: kill(2) of the survivor this test made.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
                assert!(
                    ended,
                    "{command}: {pid} outlived the command: {}",
                    out.content
                );
            }
        }
    }
}
