//! Markdown to styled lines (TUI-2, PLAN-10): headings, wrapped
//! paragraphs, emphasis, inline code, lists, block quotes, links, rules,
//! tables ([`super::markdown_table`]) and fenced code blocks highlighted by
//! [`super::highlight`], whose long lines wrap after a marker.
//!
//! This module renders a run of whole blocks; [`super::markdown_doc`] cuts a
//! document (whole, or still streaming) into such runs.

use super::Theme;
use super::highlight::highlight_code;
use super::markdown_table::TableBuilder;
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use std::collections::VecDeque;

/// One run of whole blocks rendered: the rows, and whether the last block
/// wants a blank row before whatever follows it.
pub(crate) struct RenderedBlocks {
    pub lines: Vec<Line<'static>>,
    pub blank_after: bool,
}

/// Renders `text`, a run of complete top-level blocks, wrapped to `width`
/// columns. [`super::markdown_doc`] splits a document into such runs and
/// joins them, so that a growing reply renders each block once.
pub(crate) fn render_blocks(text: &str, width: u16, theme: &Theme) -> RenderedBlocks {
    let options =
        Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS | Options::ENABLE_TABLES;
    let events: Vec<Event<'_>> = Parser::new_ext(text, options).collect();
    let mut renderer = Renderer::new(theme, usize::from(width).max(1));
    renderer.number_widths = ordered_number_widths(&events);
    for event in events {
        renderer.event(event);
    }
    renderer.finish()
}

/// For each ordered list, in the order they start, the width of its
/// widest number: items 1 to 9 are padded to line up with 10 and more.
fn ordered_number_widths(events: &[Event<'_>]) -> VecDeque<usize> {
    let mut widths = VecDeque::new();
    // Per open list: its slot in `widths` (ordered lists only), its first
    // number and its item count so far.
    let mut open: Vec<(Option<usize>, u64, u64)> = Vec::new();
    for event in events {
        match event {
            Event::Start(Tag::List(start)) => {
                let slot = start.map(|_| {
                    widths.push_back(0);
                    widths.len() - 1
                });
                open.push((slot, start.unwrap_or(0), 0));
            }
            Event::Start(Tag::Item) => {
                if let Some(list) = open.last_mut() {
                    list.2 += 1;
                }
            }
            Event::End(TagEnd::List(_)) => {
                if let Some((Some(slot), first, items)) = open.pop() {
                    let last = first.saturating_add(items.saturating_sub(1));
                    widths[slot] = last.to_string().len();
                }
            }
            _ => {}
        }
    }
    widths
}

/// The marker continuation rows of a wrapped code line start with, in
/// place of the code's indent.
pub(crate) const CODE_CONTINUATION: &str = "↪ ";
/// The indent of code lines.
const CODE_INDENT: &str = "  ";

/// The rows of a fenced code block from its highlighted lines: indented two
/// columns, between fence rows when there is no colour to set it apart,
/// after `first`/`rest` (the quote bars and list indent it sits in). A line
/// wider than `width` (prefixes and indent included) goes on in the next
/// rows, which start with [`CODE_CONTINUATION`] instead of the indent; its
/// highlighting goes on with it.
pub(crate) fn code_block_rows(
    lang: &str,
    code: impl IntoIterator<Item = Line<'static>>,
    width: usize,
    theme: &Theme,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let fence = !theme.has_color();
    if fence {
        lines.push(Line::from(format!("```{lang}")));
    }
    let used = spans_width(first).max(spans_width(rest)) + str_width(CODE_INDENT);
    let room = width.saturating_sub(used).max(1);
    for line in code {
        for (i, piece) in split_line(line.spans, room, room).into_iter().enumerate() {
            let mut spans = if i == 0 {
                vec![Span::raw(CODE_INDENT)]
            } else {
                vec![Span::styled(CODE_CONTINUATION, theme.dim())]
            };
            spans.extend(piece);
            lines.push(Line::from(spans));
        }
    }
    if fence {
        lines.push(Line::from("```"));
    }
    lines
        .into_iter()
        .enumerate()
        .map(|(i, line)| {
            let mut spans = if i == 0 {
                first.to_vec()
            } else {
                rest.to_vec()
            };
            spans.extend(line.spans);
            Line::from(spans)
        })
        .collect()
}

/// Preformatted `spans` (a line of a preview) at most `room` columns wide:
/// the line, and when it is wider, the rest in rows after
/// [`CODE_CONTINUATION`], as code lines wrap.
pub(crate) fn wrap_preformatted(
    spans: Vec<Span<'static>>,
    room: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let rest_room = room.saturating_sub(str_width(CODE_CONTINUATION)).max(1);
    split_line(spans, room, rest_room)
        .into_iter()
        .enumerate()
        .map(|(i, piece)| {
            let mut spans = Vec::with_capacity(piece.len() + 1);
            if i > 0 {
                spans.push(Span::styled(CODE_CONTINUATION, theme.dim()));
            }
            spans.extend(piece);
            Line::from(spans)
        })
        .collect()
}

/// `spans` cut into pieces, the first at most `first_room` columns wide and
/// the others `rest_room` (at least one character each), each keeping its
/// styles; zero-width characters stay with the one before them.
fn split_line(
    spans: Vec<Span<'static>>,
    first_room: usize,
    rest_room: usize,
) -> Vec<Vec<Span<'static>>> {
    if spans_width(&spans) <= first_room {
        return vec![spans];
    }
    let mut pieces = Vec::new();
    let mut cur: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    let mut room = first_room;
    for span in spans {
        let mut text = String::new();
        for c in span.content.chars() {
            let w = str_width(c.encode_utf8(&mut [0; 4]));
            if used > 0 && used + w > room {
                if !text.is_empty() {
                    cur.push(Span::styled(std::mem::take(&mut text), span.style));
                }
                pieces.push(std::mem::take(&mut cur));
                used = 0;
                room = rest_room;
            }
            text.push(c);
            used += w;
        }
        if !text.is_empty() {
            cur.push(Span::styled(text, span.style));
        }
    }
    if !cur.is_empty() {
        pieces.push(cur);
    }
    pieces
}

