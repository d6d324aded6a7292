//! BASH-8: `analyze` never panics, on arbitrary and on shell-ish input, and
//! its judgments keep their invariants (BASH-3, BASH-4).

use proptest::prelude::*;
use zcode::permission::bash::{BashAnalysis, analyze, matching_rule, suggest_rules};
use zcode::permission::rules::{Rule, RuleKind};
use zcode::tools::registry::builtin_declaration;

/// Shell syntax fragments, including the ones that trip parsers up.
const FRAGMENTS: &[&str] = &[
    "ls",
    "cat",
    "git",
    "status",
    "rm",
    "echo",
    "x",
    "-la",
    "--out=",
    " ",
    " ",
    " ",
    "\t",
    "'",
    "\"",
    "$",
    "$(",
    "${",
    "$((",
    ")",
    "(",
    "}",
    "{",
    "`",
    "|",
    "||",
    "|&",
    "&",
    "&&",
    ";",
    ";;",
    "\n",
    "\\",
    "\\\n",
    "<",
    ">",
    ">>",
    "<<",
    "<<-",
    "<<<",
    "2>&1",
    ">&",
    "&>",
    "/dev/null",
    "*",
    "?",
    "[",
    "]",
    "~",
    "~/",
    "=",
    "A=1",
    "#",
    "!",
    "if",
    "then",
    "fi",
    "for",
    "do",
    "done",
    "case",
    "esac",
    "in",
    "[[",
    "]]",
    "time",
    "-p",
    "function",
    "EOF",
    "é",
    "\u{0}",
    "9999999999",
    "{a,b}",
    "@(",
    "$'",
    "sed",
    "-n",
    "'1w x'",
    "find",
    "-exec",
    "\r",
];

fn shellish() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40).prop_map(|v| v.concat())
}

/// Read-only commands and separators without quotes, escapes or comments:
/// here `$(` is always a command substitution and `;` always a separator.
const READ_ONLY: &[&str] = &[
    "ls",
    "cat x",
    "git rev-parse HEAD",
    "grep x",
    "wc -l",
    "head -n 3",
    "echo hi",
    "pwd",
    "true",
    "ls 2>&1",
    "ls >/dev/null",
    "git log --oneline --no-show-signature",
];
const SEPARATORS: &[&str] = &[" && ", " || ", " ; ", " | ", "\n", " & ", " |& "];

fn plain() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop::sample::select(READ_ONLY),
            prop::sample::select(SEPARATORS),
        ),
        0..8,
    )
    .prop_map(|v| {
        let mut s = String::new();
        for (i, (cmd, sep)) in v.iter().enumerate() {
            if i > 0 {
                s.push_str(sep);
            }
            s.push_str(cmd);
        }
        s
    })
}

/// Writes a file, deletes, or runs a dynamic command.
const DANGEROUS_PARTS: &[&str] = &[
    " > out.txt",
    " >> out.txt",
    " 2> err.txt",
    " &> out.txt",
    " >| out.txt",
    " >&out.txt",
    " ; rm -rf x",
    " && rm x",
    " | rm x",
    "\nrm x",
    " $(id)",
    " \"$(id)\"",
    " `id`",
];

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn check_invariants(a: &BashAnalysis) {
    // BASH-4: read-only implies a safe parse, and every subcommand is read-only.
    if a.read_only {
        assert!(a.safe_parse);
        assert!(!a.subcommands.is_empty());
        assert!(a.subcommands.iter().all(|s| s.read_only));
    }
    // BASH-3: an unsafe parse is one opaque command.
    if !a.safe_parse {
        assert!(a.subcommands.is_empty());
    }
    for s in &a.subcommands {
        if s.read_only {
            assert!(!s.has_assignments);
        }
    }
    let suggestions = suggest_rules(a);
    if a.read_only {
        assert!(suggestions.is_empty());
    }
    assert!(suggestions.len() <= 5);
    let rules = [
        Rule::with_content("Bash", "rm:*"),
        Rule::with_content("Bash", "*x*"),
    ];
    let bash = builtin_declaration("Bash").expect("Bash is built in");
    for kind in RuleKind::ALL {
        let _ = matching_rule(kind, &rules, bash, a);
    }
}

proptest! {
    #![proptest_config(config(2_000))]

    #[test]
    fn bash8_never_panics_on_arbitrary_strings(s in any::<String>()) {
        check_invariants(&analyze(&s));
    }

    #[test]
    fn bash8_never_panics_on_shellish_fragments(s in shellish()) {
        check_invariants(&analyze(&s));
    }

    #[test]
    fn bash8_never_panics_on_printable_ascii(s in "[ -~\n\t]{0,200}") {
        check_invariants(&analyze(&s));
    }
}

proptest! {
    #![proptest_config(config(1_000))]

    /// BASH-4: no command containing a file redirection, `rm ` in command
    /// position or `$(` is read-only, wherever it is spliced in.
    #[test]
    fn bash4_no_dangerous_splice_is_read_only(
        head in plain(),
        part in prop::sample::select(DANGEROUS_PARTS),
        tail in plain(),
    ) {
        let mut command = String::from("ls");
        if !head.is_empty() {
            command = format!("{head} && ls");
        }
        command.push_str(part);
        if !tail.is_empty() {
            command = format!("{command} && {tail}");
        }
        let a = analyze(&command);
        prop_assert!(!a.read_only, "judged read-only: {command:?}");
    }

    #[test]
    fn bash4_read_only_implies_safe_parse_on_plain_chains(s in plain()) {
        let a = analyze(&s);
        check_invariants(&a);
        if a.safe_parse {
            // Only read-only pieces: every non-empty chain is read-only.
            prop_assert_eq!(a.read_only, !a.subcommands.is_empty(), "{:?}", s);
        }
        prop_assert!(a.safe_parse, "{:?}", s);
    }
}

#[test]
fn bash8_guards_make_huge_or_deep_input_opaque() {
    let huge = "ls ".repeat(30_000);
    assert!(huge.len() > 64 * 1024);
    assert!(!analyze(&huge).safe_parse);

    let deep = format!("echo {}x{}", "$(".repeat(5_000), ")".repeat(5_000));
    assert!(!analyze(&deep).safe_parse);
    let deep = format!("{}ls{}", "(".repeat(50_000), ")".repeat(50_000));
    assert!(!analyze(&deep).safe_parse);
    let deep = format!("echo {}x{}", "${a:-".repeat(5_000), "}".repeat(5_000));
    assert!(!analyze(&deep).safe_parse);
    let nested_ifs = "if true; then ".repeat(5_000);
    assert!(!analyze(&nested_ifs).safe_parse);
    let heredocs = "cat <<A <<B <<C <<D <<E <<F <<G <<H <<I <<J\n".repeat(100);
    assert!(!analyze(&heredocs).safe_parse);

    // Just under the limit, a long flat chain is still analysed.
    let long = "git branch && ".repeat(4_000) + "ls";
    let a = analyze(&long);
    assert!(a.safe_parse);
    assert_eq!(a.subcommands.len(), 4_001);
    assert!(a.read_only);
}
