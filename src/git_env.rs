//! The environment that keeps git from running programs a repository
//! names in its own configuration.
//!
//! A repository's `.git/config` (or a file it includes) can name programs
//! git runs on a plain `git status`: an fsmonitor hook, hooks, a signature
//! checker. A checkout that arrives with its `.git` (a tarball, a shared
//! volume, a CI cache) must not run its code when zcode, or a command
//! judged read-only, only looks at it. `GIT_CONFIG_COUNT` overrides have
//! the command line's precedence, above every file the repository
//! controls, and reach every git the command starts.

/// Settings that name programs, each set to its inert value.
pub const NEUTRALISING_CONFIG: &[(&str, &str)] = &[
    // Run on `status`, `diff` and every index refresh.
    ("core.fsmonitor", "false"),
    // No hook runs from a directory the repository chooses.
    ("core.hooksPath", "/dev/null"),
    // `log` and `show` would run `gpg.program` to check signatures.
    ("log.showSignature", "false"),
    // A bare repository found by walking up (one the workspace carries,
    // or one built file by file) is not used unless named explicitly.
    ("safe.bareRepository", "explicit"),
    // The `ext::` transport runs an arbitrary command.
    ("protocol.ext.allow", "never"),
    // The attributes file outside the tree may assign filter drivers.
    ("core.attributesFile", "/dev/null"),
    // Signature checks (`%G?`, `--show-signature`, `%(signature)`) run
    // the configured program: point them at one that does not exist.
    ("gpg.program", NO_PROGRAM),
    ("gpg.openpgp.program", NO_PROGRAM),
    ("gpg.x509.program", NO_PROGRAM),
    ("gpg.ssh.program", NO_PROGRAM),
];

/// A program path that cannot exist (a directory under `/dev/null`).
const NO_PROGRAM: &str = "/dev/null/no-program";

/// The empty tree's id in a SHA-1 repository, and in a SHA-256 one:
/// attributes read from it assign no driver at all.
pub const EMPTY_TREE_SHA1: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
pub const EMPTY_TREE_SHA256: &str =
    "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321";

/// The variables that apply `NEUTRALISING_CONFIG`, appended after any
/// `GIT_CONFIG_COUNT` entries already in `inherited` (the user's own
/// command-line-scope settings keep working; ours come later and win).
pub fn neutralising_env(inherited: Option<&str>) -> Vec<(String, String)> {
    let start = inherited
        .and_then(|count| count.trim().parse::<usize>().ok())
        // A garbage count makes git refuse to run; replace it.
        .filter(|count| *count < 1000)
        .unwrap_or(0);
    let mut env = Vec::with_capacity(NEUTRALISING_CONFIG.len() * 2 + 1);
    for (i, (key, value)) in NEUTRALISING_CONFIG.iter().enumerate() {
        let index = start + i;
        env.push((format!("GIT_CONFIG_KEY_{index}"), (*key).to_string()));
        env.push((format!("GIT_CONFIG_VALUE_{index}"), (*value).to_string()));
    }
    env.push((
        "GIT_CONFIG_COUNT".to_string(),
        (start + NEUTRALISING_CONFIG.len()).to_string(),
    ));
    env
}

/// For commands judged read-only: the settings above, and git takes no
/// optional lock (it writes nothing) and never prompts. Attribute drivers
/// (`filter`, `textconv`) and `diff.external` have no setting that turns
/// them off: without the sandbox the read-only judgment admits no git
/// form that runs them (`permission::bash::git_strict`); in the sandbox
/// what they run is contained.
pub fn read_only_env() -> Vec<(String, String)> {
    let inherited = std::env::var("GIT_CONFIG_COUNT").ok();
    let mut env = neutralising_env(inherited.as_deref());
    env.push(("GIT_OPTIONAL_LOCKS".to_string(), "0".to_string()));
    env.push(("GIT_TERMINAL_PROMPT".to_string(), "0".to_string()));
    env
}

/// For zcode's own status read of the repository whose git directory is
/// `git_dir`: `read_only_env`, and the attributes come from the empty
/// tree of the repository's object format (no driver from
/// `.gitattributes`) and not from the system file.
pub fn own_read_env(git_dir: &std::path::Path) -> Vec<(String, String)> {
    let mut env = read_only_env();
    let config = std::fs::read_to_string(git_dir.join("config")).unwrap_or_default();
    let sha256 = config.lines().any(|line| {
        let line = line.trim().to_ascii_lowercase();
        line.starts_with("objectformat") && line.ends_with("sha256")
    });
    let empty_tree = if sha256 {
        EMPTY_TREE_SHA256
    } else {
        EMPTY_TREE_SHA1
    };
    env.push(("GIT_ATTR_SOURCE".to_string(), empty_tree.to_string()));
    env.push(("GIT_ATTR_NOSYSTEM".to_string(), "1".to_string()));
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value_of<'a>(env: &'a [(String, String)], name: &str) -> Option<&'a str> {
        env.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    #[test]
    fn git_env_numbers_its_overrides_after_the_inherited_ones() {
        let env = neutralising_env(Some("2"));
        assert_eq!(value_of(&env, "GIT_CONFIG_KEY_2"), Some("core.fsmonitor"));
        let total = 2 + NEUTRALISING_CONFIG.len();
        assert_eq!(
            value_of(&env, "GIT_CONFIG_COUNT"),
            Some(total.to_string().as_str())
        );
        assert!(value_of(&env, "GIT_CONFIG_KEY_1").is_none());
    }

    #[test]
    fn git_env_replaces_a_garbage_count() {
        for garbage in ["x", "-1", "99999999999999999999", ""] {
            let env = neutralising_env(Some(garbage));
            assert_eq!(value_of(&env, "GIT_CONFIG_KEY_0"), Some("core.fsmonitor"));
        }
    }
}
