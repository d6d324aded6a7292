//! Read, Write and Edit (TOOL-1..3); validation (APPR-1), capabilities
//! (CAP-2) and the registry (DIS-2) of every workspace tool.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use zcode::tools::registry::builtin_capability;
use zcode::tools::{
    BashTool, EditTool, GlobTool, GrepTool, ReadTool, Tool, ToolContext, ToolOutput, ToolRegistry,
    WebFetchTool, WriteTool,
};

struct Ws {
    _dir: tempfile::TempDir,
    root: PathBuf,
    ctx: ToolContext,
}

fn ws() -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let ctx = ToolContext::new(root.clone(), "test-session");
    Ws {
        _dir: dir,
        root,
        ctx,
    }
}

impl Ws {
    fn file(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, content).unwrap();
        path
    }

    async fn run(&self, tool: &dyn Tool, input: Value) -> ToolOutput {
        let input = tool.validate(input).unwrap();
        tool.run(input, &self.ctx).await
    }

    async fn read(&self, input: Value) -> ToolOutput {
        self.run(&ReadTool, input).await
    }
}

fn all_tools() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(ReadTool),
        Arc::new(GlobTool),
        Arc::new(GrepTool),
        Arc::new(WriteTool),
        Arc::new(EditTool),
        Arc::new(BashTool),
        Arc::new(WebFetchTool::new()),
    ]
}

/// Writes `content` as a later change: the file's modification time is set
/// past the one it had, whatever the file system's time granularity.
fn touch_later(path: &Path, content: &str) {
    let before = std::fs::metadata(path).unwrap().modified().unwrap();
    std::fs::write(path, content).unwrap();
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(before + std::time::Duration::from_secs(2))
        .unwrap();
}

// ---------------------------------------------------------------- TOOL-1 Read

#[tokio::test]
async fn tool1_read_numbers_lines_cat_n_style() {
    let w = ws();
    w.file("a.txt", "first\n\tsecond\nthird");
    let out = w.read(json!({"file_path": "a.txt"})).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        out.content,
        "     1\tfirst\n     2\t\tsecond\n     3\tthird\n"
    );
}

#[tokio::test]
async fn tool1_read_absolute_path() {
    let w = ws();
    let path = w.file("dir/b.txt", "x\n");
    let out = w.read(json!({"file_path": path.to_string_lossy()})).await;
    assert_eq!(out.content, "     1\tx\n");
}

#[tokio::test]
async fn tool1_read_offset_and_limit() {
    let w = ws();
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    w.file("ten.txt", text);
    let out = w
        .read(json!({"file_path": "ten.txt", "offset": 3, "limit": 2}))
        .await;
    assert_eq!(
        out.content,
        "     3\tline 3\n     4\tline 4\n\n(Showing lines 3-4 of 10. To read more, call Read with offset=5.)\n"
    );
    let tail = w.read(json!({"file_path": "ten.txt", "offset": 9})).await;
    assert_eq!(
        tail.content,
        "     9\tline 9\n    10\tline 10\n\n(Showing lines 9-10 of 10.)\n"
    );
}

