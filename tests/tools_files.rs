//! Read, Write and Edit (TOOL-1..3).

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use zcode::tools::{EditTool, ReadTool, Tool, ToolContext, ToolOutput, WriteTool};

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

/// Makes sure a later write gets a different stamp (mtime granularity).
fn touch_later(path: &Path, content: &str) {
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(path, content).unwrap();
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
