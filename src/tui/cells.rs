//! The transcript's cells: what each entry is, and which of them changed
//! since the layout last looked (TUI-2). Every change goes through a method here, so the layout
//! lays out again only the cells from the first changed one on, however many
//! cells there are; reading is through the slice.

mod agent;
mod denial;
mod result;

pub use agent::{AgentCell, AgentEntry, AgentGroup};
pub use denial::denial_words;
pub use result::{PLAN_SENT_BACK, Shown, finished, summarised};
use serde_json::Value;
use std::ops::{Deref, Index, IndexMut};
use std::slice::SliceIndex;

/// The state of a tool call in the transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolStatus {
    Running,
    /// Its approval, question or plan review waits for the user.
    Waiting,
    Done,
    Failed,
    Denied,
}

/// One entry of the transcript.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    User {
        text: String,
    },
    /// `streaming` while deltas still arrive; finalised by `AssistantMessage`.
    Assistant {
        text: String,
        streaming: bool,
    },
    Tool {
        call_id: String,
        tool: String,
        summary: String,
        status: ToolStatus,
        /// The first line of the output, or the denial reason.
        detail: String,
        /// The whole output (capped), shown when the cell is expanded.
        output: String,
        /// What an Edit or Write changed, as a unified diff.
        diff: Option<String>,
        /// Showing the whole output rather than its first line (Ctrl+O).
        expanded: bool,
    },
    /// The sub-agents started by Agent calls of one reply (one or more),
    /// each replacing its Agent call's tool cell.
    Agents(AgentGroup),
    Notice {
        text: String,
    },
    /// Older history was summarised (`/compact`, or near the window): the
    /// summary's first line, all of it when expanded (Ctrl+O).
    Compaction {
        summary: String,
        kept_messages: usize,
        expanded: bool,
    },
    Error {
        text: String,
    },
    /// The line every start shows, naming `/help`: the screen's only, never
    /// part of the conversation (exports and the exit text leave it out).
    Welcome,
}

#[derive(Debug, Clone, Default)]
pub struct Cells {
    items: Vec<Cell>,
    /// The first cell that may differ from what the layout last saw.
    changed_from: Option<usize>,
}

/// Equal when the cells are: what the layout has seen does not count.
impl PartialEq for Cells {
    fn eq(&self, other: &Self) -> bool {
        self.items == other.items
    }
}

impl PartialEq<Vec<Cell>> for Cells {
    fn eq(&self, other: &Vec<Cell>) -> bool {
        &self.items == other
    }
}

impl Deref for Cells {
    type Target = [Cell];
    fn deref(&self) -> &[Cell] {
        &self.items
    }
}

impl<I: SliceIndex<[Cell]>> Index<I> for Cells {
    type Output = I::Output;
    fn index(&self, i: I) -> &I::Output {
        &self.items[i]
    }
}

impl IndexMut<usize> for Cells {
    fn index_mut(&mut self, i: usize) -> &mut Cell {
        self.mark(i);
        &mut self.items[i]
    }
}

impl FromIterator<Cell> for Cells {
    fn from_iter<I: IntoIterator<Item = Cell>>(iter: I) -> Self {
        Self {
            items: iter.into_iter().collect(),
            changed_from: Some(0),
        }
    }
}

impl<'a> IntoIterator for &'a Cells {
    type Item = &'a Cell;
    type IntoIter = std::slice::Iter<'a, Cell>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl Cells {
    pub fn push(&mut self, cell: Cell) {
        self.mark(self.items.len());
        self.items.push(cell);
    }

    pub fn last_mut(&mut self) -> Option<&mut Cell> {
        let last = self.items.len().checked_sub(1)?;
        self.mark(last);
        self.items.last_mut()
    }

    pub fn get_mut(&mut self, i: usize) -> Option<&mut Cell> {
        if i < self.items.len() {
            self.mark(i);
        }
        self.items.get_mut(i)
    }

