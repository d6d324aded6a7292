//! BASH-1: a command that Bash and the parser read differently is never
//! judged read-only. Each attack below runs a write for Bash while a naive
//! reading sees only read-only words.

use zcode::permission::bash::{AnalyzeOptions, analyze, analyze_with};

fn sandboxed(command: &str) -> zcode::permission::bash::BashAnalysis {
    analyze_with(command, AnalyzeOptions { sandboxed: true })
}

#[test]
fn bash1_desync_escaped_dollar_before_single_quote() {
    for command in [
        r"echo \$'\' ; touch /tmp/x ; echo '\'",
        r"echo \$'\' && touch /tmp/x && echo '\'",
        r"echo \$'\' | tee /tmp/x | echo '\'",
        "echo \\$'\\'\ntouch /tmp/x\necho '\\'",
        r"echo a\$'\' ; touch /tmp/x ; echo '\'",
        r"echo $$'\' ; touch /tmp/x ; echo '\'",
        r"grep \$'\' ; rm -rf ~ ; grep '\' f",
        r"ls \$'x\'; touch /tmp/x; ls '\'",
    ] {
        for a in [analyze(command), sandboxed(command)] {
            assert!(!a.read_only, "{command:?}");
            assert!(!a.safe_parse, "{command:?}");
        }
    }
}

#[test]
fn bash1_desync_line_continuation_inside_operators() {
    // Bash joins `&\<newline>&` into `&&`; brush reads `&` `&`.
    for command in [
        "ls &\\\n& touch /tmp/x",
        "ls |\\\n| touch /tmp/x",
        "echo a >\\\n> /tmp/x",
        "echo a &\\\n> /tmp/x",
    ] {
        assert!(!analyze(command).read_only, "{command:?}");
        assert!(!sandboxed(command).read_only, "{command:?}");
    }
}

#[test]
fn bash1_desync_bash_only_forms_are_unsafe() {
    for command in [
        // ANSI-C and locale quoting.
        "echo $'a\\'b'",
        "echo $'\\x41'",
        "echo $\"a\"",
        "echo $\\\n'a'; touch /tmp/x; echo '",
        // Old arithmetic, read through blanks by Bash.
        "echo $[ 1 ; touch /tmp/x ]",
        // A subscript is read through blanks in assignment position.
        "a[x y]=1 ls",
        "a[0;touch /tmp/x]=1 ls",
        // `{fd}>` allocates a descriptor.
        "ls {fd}>&2",
        "ls {fd}>/dev/null",
        // Command and process substitution, backticks, extended globs.
        "echo \"$(touch /tmp/x)\"",
        "echo `touch /tmp/x`",
        "echo \"`touch /tmp/x`\"",
        "cat <(touch /tmp/x)",
        "ls @(a|b)",
        "ls !(a)",
        // Parameter operators.
        "echo ${X:=a}",
        "echo ${X/a/b}",
        "echo \"${X:-'}'}\"; touch /tmp/x",
        "echo ${X:-$(touch /tmp/x)}",
        // Here-documents and here-strings.
        "cat <<< x",
        "cat <<EOF\nx\nEOF",
        // Case terminators.
        "ls ;; touch /tmp/x",
        "ls ;& touch /tmp/x",
        // Unterminated input.
        "echo 'a",
        "echo \"a",
        "echo a\\",
    ] {
        for a in [analyze(command), sandboxed(command)] {
            assert!(!a.read_only, "{command:?}");
            assert!(!a.safe_parse, "{command:?}");
        }
    }
}

