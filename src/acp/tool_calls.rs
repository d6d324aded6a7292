//! How a zcode tool call reads in an editor: ACP's kind (the icon), a title
//! of a few words, and the files it touches (the editor can follow them).

use agent_client_protocol::v1::schema::{ToolCallLocation, ToolKind};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The kind an editor shows for `tool`.
pub fn kind(tool: &str) -> ToolKind {
    match tool {
        "Read" | "ReadSessionContext" | "TodoRead" | "ListModels" => ToolKind::Read,
        "Write" | "Edit" => ToolKind::Edit,
        "Glob" | "Grep" => ToolKind::Search,
        "Bash" => ToolKind::Execute,
        "WebFetch" => ToolKind::Fetch,
        "EnterPlanMode" | "ExitPlanMode" => ToolKind::SwitchMode,
        "TodoWrite" | "Agent" => ToolKind::Think,
        _ => ToolKind::Other,
    }
}

fn text<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// At most `max` characters of the first line of `s`, with `…` when cut.
fn short(s: &str, max: usize) -> String {
    let line = s.lines().next().unwrap_or("").trim();
    let cut: String = line.chars().take(max).collect();
    if cut.chars().count() < line.chars().count() || s.trim().lines().count() > 1 {
        format!("{cut}…")
    } else {
        cut
    }
}

/// A path as the user knows it: relative to the workspace where it is
/// inside it.
fn shown_path(path: &str, workspace: &Path) -> String {
    Path::new(path)
        .strip_prefix(workspace)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.to_string())
}

/// The title of a call of `tool` with `input`: "Read src/main.rs",
/// "cargo test", "Search \"fn main\" in src".
pub fn title(tool: &str, input: &Value, workspace: &Path) -> String {
    let path = || text(input, "file_path").map(|p| shown_path(p, workspace));
    match tool {
        "Read" | "Write" | "Edit" => match path() {
            Some(p) => format!("{tool} {p}"),
            None => tool.to_string(),
        },
        "Bash" => text(input, "command")
            .map(|c| short(c, 120))
            .unwrap_or_else(|| "Bash".to_string()),
        "Glob" | "Grep" => {
            let pattern = text(input, "pattern").unwrap_or("");
            match text(input, "path") {
                Some(dir) => format!(
                    "{tool} {} in {}",
                    short(pattern, 80),
                    shown_path(dir, workspace)
                ),
                None => format!("{tool} {}", short(pattern, 80)),
            }
        }
        "WebFetch" => text(input, "url")
            .map(|u| format!("Fetch {}", short(u, 120)))
            .unwrap_or_else(|| "WebFetch".to_string()),
        "Agent" => match (text(input, "subagent_type"), text(input, "description")) {
            (Some(kind), Some(d)) => format!("{kind}: {}", short(d, 80)),
            (None, Some(d)) => short(d, 80),
            _ => "Agent".to_string(),
        },
        "TodoWrite" => "Update the todo list".to_string(),
        "ExitPlanMode" => "Ready to code?".to_string(),
        "EnterPlanMode" => "Plan before acting".to_string(),
        "AskUserQuestion" => "A question for you".to_string(),
        "Skill" => text(input, "skill")
            .or_else(|| text(input, "name"))
            .map(|s| format!("Skill {s}"))
            .unwrap_or_else(|| "Skill".to_string()),
        _ => tool.to_string(),
    }
}

/// The files a call touches, absolute, with the line it starts at where
/// the input says.
pub fn locations(tool: &str, input: &Value, workspace: &Path) -> Vec<ToolCallLocation> {
    let absolute = |p: &str| -> PathBuf {
        let p = Path::new(p);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            workspace.join(p)
        }
    };
    match tool {
        "Read" | "Write" | "Edit" => {
            let Some(path) = text(input, "file_path") else {
                return Vec::new();
            };
            let mut location = ToolCallLocation::new(absolute(path));
            if tool == "Read"
                && let Some(line) = input.get("offset").and_then(Value::as_u64)
            {
                location = location.line(u32::try_from(line).unwrap_or(u32::MAX));
            }
            vec![location]
        }
        "Glob" | "Grep" => text(input, "path")
            .map(|p| vec![ToolCallLocation::new(absolute(p))])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn acp_tool_calls_read_as_kind_title_and_location() {
        let ws = Path::new("/w");
        assert_eq!(kind("Bash"), ToolKind::Execute);
        assert_eq!(kind("Edit"), ToolKind::Edit);
        assert_eq!(kind("mcp__files__read"), ToolKind::Other);
        let input = json!({"file_path": "/w/src/main.rs", "offset": 12});
        assert_eq!(title("Read", &input, ws), "Read src/main.rs");
        let loc = locations("Read", &input, ws);
        assert_eq!(loc[0].path, PathBuf::from("/w/src/main.rs"));
        assert_eq!(loc[0].line, Some(12));
        assert_eq!(
            title("Bash", &json!({"command": "cargo test\necho done"}), ws),
            "cargo test…"
        );
        assert_eq!(
            title("Grep", &json!({"pattern": "fn main", "path": "/w/src"}), ws),
            "Grep fn main in src"
        );
        // Bad input from the model never fails the title.
        assert_eq!(title("Write", &json!({"file_path": 3}), ws), "Write");
        assert!(locations("Edit", &json!(null), ws).is_empty());
    }
}
