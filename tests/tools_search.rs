//! TOOL-5 Glob and Grep: .gitignore and hidden files, ordering, caps,
//! output modes, context, filters, errors.

use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};
use zcode::tools::{GlobTool, GrepTool, Tool, ToolContext, ToolOutput};

struct Ws {
    _dir: tempfile::TempDir,
    root: PathBuf,
    ctx: ToolContext,
}

fn ws() -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let ctx = ToolContext::new(root.clone(), "search-test");
    Ws {
        _dir: dir,
        root,
        ctx,
    }
}

impl Ws {
    /// Writes a file whose mtime is `age` seconds in the past.
    fn file(&self, rel: &str, content: &str, age: u64) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        let when = SystemTime::now() - Duration::from_secs(age);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(when)
            .unwrap();
        path
    }

    fn p(&self, rel: &str) -> String {
        self.root.join(rel).display().to_string()
    }

    async fn run(&self, tool: &dyn Tool, input: Value) -> ToolOutput {
        let input = tool.validate(input).unwrap();
        tool.run(input, &self.ctx).await
    }
}

/// A small project: sources, docs, an ignored build dir and log, a hidden dir.
fn project() -> Ws {
    let w = ws();
    w.file(".gitignore", "ignored/\n*.log\n", 100);
    w.file(
        "src/main.rs",
        "fn main() {\n    println!(\"Hello\");\n}\n",
        50,
    );
    w.file(
        "src/lib.rs",
        "pub fn hello() -> &'static str {\n    \"hello\"\n}\n",
        10,
    );
    w.file("src/util/deep.rs", "// nothing here\n", 30);
    w.file("README.md", "# Hello project\nSay HELLO.\n", 40);
    w.file("ignored/gen.rs", "fn hello_generated() {}\n", 1);
    w.file("debug.log", "hello from the log\n", 1);
    w.file(".hidden/secret.rs", "fn hello_hidden() {}\n", 1);
    w.file("top.rs", "// top\n", 20);
    w
}

fn lines(out: &ToolOutput) -> Vec<&str> {
    out.content.lines().collect()
}

// ------------------------------------------------------------------- Glob

#[tokio::test]
async fn tool5_glob_respects_gitignore_and_skips_hidden_newest_first() {
    let w = project();
    let out = w.run(&GlobTool, json!({"pattern": "**/*.rs"})).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        lines(&out),
        [
            w.p("src/lib.rs"),
            w.p("top.rs"),
            w.p("src/util/deep.rs"),
            w.p("src/main.rs"),
        ]
    );
}

#[tokio::test]
async fn tool5_glob_star_stays_in_one_directory() {
    let w = project();
    let out = w.run(&GlobTool, json!({"pattern": "*.rs"})).await;
    assert_eq!(lines(&out), [w.p("top.rs")]);
    let out = w.run(&GlobTool, json!({"pattern": "src/*.rs"})).await;
    assert_eq!(lines(&out), [w.p("src/lib.rs"), w.p("src/main.rs")]);
}

#[tokio::test]
async fn tool5_glob_path_and_alternatives() {
    let w = project();
    let out = w
        .run(&GlobTool, json!({"pattern": "**/*.{rs,md}", "path": "src"}))
        .await;
    assert_eq!(
        lines(&out),
        [
            w.p("src/lib.rs"),
            w.p("src/util/deep.rs"),
            w.p("src/main.rs")
        ]
    );
    let absolute = format!("{}/**/deep.rs", w.root.join("src").display());
    let out = w.run(&GlobTool, json!({"pattern": absolute})).await;
    assert_eq!(lines(&out), [w.p("src/util/deep.rs")]);
    let out = w
        .run(
            &GlobTool,
            json!({"pattern": "*.md", "path": w.root.display().to_string()}),
        )
        .await;
    assert_eq!(lines(&out), [w.p("README.md")]);
}

#[tokio::test]
async fn tool5_glob_caps_results_with_a_note() {
    let w = ws();
    for i in 0..120 {
        w.file(&format!("f{i:03}.txt"), "", i);
    }
    let out = w.run(&GlobTool, json!({"pattern": "*.txt"})).await;
    let l = lines(&out);
    assert_eq!(l.len(), 101);
    assert_eq!(l[0], w.p("f000.txt"));
    assert_eq!(l[99], w.p("f099.txt"));
    assert_eq!(
        l[100],
        "(Showing the 100 most recently modified of 120 matching files. Use a more specific pattern or path to see the others.)"
    );
}