struct ListLevel {
    next: Option<u64>,
    /// The marker's width with its space after: every item's text starts
    /// this far in, whatever its number.
    indent: usize,
}

struct Renderer<'t> {
    theme: &'t Theme,
    width: usize,
    out: Vec<Line<'static>>,
    inline: Vec<Span<'static>>,
    styles: Vec<Style>,
    quote_depth: usize,
    lists: Vec<ListLevel>,
    marker: Option<Span<'static>>,
    blank_pending: bool,
    code: Option<(String, String)>,
    links: Vec<(String, usize)>,
    /// [`ordered_number_widths`] of the text, used up list by list.
    number_widths: VecDeque<usize>,
    /// The table being read; its cells collect in `inline`.
    table: Option<TableBuilder>,
    /// Extra indent of the next flushed text's following rows (after a
    /// task list box).
    hang: usize,
}

impl<'t> Renderer<'t> {
    fn new(theme: &'t Theme, width: usize) -> Self {
        Self {
            theme,
            width,
            out: Vec::new(),
            inline: Vec::new(),
            styles: vec![Style::new()],
            quote_depth: 0,
            lists: Vec::new(),
            marker: None,
            blank_pending: false,
            code: None,
            links: Vec::new(),
            number_widths: VecDeque::new(),
            table: None,
            hang: 0,
        }
    }

