//! Processes a Bash command leaves running when its shell exits (`cmd &`,
//! `nohup cmd &`, `setsid cmd &`, daemons): found, reported, and ended
//! with the session.
//!
//! Each command runs with `ZCODE_JOB=<session tag>:<n>` in its environment.
//! Every descendant inherits it, also one that left the command's process
//! group or session (`setsid`, a double fork), so a scan of
//! `/proc/<pid>/environ` finds them wherever they were reparented. A
//! process that cleared its environment is still found while it stays in
//! the command's process group. Why not the alternatives: a cgroup per
//! command needs a delegated cgroup tree, which an ordinary user session
//! rarely has; `PR_SET_CHILD_SUBREAPER` would make zcode the parent of
//! every orphan, to be reaped by zcode next to tokio's own child handling,
//! and still would not tell zcode's own helpers (hooks) from what a command
//! left. The scan needs `/proc` (Linux); elsewhere nothing is tracked.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// The environment variable that marks a command's processes.
pub(crate) const JOB_ENV: &str = "ZCODE_JOB";
/// Between SIGTERM and SIGKILL when the session ends.
pub(crate) const TERM_GRACE: Duration = Duration::from_secs(1);
/// How often the set is checked while anything is left running.
pub(crate) const POLL_INTERVAL: Duration = Duration::from_secs(2);

/// One process a finished command left running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    pub pid: i32,
    /// The command that started it.
    pub command: String,
}

#[derive(Debug)]
struct Job {
    id: u64,
    command: String,
    /// The command's process group (its shell's pid).
    pgid: Option<i32>,
    /// The shell exited: what still carries the tag is left behind.
    finished: bool,
}

#[derive(Debug, Default)]
struct Jobs {
    next: u64,
    list: Vec<Job>,
}

/// The commands of one session and what they left running.
#[derive(Debug)]
pub struct BackgroundProcesses {
    /// Unique to this session in this process.
    tag: String,
    jobs: Mutex<Jobs>,
}

impl Default for BackgroundProcesses {
    fn default() -> Self {
        Self {
            tag: format!("{}-{}", std::process::id(), uuid::Uuid::new_v4().simple()),
            jobs: Mutex::default(),
        }
    }
}

/// A command being run; dropping it marks the command finished.
#[derive(Debug)]
pub(crate) struct JobGuard {
    owner: Arc<BackgroundProcesses>,
    id: u64,
}

impl JobGuard {
    /// The value of [`JOB_ENV`] for the command.
    pub(crate) fn env_value(&self) -> String {
        format!("{}:{}", self.owner.tag, self.id)
    }

    /// The command's shell started as the leader of process group `pgid`.
    pub(crate) fn set_group(&self, pgid: i32) {
        if let Some(job) = self.owner.lock().list.iter_mut().find(|j| j.id == self.id) {
            job.pgid = Some(pgid);
        }
    }
}

impl Drop for JobGuard {
    fn drop(&mut self) {
        if let Some(job) = self.owner.lock().list.iter_mut().find(|j| j.id == self.id) {
            job.finished = true;
        }
    }
}

impl BackgroundProcesses {
    fn lock(&self) -> MutexGuard<'_, Jobs> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a command about to start.
    pub(crate) fn start_job(self: &Arc<Self>, command: &str) -> JobGuard {
        let mut jobs = self.lock();
        jobs.next += 1;
        let id = jobs.next;
        jobs.list.push(Job {
            id,
            command: command.to_string(),
            pgid: None,
            finished: false,
        });
        JobGuard {
            owner: self.clone(),
            id,
        }
    }

    /// Whether a finished command may have left something running.
    pub(crate) fn is_tracking(&self) -> bool {
        self.lock().list.iter().any(|j| j.finished)
    }

