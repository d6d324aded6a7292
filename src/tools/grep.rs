//! TOOL-5 Grep: a regex search over the workspace with ripgrep's engine
//! (`grep-regex` + `grep-searcher` over the `ignore` walker).
//!
//! Paths in the output are absolute. Binary files (a NUL byte) are skipped.

use super::glob::{PathMatcher, compile as compile_glob};
use super::input::{self, Fields};
use super::special_files::{open_regular, special_kind};
use super::{Tool, ToolContext, ToolOutput, blocking_cancellable, paths, walk};
use crate::permission::capability::Capability;
use crate::permission::declaration::ToolDeclaration;
use crate::permission::read_rules::ReadRuleFilter;
use futures_util::future::BoxFuture;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use tokio_util::sync::CancellationToken;

pub const NAME: &str = "Grep";
/// Lines (content), files or counts shown when no `head_limit` is given.
pub(crate) const DEFAULT_HEAD_LIMIT: u64 = 100;
/// Characters of one matching line shown in content mode.
pub(crate) const MAX_LINE_CHARS: usize = 1000;
/// The longest line Grep holds in memory: a file with a longer one (a
/// minified bundle, a 256 MiB single-line dump) is skipped and named,
/// rather than read whole into memory.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// Context lines at most (`-A`, `-B`, `-C`).
pub(crate) const MAX_CONTEXT: u64 = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum OutputMode {
    Content,
    #[default]
    FilesWithMatches,
    Count,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GrepInput {
    pub pattern: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glob: Option<String>,
    #[serde(default)]
    pub output_mode: OutputMode,
    #[serde(rename = "-i", default, skip_serializing_if = "Option::is_none")]
    pub case_insensitive: Option<bool>,
    #[serde(rename = "-n", default, skip_serializing_if = "Option::is_none")]
    pub line_numbers: Option<bool>,
    #[serde(rename = "-A", default, skip_serializing_if = "Option::is_none")]
    pub after: Option<u64>,
    #[serde(rename = "-B", default, skip_serializing_if = "Option::is_none")]
    pub before: Option<u64>,
    #[serde(rename = "-C", default, skip_serializing_if = "Option::is_none")]
    pub context: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_limit: Option<u64>,
}

impl GrepInput {
    pub fn parse(input: Value) -> Result<Self, String> {
        let mut fields = Fields::new(NAME, input)?;
        fields.one_of("output_mode", &["content", "files_with_matches", "count"])?;
        fields.bool("-i")?;
        fields.bool("-n")?;
        for key in ["-A", "-B", "-C"] {
            fields.int(key, 0, Some(MAX_CONTEXT))?;
        }
        fields.int("head_limit", 1, None)?;
        let mut parsed: Self = fields.parse()?;
        input::non_empty(NAME, "pattern", &parsed.pattern)?;
        for optional in [&mut parsed.path, &mut parsed.glob] {
            if optional.as_deref().is_some_and(|s| s.trim().is_empty()) {
                *optional = None;
            }
        }
        parsed.matcher()?;
        if let Some(glob) = &parsed.glob {
            compile_glob(NAME, glob.trim())?;
        }
        Ok(parsed)
    }

    fn matcher(&self) -> Result<RegexMatcher, String> {
        RegexMatcherBuilder::new()
            .case_insensitive(self.case_insensitive.unwrap_or(false))
            .line_terminator(Some(b'\n'))
            .build(&self.pattern)
            .map_err(|e| input::invalid(NAME, format!("invalid regex \"{}\": {e}", self.pattern)))
    }

    fn context_lines(&self) -> (usize, usize) {
        if self.output_mode != OutputMode::Content {
            return (0, 0);
        }
        let both = self.context.unwrap_or(0);
        let before = self.before.unwrap_or(both);
        let after = self.after.unwrap_or(both);
        (
            usize::try_from(before).unwrap_or(0),
            usize::try_from(after).unwrap_or(0),
        )
    }
}

#[derive(Debug, Default)]
pub struct GrepTool;

/// What Grep is to the permission engine, the approval and the TUI.
pub(crate) static DECLARATION: ToolDeclaration =
    ToolDeclaration::builtin(NAME, Capability::read_only_low("grep"))
        .honouring_read_rules()
        .with_covered_by(super::read::COVERS_SEARCHES);

impl Tool for GrepTool {
    fn description(&self) -> &'static str {
        include_str!("../../assets/tools/grep.md")
    }

    fn compact_description(&self) -> std::borrow::Cow<'static, str> {
        include_str!("../../assets/tools/compact/grep.md").into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {
                    "type": "string",
                    "description": "The regular expression to search for (Rust regex syntax, as in ripgrep)"
                },
                "path": {
                    "type": "string",
                    "description": "The file or directory to search (absolute or relative to the workspace root). Omit it to search the workspace root"
                },
                "glob": {
                    "type": "string",
                    "description": "Only search files matching this glob: without a \"/\" it matches file names (\"*.rs\", \"*.{ts,tsx}\"), with one the path relative to the searched directory (\"src/**/*.rs\")"
                },
                "output_mode": {
                    "type": "string",
                    "enum": ["content", "files_with_matches", "count"],
                    "description": "\"files_with_matches\" (default) lists matching files, newest first; \"content\" shows matching lines as path:line:text; \"count\" shows matches per file"
                },
                "-i": {
                    "type": "boolean",
                    "description": "Case-insensitive search"
                },
                "-n": {
                    "type": "boolean",
                    "description": "Show line numbers in content mode (default true)"
                },
                "-A": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": MAX_CONTEXT,
                    "description": "Lines of context after each match (content mode only)"
                },
                "-B": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": MAX_CONTEXT,
                    "description": "Lines of context before each match (content mode only)"
                },
                "-C": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": MAX_CONTEXT,
                    "description": "Lines of context before and after each match (content mode only)"
                },
                "head_limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Show at most this many lines, files or counts (default 100)"
                }
            },
            "required": ["pattern"],
            "additionalProperties": false
        })
    }

    fn declaration(&self) -> &ToolDeclaration {
        &DECLARATION
    }

    fn validate(&self, input: Value) -> Result<Value, String> {
        input::normalized(NAME, &GrepInput::parse(input)?)
    }

    fn run<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input = match GrepInput::parse(input) {
                Ok(input) => input,
                Err(e) => return ToolOutput::error(e),
            };
            let root = match &input.path {
                Some(path) => paths::resolve(&ctx.workspace, path),
                None => ctx.workspace.clone(),
            };
            let cancel = ctx.cancel.clone();
            let withheld = ctx.read_filter.clone();
            let searched = blocking_cancellable(NAME, &ctx.cancel, move || {
                search(&input, &root, withheld.as_deref(), &cancel)
            })
            .await;
            match searched.and_then(|found| found) {
                Ok(text) => ToolOutput::ok(text),
                Err(e) => ToolOutput::error(e),
            }
        })
    }
}