#[tokio::test]
async fn tool5_glob_no_match_and_bad_path() {
    let w = project();
    let out = w.run(&GlobTool, json!({"pattern": "**/*.py"})).await;
    assert!(!out.is_error);
    assert_eq!(
        out.content,
        format!(
            "No files found matching \"**/*.py\" in {}.",
            w.root.display()
        )
    );
    let out = w
        .run(&GlobTool, json!({"pattern": "*", "path": "nowhere"}))
        .await;
    assert!(out.is_error);
    assert_eq!(
        out.content,
        format!("Directory does not exist: {}", w.p("nowhere"))
    );
    let out = w
        .run(&GlobTool, json!({"pattern": "*", "path": "top.rs"}))
        .await;
    assert!(out.is_error);
    assert!(
        out.content.contains("is a file, not a directory"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn tool5_glob_honours_gitignore_in_subdirectories() {
    let w = ws();
    w.file("pkg/.gitignore", "dist/\n", 5);
    w.file("pkg/dist/out.js", "", 1);
    w.file("pkg/src/in.js", "", 2);
    let out = w.run(&GlobTool, json!({"pattern": "**/*.js"})).await;
    assert_eq!(lines(&out), [w.p("pkg/src/in.js")]);
}

// ------------------------------------------------------------------- Grep

#[tokio::test]
async fn tool5_grep_lists_files_newest_first_by_default() {
    let w = project();
    let out = w.run(&GrepTool, json!({"pattern": "hello"})).await;
    assert!(!out.is_error, "{}", out.content);
    // Case-sensitive: README has "Hello"/"HELLO" only; ignored, log and hidden
    // files are not searched.
    assert_eq!(lines(&out), ["Found 1 file", &w.p("src/lib.rs")]);

    let out = w
        .run(&GrepTool, json!({"pattern": "hello", "-i": true}))
        .await;
    assert_eq!(
        lines(&out),
        [
            "Found 3 files",
            &w.p("src/lib.rs"),
            &w.p("README.md"),
            &w.p("src/main.rs"),
        ]
    );
}

#[tokio::test]
async fn tool5_grep_content_mode_prints_path_line_text() {
    let w = project();
    let out = w
        .run(
            &GrepTool,
            json!({"pattern": "hel+o", "output_mode": "content", "-i": true, "glob": "*.md"}),
        )
        .await;
    assert_eq!(
        lines(&out),
        [
            format!("{}:1:# Hello project", w.p("README.md")),
            format!("{}:2:Say HELLO.", w.p("README.md")),
        ]
    );
    let out = w
        .run(
            &GrepTool,
            json!({"pattern": "Hello", "output_mode": "content", "-n": false}),
        )
        .await;
    assert_eq!(
        lines(&out),
        [
            format!("{}:# Hello project", w.p("README.md")),
            format!("{}:    println!(\"Hello\");", w.p("src/main.rs")),
        ]
    );
}

#[tokio::test]
async fn tool5_grep_context_lines() {
    let w = ws();
    let text: String = (1..=12).map(|i| format!("line {i}\n")).collect();
    let f = w.file("t.txt", &text, 1).display().to_string();
    let out = w
        .run(
            &GrepTool,
            json!({"pattern": "^line (3|10)$", "output_mode": "content", "-C": 1}),
        )
        .await;
    assert_eq!(
        lines(&out),
        [
            format!("{f}-2-line 2"),
            format!("{f}:3:line 3"),
            format!("{f}-4-line 4"),
            "--".to_string(),
            format!("{f}-9-line 9"),
            format!("{f}:10:line 10"),
            format!("{f}-11-line 11"),
        ]
    );
    let out = w
        .run(
            &GrepTool,
            json!({"pattern": "line 5", "output_mode": "content", "-A": 2, "-B": 0, "-C": 5}),
        )
        .await;
    assert_eq!(
        lines(&out),
        [
            format!("{f}:5:line 5"),
            format!("{f}-6-line 6"),
            format!("{f}-7-line 7"),
        ]
    );
    // Context is for content mode only.
    let out = w
        .run(&GrepTool, json!({"pattern": "line 5", "-C": 3}))
        .await;
    assert_eq!(lines(&out), ["Found 1 file", &f]);
}

#[tokio::test]
async fn tool5_grep_count_mode() {
    let w = project();
    let out = w
        .run(
            &GrepTool,
            json!({"pattern": "hello", "-i": true, "output_mode": "count"}),
        )
        .await;
    assert_eq!(
        lines(&out),
        [
            format!("{}:2", w.p("README.md")),
            format!("{}:2", w.p("src/lib.rs")),
            format!("{}:1", w.p("src/main.rs")),
            String::new(),
            "Found 5 matching lines in 3 files.".to_string(),
        ]
    );
}

#[tokio::test]
async fn tool5_grep_glob_filter_by_name_or_path() {
    let w = project();
    let out = w
        .run(&GrepTool, json!({"pattern": "fn", "glob": "main.*"}))
        .await;
    assert_eq!(lines(&out), ["Found 1 file", &w.p("src/main.rs")]);
    let out = w
        .run(&GrepTool, json!({"pattern": "//", "glob": "src/**/*.rs"}))
        .await;
    assert_eq!(lines(&out), ["Found 1 file", &w.p("src/util/deep.rs")]);
    let out = w
        .run(&GrepTool, json!({"pattern": "//", "glob": "*.{md,txt}"}))
        .await;
    assert!(
        out.content.starts_with("No matches found"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn tool5_grep_respects_gitignore_but_searches_a_named_file() {
    let w = project();
    let out = w
        .run(
            &GrepTool,
            json!({"pattern": "hello_generated|from the log|hello_hidden"}),
        )
        .await;
    assert!(
        out.content.starts_with("No matches found"),
        "{}",
        out.content
    );
    let out = w
        .run(
            &GrepTool,
            json!({"pattern": "from the log", "path": "debug.log"}),
        )
        .await;
    assert_eq!(lines(&out), ["Found 1 file", &w.p("debug.log")]);
}

#[tokio::test]
async fn tool5_grep_head_limit_with_a_note() {
    let w = ws();
    let text: String = (1..=150).map(|i| format!("match {i}\n")).collect();
    let f = w.file("many.txt", &text, 1).display().to_string();
    let out = w
        .run(
            &GrepTool,
            json!({"pattern": "match", "output_mode": "content"}),
        )
        .await;
    let l = lines(&out);
    assert_eq!(l.len(), 101);
    assert_eq!(l[99], format!("{f}:100:match 100"));
    assert_eq!(
        l[100],
        "(Showing the first 100 of 150 lines. Raise head_limit or narrow the search to see more.)"
    );
    let out = w
        .run(
            &GrepTool,
            json!({"pattern": "match", "output_mode": "content", "head_limit": 3}),
        )
        .await;
    assert_eq!(lines(&out).len(), 4);

    for i in 0..5 {
        w.file(&format!("d/f{i}.txt"), "x\n", i);
    }
    let out = w
        .run(
            &GrepTool,
            json!({"pattern": "x", "path": "d", "head_limit": 2}),
        )
        .await;
    assert_eq!(
        lines(&out),
        [
            "Found 5 files",
            &w.p("d/f0.txt"),
            &w.p("d/f1.txt"),
            "(Showing the 2 most recently modified of 5 files. Raise head_limit or narrow the search to see more.)",
        ]
    );
}

#[tokio::test]
async fn tool5_grep_invalid_regex_is_a_clear_error() {
    let w = project();
    let err = GrepTool
        .validate(json!({"pattern": "(unclosed"}))
        .unwrap_err();
    assert!(
        err.starts_with("Invalid input for Grep: invalid regex \"(unclosed\""),
        "{err}"
    );
    // run() re-validates input that skipped validate().
    let out = GrepTool.run(json!({"pattern": "a{2,1}"}), &w.ctx).await;
    assert!(out.is_error);
    assert!(out.content.contains("invalid regex"), "{}", out.content);
}

#[tokio::test]
async fn tool5_grep_skips_binary_files_and_reports_missing_paths() {
    let w = ws();
    let bin = w.root.join("data.bin");
    std::fs::write(&bin, b"needle\0\0\0needle").unwrap();
    w.file("text.txt", "needle\n", 1);
    let out = w.run(&GrepTool, json!({"pattern": "needle"})).await;
    assert_eq!(lines(&out), ["Found 1 file", &w.p("text.txt")]);

    let out = w
        .run(&GrepTool, json!({"pattern": "x", "path": "missing"}))
        .await;
    assert!(out.is_error);
    assert_eq!(
        out.content,
        format!("Path does not exist: {}", w.p("missing"))
    );
}

#[tokio::test]
async fn tool5_grep_cuts_very_long_lines() {
    let w = ws();
    let long = format!("needle {}\n", "x".repeat(5000));
    w.file("min.js", &long, 1);
    let out = w
        .run(
            &GrepTool,
            json!({"pattern": "needle", "output_mode": "content"}),
        )
        .await;
    assert!(out.content.trim_end().ends_with("… [line truncated]"));
    assert!(out.content.len() < 1200, "{}", out.content.len());
}

#[test]
fn tool5_paths_are_absolute_in_docs() {
    // The descriptions promise absolute paths; keep them in step.
    assert!(GlobTool.description().contains("absolute paths"));
    assert!(GrepTool.description().contains("absolute"));
}

/// A file with one line longer than Grep holds in memory is skipped and
/// named, not read whole: the search of the other files goes on.
#[tokio::test]
async fn tool5_grep_skips_a_file_with_a_line_over_the_memory_bound() {
    let w = ws();
    let mut huge = "a".repeat(zcode::tools::grep::MAX_LINE_BYTES + 1024);
    huge.push_str("needle\n");
    w.file("dump.min.js", &huge, 10);
    w.file("src/lib.rs", "// needle here\n", 10);
    let out = w
        .run(
            &GrepTool,
            json!({"pattern": "needle", "output_mode": "content"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("src/lib.rs"), "{}", out.content);
    assert!(out.content.contains("Not searched"), "{}", out.content);
    assert!(out.content.contains("dump.min.js"), "{}", out.content);
    assert!(out.content.len() < 10_000, "the long line is not echoed");
}
