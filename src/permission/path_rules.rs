//! Rules on file paths (RULE-3, RULE-4 for subjects from `file_path` or
//! `path`): both the call's path and the rule's pattern are normalised
//! before RULE-4 compares them, so `./src/a`, `src//a`, `sub/../src/a`, the
//! absolute path and a symlink to it are one subject.
//!
//! The call's path is resolved by the service (I/O) into a [`PathSubject`];
//! matching here is pure. A relative pattern is relative to the workspace
//! and an allow rule compares it only with the resolved path relative to
//! the workspace, so a path outside the workspace never matches it. Deny and
//! ask rules compare with every form (and, ASCII case-insensitively, for
//! case-insensitive file systems), so a spelling cannot dodge them.

use super::declaration::{RuleSubject, ToolDeclaration};
use super::rules::{Rule, RuleKind, SUBJECT_FIELDS, content_matches, rule_covers_tool};
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

/// A call's path subject in the forms rules are compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathSubject {
    /// As the model wrote it.
    pub raw: String,
    /// Absolute, `.`/`..` applied and symlinks followed (what is written).
    pub resolved: String,
    /// Absolute, `.`/`..` and repeated `/` folded, symlinks not followed.
    pub lexical: String,
    /// `resolved` relative to the workspace, when inside it (`""` for the
    /// workspace itself).
    pub relative: Option<String>,
    /// `lexical` relative to the workspace, when inside it.
    pub lexical_relative: Option<String>,
    /// The resolved workspace, which relative patterns are relative to.
    pub workspace: String,
}

/// The raw path a path rule is compared with: the RULE-3 subject, when it
/// comes from `file_path` or `path`.
pub(crate) fn raw_path_subject(subject: RuleSubject, input: &Value) -> Option<&str> {
    if subject != RuleSubject::Input {
        return None;
    }
    let (field, value) = SUBJECT_FIELDS
        .iter()
        .find_map(|f| input.get(*f).and_then(Value::as_str).map(|v| (*f, v)))?;
    (matches!(field, "file_path" | "path") && !value.is_empty()).then_some(value)
}

/// `.`, `..` and empty components folded without touching the disk (`..`
/// at the root stays at the root).
pub(crate) fn lexical_normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() && !path.is_absolute() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn display(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn relative_to(path: &Path, workspace: &Path) -> Option<String> {
    path.strip_prefix(workspace).ok().map(display)
}

impl PathSubject {
    /// `raw` resolved against `workspace` (already resolved); `resolved` is
    /// `paths::resolve_path(workspace, raw)`, computed once by the caller.
    pub fn new(raw: &str, resolved: &Path, workspace: &Path) -> Self {
        let lexical = lexical_normalize(&workspace.join(raw));
        Self {
            raw: raw.to_string(),
            resolved: display(resolved),
            relative: relative_to(resolved, workspace),
            lexical_relative: relative_to(&lexical, workspace),
            lexical: display(&lexical),
            workspace: display(workspace),
        }
    }
}

/// A rule's path pattern after normalisation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PathPattern {
    /// Relative to the workspace: `src/*` (from `src/*`, `./src/*`,
    /// `src//*`, `/ws/src/*`).
    Relative(String),
    /// Anything else: an absolute pattern, or a relative one that leaves
    /// the workspace (`../shared/*` becomes `/parent/shared/*`).
    Absolute(String),
}

/// Normalises a rule's content like a path. `*` is an ordinary character
/// to the normalisation, so `src/*/../x` becomes `src/x`.
pub(crate) fn normalize_pattern(content: &str, workspace: &str) -> PathPattern {
    let workspace = Path::new(workspace);
    let full = lexical_normalize(&workspace.join(content));
    match full.strip_prefix(workspace) {
        Ok(rest) => PathPattern::Relative(display(rest)),
        Err(_) => PathPattern::Absolute(display(&full)),
    }
}