    /// What finished commands left running now. Commands that left nothing
    /// are forgotten (their process group can then no longer be reused
    /// under their name).
    pub fn scan(&self) -> Vec<Leftover> {
        if !self.is_tracking() {
            return Vec::new();
        }
        let processes = proc_scan::processes(&self.tag);
        let mut jobs = self.lock();
        let mut found = Vec::new();
        let mut live_jobs = Vec::new();
        for process in processes {
            let job = jobs.list.iter().find(|job| {
                job.finished
                    && (process.job == Some(job.id) || job.pgid.is_some_and(|g| g == process.pgid))
            });
            if let Some(job) = job {
                live_jobs.push(job.id);
                found.push(Leftover {
                    pid: process.pid,
                    command: job.command.clone(),
                });
            }
        }
        jobs.list
            .retain(|job| !job.finished || live_jobs.contains(&job.id));
        found
    }

    /// Ends everything finished commands left running: SIGTERM, then
    /// SIGKILL to what is still there after [`TERM_GRACE`]. Returns how
    /// many processes were signalled.
    pub(crate) async fn terminate_all(&self) -> usize {
        let first = self.scan();
        if first.is_empty() {
            return 0;
        }
        let mut signalled: Vec<i32> = first.iter().map(|p| p.pid).collect();
        for pid in &signalled {
            signal(*pid, libc::SIGTERM);
        }
        let deadline = tokio::time::Instant::now() + TERM_GRACE;
        while tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let left = self.scan();
            if left.is_empty() {
                return signalled.len();
            }
            // Children they started meanwhile get the same treatment.
            for p in left {
                if !signalled.contains(&p.pid) {
                    signal(p.pid, libc::SIGTERM);
                    signalled.push(p.pid);
                }
            }
        }
        self.kill_now();
        signalled.len()
    }

    /// SIGKILL to everything left, at once (also as the session's state is
    /// dropped without an orderly end).
    pub(crate) fn kill_now(&self) {
        // A process may fork while being killed: a few rounds catch those.
        for _ in 0..3 {
            let left = self.scan();
            if left.is_empty() {
                return;
            }
            for p in left {
                signal(p.pid, libc::SIGKILL);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for BackgroundProcesses {
    fn drop(&mut self) {
        self.kill_now();
    }
}

fn signal(pid: i32, sig: libc::c_int) {
    // SAFETY: kill(2) on a pid the scan just found carrying our tag.
    unsafe { libc::kill(pid, sig) };
}

/// A live process, as the scan saw it.
#[derive(Debug)]
struct Process {
    pid: i32,
    pgid: i32,
    /// The job number of this session's tag in its environment.
    job: Option<u64>,
}

#[cfg(target_os = "linux")]
mod proc_scan {
    use super::{JOB_ENV, Process};

    /// Every live (non-zombie) process but this one, with its process group
    /// and, when it carries `tag`, its job number.
    pub(super) fn processes(tag: &str) -> Vec<Process> {
        let own = std::process::id() as i32;
        let marker = format!("{JOB_ENV}={tag}:");
        let mut found = Vec::new();
        for pid in crate::proc_table::pids() {
            if pid == own {
                continue;
            }
            let Some(stat) = crate::proc_table::stat(pid).filter(|s| !s.is_zombie()) else {
                continue;
            };
            let job = std::fs::read(format!("/proc/{pid}/environ"))
                .ok()
                .and_then(|environ| job_number(&environ, &marker));
            found.push(Process {
                pid,
                pgid: stat.pgrp,
                job,
            });
        }
        found
    }

    fn job_number(environ: &[u8], marker: &str) -> Option<u64> {
        environ
            .split(|b| *b == 0)
            .find_map(|var| var.strip_prefix(marker.as_bytes()))
            .and_then(|n| std::str::from_utf8(n).ok()?.parse().ok())
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn job_number_is_read_from_the_marker() {
            let environ = b"A=1\0ZCODE_JOB=t1:7\0B=2\0";
            assert_eq!(super::job_number(environ, "ZCODE_JOB=t1:"), Some(7));
            assert_eq!(super::job_number(environ, "ZCODE_JOB=t2:"), None);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod proc_scan {
    use super::Process;

    /// Without `/proc` nothing is found.
    pub(super) fn processes(_tag: &str) -> Vec<Process> {
        Vec::new()
    }
}
