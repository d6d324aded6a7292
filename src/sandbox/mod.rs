//! The kernel sandbox under shell commands.
//!
//! A Bash command that zcode runs on the strength of its own read-only
//! judgment runs inside the read-only sandbox, so that a flaw in the shell
//! analysis cannot write, delete or reach the network: Landlock makes the
//! whole filesystem readable and executable but writable only at `/dev/null`
//! (and the standard streams the command was given), and forbids TCP (ABI 4+), abstract Unix sockets and
//! signals to processes outside the sandbox (ABI 6+); a seccomp filter closes
//! the other ways out (sockets other than Unix streams, connecting to a Unix
//! socket, ptrace, mount, namespaces, io_uring, terminal injection, clock and
//! host changes, SysV and POSIX message IPC, limits and priorities of other
//! processes, leaving the process group, and under read-only the metadata
//! calls Landlock does not cover: chmod, chown, utime, xattrs). Resource
//! limits bound memory and processes and turn core dumps off. Every process
//! the command starts inherits all of it.
//!
//! Everything is prepared in the parent (`prepare`); the forked child only
//! makes the final syscalls (`PreparedSandbox::enter`), which neither
//! allocate nor take locks.

use serde::Serialize;
use std::path::PathBuf;

#[cfg(target_os = "linux")]
mod landlock_rules;
#[cfg(target_os = "linux")]
mod limits;
#[cfg(target_os = "linux")]
mod privileges;
pub mod reaper;
#[cfg(target_os = "linux")]
mod seccomp_rules;
mod settings;

pub use settings::{ApprovedCommands, ResourceLimits, SandboxMode, SandboxSettings};

/// Which sandbox a command runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxKind {
    /// Nothing writable but `/dev/null` and the open standard streams; no
    /// network.
    ReadOnly,
    /// Writable: the workspace and the temp directory; network as set.
    WorkspaceWrite,
}

impl SandboxKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxKind::ReadOnly => "read-only",
            SandboxKind::WorkspaceWrite => "workspace-write",
        }
    }
}

/// A sandbox to run one command in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    pub kind: SandboxKind,
    /// Directories writable under `WorkspaceWrite` (ignored for `ReadOnly`).
    pub writable_roots: Vec<PathBuf>,
    /// Network allowed (only ever under `WorkspaceWrite`).
    pub network: bool,
    /// What the command may take (memory, processes).
    pub limits: ResourceLimits,
}

impl SandboxPolicy {
    pub fn read_only() -> Self {
        Self {
            kind: SandboxKind::ReadOnly,
            writable_roots: Vec::new(),
            network: false,
            limits: ResourceLimits::default(),
        }
    }

    /// The same policy with the configured resource limits.
    pub fn with_limits(mut self, limits: ResourceLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The workspace and the temp directories writable.
    pub fn workspace_write(workspace: PathBuf, network: bool) -> Self {
        let mut roots = vec![workspace, std::env::temp_dir(), PathBuf::from("/tmp")];
        roots.dedup();
        Self {
            kind: SandboxKind::WorkspaceWrite,
            writable_roots: roots,
            network,
            limits: ResourceLimits::default(),
        }
    }
}

/// What this machine's kernel offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Support {
    /// The Landlock ABI version (0: none).
    pub landlock_abi: i32,
    /// Seccomp filters can be installed.
    pub seccomp: bool,
    /// Why the sandbox is unavailable, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

impl Support {
    pub fn available(&self) -> bool {
        self.unavailable.is_none()
    }
}

/// The kernel's support, probed once per process.
pub fn support() -> &'static Support {
    static SUPPORT: std::sync::OnceLock<Support> = std::sync::OnceLock::new();
    SUPPORT.get_or_init(probe)
}

/// Set (to anything but empty), zcode behaves as on a kernel without the
/// sandbox: to see, and test, the fallback on a machine that has it.
pub(crate) const PRETEND_UNAVAILABLE_ENV: &str = "ZCODE_SANDBOX_UNAVAILABLE";

