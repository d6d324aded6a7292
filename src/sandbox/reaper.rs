//! Ending everything a command started, for a process that runs one
//! command and then exits (`zcode sandbox`): it becomes the subreaper of
//! its descendants, so that a daemon that left the process group and the
//! session (fork, setsid, fork) is re-parented to it rather than to init,
//! and after the command it kills and reaps every child it still has until
//! none is left.

/// Makes the calling process the reaper of its orphaned descendants.
#[cfg(target_os = "linux")]
pub(crate) fn become_subreaper() -> std::io::Result<()> {
    // SAFETY: a prctl with constant arguments.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Elsewhere there is no sandbox to run a command in (and no subreaper).
#[cfg(not(target_os = "linux"))]
pub(crate) fn become_subreaper() -> std::io::Result<()> {
    Ok(())
}

/// Rounds of kill-and-reap: each round kills the children of now, whose
/// own children are re-parented here for the next round. Bounded so that
/// a process that cannot be read in /proc cannot keep this looping.
const MAX_ROUNDS: usize = 10_000;

/// Kills (SIGKILL) and reaps every child of the calling process, and the
/// children re-parented to it as they die, until it has none. Returns how
/// many were killed.
pub(crate) fn end_all_children() -> usize {
    let own = std::process::id();
    let mut killed = 0;
    for _ in 0..MAX_ROUNDS {
        let children = children_of(own);
        if children.is_empty() {
            break;
        }
        for &pid in &children {
            // SAFETY: kill(2) of a child of this process (it cannot be
            // reaped, and its pid reused, before the waitpid below).
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed += 1;
        }
        for &pid in &children {
            // SAFETY: waitpid on a child of this process, status unused.
            unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
        }
    }
    killed
}

/// The pids whose parent is `parent`, zombies included (they need reaping).
fn children_of(parent: u32) -> Vec<i32> {
    let Ok(parent) = i32::try_from(parent) else {
        return Vec::new();
    };
    crate::proc_table::pids()
        .into_iter()
        .filter(|&pid| crate::proc_table::stat(pid).is_some_and(|s| s.ppid == parent))
        .collect()
}
