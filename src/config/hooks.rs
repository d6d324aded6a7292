//! Hook entries from the config `hooks` section (CONF-1).
//!
//! A hook runs a shell command around a tool call. Which tools it applies to
//! is chosen by its matcher: an exact tool name, `*` for every tool, or
//! alternatives separated by `|` (`Edit|Write`). MCP tools go by their
//! full name (`mcp__server__tool`); `mcp__server` matches all of a
//! server's tools.

/// Timeout of a hook command when the entry gives none.
pub const DEFAULT_HOOK_TIMEOUT_MS: u64 = 60_000;
/// Largest accepted `timeoutMs` (ten minutes).
pub const MAX_HOOK_TIMEOUT_MS: u64 = 600_000;

/// The points in a tool call where hooks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookEvent {
    PreToolUse,
    PermissionRequest,
    PostToolUse,
}

impl HookEvent {
    pub const ALL: [HookEvent; 3] = [
        HookEvent::PreToolUse,
        HookEvent::PermissionRequest,
        HookEvent::PostToolUse,
    ];

    /// The key of this event in the config `hooks` object.
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PermissionRequest => "PermissionRequest",
            HookEvent::PostToolUse => "PostToolUse",
        }
    }
}

/// One configured hook: run `command` for tools that `matcher` selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookEntry {
    pub matcher: String,
    pub command: String,
    /// Already defaulted ([`DEFAULT_HOOK_TIMEOUT_MS`]) and range-checked.
    pub timeout_ms: u64,
}

impl HookEntry {
    /// Does this entry apply to `tool_name`? Matching is exact and
    /// case-sensitive per alternative; `*` matches every tool.
    pub fn matches(&self, tool_name: &str) -> bool {
        self.matcher
            .split('|')
            .map(str::trim)
            .any(|alt| alt == "*" || crate::permission::mcp_names::covers(alt, tool_name))
    }
}

/// Checks a matcher string; the error text goes after the JSON path.
pub(crate) fn validate_matcher(matcher: &str) -> Result<(), String> {
    if matcher.trim().is_empty() {
        return Err("must not be empty; use \"*\" to match every tool".to_string());
    }
    if matcher.split('|').any(|alt| alt.trim().is_empty()) {
        return Err(format!(
            "'{matcher}' has an empty alternative; write tool names separated by '|'"
        ));
    }
    Ok(())
}

/// All hooks, by event, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hooks {
    pub pre_tool_use: Vec<HookEntry>,
    pub permission_request: Vec<HookEntry>,
    pub post_tool_use: Vec<HookEntry>,
}

impl Hooks {
    pub fn entries(&self, event: HookEvent) -> &[HookEntry] {
        match event {
            HookEvent::PreToolUse => &self.pre_tool_use,
            HookEvent::PermissionRequest => &self.permission_request,
            HookEvent::PostToolUse => &self.post_tool_use,
        }
    }

    /// The entries of `event` that apply to `tool_name`, in file order.
    pub fn matching<'a>(
        &'a self,
        event: HookEvent,
        tool_name: &'a str,
    ) -> impl Iterator<Item = &'a HookEntry> + 'a {
        self.entries(event)
            .iter()
            .filter(move |e| e.matches(tool_name))
    }

    pub fn is_empty(&self) -> bool {
        HookEvent::ALL.iter().all(|e| self.entries(*e).is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(matcher: &str) -> HookEntry {
        HookEntry {
            matcher: matcher.to_string(),
            command: "true".to_string(),
            timeout_ms: DEFAULT_HOOK_TIMEOUT_MS,
        }
    }

    #[test]
    fn conf1_hook_matcher_exact_name() {
        let e = entry("Bash");
        assert!(e.matches("Bash"));
        assert!(!e.matches("bash"));
        assert!(!e.matches("BashOutput"));
    }

    #[test]
    fn conf1_hook_matcher_star_and_alternatives() {
        assert!(entry("*").matches("Anything"));
        let e = entry("Edit|Write");
        assert!(e.matches("Edit") && e.matches("Write"));
        assert!(!e.matches("Read"));
        assert!(entry("Read | *").matches("Bash"));
    }

    #[test]
    fn conf1_hook_matcher_names_an_mcp_server_or_tool() {
        assert!(entry("mcp__fs").matches("mcp__fs__write_file"));
        assert!(entry("mcp__fs__write_file").matches("mcp__fs__write_file"));
        assert!(!entry("mcp__fs").matches("mcp__fsx__write_file"));
        assert!(!entry("mcp__fs__write").matches("mcp__fs__write_file"));
    }

    #[test]
    fn conf1_hook_matcher_validation() {
        assert!(validate_matcher("Edit|Write").is_ok());
        assert!(validate_matcher("").is_err());
        assert!(validate_matcher("Edit|").is_err());
        assert!(validate_matcher("|Edit").is_err());
    }

    #[test]
    fn conf1_hooks_matching_keeps_file_order() {
        let hooks = Hooks {
            pre_tool_use: vec![entry("Bash"), entry("*"), entry("Edit")],
            ..Default::default()
        };
        let got: Vec<&str> = hooks
            .matching(HookEvent::PreToolUse, "Bash")
            .map(|e| e.matcher.as_str())
            .collect();
        assert_eq!(got, ["Bash", "*"]);
        assert_eq!(hooks.matching(HookEvent::PostToolUse, "Bash").count(), 0);
        assert!(!hooks.is_empty());
        assert!(Hooks::default().is_empty());
    }
}
