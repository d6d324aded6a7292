//! Who holds a session (this process, by pid, start time and host) and
//! whether a recorded holder is still running.

use std::path::Path;

/// A process as a session lock records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockHolder {
    /// Random per runtime: two runtimes of one process hold distinct locks.
    pub token: String,
    pub pid: i64,
    /// When the process started (clock ticks after boot, from
    /// `/proc/PID/stat`), so that a reused pid is not taken for the holder.
    pub pid_started: Option<i64>,
    /// Where `pid` names that process: the boot and the pid namespace.
    /// Another host (or container) sharing the database has another one.
    pub host: String,
}

/// What the lock table says about a holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HolderRecord {
    pub token: String,
    pub pid: i64,
    pub pid_started: Option<i64>,
    pub host: String,
    pub acquired_at: i64,
    pub heartbeat_at: i64,
}

/// A holder on another host whose heartbeat is older than this is taken
/// to be gone (its pid cannot be checked from here).
pub const STALE_AFTER_MS: i64 = 2 * 60 * 1000;

impl LockHolder {
    /// This process, with a fresh token.
    pub(crate) fn this_process() -> Self {
        let pid = i64::from(std::process::id());
        Self {
            token: uuid::Uuid::new_v4().simple().to_string(),
            pid,
            pid_started: process_start(pid).ok().flatten(),
            host: host_key(),
        }
    }

    /// Whether `record` is this same process (another runtime of it, e.g.
    /// the terminal UI resuming the session it shows).
    pub(crate) fn is_same_process(&self, record: &HolderRecord) -> bool {
        record.host == self.host && record.pid == self.pid && record.pid_started == self.pid_started
    }

    /// Whether the holder `record` has stopped: on this host, its process
    /// is gone (or the pid now names a newer process); elsewhere, its
    /// heartbeat is older than [`STALE_AFTER_MS`].
    pub(crate) fn sees_gone(&self, record: &HolderRecord, now_ms: i64) -> bool {
        if record.host != self.host {
            return now_ms.saturating_sub(record.heartbeat_at) > STALE_AFTER_MS;
        }
        match process_start(record.pid) {
            Ok(None) => true,
            Ok(Some(started)) => record.pid_started.is_some_and(|s| s != started),
            // Unknown (no /proc): the heartbeat decides.
            Err(()) => now_ms.saturating_sub(record.heartbeat_at) > STALE_AFTER_MS,
        }
    }
}

/// The start time of process `pid`: `Ok(None)` when there is no such
/// running process (a zombie counts as gone), `Err` when it cannot be told.
fn process_start(pid: i64) -> Result<Option<i64>, ()> {
    if pid <= 0 {
        return Ok(None);
    }
    let proc_dir = Path::new("/proc");
    if !proc_dir.join("self").exists() {
        return Err(());
    }
    let stat = match std::fs::read_to_string(proc_dir.join(pid.to_string()).join("stat")) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(_) => return Err(()),
    };
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so
    // the fields are counted after the last ')'.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    match fields.first() {
        Some(&"Z") | Some(&"X") | Some(&"x") => return Ok(None),
        Some(_) => {}
        None => return Err(()),
    }
    // Field 22 of the whole line (starttime) is the 20th after the comm.
    Ok(fields.get(19).and_then(|f| f.parse().ok()))
}

/// The boot id and the pid namespace of this process.
fn host_key() -> String {
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let pid_ns = std::fs::read_link("/proc/self/ns/pid")
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let host = hostname();
    format!("{host}/{boot}/{pid_ns}")
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record_of(holder: &LockHolder, heartbeat_at: i64) -> HolderRecord {
        HolderRecord {
            token: "other".into(),
            pid: holder.pid,
            pid_started: holder.pid_started,
            host: holder.host.clone(),
            acquired_at: 0,
            heartbeat_at,
        }
    }

    #[test]
    fn store2_a_running_holder_is_not_gone_however_old_its_heartbeat() {
        let me = LockHolder::this_process();
        assert!(me.pid_started.is_some(), "{me:?}");
        let record = record_of(&me, 0);
        assert!(me.is_same_process(&record));
        assert!(!me.sees_gone(&record, i64::MAX / 2));
    }

    #[test]
    fn store2_a_dead_or_reused_pid_is_gone() {
        let me = LockHolder::this_process();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = i64::from(child.id());
        child.wait().unwrap();
        let mut record = record_of(&me, 0);
        record.pid = pid;
        assert!(me.sees_gone(&record, 1));
        // This process's pid with another start time: a reused pid.
        let mut reused = record_of(&me, 0);
        reused.pid_started = me.pid_started.map(|s| s + 1);
        assert!(me.sees_gone(&reused, 1));
        assert!(!me.is_same_process(&reused));
    }

    #[test]
    fn store2_a_holder_on_another_host_is_gone_only_when_its_heartbeat_is_old() {
        let me = LockHolder::this_process();
        let mut record = record_of(&me, 1_000);
        record.host = "elsewhere".into();
        assert!(!me.sees_gone(&record, 1_000 + STALE_AFTER_MS));
        assert!(me.sees_gone(&record, 1_001 + STALE_AFTER_MS));
    }
}