#[tokio::test]
async fn tool1_read_default_limit_is_2000_lines_with_a_note() {
    let w = ws();
    let text: String = (1..=2500).map(|i| format!("{i}\n")).collect();
    w.file("long.txt", text);
    let out = w.read(json!({"file_path": "long.txt"})).await;
    assert!(out.content.contains("  2000\t2000\n"));
    assert!(!out.content.contains("2001\t"));
    assert!(
        out.content.ends_with(
            "(Showing lines 1-2000 of 2500. To read more, call Read with offset=2001.)\n"
        ),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn tool1_read_offset_past_the_end_is_an_error() {
    let w = ws();
    w.file("two.txt", "a\nb\n");
    let out = w.read(json!({"file_path": "two.txt", "offset": 5})).await;
    assert!(out.is_error);
    assert!(
        out.content.contains("offset 5 is past the end"),
        "{}",
        out.content
    );
    assert!(out.content.contains("which has 2 lines"), "{}", out.content);
}

#[tokio::test]
async fn tool1_read_cuts_long_lines_with_a_marker() {
    let w = ws();
    w.file("wide.txt", format!("{}\nshort\n", "é".repeat(2500)));
    let out = w.read(json!({"file_path": "wide.txt"})).await;
    let first = out.content.lines().next().unwrap();
    assert!(first.starts_with(&format!("     1\t{}", "é".repeat(2000))));
    assert!(
        first.ends_with("… [line truncated: 500 more characters]"),
        "{first}"
    );
    assert!(out.content.contains("     2\tshort\n"));
    assert!(
        out.content
            .contains("1 line longer than 2000 characters was cut.")
    );
}

#[tokio::test]
async fn tool1_read_cuts_huge_lines_counting_what_was_left_out() {
    let w = ws();
    w.file("huge.txt", format!("a{}\r\nnext\n", "é".repeat(100_000)));
    let out = w.read(json!({"file_path": "huge.txt"})).await;
    let first = out.content.lines().next().unwrap();
    assert!(
        first.ends_with("… [line truncated: 98001 more characters]"),
        "{}",
        &first[first.len() - 60..]
    );
    assert!(out.content.contains("     2\tnext\n"));
    assert!(!out.content.contains('\u{FFFD}'));
    assert!(!out.content.contains("UTF-8"));
}

#[tokio::test]
async fn tool1_read_refuses_binary_files() {
    let w = ws();
    w.file("blob.bin", b"PK\x03\x04\x00\x00binary");
    let out = w.read(json!({"file_path": "blob.bin"})).await;
    assert!(out.is_error);
    assert!(
        out.content.contains("looks like a binary file"),
        "{}",
        out.content
    );
    assert!(out.content.contains("NUL"), "{}", out.content);
    // Not recorded as read.
    assert!(!w.ctx.lock_files().was_seen(&w.root.join("blob.bin")));

    let noise: Vec<u8> = (0..4000u32).map(|i| 0x80 + (i % 64) as u8).collect();
    w.file("noise.bin", noise);
    let out = w.read(json!({"file_path": "noise.bin"})).await;
    assert!(out.is_error);
    assert!(out.content.contains("not UTF-8 text"), "{}", out.content);
}

#[tokio::test]
async fn tool1_read_shows_mostly_text_with_stray_bytes() {
    let w = ws();
    w.file("latin1.txt", b"caf\xe9 au lait\nplain line\n");
    let out = w.read(json!({"file_path": "latin1.txt"})).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("     1\tcaf\u{FFFD} au lait\n"));
    assert!(out.content.contains("not valid UTF-8"));
}

#[tokio::test]
async fn tool1_read_refuses_directories_and_suggests_glob() {
    let w = ws();
    std::fs::create_dir(w.root.join("src")).unwrap();
    let out = w.read(json!({"file_path": "src"})).await;
    assert!(out.is_error);
    assert!(out.content.contains("is a directory"), "{}", out.content);
    assert!(out.content.contains("Glob"), "{}", out.content);
}

#[tokio::test]
async fn tool1_read_missing_file_is_a_clear_error() {
    let w = ws();
    let out = w.read(json!({"file_path": "nope.txt"})).await;
    assert!(out.is_error);
    assert_eq!(
        out.content,
        format!("File does not exist: {}", w.root.join("nope.txt").display())
    );
}

#[tokio::test]
async fn tool1_read_empty_file_says_so() {
    let w = ws();
    let path = w.file("empty.txt", "");
    let out = w.read(json!({"file_path": "empty.txt"})).await;
    assert!(!out.is_error);
    assert!(
        out.content.contains("exists but is empty"),
        "{}",
        out.content
    );
    assert!(w.ctx.lock_files().was_seen(&path));
}

#[tokio::test]
async fn tool1_read_crlf_lines_without_carriage_returns() {
    let w = ws();
    w.file("dos.txt", "one\r\ntwo\r\n");
    let out = w.read(json!({"file_path": "dos.txt"})).await;
    assert_eq!(out.content, "     1\tone\n     2\ttwo\n");
}

#[tokio::test]
async fn tool2_read_records_the_file() {
    let w = ws();
    let path = w.file("a.txt", "x\n");
    assert!(!w.ctx.lock_files().was_seen(&path));
    w.read(json!({"file_path": "a.txt"})).await;
    assert!(w.ctx.lock_files().was_seen(&path));
    assert!(w.ctx.lock_files().check_overwrite(&path).is_ok());
}

// --------------------------------------------------------------- TOOL-2 Write

#[tokio::test]
async fn tool2_write_new_file_creates_parent_directories() {
    let w = ws();
    let out = w
        .run(
            &WriteTool,
            json!({"file_path": "deep/er/new.txt", "content": "one\ntwo\n"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    let path = w.root.join("deep/er/new.txt");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
    assert_eq!(
        out.content,
        format!("Created {} (2 lines).", path.display())
    );
    assert_eq!(
        out.diff.unwrap(),
        format!(
            "--- /dev/null\n+++ {}\n@@ -0,0 +1,2 @@\n+one\n+two\n",
            path.display()
        )
    );
}

#[tokio::test]
async fn tool2_write_refuses_a_file_not_read() {
    let w = ws();
    let path = w.file("existing.txt", "keep me\n");
    let out = w
        .run(
            &WriteTool,
            json!({"file_path": "existing.txt", "content": "x"}),
        )
        .await;
    assert!(out.is_error);
    assert!(
        out.content.contains("was not read in this session"),
        "{}",
        out.content
    );
    assert_eq!(std::fs::read_to_string(path).unwrap(), "keep me\n");
}

#[tokio::test]
async fn tool2_write_refuses_a_file_changed_since_read() {
    let w = ws();
    let path = w.file("a.txt", "v1\n");
    w.read(json!({"file_path": "a.txt"})).await;
    touch_later(&path, "v2 changed\n");
    let out = w
        .run(
            &WriteTool,
            json!({"file_path": "a.txt", "content": "mine\n"}),
        )
        .await;
    assert!(out.is_error);
    assert!(out.content.contains("changed on disk"), "{}", out.content);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "v2 changed\n");

    // Reading again allows the write.
    w.read(json!({"file_path": "a.txt"})).await;
    let out = w
        .run(
            &WriteTool,
            json!({"file_path": "a.txt", "content": "mine\n"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
}

#[tokio::test]
async fn tool2_write_overwrites_after_read_with_a_diff() {
    let w = ws();
    let path = w.file("a.txt", "one\ntwo\nthree\n");
    w.read(json!({"file_path": "a.txt"})).await;
    let out = w
        .run(
            &WriteTool,
            json!({"file_path": "a.txt", "content": "one\n2\nthree\n"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        out.content,
        format!("Overwrote {} (3 lines).", path.display())
    );
    let diff = out.diff.unwrap();
    assert!(diff.contains("-two\n+2\n"), "{diff}");
    assert!(diff.starts_with(&format!("--- {}\n+++ {}\n", path.display(), path.display())));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\n2\nthree\n");

    // The write recorded the new state: a second write needs no new Read.
    let again = w
        .run(&WriteTool, json!({"file_path": "a.txt", "content": "z\n"}))
        .await;
    assert!(!again.is_error, "{}", again.content);
}

#[tokio::test]
async fn tool2_write_same_content_says_unchanged() {
    let w = ws();
    w.file("a.txt", "same\n");
    w.read(json!({"file_path": "a.txt"})).await;
    let out = w
        .run(
            &WriteTool,
            json!({"file_path": "a.txt", "content": "same\n"}),
        )
        .await;
    assert!(
        out.content.ends_with("the content is unchanged."),
        "{}",
        out.content
    );
    assert_eq!(out.diff, None);
}

#[cfg(unix)]
#[tokio::test]
async fn tool2_write_keeps_permissions_and_leaves_no_temp_files() {
    use std::os::unix::fs::PermissionsExt;
    let w = ws();
    let path = w.file("run.sh", "#!/bin/sh\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o751)).unwrap();
    w.read(json!({"file_path": "run.sh"})).await;
    let out = w
        .run(
            &WriteTool,
            json!({"file_path": "run.sh", "content": "#!/bin/sh\necho hi\n"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o751);
    let names: Vec<_> = std::fs::read_dir(&w.root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["run.sh".to_string()]);
}

#[tokio::test]
async fn tool2_write_refuses_a_directory() {
    let w = ws();
    std::fs::create_dir(w.root.join("d")).unwrap();
    let out = w
        .run(&WriteTool, json!({"file_path": "d", "content": "x"}))
        .await;
    assert!(out.is_error);
    assert!(out.content.contains("is a directory"), "{}", out.content);
}

#[tokio::test]
async fn tool2_write_preview_shows_the_diff_without_writing() {
    let w = ws();
    let input = WriteTool
        .validate(json!({"file_path": "p.txt", "content": "a\n"}))
        .unwrap();
    let preview = WriteTool.preview(&input, &w.ctx).unwrap();
    assert!(preview.contains("+a\n"), "{preview}");
    assert!(!w.root.join("p.txt").exists());
}

// ---------------------------------------------------------------- TOOL-3 Edit

async fn read_then_edit(w: &Ws, input: Value) -> ToolOutput {
    let file = input["file_path"].clone();
    w.read(json!({ "file_path": file })).await;
    w.run(&EditTool, input).await
}

#[tokio::test]
async fn tool3_edit_replaces_a_unique_string_and_shows_a_diff() {
    let w = ws();
    let text: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    let path = w.file("f.txt", text);
    let out = read_then_edit(
        &w,
        json!({"file_path": "f.txt", "old_string": "line 10\n", "new_string": "LINE TEN\n"}),
    )
    .await;
    assert!(!out.is_error, "{}", out.content);
    let content = std::fs::read_to_string(&path).unwrap();
    assert!(content.contains("line 9\nLINE TEN\nline 11\n"));
    let diff = out.diff.clone().unwrap();
    assert!(diff.contains("@@ -7,7 +7,7 @@"), "{diff}");
    assert!(diff.contains("-line 10\n+LINE TEN\n"), "{diff}");
    assert!(
        !diff.contains("line 3\n"),
        "only a few context lines: {diff}"
    );
    assert!(out.content.starts_with(&format!(
        "Edited {}: replaced 1 occurrence.\n\n",
        path.display()
    )));
    assert!(out.content.ends_with(&diff));
}

#[tokio::test]
async fn tool3_edit_not_found_gives_a_hint() {
    let w = ws();
    w.file("f.rs", "fn main() {\n    let x = 1;\n}\n");
    let out = read_then_edit(
        &w,
        json!({"file_path": "f.rs", "old_string": "  let x = 1;\n  let y = 2;", "new_string": "z"}),
    )
    .await;
    assert!(out.is_error);
    assert!(
        out.content.starts_with("old_string was not found in"),
        "{}",
        out.content
    );
    assert!(out.content.contains("at line 2"), "{}", out.content);

    let out = read_then_edit(
        &w,
        json!({"file_path": "f.rs", "old_string": "nothing like it", "new_string": "z"}),
    )
    .await;
    assert!(out.is_error);
    assert!(
        out.content.contains("Read the file again"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn tool3_edit_multiple_matches_need_context_or_replace_all() {
    let w = ws();
    let path = w.file("f.txt", "a = 1\nb = 1\nc = 1\n");
    let out = read_then_edit(
        &w,
        json!({"file_path": "f.txt", "old_string": "= 1", "new_string": "= 2"}),
    )
    .await;
    assert!(out.is_error);
    assert!(
        out.content.starts_with("old_string occurs 3 times"),
        "{}",
        out.content
    );
    assert!(out.content.contains("replace_all"), "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "a = 1\nb = 1\nc = 1\n"
    );

    let out = read_then_edit(
        &w,
        json!({"file_path": "f.txt", "old_string": "= 1", "new_string": "= 2", "replace_all": true}),
    )
    .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        out.content.contains("replaced 3 occurrences"),
        "{}",
        out.content
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "a = 2\nb = 2\nc = 2\n"
    );
}

#[tokio::test]
async fn tool3_edit_requires_a_read_first() {
    let w = ws();
    let path = w.file("f.txt", "hello\n");
    let out = w
        .run(
            &EditTool,
            json!({"file_path": "f.txt", "old_string": "hello", "new_string": "bye"}),
        )
        .await;
    assert!(out.is_error);
    assert!(
        out.content.contains("was not read in this session"),
        "{}",
        out.content
    );
    assert!(out.content.contains("then edit"), "{}", out.content);

    w.read(json!({"file_path": "f.txt"})).await;
    touch_later(&path, "hello world\n");
    let out = w
        .run(
            &EditTool,
            json!({"file_path": "f.txt", "old_string": "hello", "new_string": "bye"}),
        )
        .await;
    assert!(out.is_error);
    assert!(out.content.contains("changed on disk"), "{}", out.content);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "hello world\n");
}

#[tokio::test]
async fn tool3_edit_twice_needs_no_second_read() {
    let w = ws();
    let path = w.file("f.txt", "a b\n");
    read_then_edit(
        &w,
        json!({"file_path": "f.txt", "old_string": "a", "new_string": "A"}),
    )
    .await;
    let out = w
        .run(
            &EditTool,
            json!({"file_path": "f.txt", "old_string": "b", "new_string": "B"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "A B\n");
}

#[tokio::test]
async fn tool3_edit_preview_returns_the_diff_and_does_not_write() {
    let w = ws();
    let path = w.file("f.txt", "alpha\nbeta\n");
    let input = EditTool
        .validate(json!({"file_path": "f.txt", "old_string": "beta", "new_string": "gamma"}))
        .unwrap();
    let preview = EditTool.preview(&input, &w.ctx).unwrap();
    assert!(preview.contains("-beta\n+gamma\n"), "{preview}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "alpha\nbeta\n");

    let failing = EditTool
        .validate(json!({"file_path": "f.txt", "old_string": "zeta", "new_string": "eta"}))
        .unwrap();
    assert_eq!(EditTool.preview(&failing, &w.ctx), None);
}

#[tokio::test]
async fn tool3_edit_matches_crlf_files() {
    let w = ws();
    let path = w.file("dos.txt", "one\r\ntwo\r\nthree\r\n");
    let out = read_then_edit(
        &w,
        json!({"file_path": "dos.txt", "old_string": "one\ntwo", "new_string": "1\n2"}),
    )
    .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "1\r\n2\r\nthree\r\n"
    );
}

#[tokio::test]
async fn tool3_edit_missing_file_suggests_write() {
    let w = ws();
    let out = w
        .run(
            &EditTool,
            json!({"file_path": "none.txt", "old_string": "a", "new_string": "b"}),
        )
        .await;
    assert!(out.is_error);
    assert!(
        out.content.contains("File does not exist"),
        "{}",
        out.content
    );
    assert!(out.content.contains("use Write"), "{}", out.content);
}

#[tokio::test]
async fn tool3_edit_can_delete_text() {
    let w = ws();
    let path = w.file("f.txt", "keep\ndrop\nkeep too\n");
    let out = read_then_edit(
        &w,
        json!({"file_path": "f.txt", "old_string": "drop\n", "new_string": ""}),
    )
    .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep\nkeep too\n");
}

// ------------------------------------------------------- APPR-1 validation

#[test]
fn appr1_validation_error_texts() {
    let cases: Vec<(Arc<dyn Tool>, Value, &str)> = vec![
        (
            Arc::new(ReadTool),
            json!({}),
            "Invalid input for Read: missing field \"file_path\"",
        ),
        (
            Arc::new(ReadTool),
            json!({"file_path": ""}),
            "Invalid input for Read: \"file_path\" must not be empty",
        ),
        (
            Arc::new(ReadTool),
            json!({"file_path": "a", "limit": 0}),
            "Invalid input for Read: \"limit\" must be a positive integer",
        ),
        (
            Arc::new(ReadTool),
            json!({"file_path": "a", "limit": -3}),
            "Invalid input for Read: \"limit\" must be a positive integer",
        ),
        (
            Arc::new(ReadTool),
            json!({"file_path": "a", "offset": "x"}),
            "Invalid input for Read: \"offset\" must be a positive integer",
        ),
        (
            Arc::new(ReadTool),
            json!({"file_path": "a", "offset": 1.5}),
            "Invalid input for Read: \"offset\" must be a positive integer",
        ),
        (
            Arc::new(ReadTool),
            json!({"file_path": 7}),
            "Invalid input for Read: expected a string, got integer \"7\"",
        ),
        (
            Arc::new(ReadTool),
            json!({"file_path": "a", "lines": 3}),
            "Invalid input for Read: unknown field \"lines\", expected one of \"file_path\", \"offset\", \"limit\"",
        ),
        (
            Arc::new(ReadTool),
            json!("a.txt"),
            "Invalid input for Read: expected a JSON object, got a string",
        ),
        (
            Arc::new(WriteTool),
            json!({"file_path": "a"}),
            "Invalid input for Write: missing field \"content\"",
        ),
        (
            Arc::new(WriteTool),
            json!({"content": "x"}),
            "Invalid input for Write: missing field \"file_path\"",
        ),
        (
            Arc::new(EditTool),
            json!({"file_path": "a", "old_string": "x"}),
            "Invalid input for Edit: missing field \"new_string\"",
        ),
        (
            Arc::new(EditTool),
            json!({"file_path": "a", "old_string": "", "new_string": "x"}),
            "Invalid input for Edit: \"old_string\" must not be empty (to create a file, use Write)",
        ),
        (
            Arc::new(EditTool),
            json!({"file_path": "a", "old_string": "x", "new_string": "x"}),
            "Invalid input for Edit: \"old_string\" and \"new_string\" are identical, so there is nothing to change",
        ),
        (
            Arc::new(EditTool),
            json!({"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": "yes"}),
            "Invalid input for Edit: \"replace_all\" must be true or false",
        ),
        (
            Arc::new(BashTool),
            json!({}),
            "Invalid input for Bash: missing field \"command\"",
        ),
        (
            Arc::new(BashTool),
            json!({"command": "  "}),
            "Invalid input for Bash: \"command\" must not be empty",
        ),
        (
            Arc::new(BashTool),
            json!({"command": "ls", "timeout": 600001}),
            "Invalid input for Bash: \"timeout\" must be at most 600000, got 600001",
        ),
        (
            Arc::new(BashTool),
            json!({"command": "ls", "timeout": 0}),
            "Invalid input for Bash: \"timeout\" must be a positive integer",
        ),
        (
            Arc::new(GlobTool),
            json!({}),
            "Invalid input for Glob: missing field \"pattern\"",
        ),
        (
            Arc::new(GlobTool),
            json!({"pattern": "a[b"}),
            "Invalid input for Glob: invalid glob pattern \"a[b\": unclosed character class; missing ']'",
        ),
        (
            Arc::new(GrepTool),
            json!({"pattern": "x", "output_mode": "lines"}),
            "Invalid input for Grep: \"output_mode\" must be one of \"content\", \"files_with_matches\", \"count\"",
        ),
        (
            Arc::new(GrepTool),
            json!({"pattern": "x", "-C": -1}),
            "Invalid input for Grep: \"-C\" must be a non-negative integer",
        ),
        (
            Arc::new(GrepTool),
            json!({"pattern": "x", "-A": 101}),
            "Invalid input for Grep: \"-A\" must be at most 100, got 101",
        ),
        (
            Arc::new(GrepTool),
            json!({"pattern": "x", "head_limit": 0}),
            "Invalid input for Grep: \"head_limit\" must be a positive integer",
        ),
        (
            Arc::new(GrepTool),
            json!({"pattern": "x", "-i": 2}),
            "Invalid input for Grep: \"-i\" must be true or false",
        ),
        (
            Arc::new(WebFetchTool::new()),
            json!({"url": "ftp://example.com/x"}),
            "Invalid input for WebFetch: \"url\" must be an http:// or https:// URL, not ftp:",
        ),
        (
            Arc::new(WebFetchTool::new()),
            json!({"url": "example.com"}),
            "Invalid input for WebFetch: \"url\" is not a valid URL (relative URL without a base)",
        ),
        (
            Arc::new(WebFetchTool::new()),
            json!({}),
            "Invalid input for WebFetch: missing field \"url\"",
        ),
    ];
    for (tool, input, expected) in cases {
        assert_eq!(
            tool.validate(input.clone()).unwrap_err(),
            expected,
            "{} {input}",
            tool.name()
        );
    }
}

#[test]
fn appr1_grep_invalid_regex_is_a_validation_error() {
    let err = GrepTool.validate(json!({"pattern": "fn ("})).unwrap_err();
    assert!(
        err.starts_with("Invalid input for Grep: invalid regex \"fn (\""),
        "{err}"
    );
}

#[test]
fn appr1_validation_normalizes() {
    assert_eq!(
        ReadTool
            .validate(json!({"file_path": "a", "offset": "5", "limit": null}))
            .unwrap(),
        json!({"file_path": "a", "offset": 5})
    );
    assert_eq!(
        EditTool
            .validate(json!({"file_path": "a", "old_string": "x", "new_string": "y"}))
            .unwrap(),
        json!({"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": false})
    );
    assert_eq!(
        EditTool
            .validate(json!({"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": "true"}))
            .unwrap()["replace_all"],
        json!(true)
    );
    assert_eq!(
        BashTool
            .validate(json!({"command": "ls", "timeout": 1000}))
            .unwrap(),
        json!({"command": "ls", "timeout": 1000})
    );
    assert_eq!(
        GrepTool
            .validate(json!({"pattern": "x", "-i": true}))
            .unwrap(),
        json!({"pattern": "x", "output_mode": "files_with_matches", "-i": true})
    );
    assert_eq!(
        WebFetchTool::new()
            .validate(json!({"url": " https://example.com/a ", "prompt": ""}))
            .unwrap(),
        json!({"url": "https://example.com/a"})
    );
}

/// A value of the schema's type, for an input using every property.
fn sample(name: &str, prop: &Value) -> Value {
    match (name, prop["type"].as_str()) {
        ("url", _) => json!("https://example.com/"),
        ("output_mode", _) => json!("content"),
        ("old_string", _) => json!("old"),
        ("new_string", _) => json!("new"),
        ("pattern", _) => json!("src"),
        ("glob", _) => json!("*.rs"),
        (_, Some("string")) => json!("value"),
        (_, Some("integer")) => json!(1),
        (_, Some("boolean")) => json!(true),
        other => panic!("unexpected property {other:?}"),
    }
}

#[test]
fn appr1_every_schema_matches_its_input_struct() {
    for tool in all_tools() {
        let schema = tool.input_schema();
        let name = tool.name();
        assert_eq!(schema["type"], "object", "{name}");
        assert_eq!(schema["additionalProperties"], false, "{name}");
        let props = schema["properties"].as_object().unwrap();
        for required in schema["required"].as_array().unwrap() {
            assert!(props.contains_key(required.as_str().unwrap()), "{name}");
        }
        let mut full = serde_json::Map::new();
        for (key, prop) in props {
            assert!(
                prop["description"].as_str().is_some_and(|d| !d.is_empty()),
                "{name}.{key} has no description"
            );
            full.insert(key.clone(), sample(key, prop));
        }
        // Every property is accepted...
        tool.validate(Value::Object(full.clone()))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // ...each required one is required...
        for required in schema["required"].as_array().unwrap() {
            let mut missing = full.clone();
            missing.remove(required.as_str().unwrap());
            let err = tool.validate(Value::Object(missing)).unwrap_err();
            assert!(err.contains("missing field"), "{name}: {err}");
        }
        // ...and nothing else is.
        full.insert("bogus".into(), json!(1));
        let err = tool.validate(Value::Object(full)).unwrap_err();
        assert!(err.contains("unknown field \"bogus\""), "{name}: {err}");
    }
}

#[test]
fn tool_descriptions_are_loaded() {
    for tool in all_tools() {
        let d = tool.description();
        assert!(d.len() > 200, "{}", tool.name());
    }
    assert!(ReadTool.description().contains("2000 lines"));
    assert!(BashTool.description().contains("600000"));
    assert!(EditTool.description().contains("Read"));
}

// --------------------------------------------------------------- CAP-2

#[test]
fn cap2_every_tool_declares_its_builtin_capability() {
    for tool in all_tools() {
        assert_eq!(
            Some(tool.capability()),
            builtin_capability(tool.name()),
            "{}",
            tool.name()
        );
    }
}

// --------------------------------------------------------------- registry

#[test]
fn dis2_registry_has_the_builtin_tools_in_a_stable_order() {
    let registry = ToolRegistry::builtin(&[]);
    assert_eq!(
        registry.names(),
        [
            "Read",
            "Glob",
            "Grep",
            "Write",
            "Edit",
            "Bash",
            "WebFetch",
            "TodoRead",
            "TodoWrite",
            "ListModels",
            "ReadSessionContext",
            "AskUserQuestion",
            "EnterPlanMode",
            "ExitPlanMode"
        ]
    );
    let specs = registry.specs();
    let names: Vec<_> = specs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, registry.names());
    for spec in &specs {
        let tool = registry.get(&spec.name).unwrap();
        assert_eq!(spec.description, tool.description());
        assert_eq!(spec.input_schema, tool.input_schema());
    }
    assert!(registry.get("Nope").is_none());
}

#[test]
fn dis2_disallowed_tools_are_not_registered() {
    let registry = ToolRegistry::builtin(&["Bash".to_string(), "WebFetch".to_string()]);
    assert_eq!(
        registry.names(),
        [
            "Read",
            "Glob",
            "Grep",
            "Write",
            "Edit",
            "TodoRead",
            "TodoWrite",
            "ListModels",
            "ReadSessionContext",
            "AskUserQuestion",
            "EnterPlanMode",
            "ExitPlanMode"
        ]
    );
    assert!(registry.get("Bash").is_none());
    assert!(registry.specs().iter().all(|s| s.name != "Bash"));
    // A rule with content is not a tool name.
    let registry = ToolRegistry::builtin(&["Bash(rm:*)".to_string()]);
    assert!(registry.get("Bash").is_some());
}

#[test]
fn registry_register_appends_and_replaces() {
    // Read removed, and with it Grep and Glob, which a Read deny covers.
    let mut registry = ToolRegistry::builtin(&["Read".to_string()]);
    assert!(registry.get("Grep").is_none() && registry.get("Glob").is_none());
    registry.register(Arc::new(ReadTool));
    assert_eq!(registry.names().last().map(String::as_str), Some("Read"));
    let before = registry.len();
    registry.register(Arc::new(WriteTool));
    assert_eq!(registry.len(), before);
    assert_eq!(registry.names()[0], "Write");
}
