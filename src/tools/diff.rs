//! Unified diffs of what Write and Edit change (shown to the model, in the
//! approval panel and in the UI).

use similar::TextDiff;
use std::path::Path;

/// Lines of context around each change.
pub(crate) const CONTEXT_LINES: usize = 3;

/// A unified diff from `old` to `new`; `old` is `None` for a new file
/// (`--- /dev/null`, every line added). Empty when nothing changed.
pub fn unified(path: &Path, old: Option<&str>, new: &str) -> String {
    let shown = path.display().to_string();
    let old_label = if old.is_some() {
        shown.clone()
    } else {
        "/dev/null".to_string()
    };
    TextDiff::from_lines(old.unwrap_or(""), new)
        .unified_diff()
        .context_radius(CONTEXT_LINES)
        .missing_newline_hint(true)
        .header(&old_label, &shown)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_file_is_all_added() {
        let d = unified(Path::new("/w/a.txt"), None, "one\ntwo\n");
        assert_eq!(
            d,
            "--- /dev/null\n+++ /w/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"
        );
    }

    #[test]
    fn change_has_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
        let d = unified(Path::new("f"), Some(old), new);
        assert!(d.contains("@@ -2,7 +2,7 @@"), "{d}");
        assert!(d.contains("-5\n+five\n"), "{d}");
        assert!(!d.contains(" 1\n"), "{d}");
    }

    #[test]
    fn no_change_is_empty() {
        assert_eq!(unified(Path::new("f"), Some("a\n"), "a\n"), "");
    }
}
