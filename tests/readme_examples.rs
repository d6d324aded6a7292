//! Every shell example of README.md runs as written. The README is read
//! when the test runs (others add to it), its `sh` code blocks are split
//! into commands, and each command that starts with `zcode` runs through
//! `sh -c`, in order, against the built binary with a scratch `ZCODE_HOME`
//! and a scratch project and no model variables (so `-p` runs on the
//! offline demo provider). Each must exit 0; a trailing `# denies`,
//! `# asks` or `# allows` must also be the decision printed. A command is
//! skipped only for one of the reasons in `skip_reason`.

mod support;

use std::path::{Path, PathBuf};
use support::headless::{Harness, RUN_TIMEOUT, Run};

/// One command of a code block, with the README line it starts on.
#[derive(Debug, Clone)]
struct Example {
    line: usize,
    command: String,
    /// The block exports model variables: its commands are meant for a
    /// real model.
    needs_model: bool,
}

/// The commands of the README's shell code blocks. In a block that shows
/// a prompt (`$ `), only the prompted lines are commands; the rest is
/// their output. A line ending in `\` goes on on the next.
fn examples(readme: &str) -> Vec<Example> {
    enum Block {
        Outside,
        Shell(Vec<(usize, String)>),
        Other,
    }
    let mut out = Vec::new();
    let mut block = Block::Outside;
    for (index, raw) in readme.lines().enumerate() {
        let trimmed = raw.trim();
        if let Some(language) = trimmed.strip_prefix("```") {
            block = match block {
                Block::Outside if SHELLS.contains(&language.trim()) => Block::Shell(Vec::new()),
                Block::Outside => Block::Other,
                Block::Shell(lines) => {
                    out.extend(block_commands(&lines));
                    Block::Outside
                }
                Block::Other => Block::Outside,
            };
            continue;
        }
        if let Block::Shell(lines) = &mut block {
            lines.push((index + 1, trimmed.to_string()));
        }
    }
    out
}

/// The languages of shell code blocks.
const SHELLS: [&str; 4] = ["sh", "bash", "shell", "console"];

fn block_commands(lines: &[(usize, String)]) -> Vec<Example> {
    let prompted = lines.iter().any(|(_, l)| l.starts_with("$ "));
    let needs_model = lines
        .iter()
        .any(|(_, l)| l.starts_with("export OPENAI_") || l.starts_with("export ANTHROPIC_"));
    let mut out: Vec<Example> = Vec::new();
    let mut pending: Option<Example> = None;
    for (line, text) in lines {
        if let Some(mut example) = pending.take() {
            let (text, more) = continued(text);
            example.command.push(' ');
            example.command.push_str(text);
            if more {
                pending = Some(example);
            } else {
                out.push(example);
            }
            continue;
        }
        let command = if prompted {
            match text.strip_prefix("$ ") {
                Some(c) => c,
                None => continue,
            }
        } else {
            text.as_str()
        };
        if command.is_empty() || command.starts_with('#') {
            continue;
        }
        let (command, more) = continued(command);
        let example = Example {
            line: *line,
            command: command.to_string(),
            needs_model,
        };
        if more {
            pending = Some(example);
        } else {
            out.push(example);
        }
    }
    out.extend(pending);
    out
}

/// A line without its continuation backslash, and whether it had one.
fn continued(text: &str) -> (&str, bool) {
    match text.strip_suffix('\\') {
        Some(head) => (head.trim_end(), true),
        None => (text, false),
    }
}

/// The command's words and its comment, read as sh reads them (quotes,
/// `#` at the start of a word); `|`, `<` and `;` are words of their own.
fn words(command: &str) -> (Vec<String>, Option<String>) {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '\'' | '"' => {
                in_word = true;
                for (_, q) in chars.by_ref() {
                    if q == c {
                        break;
                    }
                    word.push(q);
                }
            }
            '#' if !in_word => return (words, Some(command[at + 1..].trim().to_string())),
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '|' | '<' | ';' | '>' | '&' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
                words.push(c.to_string());
            }
            _ => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    (words, None)
}