    /// Removes cell `i` (a sub-agent's Agent call joining its group).
    pub fn remove(&mut self, i: usize) -> Option<Cell> {
        if i >= self.items.len() {
            return None;
        }
        self.mark(i);
        Some(self.items.remove(i))
    }

    /// Changes cell `i` through `f`, which says whether the cell's rows
    /// changed: a change that shows nowhere (text streamed into a collapsed
    /// sub-agent) costs no layout.
    pub fn edit(&mut self, i: usize, f: impl FnOnce(&mut Cell) -> bool) {
        if let Some(cell) = self.items.get_mut(i)
            && f(cell)
        {
            self.mark(i);
        }
    }

    pub fn clear(&mut self) {
        self.items.clear();
        self.mark(0);
    }

    /// Changes the cells `f` picks: only those count as changed.
    pub fn update_where(
        &mut self,
        mut pick: impl FnMut(&Cell) -> bool,
        mut f: impl FnMut(&mut Cell),
    ) {
        for i in 0..self.items.len() {
            if pick(&self.items[i]) {
                self.mark(i);
                f(&mut self.items[i]);
            }
        }
    }

    /// The last cell `pick` chooses, marked as changed.
    pub fn rfind_mut(&mut self, pick: impl Fn(&Cell) -> bool) -> Option<&mut Cell> {
        let i = self.items.iter().rposition(pick)?;
        self.get_mut(i)
    }

    /// The first cell changed since [`Cells::take_changes`] was last called
    /// (`len()` when only cells were added at the end), or `None`.
    pub fn changes(&self) -> Option<usize> {
        self.changed_from
    }

    /// Returns [`Cells::changes`] and forgets them: the caller has seen them.
    pub fn take_changes(&mut self) -> Option<usize> {
        self.changed_from.take()
    }

    fn mark(&mut self, i: usize) {
        self.changed_from = Some(self.changed_from.map_or(i, |c| c.min(i)));
    }
}

/// The one line that says what a tool call does: the Bash command, the
/// file path, the URL, the pattern, how many todos, the first question,
/// the plan's title; else the compact JSON input.
pub fn input_summary(input: &Value) -> String {
    let field = [
        "command",
        "file_path",
        "path",
        "url",
        "pattern",
        "query",
        "description",
    ]
    .iter()
    .find_map(|k| input.get(*k).and_then(Value::as_str));
    if let Some(s) = field {
        return s.to_string();
    }
    // Lists read better as what they hold than as JSON.
    if let Some(todos) = input.get("todos").and_then(Value::as_array) {
        let noun = if todos.len() == 1 { "todo" } else { "todos" };
        return format!("{} {noun}", todos.len());
    }
    if let Some(first) = input
        .get("questions")
        .and_then(Value::as_array)
        .and_then(|q| q.first())
        .and_then(|q| q.get("question"))
        .and_then(Value::as_str)
    {
        return first.to_string();
    }
    if let Some(plan) = input.get("plan").and_then(Value::as_str) {
        return plan_title(plan);
    }
    if input.as_object().is_some_and(|o| o.is_empty()) {
        return String::new();
    }
    input.to_string()
}

/// Tool output rows a cell keeps: enough to read, bounded in memory.
pub const KEPT_OUTPUT_LINES: usize = 500;

/// The output a tool cell keeps: at most `KEPT_OUTPUT_LINES` lines, tabs
/// and control characters made printable, outer blank lines dropped.
pub fn kept_output(output: &str) -> String {
    kept_lines(output, KEPT_OUTPUT_LINES)
}

