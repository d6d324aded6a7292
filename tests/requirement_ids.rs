//! The requirement reference `docs/requirements.md` stays complete: every
//! requirement id cited in `src/`, `tests/` or `benches/` (`PERM-8`, the
//! ranges `BASH-1..8` and `GRANT-1/3`, and test-name prefixes such as
//! `perm8_` of a family the reference knows) has an entry there.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Words of the `FAMILY-N` shape that are not requirement ids.
const NOT_IDS: &[&str] = &["UTF-8", "SHA-1", "SHA-256", "ISO-8859", "BIG-1"];

/// The longest range (`FAMILY-n..m`) read as a list of ids; anything
/// longer is taken for something else than a citation.
const MAX_RANGE: u32 = 20;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir`, in a stable order; the third-party MCP server's
/// packages (its lockfile and what npm installed) and the Python client's
/// environment (what pip installed) are not the project's.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .path();
            if path.is_dir() {
                if path
                    .file_name()
                    .is_some_and(|n| n != "node_modules" && n != "mcp-third-party" && n != ".venv")
                {
                    pending.push(path);
                }
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The text of every scanned file, with its path relative to the crate.
fn sources() -> Vec<(String, String)> {
    let root = root();
    let mut out = Vec::new();
    for dir in ["src", "tests", "benches"] {
        for path in files_under(&root.join(dir)) {
            let bytes = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            out.push((name, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    out
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Reads `[0-9]+` at `at`: its value and where it ends.
fn number_at(bytes: &[u8], at: usize) -> Option<(u32, usize)> {
    let end = at
        + bytes[at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
    if end == at {
        return None;
    }
    let value = std::str::from_utf8(&bytes[at..end]).ok()?.parse().ok()?;
    Some((value, end))
}

/// The upper-case ids cited in `text` (`\b[A-Z]+[0-9]*-[0-9]+\b`), with
/// the byte offset of each. `APPR-3..5` also cites APPR-4 and APPR-5;
/// `GRANT-1/3` also cites GRANT-3.
fn cited_ids(text: &str) -> Vec<(String, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        if !bytes[i].is_ascii_uppercase() || (i > 0 && is_word(bytes[i - 1])) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len() && bytes[j].is_ascii_uppercase() {
            j += 1;
        }
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        let family_end = j;
        let parsed = (j < bytes.len() && bytes[j] == b'-')
            .then(|| number_at(bytes, j + 1))
            .flatten();
        let Some((first, end)) = parsed else {
            i = j.max(i + 1);
            continue;
        };
        if bytes.get(end).is_some_and(|&b| is_word(b)) {
            i = end;
            continue;
        }
        let family = &text[start..family_end];
        out.push((format!("{family}-{first}"), start));
        // `APPR-3..5` and `GRANT-1/3`.
        let rest = &bytes[end..];
        let (more, after) = if rest.starts_with(b"..") {
            (number_at(bytes, end + 2), true)
        } else if rest.starts_with(b"/") {
            (number_at(bytes, end + 1), false)
        } else {
            (None, false)
        };
        let more = more.filter(|&(_, more_end)| !bytes.get(more_end).is_some_and(|&b| is_word(b)));
        match more {
            Some((last, _)) if after && last > first && last - first <= MAX_RANGE => {
                for n in first + 1..=last {
                    out.push((format!("{family}-{n}"), start));
                }
            }
            Some((last, _)) if !after => out.push((format!("{family}-{last}"), start)),
            _ => {}
        }
        i = end;
    }
    out
}

/// Test functions named after an id (`fn perm8_…`, `async fn cap2_…`):
/// `(FAMILY-N, offset)` for every `fn <letters><digits>_`.
fn test_name_ids(text: &str) -> Vec<(String, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("fn ") {
        let at = from + found;
        from = at + 3;
        if at > 0 && is_word(bytes[at - 1]) {
            continue;
        }
        let name = at + 3;
        let letters = bytes[name..]
            .iter()
            .take_while(|b| b.is_ascii_lowercase())
            .count();
        if letters == 0 {
            continue;
        }
        let Some((n, end)) = number_at(bytes, name + letters) else {
            continue;
        };
        if bytes.get(end) == Some(&b'_') {
            let family = text[name..name + letters].to_ascii_uppercase();
            out.push((format!("{family}-{n}"), at));
        }
    }
    out
}

/// The ids `docs/requirements.md` explains: entries `- **FAMILY-N** …`.
fn explained_ids(doc: &str) -> Vec<String> {
    doc.lines()
        .filter_map(|line| line.strip_prefix("- **"))
        .filter_map(|rest| rest.split_once("**").map(|(id, _)| id))
        .filter(|id| {
            cited_ids(id)
                .first()
                .is_some_and(|(cited, at)| *at == 0 && cited == id)
        })
        .map(str::to_string)
        .collect()
}

fn reference() -> String {
    let path = root().join("docs/requirements.md");
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn family(id: &str) -> &str {
    id.rsplit_once('-').map_or(id, |(family, _)| family)
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// Every citation found by `scan` in the sources, as id → where.
fn citations(
    scan: impl Fn(&str) -> Vec<(String, usize)>,
    keep: impl Fn(&str) -> bool,
) -> (usize, BTreeMap<String, Vec<String>>) {
    let mut count = 0;
    let mut by_id: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, text) in sources() {
        for (id, at) in scan(&text) {
            if !keep(&id) {
                continue;
            }
            count += 1;
            by_id
                .entry(id)
                .or_default()
                .push(format!("{name}:{}", line_of(&text, at)));
        }
    }
    (count, by_id)
}

fn unexplained(by_id: &BTreeMap<String, Vec<String>>, explained: &BTreeSet<String>) -> String {
    by_id
        .iter()
        .filter(|(id, _)| !explained.contains(*id))
        .map(|(id, wheres)| format!("  {id} (cited at {})", wheres.join(", ")))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_cited_requirement_id_is_explained() {
    let explained: BTreeSet<String> = explained_ids(&reference()).into_iter().collect();
    let (count, by_id) = citations(cited_ids, |id| !NOT_IDS.contains(&id));
    // A scan that finds nothing would pass; the code cites hundreds.
    assert!(count > 100, "only {count} citations found");
    assert!(by_id.len() > 50, "only {} distinct ids found", by_id.len());
    let missing = unexplained(&by_id, &explained);
    assert!(
        missing.is_empty(),
        "docs/requirements.md does not explain these ids; add an entry \
         `- **ID** …` (or, if a word is not an id, add it to NOT_IDS):\n{missing}"
    );
}

#[test]
fn every_test_name_of_a_known_family_is_explained() {
    let explained: BTreeSet<String> = explained_ids(&reference()).into_iter().collect();
    let families: BTreeSet<&str> = explained.iter().map(|id| family(id)).collect();
    let (count, by_id) = citations(test_name_ids, |id| families.contains(family(id)));
    assert!(count > 100, "only {count} test names with an id found");
    let missing = unexplained(&by_id, &explained);
    assert!(
        missing.is_empty(),
        "tests are named after ids docs/requirements.md does not explain:\n{missing}"
    );
}

#[test]
fn the_reference_explains_each_id_once() {
    let ids = explained_ids(&reference());
    assert!(
        ids.len() > 100,
        "only {} entries in docs/requirements.md",
        ids.len()
    );
    let mut seen = BTreeSet::new();
    let twice: Vec<&String> = ids.iter().filter(|id| !seen.insert(*id)).collect();
    assert!(twice.is_empty(), "explained more than once: {twice:?}");
}

#[test]
fn the_scanner_reads_ids_ranges_and_word_boundaries() {
    let ids =
        |text: &str| -> Vec<String> { cited_ids(text).into_iter().map(|(id, _)| id).collect() };
    assert_eq!(ids("// PERM-8: plan"), ["PERM-8"]);
    assert_eq!(ids("(APPR-3..5)"), ["APPR-3", "APPR-4", "APPR-5"]);
    assert_eq!(ids("GRANT-1/3, HOOK-2"), ["GRANT-1", "GRANT-3", "HOOK-2"]);
    assert_eq!(ids("SHA-256 UTF-8"), ["SHA-256", "UTF-8"]);
    // Not ids: inside a word, lower case, no number, a word after it.
    assert!(ids("xPERM-8 perm-8 TODO-less PERM-8x PERM-").is_empty());
    assert_eq!(ids("…PERM-13."), ["PERM-13"]);

    let names =
        |text: &str| -> Vec<String> { test_name_ids(text).into_iter().map(|(id, _)| id).collect() };
    assert_eq!(
        names("fn perm8_a() {}\nasync fn cap2_b() {}\nfn utf8() {}\nfn helper() {}"),
        ["PERM-8", "CAP-2"]
    );

    let doc = "- **PERM-8** plan.\n- **`ux_…`** not an id.\n  - **RULE-1** nested.\n";
    assert_eq!(explained_ids(doc), ["PERM-8"]);
}
