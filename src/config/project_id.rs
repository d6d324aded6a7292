//! Stable per-workspace identifiers (GRANT-3).
//!
//! Project rules and preferences are stored under a key derived from the
//! workspace path. The key must be readable (it names a directory or a row),
//! safe as a file name, and short; when shortening loses information a hash
//! of the full path keeps distinct workspaces apart.

use sha2::{Digest, Sha256};
use std::path::Path;

/// Longest project id, in characters.
pub const PROJECT_ID_MAX_LEN: usize = 80;

/// Length of the `-` + 8 hex digits suffix used when an id is cut.
const HASH_SUFFIX_LEN: usize = 9;

/// The project id of `workspace` (GRANT-3).
///
/// The path (as given; callers pass it already absolute) is lower-cased,
/// every run of characters outside `[a-z0-9._-]` becomes one `-`, leading
/// and trailing `-` are trimmed and the result is cut to 80 characters.
/// When the cut drops anything, the last 9 of those 80 characters become
/// `-` followed by the first 8 hex digits of the SHA-256 of the full
/// original path, so deep siblings that share their first 80 characters
/// still get different ids.
///
/// A path with no usable character at all (`/`, or only non-ASCII names)
/// would fold to the empty string; it gets the 8 hex digits alone so that it
/// neither names the parent directory nor collides with other such paths.
pub fn project_id(workspace: &Path) -> String {
    let lowered = workspace.to_string_lossy().to_lowercase();
    let mut folded = String::with_capacity(lowered.len());
    for c in lowered.chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-') {
            folded.push(c);
        } else if !folded.ends_with('-') {
            folded.push('-');
        }
    }
    // Only ASCII remains, so byte offsets below are character offsets.
    let trimmed = folded.trim_matches('-');
    if trimmed.is_empty() {
        return path_hash(workspace);
    }
    if trimmed.len() <= PROJECT_ID_MAX_LEN {
        return trimmed.to_string();
    }
    let keep = &trimmed[..PROJECT_ID_MAX_LEN - HASH_SUFFIX_LEN];
    format!("{keep}-{}", path_hash(workspace))
}

/// First 8 lowercase hex digits of the SHA-256 of the path's raw bytes.
fn path_hash(path: &Path) -> String {
    let digest = Sha256::digest(path.as_os_str().as_encoded_bytes());
    digest[..4].iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(p: &str) -> String {
        project_id(Path::new(p))
    }

    fn is_hash_suffixed(s: &str) -> bool {
        let tail = &s[s.len() - HASH_SUFFIX_LEN..];
        tail.starts_with('-')
            && tail[1..]
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
    }

    #[test]
    fn grant3_simple_path() {
        assert_eq!(id("/home/u/src/zcode"), "home-u-src-zcode");
    }

    #[test]
    fn grant3_keeps_dots_underscores_dashes() {
        assert_eq!(id("/srv/my_app-2.0/web"), "srv-my_app-2.0-web");
    }

    #[test]
    fn grant3_case_is_folded() {
        assert_eq!(id("/Users/Ann/Code/ZCode"), "users-ann-code-zcode");
        assert_eq!(id("/Users/Ann/Code/ZCode"), id("/users/ann/code/zcode"));
    }

    #[test]
    fn grant3_runs_fold_to_one_dash() {
        assert_eq!(id("/a  b//c@@#d/"), "a-b-c-d");
        assert_eq!(id("C:\\Users\\Ann\\My Project"), "c-users-ann-my-project");
    }

    #[test]
    fn grant3_unicode_is_folded() {
        assert_eq!(id("/home/Ünïcødé/projekt-ä"), "home-n-c-d-projekt");
        assert_eq!(id("/home/日本語/app"), "home-app");
    }

    #[test]
    fn grant3_nothing_usable_gives_hash_only() {
        let root = id("/");
        assert_eq!(root.len(), 8);
        assert_ne!(root, id("/日本語"));
    }

    #[test]
    fn grant3_exactly_80_is_not_hashed() {
        // "/" + 80 characters: folds to exactly 80.
        let path = format!("/{}", "a".repeat(80));
        let got = id(&path);
        assert_eq!(got.len(), 80);
        assert_eq!(got, "a".repeat(80));
    }

    #[test]
    fn grant3_81_is_cut_and_hashed() {
        let path = format!("/{}", "a".repeat(81));
        let got = id(&path);
        assert_eq!(got.len(), 80);
        assert!(got.starts_with(&"a".repeat(71)));
        assert!(is_hash_suffixed(&got), "{got}");
    }

    #[test]
    fn grant3_deep_siblings_differ() {
        let base = format!("/home/u/{}", "deep/".repeat(30));
        let a = id(&format!("{base}alpha"));
        let b = id(&format!("{base}beta"));
        assert_ne!(a, b);
        assert_eq!(a[..71], b[..71]);
        assert!(is_hash_suffixed(&a) && is_hash_suffixed(&b));
    }

    #[test]
    fn grant3_length_at_most_80_and_deterministic() {
        for n in [0, 1, 10, 79, 80, 81, 200, 1000] {
            let path = format!("/w/{}", "x/".repeat(n));
            let got = id(&path);
            assert!(got.len() <= PROJECT_ID_MAX_LEN, "{n}: {got}");
            assert_eq!(got, id(&path));
        }
    }

    #[test]
    fn grant3_hash_is_of_the_original_path() {
        // Same folded prefix, differing only in case beyond the cut: the
        // hash still tells them apart.
        let base = format!("/{}", "p".repeat(90));
        assert_ne!(id(&format!("{base}/Src")), id(&format!("{base}/src")));
    }
}
