//! A Markdown document rendered one run of top-level blocks at a time
//! (TUI-2), so that a reply streaming in costs work proportional to what is
//! new: a finished block is laid out once, a column-0 code block is
//! highlighted once per line as it grows, and only the open block is
//! rendered again when more text comes.
//!
//! A whole document is rendered the same way ([`render_markdown`]), so the
//! rows of a reply do not change when its stream ends.

use super::Theme;
use super::highlight::CodeHighlighter;
use super::markdown::{code_block_rows, render_blocks};
use super::markdown_blocks::{BlockSplitter, fence_info};
use ratatui::text::Line;

/// Renders `text` as Markdown wrapped to `width` columns.
pub fn render_markdown(text: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let mut doc = MarkdownDoc::new(width, theme);
    doc.push(text);
    let mut lines = doc.finished_rows().to_vec();
    lines.extend(doc.open_rows(false));
    lines
}

/// A growing document: its text, the rows of its finished blocks and what
/// is needed to go on.
#[derive(Clone)]
pub struct MarkdownDoc {
    width: u16,
    theme: Theme,
    text: String,
    /// How much of `text` the splitter has seen: whole lines only.
    scanned: usize,
    splitter: BlockSplitter,
    /// Where the open run of blocks starts in `text`.
    open_start: usize,
    /// The rows of everything before `open_start`.
    finished: Vec<Line<'static>>,
    /// The last finished block wants a blank row before the next one.
    blank_after: bool,
    /// The open run's column-0 fenced code block, highlighted so far.
    code: Option<OpenCode>,
}

/// A column-0 fenced code block as its lines come.
#[derive(Clone)]
struct OpenCode {
    info: String,
    highlighter: CodeHighlighter,
    /// The highlighted rows of its complete lines.
    rows: Vec<Line<'static>>,
    /// Its complete lines, kept in case highlighting fails and they are
    /// redone plainly.
    source: String,
    closed: bool,
}

impl OpenCode {
    fn new(info: &str, theme: &Theme) -> Self {
        Self {
            info: info.to_string(),
            highlighter: CodeHighlighter::new(info, theme),
            rows: Vec::new(),
            source: String::new(),
            closed: false,
        }
    }

    /// Adds one complete line (with its newline).
    fn push(&mut self, line: &str) {
        self.source.push_str(line);
        match self.highlighter.line(line) {
            Some(row) => self.rows.push(row),
            None => {
                // Syntect gave up: the whole block is plain, as a whole
                // render would make it.
                let plain = self.highlighter.clone();
                self.rows = self.source.lines().map(|l| plain.plain_line(l)).collect();
            }
        }
    }

    /// The block's rows, with `partial` (a line still growing) as its last
    /// code line when it is not empty.
    fn block_rows(&self, partial: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let mut rows = self.rows.clone();
        if !partial.is_empty() {
            let mut highlighter = self.highlighter.clone();
            rows.push(
                highlighter
                    .line(partial)
                    .unwrap_or_else(|| highlighter.plain_line(partial)),
            );
        }
        code_block_rows(&self.info, rows, usize::from(width), theme, &[], &[])
    }
}

/// Whether a line still growing waits until it is longer before it is
/// shown, because for a moment it would show a bare marker or change the
/// rows above it:
/// - one or two `-` or `=`: the start of a list item (`- `) as often as of
///   a setext underline, which would make the text above a heading (and a
///   list item's text jump off its marker's row);
/// - a list marker, `#`s or `>`s with nothing after them yet;
/// - a table's delimiter row being written (`|--`), which until it is whole
///   turns the header row into a paragraph of pipes.
///
/// The line shows as soon as it goes on; only a reply that ends in such a
/// line, without a newline, keeps it hidden.
fn held_back(partial: &str) -> bool {
    let marks = partial.trim();
    let all = |c: u8| marks.bytes().all(|b| b == c);
    let underline = (1..=2).contains(&marks.len()) && (all(b'-') || all(b'='));
    let bullet = matches!(marks, "-" | "+" | "*");
    let digits = marks.bytes().take_while(u8::is_ascii_digit).count();
    let number = (1..=9).contains(&digits) && matches!(&marks[digits..], "." | ")");
    let heading = (1..=6).contains(&marks.len()) && all(b'#');
    let quote = !marks.is_empty() && marks.bytes().all(|b| matches!(b, b'>' | b' ' | b'\t'));
    let delimiter = marks.starts_with('|')
        && marks
            .bytes()
            .all(|b| matches!(b, b'|' | b':' | b'-' | b' ' | b'\t'));
    underline || bullet || number || heading || quote || delimiter
}

impl MarkdownDoc {
    pub fn new(width: u16, theme: &Theme) -> Self {
        Self {
            width,
            theme: theme.clone(),
            text: String::new(),
            scanned: 0,
            splitter: BlockSplitter::default(),
            open_start: 0,
            finished: Vec::new(),
            blank_after: false,
            code: None,
        }
    }