/// A filter on file paths from Grep's `glob` parameter.
struct FileFilter {
    matcher: PathMatcher,
    /// A glob without `/` is matched against the file name only.
    name_only: bool,
}

impl FileFilter {
    fn matches(&self, root: &Path, path: &Path) -> bool {
        if self.name_only {
            path.file_name()
                .is_some_and(|name| self.matcher.is_match(Path::new(name)))
        } else {
            path.strip_prefix(root)
                .is_ok_and(|relative| self.matcher.is_match(relative))
        }
    }
}

/// The files to search: `root` itself when it is a file, else the walk.
/// The files to search, and how many a Read rule withheld.
fn files(
    root: &Path,
    filter: Option<&FileFilter>,
    withheld: Option<&ReadRuleFilter>,
    cancel: &CancellationToken,
) -> Result<(Vec<PathBuf>, usize), String> {
    let meta = std::fs::metadata(root).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("Path does not exist: {}", root.display()),
        _ => format!("Cannot search {}: {e}", root.display()),
    })?;
    if meta.is_file() {
        // A file named directly was judged by the permission check.
        return Ok((vec![root.to_path_buf()], 0));
    }
    if let Some(what) = special_kind(&meta.file_type()).filter(|_| !meta.is_dir()) {
        return Err(format!(
            "{} is {what}, not a regular file; Grep works on regular files only.",
            root.display()
        ));
    }
    let mut found = Vec::new();
    let mut withheld_count = 0;
    for entry in walk::walker(root).build() {
        if cancel.is_cancelled() {
            return Err("Grep was interrupted.".to_string());
        }
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        let is_file = entry.file_type().is_some_and(|t| t.is_file())
            || entry.path_is_symlink() && path.is_file();
        if !is_file || !filter.is_none_or(|f| f.matches(root, path)) {
            continue;
        }
        if withheld.is_some_and(|w| w.withholds(path)) {
            withheld_count += 1;
            continue;
        }
        found.push(path.to_path_buf());
    }
    Ok((found, withheld_count))
}

