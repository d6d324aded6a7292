//! The allow-list judged per program and mode (BASH-4): options read as the
//! programs read them, and the sandboxed widening.

use super::is_read_only;
use crate::permission::bash::{AnalyzeOptions, analyze_with};

const STRICT: AnalyzeOptions = AnalyzeOptions { sandboxed: false };
const SANDBOXED: AnalyzeOptions = AnalyzeOptions { sandboxed: true };

/// One simple command split on blanks; a word with `*`, `?` or `$` stands
/// for a word the shell expands (as the parser marks it in sandboxed mode).
fn judge(command: &str, options: AnalyzeOptions) -> bool {
    let words: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    let dynamic: Vec<bool> = words.iter().map(|w| w.contains(['*', '?', '$'])).collect();
    is_read_only(&words, &dynamic, options)
}

/// The whole command line through the parser.
fn line(command: &str, options: AnalyzeOptions) -> bool {
    analyze_with(command, options).read_only
}

#[track_caller]
fn assert_both(commands: &[&str], strict: bool, sandboxed: bool) {
    for command in commands {
        assert_eq!(judge(command, STRICT), strict, "strict: {command}");
        assert_eq!(judge(command, SANDBOXED), sandboxed, "sandboxed: {command}");
    }
}

#[test]
fn bash4_dynamic_flags_must_cover_every_word() {
    let words: Vec<String> = ["ls", "x"].iter().map(|w| w.to_string()).collect();
    assert!(is_read_only(&words, &[false, false], STRICT));
    assert!(!is_read_only(&words, &[false], SANDBOXED));
    assert!(!is_read_only(&words, &[], STRICT));
    assert!(!is_read_only(&[], &[], SANDBOXED));
}

#[test]
fn bash4_getopt_date_optional_argument_and_operands() {
    assert_both(
        &[
            // `-I` takes an attached optional argument: `d` is its argument
            // and the operand is a date to set.
            "date -Id 010100002099",
            "date -I 010100002099",
            "date --iso-8601=d 010100002099",
            "date --iso 010100002099",
            "date 010100002099",
            "date -u 010100002099",
            "date 010100002099 -u",
            "date -u -- 010100002099",
            "date -s now",
            "date -us now",
            "date -uRs now",
            "date --set=now",
            "date --set now",
            "date --se=now",
            "date --s now",
            // Ambiguous (`rfc-email` and `rfc-3339` differ), unknown, missing.
            "date --rfc",
            "date --frob",
            "date -x",
            "date -d",
            "date now",
        ],
        false,
        false,
    );
    assert_both(
        &[
            "date",
            "date -I",
            "date -Id",
            "date -Iseconds",
            "date --iso-8601",
            "date --iso-8601=ns",
            "date -u +%s",
            "date +%Y-%m-%d",
            "date -d yesterday +%F",
            "date -d -1day",
            "date -dnow",
            "date --date=@0 -u",
            // `--u` abbreviates `uct`, `utc`, `universal`: aliases of `-u`.
            "date --u",
            "date --rfc-e",
            "date --rfc-3339=ns",
            "date -R",
            "date -r Cargo.toml",
            "date --debug -d now",
            "date -f dates.txt",
            "date +%s -u",
        ],
        true,
        true,
    );
    assert!(!line("date -Id 010100002099", STRICT));
    assert!(!line("date -Id 010100002099", SANDBOXED));
}

