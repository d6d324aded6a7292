//! Stable per-workspace identifiers (GRANT-3).
//!
//! Project rules and preferences are stored under a key derived from the
//! workspace path. The key must be readable (it names a directory or a row),
//! safe as a file name, short, and different for every directory: it ends
//! in a hash of the canonical path, because the readable part alone folds
//! `/a/ws`, `/a-ws` and `/a/WS` to the same `a-ws`.

use sha2::{Digest, Sha256};
use std::path::Path;

/// Longest project id, in characters.
pub const PROJECT_ID_MAX_LEN: usize = 80;

/// Hex digits of the path hash (48 bits: distinct directories of one user
/// do not collide in practice).
pub const PROJECT_ID_HASH_LEN: usize = 12;

/// The project id of `workspace` (GRANT-3): `<readable>-<hash>`.
///
/// `workspace` must be the canonical path (callers canonicalise it; the id
/// does no I/O). The readable part is the path lower-cased, every run of
/// characters outside `[a-z0-9._-]` folded to one `-`, leading and trailing
/// `-` trimmed, and cut so that the whole id fits in 80 characters. The
/// hash is the first 12 hex digits of the SHA-256 of the path's bytes,
/// always present. A path without a usable character (`/`, only non-ASCII
/// names) gets the hash alone.
pub fn project_id(workspace: &Path) -> String {
    let hash = path_hash(workspace, PROJECT_ID_HASH_LEN);
    let folded = readable_part(workspace);
    let room = PROJECT_ID_MAX_LEN - 1 - PROJECT_ID_HASH_LEN;
    // Only ASCII remains, so byte offsets are character offsets.
    let readable = folded[..folded.len().min(room)].trim_end_matches('-');
    if readable.is_empty() {
        hash
    } else {
        format!("{readable}-{hash}")
    }
}

/// The id earlier versions used: the readable part alone (cut to 80, with
/// an 8-digit hash only when cut). Kept to carry saved rules over to
/// [`project_id`] (see `store::project_ids`); never used to store anything.
pub fn legacy_project_id(workspace: &Path) -> String {
    const SUFFIX_LEN: usize = 9;
    let folded = readable_part(workspace);
    if folded.is_empty() {
        return path_hash(workspace, 8);
    }
    if folded.len() <= PROJECT_ID_MAX_LEN {
        return folded;
    }
    let keep = &folded[..PROJECT_ID_MAX_LEN - SUFFIX_LEN];
    format!("{keep}-{}", path_hash(workspace, 8))
}

/// The lower-cased path with runs outside `[a-z0-9._-]` folded to `-`,
/// trimmed of `-` at both ends.
fn readable_part(workspace: &Path) -> String {
    let lowered = workspace.to_string_lossy().to_lowercase();
    let mut folded = String::with_capacity(lowered.len());
    for c in lowered.chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-') {
            folded.push(c);
        } else if !folded.ends_with('-') {
            folded.push('-');
        }
    }
    folded.trim_matches('-').to_string()
}

/// The first `digits` lowercase hex digits of the SHA-256 of the path's
/// raw bytes (`digits` even, at most 64).
fn path_hash(path: &Path, digits: usize) -> String {
    let digest = Sha256::digest(path.as_os_str().as_encoded_bytes());
    digest[..digits / 2]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(p: &str) -> String {
        project_id(Path::new(p))
    }

    /// `(readable, hash)` of an id with a readable part.
    fn split(id: &str) -> (&str, &str) {
        let (readable, hash) = id.split_at(id.len() - PROJECT_ID_HASH_LEN);
        (readable.trim_end_matches('-'), hash)
    }

    fn is_hex(s: &str) -> bool {
        s.len() == PROJECT_ID_HASH_LEN
            && s.chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
    }

    #[test]
    fn grant3_readable_part_then_hash() {
        let got = id("/home/u/src/zcode");
        let (readable, hash) = split(&got);
        assert_eq!(readable, "home-u-src-zcode");
        assert!(is_hex(hash), "{got}");
        assert_eq!(got, format!("home-u-src-zcode-{hash}"));
    }

    #[test]
    fn grant3_collisions_of_the_readable_part_get_distinct_ids() {
        let ids = [
            "/a/ws", "/a-ws", "/a/WS", "/A/ws", "/a//ws", "/a ws", "/a@ws",
        ]
        .map(id);
        for (i, a) in ids.iter().enumerate() {
            assert_eq!(split(a).0, "a-ws");
            for b in &ids[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn grant3_hash_is_stable() {
        // Pinned: a change here orphans every saved rule.
        assert_eq!(id("/home/u/src/zcode"), id("/home/u/src/zcode"));
        let digest = Sha256::digest(b"/home/u/src/zcode");
        let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(split(&id("/home/u/src/zcode")).1, hex);
    }

    #[test]
    fn grant3_keeps_dots_underscores_dashes() {
        assert_eq!(split(&id("/srv/my_app-2.0/web")).0, "srv-my_app-2.0-web");
    }

    #[test]
    fn grant3_unicode_is_folded() {
        assert_eq!(
            split(&id("/home/Ünïcødé/projekt-ä")).0,
            "home-n-c-d-projekt"
        );
        assert_eq!(split(&id("/home/日本語/app")).0, "home-app");
    }

    #[test]
    fn grant3_nothing_usable_gives_hash_only() {
        let root = id("/");
        assert!(is_hex(&root), "{root}");
        assert_ne!(root, id("/日本語"));
    }

    #[test]
    fn grant3_length_at_most_80() {
        for n in [0, 1, 10, 33, 34, 35, 79, 80, 81, 200, 1000] {
            let path = format!("/w/{}", "x/".repeat(n));
            let got = id(&path);
            assert!(got.len() <= PROJECT_ID_MAX_LEN, "{n}: {got}");
            assert!(!got.contains("--"), "{n}: {got}");
            assert!(is_hex(split(&got).1), "{n}: {got}");
        }
        let long = id(&format!("/{}", "a".repeat(200)));
        assert_eq!(long.len(), PROJECT_ID_MAX_LEN);
    }

    #[test]
    fn grant3_deep_siblings_differ() {
        let base = format!("/home/u/{}", "deep/".repeat(30));
        let a = id(&format!("{base}alpha"));
        let b = id(&format!("{base}beta"));
        assert_ne!(a, b);
        assert_eq!(split(&a).0, split(&b).0);
    }

    #[test]
    fn grant3_legacy_id_is_the_old_scheme() {
        let legacy = |p: &str| legacy_project_id(Path::new(p));
        assert_eq!(legacy("/home/u/src/zcode"), "home-u-src-zcode");
        assert_eq!(legacy("/a/ws"), legacy("/a-ws"));
        assert_eq!(legacy("/a/ws"), legacy("/a/WS"));
        assert_eq!(legacy("/").len(), 8);
        let long = legacy(&format!("/{}", "a".repeat(81)));
        assert_eq!(long.len(), 80);
        assert!(long.starts_with(&"a".repeat(71)));
        // Never equal to a new id, so carrying over cannot clobber one.
        for p in ["/a/ws", "/", &format!("/{}", "a".repeat(81))] {
            assert_ne!(legacy(p), id(p));
        }
    }
}
