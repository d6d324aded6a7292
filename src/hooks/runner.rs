//! Running hook commands (HOOK-1): `sh -c <command>` in the workspace, one
//! JSON event on stdin, JSON on stdout, bounded by a timeout and a
//! cancellation token. A broken hook is logged, never fatal: only exit code 2
//! or an explicit deny can refuse a call on the user's behalf.

use super::protocol::{
    HookInput, PermissionDecisionInput, PermissionHookDecision, PreToolUseResponse, ToolResponse,
    blocking_message, parse_permission_request_output, parse_pre_tool_use_output,
};
use crate::config::hooks::{HookEntry, HookEvent, Hooks};
use crate::permission::check::HookPermission;
use crate::protocol::PermissionRequest;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

/// At most this much of a hook's stdout and of its stderr is kept; the rest
/// is read and dropped so the hook never blocks on a full pipe.
pub const MAX_HOOK_OUTPUT_BYTES: usize = 1024 * 1024;

/// Characters of a blocking hook's stderr kept as the denial reason (which
/// is shown, stored and sent to the model); the cut is marked.
pub const MAX_HOOK_REASON_CHARS: usize = 4000;

/// Exit code with which a hook blocks the call, its stderr being the reason
/// (the convention of Claude Code hooks).
pub const BLOCKING_EXIT_CODE: i32 = 2;

/// Why the PermissionRequest chain gave no answer other than "no decision".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookError {
    #[error("hook cancelled")]
    Cancelled,
    /// Every hook that ran failed or had no decision, and at least one failed.
    #[error("{}", .0.join("; "))]
    Failed(Vec<String>),
}

/// The combined answer of the PreToolUse hooks (HOOK-3).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PreToolUseOutcome {
    /// Deny if any hook denied (the first deny's reason), else Ask if any
    /// asked, else Allow if any allowed.
    pub permission: Option<HookPermission>,
    /// The input after every hook's `updatedInput`, when one changed it.
    pub updated_input: Option<Value>,
    /// Failed hooks, for the logs.
    pub errors: Vec<String>,
}

/// The PermissionRequest chain's answer with the failures of the hooks that
/// ran before it (HOOK-2).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PermissionRequestOutcome {
    pub decision: Option<PermissionHookDecision>,
    pub errors: Vec<String>,
    pub cancelled: bool,
}

/// How one hook run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum RunResult {
    /// Exit 0 with this stdout.
    Output(String),
    /// Exit 2; the reason is its stderr, capped.
    Blocked(String),
    /// No decision; the message is for the logs.
    Failed(String),
    Cancelled,
}

/// Runs the configured hooks of one session.
#[derive(Debug, Clone)]
pub struct HookRunner {
    hooks: Hooks,
    session_id: String,
    cwd: PathBuf,
}

impl HookRunner {
    pub fn new(hooks: Hooks, session_id: impl Into<String>, cwd: impl Into<PathBuf>) -> Self {
        Self {
            hooks,
            session_id: session_id.into(),
            cwd: cwd.into(),
        }
    }

    pub fn hooks(&self) -> &Hooks {
        &self.hooks
    }

    /// Whether any hook of `event` applies to `tool`.
    pub(crate) fn has_hooks(&self, event: HookEvent, tool: &str) -> bool {
        self.hooks.matching(event, tool).next().is_some()
    }

    fn input(&self, event: HookEvent, tool: &str, input: Value, tool_use_id: &str) -> HookInput {
        HookInput::new(
            event,
            &self.session_id,
            &self.cwd.to_string_lossy(),
            tool,
            input,
            tool_use_id,
        )
    }

    /// HOOK-3: runs the matching PreToolUse hooks in config order, each with
    /// the input as updated by the hooks before it. Stops at the first deny.
    pub async fn pre_tool_use(
        &self,
        tool: &str,
        input: &Value,
        tool_use_id: &str,
        cancel: &CancellationToken,
    ) -> PreToolUseOutcome {
        let mut outcome = PreToolUseOutcome::default();
        let mut current = input.clone();
        let (mut asked, mut allowed) = (false, false);
        for entry in self.hooks.matching(HookEvent::PreToolUse, tool) {
            let event = self.input(HookEvent::PreToolUse, tool, current.clone(), tool_use_id);
            let response = match run_hook(entry, &self.cwd, &event, cancel).await {
                RunResult::Output(stdout) => match parse_pre_tool_use_output(&stdout) {
                    Ok(response) => response,
                    Err(e) => {
                        outcome.errors.push(hook_error(entry, &e));
                        continue;
                    }
                },
                RunResult::Blocked(reason) => PreToolUseResponse {
                    permission: Some(HookPermission::Deny(reason)),
                    updated_input: None,
                },
                RunResult::Failed(e) => {
                    outcome.errors.push(e);
                    continue;
                }
                RunResult::Cancelled => {
                    outcome.errors.push(hook_error(entry, "cancelled"));
                    break;
                }
            };
            match response.permission {
                Some(deny @ HookPermission::Deny(_)) => {
                    outcome.permission = Some(deny);
                    return outcome;
                }
                Some(HookPermission::Ask) => asked = true,
                Some(HookPermission::Allow) => allowed = true,
                None => {}
            }
            if let Some(updated) = response.updated_input {
                current = updated.clone();
                outcome.updated_input = Some(updated);
            }
        }
        outcome.permission = if asked {
            Some(HookPermission::Ask)
        } else if allowed {
            Some(HookPermission::Allow)
        } else {
            None
        };
        outcome
    }

