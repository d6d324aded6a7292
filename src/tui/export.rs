//! `/copy` and `/export`: the conversation as text. The last answer and
//! its code blocks for the clipboard; the whole transcript as Markdown for
//! a file. Pure functions of the cells, so `update` stays pure and the
//! loop does the writing.

use super::cells::{AgentCell, Cell, ToolStatus};
use crate::figures::agent_figures;
use crate::protocol::SubAgentStatus;
use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

/// The text of the last answer, skipping an empty one still streaming.
pub fn last_answer(cells: &[Cell]) -> Option<&str> {
    cells.iter().rev().find_map(|cell| match cell {
        Cell::Assistant { text, .. } if !text.trim().is_empty() => Some(text.as_str()),
        _ => None,
    })
}

/// The code blocks of a Markdown text (fenced and indented), in order,
/// each as its content without the fences.
pub fn code_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => current = Some(String::new()),
            Event::Text(text) => {
                if let Some(block) = current.as_mut() {
                    block.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(block) = current.take() {
                    blocks.push(block);
                }
            }
            _ => {}
        }
    }
    blocks
}

/// The info string of each fenced code block (empty for indented ones).
pub fn code_block_languages(markdown: &str) -> Vec<String> {
    Parser::new(markdown)
        .filter_map(|event| match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                Some(info.split_whitespace().next().unwrap_or("").to_string())
            }
            Event::Start(Tag::CodeBlock(CodeBlockKind::Indented)) => Some(String::new()),
            _ => None,
        })
        .collect()
}

/// What the conversation header names.
pub struct ExportHeader<'a> {
    pub session_id: &'a str,
    pub workspace: &'a str,
    pub model: &'a str,
}

/// The conversation as one Markdown document: the user's messages and the
/// answers as written, tool calls with their status and output fenced, so
/// that the file reads well and renders as it did on screen.
pub fn transcript_markdown(cells: &[Cell], header: &ExportHeader<'_>) -> String {
    let mut out = String::from("# zcode session\n\n");
    out.push_str(&format!("- session: `{}`\n", header.session_id));
    if !header.workspace.is_empty() {
        out.push_str(&format!("- workspace: `{}`\n", header.workspace));
    }
    if !header.model.is_empty() {
        out.push_str(&format!("- model: `{}`\n", header.model));
    }
    for cell in cells.iter().filter(|c| in_conversation(c)) {
        out.push('\n');
        match cell {
            Cell::User { text } => {
                out.push_str("## You\n\n");
                push_block(&mut out, text);
            }
            Cell::Assistant { text, .. } => {
                out.push_str("## zcode\n\n");
                push_block(&mut out, text);
            }
            Cell::Tool {
                tool,
                summary,
                status,
                detail,
                output,
                diff,
                ..
            } => {
                let mark = match status {
                    ToolStatus::Running => "running",
                    ToolStatus::Waiting => "waiting for approval",
                    ToolStatus::Done => "done",
                    ToolStatus::Failed => "failed",
                    ToolStatus::Denied => "denied",
                };
                out.push_str(&format!("**{tool}** {} ({mark})\n", inline(summary)));
                if let Some(diff) = diff.as_deref().filter(|d| !d.is_empty()) {
                    out.push('\n');
                    push_fenced(&mut out, "diff", diff);
                } else if !output.is_empty() {
                    out.push('\n');
                    push_fenced(&mut out, "text", output);
                } else if !detail.is_empty() {
                    out.push_str(&format!("\n> {}\n", inline(detail)));
                }
            }
            Cell::Agents(group) => {
                for agent in &group.agents {
                    push_agent(&mut out, agent);
                }
            }
            Cell::Compaction {
                summary,
                kept_messages,
                ..
            } => push_quoted(
                &mut out,
                &format!(
                    "conversation compacted ({kept_messages} recent messages kept); summary:\n\n{summary}"
                ),
            ),
            // The screen's own lines (command output such as /help, notices,
            // errors) are not part of the conversation.
            Cell::Notice { .. } | Cell::Error { .. } | Cell::Welcome => {}
        }
    }
    out
}

/// Whether a cell is part of the conversation, rather than the screen's:
/// the welcome, notices (command output such as `/help`, mode changes) and
/// error notices are left out of an export.
fn in_conversation(cell: &Cell) -> bool {
    !matches!(
        cell,
        Cell::Welcome | Cell::Notice { .. } | Cell::Error { .. }
    )
}

