//! What the read-only sandbox adds to a command: `ls` through the Bash tool
//! (a `bash -c` in its own process group, output collected) with and
//! without the sandbox, and the parent's part of it (building the Landlock
//! ruleset and the seccomp programs) alone. The budget is 2 ms per command.

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;
use zcode::sandbox::{self, SandboxPolicy};
use zcode::tools::{BashTool, Tool, ToolContext};

fn bench_sandbox(c: &mut Criterion) {
    if let Some(why) = &sandbox::support().unavailable {
        eprintln!("no kernel sandbox here ({why}); nothing to measure");
        return;
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    for name in ["a.txt", "b.rs", "c.md"] {
        std::fs::write(dir.path().join(name), "x").expect("a file");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let input = BashTool
        .validate(json!({"command": "ls"}))
        .expect("valid input");
    let plain = ToolContext::new(dir.path().to_path_buf(), "bench");
    let mut sandboxed = ToolContext::new(dir.path().to_path_buf(), "bench");
    sandboxed.sandbox = Some(SandboxPolicy::read_only());

    let mut group = c.benchmark_group("bash ls");
    group.sample_size(50);
    group.bench_function("unsandboxed", |b| {
        b.iter(|| runtime.block_on(BashTool.run(black_box(input.clone()), &plain)))
    });
    group.bench_function("read-only sandbox", |b| {
        b.iter(|| runtime.block_on(BashTool.run(black_box(input.clone()), &sandboxed)))
    });
    group.finish();

    let policy = SandboxPolicy::read_only();
    c.bench_function("sandbox/prepare (ruleset + seccomp programs)", |b| {
        b.iter(|| sandbox::prepare(black_box(&policy)).expect("prepared"))
    });
}

criterion_group!(benches, bench_sandbox);
criterion_main!(benches);
