//! The cost of one permission decision (PERM-1..11, BASH-8 budget).

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;
use zcode::permission::bash::analyze;
use zcode::permission::check::{CheckContext, TargetLocation, check_permission};
use zcode::permission::mode::{ExecutionState, Mode};
use zcode::permission::path_rules::PathSubject;
use zcode::permission::rules::{Rule, RuleSet};
use zcode::permission::settings::PermissionSettings;
use zcode::tools::registry::builtin_declaration;

fn project_rules() -> RuleSet {
    RuleSet {
        allow: vec![
            Rule::with_content("Bash", "npm run build:*"),
            Rule::with_content("Bash", "cargo test:*"),
            Rule::with_content("Edit", "docs/*"),
        ],
        deny: vec![
            Rule::with_content("Bash", "rm -rf:*"),
            Rule::with_content("Read", "*.env"),
        ],
        ask: vec![Rule::with_content("Bash", "git push:*")],
    }
}

fn bench_decisions(c: &mut Criterion) {
    let settings = PermissionSettings {
        disallowed_tools: ["WebSearch".to_string()].into(),
        web_fetch_allowed_domains: vec!["docs.rs".into()],
        ..Default::default()
    };
    let rules = project_rules();
    let state = ExecutionState::new(Mode::Build, false);

    let write_cap = builtin_declaration("Write").expect("Write is built in");
    let write_input = json!({"file_path": "src/main.rs", "content": "fn main() {}"});
    // What the service resolves before the check (RULE-3 path subject).
    let workspace = std::path::Path::new("/home/u/ws");
    let write_path = PathSubject::new("src/main.rs", &workspace.join("src/main.rs"), workspace);
    c.bench_function("decision/non-bash (Write, build, 6 rules)", |b| {
        b.iter(|| {
            check_permission(black_box(&CheckContext {
                tool: write_cap,
                input: &write_input,
                state,
                settings: &settings,
                project_rules: &rules,
                session_rules: &[],
                target: TargetLocation {
                    inside_workspace: true,
                    memory_file: false,
                    protected: None,
                },
                path: Some(&write_path),
                bash: None,
            }))
        })
    });

    let bash_cap = builtin_declaration("Bash").expect("Bash is built in");
    let command = "git status && cargo test --release | tail -n 20";
    let bash_input = json!({ "command": command });
    c.bench_function("decision/bash (analysis + check, 3 subcommands)", |b| {
        b.iter(|| {
            let analysis = analyze(black_box(command));
            check_permission(&CheckContext {
                tool: bash_cap,
                input: &bash_input,
                state,
                settings: &settings,
                project_rules: &rules,
                session_rules: &[],
                target: TargetLocation::default(),
                path: None,
                bash: Some(&analysis),
            })
        })
    });

    // The URL is parsed for each rule kind and the pre-approved domains.
    let fetch_cap = builtin_declaration("WebFetch").expect("WebFetch is built in");
    let fetch_rules = RuleSet {
        allow: vec![Rule::with_content("WebFetch", "domain:*.github.com")],
        deny: vec![Rule::with_content("WebFetch", "domain:evil.net")],
        ask: vec![Rule::with_content("WebFetch", "domain:example.com")],
    };
    let fetch_input = json!({"url": "https://Docs.RS/serde/latest/serde/?search=de#x"});
    c.bench_function("decision/webfetch (build, 3 domain rules)", |b| {
        b.iter(|| {
            check_permission(black_box(&CheckContext {
                tool: fetch_cap,
                input: &fetch_input,
                state,
                settings: &settings,
                project_rules: &fetch_rules,
                session_rules: &[],
                target: TargetLocation::default(),
                path: None,
                bash: None,
            }))
        })
    });
}

/// The whole evaluation of the service, on a real workspace: the check,
/// and the work around it that touches the file system (a Read deny rule
/// on what a command reads, protected files a command names).
fn bench_service(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let ws = std::fs::canonicalize(dir.path()).expect("it resolves");
    std::fs::create_dir_all(ws.join("src")).expect("src");
    std::fs::write(ws.join("src/main.rs"), "fn main() {}").expect("a file");
    std::fs::write(ws.join(".env"), "K=v").expect("a file");
    let service = zcode::permission::service::PermissionService::new(
        PermissionSettings::default(),
        &ws,
        None,
    );
    let rules = project_rules();
    let state = ExecutionState::new(Mode::Build, false);
    let bash = builtin_declaration("Bash").expect("Bash is built in");
    for (name, command) in [
        (
            "service/bash read-only (3 subcommands, Read deny rule)",
            "git log --oneline -5 && wc -l src/main.rs | tail -n 1",
        ),
        (
            "service/bash allowed by a rule (3 subcommands, Read deny rule)",
            "cargo test --release src/main.rs && npm run build -- --out dist",
        ),
        (
            "service/bash asked (3 subcommands, Read deny rule)",
            "touch src/new.rs && cp src/main.rs src/copy.rs && rm src/copy.rs",
        ),
    ] {
        let input = json!({ "command": command });
        c.bench_function(name, |b| {
            b.iter(|| service.evaluate(bash, black_box(&input), state, &rules, None))
        });
    }

    // The whole evaluation at several sizes: a chain of copies an allow
    // rule covers, each word resolved for the protected-file and Read
    // checks. The cost per KB must stay flat.
    let rules = RuleSet {
        allow: vec![Rule::with_content("Bash", "cp:*")],
        ..project_rules()
    };
    let mut group = c.benchmark_group("service/length");
    for kb in [1usize, 4, 16] {
        let mut command = String::from("cp src/main.rs src/c0.rs");
        let mut i = 1;
        while command.len() < kb * 1024 {
            command.push_str(&format!(" && cp src/main.rs src/c{i}.rs"));
            i += 1;
        }
        let input = json!({ "command": command });
        group.throughput(criterion::Throughput::Bytes(command.len() as u64));
        group.bench_function(format!("rule-allowed chain {kb}KB"), |b| {
            b.iter(|| service.evaluate(bash, black_box(&input), state, &rules, None))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_decisions, bench_service);
criterion_main!(benches);