    fn finish(mut self) -> RenderedBlocks {
        self.flush_inline();
        if let Some((lang, code)) = self.code.take() {
            self.emit_code(&lang, &code);
            self.blank_pending = true;
        }
        RenderedBlocks {
            lines: self.out,
            blank_after: self.blank_pending,
        }
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, patch: Style) {
        let s = self.style().patch(patch);
        self.styles.push(s);
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    fn text(&mut self, text: &str) {
        if let Some((_, code)) = &mut self.code {
            code.push_str(text);
        } else {
            let style = self.style();
            self.inline.push(Span::styled(text.to_string(), style));
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => {
                let style = self.style().patch(self.theme.code());
                let text = if self.theme.has_color() {
                    t.to_string()
                } else {
                    format!("`{t}`")
                };
                self.inline.push(Span::styled(text, style));
            }
            Event::Html(t) | Event::InlineHtml(t) => {
                let t = t.trim_end_matches('\n').to_string();
                self.text(&t);
            }
            Event::InlineMath(t) | Event::DisplayMath(t) => self.text(&t),
            Event::SoftBreak => self.text(" "),
            // A cell is one line: a break in it (`<br>`) is a space.
            Event::HardBreak if self.table.is_some() => self.text(" "),
            Event::HardBreak => {
                self.flush_inline();
            }
            Event::Rule => {
                self.flush_inline();
                self.start_block();
                let (first, _) = self.take_prefixes();
                let used = spans_width(&first);
                let mut spans = first;
                let n = self.width.saturating_sub(used).max(3);
                spans.push(Span::styled("─".repeat(n), self.theme.rule()));
                self.out.push(Line::from(spans));
                self.blank_pending = true;
            }
            Event::TaskListMarker(done) => {
                let mark = if done { "[x] " } else { "[ ] " };
                let style = self.theme.list_marker();
                self.inline.push(Span::styled(mark, style));
                // The item's text wraps under itself, not under the box.
                self.hang = str_width(mark);
            }
            Event::FootnoteReference(t) => self.text(&format!("[^{t}]")),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            // A loose list item's marker waits for its paragraph's text.
            Tag::Paragraph if self.inline.is_empty() => {}
            Tag::Paragraph => self.flush_inline(),
            Tag::Heading { level, .. } => {
                // A heading in a list item starts on its marker's row.
                if !self.inline.is_empty() {
                    self.flush_inline();
                }
                self.push_style(self.theme.heading());
                if !self.theme.has_color() {
                    let hashes = "#".repeat(heading_depth(level));
                    self.text(&format!("{hashes} "));
                }
            }
            Tag::BlockQuote(_) => {
                self.flush_inline();
                self.start_block();
                self.quote_depth += 1;
                self.push_style(self.theme.quote());
            }
            Tag::CodeBlock(kind) => {
                self.flush_inline();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
            }
            Tag::List(start) => {
                self.flush_inline();
                let indent = match start {
                    Some(n) => {
                        let digits = n.to_string().len();
                        let widest = self.number_widths.pop_front().unwrap_or(digits);
                        widest.max(digits) + 2
                    }
                    None => 2,
                };
                self.lists.push(ListLevel {
                    next: start,
                    indent,
                });
            }
            Tag::Item => {
                self.flush_inline();
                let marker = match self.lists.last_mut() {
                    Some(ListLevel {
                        next: Some(n),
                        indent,
                    }) => {
                        let m = format!("{n:>width$}. ", width = indent.saturating_sub(2));
                        *n += 1;
                        m
                    }
                    _ => "• ".to_string(),
                };
                self.marker = Some(Span::styled(marker, self.theme.list_marker()));
            }
            Tag::Table(alignments) => {
                self.flush_inline();
                self.table = Some(TableBuilder::new(alignments));
            }
            Tag::TableHead => {
                if let Some(table) = self.table.as_mut() {
                    table.start_head();
                }
            }
            Tag::TableRow => {
                if let Some(table) = self.table.as_mut() {
                    table.start_row();
                }
            }
            Tag::TableCell => self.inline.clear(),
            Tag::Emphasis => self.push_style(self.theme.emphasis()),
            Tag::Strong => self.push_style(self.theme.strong()),
            Tag::Strikethrough => self.push_style(self.theme.strikethrough()),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.push_style(self.theme.link());
                self.links.push((dest_url.to_string(), self.inline.len()));
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.flush_inline();
                self.blank_pending = true;
            }
            TagEnd::Heading(_) => {
                self.flush_inline();
                self.pop_style();
                self.blank_pending = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush_inline();
                self.quote_depth = self.quote_depth.saturating_sub(1);
                self.pop_style();
                self.blank_pending = true;
            }
            TagEnd::CodeBlock => {
                if let Some((lang, code)) = self.code.take() {
                    self.emit_code(&lang, &code);
                }
                self.blank_pending = true;
            }
            TagEnd::List(_) => {
                self.flush_inline();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.blank_pending = true;
                }
            }
            TagEnd::Item => {
                self.flush_inline();
                self.marker = None;
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.inline);
                if let Some(table) = self.table.as_mut() {
                    table.push_cell(cell);
                }
            }
            TagEnd::TableHead => {
                if let Some(table) = self.table.as_mut() {
                    table.end_head();
                }
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.emit_table(table);
                }
                self.blank_pending = true;
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => self.pop_style(),
            TagEnd::Link | TagEnd::Image => {
                self.pop_style();
                if let Some((url, start)) = self.links.pop() {
                    let shown: String = self
                        .inline
                        .get(start..)
                        .unwrap_or_default()
                        .iter()
                        .map(|s| s.content.as_ref())
                        .collect();
                    if !url.is_empty() && shown != url {
                        let style = self.theme.url();
                        self.inline.push(Span::styled(format!(" ({url})"), style));
                    }
                }
            }
            _ => {}
        }
    }

    /// Puts the blank line between two blocks, if one is due.
    fn start_block(&mut self) {
        if self.blank_pending && !self.out.is_empty() {
            let bars = self.quote_bars();
            self.out.push(Line::from(bars));
        }
        self.blank_pending = false;
    }

    fn quote_bars(&self) -> Vec<Span<'static>> {
        let style = self.theme.quote();
        (0..self.quote_depth)
            .map(|_| Span::styled("│ ", style))
            .collect()
    }

    /// The prefix of the first and of the following lines of a block; the
    /// first carries a pending list marker, which is used up.
    fn take_prefixes(&mut self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let bars = self.quote_bars();
        let total: usize = self.lists.iter().map(|l| l.indent).sum();
        let mut rest = bars.clone();
        if total > 0 {
            rest.push(Span::raw(" ".repeat(total)));
        }
        let Some(marker) = self.marker.take() else {
            return (rest.clone(), rest);
        };
        let outer = total - self.lists.last().map_or(0, |l| l.indent);
        let mut first = bars;
        if outer > 0 {
            first.push(Span::raw(" ".repeat(outer)));
        }
        first.push(marker);
        (first, rest)
    }

    fn flush_inline(&mut self) {
        if self.inline.is_empty() && self.marker.is_none() {
            return;
        }
        self.start_block();
        let (first, mut rest) = self.take_prefixes();
        let hang = std::mem::take(&mut self.hang);
        if hang > 0 {
            rest.push(Span::raw(" ".repeat(hang)));
        }
        let spans = std::mem::take(&mut self.inline);
        let lines = wrap_spans(spans, self.width, first, rest);
        self.out.extend(lines);
    }

    fn emit_code(&mut self, lang: &str, code: &str) {
        let code = highlight_code(code, lang, self.theme);
        if code.is_empty() && self.theme.has_color() {
            // An empty block shows nothing, so it sets nothing apart.
            return;
        }
        self.start_block();
        let (first, rest) = self.take_prefixes();
        let rows = code_block_rows(lang, code, self.width, self.theme, &first, &rest);
        self.out.extend(rows);
    }

    fn emit_table(&mut self, table: TableBuilder) {
        self.start_block();
        let (first, rest) = self.take_prefixes();
        let room = self.width.saturating_sub(spans_width(&rest)).max(1);
        for (i, row) in table.render(room, self.theme).into_iter().enumerate() {
            let mut spans = if i == 0 { first.clone() } else { rest.clone() };
            spans.extend(row.spans);
            self.out.push(merge_spans(Line::from(spans)));
        }
    }
}

