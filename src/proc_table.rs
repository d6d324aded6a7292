//! The kernel's process table as Linux shows it in `/proc`: which pids
//! exist and, per pid, its state, parent and process group. Read by the
//! Bash tool's background-process tracking and by `zcode sandbox`'s
//! reaper. Elsewhere (no `/proc`) the table is empty.

/// What `/proc/<pid>/stat` says of one process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// `R`, `S`, `Z` …
    pub state: char,
    pub ppid: i32,
    pub pgrp: i32,
}

impl ProcStat {
    /// Dead, waiting to be reaped (or being reaped).
    pub fn is_zombie(&self) -> bool {
        matches!(self.state, 'Z' | 'X')
    }
}

/// Every pid in `/proc` now.
pub fn pids() -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .collect()
}

/// The state, parent and group of `pid`; `None` once it is gone.
pub fn stat(pid: i32) -> Option<ProcStat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&text)
}

/// "pid (comm) state ppid pgrp …": the command name may hold ") ".
fn parse_stat(text: &str) -> Option<ProcStat> {
    let (_, rest) = text.rsplit_once(") ")?;
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some(ProcStat { state, ppid, pgrp })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_reads_past_a_command_name_with_parentheses() {
        let stat = parse_stat("42 (a) b) (c) S 7 42 42 0 -1").expect("parsed");
        assert_eq!(
            stat,
            ProcStat {
                state: 'S',
                ppid: 7,
                pgrp: 42
            }
        );
        assert!(parse_stat("42 (x) Z").is_none());
        assert!(parse_stat("garbage").is_none());
    }

    #[test]
    fn proc_table_lists_this_process() {
        if std::path::Path::new("/proc/self/stat").exists() {
            let own = std::process::id() as i32;
            assert!(pids().contains(&own));
            assert!(stat(own).is_some_and(|s| !s.is_zombie()));
        }
    }
}