#[test]
fn bash4_getopt_sort_output_and_compress_program() {
    assert_both(
        &[
            "sort -o out in",
            "sort -oout in",
            "sort -ro out in",
            "sort -rno out in",
            "sort in -o out",
            "sort --output=out in",
            "sort --output out in",
            "sort --outp=out in",
            "sort --o=out in",
            "sort --compress-program=sh in",
            "sort --compress=sh in",
            "sort --comp sh in",
            // Ambiguous: `check` and `compress-program`.
            "sort --c in",
            "sort -k",
            "sort --frob in",
        ],
        false,
        false,
    );
    assert_both(
        &[
            "sort f",
            "sort -rn counts.txt",
            "sort -k2,2 -t: f",
            "sort -k 2 -t , f",
            "sort -u -S 1M f",
            "sort --check f",
            "sort --check=quiet f",
            "sort --che f",
            "sort --debug f",
            "sort -T /tmp f",
            // After `--` an option-looking word is a file to read.
            "sort -- -o",
            "sort -k 1 -- -o f",
        ],
        true,
        true,
    );
}

#[test]
fn bash4_getopt_uniq_second_operand_is_output() {
    assert_both(
        &[
            "uniq a b",
            "uniq -c in out",
            "uniq in -c out",
            "uniq in out -c",
            // With POSIXLY_CORRECT, `-c` after the input is the output file.
            "uniq in -c",
            "uniq -- in out",
            "uniq -- -c out",
            // `+5` may be read as a file: counted as one.
            "uniq +5 f",
            "uniq -f",
            "uniq --frob f",
        ],
        false,
        false,
    );
    assert_both(
        &[
            "uniq",
            "uniq -c words.txt",
            "uniq -f 1 words.txt",
            "uniq -f1 words.txt",
            "uniq -cf 1 words.txt",
            "uniq --skip-fields 1 f",
            "uniq --skip-f=1 f",
            "uniq -s 3 -w 5 f",
            "uniq -D f",
            "uniq --all-repeated=separate f",
            "uniq --all-rep f",
            "uniq --group f",
            "uniq --group=both f",
            "uniq -2 f",
            "uniq -- -c",
            "uniq -",
        ],
        true,
        true,
    );
}

#[test]
fn bash4_getopt_tail_follow_in_every_spelling() {
    assert_both(
        &[
            "tail -f log",
            "tail -F log",
            "tail -qf log",
            "tail -n5 -f log",
            "tail -n 5 -f log",
            "tail log -f",
            "tail --follow log",
            "tail --follow=name log",
            "tail --fo log",
            "tail --f=descriptor log",
            // The obsolete first-argument forms.
            "tail -5f log",
            "tail +5f log",
            "tail -f",
            "tail -cf log",
            "tail -lf log",
            "tail -bf log",
            "tail -n",
            "tail --frob log",
        ],
        false,
        false,
    );
    assert_both(
        &[
            "tail log",
            "tail -n 50 log.txt",
            "tail -n50 log",
            "tail -n +5 log",
            "tail -5 log",
            "tail +5 log",
            "tail -c 100 log",
            "tail -c100 log",
            "tail --lines=5 log",
            "tail --li 5 log",
            "tail --retry log",
            "tail --pid=1 log",
            "tail -q a b",
            "tail -- -f",
            "tail -n 5 -- -f",
        ],
        true,
        true,
    );
}

#[test]
fn bash4_getopt_file_compile_and_preserve_date() {
    assert_both(
        &[
            "file -C -m magic",
            "file -Cm magic",
            "file --compile",
            "file --comp -m magic",
            "file -p x",
            "file -bp x",
            "file --preserve x",
            "file -z x.gz",
            "file -bZ x.gz",
            "file --uncompress x",
            "file -S x",
            "file x -C",
            "file --frob x",
            // Ambiguous: `mime`, `mime-type`, `mime-encoding` differ.
            "file --mim x",
        ],
        false,
        false,
    );
    assert_both(
        &[
            "file x",
            "file target/debug/zcode",
            "file -b x",
            "file -bi x",
            "file -m magic x",
            "file -mmagic x",
            "file --magic-file=magic x",
            "file --mime x",
            "file --mime-t x",
            "file --mime-e x",
            "file -L -k x",
            "file -f list",
            "file -- -C",
        ],
        true,
        true,
    );
}

