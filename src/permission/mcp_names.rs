//! How MCP tools are named (`mcp__<server>__<tool>`) and how a rule or a
//! tool list names a whole server (`mcp__<server>`).
//!
//! A server name never contains `__`, so the text between `mcp__` and the
//! next `__` is always the server: `mcp__a` can only ever cover server
//! `a`'s tools, never those of a server `a__b` (which is refused) or a
//! tool `b__c` of `a` posing as server `a__b`.

/// The prefix of every MCP tool name.
pub const PREFIX: &str = "mcp__";

/// Longest tool name the model APIs accept.
pub(crate) const MAX_TOOL_NAME: usize = 64;

/// Why `name` cannot name a server; `None` when it can.
pub(crate) fn server_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("the name is empty");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Some("a server name has only letters, digits, '-' and '_'");
    }
    if name.contains("__") || name.starts_with('_') || name.ends_with('_') {
        return Some("a server name has no '__' and does not start or end with '_'");
    }
    if name.len() > 32 {
        return Some("a server name has at most 32 characters");
    }
    None
}

/// The name the model calls a server's tool by: characters the model APIs
/// refuse become `_`, and a name too long for them is cut and ends with a
/// short hash of the whole, so two long names stay apart.
pub fn tool_name(server: &str, tool: &str) -> String {
    let cleaned: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let full = format!("{PREFIX}{server}__{cleaned}");
    if full.len() <= MAX_TOOL_NAME {
        return full;
    }
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("{server}\0{tool}").as_bytes());
    let hash: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
    let keep = MAX_TOOL_NAME - hash.len() - 1;
    // Only ASCII is left, so any byte index is a char boundary.
    format!("{}_{hash}", &full[..keep])
}

/// The server of an MCP tool name (`mcp__s__t` → `s`), or of a server
/// name written as a rule (`mcp__s` → `s`).
pub(crate) fn server_of(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(PREFIX)?;
    let server = rest.split("__").next()?;
    (!server.is_empty()).then_some(server)
}

/// Whether `name` names a whole server (`mcp__s`, no tool part).
pub(crate) fn is_server_name(name: &str) -> bool {
    name.strip_prefix(PREFIX)
        .is_some_and(|rest| !rest.is_empty() && !rest.contains("__"))
}

/// Whether a rule or list entry `entry` covers the tool `tool_name`: the
/// same name, or the tool's server (`mcp__s` covers `mcp__s__t`).
pub fn covers(entry: &str, tool_name: &str) -> bool {
    entry == tool_name
        || (is_server_name(entry)
            && tool_name
                .strip_prefix(entry)
                .is_some_and(|rest| rest.starts_with("__") && rest.len() > 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_server_names_cannot_pose_as_others() {
        assert_eq!(server_name_problem("files"), None);
        assert_eq!(server_name_problem("my-server_2"), None);
        for bad in ["", "a__b", "_a", "a_", "a b", "a.b", "a/b", "é"] {
            assert!(server_name_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn mcp_tool_names_are_api_safe_and_bounded() {
        assert_eq!(tool_name("fs", "read_file"), "mcp__fs__read_file");
        assert_eq!(tool_name("fs", "read.file v2"), "mcp__fs__read_file_v2");
        let long = tool_name("fs", &"x".repeat(100));
        assert_eq!(long.len(), MAX_TOOL_NAME);
        assert_ne!(long, tool_name("fs", &"x".repeat(101)));
        assert!(long.starts_with("mcp__fs__"));
    }

    #[test]
    fn mcp_a_server_rule_covers_only_its_own_tools() {
        assert!(covers("mcp__fs", "mcp__fs__read"));
        assert!(covers("mcp__fs__read", "mcp__fs__read"));
        assert!(!covers("mcp__fs", "mcp__fsx__read"));
        assert!(!covers("mcp__fs", "mcp__fs__"));
        assert!(!covers("mcp__fs__read", "mcp__fs__read_all"));
        assert!(!covers("mcp__", "mcp____x"));
        assert!(!covers("Bash", "mcp__Bash__x"));
        assert_eq!(server_of("mcp__fs__read"), Some("fs"));
        assert_eq!(server_of("mcp__fs"), Some("fs"));
        assert_eq!(server_of("Read"), None);
    }
}