fn matches_any<'a>(
    pattern: &str,
    candidates: impl IntoIterator<Item = Option<&'a str>>,
    fold_case: bool,
) -> bool {
    let pattern = if fold_case {
        pattern.to_ascii_lowercase()
    } else {
        pattern.to_string()
    };
    candidates.into_iter().flatten().any(|candidate| {
        if fold_case {
            content_matches(&candidate.to_ascii_lowercase(), &pattern)
        } else {
            content_matches(candidate, &pattern)
        }
    })
}

/// Does a rule of `kind` match a call of `tool` whose subject is this
/// path?
pub(crate) fn path_rule_matches(
    rule: &Rule,
    kind: RuleKind,
    tool: &ToolDeclaration,
    path: &PathSubject,
) -> bool {
    rule_covers_tool(kind, &rule.tool_name, tool) && path_content_matches(rule, kind, path)
}

/// Does the content of a rule of `kind` (the tool it names aside) match
/// this path?
pub(crate) fn path_content_matches(rule: &Rule, kind: RuleKind, path: &PathSubject) -> bool {
    let Some(content) = &rule.rule_content else {
        return true;
    };
    let pattern = normalize_pattern(content, &path.workspace);
    if kind == RuleKind::Allow {
        // Only the path that is written, and a relative pattern only
        // inside the workspace.
        return match &pattern {
            PathPattern::Relative(p) => matches_any(p, [path.relative.as_deref()], false),
            PathPattern::Absolute(p) => matches_any(p, [Some(path.resolved.as_str())], false),
        };
    }
    let p = match &pattern {
        PathPattern::Relative(p) | PathPattern::Absolute(p) => p,
    };
    let forms = [
        path.relative.as_deref(),
        path.lexical_relative.as_deref(),
        Some(path.resolved.as_str()),
        Some(path.lexical.as_str()),
    ];
    matches_any(p, forms, true) || matches_any(content, [Some(path.raw.as_str())], true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rule3_path_lexical_normalize() {
        for (raw, want) in [
            ("/a/./b//c/", "/a/b/c"),
            ("/a/b/../c", "/a/c"),
            ("/../a", "/a"),
            ("a/../../b", "../b"),
            ("./a", "a"),
        ] {
            assert_eq!(
                lexical_normalize(Path::new(raw)),
                PathBuf::from(want),
                "{raw}"
            );
        }
    }

    #[test]
    fn rule3_path_pattern_normalisation() {
        let ws = "/home/u/ws";
        let rel = |s: &str| PathPattern::Relative(s.to_string());
        assert_eq!(normalize_pattern("src/*", ws), rel("src/*"));
        assert_eq!(normalize_pattern("./src/*", ws), rel("src/*"));
        assert_eq!(normalize_pattern("src//*", ws), rel("src/*"));
        assert_eq!(normalize_pattern("/home/u/ws/src/*", ws), rel("src/*"));
        assert_eq!(normalize_pattern("a/../src/*", ws), rel("src/*"));
        assert_eq!(
            normalize_pattern("../shared/*", ws),
            PathPattern::Absolute("/home/u/shared/*".into())
        );
        assert_eq!(
            normalize_pattern("/etc/*", ws),
            PathPattern::Absolute("/etc/*".into())
        );
    }

    #[test]
    fn rule3_path_subject_field() {
        assert_eq!(
            raw_path_subject(RuleSubject::Input, &json!({"file_path": "a"})),
            Some("a")
        );
        assert_eq!(
            raw_path_subject(RuleSubject::Input, &json!({"pattern": "x", "path": "src"})),
            Some("src")
        );
        // Glob without `path`: the subject is the glob, not a path.
        assert_eq!(
            raw_path_subject(RuleSubject::Input, &json!({"pattern": "**/*.rs"})),
            None
        );
        assert_eq!(
            raw_path_subject(RuleSubject::Input, &json!({"file_path": ""})),
            None
        );
        assert_eq!(
            raw_path_subject(RuleSubject::Url, &json!({"url": "https://x", "path": "a"})),
            None
        );
        assert_eq!(
            raw_path_subject(RuleSubject::Command, &json!({"command": "ls"})),
            None
        );
    }
}
