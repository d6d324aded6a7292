//! Reading one project settings file: `.zcode/settings.json`, or Claude
//! Code's `.claude/settings.json` and `.claude/settings.local.json`, whose
//! `permissions.allow|deny|ask` lists hold rules in the `Tool(content)`
//! syntax. The bytes read are the bytes hashed for trust and parsed, so
//! what is trusted is exactly what is applied.

use crate::permission::rule_source::RuleSource;
use crate::permission::rules::{Rule, RuleKind, RuleSet};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The project settings files zcode reads, in the order they are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SettingsFile {
    Zcode,
    Claude,
    ClaudeLocal,
}

/// A settings file larger than this is refused rather than read.
const MAX_BYTES: u64 = 1 << 20;

/// The tools whose rule content is a path: Claude Code's path forms are
/// read with Claude Code's meaning in its files.
const PATH_TOOLS: [&str; 5] = ["Read", "Edit", "Write", "Glob", "Grep"];

impl SettingsFile {
    pub const ALL: [SettingsFile; 3] = [
        SettingsFile::Zcode,
        SettingsFile::Claude,
        SettingsFile::ClaudeLocal,
    ];

    /// Where the file is, relative to the project root.
    pub fn relative_path(self) -> &'static str {
        match self {
            SettingsFile::Zcode => ".zcode/settings.json",
            SettingsFile::Claude => ".claude/settings.json",
            SettingsFile::ClaudeLocal => ".claude/settings.local.json",
        }
    }

    pub fn source(self) -> RuleSource {
        match self {
            SettingsFile::Zcode => RuleSource::ZcodeSettings,
            SettingsFile::Claude => RuleSource::ClaudeSettings,
            SettingsFile::ClaudeLocal => RuleSource::ClaudeLocalSettings,
        }
    }

    fn is_claude(self) -> bool {
        self != SettingsFile::Zcode
    }
}

/// A settings file as read: the hash of its bytes and its rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedFile {
    pub file: SettingsFile,
    pub digest: String,
    pub rules: RuleSet,
}

/// A settings file that is there but cannot be used; it names the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct FileError {
    pub path: PathBuf,
    pub message: String,
}

/// Reads `file` under `root`; `Ok(None)` when it does not exist.
pub fn load(root: &Path, file: SettingsFile) -> Result<Option<LoadedFile>, FileError> {
    let path = root.join(file.relative_path());
    let error = |message: String| FileError {
        path: path.clone(),
        message,
    };
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(error(format!("cannot be read ({e})"))),
    };
    // A link's target may be a file edits reach without the question a
    // settings file gets; only a regular file is read.
    if !meta.file_type().is_file() {
        return Err(error(
            "is not a regular file (a symbolic link or a directory); zcode reads only a regular file here".into(),
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .and_then(|f| f.take(MAX_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| error(format!("cannot be read ({e})")))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(error("is larger than 1 MiB".into()));
    }
    let rules = parse(file, &bytes, root).map_err(error)?;
    Ok(Some(LoadedFile {
        file,
        digest: digest(&bytes),
        rules,
    }))
}

/// The hash trust is given to: the file's exact bytes.
pub fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The rules of a settings file's text. Anything it cannot read for sure
/// is an error (never a rule dropped): a deny list read in part would
/// deny less than the team wrote.
pub fn parse(file: SettingsFile, bytes: &[u8], root: &Path) -> Result<RuleSet, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "is not UTF-8 text".to_string())?;
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("is not valid JSON ({e})"))?;
    let Value::Object(top) = value else {
        return Err("is not a JSON object".into());
    };
    if !file.is_claude()
        && let Some(key) = top
            .keys()
            .find(|k| !["permissions", "$schema"].contains(&k.as_str()))
    {
        return Err(format!(
            "unknown key \"{key}\" (zcode's settings file holds \"permissions\" only)"
        ));
    }
    let Some(permissions) = top.get("permissions") else {
        return Ok(RuleSet::default());
    };
    let Value::Object(permissions) = permissions else {
        return Err("\"permissions\" is not an object".into());
    };
    // Claude Code's other permission settings (defaultMode,
    // additionalDirectories) are Claude Code's; zcode's own file has none.
    if !file.is_claude()
        && let Some(key) = permissions
            .keys()
            .find(|k| RuleKind::parse(k).is_none_or(|kind| kind.as_str() != k.as_str()))
    {
        return Err(format!(
            "unknown key \"permissions.{key}\" (the lists are allow, deny and ask)"
        ));
    }
    let mut rules = RuleSet::default();
    for kind in RuleKind::ALL {
        let name = kind.as_str();
        let Some(list) = permissions.get(name) else {
            continue;
        };
        let Value::Array(list) = list else {
            return Err(format!("\"permissions.{name}\" is not a list of rules"));
        };
        for (i, entry) in list.iter().enumerate() {
            let Value::String(text) = entry else {
                return Err(format!("permissions.{name}[{i}] is not a string"));
            };
            let written = if file.is_claude() {
                claude_spelling(text)
            } else {
                text.clone()
            };
            let rule =
                Rule::parse(&written).map_err(|e| format!("permissions.{name}[{i}]: {e}"))?;
            let rule = if file.is_claude() {
                claude_paths(rule, root)
                    .map_err(|why| format!("permissions.{name}[{i}]: '{text}' {why}"))?
            } else {
                rule
            };
            rules.merge(kind, [rule]);
        }
    }
    Ok(rules)
}