#[test]
fn bash1_desync_comments_start_only_at_a_word_start() {
    // `#` mid-word is literal; at a word start it hides the rest of the line,
    // but never the next line, even after a backslash.
    let a = analyze("echo a#b; touch /tmp/x");
    assert!(!a.read_only);
    assert_eq!(a.subcommands.len(), 2);
    let a = analyze("echo a #b; touch /tmp/x");
    assert!(a.read_only);
    assert_eq!(a.subcommands.len(), 1);
    let a = analyze("echo a # b \\\ntouch /tmp/x");
    assert!(!a.read_only);
    assert_eq!(a.subcommands.len(), 2);
    let a = analyze("echo \\\n# b\ntouch /tmp/x");
    assert!(!a.read_only);
    let a = analyze("ls;#x\ntouch /tmp/x");
    assert!(!a.read_only);
    let a = analyze("echo $#; touch /tmp/x");
    assert!(!a.read_only);
}

#[test]
fn bash1_desync_escapes_and_separators() {
    // An escaped `;` is a word, `;;` is refused, `\<newline>` joins words.
    let a = analyze("echo a\\; touch /tmp/x");
    assert!(a.safe_parse && a.read_only);
    assert_eq!(a.subcommands[0].words, ["echo", "a;", "touch", "/tmp/x"]);
    let a = analyze("ec\\\nho a");
    assert!(a.read_only);
    assert_eq!(a.subcommands[0].words, ["echo", "a"]);
    let a = analyze("echo a\\\n; touch /tmp/x");
    assert!(!a.read_only);
    for command in [
        "echo a\\\\; touch /tmp/x",
        "echo 'a\\'; touch /tmp/x",
        "echo \"a\\\\\"; touch /tmp/x",
        "echo \"a\\\"\"; touch /tmp/x",
        "echo \"a'\"; touch /tmp/x; echo \"'\"",
        "echo 'a\"'; touch /tmp/x; echo '\"'",
        "echo a |& tee /tmp/x",
        "echo a & touch /tmp/x",
        "echo a\r; touch /tmp/x",
        "echo a\ntouch /tmp/x",
        "! ls; touch /tmp/x",
    ] {
        let a = analyze(command);
        assert!(!a.read_only, "{command:?}");
        assert!(a.subcommands.len() >= 2, "{command:?}");
    }
}

#[test]
fn bash1_desync_redirections_and_descriptor_numbers() {
    for command in [
        "ls 2>&1",
        "ls 2>/dev/null",
        "ls >/dev/null 2>&1",
        "ls &>/dev/null",
        "ls &>>/dev/null",
        "ls 2\\\n>&1",
        "ls <&0",
        "ls >&-",
    ] {
        let a = analyze(command);
        assert!(a.safe_parse && a.read_only, "{command:?}");
        assert_eq!(a.subcommands[0].words, ["ls"], "{command:?}");
    }
    // With a blank, `2` is an argument.
    let a = analyze("echo 2 >&1");
    assert_eq!(a.subcommands[0].words, ["echo", "2"]);
    for command in [
        "ls >/tmp/x",
        "ls 2>/tmp/x",
        "ls &>/tmp/x",
        "ls >&/tmp/x",
        "ls >|/tmp/x",
        "ls <>/tmp/x",
        "ls >>/tmp/x",
        "ls 2>>/tmp/x",
        "ls >/dev/null\\\n2",
        "ls > /dev/nul\\\nl2",
        "ls 99999999999>/dev/null",
    ] {
        assert!(!analyze(command).read_only, "{command:?}");
        assert!(!sandboxed(command).read_only, "{command:?}");
    }
}

#[test]
fn bash1_desync_unicode_lookalikes_are_ordinary_characters() {
    // Bash splits only on ASCII blanks and metacharacters: these are one word.
    for command in [
        "ls\u{a0}-la",
        "ls；touch /tmp/x",
        "ls\u{2003}x",
        "echo\u{ff1b}touch",
    ] {
        let a = analyze(command);
        assert!(a.safe_parse, "{command:?}");
        assert!(!a.read_only, "{command:?}");
    }
    let a = analyze("echo a\u{a0}; touch /tmp/x");
    assert_eq!(a.subcommands.len(), 2);
    assert!(!a.read_only);
}

