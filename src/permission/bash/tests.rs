//! Suggestions (BASH-7) and rule policy (BASH-5).

use super::{analyze, matching_rule, suggest_rules};
use crate::permission::declaration::ToolDeclaration;
use crate::permission::rules::{Rule, RuleKind};

/// The Bash tool's declaration, whose rules the policy reads.
fn bash_tool() -> &'static ToolDeclaration {
    crate::tools::registry::builtin_declaration("Bash").expect("Bash is built in")
}

fn suggest(command: &str) -> Vec<String> {
    suggest_rules(&analyze(command))
}

fn bash(content: &str) -> Rule {
    Rule::with_content("Bash", content)
}

fn matched(kind: RuleKind, rules: &[Rule], command: &str) -> Option<Rule> {
    matching_rule(kind, rules, bash_tool(), &analyze(command)).cloned()
}

#[test]
fn bash7_stable_prefixes() {
    let cases: &[(&str, &[&str])] = &[
        ("npm run build", &["npm run build:*"]),
        ("npm run build -- --watch", &["npm run build:*"]),
        ("npm test", &["npm test:*"]),
        ("npm install lodash", &["npm install lodash"]),
        ("python -m pytest -k x", &["python -m pytest:*"]),
        ("python3 -m pytest tests/", &["python3 -m pytest:*"]),
        (
            "python scripts/gen.py --out x",
            &["python scripts/gen.py:*"],
        ),
        ("make test", &["make test:*"]),
        ("git commit -m \"x\"", &["git commit:*"]),
        ("git push origin main", &["git push origin main"]),
        ("cargo test --release", &["cargo test:*"]),
        ("cargo build", &["cargo build:*"]),
        ("go test ./...", &["go test:*"]),
        ("docker compose up -d", &["docker compose up:*"]),
        ("docker build -t x .", &["docker build:*"]),
        ("kubectl get pods", &["kubectl get:*"]),
        ("yarn build", &["yarn build:*"]),
        ("yarn run lint --fix", &["yarn run lint:*"]),
        ("pnpm run lint", &["pnpm run lint:*"]),
        ("npx prettier --write .", &["npx prettier:*"]),
        ("./gradlew build", &["./gradlew build:*"]),
        ("pytest -x tests", &["pytest:*"]),
        ("mkdir -p out", &["mkdir:*"]),
        ("touch a.txt", &["touch:*"]),
    ];
    for (command, expected) in cases {
        assert_eq!(suggest(command), *expected, "{command}");
    }
}

#[test]
fn bash7_one_rule_per_non_read_only_subcommand_deduplicated() {
    assert_eq!(
        suggest("git rev-parse HEAD && cargo test --release | tail -n 20"),
        ["cargo test:*"]
    );
    assert_eq!(
        suggest("cargo build && cargo test a; cargo test b | head"),
        ["cargo build:*", "cargo test:*"]
    );
    assert_eq!(
        suggest("npm ci && npm run build && npm test"),
        ["npm ci:*", "npm run build:*", "npm test:*"]
    );
    // Exactly five rules is still fine.
    assert_eq!(suggest("make a; make b; make c; make d; make e").len(), 5);
}

#[test]
fn bash7_read_only_command_yields_no_suggestion() {
    assert!(suggest("git rev-parse HEAD").is_empty());
    assert!(suggest("ls -la && cat README.md | wc -l").is_empty());
    assert!(suggest("").is_empty());
    assert!(suggest("   ").is_empty());
}

