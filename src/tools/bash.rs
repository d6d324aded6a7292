//! TOOL-4 Bash: one shell command in the workspace, in its own process
//! group, with a timeout, cancellation and an output budget. A sandboxed
//! command's process group is killed when its shell exits: nothing it
//! started outlives it.

use super::bash_live::LiveFeed;
use super::input::{self, Fields};
use super::{Tool, ToolContext, ToolOutput};
use crate::permission::capability::{Capability, RiskLevel, SideEffectScope};
use crate::permission::declaration::{AskReason, RuleSubject, ToolDeclaration};
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::time::Instant;

pub const NAME: &str = "Bash";
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// Bytes of output returned; beyond it the middle is cut.
pub const OUTPUT_BUDGET: usize = 30_000;
/// Between SIGTERM and SIGKILL when a command is stopped.
pub const KILL_GRACE: Duration = Duration::from_secs(2);
/// How long output is still collected after the shell exits (from
/// background processes that inherited the pipe).
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(200);

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BashInput {
    pub command: String,
    /// Milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl BashInput {
    pub fn parse(input: Value) -> Result<Self, String> {
        let mut fields = Fields::new(NAME, input)?;
        fields.int("timeout", 1, Some(MAX_TIMEOUT_MS))?;
        let parsed: Self = fields.parse()?;
        input::non_empty(NAME, "command", &parsed.command)?;
        Ok(parsed)
    }

    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout.unwrap_or(DEFAULT_TIMEOUT_MS))
    }
}

#[derive(Debug, Default)]
pub struct BashTool;

/// What Bash is to the permission engine, the approval and the TUI.
pub static DECLARATION: ToolDeclaration = ToolDeclaration::builtin(
    NAME,
    Capability {
        read_only: false,
        side_effect_scope: SideEffectScope::System,
        risk_level: RiskLevel::High,
        needs_approval: true,
        ..Capability::read_only_low("bash")
    },
)
.with_subject(RuleSubject::Command)
.with_wording(
    "run a command",
    AskReason::Command {
        checked: "runs a command that can change files",
        unchecked: "runs a command that can change files (zcode cannot check all of it in advance)",
    },
);

impl Tool for BashTool {
    fn description(&self) -> &'static str {
        include_str!("../../assets/tools/bash.md")
    }

    fn compact_description(&self) -> std::borrow::Cow<'static, str> {
        include_str!("../../assets/tools/compact/bash.md").into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "command": {
                    "type": "string",
                    "description": "The shell command to run (bash -c, in the workspace root)"
                },
                "timeout": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_TIMEOUT_MS,
                    "description": "Timeout in milliseconds (default 120000, at most 600000)"
                },
                "description": {
                    "type": "string",
                    "description": "A short description of what the command does, in 5-10 words, shown to the user"
                }
            },
            "required": ["command"],
            "additionalProperties": false
        })
    }

    fn declaration(&self) -> &ToolDeclaration {
        &DECLARATION
    }

    fn validate(&self, input: Value) -> Result<Value, String> {
        input::normalized(NAME, &BashInput::parse(input)?)
    }

    fn run<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            match BashInput::parse(input) {
                Ok(input) => run_command(&input.command, input.timeout(), ctx).await,
                Err(e) => ToolOutput::error(e),
            }
        })
    }
}

/// The shell: `bash` from PATH, else `sh`.
fn shell() -> &'static PathBuf {
    static SHELL: OnceLock<PathBuf> = OnceLock::new();
    SHELL.get_or_init(|| {
        let found = std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("bash"))
                .find(|candidate| candidate.is_file())
        });
        found.unwrap_or_else(|| PathBuf::from("sh"))
    })
}