    /// HOOK-2 with the failures kept: hooks run in order, the first that
    /// decides wins.
    pub(crate) async fn permission_request_outcome(
        &self,
        request: &PermissionRequest,
        cancel: &CancellationToken,
    ) -> PermissionRequestOutcome {
        let mut outcome = PermissionRequestOutcome::default();
        for entry in self
            .hooks
            .matching(HookEvent::PermissionRequest, &request.tool)
        {
            let mut event = self.input(
                HookEvent::PermissionRequest,
                &request.tool,
                request.input.clone(),
                &request.call_id,
            );
            event.permission_decision = Some(PermissionDecisionInput {
                behavior: "ask".to_string(),
                rule_id: request.rule_id.clone(),
                reason: request.reason.clone(),
            });
            event.suggestions = Some(request.suggestions.clone());
            match run_hook(entry, &self.cwd, &event, cancel).await {
                RunResult::Output(stdout) => match parse_permission_request_output(&stdout) {
                    Ok(Some(decision)) => {
                        outcome.decision = Some(decision);
                        return outcome;
                    }
                    Ok(None) => {}
                    Err(e) => outcome.errors.push(hook_error(entry, &e)),
                },
                RunResult::Blocked(message) => {
                    outcome.decision = Some(PermissionHookDecision::Deny {
                        message: if message.is_empty() {
                            super::protocol::DEFAULT_PERMISSION_DENY_MESSAGE.to_string()
                        } else {
                            message
                        },
                    });
                    return outcome;
                }
                RunResult::Failed(e) => outcome.errors.push(e),
                RunResult::Cancelled => {
                    outcome.cancelled = true;
                    return outcome;
                }
            }
        }
        outcome
    }

    /// HOOK-2: the first deciding hook's answer; `Ok(None)` when no hook
    /// decided, `Err` when the chain was cancelled or a hook failed and none
    /// decided. Either way without an answer the approval waits for the user.
    pub async fn permission_request(
        &self,
        request: &PermissionRequest,
        cancel: &CancellationToken,
    ) -> Result<Option<PermissionHookDecision>, HookError> {
        let outcome = self.permission_request_outcome(request, cancel).await;
        match outcome {
            PermissionRequestOutcome {
                decision: Some(decision),
                ..
            } => Ok(Some(decision)),
            PermissionRequestOutcome {
                cancelled: true, ..
            } => Err(HookError::Cancelled),
            PermissionRequestOutcome { errors, .. } if !errors.is_empty() => {
                Err(HookError::Failed(errors))
            }
            _ => Ok(None),
        }
    }

    /// Runs the matching PostToolUse hooks in order (formatters and the
    /// like). Their answers are ignored; the failures are returned.
    pub async fn post_tool_use(
        &self,
        tool: &str,
        input: &Value,
        tool_use_id: &str,
        response: ToolResponse,
        cancel: &CancellationToken,
    ) -> Vec<String> {
        let mut errors = Vec::new();
        for entry in self.hooks.matching(HookEvent::PostToolUse, tool) {
            let mut event = self.input(HookEvent::PostToolUse, tool, input.clone(), tool_use_id);
            event.tool_response = Some(response.clone());
            match run_hook(entry, &self.cwd, &event, cancel).await {
                RunResult::Output(_) | RunResult::Blocked(_) => {}
                RunResult::Failed(e) => errors.push(e),
                RunResult::Cancelled => {
                    errors.push(hook_error(entry, "cancelled"));
                    break;
                }
            }
        }
        errors
    }
}

/// A log line naming the hook.
fn hook_error(entry: &HookEntry, message: &str) -> String {
    const SHOWN: usize = 80;
    let command = entry.command.trim();
    let shown: String = command.chars().take(SHOWN).collect();
    let ellipsis = if command.chars().count() > SHOWN {
        "…"
    } else {
        ""
    };
    format!("hook `{shown}{ellipsis}`: {message}")
}

/// What was read of a pipe: at most the cap, and how much came in all.
struct Captured {
    kept: Vec<u8>,
    total: usize,
}

impl Captured {
    fn truncated(&self) -> bool {
        self.total > self.kept.len()
    }
}

