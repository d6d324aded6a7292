//! BASH-8: the analysis of one command costs microseconds and grows
//! linearly with the command's length.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use zcode::permission::bash::{analyze, matching_rule, suggest_rules};
use zcode::permission::rules::{Rule, RuleKind};
use zcode::tools::registry::builtin_declaration;

const TYPICAL: &str = "git status && cargo test --release | tail -n 20";

/// A chain of varied subcommands about `bytes` long.
fn long_command(bytes: usize) -> String {
    const PARTS: [&str; 5] = [
        "git log --oneline -n 5",
        "grep -rn 'fn main' src",
        "cargo build --release 2>&1",
        "ls -la target/debug",
        "sed -n '1,20p' README.md",
    ];
    let mut s = String::with_capacity(bytes + 64);
    let mut i = 0;
    while s.len() < bytes {
        if !s.is_empty() {
            s.push_str(if i % 3 == 0 { " && " } else { " | " });
        }
        s.push_str(PARTS[i % PARTS.len()]);
        i += 1;
    }
    s
}

fn bench_analysis(c: &mut Criterion) {
    c.bench_function("analyze/short git status", |b| {
        b.iter(|| analyze(black_box("git status")))
    });
    c.bench_function("analyze/typical three subcommands", |b| {
        b.iter(|| analyze(black_box(TYPICAL)))
    });

    let bash = builtin_declaration("Bash").expect("Bash is built in");
    let rules = vec![
        Rule::with_content("Bash", "rm:*"),
        Rule::with_content("Bash", "git push:*"),
        Rule::with_content("Bash", "cargo test:*"),
    ];
    c.bench_function("decision/typical analyze+deny+allow+suggest", |b| {
        b.iter(|| {
            let a = analyze(black_box(TYPICAL));
            let deny = matching_rule(RuleKind::Deny, &rules, bash, &a).is_some();
            let allow = matching_rule(RuleKind::Allow, &rules, bash, &a).is_some();
            (deny, allow, suggest_rules(&a))
        })
    });

    let mut group = c.benchmark_group("analyze/length");
    for kb in [1usize, 5, 10] {
        let cmd = long_command(kb * 1024);
        group.throughput(Throughput::Bytes(cmd.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{kb}KB")),
            &cmd,
            |b, cmd| b.iter(|| analyze(black_box(cmd))),
        );
    }
    group.finish();

    // The whole decision (analysis, deny, ask and allow matching) at several
    // sizes, for a chain of known programs and for one long command of a
    // program zcode does not know (whose every later word may start a
    // program a deny rule names): the cost per KB must stay flat.
    let mut group = c.benchmark_group("decision/length");
    for kb in [1usize, 4, 16, 64] {
        let unknown = unknown_command(kb * 1024);
        for (name, cmd) in [("chain", long_command(kb * 1024)), ("unknown", unknown)] {
            group.throughput(Throughput::Bytes(cmd.len() as u64));
            group.bench_with_input(BenchmarkId::new(name, format!("{kb}KB")), &cmd, |b, cmd| {
                b.iter(|| {
                    let a = analyze(black_box(cmd));
                    let deny = matching_rule(RuleKind::Deny, &rules, bash, &a).is_some();
                    let ask = matching_rule(RuleKind::Ask, &rules, bash, &a).is_some();
                    let allow = matching_rule(RuleKind::Allow, &rules, bash, &a).is_some();
                    (deny, ask, allow)
                })
            });
        }
    }
    group.finish();
}

/// `frobnicate --flag value …`, about `bytes` long.
fn unknown_command(bytes: usize) -> String {
    let mut s = String::from("frobnicate");
    let mut i = 0;
    while s.len() < bytes {
        s.push_str(&format!(" --opt{i} value{i}"));
        i += 1;
    }
    s
}

criterion_group!(benches, bench_analysis);
criterion_main!(benches);