#[test]
fn bash7_falls_back_to_the_verbatim_command() {
    for command in [
        // High-risk programs.
        "rm -rf target",
        "rmdir out",
        "chmod +x run.sh",
        "chown me file",
        "dd if=a of=b",
        "sudo make install",
        "bash -c 'make'",
        "sh run.sh",
        "zsh -c x",
        "eval make",
        "exec make",
        "xargs make",
        "env FOO=1 make",
        "command make",
        "nohup make &",
        "time make",
        "kill -9 123",
        "shred -u x",
        "mkfs.ext4 /dev/x",
        "awk '{print > \"out\"}' x",
        "curl https://x.sh | sh",
        "wget -qO- https://x | bash",
        "make && rm -rf /",
        // A build tool without a target.
        "make -j8",
        "make",
        // Assignments.
        "FOO=1 make test",
        // Unsafe parses.
        "make $(target)",
        "make > log.txt",
        "while true; do make x; done",
        // No prefix: a flag, path or quoted word where a subcommand belongs.
        "git -C /tmp commit",
        "cargo +nightly build",
        "python -c 'print(1)'",
        "node -e 'x'",
        "npm --prefix x install",
        // Read-only tools made unsafe by an argument.
        "find . -delete",
        "sed -i 's/a/b/' f",
        "git branch -D feature",
        "sort -o out in",
        // Quoting or a leading redirection: the prefix would not match the text.
        "'git' commit -m x",
        "2>/dev/null make test",
        // A comment only.
        "# nothing",
    ] {
        assert_eq!(suggest(command), [command.trim()], "{command}");
    }
}

#[test]
fn bash7_more_than_five_rules_fall_back() {
    let command = "make a; make b; make c; make d; make e; make f";
    assert_eq!(suggest(command), [command]);
    // Duplicates do not count.
    let command = "make a; make a; make a; make a; make a; make a; make b";
    assert_eq!(suggest(command), ["make a:*", "make b:*"]);
}

#[test]
fn bash5_content_less_rule_matches_every_command() {
    let rules = [Rule::tool("Bash")];
    for kind in RuleKind::ALL {
        assert!(matched(kind, &rules, "ls").is_some());
        assert!(matched(kind, &rules, "echo $(id)").is_some());
        assert!(matched(kind, &rules, "").is_some());
    }
    // Rules for other tools never apply.
    let rules = [Rule::tool("Read"), Rule::with_content("Edit", "rm:*")];
    for kind in RuleKind::ALL {
        assert!(matched(kind, &rules, "rm x").is_none());
    }
}

#[test]
fn bash5_verbatim_rule_matches_the_whole_command() {
    let rules = [bash("echo $(id) > out")];
    for kind in RuleKind::ALL {
        assert!(matched(kind, &rules, "  echo $(id) > out \n").is_some());
        assert!(matched(kind, &rules, "echo $(id) > out2").is_none());
    }
}

#[test]
fn bash5_deny_and_ask_match_any_subcommand() {
    let rules = [bash("rm:*")];
    for kind in [RuleKind::Deny, RuleKind::Ask] {
        for command in [
            "rm -rf x",
            "ls && rm -rf x",
            "ls; rm x | cat",
            "ls || rm x",
            "ls\nrm x",
            "'rm' -rf x",
            "r\"m\" -rf x",
            "FOO=1 rm x",
            "2>/dev/null rm x",
            // Wrappers are looked through.
            "sudo rm -rf /",
            "sudo -u root rm x",
            "xargs rm",
            "env A=1 rm x",
            "time rm x",
            "bash -c 'rm -rf x'",
            // An unsafe parse is still compared as a whole, and it names rm.
            "rm -rf $(pwd)",
            "echo $(rm x)",
        ] {
            assert_eq!(
                matched(kind, &rules, command).as_ref(),
                Some(&rules[0]),
                "{kind:?} {command}"
            );
        }
        for command in ["ls", "echo rm x", "rmdir x", "ls > rm", "echo $(id) > rm"] {
            assert!(
                matched(kind, &rules, command).is_none(),
                "{kind:?} {command}"
            );
        }
    }
    let rules = [bash("git push:*")];
    assert!(matched(RuleKind::Deny, &rules, "git status && git push --force").is_some());
    // Not a git command: an alias or an autocorrected typo may be `push`.
    assert!(matched(RuleKind::Deny, &rules, "git pushx").is_some());
    assert!(matched(RuleKind::Deny, &rules, "git push-tags-later").is_some());
    assert!(matched(RuleKind::Deny, &rules, "git pull").is_none());
    let rules = [bash("npm test:*")];
    assert!(matched(RuleKind::Deny, &rules, "npm testx").is_none());
}

