//! Custom agent definitions: `agents/*.md` in `.zcode/`, `.claude/` and
//! `$ZCODE_HOME/` (see `files` for the order), Claude Code's format.
//!
//! Frontmatter:
//! - `name`: the agent's name; absent, the file's stem. Letters, digits,
//!   `-`, `_`, `.`; `explore` and `general-purpose` (any case) are the
//!   built-in agents' and refused.
//! - `description` (required): when to use it; the Agent tool lists it.
//! - `tools`: `Read, Grep, Bash` or a YAML list; absent: every tool the
//!   general-purpose agent has. Unknown names are reported and dropped;
//!   `mcp__…` names are kept as written.
//! - `model`: a model reference; `inherit` (or absent): the parent's.
//! - `permissionMode`: only restrictions are kept: `plan`, `readOnly` /
//!   `read-only` run it read-only; `default` / `inherit` change nothing;
//!   one that would give more than the parent has (`acceptEdits`,
//!   `bypassPermissions`, …) is reported and ignored: a sub-agent never
//!   has more permission than its parent.
//! - Anything else (`color`, …) is ignored.
//!
//! The body is the agent's system prompt.

pub use super::Problem;
use super::by_name::ByName;
use super::files::{Budget, Found, Source, markdown_files, sources};
use super::frontmatter::{self, Value};
use super::{invalid_name_reason, valid_name};
use std::path::{Path, PathBuf};

/// The built-in agents, whose names a file cannot take.
pub(crate) const BUILTIN_AGENTS: [&str; 2] = ["explore", "general-purpose"];

/// The keys the lenient frontmatter reading knows.
const KEYS: &[&str] = &[
    "name",
    "description",
    "tools",
    "model",
    "permissionMode",
    "color",
];

/// One custom agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDefinition {
    pub name: String,
    pub description: String,
    /// The tools it may use; `None`: every tool the general-purpose agent has.
    pub tools: Option<Vec<String>>,
    /// A model reference to resolve; `None`: the parent's.
    pub model: Option<String>,
    /// It runs read-only (`permissionMode: plan` or `readOnly`).
    pub read_only: bool,
    /// The body: its system prompt.
    pub prompt: String,
    pub path: PathBuf,
}

/// Every custom agent, sorted by name, with the files left out. A name
/// found in several directories is taken from the first (project before
/// user); `known_tools` are the tool names a `tools` list may use.
pub fn load_agents(
    workspace: &Path,
    zcode_home: &Path,
    known_tools: &[&str],
) -> (Vec<AgentDefinition>, Vec<Problem>) {
    load_from(&sources(workspace, zcode_home, "agents"), known_tools)
}

/// [`load_agents`] over the given directories.
pub(crate) fn load_from(
    sources: &[Source],
    known_tools: &[&str],
) -> (Vec<AgentDefinition>, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut agents = ByName::default();
    let mut budget = Budget::default();
    for source in sources {
        agents.next_directory();
        for found in markdown_files(source, &mut budget, &mut problems) {
            let Some(agent) = parse_agent(&found, known_tools, &mut problems) else {
                continue;
            };
            let (name, path) = (agent.name.clone(), agent.path.clone());
            if let Err(first) = agents.add(&name, &path, agent) {
                problems.push(Problem::new(
                    &path,
                    format!(
                        "the agent name {name:?} is already used by {}",
                        first.display()
                    ),
                ));
            }
        }
    }
    (agents.into_values(), problems)
}

/// One file as an agent; `None` (with its problems recorded) when unusable.
fn parse_agent(
    found: &Found,
    known_tools: &[&str],
    problems: &mut Vec<Problem>,
) -> Option<AgentDefinition> {
    let path = &found.path;
    let mut fail = |reason: String| problems.push(Problem::new(path, reason));
    let doc = match frontmatter::parse(&found.text, KEYS) {
        Ok(doc) => doc,
        Err(reason) => {
            fail(reason);
            return None;
        }
    };
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = doc.text("name").map_or(stem, str::to_string);
    if !valid_name(&name) || name.contains(':') {
        fail(invalid_name_reason(&name));
        return None;
    }
    if BUILTIN_AGENTS.iter().any(|b| b.eq_ignore_ascii_case(&name)) {
        fail(format!(
            "the name {name:?} is a built-in agent's; give this agent another name"
        ));
        return None;
    }
    let Some(description) = doc.text("description") else {
        fail(
            "has no description: the frontmatter needs `description:` saying when to use the agent"
                .to_string(),
        );
        return None;
    };
    let tools = match doc.fields.get("tools") {
        None => None,
        Some(Value::Text(list)) => Some(list.split(',').map(str::to_string).collect()),
        Some(Value::List(list)) => Some(list.clone()),
        Some(Value::Other) => {
            fail(
                "`tools` is neither a comma list nor a list of names; every tool is given"
                    .to_string(),
            );
            None
        }
    }
    .map(|names: Vec<String>| known(names, known_tools, &mut fail));
    let model = doc
        .text("model")
        .filter(|m| !m.eq_ignore_ascii_case("inherit"))
        .map(str::to_string);
    let read_only = match doc.text("permissionMode") {
        None => false,
        Some(mode) => match mode.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
            "plan" | "readonly" => true,
            "default" | "inherit" => false,
            _ => {
                fail(format!(
                    "permissionMode {mode:?} is ignored: a sub-agent never has more permission than its parent (only plan or readOnly restrict it)"
                ));
                false
            }
        },
    };
    Some(AgentDefinition {
        name,
        description: description.to_string(),
        tools,
        model,
        read_only,
        prompt: doc.body.trim().to_string(),
        path: path.clone(),
    })
}

