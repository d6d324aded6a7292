//! Faults in the model stream, through the real `zcode -p` binary.

mod support;

use std::time::{Duration, Instant};

use support::fault_server::{Fault, FaultServer, Output, Wire};
use support::headless::Harness;

/// VmRSS and VmHWM of a live process, in KiB.
fn memory_kib(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

#[tokio::test(flavor = "multi_thread")]
#[ignore]
async fn explore_endless_stream() {
    let h = Harness::new();
    let server = FaultServer::start(Fault::Endless {
        wire: Wire::OpenAi,
        output: Output::Text,
        delta_bytes: 200,
    })
    .await;
    let env = vec![("OPENAI_BASE_URL", server.openai_base_url())];
    let mut child = h.command(&["-p", "go"], &env).spawn().unwrap();
    let pid = child.id().unwrap();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(3) {
        tokio::time::sleep(Duration::from_millis(500)).await;
        eprintln!("{:?} {:?}", start.elapsed(), memory_kib(pid));
    }
    let hwm = memory_kib(pid);
    let sent = Instant::now();
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let out = tokio::time::timeout(Duration::from_secs(120), child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    eprintln!("exit after {:?}; mem before {:?}", sent.elapsed(), hwm);
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    let sessions = h.sessions();
    let entries = h.entries(&sessions[0].id);
    for e in &entries {
        eprintln!("{} {}", e.kind, e.payload.to_string().len());
    }
}