#[test]
fn bash1_desync_quoted_text_stays_one_word() {
    let a = analyze("grep -n 'a; touch /tmp/x' src");
    assert!(a.read_only);
    assert_eq!(
        a.subcommands[0].words,
        ["grep", "-n", "a; touch /tmp/x", "src"]
    );
    let a = analyze("grep \"a'b\" 'c\"d' e\\'f");
    assert!(a.read_only);
    assert_eq!(a.subcommands[0].words, ["grep", "a'b", "c\"d", "e'f"]);
    let a = analyze("grep 'a\\\nb' f");
    assert!(a.read_only);
    assert_eq!(a.subcommands[0].words, ["grep", "a\\\nb", "f"]);
}

#[test]
fn bash1_sandboxed_marks_plain_dynamic_arguments() {
    let cases: &[(&str, &[&str], &[bool])] = &[
        ("ls *.rs", &["ls", "*.rs"], &[false, true]),
        ("ls src/* -d", &["ls", "src/*", "-d"], &[false, true, false]),
        ("cat ?", &["cat", "?"], &[false, true]),
        ("ls [ab]", &["ls", "[ab]"], &[false, true]),
        ("ls $HOME", &["ls", "$HOME"], &[false, true]),
        ("ls ${HOME}", &["ls", "${HOME}"], &[false, true]),
        ("ls \"$HOME\"", &["ls", "\"$HOME\""], &[false, true]),
        (
            "grep -r x \"$HOME/.config\" $1",
            &["grep", "-r", "x", "\"$HOME/.config\"", "$1"],
            &[false, false, false, true, true],
        ),
        ("time ls $X", &["time", "ls", "$X"], &[false, false, true]),
    ];
    for (command, words, dynamic) in cases {
        let a = sandboxed(command);
        assert!(a.safe_parse, "{command}");
        assert_eq!(a.subcommands.len(), 1, "{command}");
        assert_eq!(a.subcommands[0].words, *words, "{command}");
        assert_eq!(a.subcommands[0].dynamic, *dynamic, "{command}");
        // Strict mode is unchanged: any expansion makes the parse unsafe.
        let strict = analyze(command);
        assert!(!strict.safe_parse && !strict.read_only, "{command}");
    }
    // Static words are never marked.
    let a = sandboxed("ls -la '*.rs' \\$HOME");
    assert_eq!(a.subcommands[0].words, ["ls", "-la", "*.rs", "$HOME"]);
    assert_eq!(a.subcommands[0].dynamic, [false, false, false, false]);
    assert!(a.read_only);
    assert_eq!(a, analyze("ls -la '*.rs' \\$HOME"));
}

#[test]
fn bash1_sandboxed_refuses_other_expansions_and_positions() {
    for command in [
        // The program word, an assignment, a redirection target.
        "$X -la",
        "*.sh",
        "\"$EDITOR\" x",
        "X=$HOME ls",
        "X=* ls",
        "ls > $X",
        "ls 2>$HOME/x",
        "ls >&$X",
        "ls < *.rs",
        // Operator forms and other expansions.
        "ls ${X:=a}",
        "ls ${X:-a}",
        "ls ${X/a/b}",
        "ls ${#X}",
        "ls ${!X}",
        "ls ${X[0]}",
        "ls $(pwd)",
        "ls \"$(pwd)\"",
        "ls `pwd`",
        "ls $((1+2))",
        "ls <(pwd)",
        "ls {a,b}",
        "ls x{1..3}",
        "ls $X{a,b}",
        // A lone `~` is the home directory, like `$HOME` (accepted); other
        // tilde prefixes are not modelled.
        "ls ~root",
        "ls ~+",
        "ls $'a'",
        "ls $\"a\"",
        "ls @(a|b)",
        // A subscript-looking word is refused by the scanner.
        "ls a[0]",
    ] {
        let a = sandboxed(command);
        assert!(!a.safe_parse, "{command}");
        assert!(!a.read_only, "{command}");
    }
    assert!(sandboxed("ls ~").read_only);
}
