//! The Landlock half of the sandbox: which paths may be read, written and
//! executed, TCP, and the scopes (abstract Unix sockets, signals).

use super::{SandboxKind, SandboxPolicy};
use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope,
};
use std::path::Path;

/// The kernel's Landlock ABI version, or 0 (asked of the kernel itself).
pub(super) fn kernel_abi() -> i32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: landlock_create_ruleset with a null attribute, size 0 and the
    // VERSION flag only returns the ABI version (or an error).
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    i32::try_from(v).unwrap_or(0).max(0)
}

/// Files the sandbox still lets a command open for writing: the null device.
/// (Its standard streams, the terminal or the Bash tool's pipes, are open
/// already and stay writable; `/dev/tty` is not reopened, so that a command
/// cannot draw over the TUI or send the terminal escape sequences.)
const WRITABLE_DEVICES: [&str; 1] = ["/dev/null"];

pub(super) fn ruleset(policy: &SandboxPolicy, abi: i32) -> Result<RulesetCreated, String> {
    let abi = ABI::from(abi);
    let fs_all = AccessFs::from_all(abi);
    let fs_read = AccessFs::from_read(abi);
    let file_rw = AccessFs::from_file(abi);
    let err = |e: landlock::RulesetError| e.to_string();

    // Everything the kernel knows is handled, so nothing is allowed by
    // default; what the kernel lacks is reported by `support`.
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(fs_all)
        .map_err(err)?;
    let net = AccessNet::from_all(abi);
    if !net.is_empty() && !policy.network {
        ruleset = ruleset.handle_access(net).map_err(err)?;
    }
    let scopes = Scope::from_all(abi);
    if !scopes.is_empty() {
        ruleset = ruleset.scope(scopes).map_err(err)?;
    }
    let mut created = ruleset.create().map_err(err)?;

    created = created
        .add_rule(PathBeneath::new(open("/")?, fs_read))
        .map_err(err)?;
    for device in WRITABLE_DEVICES {
        // A machine without a terminal device simply has none to allow.
        if let Ok(fd) = PathFd::new(device) {
            created = created
                .add_rule(PathBeneath::new(fd, file_rw))
                .map_err(err)?;
        }
    }
    if policy.kind == SandboxKind::WorkspaceWrite {
        for root in &policy.writable_roots {
            if root.is_dir() {
                created = created
                    .add_rule(PathBeneath::new(open(root)?, fs_all))
                    .map_err(err)?;
            }
        }
    }
    Ok(created)
}

fn open(path: impl AsRef<Path>) -> Result<PathFd, String> {
    let path = path.as_ref();
    PathFd::new(path).map_err(|e| format!("cannot open {}: {e}", path.display()))
}

/// Restricts the calling (child) process; fails unless every handled right
/// is enforced.
pub(super) fn restrict_self(ruleset: RulesetCreated) -> std::io::Result<()> {
    match ruleset.restrict_self() {
        Ok(status) if status.ruleset == RulesetStatus::FullyEnforced => Ok(()),
        Ok(_) => Err(std::io::Error::other(
            "the Landlock ruleset is not fully enforced",
        )),
        Err(e) => Err(std::io::Error::other(e.to_string())),
    }
}
