//! Config `sandbox`: when the sandbox is used.

use serde::Serialize;

/// `sandbox.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxMode {
    /// The sandbox where the kernel supports it; otherwise the strict
    /// analysis alone, and a notice.
    #[default]
    Auto,
    /// No sandbox, no command runs unasked: read-only commands are asked.
    Required,
    /// Never a sandbox (the strict analysis alone).
    Off,
}

impl SandboxMode {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "auto" => Some(Self::Auto),
            "required" => Some(Self::Required),
            "off" => Some(Self::Off),
            _ => None,
        }
    }
}

/// `sandbox.approvedCommands`: how commands the user (or a rule) approved
/// run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovedCommands {
    /// As they are, outside any sandbox.
    #[default]
    None,
    /// Writes limited to the workspace and the temp directory.
    WorkspaceWrite,
}

impl ApprovedCommands {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "none" => Some(Self::None),
            "workspace-write" => Some(Self::WorkspaceWrite),
            _ => None,
        }
    }
}

/// The `sandbox` section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxSettings {
    pub mode: SandboxMode,
    pub approved_commands: ApprovedCommands,
    /// Network for approved commands under `workspace-write`.
    pub network: bool,
    #[serde(flatten)]
    pub limits: ResourceLimits,
}

/// `sandbox.memoryLimitMiB` and `sandbox.processLimit`: what one sandboxed
/// command may take. Core dumps are always off there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLimits {
    /// Each process's data (heap and private writable mappings:
    /// `RLIMIT_DATA`), in MiB. Address-space reservations that are never
    /// written (a JIT's or a runtime's) do not count, unlike `RLIMIT_AS`.
    #[serde(rename = "memoryLimitMiB")]
    pub memory_mib: u64,
    /// Processes the command may start beyond those running when it starts
    /// (`RLIMIT_NPROC`, which the kernel counts per user and does not apply
    /// to root).
    pub process_limit: u64,
}

impl ResourceLimits {
    pub(crate) const DEFAULT_MEMORY_MIB: u64 = 4096;
    pub(crate) const DEFAULT_PROCESS_LIMIT: u64 = 1024;
}

impl Default for ResourceLimits {
    fn default() -> Self {
        Self {
            memory_mib: Self::DEFAULT_MEMORY_MIB,
            process_limit: Self::DEFAULT_PROCESS_LIMIT,
        }
    }
}