/// The known tool names of `names` (trimmed, deduplicated, in order);
/// each unknown one reported.
fn known(names: Vec<String>, known_tools: &[&str], fail: &mut impl FnMut(String)) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    for name in names {
        let name = name.trim();
        if name.is_empty() || kept.iter().any(|k| k == name) {
            continue;
        }
        if name.starts_with("mcp__") || known_tools.contains(&name) {
            kept.push(name.to_string());
        } else {
            fail(format!("unknown tool {name:?} in `tools` is left out"));
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extensions::files::Scope;

    const TOOLS: &[&str] = &["Read", "Grep", "Glob", "Bash", "Edit", "Write"];

    /// Written as Claude Code's documentation shows its agent files: an
    /// unquoted multi-line description with colons and `<example>` blocks.
    const CLAUDE_CODE_REVIEWER: &str = r#"---
name: code-reviewer
description: Use this agent when you need to review code for quality, security and maintainability. Examples:
<example>
Context: The user has just written a new function.
user: "Please write a function that checks if a number is prime"
assistant: "Here is the function: ..."
<commentary>
Since code was written, use the code-reviewer agent: it reviews the new code.
</commentary>
</example>
tools: Read, Grep, Glob, Bash
model: sonnet
color: blue
---

You are a senior code reviewer ensuring high standards of code quality and security.

When invoked:
1. Run git diff to see recent changes
2. Focus on modified files
"#;

    fn dir_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Vec<Source>) {
        crate::extensions::test_files::workspace(files, "agents")
    }

    use crate::extensions::test_files::reasons;

    #[test]
    fn custom_agent_claude_code_file_loads_unchanged() {
        let (_ws, sources) = dir_with(&[(".claude/agents/code-reviewer.md", CLAUDE_CODE_REVIEWER)]);
        let (agents, problems) = load_from(&sources, TOOLS);
        assert!(problems.is_empty(), "{}", reasons(&problems));
        let agent = &agents[0];
        assert_eq!(agent.name, "code-reviewer");
        assert!(
            agent
                .description
                .starts_with("Use this agent when you need to review code")
        );
        assert!(agent.description.contains("<commentary>"));
        assert!(agent.description.ends_with("</example>"));
        assert_eq!(
            agent.tools.as_deref(),
            Some(&["Read", "Grep", "Glob", "Bash"].map(String::from)[..])
        );
        assert_eq!(agent.model.as_deref(), Some("sonnet"));
        assert!(!agent.read_only);
        assert!(agent.prompt.starts_with("You are a senior code reviewer"));
        assert!(agent.prompt.ends_with("2. Focus on modified files"));
    }

    #[test]
    fn custom_agent_project_definition_wins_over_user() {
        let agent = |d: &str| format!("---\nname: rev\ndescription: {d}\n---\nbody");
        let (ws, sources) = dir_with(&[
            ("home/agents/rev.md", &agent("user")),
            (".claude/agents/rev.md", &agent("claude")),
            (".zcode/agents/Rev.md", &agent("zcode")),
        ]);
        let (agents, problems) = load_from(&sources, TOOLS);
        assert!(problems.is_empty(), "{}", reasons(&problems));
        assert_eq!(agents.len(), 1);
        assert_eq!(agents[0].description, "zcode");
        assert_eq!(agents[0].path, ws.path().join(".zcode/agents/Rev.md"));
    }

    #[test]
    fn custom_agent_name_defaults_to_file_stem_and_list_is_sorted() {
        let (_ws, sources) = dir_with(&[
            (".zcode/agents/zeta.md", "---\ndescription: z\n---\n"),
            (
                ".zcode/agents/alpha.md",
                "---\ndescription: a\ntools: [Read, mcp__gh__search]\nmodel: inherit\n---\n",
            ),
        ]);
        let (agents, problems) = load_from(&sources, TOOLS);
        assert!(problems.is_empty(), "{}", reasons(&problems));
        let names: Vec<&str> = agents.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["alpha", "zeta"]);
        assert_eq!(
            agents[0].tools.as_deref(),
            Some(&["Read", "mcp__gh__search"].map(String::from)[..])
        );
        assert_eq!(agents[0].model, None);
        assert_eq!(agents[1].tools, None);
    }

    #[test]
    fn bad_input_agent_unknown_tool_is_reported_and_dropped() {
        let (_ws, sources) = dir_with(&[(
            ".zcode/agents/a.md",
            "---\ndescription: d\ntools: Read, Teleport, Bash\n---\n",
        )]);
        let (agents, problems) = load_from(&sources, TOOLS);
        assert_eq!(
            agents[0].tools.as_deref(),
            Some(&["Read", "Bash"].map(String::from)[..])
        );
        let text = reasons(&problems);
        assert!(
            text.contains("a.md: unknown tool \"Teleport\" in `tools` is left out"),
            "{text}"
        );
    }

    #[test]
    fn bad_input_agent_builtin_name_clash_is_skipped() {
        let (_ws, sources) = dir_with(&[
            (
                ".zcode/agents/x.md",
                "---\nname: Explore\ndescription: d\n---\n",
            ),
            (
                ".zcode/agents/general-purpose.md",
                "---\ndescription: d\n---\n",
            ),
        ]);
        let (agents, problems) = load_from(&sources, TOOLS);
        assert!(agents.is_empty());
        assert_eq!(problems.len(), 2, "{}", reasons(&problems));
        assert!(reasons(&problems).contains("is a built-in agent's"));
    }

    #[test]
    fn bad_input_agent_missing_description_or_broken_frontmatter_is_skipped() {
        let (_ws, sources) = dir_with(&[
            (".zcode/agents/nodesc.md", "---\nname: n\n---\nbody"),
            (
                ".zcode/agents/open.md",
                "---\nname: o\ndescription: d\nbody",
            ),
            (".zcode/agents/bad name.md", "---\ndescription: d\n---\n"),
            (".zcode/agents/ok.md", "---\ndescription: fine\n---\n"),
        ]);
        let (agents, problems) = load_from(&sources, TOOLS);
        let names: Vec<&str> = agents.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["ok"]);
        let text = reasons(&problems);
        assert!(text.contains("nodesc.md: has no description"), "{text}");
        assert!(
            text.contains("open.md: the frontmatter opened with --- is never closed"),
            "{text}"
        );
        assert!(
            text.contains("bad name.md: the name \"bad name\" is not usable"),
            "{text}"
        );
    }

    #[test]
    fn custom_agent_permission_mode_keeps_only_restrictions() {
        let file = |mode: &str| format!("---\ndescription: d\npermissionMode: {mode}\n---\n");
        let (_ws, sources) = dir_with(&[
            (".zcode/agents/plan.md", &file("plan")),
            (".zcode/agents/ro.md", &file("read-only")),
            (".zcode/agents/def.md", &file("default")),
            (".zcode/agents/bypass.md", &file("bypassPermissions")),
            (".zcode/agents/edits.md", &file("acceptEdits")),
        ]);
        let (agents, problems) = load_from(&sources, TOOLS);
        let read_only: Vec<(&str, bool)> = agents
            .iter()
            .map(|a| (a.name.as_str(), a.read_only))
            .collect();
        assert_eq!(
            read_only,
            [
                ("bypass", false),
                ("def", false),
                ("edits", false),
                ("plan", true),
                ("ro", true)
            ]
        );
        let text = reasons(&problems);
        assert_eq!(problems.len(), 2, "{text}");
        assert!(text.contains("bypass.md: permissionMode \"bypassPermissions\" is ignored"));
        assert!(text.contains("never has more permission than its parent"));
    }

    #[test]
    fn bad_input_agent_duplicate_name_in_one_directory_is_reported() {
        let (_ws, sources) = dir_with(&[
            (
                ".zcode/agents/a.md",
                "---\nname: same\ndescription: one\n---\n",
            ),
            (
                ".zcode/agents/b.md",
                "---\nname: same\ndescription: two\n---\n",
            ),
        ]);
        let (agents, problems) = load_from(&sources, TOOLS);
        assert_eq!(agents.len(), 1);
        assert_eq!(agents[0].description, "one");
        assert!(reasons(&problems).contains("b.md: the agent name \"same\" is already used by"));
        assert_eq!(sources[0].scope, Scope::Project);
    }

    #[test]
    fn load_agents_reads_the_three_directories() {
        let ws = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join("agents")).unwrap();
        std::fs::write(
            home.path().join("agents/mine.md"),
            "---\ndescription: d\n---\n",
        )
        .unwrap();
        let (agents, problems) = load_agents(ws.path(), home.path(), TOOLS);
        assert!(problems.is_empty());
        assert_eq!(agents[0].name, "mine");
    }
}
