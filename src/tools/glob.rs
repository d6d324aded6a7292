//! TOOL-5 Glob: files whose path matches a glob pattern, newest first.
//!
//! The pattern is matched against each file's path relative to the searched
//! directory (`*` does not cross `/`; `**` does). Results are absolute paths,
//! so each one can be handed to Read as it is.

use super::input::{self, Fields};
use super::{Tool, ToolContext, ToolOutput, blocking_cancellable, paths, walk};
use crate::permission::capability::Capability;
use crate::permission::declaration::ToolDeclaration;
use futures_util::future::BoxFuture;
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

pub const NAME: &str = "Glob";
/// Files listed at most.
pub(crate) const MAX_RESULTS: usize = 100;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GlobInput {
    pub pattern: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl GlobInput {
    pub fn parse(input: Value) -> Result<Self, String> {
        let mut parsed: Self = Fields::new(NAME, input)?.parse()?;
        input::non_empty(NAME, "pattern", &parsed.pattern)?;
        if parsed.path.as_deref().is_some_and(|p| p.trim().is_empty()) {
            parsed.path = None;
        }
        compile(NAME, &split_pattern(&parsed.pattern).1)?;
        Ok(parsed)
    }
}

/// Braces nested deeper than this are refused: globset turns each level
/// into a regex group, and the regex parser gives up a little past 250.
pub const MAX_BRACE_DEPTH: usize = 32;

/// A compiled glob (a one-pattern set: building a set reports a regex that
/// cannot be built as an error, where a lone glob's matcher panics).
#[derive(Debug, Clone)]
pub(crate) struct PathMatcher(GlobSet);

impl PathMatcher {
    pub(crate) fn is_match(&self, path: &Path) -> bool {
        self.0.is_match(path)
    }
}

/// A glob as Glob and Grep's `glob` filter use it: `*` stays within one
/// path component, `{a,b}` alternates.
pub(crate) fn compile(tool: &str, pattern: &str) -> Result<PathMatcher, String> {
    let invalid = |why: String| input::invalid(tool, format!("invalid glob pattern: {why}"));
    let depth = brace_depth(pattern);
    if depth > MAX_BRACE_DEPTH {
        return Err(invalid(format!(
            "its braces are nested {depth} deep, more than the {MAX_BRACE_DEPTH} allowed; use a simpler pattern"
        )));
    }
    let glob: Glob = GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| {
            input::invalid(
                tool,
                format!("invalid glob pattern \"{pattern}\": {}", e.kind()),
            )
        })?;
    let mut set = GlobSetBuilder::new();
    set.add(glob);
    set.build().map(PathMatcher).map_err(|_| {
        invalid("it is too large or complex to match; use a simpler pattern".to_string())
    })
}

/// How deeply the braces of a glob nest (`\{` is a literal brace, and
/// braces inside `[...]` are literal too).
fn brace_depth(pattern: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut chars = pattern.chars();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '{' if !in_class => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' if !in_class => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// An absolute pattern (`/repo/src/**/*.rs`) becomes its literal leading
/// directories and the rest (`/repo/src`, `**/*.rs`); `./` is dropped.
fn split_pattern(pattern: &str) -> (Option<PathBuf>, String) {
    let pattern = pattern.trim();
    if !pattern.starts_with('/') {
        return (None, pattern.trim_start_matches("./").to_string());
    }
    let parts: Vec<&str> = pattern.split('/').collect();
    let literal = parts
        .iter()
        .take(parts.len().saturating_sub(1))
        .take_while(|part| !part.contains(['*', '?', '[', '{']))
        .count();
    let base = parts[..literal].join("/");
    let base = if base.is_empty() {
        "/".to_string()
    } else {
        base
    };
    (Some(PathBuf::from(base)), parts[literal..].join("/"))
}

#[derive(Debug, Default)]
pub struct GlobTool;

/// What Glob is to the permission engine, the approval and the TUI.
pub(crate) static DECLARATION: ToolDeclaration =
    ToolDeclaration::builtin(NAME, Capability::read_only_low("glob"))
        .honouring_read_rules()
        .with_covered_by(super::read::COVERS_SEARCHES);

impl Tool for GlobTool {
    fn description(&self) -> &'static str {
        include_str!("../../assets/tools/glob.md")
    }

    fn compact_description(&self) -> std::borrow::Cow<'static, str> {
        include_str!("../../assets/tools/compact/glob.md").into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {
                    "type": "string",
                    "description": "The glob pattern, matched against paths relative to the searched directory, e.g. \"**/*.rs\" or \"src/**/*.{ts,tsx}\""
                },
                "path": {
                    "type": "string",
                    "description": "The directory to search (absolute or relative to the workspace root). Omit it to search the workspace root"
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
        input::normalized(NAME, &GlobInput::parse(input)?)
    }

    fn run<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input = match GlobInput::parse(input) {
                Ok(input) => input,
                Err(e) => return ToolOutput::error(e),
            };
            let (base, pattern) = split_pattern(&input.pattern);
            // An absolute pattern names its own directory.
            let root = match (&input.path, base) {
                (_, Some(base)) => paths::resolve(&ctx.workspace, &base.to_string_lossy()),
                (Some(path), None) => paths::resolve(&ctx.workspace, path),
                (None, None) => ctx.workspace.clone(),
            };
            let matcher = match compile(NAME, &pattern) {
                Ok(m) => m,
                Err(e) => return ToolOutput::error(e),
            };
            let cancel = ctx.cancel.clone();
            let withheld = ctx.read_filter.clone();
            blocking_cancellable(NAME, &ctx.cancel, move || {
                glob(&root, &pattern, &matcher, withheld.as_deref(), &cancel)
            })
            .await
            .unwrap_or_else(ToolOutput::error)
        })
    }
}

