//! Start-up of the real `zcode` TUI in a pseudo-terminal: the time from
//! spawn to the first complete frame (the status line shows the mode) and
//! the resident memory after about a second idle, with the offline demo
//! provider (no model variables) and a temporary `ZCODE_HOME`.
//!
//! Two terminals: one that answers queries as terminals do, and a bare pty
//! that answers none (the start-up keyboard-protocol query then runs into
//! its timeout, which must not hold back the first frame).
//!
//! `cargo bench --bench tui_startup` (the optimised binary); prints
//! min/median/max. `TUI_STARTUP_RUNS` overrides the run count.

#[cfg(unix)]
#[allow(dead_code)]
#[path = "../tests/support/pty.rs"]
mod pty;

#[cfg(unix)]
fn main() {
    use std::time::Duration;
    let runs: usize = std::env::var("TUI_STARTUP_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    // One run to create the database, as an installed zcode has it.
    measure(home.path(), project.path(), true, Duration::ZERO);
    for (answers, name) in [(true, "terminal answers queries"), (false, "bare pty")] {
        let mut frames = Vec::new();
        let mut rss = Vec::new();
        for _ in 0..runs {
            let (frame, kb) = measure(home.path(), project.path(), answers, Duration::from_secs(1));
            frames.push(frame.as_secs_f64() * 1000.0);
            rss.push(kb as f64 / 1024.0);
        }
        println!("tui_startup ({name}, {runs} runs)");
        println!("  first frame ms: {}", summary(&mut frames));
        println!("  idle RSS MiB:   {}", summary(&mut rss));
    }
}

/// Starts zcode, waits for the first frame, idles, reads VmRSS, quits.
#[cfg(unix)]
fn measure(
    home: &std::path::Path,
    project: &std::path::Path,
    answers: bool,
    idle: std::time::Duration,
) -> (std::time::Duration, u64) {
    use pty::{Pty, PtyOptions, WAIT};
    let mut p = Pty::spawn(
        PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home, project).answer_queries(answers),
    );
    p.wait_for("the first frame", WAIT, |s| {
        pty::row_text(s, -2).starts_with(" build ")
    });
    let frame = p.started().elapsed();
    std::thread::sleep(idle);
    let kb = p.pid().map_or(0, vm_rss_kb);
    let status = p.quit();
    assert!(status.success(), "zcode exited with {status:?}");
    (frame, kb)
}

/// `VmRSS` of a process in KiB (0 when unreadable).
#[cfg(unix)]
fn vm_rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

#[cfg(unix)]
fn summary(values: &mut [f64]) -> String {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n == 0 {
        return "no runs".into();
    }
    let median = if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    };
    format!(
        "min {:.1}  median {:.1}  max {:.1}",
        values[0],
        median,
        values[n - 1]
    )
}

#[cfg(not(unix))]
fn main() {}
