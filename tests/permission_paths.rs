//! PERM-10 protected files and RULE-2..4 path rules, through the service so
//! that path resolution (`.`, `..`, symlinks) is part of what is tested.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use zcode::permission::check::{Behavior, HookPermission, RuleId};
use zcode::permission::mode::{ExecutionState, Mode};
use zcode::permission::rules::{Rule, RuleKind, RuleSet};
use zcode::permission::service::{Evaluation, PermissionService};
use zcode::permission::settings::PermissionSettings;
use zcode::tools::registry::declaration_for;

const BUILD: ExecutionState = ExecutionState::new(Mode::Build, false);
const EDIT: ExecutionState = ExecutionState::new(Mode::Edit, false);
const YOLO: ExecutionState = ExecutionState::new(Mode::Yolo, false);
const PLAN: ExecutionState = ExecutionState::new(Mode::Edit, true);

/// A temporary directory with a workspace `ws/` (canonical) and a sibling
/// `outside/`.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    ws: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let ws = root.join("ws");
        for d in ["ws/.git/hooks", "ws/src/secret", "outside/src/secret"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(ws.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::create_dir_all(ws.join(".git/objects")).unwrap();
        std::fs::write(ws.join(".git/config"), "[core]\n").unwrap();
        std::fs::write(ws.join("src/secret/a"), "k").unwrap();
        Self {
            _dir: dir,
            root,
            ws,
        }
    }

    fn service(&self) -> PermissionService {
        self.service_with(PermissionSettings::default())
    }

    fn service_with(&self, settings: PermissionSettings) -> PermissionService {
        let home = self.root.join("home/.zcode");
        let memory = home.join("projects/p/memory");
        PermissionService::new(settings, &self.ws, Some(&memory)).with_zcode_home(&home)
    }

    #[cfg(unix)]
    fn symlink(&self, target: impl AsRef<Path>, link: &str) {
        std::os::unix::fs::symlink(target, self.ws.join(link)).unwrap();
    }
}

fn eval(
    svc: &PermissionService,
    tool: &str,
    input: &Value,
    state: ExecutionState,
    rules: &RuleSet,
) -> Evaluation {
    svc.evaluate(&declaration_for(tool), input, state, rules, None)
}

fn write(path: impl AsRef<str>) -> Value {
    json!({"file_path": path.as_ref(), "content": "x"})
}

fn edit(path: impl AsRef<str>) -> Value {
    json!({"file_path": path.as_ref(), "old_string": "a", "new_string": "b"})
}

fn rules(kind: RuleKind, list: &[Rule]) -> RuleSet {
    let mut set = RuleSet::default();
    set.merge(kind, list.iter().cloned());
    set
}

/// The call is asked about because its target is protected.
fn assert_protected(svc: &PermissionService, input: &Value, rules: &RuleSet) {
    for tool in ["Write", "Edit"] {
        let e = eval(svc, tool, input, EDIT, rules);
        assert_eq!(
            (e.decision.behavior, e.decision.rule_id),
            (Behavior::Ask, RuleId::EditProtectedPath),
            "{tool} {input}"
        );
        assert!(
            e.suggestions.is_empty(),
            "{tool} {input}: {:?}",
            e.suggestions
        );
    }
}

#[test]
fn perm10_protected_git_config_spellings() {
    let f = Fixture::new();
    let svc = f.service();
    let none = RuleSet::default();
    let abs = f.ws.join(".git/config");
    for p in [
        ".git/config",
        "./.git//config",
        ".git/./config",
        "sub/../.git/hooks/pre-commit",
        "src/../.git/hooks/post-checkout",
        ".git/hooks/new-hook",
        ".git/info/attributes",
        ".git",
        abs.to_str().unwrap(),
        "../ws/.git/config",
    ] {
        assert_protected(&svc, &write(p), &none);
    }
    let reason = eval(&svc, "Write", &write(".git/config"), EDIT, &none)
        .decision
        .reason;
    assert!(reason.contains(".git/config"), "{reason}");
}

#[test]
fn perm10_protected_upper_case_git_dir_asks() {
    // Linux: `.GIT` is another directory git never reads, but on a
    // case-insensitive file system it is `.git`; asking costs one question.
    let f = Fixture::new();
    assert_protected(&f.service(), &write(".GIT/config"), &RuleSet::default());
    assert_protected(
        &f.service(),
        &write(".Git/hooks/pre-commit"),
        &RuleSet::default(),
    );
}