#[test]
fn bash4_getopt_diff_tree_rg_find() {
    assert_both(
        &[
            "diff -l a b",
            "diff -ul a b",
            "diff --paginate a b",
            "diff --pag a b",
            "diff --output=o a b",
            "tree -o out",
            "tree -Lo 2 out",
            "tree -R",
            "tree --output=x",
            "rg --pre cat x",
            "rg --pre=cat x",
            "rg -iz x",
            "rg --search-zip x",
            "rg --hostname-bin=x y",
            "find . -delete",
            "find . -exec rm {} ;",
            "find . -maxdepth 1 -delete",
            "find . -frobnicate",
        ],
        false,
        false,
    );
    assert_both(
        &[
            "diff -u a b",
            "diff -r a b",
            "diff --color=never a b",
            "tree -L 2 src",
            "tree -a -I target",
            "rg -n todo src",
            "rg --pretty x",
            "find . -name -delete",
            "find -L src -type f -newermt 2020-01-01 -print0",
        ],
        true,
        true,
    );
}

#[test]
fn bash4_sandboxed_globs_and_variables_for_programs_without_writing_options() {
    assert_both(
        &[
            "ls *.rs",
            "wc -l src/*.rs",
            "du -sh *",
            "ls -d */",
            "echo $PATH",
            "cat src/*.rs",
            "grep -n TODO src/*.rs",
            "head -n 5 $FILE",
            "sha256sum *.tar.gz",
            "jq . $CONFIG",
            "printenv $NAME",
            "test -f \"$X\"",
            "[ -d \"$DIR\" ]",
            "cd $HOME",
            "type -a $PROG",
            "command -v $PROG",
        ],
        false,
        true,
    );
}

#[test]
fn bash4_sandboxed_expanded_words_stay_refused_where_a_value_could_write_or_run() {
    assert_both(
        &[
            // The program itself expanded.
            "$EDITOR x",
            "$X",
            "*.sh",
            // Programs with writing or running options or operands.
            "sort $X f",
            "sort -o $OUT f",
            "tail -n $N f",
            "uniq $IN",
            "date $X",
            "file $F",
            "diff $A $B",
            "find . -name *.rs",
            "find $DIR",
            "sed -n $X f",
            "rg $PATTERN",
            "tree $DIR",
            "xxd $F",
            "hostname $X",
            "printf $FMT",
            "env $X",
            "git log $REF",
            "cargo tree $X",
            "npm ls $PKG",
            // An empty `$X` ahead of `-v` would run `ls`.
            "command $X -v ls",
            "rm *.rs",
            "cp $A $B",
        ],
        false,
        false,
    );
}

#[test]
fn bash4_sandboxed_list_read_only_in_both_modes() {
    assert_both(
        &[
            "printenv HOME",
            "printenv",
            "env",
            "jq . package.json",
            "jq -r .name package.json",
            "jq -n --arg x 1 .",
            "ps aux",
            "ps -ef",
            "id",
            "id -un",
            "hostname",
            "hostname -f",
            "readlink -f x",
            "sha256sum f",
            "sha256sum -c SHA256SUMS",
            "md5sum f",
            "sha1sum f",
            "sha512sum f",
            "b2sum f",
            "cksum f",
            "xxd f",
            "xxd -l 64 f",
            "nl f",
            "tac f",
            "column -t f",
            "comm a b",
            "comm -12 a b",
        ],
        true,
        true,
    );
    assert!(line("env | grep PATH", STRICT));
    assert!(line("xxd f | head", STRICT));
    assert!(line("xxd f | head", SANDBOXED));
}

