//! BASH-1, BASH-4: a write, exec or network primitive hidden inside
//! otherwise read-only text (pipelines, lists, comments, line
//! continuations, every Bash quoting of its words, the quoting tricks that
//! desynchronise parsers) is never judged read-only, neither strictly nor
//! for a sandboxed run: the analysis must not rely on the sandbox for a
//! known write form.

use proptest::prelude::*;
use zcode::permission::bash::{AnalyzeOptions, analyze, analyze_with};

/// A piece of a primitive: a word (quoted in any equivalent way) or raw
/// shell text (an operator) kept as is.
#[derive(Clone, Copy, Debug)]
enum Piece {
    W(&'static str),
    Raw(&'static str),
}
use Piece::{Raw, W};

const PRIMITIVES: &[&[Piece]] = &[
    // Redirections to a file.
    &[W("echo"), W("x"), Raw(">"), W("out")],
    &[W("cat"), W("a"), Raw(">>"), W("out")],
    &[W("ls"), Raw("2>"), W("out")],
    &[W("ls"), Raw("&>"), W("out")],
    &[W("ls"), Raw("&>>"), W("out")],
    &[W("ls"), Raw(">|"), W("out")],
    &[W("ls"), Raw("<>"), W("out")],
    &[W("ls"), Raw(">&"), W("out")],
    &[Raw(">"), W("out"), W("ls")],
    &[W("ls"), Raw(">"), W("/dev/null2")],
    // Writes, deletions, programs that run programs, the network.
    &[W("rm"), W("-rf"), W("x")],
    &[W("tee"), W("out")],
    &[W("touch"), W("out")],
    &[W("mkdir"), W("d")],
    &[W("curl"), W("http://x")],
    &[W("wget"), W("http://x")],
    &[W("sh"), W("-c"), W("id")],
    &[W("bash"), W("-c"), W("id")],
    &[W("env"), W("rm"), W("x")],
    &[W("xargs"), W("rm")],
    &[W("time"), W("rm"), W("x")],
    &[W("awk"), W("BEGIN{system(\"id\")}")],
    // Read-only programs turned into writers or runners by an argument.
    &[W("sed"), W("-n"), W("w out"), W("f")],
    &[W("sed"), W("-n"), W("s/a/b/w out"), W("f")],
    &[W("sed"), W("-n"), W("1e id"), W("f")],
    &[W("sed"), W("-n"), W(":a e id"), W("f")],
    &[W("sed"), W("-n"), W("/[/]/e id"), W("f")],
    &[W("sed"), W("-n"), W("p;W out"), W("f")],
    &[W("sed"), W("-ni"), W("p"), W("f")],
    &[W("sed"), W("-n"), W("--in-place"), W("p"), W("f")],
    &[W("sed"), W("--s"), W("p"), W("f")],
    &[W("sed"), W("-n"), W("-f"), W("s.sed")],
    &[W("find"), W("."), W("-exec"), W("id"), W(";")],
    &[W("find"), W("."), W("-delete")],
    &[W("find"), W("."), W("-fprint"), W("out")],
    &[W("git"), W("-c"), W("core.pager=id"), W("log")],
    &[W("git"), W("config"), W("alias.x"), W("!id")],
    &[W("date"), W("-s"), W("1")],
    &[W("sort"), W("-o"), W("out"), W("in")],
    &[W("sort"), W("--output=out"), W("in")],
    &[W("tree"), W("-o"), W("out")],
    &[W("uniq"), W("in"), W("out")],
    &[W("file"), W("-C"), W("-m"), W("x")],
    &[W("rg"), W("--pre"), W("id"), W("x")],
    &[W("tail"), W("-f"), W("log")],
];

/// Read-only neighbours.
const NEIGHBOURS: &[&str] = &[
    "ls",
    "ls -la src",
    "cat README.md",
    "git status",
    "echo hi",
    "grep -n x f",
    "sed -n p f",
    "wc -l f",
    "echo \"a'b\"",
    "echo 'a\"b'",
];

/// What separates the primitive from a neighbour.
const SEPARATORS: &[&str] = &[
    " && ", " ; ", ";", " | ", " || ", "\n", " & ", " |& ", " &&\\\n ", " ;\\\n", "\n\n",
];

/// Ways to place the primitive `P` around its neighbour `N`.
const FRAMES: &[&str] = &[
    "P",
    "N{S}P",
    "P{S}N",
    "N{S}P{S}N",
    "# comment\nP",
    "N # comment\nP",
    "P # comment",
    "P 2>/dev/null",
    "P </dev/null",
    "  P  ",
    "N{S}P 2>&1{S}N",
    // brush-parser reads the next three as one quoted `echo` argument.
    "echo \\$'\\' ; P ; echo '\\'",
    "echo \\$'\\'{S}P{S}echo '\\'",
    "echo a\\$'x\\' ; P ; echo '\\'",
];

/// One word, quoted in one of several ways Bash reads as the same word.
fn encode(word: &str, style: u8) -> String {
    let plain_ok = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c));
    match style % 7 {
        0 if plain_ok => word.to_string(),
        0 | 1 if !word.contains('\'') => format!("'{word}'"),
        0..=2 => {
            let mut out = String::from("\"");
            for c in word.chars() {
                if matches!(c, '"' | '\\' | '$' | '`') {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
            out
        }
        3 => word.chars().map(|c| format!("\\{c}")).collect::<String>(),
        4 => {
            // `r''m`: an empty quoted string inside the word.
            let mut chars = word.chars();
            let first = chars.next().map(String::from).unwrap_or_default();
            format!("{}''{}", encode(&first, 3), encode(chars.as_str(), 1))
        }
        5 => {
            // A line continuation inside the word.
            let mut chars = word.chars();
            let first = chars.next().map(String::from).unwrap_or_default();
            format!("{}\\\n{}", encode(&first, 3), encode(chars.as_str(), 1))
        }
        _ => {
            let mut chars = word.chars();
            let first = chars.next().map(String::from).unwrap_or_default();
            // An escaped first character glued to a double-quoted rest.
            format!("{}{}", encode(&first, 3), encode(chars.as_str(), 2))
        }
    }
}

fn primitive_text(pieces: &[Piece], styles: &[u8]) -> String {
    let mut out = String::new();
    let mut glue = false;
    for (i, piece) in pieces.iter().enumerate() {
        match piece {
            Raw(op) => {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(op);
                glue = true;
            }
            W(word) => {
                if !glue && !out.is_empty() {
                    out.push(' ');
                }
                // `'' `-style empty pieces cannot occur: every word is
                // non-empty.
                out.push_str(&encode(word, styles.get(i).copied().unwrap_or(0)));
                glue = false;
            }
        }
    }
    out
}

fn command() -> impl Strategy<Value = String> {
    (
        0..PRIMITIVES.len(),
        prop::collection::vec(0u8..7, 6),
        0..FRAMES.len(),
        0..NEIGHBOURS.len(),
        0..SEPARATORS.len(),
    )
        .prop_map(|(p, styles, f, n, s)| {
            let primitive = primitive_text(PRIMITIVES[p], &styles);
            FRAMES[f]
                .replace("{S}", SEPARATORS[s])
                .replace('N', NEIGHBOURS[n])
                .replacen('P', &primitive, 1)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn bash4_hidden_primitive_is_never_read_only(cmd in command()) {
        let strict = analyze(&cmd);
        prop_assert!(!strict.read_only, "strict: {:?} {:?}", cmd, strict.subcommands);
        let sandboxed = analyze_with(&cmd, AnalyzeOptions { sandboxed: true });
        prop_assert!(!sandboxed.read_only, "sandboxed: {:?} {:?}", cmd, sandboxed.subcommands);
    }
}

#[test]
fn bash4_every_primitive_and_quoting_is_not_read_only() {
    // Exhaustive over primitives and quoting styles, one frame each.
    for (p, pieces) in PRIMITIVES.iter().enumerate() {
        for style in 0u8..7 {
            let styles = vec![style; pieces.len()];
            let primitive = primitive_text(pieces, &styles);
            let frame = FRAMES[p % FRAMES.len()]
                .replace("{S}", " && ")
                .replace('N', "ls");
            let cmd = frame.replacen('P', &primitive, 1);
            assert!(!analyze(&cmd).read_only, "{cmd:?}");
            assert!(
                !analyze_with(&cmd, AnalyzeOptions { sandboxed: true }).read_only,
                "{cmd:?}"
            );
        }
    }
}

#[test]
fn bash4_encoding_keeps_read_only_commands_read_only() {
    // The generator's quoting must not itself make a command unsafe: the
    // same encodings of a read-only command stay read-only, so the property
    // above tests the primitive, not the quoting.
    let pieces: &[Piece] = &[W("grep"), W("-n"), W("a b"), W("src/lib.rs")];
    for style in 0u8..7 {
        let cmd = primitive_text(pieces, &[style; 4]);
        let a = analyze(&cmd);
        assert!(a.read_only, "{cmd:?} {:?}", a.subcommands);
        assert_eq!(a.subcommands[0].words, ["grep", "-n", "a b", "src/lib.rs"]);
    }
}