/// Why an example is not run, or `None` to run it.
fn skip_reason(example: &Example, words: &[String]) -> Option<String> {
    if words.iter().any(|w| w.starts_with('[') || w.contains('…')) {
        return Some("a synopsis, not a command".into());
    }
    if example.needs_model {
        return Some("meant for a real model (its block sets one up)".into());
    }
    let zcode_args: Vec<&str> = words
        .iter()
        .skip(1)
        .take_while(|w| !["|", ";", "&", "<", ">"].contains(&w.as_str()))
        .map(String::as_str)
        .collect();
    if zcode_args.first() == Some(&"sandbox") {
        return Some("needs the kernel sandbox (tests/sandbox_cli.rs runs it)".into());
    }
    let headless = zcode_args
        .iter()
        .any(|a| ["-p", "--print", "--prompt"].contains(a) || a.starts_with("--prompt="));
    let subcommand = zcode_args.iter().any(|a| {
        [
            "models",
            "sessions",
            "permission",
            "mcp",
            "acp",
            "tui",
            "sandbox",
        ]
        .contains(a)
    });
    if !headless && !subcommand {
        return Some("opens the terminal UI (tests/tui_pty.rs drives it)".into());
    }
    if zcode_args.first() == Some(&"acp") {
        return Some("serves an editor on stdin until it closes".into());
    }
    // A program the example pipes into must be installed.
    for stage in words.split(|w| w == "|").skip(1) {
        if let Some(program) = stage.first()
            && program != "zcode"
            && !on_path(program)
        {
            return Some(format!("needs {program}, not installed"));
        }
    }
    None
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// Files the example reads (`< file`, `cat file`), made in the project so
/// the shell can open them.
fn make_inputs(project: &Path, words: &[String]) {
    for pair in words.windows(2) {
        if (pair[0] == "<" || pair[0] == "cat") && !pair[1].starts_with('-') {
            let path = project.join(&pair[1]);
            if !path.exists() && path.starts_with(project) {
                std::fs::write(&path, "list the files here\n").expect("an input file");
            }
        }
    }
}

/// The decision a `# denies` / `# asks` / `# allows` comment promises.
fn promised_behavior(comment: Option<&str>) -> Option<&'static str> {
    let first = comment?.split_whitespace().next()?;
    match first {
        "denies" => Some("deny"),
        "asks" => Some("ask"),
        "allows" => Some("allow"),
        _ => None,
    }
}

async fn run_example(h: &Harness, bin_dir: &Path, example: &Example) -> Run {
    let path = std::env::join_paths(
        std::iter::once(bin_dir.to_path_buf()).chain(
            std::env::var_os("PATH")
                .map(|p| std::env::split_paths(&p).collect::<Vec<PathBuf>>())
                .unwrap_or_default(),
        ),
    )
    .expect("a PATH");
    let mut cmd = h.process("sh");
    cmd.arg("-c").arg(&example.command).env("PATH", path);
    let out = tokio::time::timeout(RUN_TIMEOUT, cmd.output())
        .await
        .unwrap_or_else(|_| panic!("README line {} did not finish", example.line))
        .expect("sh runs");
    Run::from(out)
}

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    std::fs::read_to_string(&path).expect("README.md")
}

#[tokio::test(flavor = "multi_thread")]
async fn readme_examples_run_as_written() {
    let readme = readme();
    let bin = Path::new(env!("CARGO_BIN_EXE_zcode"));
    let bin_dir = bin.parent().expect("the binary's directory");
    let h = Harness::new();
    let mut ran = 0;
    let mut skipped = Vec::new();
    let mut failures = Vec::new();
    for example in examples(&readme) {
        let (words, comment) = words(&example.command);
        if words.first().map(String::as_str) != Some("zcode") {
            continue;
        }
        if let Some(reason) = skip_reason(&example, &words) {
            skipped.push(format!(
                "line {}: {} ({reason})",
                example.line, example.command
            ));
            continue;
        }
        make_inputs(h.project(), &words);
        let run = run_example(&h, bin_dir, &example).await;
        ran += 1;
        if run.code != Some(0) {
            failures.push(format!("line {}: {}\n{run}", example.line, example.command));
            continue;
        }
        if let Some(want) = promised_behavior(comment.as_deref()) {
            let got = serde_json::from_str::<serde_json::Value>(&run.stdout)
                .ok()
                .and_then(|v| v["behavior"].as_str().map(str::to_string));
            if got.as_deref() != Some(want) {
                failures.push(format!(
                    "line {}: {}\npromised {want}, printed {got:?}\n{run}",
                    example.line, example.command
                ));
            }
        }
    }
    eprintln!(
        "{ran} README examples ran; skipped:\n  {}",
        skipped.join("\n  ")
    );
    assert!(
        failures.is_empty(),
        "README examples that fail:\n{}",
        failures.join("\n\n")
    );
    // The extraction itself must keep finding the examples.
    assert!(
        ran >= 10,
        "only {ran} README examples ran; skipped: {skipped:#?}"
    );
}

#[test]
fn readme_extraction_reads_blocks_prompts_comments_and_continuations() {
    let text = "intro\n```sh\nzcode -p \"a # b\" --mode plan   # plans\necho x | zcode -p\n```\n\
                ```json\n{\"zcode\": 1}\n```\n```sh\n$ zcode models \\\n  --help\nzcode: output\n```\n";
    let found: Vec<String> = examples(text).into_iter().map(|e| e.command).collect();
    assert_eq!(
        found,
        [
            "zcode -p \"a # b\" --mode plan   # plans",
            "echo x | zcode -p",
            "zcode models --help",
        ]
    );
    let (w, comment) = words("zcode -p \"a # b\" --mode plan   # plans");
    assert_eq!(w, ["zcode", "-p", "a # b", "--mode", "plan"]);
    assert_eq!(comment.as_deref(), Some("plans"));
}

#[test]
fn readme_names_the_minimum_rust_version_of_cargo_toml() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .expect("Cargo.toml");
    let version = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("rust-version"))
        .and_then(|rest| rest.split('"').nth(1))
        .expect("rust-version in Cargo.toml");
    let readme = readme();
    assert!(
        readme.contains(&format!("Rust toolchain ({version} or newer)")),
        "README.md must name Rust {version}, the crate's rust-version"
    );
}