#[cfg(target_os = "linux")]
fn probe() -> Support {
    let landlock_abi = landlock_rules::kernel_abi();
    let seccomp = seccomp_rules::kernel_supports_filters();
    let pretend = std::env::var_os(PRETEND_UNAVAILABLE_ENV).is_some_and(|v| !v.is_empty());
    let unavailable = if pretend {
        Some(format!("{PRETEND_UNAVAILABLE_ENV} is set"))
    } else if landlock_abi < 1 {
        Some("the kernel does not offer Landlock (Linux 5.13 or newer with Landlock enabled at boot)".to_string())
    } else if !seccomp {
        Some("the kernel does not offer seccomp filters".to_string())
    } else {
        None
    };
    Support {
        landlock_abi,
        seccomp,
        unavailable,
    }
}

#[cfg(not(target_os = "linux"))]
fn probe() -> Support {
    Support {
        landlock_abi: 0,
        seccomp: false,
        unavailable: Some("the kernel sandbox exists only on Linux".to_string()),
    }
}

/// Why a sandbox could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("cannot set up the {kind} sandbox: {message}")]
pub struct SandboxError {
    pub kind: &'static str,
    pub message: String,
}

impl SandboxError {
    fn new(kind: SandboxKind, message: impl Into<String>) -> Self {
        Self {
            kind: kind.as_str(),
            message: message.into(),
        }
    }
}

/// A sandbox built in the parent, ready to be entered by the child.
pub struct PreparedSandbox {
    #[cfg(target_os = "linux")]
    landlock: Option<::landlock::RulesetCreated>,
    #[cfg(target_os = "linux")]
    filters: Vec<seccompiler::BpfProgram>,
    #[cfg(target_os = "linux")]
    limits: limits::PreparedLimits,
}

impl std::fmt::Debug for PreparedSandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedSandbox").finish_non_exhaustive()
    }
}

/// Builds the Landlock ruleset and the seccomp programs for `policy`.
/// Fails (and nothing may then run) when the kernel lacks the sandbox.
pub fn prepare(policy: &SandboxPolicy) -> Result<PreparedSandbox, SandboxError> {
    let support = support();
    if let Some(why) = &support.unavailable {
        return Err(SandboxError::new(policy.kind, why.clone()));
    }
    #[cfg(target_os = "linux")]
    {
        let landlock = landlock_rules::ruleset(policy, support.landlock_abi)
            .map_err(|e| SandboxError::new(policy.kind, e))?;
        let filters =
            seccomp_rules::programs(policy).map_err(|e| SandboxError::new(policy.kind, e))?;
        Ok(PreparedSandbox {
            landlock: Some(landlock),
            filters,
            limits: limits::PreparedLimits::new(&policy.limits),
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(SandboxError::new(policy.kind, "unsupported platform"))
    }
}

impl PreparedSandbox {
    /// Enters the sandbox: to be called in the forked child, just before
    /// exec (`pre_exec`). Only syscalls on data built by `prepare`.
    pub fn enter(&mut self) -> std::io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            self.limits.apply()?;
            privileges::drop_all();
            let ruleset = self.landlock.take().ok_or_else(|| {
                std::io::Error::other("the sandbox was already entered in this process")
            })?;
            landlock_rules::restrict_self(ruleset)?;
            for program in &self.filters {
                seccompiler::apply_filter(program)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
            }
            privileges::close_inherited_descriptors();
            Ok(())
        }
        #[cfg(not(target_os = "linux"))]
        {
            Err(std::io::Error::other(
                "the kernel sandbox exists only on Linux",
            ))
        }
    }
}

/// Extra environment for a sandboxed command: git takes no optional locks
/// (so `git status` does not try to refresh the index it may not write).
pub(crate) const SANDBOX_ENV: [(&str, &str); 1] = [("GIT_OPTIONAL_LOCKS", "0")];

/// Arranges for `cmd` to run inside `policy`'s sandbox.
pub(crate) fn apply_to_std(
    cmd: &mut std::process::Command,
    policy: &SandboxPolicy,
) -> Result<(), SandboxError> {
    use std::os::unix::process::CommandExt;
    let mut prepared = prepare(policy)?;
    cmd.envs(SANDBOX_ENV);
    // SAFETY: `enter` makes only syscalls on data prepared before the fork
    // (no allocation, no locks), which is what a pre_exec hook may do.
    unsafe {
        cmd.pre_exec(move || prepared.enter());
    }
    Ok(())
}

/// `apply_to_std` for a tokio command.
pub(crate) fn apply_to_tokio(
    cmd: &mut tokio::process::Command,
    policy: &SandboxPolicy,
) -> Result<(), SandboxError> {
    apply_to_std(cmd.as_std_mut(), policy)
}
