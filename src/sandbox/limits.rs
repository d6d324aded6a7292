//! Resource limits of a sandboxed command: its memory (`RLIMIT_DATA`), its
//! processes (`RLIMIT_NPROC`) and no core dumps (`RLIMIT_CORE` 0, so a
//! crashing command writes nothing, whatever the system's core pattern
//! names). Computed in the parent; the child only calls `setrlimit`.

use super::ResourceLimits;

/// The limits to set, each already lowered to what the parent has, so
/// that setting them never needs a privilege.
#[derive(Debug, Clone, Copy)]
pub(super) struct PreparedLimits {
    data: libc::rlimit,
    nproc: Option<libc::rlimit>,
    core: libc::rlimit,
}

impl PreparedLimits {
    pub(super) fn new(limits: &ResourceLimits) -> Self {
        let data = limits.memory_mib.saturating_mul(1 << 20);
        Self {
            data: lowered(libc::RLIMIT_DATA, data),
            nproc: process_bound(limits.process_limit)
                .map(|bound| lowered(libc::RLIMIT_NPROC, bound)),
            core: lowered(libc::RLIMIT_CORE, 0),
        }
    }

    /// Sets the limits on the calling (child) process: syscalls only.
    pub(super) fn apply(&self) -> std::io::Result<()> {
        set(libc::RLIMIT_CORE, &self.core)?;
        set(libc::RLIMIT_DATA, &self.data)?;
        if let Some(nproc) = &self.nproc {
            set(libc::RLIMIT_NPROC, nproc)?;
        }
        Ok(())
    }
}

#[cfg(target_env = "gnu")]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(target_env = "gnu"))]
type Resource = libc::c_int;

fn set(resource: Resource, limit: &libc::rlimit) -> std::io::Result<()> {
    // SAFETY: setrlimit with a valid struct.
    if unsafe { libc::setrlimit(resource, limit) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// `value` as both soft and hard limit, but never above the current ones.
fn lowered(resource: Resource, value: u64) -> libc::rlimit {
    let mut current = libc::rlimit {
        rlim_cur: libc::RLIM_INFINITY,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: getrlimit into a valid struct.
    unsafe { libc::getrlimit(resource, &mut current) };
    let value = value as libc::rlim_t;
    libc::rlimit {
        rlim_cur: value.min(current.rlim_cur).min(current.rlim_max),
        rlim_max: value.min(current.rlim_max),
    }
}

/// `RLIMIT_NPROC` counts every process (thread, in fact) of the real user,
/// so the bound is what runs now plus `extra`. What runs now is read as the
/// machine's total (one read of `/proc/loadavg`, where counting the user's
/// own would mean reading every process): at least `extra` more are
/// possible, at most as many more as other users run. The kernel never
/// applies the limit to root (uid 0 is exempt whatever its capabilities),
/// so none is set there; a root command's processes are bounded in time
/// instead (they all end with the command).
fn process_bound(extra: u64) -> Option<u64> {
    // SAFETY: getuid has no failure mode.
    let uid = unsafe { libc::getuid() };
    if uid == 0 {
        return None;
    }
    let loadavg = std::fs::read_to_string("/proc/loadavg").ok()?;
    Some(tasks_now(&loadavg)?.saturating_add(extra))
}

/// The total of "runnable/total", the fourth field of `/proc/loadavg`.
fn tasks_now(loadavg: &str) -> Option<u64> {
    let field = loadavg.split_ascii_whitespace().nth(3)?;
    field.split_once('/')?.1.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_never_rise_above_the_current_ones() {
        let l = lowered(libc::RLIMIT_CORE, u64::MAX);
        let mut current = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit into a valid struct.
        unsafe { libc::getrlimit(libc::RLIMIT_CORE, &mut current) };
        assert!(l.rlim_cur <= current.rlim_cur && l.rlim_max <= current.rlim_max);
        let l = lowered(libc::RLIMIT_DATA, 1 << 30);
        assert!(l.rlim_cur <= 1 << 30 && l.rlim_max <= 1 << 30);
    }

    #[test]
    fn the_process_bound_starts_from_the_tasks_running_now() {
        assert_eq!(tasks_now("0.00 0.01 0.05 2/345 6789\n"), Some(345));
        assert_eq!(tasks_now("garbage"), None);
        // SAFETY: getuid has no failure mode.
        let uid = unsafe { libc::getuid() };
        match process_bound(10) {
            None => assert_eq!(uid, 0),
            // This process itself is one of those running.
            Some(bound) => assert!(bound > 10),
        }
    }
}