/// [`kept_output`] with at most `max` lines.
pub fn kept_lines(output: &str, max: usize) -> String {
    let total = output.lines().skip_while(|l| l.trim().is_empty()).count();
    let mut lines: Vec<String> = output
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .take(max)
        .map(|l| {
            l.replace('\t', "    ")
                .chars()
                .filter(|c| !c.is_control())
                .collect()
        })
        .collect();
    if total > max {
        lines.push(format!("… {} more lines", total - max));
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

/// Bytes of a running call's output a cell keeps: its last lines, what
/// it shows while the call runs.
pub const LIVE_KEPT_BYTES: usize = 4096;

/// Rows of a running call's output its cell shows.
pub const LIVE_ROWS: usize = 5;

/// Adds output that arrived while a call runs to the tail its cell keeps:
/// at most [`LIVE_KEPT_BYTES`], from a line's start where it can; a
/// carriage return (a progress bar redrawn) starts its line over.
pub fn push_live(tail: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '\n' => tail.push('\n'),
            '\r' => {
                let start = tail.rfind('\n').map_or(0, |i| i + 1);
                tail.truncate(start);
            }
            '\t' => tail.push_str("    "),
            c if c.is_control() => {}
            c => tail.push(c),
        }
    }
    if tail.len() > LIVE_KEPT_BYTES {
        let mut cut = tail.len() - LIVE_KEPT_BYTES;
        while !tail.is_char_boundary(cut) {
            cut += 1;
        }
        // From the next line's start when there is one in the kept part.
        if let Some(nl) = tail[cut..].find('\n') {
            cut += nl + 1;
        }
        tail.drain(..cut);
    }
}

/// The first non-empty line of a tool's output, tabs and control
/// characters made printable, outer whitespace trimmed.
pub fn first_line(output: &str) -> String {
    let line = output
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    line.replace('\t', "  ")
        .chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .to_string()
}

/// A plan's title: its first Markdown heading (outside code blocks), else
/// its first line.
pub fn plan_title(plan: &str) -> String {
    let mut fence: Option<&str> = None;
    for line in plan.lines() {
        let trimmed = line.trim_start();
        if let Some(open) = fence {
            if trimmed.starts_with(open) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
            continue;
        }
        let hashes = trimmed.chars().take_while(|c| *c == '#').count();
        let rest = &trimmed[hashes..];
        if (1..=6).contains(&hashes) && (rest.is_empty() || rest.starts_with(' ')) {
            let title = rest.trim().trim_end_matches('#').trim();
            if !title.is_empty() {
                return title.to_string();
            }
        }
    }
    plan.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::{LIVE_KEPT_BYTES, input_summary, plan_title, push_live};

    #[test]
    fn live_output_tail_is_bounded_and_redraws_on_carriage_return() {
        let mut tail = String::new();
        push_live(&mut tail, "building\r 10%\r 50%");
        push_live(&mut tail, "\r100%\nok\n");
        assert_eq!(tail, "100%\nok\n");
        for i in 0..10_000 {
            push_live(&mut tail, &format!("line {i}\n"));
        }
        assert!(tail.len() <= LIVE_KEPT_BYTES);
        assert!(tail.starts_with("line "), "cut at a line start: {tail:.20}");
        assert!(tail.ends_with("line 9999\n"));
    }

    use serde_json::json;

    #[test]
    fn tui2_tool_cells_summarise_lists_not_json() {
        assert_eq!(input_summary(&json!({"command": "ls"})), "ls");
        assert_eq!(
            input_summary(&json!({"todos": [{"content": "a"}, {"content": "b"}]})),
            "2 todos"
        );
        assert_eq!(
            input_summary(&json!({"todos": [{"content": "a"}]})),
            "1 todo"
        );
        assert_eq!(
            input_summary(&json!({"questions": [{"question": "Which CI?"}]})),
            "Which CI?"
        );
        assert_eq!(input_summary(&json!({})), "");
        assert_eq!(input_summary(&json!({"n": 1})), r#"{"n":1}"#);
    }

    #[test]
    fn ux_a_plan_is_titled_by_its_first_heading() {
        assert_eq!(
            plan_title("intro\n\n## Add the parser ##\n# Later"),
            "Add the parser"
        );
        assert_eq!(plan_title("```\n# comment\n```\n# Real"), "Real");
        assert_eq!(plan_title("#hashtag\n\n  First step"), "#hashtag");
        assert_eq!(plan_title("\n  Just words\n"), "Just words");
        assert_eq!(
            input_summary(&json!({"plan": "# Title\n1. a", "allowedPrompts": []})),
            "Title"
        );
    }
}