/// Claude Code's spellings of what zcode writes otherwise:
/// `mcp__server__*` (every tool of the server) is `mcp__server`, and a
/// Bash prefix `Bash(git diff *)` (one `*`, after a space, at the end) is
/// `Bash(git diff:*)`, which zcode also matches through wrappers and
/// reordered flags.
fn claude_spelling(text: &str) -> String {
    let text = text.trim();
    if let Some(server) = text
        .strip_prefix(crate::permission::mcp_names::PREFIX)
        .and_then(|rest| rest.strip_suffix("__*"))
        && !server.contains(['(', ')', '*'])
    {
        return format!("{}{server}", crate::permission::mcp_names::PREFIX);
    }
    if let Some(prefix) = text
        .strip_prefix("Bash(")
        .and_then(|rest| rest.strip_suffix(" *)"))
        && !prefix.contains(['*', '(', ')'])
        && !prefix.trim().is_empty()
    {
        return format!("Bash({}:*)", prefix.trim_end());
    }
    text.to_string()
}

/// A path rule of a Claude Code file with Claude Code's meaning: `//p` is
/// the absolute `/p`, `~/p` is under the home directory, `/p` is relative
/// to the project root (where the settings file's project is); `p` and
/// `./p` are relative to the project, as in zcode.
fn claude_paths(rule: Rule, root: &Path) -> Result<Rule, &'static str> {
    let Some(content) = &rule.rule_content else {
        return Ok(rule);
    };
    if !PATH_TOOLS.contains(&rule.tool_name.as_str()) {
        return Ok(rule);
    }
    let path = if let Some(absolute) = content.strip_prefix("//") {
        format!("/{absolute}")
    } else if let Some(under_home) = content.strip_prefix("~/") {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .ok_or("names the home directory, and HOME is not set")?;
        Path::new(&home)
            .join(under_home)
            .to_string_lossy()
            .into_owned()
    } else if content.starts_with('~') {
        return Err("names another user's home directory, which zcode does not read");
    } else if let Some(in_project) = content.strip_prefix('/') {
        root.join(in_project).to_string_lossy().into_owned()
    } else {
        return Ok(rule);
    };
    Ok(Rule::with_content(rule.tool_name, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(file: SettingsFile, text: &str) -> Result<RuleSet, String> {
        parse(file, text.as_bytes(), Path::new("/ws"))
    }

    #[test]
    fn team_rules_claude_format_is_read() {
        let set = rules(
            SettingsFile::Claude,
            r#"{"permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)", "WebFetch"],
                "ask": ["Bash(git push:*)"], "defaultMode": "acceptEdits"}, "env": {"A": "1"}}"#,
        )
        .unwrap();
        assert_eq!(
            set.allow,
            vec![Rule::with_content("Bash", "npm run test:*")]
        );
        assert_eq!(
            set.deny,
            vec![Rule::with_content("Read", "./.env"), Rule::tool("WebFetch")]
        );
        assert_eq!(set.ask, vec![Rule::with_content("Bash", "git push:*")]);
        assert_eq!(
            rules(SettingsFile::Zcode, "{}").unwrap(),
            RuleSet::default()
        );
    }

    #[test]
    fn team_rules_claude_spellings_of_prefixes_and_servers() {
        let set = rules(
            SettingsFile::Claude,
            r#"{"permissions": {"deny": ["Bash(curl *)", "mcp__github__*", "Bash(git * main)"]}}"#,
        )
        .unwrap();
        assert_eq!(
            set.deny,
            vec![
                Rule::with_content("Bash", "curl:*"),
                Rule::tool("mcp__github"),
                Rule::with_content("Bash", "git * main"),
            ]
        );
        // A partial MCP wildcard has no zcode meaning: refused, not dropped.
        let e = rules(
            SettingsFile::Claude,
            r#"{"permissions": {"deny": ["mcp__github__get_*"]}}"#,
        )
        .unwrap_err();
        assert!(e.contains("mcp__github__get_*"), "{e}");
    }

    #[test]
    fn team_rules_claude_path_forms_keep_their_meaning() {
        let set = rules(
            SettingsFile::Claude,
            r#"{"permissions": {"deny": ["Edit(/src/**)", "Read(//etc/passwd)", "Read(secrets/*)"]}}"#,
        )
        .unwrap();
        assert_eq!(
            set.deny,
            vec![
                Rule::with_content("Edit", "/ws/src/**"),
                Rule::with_content("Read", "/etc/passwd"),
                Rule::with_content("Read", "secrets/*"),
            ]
        );
        // In zcode's own file a path is read as everywhere else in zcode.
        let set = rules(
            SettingsFile::Zcode,
            r#"{"permissions": {"deny": ["Edit(/src/**)"]}}"#,
        )
        .unwrap();
        assert_eq!(set.deny, vec![Rule::with_content("Edit", "/src/**")]);
    }

    #[test]
    fn team_rules_unknown_syntax_is_refused_naming_the_rule() {
        for (file, text, says) in [
            (
                SettingsFile::Claude,
                r#"{"permissions": {"deny": ["bash(rm:*)"]}}"#,
                "permissions.deny[0]: 'bash(rm:*)' is not a rule",
            ),
            (
                SettingsFile::Claude,
                r#"{"permissions": {"deny": ["Bash(rm"]}}"#,
                "'Bash(rm' is not a rule",
            ),
            (
                SettingsFile::Claude,
                r#"{"permissions": {"deny": [3]}}"#,
                "permissions.deny[0] is not a string",
            ),
            (
                SettingsFile::Claude,
                r#"{"permissions": {"deny": "Bash"}}"#,
                "is not a list",
            ),
            (
                SettingsFile::Claude,
                r#"{"permissions": []}"#,
                "not an object",
            ),
            (
                SettingsFile::Claude,
                r#"{"permissions": {"deny": ["Read(~bob/x)"]}}"#,
                "another user's home",
            ),
            (
                SettingsFile::Zcode,
                r#"{"permissions": {"denny": ["Bash"]}}"#,
                "unknown key \"permissions.denny\"",
            ),
            (
                SettingsFile::Zcode,
                r#"{"permission": {}}"#,
                "unknown key \"permission\"",
            ),
            (
                SettingsFile::Zcode,
                r#"{"permissions": {"deny": ["Bash"],}}"#,
                "not valid JSON",
            ),
            (SettingsFile::Zcode, "[]", "not a JSON object"),
        ] {
            let e = rules(file, text).expect_err(text);
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