/// Reads a pipe to its end, keeping at most `cap` bytes.
async fn read_capped<R: AsyncRead + Unpin>(reader: Option<R>, cap: usize) -> Captured {
    let mut captured = Captured {
        kept: Vec::new(),
        total: 0,
    };
    let Some(mut reader) = reader else {
        return captured;
    };
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = cap.saturating_sub(captured.kept.len());
                captured.kept.extend_from_slice(&chunk[..n.min(room)]);
                captured.total += n;
            }
        }
    }
    captured
}

/// A blocking hook's stderr as the denial reason: trimmed, at most
/// [`MAX_HOOK_REASON_CHARS`] characters, a cut marked with the full size.
fn denial_reason(stderr: &Captured) -> String {
    let text = String::from_utf8_lossy(&stderr.kept);
    let text = blocking_message(&text);
    let mut chars = text.char_indices();
    match chars.nth(MAX_HOOK_REASON_CHARS) {
        None if !stderr.truncated() => text,
        cut => {
            let end = cut.map_or(text.len(), |(at, _)| at);
            format!(
                "{}… [hook stderr cut: {} bytes in all]",
                &text[..end],
                stderr.total
            )
        }
    }
}

/// Kills the hook's whole process group when dropped, unless disarmed: a
/// hook that times out, is cancelled or loses a race takes its children with
/// it.
struct GroupKill {
    pgid: Option<u32>,
}

impl GroupKill {
    fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupKill {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            kill_process_group(pgid);
        }
    }
}

/// Sends SIGKILL to a process group through the shell's `kill` builtin
/// (which takes a negative pid for a group), so no libc binding is needed.
#[cfg(unix)]
fn kill_process_group(pgid: u32) {
    let _ = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("kill -KILL -{pgid} 2>/dev/null"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

#[cfg(not(unix))]
fn kill_process_group(_pgid: u32) {}

/// Runs one hook command with `event` on stdin.
async fn run_hook(
    entry: &HookEntry,
    cwd: &Path,
    event: &HookInput,
    cancel: &CancellationToken,
) -> RunResult {
    if cancel.is_cancelled() {
        return RunResult::Cancelled;
    }
    let mut payload = match serde_json::to_vec(event) {
        Ok(bytes) => bytes,
        Err(e) => {
            return RunResult::Failed(hook_error(entry, &format!("cannot encode event: {e}")));
        }
    };
    payload.push(b'\n');

    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(&entry.command)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => return RunResult::Failed(hook_error(entry, &format!("cannot start: {e}"))),
    };
    let mut group = GroupKill { pgid: child.id() };
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();

    let io = async {
        let write = async move {
            if let Some(mut stdin) = stdin {
                // A hook that does not read its input closes the pipe early;
                // that is not an error.
                let _ = stdin.write_all(&payload).await;
                let _ = stdin.shutdown().await;
            }
        };
        let (_, out, err, status) = tokio::join!(
            write,
            read_capped(stdout, MAX_HOOK_OUTPUT_BYTES),
            read_capped(stderr, MAX_HOOK_OUTPUT_BYTES),
            child.wait()
        );
        (out, err, status)
    };
    let timeout = Duration::from_millis(entry.timeout_ms);
    let finished = tokio::select! {
        biased;
        _ = cancel.cancelled() => Err(RunResult::Cancelled),
        r = tokio::time::timeout(timeout, io) => r.map_err(|_| RunResult::Failed(hook_error(
            entry,
            &format!("timed out after {} ms", entry.timeout_ms),
        ))),
    };
    let (stdout, stderr, status) = match finished {
        Ok(done) => done,
        Err(result) => {
            drop(group);
            let _ = child.start_kill();
            let _ = child.wait().await;
            return result;
        }
    };
    group.disarm();
    let status = match status {
        Ok(status) => status,
        Err(e) => return RunResult::Failed(hook_error(entry, &format!("cannot wait: {e}"))),
    };
    match status.code() {
        Some(0) if stdout.truncated() => RunResult::Failed(hook_error(
            entry,
            &format!("stdout exceeded {MAX_HOOK_OUTPUT_BYTES} bytes"),
        )),
        Some(0) => RunResult::Output(String::from_utf8_lossy(&stdout.kept).into_owned()),
        Some(BLOCKING_EXIT_CODE) => RunResult::Blocked(denial_reason(&stderr)),
        Some(code) => {
            let stderr = String::from_utf8_lossy(&stderr.kept);
            let detail = stderr.trim();
            let message = if detail.is_empty() {
                format!("exited with code {code}")
            } else {
                format!("exited with code {code}: {}", first_chars(detail, 500))
            };
            RunResult::Failed(hook_error(entry, &message))
        }
        None => RunResult::Failed(hook_error(entry, "killed by a signal")),
    }
}

fn first_chars(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}
