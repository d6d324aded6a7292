//! `docs/requirements.md` points at code that exists: every module path it
//! names (`permission::check`, `runtime::tool_call`, an item such as
//! `tools::registry::BUILTIN`) is a module under src/ or an item of one,
//! and every test file it names is in tests/. A module that moves takes its
//! mentions with it.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn requirements() -> String {
    std::fs::read_to_string(root().join("docs/requirements.md")).expect("docs/requirements.md")
}

/// The texts between backticks.
fn quoted(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// `a::b::c` (with an optional `crate::`/`zcode::` and `()`), when it is
/// one path of Rust names.
fn rust_path(code: &str) -> Option<Vec<&str>> {
    let code = code.strip_suffix("()").unwrap_or(code);
    let code = code
        .strip_prefix("crate::")
        .or_else(|| code.strip_prefix("zcode::"))
        .unwrap_or(code);
    let parts: Vec<&str> = code.split("::").collect();
    let name = |s: &&str| {
        !s.is_empty()
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    (parts.len() >= 2 && parts.iter().all(name)).then_some(parts)
}

/// The file of the module at `parts` under src/.
fn module_file(parts: &[&str]) -> Option<PathBuf> {
    let base = parts
        .iter()
        .fold(root().join("src"), |dir, part| dir.join(part));
    [base.with_extension("rs"), base.join("mod.rs")]
        .into_iter()
        .find(|p| p.is_file())
}

/// Whether `file` defines `name` or re-exports it (`pub use`).
fn defines(file: &Path, name: &str) -> bool {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let words = |line: &str| -> Vec<String> {
        line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    const KINDS: &[&str] = &[
        "fn", "struct", "enum", "const", "static", "type", "trait", "mod",
    ];
    let defined = words(&text)
        .windows(2)
        .any(|w| KINDS.contains(&w[0].as_str()) && w[1] == name);
    let reexported = text.lines().any(|line| {
        let line = line.trim_start();
        (line.starts_with("pub use") || line.starts_with("pub(crate) use"))
            && words(line).iter().any(|w| w == name)
    });
    defined || reexported
}

/// Whether the crate has what `parts` names: a module, or an item (or a
/// method of one) in the nearest module.
fn exists(parts: &[&str]) -> bool {
    if module_file(parts).is_some() {
        return true;
    }
    (1..parts.len()).rev().any(|k| {
        module_file(&parts[..k]).is_some_and(|file| parts[k..].iter().all(|n| defines(&file, n)))
    })
}

#[test]
fn docs_requirements_name_only_modules_that_exist() {
    let text = requirements();
    let top: Vec<String> = std::fs::read_dir(root().join("src"))
        .expect("src/")
        .flatten()
        .map(|e| {
            e.file_name()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .collect();
    let mut missing = std::collections::BTreeSet::new();
    let mut checked = 0;
    for code in quoted(&text) {
        let Some(parts) = rust_path(code) else {
            continue;
        };
        // `std::…`, `Tool(…)` rules and the like are not the crate's.
        if !top.iter().any(|t| t == parts[0]) {
            continue;
        }
        checked += 1;
        if !exists(&parts) {
            missing.insert(code.to_string());
        }
    }
    assert!(checked > 50, "only {checked} module paths found");
    assert!(
        missing.is_empty(),
        "docs/requirements.md names code that is not in src/: {missing:?}"
    );
}

#[test]
fn docs_requirements_name_only_test_files_that_exist() {
    let text = requirements();
    let mut missing = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || "`,;()".contains(c)) {
        let word = word.trim_end_matches(['.', ':']);
        if !word.ends_with(".rs") || word.contains(':') || word.contains('*') {
            // `domain:docs.rs` is a site, `tui_*.rs` a family of files.
            continue;
        }
        let found = if word.contains('/') {
            root().join(word).is_file()
        } else {
            root().join("tests").join(word).is_file() || found_in_src(word)
        };
        if !found {
            missing.push(word.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "docs/requirements.md names files that do not exist: {missing:?}"
    );
}

/// Whether a file of that name is somewhere under src/ or benches/.
fn found_in_src(name: &str) -> bool {
    fn walk(dir: &Path, name: &str) -> bool {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries.flatten().any(|e| {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, name)
                } else {
                    e.file_name() == name
                }
            })
        })
    }
    walk(&root().join("src"), name) || walk(&root().join("benches"), name)
}

#[test]
fn docs_requirements_check_sees_a_moved_module() {
    assert!(exists(&["permission", "check"]));
    assert!(exists(&["runtime", "tool_call"]));
    assert!(!exists(&["approval", "pipeline"]));
    assert!(!exists(&["runtime", "protocol"]));
    assert_eq!(
        rust_path("crate::tools::registry::BUILTIN"),
        Some(vec!["tools", "registry", "BUILTIN"])
    );
    assert_eq!(rust_path("Bash(make:*)"), None);
}
