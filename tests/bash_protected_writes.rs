//! PERM-10 for shell commands: the files that make tools run programs are
//! protected against Bash too. A command that may write one is asked
//! whatever allow rule (saved, `--allowedTools`) matches it. Checked
//! through the real binary's `zcode permission check`.

#![cfg(unix)]

use serde_json::{Value, json};
use std::process::{Command, Output};

fn zcode(home: &std::path::Path, project: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zcode"))
        .args(args)
        .env("ZCODE_HOME", home)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .current_dir(project)
        .output()
        .expect("zcode runs")
}

#[test]
fn perm10_allow_rules_never_let_bash_write_a_protected_file() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let (h, p) = (home.path(), project.path());
    std::fs::create_dir_all(p.join(".git/hooks")).unwrap();
    std::fs::write(p.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(p.join(".git/config"), "[core]\n").unwrap();
    let bare = p.join("vendor/x.git");
    std::fs::create_dir_all(bare.join("objects")).unwrap();
    std::fs::write(bare.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    for rule in [
        "git commit:*",
        "cp:*",
        "mv:*",
        "tee:*",
        "ln:*",
        "sed:*",
        "echo:*",
        "install:*",
    ] {
        let out = zcode(h, p, &["permission", "add", "allow", "Bash", rule]);
        assert!(out.status.success(), "{out:?}");
    }
    let check = |command: &str| -> (String, String) {
        let input = json!({ "command": command }).to_string();
        let out = zcode(
            h,
            p,
            &["permission", "check", "--tool", "Bash", "--input", &input],
        );
        assert!(out.status.success(), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            v["behavior"].as_str().unwrap_or_default().to_string(),
            v["ruleId"].as_str().unwrap_or_default().to_string(),
        )
    };
    for command in [
        "cp evil .git/config",
        "cp evil ./docs/../.git/config",
        "mv hook .git/hooks/pre-commit",
        "tee .envrc",
        "ln -sf /tmp/x .git/hooks/post-checkout",
        "sed -i s/a/b/ .git/config",
        "echo '[core] fsmonitor=x' > .git/config",
        "echo x >> .vscode/tasks.json",
        "cp a .gitattributes",
        "install -m 755 x .husky/pre-commit",
        "cp -r hooks .githooks",
        // Quotes and backslashes the shell removes.
        "cp evil .gi''t/config",
        "cp evil .git\\/config",
        "cp evil .env\"\"rc",
        "tee .env''rc",
        // A relative word after `cd`.
        "cd vendor/x.git && tee config",
    ] {
        assert_eq!(
            check(command),
            ("ask".to_string(), "edit.protectedPath".to_string()),
            "{command}"
        );
    }
    // Ordinary files are still allowed by the same rules.
    for command in [
        "cp a b",
        "mv src/a.rs src/b.rs",
        "tee out.log",
        "sed -i s/a/b/ src/x.rs",
    ] {
        assert_eq!(check(command).0, "allow", "{command}");
    }
}
