//! The TUI's modules form no import cycle: pure
//! layout, focus and state below, `update` and `view` above them. A module
//! of `src/tui` that names another (`crate::tui::x`, `super::x`) depends on
//! it; the graph between the children of `tui` must stay acyclic.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/tui is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The child of `tui` a file belongs to (`layout` for layout/cell.rs), and
/// the module path its `super::` names resolve against.
fn owner(root: &Path, file: &Path) -> (String, Vec<String>) {
    let rel = file.strip_prefix(root).expect("under src/tui");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    let is_mod = parts.last().is_some_and(|p| p == "mod");
    if is_mod {
        parts.pop();
    }
    let child = parts.first().cloned().unwrap_or_default();
    // `super` of a file module is its directory's module.
    let mut parent = parts;
    parent.pop();
    (child, parent)
}

fn names_after<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.match_indices(prefix)
        .map(|(i, _)| {
            let rest = &text[i + prefix.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .filter(|n| !n.is_empty())
        .collect()
}

#[test]
fn ux_the_tui_modules_form_no_import_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let children: BTreeSet<String> = files.iter().map(|f| owner(&root, f).0).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable source file");
        // Test modules may reach anywhere.
        let text = text.split("#[cfg(test)]").next().unwrap_or_default();
        let (child, parent) = owner(&root, file);
        let mut targets: Vec<String> = names_after(text, "crate::tui::")
            .into_iter()
            .map(str::to_string)
            .collect();
        for name in names_after(text, "super::") {
            // Only a top-level file's `super` is `tui` itself; deeper ones
            // stay inside their own child.
            if parent.is_empty() {
                targets.push(name.to_string());
            }
        }
        for target in targets {
            if target != child && children.contains(&target) {
                edges.entry(child.clone()).or_default().insert(target);
            }
        }
    }
    // Depth-first search for a back edge, reporting the cycle it closes.
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for child in &children {
        if let Some(cycle) = visit(child, &edges, &mut Vec::new(), &mut done) {
            panic!("an import cycle in src/tui: {}", cycle.join(" → "));
        }
    }
    // The graph is not empty: the check reads what it should.
    assert!(
        edges.get("update").is_some_and(|e| e.contains("focus")),
        "{edges:?}"
    );
}
