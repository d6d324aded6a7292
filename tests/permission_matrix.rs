//! PERM-12: the decision table for the built-in tools, every cell.
//! The plan column is checked on top of every underlying mode (EXEC-3: yolo
//! with plan on does not allow writes).

use serde_json::{Value, json};
use zcode::permission::check::Behavior::{self, Allow, Ask, Deny};
use zcode::permission::mode::{ExecutionState, Mode};
use zcode::permission::rules::RuleSet;
use zcode::permission::service::PermissionService;
use zcode::permission::settings::PermissionSettings;
use zcode::tools::registry::declaration_for;

struct Row {
    name: &'static str,
    calls: Vec<(&'static str, Value)>,
    build: Behavior,
    edit: Behavior,
    plan: Behavior,
    yolo: Behavior,
}

fn rows(ws: &std::path::Path) -> Vec<Row> {
    let inside = ws.join("src/new.rs").to_string_lossy().into_owned();
    let outside = "/etc/zcode-outside-test.conf";
    vec![
        Row {
            name: "read-only tools",
            calls: vec![
                ("Read", json!({"file_path": "src/main.rs"})),
                ("Glob", json!({"pattern": "**/*.rs"})),
                ("Grep", json!({"pattern": "fn main"})),
                ("TodoWrite", json!({"todos": []})),
                ("TodoRead", json!({})),
                ("ListModels", json!({})),
                (
                    "ReadSessionContext",
                    json!({"sessionId": "sess_x", "query": "q"}),
                ),
            ],
            build: Allow,
            edit: Allow,
            plan: Allow,
            yolo: Allow,
        },
        Row {
            name: "Write/Edit in workspace",
            calls: vec![
                ("Write", json!({"file_path": inside, "content": "x"})),
                (
                    "Edit",
                    json!({"file_path": "src/lib.rs", "old_string": "a", "new_string": "b"}),
                ),
            ],
            build: Ask,
            edit: Allow,
            plan: Deny,
            yolo: Allow,
        },
        Row {
            name: "Write/Edit outside workspace",
            calls: vec![
                ("Write", json!({"file_path": outside, "content": "x"})),
                (
                    "Edit",
                    json!({"file_path": "../elsewhere.rs", "old_string": "a", "new_string": "b"}),
                ),
            ],
            build: Ask,
            edit: Ask,
            plan: Deny,
            yolo: Allow,
        },
        Row {
            name: "Bash judged read-only",
            calls: vec![
                ("Bash", json!({"command": "git status"})),
                (
                    "Bash",
                    json!({"command": "ls -la && cat README.md | head -n 5"}),
                ),
            ],
            build: Allow,
            edit: Allow,
            plan: Allow,
            yolo: Allow,
        },
        Row {
            name: "Bash, other",
            calls: vec![
                ("Bash", json!({"command": "cargo test"})),
                ("Bash", json!({"command": "rm -rf target"})),
                ("Bash", json!({"command": "ls > files.txt"})),
            ],
            build: Ask,
            edit: Ask,
            plan: Deny,
            yolo: Allow,
        },
        Row {
            name: "WebFetch",
            calls: vec![("WebFetch", json!({"url": "https://example.com/page"}))],
            build: Ask,
            edit: Ask,
            // PERM-8: as in build, not allowed as read-only (the URL can
            // carry data out).
            plan: Ask,
            yolo: Allow,
        },
        Row {
            name: "AskUserQuestion",
            calls: vec![("AskUserQuestion", json!({"questions": []}))],
            build: Ask,
            edit: Ask,
            plan: Ask,
            yolo: Ask,
        },
        Row {
            name: "ExitPlanMode",
            calls: vec![("ExitPlanMode", json!({"plan": "p"}))],
            build: Deny,
            edit: Deny,
            plan: Ask,
            yolo: Deny,
        },
        Row {
            name: "EnterPlanMode",
            calls: vec![("EnterPlanMode", json!({}))],
            build: Allow,
            edit: Allow,
            plan: Allow,
            yolo: Allow,
        },
    ]
}

fn decide(svc: &PermissionService, tool: &str, input: &Value, state: ExecutionState) -> Behavior {
    svc.evaluate(
        &declaration_for(tool),
        input,
        state,
        &RuleSet::default(),
        None,
    )
    .decision
    .behavior
}

#[test]
fn perm12_matrix_every_cell() {
    let dir = tempfile::tempdir().unwrap();
    let svc = PermissionService::new(PermissionSettings::default(), dir.path(), None);
    for row in rows(dir.path()) {
        for (tool, input) in &row.calls {
            let cells = [
                (ExecutionState::new(Mode::Build, false), row.build, "build"),
                (ExecutionState::new(Mode::Edit, false), row.edit, "edit"),
                (ExecutionState::new(Mode::Yolo, false), row.yolo, "yolo"),
                (
                    ExecutionState::new(Mode::Build, true),
                    row.plan,
                    "plan (over build)",
                ),
                (
                    ExecutionState::new(Mode::Edit, true),
                    row.plan,
                    "plan (over edit)",
                ),
                (
                    ExecutionState::new(Mode::Yolo, true),
                    row.plan,
                    "plan (over yolo)",
                ),
            ];
            for (state, expected, column) in cells {
                assert_eq!(
                    decide(&svc, tool, input, state),
                    expected,
                    "row '{}', tool {tool} {input}, column {column}",
                    row.name
                );
            }
        }
    }
}

#[test]
fn perm12_webfetch_preapproved_domain_is_allowed_in_build_and_edit() {
    let dir = tempfile::tempdir().unwrap();
    let settings = PermissionSettings {
        web_fetch_allowed_domains: vec!["example.com".into()],
        ..Default::default()
    };
    let svc = PermissionService::new(settings, dir.path(), None);
    let input = json!({"url": "https://EXAMPLE.com/page"});
    for mode in [Mode::Build, Mode::Edit] {
        assert_eq!(
            decide(&svc, "WebFetch", &input, ExecutionState::new(mode, false)),
            Allow
        );
    }
    let other = json!({"url": "https://example.org/"});
    assert_eq!(
        decide(
            &svc,
            "WebFetch",
            &other,
            ExecutionState::new(Mode::Build, false)
        ),
        Ask
    );
}