#[test]
fn bash4_sandboxed_list_read_only_only_in_the_sandbox() {
    assert_both(
        &[
            "test -f x",
            "[ -d src ]",
            "command -v cargo",
            "command -V cargo",
            "type -a python3",
            "cd src",
            "cd",
            "python3 -m pip --version",
            "cargo tree",
            "cargo metadata --format-version 1",
            "npm ls",
            "pip list",
            "go env GOPATH",
            // A toolchain manager's shim runs the repository's toolchain.
            "rustc -vV",
            "rustc --version",
            "java -version",
            "cargo --version",
            "node -v",
            "docker --version",
        ],
        false,
        true,
    );
    assert!(!line("cd src && ls", STRICT));
    assert!(line("cd src && ls", SANDBOXED));
    assert!(!line("test -f x && echo yes", STRICT));
    assert!(line("test -f x && echo yes", SANDBOXED));
    assert!(line(
        "cargo metadata --format-version 1 | jq .packages",
        SANDBOXED
    ));
}

#[test]
fn bash4_sandboxed_dangerous_forms_stay_refused_in_both_modes() {
    assert_both(
        &[
            "date -s tomorrow",
            "date 123100002030",
            "hostname evil",
            "hostname -F /etc/x",
            "hostname -b",
            "sort -o out in",
            "uniq in out",
            "xxd a b",
            "xxd -r hex bin",
            "xxd f -r",
            "kill -9 1",
            "kill 1",
            "env rm x",
            "env FOO=1 ls",
            "env -i ls",
            "env -u HOME",
            "command ls",
            "command -p ls",
            "command -- -v",
            "pushd src",
            "popd",
            "go env -w GOPATH=x",
            "go env -u GOPATH",
            "pip list --outdated",
            "pip list -o",
            "pip install x",
            "python3 -m pip install x",
            "python3 -m http.server",
            "cargo tree --config x=y",
            "cargo +nightly tree",
            "cargo build",
            "cargo metadata -Zunstable-options",
            "npm ls --script-shell=sh",
            "npm install",
            "tail -f log",
            "file -C -m magic",
            "tree -o out",
            "find . -delete",
            "printf -v x y",
            "jq",
            "rustc -vV main.rs",
            "java -version -jar x.jar",
        ]
        .into_iter()
        .filter(|c| *c != "jq")
        .collect::<Vec<_>>(),
        false,
        false,
    );
    for command in [
        "cd /tmp && rm -rf x",
        "cd x && sort -o out in",
        "cd src; pushd x",
    ] {
        assert!(!line(command, STRICT), "{command}");
        assert!(!line(command, SANDBOXED), "{command}");
    }
}

/// Arithmetic operands: Bash evaluates a `-v`/`-R` subscript, so an
/// operand with `[` (or an expanded word that may become one) is code.
#[test]
fn bash4_test_operands_evaluated_arithmetically_are_not_read_only() {
    for command in [
        "test -v 'a[$(touch x)]'",
        "[ -v 'a[$(touch x)]' ]",
        "[ -v 'a[x]' ]",
        "test -R 'a[0]'",
        "test -f x && [ -v 'a[`id`]' ]",
        "test -v \"$X\"",
        "test $A $B",
        "test -f $X",
        "[ -f * ]",
        "[ \"$A\" \"$B\" ]",
        "test -n \"$@\"",
    ] {
        assert!(!line(command, STRICT), "strict: {command}");
        assert!(!line(command, SANDBOXED), "sandboxed: {command}");
    }
    for command in [
        "[ -f x ]",
        "test -v x",
        "test \"$A\" = \"$B\"",
        "[ 1 -eq 1 ]",
    ] {
        assert!(!line(command, STRICT), "strict: {command}");
        assert!(line(command, SANDBOXED), "sandboxed: {command}");
    }
}