/// A pipe whose ends are closed on exec (the child gets dup'ed copies).
fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` is a valid array of two ints for pipe(2) to fill.
    let rc = unsafe { libc::pipe(fds.as_mut_ptr()) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: pipe(2) succeeded, so both descriptors are open and ours.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    for fd in [&read, &write] {
        use std::os::fd::AsRawFd;
        // SAFETY: fcntl on a descriptor we own.
        unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    Ok((read, write))
}

/// Signals every process of a group.
fn signal_group(pgid: i32, signal: libc::c_int) -> bool {
    // SAFETY: kill(2) with a negative pid addresses the process group.
    unsafe { libc::kill(-pgid, signal) == 0 }
}

/// Whether any process of the group still runs. Zombies do not count: an
/// orphan is reaped by init (or a subreaper), which may take its time,
/// and waiting for that would only delay the result.
fn group_alive(pgid: i32) -> bool {
    if !signal_group(pgid, 0) {
        return false;
    }
    #[cfg(target_os = "linux")]
    if let Some(live) = linux_group_has_live_member(pgid) {
        return live;
    }
    true
}

/// Scans /proc for a non-zombie process in group `pgid`; `None` when /proc
/// cannot be read.
#[cfg(target_os = "linux")]
fn linux_group_has_live_member(pgid: i32) -> Option<bool> {
    let entries = std::fs::read_dir("/proc").ok()?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // "pid (comm) state ppid pgrp ..." — comm may contain ") ".
        let Some((_, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let mut fields = rest.split_ascii_whitespace();
        let state = fields.next();
        let group = fields.nth(1).and_then(|g| g.parse::<i32>().ok());
        if group == Some(pgid) && !matches!(state, Some("Z" | "X")) {
            return Some(true);
        }
    }
    Some(false)
}

/// Kills the process group if the run is dropped before it finished (the
/// turn was aborted from outside).
struct GroupGuard {
    pgid: Option<i32>,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid {
            signal_group(pgid, libc::SIGKILL);
        }
    }
}

/// The first and last bytes of the output, and how many were in between.
struct HeadTail {
    half: usize,
    head: Vec<u8>,
    tail: Vec<u8>,
    total: usize,
}

impl HeadTail {
    fn new(budget: usize) -> Self {
        Self {
            half: budget / 2,
            head: Vec::new(),
            tail: Vec::new(),
            total: 0,
        }
    }

    fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len();
        if self.head.len() < self.half {
            let take = bytes.len().min(self.half - self.head.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > self.half * 2 {
            let excess = self.tail.len() - self.half;
            self.tail.drain(..excess);
        }
    }

    fn render(mut self) -> String {
        if self.tail.len() > self.half {
            let excess = self.tail.len() - self.half;
            self.tail.drain(..excess);
        }
        let cut = self.total - self.head.len() - self.tail.len();
        if cut == 0 {
            self.head.extend_from_slice(&self.tail);
            return String::from_utf8_lossy(&self.head).into_owned();
        }
        // Cut at character boundaries.
        let head_end = match std::str::from_utf8(&self.head) {
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            _ => self.head.len(),
        };
        let tail_start = self
            .tail
            .iter()
            .take(3)
            .take_while(|b| (**b & 0b1100_0000) == 0b1000_0000)
            .count();
        let cut = cut + (self.head.len() - head_end) + tail_start;
        format!(
            "{}\n\n… [{cut} bytes of output cut here; only the first and last {} bytes are shown. Send long output to a file and Read or Grep it, or filter it with head/tail/grep.] …\n\n{}",
            String::from_utf8_lossy(&self.head[..head_end]),
            self.half,
            String::from_utf8_lossy(&self.tail[tail_start..]),
        )
    }
}

enum Ending {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
}

/// Runs `command` with `bash -c` in the workspace; see the module docs.
pub async fn run_command(command: &str, timeout: Duration, ctx: &ToolContext) -> ToolOutput {
    let (read_end, write_end) = match pipe() {
        Ok(ends) => ends,
        Err(e) => return ToolOutput::error(format!("Cannot create a pipe for the command: {e}")),
    };
    let stderr_end = match write_end.try_clone() {
        Ok(fd) => fd,
        Err(e) => return ToolOutput::error(format!("Cannot create a pipe for the command: {e}")),
    };
    // Marks every process the command starts, so what it leaves running
    // is found and ended with the session (see `background`).
    let job = ctx.processes.start_job(command);
    let mut cmd = tokio::process::Command::new(shell());
    cmd.arg("-c")
        .arg(command)
        .env(super::background::JOB_ENV, job.env_value())
        .current_dir(&ctx.workspace)
        .stdin(Stdio::null())
        .stdout(Stdio::from(write_end))
        .stderr(Stdio::from(stderr_end))
        .env("PAGER", "cat")
        .env("GIT_PAGER", "cat")
        .env("GIT_TERMINAL_PROMPT", "0")
        .process_group(0)
        .kill_on_drop(true);
    if ctx.neutralise_git {
        cmd.envs(crate::git_env::read_only_env());
    }
    if let Some(policy) = &ctx.sandbox
        && let Err(e) = crate::sandbox::apply_to_tokio(&mut cmd, policy)
    {
        // Never run unsandboxed what was allowed only because of the sandbox.
        return ToolOutput::error(format!("{e}; the command was not run."));
    }
    let spawned = cmd.spawn();
    // The parent's copies of the write end must close, or EOF never comes.
    drop(cmd);
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            return ToolOutput::error(format!(
                "Cannot start {} in {}: {e}",
                shell().display(),
                ctx.workspace.display()
            ));
        }
    };
    let Some(pgid) = child.id().and_then(|pid| i32::try_from(pid).ok()) else {
        return ToolOutput::error("The command exited before it could be tracked.");
    };
    job.set_group(pgid);
    let mut guard = GroupGuard { pgid: Some(pgid) };
    let mut reader = match tokio::net::unix::pipe::Receiver::from_owned_fd(read_end) {
        Ok(reader) => Some(reader),
        Err(e) => {
            signal_group(pgid, libc::SIGKILL);
            return ToolOutput::error(format!("Cannot read the command's output: {e}"));
        }
    };

    let mut output = HeadTail::new(OUTPUT_BUDGET);
    let mut buf = vec![0u8; 16 * 1024];
    let deadline = Instant::now() + timeout;
    let mut live = ctx
        .live_output
        .clone()
        .map(|sink| LiveFeed::new(sink, Instant::now()));
    let ending = loop {
        let live_due = live.as_ref().and_then(LiveFeed::due);
        tokio::select! {
            read = read_some(&mut reader, &mut buf) => match read {
                Some(n) => {
                    output.push(&buf[..n]);
                    if let Some(live) = live.as_mut() {
                        live.push(&buf[..n]);
                    }
                }
                None => reader = None,
            },
            _ = tokio::time::sleep_until(live_due.unwrap_or(deadline)), if live_due.is_some() => {
                if let Some(live) = live.as_mut() {
                    live.flush(Instant::now());
                }
            }
            status = child.wait() => match status {
                Ok(status) => break Ending::Exited(status),
                Err(e) => {
                    signal_group(pgid, libc::SIGKILL);
                    return ToolOutput::error(format!("Lost track of the command: {e}"));
                }
            },
            _ = tokio::time::sleep_until(deadline) => break Ending::TimedOut,
            _ = ctx.cancel.cancelled() => break Ending::Cancelled,
        }
    };

    let status = match ending {
        Ending::Exited(status) => {
            if ctx.sandbox.is_some() {
                // A sandboxed command cannot leave its process group
                // (setsid and setpgid are refused there), so this ends
                // everything it started.
                end_group(pgid).await;
            }
            // Otherwise background processes may live on (tracked by
            // `background` and ended with the session); the command is done.
            guard.pgid = None;
            Some(status)
        }
        Ending::TimedOut | Ending::Cancelled => {
            stop_group(pgid, &mut child, &mut reader, &mut buf, &mut output).await;
            guard.pgid = None;
            None
        }
    };
    let drain_until = Instant::now() + DRAIN_AFTER_EXIT;
    while reader.is_some() {
        tokio::select! {
            read = read_some(&mut reader, &mut buf) => match read {
                Some(n) => {
                    output.push(&buf[..n]);
                    if let Some(live) = live.as_mut() {
                        live.push(&buf[..n]);
                    }
                }
                None => reader = None,
            },
            _ = tokio::time::sleep_until(drain_until) => break,
        }
    }
    // Before the result: a command that ended before its first send shows
    // its output live too.
    if let Some(live) = live.as_mut() {
        live.finish();
    }
    // A background process still holds the pipe: what it writes from now
    // on is read and dropped, since a closed read end would kill it with
    // SIGPIPE at its next write. This ends at EOF, when the last holder
    // exits (at the latest when the session ends them).
    if let Some(rest) = reader.take() {
        tokio::spawn(discard_until_eof(rest));
    }

    let mut text = output.render();
    while text.ends_with('\n') {
        text.pop();
    }
    if text.is_empty() {
        text.push_str("(no output)");
    }
    match (ending_label(&ending, timeout), status) {
        (Some(label), _) => ToolOutput::error(format!("{text}\n\n{label}")),
        (None, Some(status)) => ToolOutput {
            exit_code: exit_code(status),
            ..ToolOutput::ok(format!(
                "{text}\n\n{}{}",
                describe_status(status),
                sandbox_note(ctx.sandbox.as_ref(), status)
            ))
        },
        (None, None) => ToolOutput::error(text),
    }
}

fn ending_label(ending: &Ending, timeout: Duration) -> Option<String> {
    match ending {
        Ending::Exited(_) => None,
        Ending::TimedOut => Some(format!(
            "Command timed out after {} ms; its process group was killed.",
            timeout.as_millis()
        )),
        Ending::Cancelled => {
            Some("Command was interrupted; its process group was killed.".to_string())
        }
    }
}

/// Tells the model, when a sandboxed command failed, what the sandbox
/// refuses: its error may be a refused write or connection.
fn sandbox_note(policy: Option<&crate::sandbox::SandboxPolicy>, status: ExitStatus) -> String {
    use crate::sandbox::SandboxKind;
    match policy {
        Some(p) if !status.success() => match p.kind {
            SandboxKind::ReadOnly => " (it ran in the read-only sandbox, since it was judged \
                read-only: writing files or their metadata (chmod, chown, touch, xattrs), \
                network access and setsid are refused there, and nothing it starts outlives it; \
                a command that must write or connect needs approval)"
                .to_string(),
            SandboxKind::WorkspaceWrite => format!(
                " (it ran in the workspace-write sandbox: only the workspace and the temp \
                 directory are writable, setsid is refused and nothing it starts outlives it{})",
                if p.network {
                    ""
                } else {
                    ", and network access is refused"
                }
            ),
        },
        _ => String::new(),
    }
}

/// The exit code as the shell reports it in `$?`: 128 + N for a command
/// killed by signal N.
fn exit_code(status: ExitStatus) -> Option<i32> {
    status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
}

fn describe_status(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("Exit code: {code}"),
        (None, Some(signal)) => format!("Killed by signal {signal}"),
        (None, None) => "Exit status unknown".to_string(),
    }
}

/// Reads once; `None` at EOF, on an error, or when there is no reader
/// (then it never completes).
async fn read_some(
    reader: &mut Option<tokio::net::unix::pipe::Receiver>,
    buf: &mut [u8],
) -> Option<usize> {
    match reader {
        Some(r) => match r.read(buf).await {
            Ok(0) | Err(_) => None,
            Ok(n) => Some(n),
        },
        None => std::future::pending().await,
    }
}

async fn discard_until_eof(mut reader: tokio::net::unix::pipe::Receiver) {
    let mut buf = vec![0u8; 16 * 1024];
    while let Ok(n) = reader.read(&mut buf).await {
        if n == 0 {
            break;
        }
    }
}

/// SIGKILL to every process left in the group, and a wait (bounded by
/// [`KILL_GRACE`]) until none of them runs any more.
async fn end_group(pgid: i32) {
    if !signal_group(pgid, libc::SIGKILL) {
        return;
    }
    let give_up = Instant::now() + KILL_GRACE;
    while group_alive(pgid) && Instant::now() < give_up {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// SIGTERM to the group, output still collected; SIGKILL to whatever is
/// left after the grace period; the shell reaped.
async fn stop_group(
    pgid: i32,
    child: &mut tokio::process::Child,
    reader: &mut Option<tokio::net::unix::pipe::Receiver>,
    buf: &mut [u8],
    output: &mut HeadTail,
) {
    signal_group(pgid, libc::SIGTERM);
    let grace_end = Instant::now() + KILL_GRACE;
    let mut exited = false;
    loop {
        if exited && !group_alive(pgid) {
            break;
        }
        tokio::select! {
            read = read_some(reader, buf) => match read {
                Some(n) => output.push(&buf[..n]),
                None => *reader = None,
            },
            _ = child.wait(), if !exited => exited = true,
            _ = tokio::time::sleep(Duration::from_millis(25)), if exited => {}
            _ = tokio::time::sleep_until(grace_end) => break,
        }
    }
    if group_alive(pgid) {
        signal_group(pgid, libc::SIGKILL);
    }
    let _ = child.wait().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_tail_keeps_everything_under_budget() {
        let mut h = HeadTail::new(10);
        h.push(b"abc");
        h.push(b"def");
        assert_eq!(h.render(), "abcdef");
    }

    #[test]
    fn head_tail_cuts_the_middle() {
        let mut h = HeadTail::new(10);
        for chunk in [b"01234".as_slice(), b"56789", b"abcde", b"fghij"] {
            h.push(chunk);
        }
        let text = h.render();
        assert!(text.starts_with("01234\n"), "{text}");
        assert!(text.ends_with("\nfghij"), "{text}");
        assert!(text.contains("[10 bytes of output cut here"), "{text}");
    }

    #[test]
    fn head_tail_cuts_at_char_boundaries() {
        let mut h = HeadTail::new(12);
        h.push(b"a");
        h.push("éééééééé".as_bytes());
        h.push(b"b");
        let text = h.render();
        assert!(!text.contains('\u{FFFD}'), "{text}");
        assert!(text.starts_with("aéé\n"), "{text}");
        assert!(text.ends_with("\nééb"), "{text}");
        assert!(text.contains("[8 bytes of output cut here"), "{text}");
    }
}