fn heading_depth(level: HeadingLevel) -> usize {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// The display width of `s`.
pub(crate) fn str_width(s: &str) -> usize {
    Span::raw(s).width()
}

pub(crate) fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(Span::width).sum()
}

enum Token {
    Word(Vec<Span<'static>>),
    Space(Style),
}

fn tokenize(spans: Vec<Span<'static>>) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut word: Vec<Span<'static>> = Vec::new();
    for span in spans {
        let mut piece = String::new();
        for c in span.content.chars() {
            if c.is_whitespace() {
                if !piece.is_empty() {
                    word.push(Span::styled(std::mem::take(&mut piece), span.style));
                }
                if !word.is_empty() {
                    tokens.push(Token::Word(std::mem::take(&mut word)));
                }
                if !matches!(tokens.last(), Some(Token::Space(_))) {
                    tokens.push(Token::Space(span.style));
                }
            } else {
                piece.push(c);
            }
        }
        if !piece.is_empty() {
            word.push(Span::styled(piece, span.style));
        }
    }
    if !word.is_empty() {
        tokens.push(Token::Word(word));
    }
    tokens
}

/// Greedy word wrap of styled spans; words longer than a line are split.
pub(crate) fn wrap_spans(
    spans: Vec<Span<'static>>,
    width: usize,
    first: Vec<Span<'static>>,
    rest: Vec<Span<'static>>,
) -> Vec<Line<'static>> {
    let rest_width = spans_width(&rest);
    let mut lines = Vec::new();
    let mut cur_width = spans_width(&first);
    let mut cur = first;
    let mut has_content = false;
    let mut space: Option<Style> = None;
    for token in tokenize(spans) {
        match token {
            Token::Space(style) => {
                if has_content {
                    space = Some(style);
                }
            }
            Token::Word(parts) => {
                let w = spans_width(&parts);
                let gap = usize::from(space.is_some());
                if has_content && cur_width + gap + w > width {
                    lines.push(Line::from(std::mem::replace(&mut cur, rest.clone())));
                    cur_width = rest_width;
                    space = None;
                    has_content = false;
                }
                if let Some(style) = space.take() {
                    cur.push(Span::styled(" ", style));
                    cur_width += 1;
                }
                if cur_width + w <= width {
                    cur.extend(parts);
                    cur_width += w;
                } else {
                    for part in parts {
                        for c in part.content.chars() {
                            let cw = str_width(c.encode_utf8(&mut [0; 4]));
                            if has_content && cur_width + cw > width {
                                lines.push(Line::from(std::mem::replace(&mut cur, rest.clone())));
                                cur_width = rest_width;
                            }
                            cur.push(Span::styled(c.to_string(), part.style));
                            cur_width += cw;
                            has_content = true;
                        }
                    }
                }
                has_content = true;
            }
        }
    }
    if has_content || lines.is_empty() {
        lines.push(Line::from(cur));
    }
    lines.into_iter().map(merge_spans).collect()
}

/// Joins neighbouring spans of the same style.
fn merge_spans(line: Line<'static>) -> Line<'static> {
    let mut out: Vec<Span<'static>> = Vec::new();
    for span in line.spans {
        match out.last_mut() {
            Some(last) if last.style == span.style => {
                let joined = format!("{}{}", last.content, span.content);
                *last = Span::styled(joined, span.style);
            }
            _ => out.push(span),
        }
    }
    Line::from(out)
}