/// Everyday commands: which run unasked in the sandbox, and which without
/// it too (`strict`, `sandboxed`).
#[test]
fn bash4_everyday_commands_in_both_judgments() {
    let table: &[(&str, bool, bool)] = &[
        ("seq 10", true, true),
        ("seq -s , 1 5", true, true),
        ("nproc", true, true),
        ("uptime", true, true),
        ("free -m", true, true),
        ("free -h -t", true, true),
        ("free -s 1", false, false),
        ("od -c file", true, true),
        ("strings target/debug/zcode", true, true),
        ("hexdump -C file", true, true),
        ("sed 's/a/b/' file", true, true),
        ("sed -n 's/a/b/p' file", true, true),
        ("sed -i 's/a/b/' file", false, false),
        ("sed 's/a/b/w out' file", false, false),
        ("sed 'e id' file", false, false),
        ("awk '{print $1}' file", true, true),
        ("awk -F: '{print $1}' /etc/passwd", true, true),
        ("awk 'BEGIN {system(\"id\")}'", false, false),
        ("awk '{print > \"out\"}' file", false, false),
        ("awk '{print | \"sh\"}' file", false, false),
        ("awk '{\"id\" | getline x}' file", false, false),
        ("awk -f prog.awk file", false, false),
        ("awk -i inplace '{print}' file", false, false),
        ("gawk --exec prog.awk", false, false),
        ("ls ~", false, true),
        ("ls ~/src", true, true),
        ("docker --version", false, true),
        ("cargo --version", false, true),
        ("git --version", true, true),
        ("git version", true, true),
        ("git worktree list", true, true),
        ("git worktree list --porcelain", true, true),
        ("git worktree add x", false, false),
        ("git worktree remove x", false, false),
        ("git ls-tree HEAD", true, true),
        ("git ls-tree -r --name-only HEAD src", true, true),
        ("git ls-tree :src", false, true),
        ("git show-ref", true, true),
        ("git show-ref --tags", true, true),
        ("git for-each-ref --format='%(refname)'", true, true),
        ("git for-each-ref --format='%(signature)'", false, true),
        ("git reflog", false, true),
        ("git reflog --no-show-signature", true, true),
        ("git reflog show --oneline --no-show-signature", true, true),
        ("git reflog -p --no-show-signature", false, true),
        ("git reflog expire --all", false, false),
        ("git reflog delete HEAD@{1}", false, false),
        ("git stash show", false, true),
        ("git stash show -p", false, true),
        ("git stash show -p --no-ext-diff --no-textconv", true, true),
        ("git stash list --no-show-signature", true, true),
        ("git diff --text", false, true),
        ("git diff --textconv", false, false),
        ("git diff --no-ext-diff --no-textconv", false, true),
        ("git status", false, true),
        ("git status --short", false, true),
        ("git blame src/main.rs", false, true),
        ("git ls-files", false, true),
        ("git grep -n x", false, true),
        ("git describe --tags", true, true),
        ("git describe --dirty", false, true),
        ("git describe --broken", false, true),
        ("git log --oneline", false, true),
        ("git log --oneline --no-show-signature -n 5", true, true),
        ("git log -p --no-show-signature", false, true),
        ("git log --stat --no-show-signature", false, true),
        ("git log -S foo --no-show-signature", false, true),
        ("git log -G foo --no-show-signature", false, true),
        (
            "git log -p --no-show-signature --no-ext-diff --no-textconv",
            true,
            true,
        ),
        ("git log --show-signature", false, true),
        ("git log --format='%G?' --no-show-signature", false, true),
        ("git show HEAD", false, true),
        (
            "git show --no-show-signature --no-ext-diff --no-textconv HEAD",
            true,
            true,
        ),
        ("git cat-file -p :src/main.rs", false, true),
        ("git cat-file --batch", false, true),
        ("git rev-parse --show-toplevel", true, true),
        ("git rev-parse :README.md", false, true),
        ("git -C sub log --oneline --no-show-signature", false, true),
        ("git -C sub status", false, true),
    ];
    for (command, strict, sandboxed) in table {
        assert_eq!(line(command, STRICT), *strict, "strict: {command}");
        assert_eq!(line(command, SANDBOXED), *sandboxed, "sandboxed: {command}");
    }
}