    /// The width the rows are wrapped to.
    pub fn width(&self) -> u16 {
        self.width
    }

    /// The text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Appends `more` and renders every block it finishes.
    pub fn push(&mut self, more: &str) {
        self.text.push_str(more);
        while let Some(newline) = self.text[self.scanned..].find('\n') {
            let start = self.scanned;
            let end = start + newline + 1;
            self.scanned = end;
            let line = self.text[start..end - 1].trim_end_matches('\r');
            let info = self.splitter.line(line);
            let opened = info
                .opens_top_fence
                .then(|| OpenCode::new(fence_info(line), &self.theme));
            if info.starts_block {
                self.finish_run(start);
            }
            if opened.is_some() {
                self.code = opened;
            } else if let Some(code) = self.code.as_mut() {
                if info.top_fence_content {
                    code.push(&self.text[start..end]);
                } else if info.closes_top_fence {
                    code.closed = true;
                }
            }
        }
    }

    /// The rows of the finished blocks: they never change once made.
    pub fn finished_rows(&self) -> &[Line<'static>] {
        &self.finished
    }

    /// The rows of the open run (the blank row before it included), as the
    /// text stands: rendered again whenever asked. While `streaming`, a last
    /// line of bare markers waits for its text; once the reply has ended it
    /// is the text (an answer may well be `42.`).
    pub fn open_rows(&self, streaming: bool) -> Vec<Line<'static>> {
        let partial = &self.text[self.scanned..];
        let rows = match &self.code {
            // A closing fence still without its newline closes.
            Some(code) if !code.closed && self.closes_open_fence(partial) => {
                code.block_rows("", self.width, &self.theme)
            }
            Some(code) if !code.closed => code.block_rows(partial, self.width, &self.theme),
            // After a closed fence a line still growing begins a block.
            Some(code) => {
                let mut rows = code.block_rows("", self.width, &self.theme);
                let next = render_blocks(partial, self.width, &self.theme).lines;
                if !next.is_empty() {
                    rows.push(Line::default());
                    rows.extend(next);
                }
                rows
            }
            None => {
                let end = if streaming && held_back(partial) {
                    self.scanned
                } else {
                    self.text.len()
                };
                render_blocks(&self.text[self.open_start..end], self.width, &self.theme).lines
            }
        };
        let mut out = Vec::with_capacity(rows.len() + 1);
        if self.blank_after && !self.finished.is_empty() && !rows.is_empty() {
            out.push(Line::default());
        }
        out.extend(rows);
        out
    }

    fn closes_open_fence(&self, partial: &str) -> bool {
        let mut splitter = self.splitter.clone();
        let line = partial.trim_end_matches('\r');
        !line.is_empty() && splitter.line(line).closes_top_fence
    }

    /// Renders `text[open_start..end]`, a finished run, onto the rows.
    fn finish_run(&mut self, end: usize) {
        let (rows, blank_after) = match self.code.take() {
            Some(code) => (code.block_rows("", self.width, &self.theme), true),
            None => {
                let run = render_blocks(&self.text[self.open_start..end], self.width, &self.theme);
                (run.lines, run.blank_after)
            }
        };
        self.open_start = end;
        if rows.is_empty() {
            // A run that shows nothing (a reference definition, an HTML
            // comment) leaves the spacing as it was.
            self.blank_after |= blank_after;
            return;
        }
        if self.blank_after && !self.finished.is_empty() {
            self.finished.push(Line::default());
        }
        self.finished.extend(rows);
        self.blank_after = blank_after;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    /// The document streamed in pieces of `step` bytes renders what the
    /// whole of that prefix renders (at every line end), and finished rows
    /// never change.
    fn check_streaming(text: &str, step: usize, theme: &Theme) {
        let mut doc = MarkdownDoc::new(40, theme);
        let mut shown: Vec<Line<'static>> = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let mut next = (at + step).min(text.len());
            while !text.is_char_boundary(next) {
                next += 1;
            }
            doc.push(&text[at..next]);
            at = next;
            let finished = doc.finished_rows();
            assert!(
                finished.starts_with(&shown),
                "finished rows changed at {at}"
            );
            shown = finished.to_vec();
            let mut all = finished.to_vec();
            all.extend(doc.open_rows(true));
            // Mid-line, a growing code line may show a space or two that
            // CommonMark would not count yet; compare where lines end.
            if !text[..at].ends_with('\n') && at < text.len() {
                continue;
            }
            let whole = render_blocks(&text[..at], 40, theme).lines;
            assert_eq!(text_of(&all), text_of(&whole), "at byte {at}");
            assert_eq!(all, whole, "styles at byte {at}");
        }
    }

    const SAMPLE: &str = "# Plan\n\nFirst **bold** and `code`, then a long \
        sentence that has to wrap at forty columns.\n\n1. one\n2. two\n   \
        - nested\n\n```rust\nfn main() {\n\n    println!(\"hi\");\n}\n```\n\
        After the code.\n> quoted\n> more\n\n---\n\n~~~\nplain\n~~~\n\n\
        <!--\n\nhidden\n-->\n\n- loose\n\n- list\n\n```\nlast\n```\n\nEnd.";

    #[test]
    fn tui2_streamed_rows_match_the_whole_render_at_every_byte() {
        for theme in [Theme::colored(), Theme::monochrome()] {
            check_streaming(SAMPLE, 1, &theme);
            check_streaming(SAMPLE, 7, &theme);
        }
    }

    #[test]
    fn tui2_cutting_into_blocks_renders_what_the_whole_renders() {
        let docs = [
            SAMPLE,
            "Intro:\n```py\nprint(1)\n```\nThen:\n\n- a\n- b\n\n  still b\n- c\n\nEnd",
            "> quote\n>\n> more\n\n***\n\n    indented code\n\n    more code\n\nText\n===\n",
            "- a\n\n- b\n\n1. one\n\n2. two\n",
            "1. x\n\n   ```\n   code\n\n   ```\n2. y\n\n<pre>\n\n</pre>\n\ndone",
        ];
        for theme in [Theme::colored(), Theme::monochrome()] {
            for doc in docs {
                let whole = render_blocks(doc, 40, &theme).lines;
                assert_eq!(
                    text_of(&render_markdown(doc, 40, &theme)),
                    text_of(&whole),
                    "{doc:?}"
                );
                assert_eq!(render_markdown(doc, 40, &theme), whole, "{doc:?}");
            }
        }
    }

    #[test]
    fn tui2_finished_blocks_are_rendered_once() {
        let mut doc = MarkdownDoc::new(40, &Theme::colored());
        doc.push("para one\n\npara two\n\n");
        assert_eq!(text_of(doc.finished_rows()), ["para one"]);
        // A block is finished once the first line of the next is whole.
        doc.push("three");
        assert_eq!(text_of(doc.finished_rows()), ["para one"]);
        doc.push("\n");
        assert_eq!(text_of(doc.finished_rows()), ["para one", "", "para two"]);
        assert_eq!(text_of(&doc.open_rows(true)), ["", "three"]);
    }

    #[test]
    fn tui2_an_open_code_block_shows_its_lines_as_they_come() {
        let mut doc = MarkdownDoc::new(40, &Theme::monochrome());
        doc.push("```sh\nls -l\ngit st");
        assert_eq!(
            text_of(&doc.open_rows(true)),
            ["```sh", "  ls -l", "  git st", "```"]
        );
        doc.push("atus\n```");
        assert_eq!(
            text_of(&doc.open_rows(true)),
            ["```sh", "  ls -l", "  git status", "```"]
        );
    }

    /// Tables, long code lines and long lists, as they stream.
    const TABLES: &str = "Compare:\n\n| tool | risk | what |\n|:--|:-:|--:|\n\
        | Read | low | reads a file and never writes to it |\n| 日本語 | high | 😀 |\n\n\
        - [ ] a task that is long enough to wrap the line\n\n\
        1. one\n\n2. two\n\n3. three\n\n4. four\n\n5. five\n\n6. six\n\n7. seven\n\n\
        8. eight\n\n9. nine\n\n10. ten, long enough to wrap at forty columns\n\n\
        ```rust\nlet s = \"a string literal far too long for forty columns\";\n```\n\
        > | a | b |\n> |---|---|\n> | 1 | 2 |\n\nDone.";

    #[test]
    fn ux_streamed_tables_code_and_lists_match_the_whole_render() {
        for theme in [Theme::colored(), Theme::monochrome()] {
            check_streaming(TABLES, 1, &theme);
            check_streaming(TABLES, 5, &theme);
        }
    }

    #[test]
    fn ux_a_line_of_markers_only_waits_for_its_text() {
        let mut doc = MarkdownDoc::new(40, &Theme::colored());
        doc.push("- one\n- two\n  -");
        assert_eq!(text_of(&doc.open_rows(true)), ["• one", "• two"]);
        doc.push(" nested");
        assert_eq!(
            text_of(&doc.open_rows(true)),
            ["• one", "• two", "  • nested"]
        );
        let mut doc = MarkdownDoc::new(40, &Theme::colored());
        doc.push("| a | b |\n|--");
        assert_eq!(text_of(&doc.open_rows(true)), ["| a | b |"]);
        doc.push("-|---|\n");
        assert_eq!(text_of(&doc.open_rows(true)), ["a │ b", "──┼──"]);
    }

    #[test]
    fn tui2_a_crlf_document_renders_like_lf() {
        let crlf = SAMPLE.replace('\n', "\r\n");
        check_streaming(&crlf, 5, &Theme::colored());
    }
}
