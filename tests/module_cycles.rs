//! The crate's modules form no import cycle: the top-level modules
//! (`protocol` below the runtime and its front ends; `approval` and `hooks`
//! below the runtime, never naming it), and the children of `runtime`
//! (`core` below `injection`, `compaction`, `model_events` and the tool
//! executor, with the pure `transcript` and `reminders` under `core`), and
//! the children of `tui` (layout, focus and state below `update` and
//! `view`). A
//! module that names another (`crate::x`, `crate::runtime::x`, `super::x`)
//! depends on it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module names that follow `prefix` in `text`: `crate::a::b` gives
/// `a` for `crate::`, and `crate::{a, b::c}` gives `a` and `b`.
fn names_after(text: &str, prefix: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = Vec::new();
    for (i, _) in text.match_indices(prefix) {
        // `xcrate::` or `a::crate::` is not this prefix.
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &text[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut start = 0;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        names.push(ident(&group[start..j]));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.push(ident(&group[start..j]));
                        start = j + 1;
                    }
                    _ => {}
                }
            }
        } else {
            names.push(ident(rest));
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

/// The import graph between the children of the module at `dir` (whose
/// path from the crate root is `module`, empty for the crate itself).
/// Test modules and test-only files may reach anywhere.
fn child_graph(dir: &Path, module: &str) -> (BTreeSet<String>, Graph) {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    let is_root_file =
        |rel: &[String]| rel.len() == 1 && ["mod", "lib", "main"].contains(&rel[0].as_str());
    let mut children = BTreeSet::new();
    let mut owned = Vec::new();
    for file in files {
        let rel: Vec<String> = file
            .strip_prefix(dir)
            .expect("under its directory")
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        let test_only = rel
            .last()
            .is_some_and(|n| n == "tests" || n.ends_with("_tests"));
        if is_root_file(&rel) || test_only {
            continue;
        }
        children.insert(rel[0].clone());
        owned.push((rel, file));
    }
    let prefix = if module.is_empty() {
        "crate::".to_string()
    } else {
        format!("crate::{module}::")
    };
    let mut edges = Graph::new();
    for (rel, file) in owned {
        let text = std::fs::read_to_string(&file).expect("a readable source file");
        let text = text.split("#[cfg(test)]").next().unwrap_or_default();
        let child = &rel[0];
        let mut targets = names_after(text, &prefix);
        // `super` names the parent's children only from a child's own file
        // (`x.rs` or `x/mod.rs`); deeper files' `super` stays inside `x`.
        let own_file = rel.len() == 1 || (rel.len() == 2 && rel[1] == "mod");
        if own_file && !module.is_empty() {
            targets.extend(names_after(text, "super::"));
        }
        for target in targets {
            if &target != child && children.contains(&target) {
                edges.entry(child.clone()).or_default().insert(target);
            }
        }
    }
    (children, edges)
}

/// A cycle of the graph, if it has one, as the path that closes it.
fn find_cycle(children: &BTreeSet<String>, edges: &Graph) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &Graph,
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
    children
        .iter()
        .find_map(|child| visit(child, edges, &mut Vec::new(), &mut done))
}

fn has_edge(edges: &Graph, from: &str, to: &str) -> bool {
    edges.get(from).is_some_and(|e| e.contains(to))
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn layering_the_top_level_modules_form_no_import_cycle() {
    let (children, edges) = child_graph(&src(), "");
    if let Some(cycle) = find_cycle(&children, &edges) {
        panic!(
            "an import cycle between top-level modules: {}",
            cycle.join(" → ")
        );
    }
    // The check reads what it should: the runtime uses the approval
    // machinery, the hooks and the protocol, which the front ends share.
    for (from, to) in [
        ("runtime", "approval"),
        ("runtime", "hooks"),
        ("runtime", "protocol"),
        ("approval", "protocol"),
        ("hooks", "protocol"),
        ("tui", "protocol"),
        ("headless", "protocol"),
        ("tools", "protocol"),
    ] {
        assert!(has_edge(&edges, from, to), "{from} → {to} in {edges:?}");
    }
    for (from, to) in [
        ("approval", "runtime"),
        ("hooks", "runtime"),
        ("protocol", "runtime"),
        ("protocol", "tools"),
    ] {
        assert!(!has_edge(&edges, from, to), "{from} → {to} in {edges:?}");
    }
}

#[test]
fn layering_the_runtime_modules_form_no_import_cycle() {
    let (children, edges) = child_graph(&src().join("runtime"), "runtime");
    if let Some(cycle) = find_cycle(&children, &edges) {
        panic!("an import cycle in src/runtime: {}", cycle.join(" → "));
    }
    for (from, to) in [
        ("turn", "tool_call"),
        ("tool_call", "core"),
        ("injection", "core"),
        ("compaction", "core"),
        ("model_events", "core"),
        ("core", "transcript"),
        ("core", "reminders"),
        ("transcript", "reminders"),
    ] {
        assert!(has_edge(&edges, from, to), "{from} → {to} in {edges:?}");
    }
}

#[test]
fn ux_the_tui_modules_form_no_import_cycle() {
    // Pure layout, focus and state below; `update` and `view` above them.
    let (children, edges) = child_graph(&src().join("tui"), "tui");
    if let Some(cycle) = find_cycle(&children, &edges) {
        panic!("an import cycle in src/tui: {}", cycle.join(" → "));
    }
    // The graph is not empty: the check reads what it should.
    assert!(has_edge(&edges, "update", "focus"), "{edges:?}");
}

#[test]
fn layering_the_reader_sees_grouped_and_nested_imports() {
    let text = "use crate::{a, b::{c, d}, e};\nuse crate::f::g;\nxcrate::h; self::crate::i;";
    assert_eq!(names_after(text, "crate::"), ["a", "b", "e", "f"]);
}
