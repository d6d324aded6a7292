//! The seccomp half of the sandbox: syscalls that would get a command out
//! of the Landlock rules, or change the machine, fail with EPERM (so the
//! command reports its own error); `clone3` fails with ENOSYS so that libc
//! falls back to `clone`, whose namespace flags can be inspected.
//!
//! Besides the ways out, the calls that change what Landlock does not
//! cover: file metadata under read-only (mode, owner, times, xattrs and so
//! ACLs, inode flags) and setuid/setgid bits under workspace-write, SysV IPC objects and POSIX message queues (shared
//! with every process of the IPC namespace), and the limits, priorities
//! and placement of other processes. `setsid` and `setpgid` are refused so
//! that every process of the command stays in its process group, which is
//! ended with the command.

use super::{SandboxKind, SandboxPolicy};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;

#[cfg(target_arch = "x86_64")]
const ARCH: TargetArch = TargetArch::x86_64;
#[cfg(target_arch = "aarch64")]
const ARCH: TargetArch = TargetArch::aarch64;
#[cfg(target_arch = "riscv64")]
const ARCH: TargetArch = TargetArch::riscv64;

/// Does the kernel accept seccomp filters? (`PR_GET_SECCOMP` answers 0 when
/// seccomp is built in and this process is not yet filtered.)
pub(super) fn kernel_supports_filters() -> bool {
    // SAFETY: a prctl query without side effects.
    let mode = unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) };
    // 0: no filter yet; 2: already filtered (nesting is allowed).
    mode == 0 || mode == 2
}

/// Syscalls refused whatever their arguments.
const ALWAYS_REFUSED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_acct,
    libc::SYS_quotactl,
    libc::SYS_userfaultfd,
    libc::SYS_pidfd_getfd,
    libc::SYS_open_by_handle_at,
    // io_uring performs socket and file operations the filter never sees.
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
];

/// SysV IPC (shared memory, message queues, semaphores) and POSIX message
/// queues: objects of the whole IPC namespace, so of processes outside the
/// sandbox too, with no Landlock rule over them. (A fresh IPC namespace
/// would need a privilege or a user namespace, which many systems refuse
/// to unprivileged users.)
const IPC_REFUSED: &[libc::c_long] = &[
    libc::SYS_shmget,
    libc::SYS_shmat,
    libc::SYS_shmctl,
    libc::SYS_msgget,
    libc::SYS_msgsnd,
    libc::SYS_msgrcv,
    libc::SYS_msgctl,
    libc::SYS_semget,
    libc::SYS_semop,
    libc::SYS_semtimedop,
    libc::SYS_semctl,
    libc::SYS_mq_open,
    libc::SYS_mq_unlink,
    libc::SYS_mq_timedsend,
    libc::SYS_mq_timedreceive,
    libc::SYS_mq_notify,
    libc::SYS_mq_getsetattr,
    // Leaving the process group (or the session): what the command leaves
    // running would escape the group kill at its end.
    libc::SYS_setsid,
    libc::SYS_setpgid,
    // Acting on another process's memory by pid file descriptor.
    libc::SYS_process_madvise,
    libc::SYS_process_mrelease,
];

/// Syscall numbers the libc crate does not name on every architecture
/// (new syscalls share one number on all of them).
const SYS_FCHMODAT2: libc::c_long = 452;
const SYS_SETXATTRAT: libc::c_long = 463;
const SYS_REMOVEXATTRAT: libc::c_long = 466;
const SYS_FILE_SETATTR: libc::c_long = 469;

/// File metadata calls refused under read-only: Landlock has no right for
/// them, so without this a command could chmod (setuid bits included),
/// chown, re-date or tag (xattrs, ACLs) every file its user owns.
const METADATA_REFUSED: &[libc::c_long] = &[
    #[cfg(target_arch = "x86_64")]
    libc::SYS_chmod,
    libc::SYS_fchmod,
    libc::SYS_fchmodat,
    SYS_FCHMODAT2,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_chown,
    libc::SYS_fchown,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_lchown,
    libc::SYS_fchownat,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_utime,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_utimes,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_futimesat,
    libc::SYS_utimensat,
    libc::SYS_setxattr,
    libc::SYS_lsetxattr,
    libc::SYS_fsetxattr,
    SYS_SETXATTRAT,
    libc::SYS_removexattr,
    libc::SYS_lremovexattr,
    libc::SYS_fremovexattr,
    SYS_REMOVEXATTRAT,
    SYS_FILE_SETATTR,
];