/// A sandboxed analysis also says which parts are read-only without the
/// sandbox: what an allow rule beside them may run unsandboxed.
#[test]
fn bash4_sandboxed_analysis_marks_the_strictly_read_only_parts() {
    let analysis = analyze_with(
        "cat README.md; ls *; cd src; git status; cargo --version; npm test",
        SANDBOXED,
    );
    let marks: Vec<(bool, bool)> = analysis
        .subcommands
        .iter()
        .map(|s| (s.read_only, s.strict_read_only))
        .collect();
    assert_eq!(
        marks,
        [
            (true, true),
            (true, false),
            (true, false),
            (true, false),
            (true, false),
            (false, false)
        ]
    );
    let strict = analyze_with("cat README.md; npm test", STRICT);
    let marks: Vec<(bool, bool)> = strict
        .subcommands
        .iter()
        .map(|s| (s.read_only, s.strict_read_only))
        .collect();
    assert_eq!(marks, [(true, true), (false, false)]);
}

/// `if` and `for`: the condition and the body are subcommands judged like
/// any other; the loop variable is an expansion (sandbox only) and may not
/// be a variable that steers the shell or its programs.
#[test]
fn bash4_if_and_for_compounds_are_parsed_into_subcommands() {
    let table: &[(&str, bool, bool)] = &[
        ("if [ -f x ]; then cat x; fi", false, true),
        ("if test -f x; then cat x; else echo none; fi", false, true),
        (
            "if grep -q x f; then cat f; elif true; then ls; fi",
            true,
            true,
        ),
        ("for f in src/*.rs; do wc -l \"$f\"; done", false, true),
        ("for f in a b; do echo x; done", true, true),
        ("for f in a b\ndo\n  cat a\ndone", true, true),
        ("for f; do echo x; done", true, true),
        (
            "for f in a; do for g in b; do echo x; done; done",
            true,
            true,
        ),
        ("if true; then ls; fi | wc -l", true, true),
        ("ls && if true; then ls; fi", true, true),
        // Bodies that write or run are not read-only.
        ("for f in *.rs; do rm \"$f\"; done", false, false),
        ("if true; then rm x; fi", false, false),
        ("if [ -v 'a[$(touch x)]' ]; then ls; fi", false, false),
        // Loop variables that steer programs.
        ("for PATH in /tmp/x; do ls; done", false, false),
        ("for IFS in a; do ls; done", false, false),
        ("for http_proxy in x; do ls; done", false, false),
        // Redirections of the compound, other compounds, odd shapes.
        ("if true; then ls; fi > out", false, false),
        ("for f in a; do ls; done 2>x", false, false),
        ("for f in $(ls); do echo x; done", false, false),
        ("for f in a do; do ls; done", false, false),
        ("while true; do ls; done", false, false),
        ("until false; do ls; done", false, false),
        ("case x in x) ls;; esac", false, false),
        ("time if true; then ls; fi", false, false),
        ("! if true; then ls; fi", false, false),
        ("if true; then ls; fi x", false, false),
        ("if true; then ls", false, false),
        ("then ls; fi", false, false),
        ("for f in a; do ls; done; done", false, false),
        ("{ ls; }", false, false),
    ];
    for (command, strict, sandboxed) in table {
        assert_eq!(line(command, STRICT), *strict, "strict: {command:?}");
        assert_eq!(
            line(command, SANDBOXED),
            *sandboxed,
            "sandboxed: {command:?}"
        );
    }
    let nested = "if true; then ".repeat(9) + "ls" + &"; fi".repeat(9);
    assert!(!analyze_with(&nested, SANDBOXED).safe_parse);
    let nested = "if true; then ".repeat(8) + "ls" + &"; fi".repeat(8);
    assert!(line(&nested, SANDBOXED));
    let a = analyze_with("if [ -f x ]; then cat x; fi", SANDBOXED);
    let texts: Vec<&str> = a.subcommands.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, ["[ -f x ]", "cat x"]);
}