/// A sub-agent: its label and description, how it ended with its
/// figures, and the result the model read, fenced.
fn push_agent(out: &mut String, agent: &AgentCell) {
    let figures = agent_figures(agent.tool_calls, agent.usage, agent.elapsed_ms());
    let state = match agent.finished.as_ref().map(|s| s.status) {
        None => "running",
        Some(SubAgentStatus::Completed) => "done",
        Some(SubAgentStatus::Failed) => "failed",
        Some(SubAgentStatus::Cancelled) => "cancelled",
    };
    out.push_str(&format!(
        "**{}** {} ({state}: {figures})\n",
        inline(&agent.info.label),
        inline(&agent.info.description)
    ));
    if !agent.output.is_empty() {
        out.push('\n');
        push_fenced(out, "text", &agent.output);
    }
}

fn push_block(out: &mut String, text: &str) {
    out.push_str(text.trim_end());
    out.push('\n');
}

/// Text on one line, safe inside Markdown emphasis and lists.
fn inline(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn push_quoted(out: &mut String, text: &str) {
    for line in text.trim_end().lines() {
        out.push_str("> ");
        out.push_str(line);
        out.push('\n');
    }
}

/// A fenced block whose fence is longer than any backtick run inside, so
/// that output holding fences of its own cannot close it early.
fn push_fenced(out: &mut String, info: &str, text: &str) {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    out.push_str(&format!("{fence}{info}\n"));
    out.push_str(text.trim_end_matches('\n'));
    out.push_str(&format!("\n{fence}\n"));
}

/// The default `/export` file name: the session's short id. It goes in
/// the exports directory ([`default_export_path`]), never the workspace.
pub fn default_export_name(session_id: &str) -> String {
    let short: String = session_id.chars().take(8).collect();
    format!("zcode-{short}.md")
}

/// Where `/export` without a file writes: `exports_dir` (the user's zcode
/// home's `exports/`), else the temporary directory; never the current
/// directory, which is usually the repository being worked on.
pub fn default_export_path(
    exports_dir: Option<&std::path::Path>,
    session_id: &str,
) -> std::path::PathBuf {
    exports_dir_or_default(exports_dir).join(default_export_name(session_id))
}

/// The directory [`default_export_path`] writes in.
pub fn exports_dir_or_default(exports_dir: Option<&std::path::Path>) -> std::path::PathBuf {
    exports_dir.map_or_else(|| std::env::temp_dir().join("zcode-exports"), Into::into)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(output: &str) -> Cell {
        Cell::Tool {
            call_id: "c1".into(),
            tool: "Bash".into(),
            summary: "cat notes.md".into(),
            status: ToolStatus::Done,
            detail: String::new(),
            output: output.into(),
            diff: None,
            expanded: false,
        }
    }

    #[test]
    fn ux_last_answer_skips_later_non_answers_and_an_empty_stream() {
        let cells = vec![
            Cell::Assistant {
                text: "first".into(),
                streaming: false,
            },
            tool("x"),
            Cell::Assistant {
                text: "second".into(),
                streaming: false,
            },
            Cell::Notice {
                text: "note".into(),
            },
            Cell::Assistant {
                text: String::new(),
                streaming: true,
            },
        ];
        assert_eq!(last_answer(&cells), Some("second"));
        assert_eq!(last_answer(&cells[1..2]), None);
    }

    #[test]
    fn ux_code_blocks_are_found_fenced_and_indented() {
        let md = "intro\n\n```rust\nfn main() {}\n```\n\ntext\n\n    indented\n\n~~~\n```inner```\n~~~\n";
        assert_eq!(
            code_blocks(md),
            vec!["fn main() {}\n", "indented\n", "```inner```\n"]
        );
        assert_eq!(code_block_languages(md), vec!["rust", "", ""]);
    }

    #[test]
    fn ux_export_keeps_tool_output_fenced_even_when_it_holds_fences() {
        let cells = vec![
            Cell::User {
                text: "show notes".into(),
            },
            tool("# notes\n```sh\nrm -rf /\n```\n````\n"),
            Cell::Assistant {
                text: "Here they are.".into(),
                streaming: false,
            },
        ];
        let header = ExportHeader {
            session_id: "0123456789abcdef",
            workspace: "/w",
            model: "demo/scripted",
        };
        let md = transcript_markdown(&cells, &header);
        assert!(md.contains("## You\n\nshow notes\n"), "{md}");
        assert!(md.contains("## zcode\n\nHere they are.\n"), "{md}");
        // The output's own fences stay inside one block: parsed back, the
        // export has exactly one code block holding the whole output.
        let blocks = code_blocks(&md);
        assert_eq!(blocks, vec!["# notes\n```sh\nrm -rf /\n```\n````\n"]);
    }

    #[test]
    fn ux_export_name_uses_the_short_session_id() {
        assert_eq!(default_export_name("0123456789abcdef"), "zcode-01234567.md");
    }
}