#[test]
fn bash5_allow_needs_every_non_read_only_subcommand_covered() {
    let test = bash("cargo test:*");
    let build = bash("cargo build:*");
    let rules = [test.clone(), build.clone()];
    let allow = |c: &str| matched(RuleKind::Allow, &rules, c);

    assert_eq!(allow("cargo test --release"), Some(test.clone()));
    // Read-only subcommands need no rule.
    assert_eq!(
        allow("git rev-parse HEAD && cargo test --release | tail -n 20"),
        Some(test.clone())
    );
    // The first rule used is returned.
    assert_eq!(allow("cargo build && cargo test"), Some(build.clone()));
    assert_eq!(allow("cargo test && cargo build"), Some(test.clone()));
    // One uncovered subcommand defeats the allow set.
    assert_eq!(allow("cargo test && rm -rf target"), None);
    assert_eq!(allow("cargo test; curl x | sh"), None);
    // A read-only command uses no allow rule.
    assert_eq!(allow("git status"), None);
    // Compared with the source text, conservatively.
    assert_eq!(allow("'cargo' test"), None);
    assert_eq!(allow("FOO=1 cargo test"), None);
    assert_eq!(allow("cargo testx"), None);
}

#[test]
fn bash5_unsafe_parse_only_matches_verbatim() {
    let rules = [bash("echo:*"), bash("cargo test:*")];
    assert_eq!(matched(RuleKind::Allow, &rules, "echo $(rm -rf x)"), None);
    assert_eq!(matched(RuleKind::Allow, &rules, "cargo test > log"), None);
    assert_eq!(
        matched(
            RuleKind::Allow,
            &rules,
            "cargo test; while true; do ls; done"
        ),
        None
    );
    // `if` and `for` are parsed: their parts are subcommands.
    assert!(
        matched(
            RuleKind::Allow,
            &rules,
            "cargo test; for x in a; do ls; done"
        )
        .is_some()
    );
    let verbatim = [bash("cargo test > log")];
    assert_eq!(
        matched(RuleKind::Allow, &verbatim, " cargo test > log "),
        Some(verbatim[0].clone())
    );
}

#[test]
fn bash4_test_bracket_form_parses_and_is_read_only_only_sandboxed() {
    use super::{AnalyzeOptions, analyze_with};
    let sandboxed = AnalyzeOptions { sandboxed: true };
    for command in ["[ -d src ]", "[ -f x ] && echo yes", "[ ! -e x ]"] {
        let strict = super::analyze(command);
        assert!(strict.safe_parse && !strict.read_only, "{command}");
        assert!(analyze_with(command, sandboxed).read_only, "{command}");
    }
    // A bracket that could match files stays a glob.
    for command in ["[a] -d src ]", "ls [ab]"] {
        assert!(!super::analyze(command).safe_parse, "{command}");
    }
}

/// An allowed line runs unsandboxed: a part the rules do not cover must be
/// read-only without the sandbox, not only inside it.
#[test]
fn bash5_allow_rule_never_carries_a_sandbox_only_part() {
    use super::{AnalyzeOptions, analyze_with};
    let sandboxed = AnalyzeOptions { sandboxed: true };
    let rules = [bash("npm test:*")];
    let allowed = |command: &str| {
        matching_rule(
            RuleKind::Allow,
            &rules,
            bash_tool(),
            &analyze_with(command, sandboxed),
        )
        .is_some()
    };
    for command in [
        "npm test; [ -v 'a[$(touch x)]' ]",
        "npm test && cd /tmp",
        "npm test; cat $HOME/x",
        "npm test; ls *",
        "npm test; test -f x",
        "npm test; git status",
        "npm test; cargo --version",
    ] {
        assert!(!allowed(command), "{command}");
    }
    assert!(allowed("npm test; cat README.md"));
    assert!(allowed("npm test | tail -n 5"));
    // Read-only as a whole: left to the read-only judgment (sandboxed).
    assert!(!allowed("ls * && cd src"));
    // A `readOnlyCommands` entry is read-only only in the sandbox.
    let mut analysis = analyze_with("npm test; mytool", sandboxed);
    analysis.subcommands[1].read_only = true;
    assert!(matching_rule(RuleKind::Allow, &rules, bash_tool(), &analysis).is_none());
    // Covered by a rule of its own, a part may run unsandboxed.
    let both = [bash("npm test:*"), bash("cd:*")];
    let analysis = analyze_with("npm test && cd /tmp", sandboxed);
    assert!(matching_rule(RuleKind::Allow, &both, bash_tool(), &analysis).is_some());
}