#[test]
fn perm10_protected_nested_repositories_and_git_files() {
    let f = Fixture::new();
    let svc = f.service();
    let none = RuleSet::default();
    for p in [
        "vendor/x/.git/config",
        "vendor/x/.git/hooks/pre-commit",
        // A submodule's `.git` file (`gitdir: …`) and where it points.
        "vendor/sub/.git",
        ".git/modules/sub/config",
        ".gitmodules",
        "vendor/x/.gitmodules",
    ] {
        assert_protected(&svc, &write(p), &none);
    }
    // A git directory not named `.git`: a bare repository in the workspace.
    let bare = f.ws.join("mirror.git");
    std::fs::create_dir_all(bare.join("objects")).unwrap();
    std::fs::write(bare.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    assert_protected(&svc, &write("mirror.git/config"), &none);
    assert_protected(&svc, &write("mirror.git/hooks/post-update"), &none);
}

#[cfg(unix)]
#[test]
fn perm10_protected_through_symlinks() {
    let f = Fixture::new();
    f.symlink(f.ws.join(".git"), "link");
    f.symlink(f.ws.join(".git/config"), "cfg");
    f.symlink(".git/hooks", "hooks");
    std::fs::create_dir_all(f.ws.join("docs")).unwrap();
    std::os::unix::fs::symlink("../.git", f.ws.join("docs/g")).unwrap();
    let svc = f.service();
    let none = RuleSet::default();
    for p in [
        "link/config",
        "cfg",
        "hooks/pre-commit",
        "docs/g/config",
        "link/hooks/x",
    ] {
        assert_protected(&svc, &write(p), &none);
    }
}

#[test]
fn perm10_protected_commit_hooks_toolchain_and_env_files() {
    let f = Fixture::new();
    let svc = f.service();
    let none = RuleSet::default();
    for p in [
        ".husky/pre-commit",
        ".pre-commit-config.yaml",
        "rust-toolchain.toml",
        "rust-toolchain",
        ".cargo/config.toml",
        "crates/a/.cargo/config",
        ".tool-versions",
        ".npmrc",
        ".yarnrc.yml",
        ".envrc",
        ".vscode/tasks.json",
        ".vscode/settings.json",
    ] {
        assert_protected(&svc, &write(p), &none);
    }
}

#[test]
fn perm10_protected_zcode_config_but_not_memory_files() {
    let f = Fixture::new();
    let svc = f.service();
    let none = RuleSet::default();
    let home = f.root.join("home/.zcode");
    for p in [home.join("config.json"), home.join("cli/db/db.sqlite")] {
        let e = eval(&svc, "Write", &write(p.to_str().unwrap()), BUILD, &none);
        assert_eq!(e.decision.rule_id, RuleId::EditProtectedPath, "{p:?}");
    }
    let memory = home.join("projects/p/memory/notes.md");
    let e = eval(
        &svc,
        "Write",
        &write(memory.to_str().unwrap()),
        BUILD,
        &none,
    );
    assert_eq!(e.decision.rule_id, RuleId::MemoryFile);
}

#[test]
fn perm10_protected_ordinary_files_still_allowed() {
    let f = Fixture::new();
    let svc = f.service();
    let none = RuleSet::default();
    for p in [
        "src/main.rs",
        ".gitignore",
        ".github/workflows/ci.yml",
        "git/config",
        "Makefile",
        ".zcode/plans/plan-x.md",
    ] {
        let e = eval(&svc, "Write", &write(p), EDIT, &none);
        assert_eq!(
            (e.decision.behavior, e.decision.rule_id),
            (Behavior::Allow, RuleId::EditWorkspace),
            "{p}"
        );
    }
}

#[test]
fn perm10_protected_no_allow_lifts_it() {
    let f = Fixture::new();
    let settings = PermissionSettings {
        allowed_tools: ["Write".to_string(), "Edit".to_string()].into(),
        ..Default::default()
    };
    let svc = f.service_with(settings);
    let allow = rules(
        RuleKind::Allow,
        &[
            Rule::tool("Edit"),
            Rule::tool("Write"),
            Rule::with_content("Edit", ".git/config"),
            Rule::with_content("Edit", "*"),
        ],
    );
    assert_protected(&svc, &write(".git/config"), &allow);
    assert_protected(&svc, &edit(".git/hooks/pre-commit"), &allow);
    // Build mode asks as well, with the same reason.
    let e = eval(&f.service(), "Edit", &edit(".git/config"), BUILD, &allow);
    assert_eq!(e.decision.rule_id, RuleId::EditProtectedPath);
    // A PreToolUse hook's allow does not lift it either.
    let e = f.service().evaluate(
        &declaration_for("Write"),
        &write(".git/config"),
        EDIT,
        &RuleSet::default(),
        Some(&HookPermission::Allow),
    );
    assert_eq!(e.decision.rule_id, RuleId::EditProtectedPath);
}

#[test]
fn perm10_protected_deny_plan_and_yolo_keep_their_meaning() {
    let f = Fixture::new();
    let svc = f.service();
    let deny = rules(RuleKind::Deny, &[Rule::with_content("Write", ".git/*")]);
    let e = eval(&svc, "Write", &write(".git/config"), EDIT, &deny);
    assert_eq!(e.decision.behavior, Behavior::Deny);
    let e = eval(
        &svc,
        "Write",
        &write(".git/config"),
        PLAN,
        &RuleSet::default(),
    );
    assert_eq!(e.decision.behavior, Behavior::Deny);
    // PERM-4: yolo bypasses prompts by design.
    let e = eval(
        &svc,
        "Write",
        &write(".git/config"),
        YOLO,
        &RuleSet::default(),
    );
    assert_eq!(e.decision.rule_id, RuleId::Yolo);
}

#[test]
fn perm10_protected_memory_overlay_does_not_lift_it() {
    // A memory directory that lies inside a git directory.
    let f = Fixture::new();
    let memory = f.ws.join(".git/zcode/memory");
    let svc = PermissionService::new(PermissionSettings::default(), &f.ws, Some(&memory));
    let target = memory.join("notes.md");
    for state in [EDIT, BUILD, PLAN] {
        let e = eval(
            &svc,
            "Write",
            &write(target.to_str().unwrap()),
            state,
            &RuleSet::default(),
        );
        assert_eq!(
            (e.decision.behavior, e.decision.rule_id),
            (Behavior::Ask, RuleId::EditProtectedPath),
            "{state:?}"
        );
    }
}

// RULE-2..4 on paths.

fn decide(svc: &PermissionService, tool: &str, input: &Value, set: &RuleSet) -> Behavior {
    eval(svc, tool, input, BUILD, set).decision.behavior
}

#[test]
fn rule3_path_deny_cannot_be_dodged_by_spelling() {
    let f = Fixture::new();
    let svc = f.service();
    let deny = rules(
        RuleKind::Deny,
        &[Rule::with_content("Edit", "src/secret/*")],
    );
    let abs = f.ws.join("src/secret/a");
    for p in [
        "src/secret/a",
        "./src/secret/a",
        "src//secret/a",
        "src/./secret/a",
        "sub/../src/secret/a",
        "src/secret/../secret/a",
        "../ws/src/secret/a",
        abs.to_str().unwrap(),
        "src/secret/new/deep/file",
        "SRC/Secret/a",
    ] {
        for tool in ["Edit", "Write"] {
            let input = edit(p);
            assert_eq!(
                decide(&svc, tool, &input, &deny),
                Behavior::Deny,
                "{tool} {p}"
            );
        }
    }
    // Read is another tool.
    assert_eq!(
        decide(&svc, "Read", &json!({"file_path": "./src/secret/a"}), &deny),
        Behavior::Allow
    );
}

#[test]
fn rule3_path_deny_pattern_spellings_are_normalised() {
    let f = Fixture::new();
    let svc = f.service();
    let abs_pattern = format!("{}/src/secret/*", f.ws.display());
    for pattern in [
        "./src/secret/*",
        "src//secret/*",
        "x/../src/secret/*",
        &abs_pattern,
    ] {
        let deny = rules(RuleKind::Deny, &[Rule::with_content("Read", pattern)]);
        for p in ["src/secret/a", "./src/secret/a"] {
            assert_eq!(
                decide(&svc, "Read", &json!({"file_path": p}), &deny),
                Behavior::Deny,
                "{pattern} {p}"
            );
        }
    }
}

#[cfg(unix)]
#[test]
fn rule3_path_deny_follows_symlinks() {
    let f = Fixture::new();
    f.symlink(f.ws.join("src/secret"), "s");
    f.symlink(f.ws.join("src/secret/a"), "a-link");
    let svc = f.service();
    let deny = rules(
        RuleKind::Deny,
        &[Rule::with_content("Read", "src/secret/*")],
    );
    for p in ["s/a", "a-link", "./s/a"] {
        assert_eq!(
            decide(&svc, "Read", &json!({"file_path": p}), &deny),
            Behavior::Deny,
            "{p}"
        );
    }
    // A deny written on the link's own name still matches the link.
    let deny = rules(RuleKind::Deny, &[Rule::with_content("Read", "s/*")]);
    assert_eq!(
        decide(&svc, "Read", &json!({"file_path": "s/a"}), &deny),
        Behavior::Deny
    );
}

#[test]
fn rule3_path_allow_never_matches_outside_the_workspace() {
    let f = Fixture::new();
    let svc = f.service();
    let allow = rules(
        RuleKind::Allow,
        &[
            Rule::with_content("Edit", "src/*"),
            Rule::with_content("Edit", "*"),
        ],
    );
    let outside = f.root.join("outside/src/secret/x");
    for p in [
        "src/../../outside/x",
        "src/../../outside/src/secret/x",
        "../outside/src/x",
        outside.to_str().unwrap(),
    ] {
        assert_eq!(
            decide(&svc, "Write", &write(p), &allow),
            Behavior::Ask,
            "{p}"
        );
    }
    // Inside, in any spelling: allowed.
    let abs = f.ws.join("src/main.rs");
    for p in [
        "src/main.rs",
        "./src/main.rs",
        "x/../src/main.rs",
        abs.to_str().unwrap(),
    ] {
        assert_eq!(
            decide(&svc, "Write", &write(p), &allow),
            Behavior::Allow,
            "{p}"
        );
    }
}

#[cfg(unix)]
#[test]
fn rule3_path_allow_does_not_follow_a_symlink_out() {
    let f = Fixture::new();
    f.symlink(f.root.join("outside"), "src/out");
    f.symlink(f.root.join("outside/src/secret"), "src/sec");
    let svc = f.service();
    let allow = rules(RuleKind::Allow, &[Rule::with_content("Edit", "src/*")]);
    for p in ["src/out/x", "src/out/new/dir/x", "src/sec/y", "src/out"] {
        assert_eq!(
            decide(&svc, "Write", &write(p), &allow),
            Behavior::Ask,
            "{p}"
        );
    }
}

#[test]
fn rule3_path_absolute_allow_matches_the_resolved_path() {
    let f = Fixture::new();
    let svc = f.service();
    let pattern = format!("{}/src/*", f.root.join("outside").display());
    let allow = rules(RuleKind::Allow, &[Rule::with_content("Edit", pattern)]);
    assert_eq!(
        decide(&svc, "Write", &write("../outside/src/a"), &allow),
        Behavior::Allow
    );
    // A relative pattern that leaves the workspace names that place.
    let allow = rules(
        RuleKind::Allow,
        &[Rule::with_content("Edit", "../outside/src/*")],
    );
    let abs = f.root.join("outside/src/b");
    assert_eq!(
        decide(&svc, "Write", &write(abs.to_str().unwrap()), &allow),
        Behavior::Allow
    );
    assert_eq!(
        decide(&svc, "Write", &write("src/b"), &allow),
        Behavior::Ask
    );
}

#[test]
fn rule3_path_ask_and_grep_glob_paths() {
    let f = Fixture::new();
    let svc = f.service();
    let ask = rules(RuleKind::Ask, &[Rule::with_content("Grep", "src/secret")]);
    for p in ["./src/secret", "src/secret/", "src//secret"] {
        let input = json!({"pattern": "key", "path": p});
        assert_eq!(decide(&svc, "Grep", &input, &ask), Behavior::Ask, "{p}");
    }
    // Glob without a path keeps its glob as the subject, unnormalised.
    let ask = rules(RuleKind::Ask, &[Rule::with_content("Glob", "./**/*.rs")]);
    assert_eq!(
        decide(&svc, "Glob", &json!({"pattern": "./**/*.rs"}), &ask),
        Behavior::Ask
    );
    assert_eq!(
        decide(&svc, "Glob", &json!({"pattern": "**/*.rs"}), &ask),
        Behavior::Allow
    );
}

#[test]
fn rule2_write_deny_covers_edit_and_edit_deny_covers_write() {
    let f = Fixture::new();
    let svc = f.service();
    let deny = rules(
        RuleKind::Deny,
        &[Rule::with_content("Write", "src/secret/*")],
    );
    assert_eq!(
        decide(&svc, "Edit", &edit("src/secret/a"), &deny),
        Behavior::Deny
    );
    let deny = rules(RuleKind::Deny, &[Rule::tool("Edit")]);
    assert_eq!(decide(&svc, "Write", &write("a"), &deny), Behavior::Deny);
    // Allow keeps RULE-2's one direction: a Write allow does not allow Edit.
    let allow = rules(RuleKind::Allow, &[Rule::tool("Write")]);
    assert_eq!(decide(&svc, "Edit", &edit("a"), &allow), Behavior::Ask);
    assert_eq!(decide(&svc, "Write", &write("a"), &allow), Behavior::Allow);
}

#[test]
fn perm10_protected_zcode_names_follow_the_home_layout() {
    use zcode::permission::protected::{ZCODE_CONFIG_FILE, ZCODE_STORE_DIR};
    assert_eq!(zcode::config::CONFIG_FILE_NAME, ZCODE_CONFIG_FILE);
    let db = zcode::store::default_db_path(Path::new("/h"));
    assert!(db.starts_with(Path::new("/h").join(ZCODE_STORE_DIR)));
}