/// The note for files a Read rule kept out of a search.
pub(crate) fn withheld_note(count: usize) -> String {
    match count {
        0 => String::new(),
        1 => "\n(1 file was left out: a project Read rule covers it.)".to_string(),
        n => format!("\n({n} files were left out: project Read rules cover them.)"),
    }
}

/// What one file's search produced.
#[derive(Default)]
struct FileResult {
    /// Content mode: the formatted lines (`--` between separate groups).
    lines: Vec<String>,
    matched_lines: u64,
    binary: bool,
}

struct Collect<'a> {
    shown: &'a str,
    mode: OutputMode,
    numbers: bool,
    result: FileResult,
}

impl Collect<'_> {
    fn push(&mut self, separator: char, number: Option<u64>, line: &[u8]) {
        // At most four bytes a character: the cut below needs no more.
        let line = &line[..line.len().min(MAX_LINE_CHARS * 4 + 4)];
        let text = String::from_utf8_lossy(line);
        let text = text.trim_end_matches(['\n', '\r']);
        let text = match text.char_indices().nth(MAX_LINE_CHARS) {
            Some((cut, _)) => format!("{}… [line truncated]", &text[..cut]),
            None => text.to_string(),
        };
        let line = match number.filter(|_| self.numbers) {
            Some(n) => format!("{}{separator}{n}{separator}{text}", self.shown),
            None => format!("{}{separator}{text}", self.shown),
        };
        self.result.lines.push(line);
    }
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let mut number = mat.line_number();
        for line in mat.lines() {
            self.result.matched_lines += 1;
            if self.mode == OutputMode::Content {
                self.push(':', number, line);
            }
            number = number.map(|n| n + 1);
        }
        Ok(self.mode != OutputMode::FilesWithMatches)
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, Self::Error> {
        self.push('-', ctx.line_number(), ctx.bytes());
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, Self::Error> {
        self.result.lines.push("--".to_string());
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, Self::Error> {
        self.result.binary = true;
        Ok(false)
    }
}

fn search(
    input: &GrepInput,
    root: &Path,
    withheld: Option<&ReadRuleFilter>,
    cancel: &CancellationToken,
) -> Result<String, String> {
    let matcher = input.matcher()?;
    let filter = match &input.glob {
        Some(glob) => {
            let glob = glob.trim();
            Some(FileFilter {
                matcher: compile_glob(NAME, glob)?,
                name_only: !glob.contains('/'),
            })
        }
        None => None,
    };
    let (files, withheld_count) = files(root, filter.as_ref(), withheld, cancel)?;
    let (before, after) = input.context_lines();
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .before_context(before)
        .after_context(after)
        .binary_detection(BinaryDetection::quit(0))
        .heap_limit(Some(MAX_LINE_BYTES))
        .build();
    let mut too_long: Vec<PathBuf> = Vec::new();
    let limit =
        usize::try_from(input.head_limit.unwrap_or(DEFAULT_HEAD_LIMIT)).unwrap_or(usize::MAX);
    let mode = input.output_mode;
    let numbers = input.line_numbers.unwrap_or(true);

    let mut shown_lines: Vec<String> = Vec::new();
    let mut total_lines = 0usize;
    let mut matched_files: Vec<(PathBuf, u64)> = Vec::new();
    let mut total_matches = 0u64;
    for file in files {
        if cancel.is_cancelled() {
            return Err("Grep was interrupted.".to_string());
        }
        let shown = file.display().to_string();
        let mut sink = Collect {
            shown: &shown,
            mode,
            numbers,
            result: FileResult::default(),
        };
        // Unreadable files are skipped, as ripgrep does, and so is a file
        // that is no longer a regular one (it would block or never end).
        let Ok(opened) = open_regular(&file) else {
            continue;
        };
        if let Err(e) = searcher.search_file(&matcher, &opened, &mut sink) {
            if e.kind() == std::io::ErrorKind::OutOfMemory || e.to_string().contains("limit") {
                too_long.push(file);
            }
            continue;
        }
        let result = sink.result;
        if result.binary || result.matched_lines == 0 {
            continue;
        }
        total_matches += result.matched_lines;
        if mode == OutputMode::Content {
            if (before > 0 || after > 0) && total_lines > 0 {
                total_lines += 1;
                if shown_lines.len() < limit {
                    shown_lines.push("--".to_string());
                }
            }
            for line in result.lines {
                total_lines += 1;
                if shown_lines.len() < limit {
                    shown_lines.push(line);
                }
            }
        }
        matched_files.push((file, result.matched_lines));
    }

    let skipped_note = too_long_note(&too_long);
    if matched_files.is_empty() {
        return Ok(format!(
            "No matches found for pattern \"{}\" in {}.{}{skipped_note}",
            input.pattern,
            root.display(),
            withheld_note(withheld_count)
        ));
    }
    let file_count = matched_files.len();
    let files_word = |n: usize| if n == 1 { "file" } else { "files" };
    let mut out = String::new();
    match mode {
        OutputMode::FilesWithMatches => {
            let mut dated: Vec<_> = matched_files
                .into_iter()
                .map(|(p, _)| {
                    let modified = walk::modified(&p);
                    (p, modified)
                })
                .collect();
            walk::sort_newest_first(&mut dated);
            out.push_str(&format!("Found {file_count} {}\n", files_word(file_count)));
            for (path, _) in dated.iter().take(limit) {
                out.push_str(&format!("{}\n", path.display()));
            }
            if file_count > limit {
                out.push_str(&format!(
                    "(Showing the {limit} most recently modified of {file_count} files. Raise head_limit or narrow the search to see more.)\n"
                ));
            }
        }
        OutputMode::Count => {
            for (path, count) in matched_files.iter().take(limit) {
                out.push_str(&format!("{}:{count}\n", path.display()));
            }
            if file_count > limit {
                out.push_str(&format!(
                    "(Showing {limit} of {file_count} files. Raise head_limit or narrow the search to see more.)\n"
                ));
            }
            out.push_str(&format!(
                "\nFound {total_matches} matching line{} in {file_count} {}.\n",
                if total_matches == 1 { "" } else { "s" },
                files_word(file_count)
            ));
        }
        OutputMode::Content => {
            for line in &shown_lines {
                out.push_str(line);
                out.push('\n');
            }
            if total_lines > shown_lines.len() {
                out.push_str(&format!(
                    "(Showing the first {} of {total_lines} lines. Raise head_limit or narrow the search to see more.)\n",
                    shown_lines.len()
                ));
            }
        }
    }
    out.push_str(&withheld_note(withheld_count));
    out.push_str(&skipped_note);
    Ok(out)
}

/// The note naming files skipped for a line over [`MAX_LINE_BYTES`].
fn too_long_note(files: &[PathBuf]) -> String {
    if files.is_empty() {
        return String::new();
    }
    let names: Vec<String> = files
        .iter()
        .take(5)
        .map(|f| f.display().to_string())
        .collect();
    let more = files.len().saturating_sub(names.len());
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(
        "\n(Not searched: {}{more}, with a line longer than {} MiB; search it with Bash, e.g. `grep -o` or `head -c`.)",
        names.join(", "),
        MAX_LINE_BYTES / (1024 * 1024)
    )
}