/// Inode flag ioctls (chattr: append-only, no-dump, project ids...), refused
/// under read-only with the other metadata calls.
const FS_IOC_SETFLAGS: u64 = 0x4008_6602;
const FS_IOC32_SETFLAGS: u64 = 0x4004_6602;
const FS_IOC_FSSETXATTR: u64 = 0x401c_5820;

/// Network syscalls refused when the policy has no network: no socket
/// can reach anything, while `socketpair` streams between the command's own
/// processes keep working.
const NETWORK_REFUSED: &[libc::c_long] = &[libc::SYS_connect, libc::SYS_bind];

const CLONE_NAMESPACE_FLAGS: [libc::c_int; 7] = [
    libc::CLONE_NEWNS,
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWCGROUP,
];

/// Terminal ioctls that inject input into, or control, the terminal.
const TIOCSTI: u64 = 0x5412;
const TIOCLINUX: u64 = 0x541C;
/// The socket type's low bits (flags such as SOCK_CLOEXEC live above).
const SOCK_TYPE_MASK: u64 = 0xf;

fn cond(
    arg: u8,
    len: SeccompCmpArgLen,
    op: SeccompCmpOp,
    value: u64,
) -> Result<SeccompCondition, String> {
    SeccompCondition::new(arg, len, op, value).map_err(|e| e.to_string())
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, String> {
    SeccompRule::new(conditions).map_err(|e| e.to_string())
}

/// The seccomp programs for `policy`, in the order they are installed.
pub(super) fn programs(policy: &SandboxPolicy) -> Result<Vec<BpfProgram>, String> {
    use SeccompCmpArgLen::{Dword, Qword};
    let mut refused: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for &nr in ALWAYS_REFUSED {
        refused.insert(nr, Vec::new());
    }
    // A clone that makes any new namespace (one rule per flag: a rule's
    // conditions are all required, and the rules of a syscall are
    // alternatives).
    let namespace_rules = CLONE_NAMESPACE_FLAGS
        .iter()
        .map(|&flag| {
            let flag = flag as u64;
            rule(vec![cond(0, Qword, SeccompCmpOp::MaskedEq(flag), flag)?])
        })
        .collect::<Result<Vec<_>, _>>()?;
    refused.insert(libc::SYS_clone, namespace_rules);
    for &nr in IPC_REFUSED {
        refused.insert(nr, Vec::new());
    }
    other_process_rules(&mut refused)?;
    let mut ioctls = vec![TIOCSTI, TIOCLINUX];
    if policy.kind == SandboxKind::ReadOnly {
        // Landlock ABI 3 covers truncate(2); older kernels do not.
        refused.insert(libc::SYS_truncate, Vec::new());
        for &nr in METADATA_REFUSED {
            refused.insert(nr, Vec::new());
        }
        ioctls.extend([FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS, FS_IOC_FSSETXATTR]);
    }
    if policy.kind == SandboxKind::WorkspaceWrite {
        setid_bit_rules(&mut refused)?;
    }
    let ioctl_rules = ioctls
        .into_iter()
        .map(|request| rule(vec![cond(1, Dword, SeccompCmpOp::Eq, request)?]))
        .collect::<Result<Vec<_>, _>>()?;
    refused.insert(libc::SYS_ioctl, ioctl_rules);
    if !policy.network {
        for &nr in NETWORK_REFUSED {
            refused.insert(nr, Vec::new());
        }
        let unix = libc::AF_UNIX as u64;
        let dgram = libc::SOCK_DGRAM as u64;
        // Only Unix stream sockets: datagrams could be sent to a named
        // socket without `connect`.
        let socket_rules = vec![
            rule(vec![cond(0, Dword, SeccompCmpOp::Ne, unix)?])?,
            rule(vec![cond(
                1,
                Dword,
                SeccompCmpOp::MaskedEq(SOCK_TYPE_MASK),
                dgram,
            )?])?,
        ];
        refused.insert(libc::SYS_socket, socket_rules.clone());
        refused.insert(libc::SYS_socketpair, socket_rules);
        // A datagram with a destination address.
        refused.insert(
            libc::SYS_sendto,
            vec![rule(vec![cond(4, Qword, SeccompCmpOp::Ne, 0)?])?],
        );
    }
    let eperm = SeccompAction::Errno(libc::EPERM as u32);
    let main = SeccompFilter::new(refused, SeccompAction::Allow, eperm, ARCH)
        .map_err(|e| e.to_string())?;

    let mut clone3 = BTreeMap::new();
    clone3.insert(libc::SYS_clone3, Vec::new());
    let enosys = SeccompAction::Errno(libc::ENOSYS as u32);
    let fallback = SeccompFilter::new(clone3, SeccompAction::Allow, enosys, ARCH)
        .map_err(|e| e.to_string())?;

    let compile = |f: SeccompFilter| BpfProgram::try_from(f).map_err(|e| e.to_string());
    let mut programs = vec![compile(main)?, compile(fallback)?];
    #[cfg(target_arch = "x86_64")]
    programs.push(no_x32());
    Ok(programs)
}

/// Under workspace-write chmod stays allowed (builds set modes), but never
/// the setuid or setgid bit: Landlock does not restrict chmod, so without
/// this a command could mark any file its user owns setuid, a root-owned
/// program outside the workspace included.
fn setid_bit_rules(refused: &mut BTreeMap<i64, Vec<SeccompRule>>) -> Result<(), String> {
    let set_bits = |arg: u8| -> Result<Vec<SeccompRule>, String> {
        [libc::S_ISUID, libc::S_ISGID]
            .into_iter()
            .map(|bit| {
                let bit = u64::from(bit);
                rule(vec![cond(
                    arg,
                    SeccompCmpArgLen::Dword,
                    SeccompCmpOp::MaskedEq(bit),
                    bit,
                )?])
            })
            .collect()
    };
    // The mode is the second argument of chmod and fchmod, the third of
    // fchmodat and fchmodat2.
    #[cfg(target_arch = "x86_64")]
    refused.insert(libc::SYS_chmod, set_bits(1)?);
    refused.insert(libc::SYS_fchmod, set_bits(1)?);
    refused.insert(libc::SYS_fchmodat, set_bits(2)?);
    refused.insert(SYS_FCHMODAT2, set_bits(2)?);
    Ok(())
}

/// Calls that change another process's limits, priority or placement are
/// refused unless they name the caller itself (pid 0); reading them stays
/// allowed. The Landlock signal scope does not cover these.
fn other_process_rules(refused: &mut BTreeMap<i64, Vec<SeccompRule>>) -> Result<(), String> {
    use SeccompCmpArgLen::{Dword, Qword};
    let not_self = |arg: u8| cond(arg, Dword, SeccompCmpOp::Ne, 0);
    // prlimit64(pid, resource, new, old): a new limit for another pid.
    refused.insert(
        libc::SYS_prlimit64,
        vec![rule(vec![
            not_self(0)?,
            cond(2, Qword, SeccompCmpOp::Ne, 0)?,
        ])?],
    );
    // setpriority(which, who, prio): only PRIO_PROCESS (0) of the caller.
    // ioprio_set(which, who, prio): only IOPRIO_WHO_PROCESS (1) of the caller.
    const IOPRIO_WHO_PROCESS: u64 = 1;
    refused.insert(
        libc::SYS_setpriority,
        vec![rule(vec![not_self(0)?])?, rule(vec![not_self(1)?])?],
    );
    refused.insert(
        libc::SYS_ioprio_set,
        vec![
            rule(vec![cond(0, Dword, SeccompCmpOp::Ne, IOPRIO_WHO_PROCESS)?])?,
            rule(vec![not_self(1)?])?,
        ],
    );
    for nr in [
        libc::SYS_sched_setaffinity,
        libc::SYS_sched_setscheduler,
        libc::SYS_sched_setparam,
        libc::SYS_sched_setattr,
        libc::SYS_migrate_pages,
        libc::SYS_move_pages,
    ] {
        refused.insert(nr, vec![rule(vec![not_self(0)?])?]);
    }
    Ok(())
}

/// x32 syscalls carry the x86_64 audit arch with bit 30 set in their number,
/// so the filters above (which match exact numbers) would let them all
/// through: they are refused as a whole.
#[cfg(target_arch = "x86_64")]
fn no_x32() -> BpfProgram {
    use seccompiler::sock_filter;
    // BPF_LD | BPF_W | BPF_ABS, BPF_JMP | BPF_JGE | BPF_K, BPF_RET | BPF_K.
    const LD_W_ABS: u16 = 0x20;
    const JMP_JGE_K: u16 = 0x35;
    const RET_K: u16 = 0x06;
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    let errno = libc::SECCOMP_RET_ERRNO | (libc::ENOSYS as u32 & libc::SECCOMP_RET_DATA);
    vec![
        // seccomp_data.nr is at offset 0.
        sock_filter {
            code: LD_W_ABS,
            jt: 0,
            jf: 0,
            k: 0,
        },
        sock_filter {
            code: JMP_JGE_K,
            jt: 0,
            jf: 1,
            k: X32_SYSCALL_BIT,
        },
        sock_filter {
            code: RET_K,
            jt: 0,
            jf: 0,
            k: errno,
        },
        sock_filter {
            code: RET_K,
            jt: 0,
            jf: 0,
            k: libc::SECCOMP_RET_ALLOW,
        },
    ]
}
