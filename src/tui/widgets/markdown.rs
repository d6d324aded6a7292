//! Markdown to styled lines (TUI-2, PLAN-10): headings, wrapped
//! paragraphs, emphasis, inline code, lists, block quotes, links, rules and
//! fenced code blocks highlighted by [`super::highlight`].
//!
//! This module renders a run of whole blocks; [`super::markdown_doc`] cuts a
//! document (whole, or still streaming) into such runs.

use super::Theme;
use super::highlight::highlight_code;
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

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
    let mut renderer = Renderer::new(theme, usize::from(width).max(1));
    let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    for event in Parser::new_ext(text, options) {
        renderer.event(event);
    }
    renderer.finish()
}

/// The rows of a fenced code block from its highlighted lines: indented two
/// columns, between fence rows when there is no colour to set it apart,
/// after `first`/`rest` (the quote bars and list indent it sits in).
pub(crate) fn code_block_rows(
    lang: &str,
    code: impl IntoIterator<Item = Line<'static>>,
    theme: &Theme,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let fence = !theme.has_color();
    if fence {
        lines.push(Line::from(format!("```{lang}")));
    }
    for line in code {
        let mut spans = vec![Span::raw("  ")];
        spans.extend(line.spans);
        lines.push(Line::from(spans));
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

struct ListLevel {
    next: Option<u64>,
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
                self.flush_inline();
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
                    Some(n) => format!("{n}. ").chars().count(),
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
                        let m = format!("{n}. ");
                        *n += 1;
                        format!("{m:<width$}", width = *indent)
                    }
                    _ => "• ".to_string(),
                };
                self.marker = Some(Span::styled(marker, self.theme.list_marker()));
            }
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
        let (first, rest) = self.take_prefixes();
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
        let rows = code_block_rows(lang, code, self.theme, &first, &rest);
        self.out.extend(rows);
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

fn spans_width(spans: &[Span<'_>]) -> usize {
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
