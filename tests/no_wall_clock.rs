//! No test races the clock. A test that compares elapsed wall time, or
//! sleeps so that something has happened by the time it looks, passes or
//! fails with the machine's load. Tests wait on explicit signals, run
//! timers on tokio's paused clock, or poll through `support::wait`, where
//! a limit only bounds a failure.
//!
//! This reads the text of every test (tests/ and the test modules in src/)
//! and fails on a new elapsed-time measure, deadline arithmetic or sleep.
//! The few places that need one are listed below, each with its reason.

use std::path::{Path, PathBuf};

/// What reads the clock twice and compares, or sleeps. Matched against a
/// line with its comment and all white space removed.
const PATTERNS: &[&str] = &[
    "elapsed()",
    "duration_since(",
    "Instant::now()<",
    "Instant::now()>",
    "Instant::now()+",
    "Instant::now()-",
    "<Instant::now()",
    ">Instant::now()",
    "<=Instant::now()",
    ">=Instant::now()",
    "-Instant::now()",
    "thread::sleep",
    "time::sleep",
    "sleep_until",
];

/// (file, text on the line with white space removed or "" for the whole
/// file, why it is not a race).
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "tests/no_wall_clock.rs",
        "",
        "this scan: the patterns and its own examples",
    ),
    (
        "tests/support/wait.rs",
        "",
        "the one polling function: the pause is between looks at a condition, \
         the limit only bounds a failure",
    ),
    (
        "tests/support/pty.rs",
        "",
        "waits on the screen's condition variable, bounded; shared with the \
         benchmarks, which have no tokio runtime (the pause polls the child's exit)",
    ),
    (
        "tests/support/fake_model_server.rs",
        "letsleep=tokio::time::sleep(d);",
        "a scripted reply's pause, which the client under test sees; tests \
         that use it wait on what the client does, not on the pause",
    ),
    (
        "tests/support/stream_server.rs",
        "std::thread::sleep(gap);",
        "the scripted stream's pace between deltas",
    ),
    (
        "tests/support/stream_e2e.rs",
        "",
        "figures for benches/tui_stream_e2e.rs (a CPU share needs a quiet \
         period to be measured over); tests print them, never assert on them",
    ),
    (
        "tests/tui_flow.rs",
        "m.elapsed()",
        "the model's turn clock, moved only by the Tick messages the test sends",
    ),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Rust files under `dir`, without installed packages or fixtures.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !matches!(
                name.as_ref(),
                "node_modules" | ".venv" | "target" | "fixtures"
            ) {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The lines of `text` that are test code: all of a file in tests/ or a
/// test module's own file, else from the `#[cfg(test)] mod` on.
fn test_lines(text: &str, whole: bool) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let start = if whole {
        0
    } else {
        let module = (0..lines.len()).find(|&i| {
            lines[i].trim() == "#[cfg(test)]"
                && lines[i + 1..]
                    .iter()
                    .find(|l| !l.trim().is_empty())
                    .is_some_and(|l| l.trim_start().starts_with("mod "))
        });
        let Some(module) = module else {
            return Vec::new();
        };
        module
    };
    lines
        .into_iter()
        .enumerate()
        .skip(start)
        .map(|(i, l)| (i + 1, l))
        .collect()
}

fn compact(line: &str) -> String {
    let code = line.split("//").next().unwrap_or("");
    code.split_whitespace().collect()
}

fn allowed(file: &str, line: &str) -> bool {
    ALLOWED
        .iter()
        .any(|(f, snippet, _)| *f == file && (snippet.is_empty() || line.contains(snippet)))
}

/// Every finding in the checkout, as `file:line: text`.
fn findings() -> Vec<String> {
    let root = root();
    let mut files = Vec::new();
    rust_files(&root.join("tests"), &mut files);
    rust_files(&root.join("src"), &mut files);
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let whole = rel.starts_with("tests/") || name == "tests.rs" || name.ends_with("_tests.rs");
        for (number, line) in test_lines(&text, whole) {
            let code = compact(line);
            if PATTERNS.iter().any(|p| code.contains(p)) && !allowed(&rel, &code) {
                out.push(format!("{rel}:{number}: {}", line.trim()));
            }
        }
    }
    out
}

#[test]
fn no_wall_clock_assertions_in_tests() {
    let found = findings();
    assert!(
        found.is_empty(),
        "tests that time themselves or sleep to synchronise (wait on a signal, \
         use the paused clock, or support::wait):\n{}",
        found.join("\n")
    );
}

#[test]
fn no_wall_clock_the_scan_sees_what_it_forbids() {
    let code = |line: &str| PATTERNS.iter().any(|p| compact(line).contains(p));
    for bad in [
        "    assert!(started.elapsed() < Duration::from_secs(5));",
        "let deadline = Instant::now() + Duration::from_secs(3);",
        "        assert!(std::time::Instant::now() < deadline);",
        "std::thread::sleep(Duration::from_millis(300));",
        "tokio::time::sleep(Duration::from_millis(50)).await;",
        "let waited = now.duration_since(t0);",
    ] {
        assert!(code(bad), "{bad}");
    }
    for fine in [
        "update(&mut m, Msg::Tick(Instant::now()));",
        "// a comment may say started.elapsed()",
        "let sleep = json!({\"command\": \"sleep 3600\"});",
    ] {
        assert!(!code(fine), "{fine}");
    }
    // A test module is found in a source file; code before it is not.
    let src = "fn f() { let t = Instant::now(); t.elapsed(); }\n#[cfg(test)]\nmod tests {\n    fn g() { std::thread::sleep(d); }\n}\n";
    let lines = test_lines(src, false);
    assert_eq!(lines.first().map(|(n, _)| *n), Some(2));
    // Each allowance names a file that exists.
    for (file, _, why) in ALLOWED {
        assert!(root().join(file).is_file(), "{file} ({why})");
    }
}