fn glob(
    root: &Path,
    pattern: &str,
    matcher: &PathMatcher,
    withheld: Option<&crate::permission::read_rules::ReadRuleFilter>,
    cancel: &tokio_util::sync::CancellationToken,
) -> ToolOutput {
    if let Err(e) = check_dir(root) {
        return ToolOutput::error(e);
    }
    let mut found = Vec::new();
    let mut withheld_count = 0;
    for entry in walk::walker(root).build() {
        if cancel.is_cancelled() {
            return ToolOutput::error("Glob was interrupted.");
        }
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        let is_file = entry.file_type().is_some_and(|t| t.is_file())
            || entry.path_is_symlink() && path.is_file();
        if !is_file {
            continue;
        }
        let Ok(relative) = path.strip_prefix(root) else {
            continue;
        };
        if !matcher.is_match(relative) {
            continue;
        }
        if withheld.is_some_and(|w| w.withholds(path)) {
            withheld_count += 1;
            continue;
        }
        found.push((path.to_path_buf(), walk::modified(path)));
    }
    let note = super::grep::withheld_note(withheld_count);
    if found.is_empty() {
        return ToolOutput::ok(format!(
            "No files found matching \"{pattern}\" in {}.{note}",
            root.display()
        ));
    }
    walk::sort_newest_first(&mut found);
    let total = found.len();
    let mut text: String = found
        .iter()
        .take(MAX_RESULTS)
        .map(|(p, _)| format!("{}\n", p.display()))
        .collect();
    if total > MAX_RESULTS {
        text.push_str(&format!(
            "(Showing the {MAX_RESULTS} most recently modified of {total} matching files. Use a more specific pattern or path to see the others.)\n"
        ));
    }
    text.push_str(&note);
    ToolOutput::ok(text)
}

/// The searched path must be an existing directory.
pub(crate) fn check_dir(root: &Path) -> Result<(), String> {
    match std::fs::metadata(root) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(meta) if meta.is_file() => Err(format!(
            "{} is a file, not a directory. Give a directory as path (or Read the file).",
            root.display()
        )),
        Ok(_) => Err(format!(
            "{} is not a directory. Give a directory as path.",
            root.display()
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(format!("Directory does not exist: {}", root.display()))
        }
        Err(e) => Err(format!("Cannot search {}: {e}", root.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brace_depth_counts_nesting_outside_classes() {
        assert_eq!(brace_depth("*.rs"), 0);
        assert_eq!(brace_depth("{a,{b,c}}"), 2);
        assert_eq!(brace_depth("[{]{a}"), 1);
        assert_eq!(brace_depth("\\{\\{a}"), 0);
    }

    #[test]
    fn split_absolute_patterns() {
        assert_eq!(split_pattern("**/*.rs"), (None, "**/*.rs".to_string()));
        assert_eq!(split_pattern("./src/*.rs"), (None, "src/*.rs".to_string()));
        assert_eq!(
            split_pattern("/repo/src/**/*.rs"),
            (Some(PathBuf::from("/repo/src")), "**/*.rs".to_string())
        );
        assert_eq!(
            split_pattern("/repo/a.txt"),
            (Some(PathBuf::from("/repo")), "a.txt".to_string())
        );
        assert_eq!(
            split_pattern("/*.txt"),
            (Some(PathBuf::from("/")), "*.txt".to_string())
        );
    }
}
