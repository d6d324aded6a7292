//! Drawing the ASK-6 question panel: header chips, the question, its
//! options (checkboxes for multi-select), the Other field, the preview of
//! the highlighted option in a bordered box (preformatted, line by line:
//! previews are mockups and code, not prose), and the confirmation page.

use super::Theme;
use super::markdown::{str_width, wrap_preformatted, wrap_spans};
use super::question_panel::{AnswerState, Page, QuestionPanel, QuestionState};
use crate::tools::ask_user_question::{HEADER_MAX_CHARS, OTHER_LABEL, Question};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

const CONFIRM_CHIP: &str = "Submit";
/// Preview boxes are at most this many rows tall.
const PREVIEW_MAX_LINES: usize = 16;

impl QuestionPanel {
    /// Draws the panel into `area` of `buf`.
    pub fn view(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        Paragraph::new(self.lines(area.width, theme)).render(area, buf);
    }

    /// The panel as lines `width` columns wide.
    pub fn lines(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let width = usize::from(width).max(10);
        let mut out = vec![self.chips(width, theme), Line::default()];
        match self.page() {
            Page::Question(i) => {
                if let (Some(q), Some(s)) = (self.questions().get(i), self.states().get(i)) {
                    self.question_lines(q, s, width, theme, &mut out);
                }
            }
            Page::Confirm => self.confirm_lines(width, theme, &mut out),
        }
        out
    }

    fn chips(&self, width: usize, theme: &Theme) -> Line<'static> {
        let n = self.questions().len() + 1;
        let mark_width = 2;
        let per_chip = (width / n).saturating_sub(3 + mark_width).max(1);
        let max = HEADER_MAX_CHARS.min(per_chip);
        let mut spans = Vec::new();
        let active = self.page();
        for (i, (q, s)) in self.questions().iter().zip(self.states()).enumerate() {
            let mark = match s.answer {
                AnswerState::Open => "",
                AnswerState::Skipped => "– ",
                AnswerState::Answered(_) => "✓ ",
            };
            let text = format!("{mark}{}", truncate(&q.header, max));
            spans.push(chip(text, active == Page::Question(i), theme));
            spans.push(Span::raw(" "));
        }
        let label = truncate(CONFIRM_CHIP, max);
        spans.push(chip(label, active == Page::Confirm, theme));
        Line::from(spans)
    }

    fn question_lines(
        &self,
        q: &Question,
        s: &QuestionState,
        width: usize,
        theme: &Theme,
        out: &mut Vec<Line<'static>>,
    ) {
        let title = vec![Span::styled(
            q.question.clone(),
            Style::new().add_modifier(Modifier::BOLD),
        )];
        out.extend(wrap_spans(title, width, Vec::new(), Vec::new()));
        if q.multi_select {
            out.push(Line::from(Span::styled(
                "Choose any: space toggles, enter confirms",
                theme.faint(),
            )));
        }
        out.push(Line::default());
        let answered = match &s.answer {
            AnswerState::Answered(a) => Some(a.as_str()),
            _ => None,
        };
        for (row, option) in q.options.iter().enumerate() {
            let focused = s.cursor == row && self.editing().is_none();
            let mut spans = vec![pointer(focused, theme), Span::raw(format!("{}. ", row + 1))];
            if q.multi_select {
                let on = s.checked.get(row).copied().unwrap_or(false);
                let style = if on { theme.chosen() } else { Style::new() };
                spans.push(Span::styled(if on { "[x] " } else { "[ ] " }, style));
            }
            let label_style = if focused {
                theme.accent()
            } else {
                Style::new()
            };
            let mut label = vec![Span::styled(option.label.clone(), label_style)];
            if !q.multi_select && answered == Some(option.label.as_str()) {
                label.push(Span::styled(" ✓", theme.chosen()));
            }
            let pad = if q.multi_select { 9 } else { 5 };
            out.extend(wrap_spans(label, width, spans, indent(pad)));
            if !option.description.is_empty() {
                let desc = vec![Span::styled(option.description.clone(), theme.faint())];
                out.extend(wrap_spans(desc, width, indent(pad), indent(pad)));
            }
        }
        out.push(self.other_line(q, s, width, theme));
        if s.answer == AnswerState::Skipped {
            out.push(Line::from(Span::styled(
                "Skipped: enter goes on, choosing an option answers",
                theme.faint(),
            )));
        }
        if let Some(preview) = q
            .options
            .get(s.cursor)
            .and_then(|o| o.preview.as_deref())
            .filter(|_| self.editing().is_none())
        {
            out.push(Line::default());
            out.extend(preview_box(preview, width, theme));
        }
        out.push(Line::default());
        let help = self.help(q);
        out.extend(wrap_spans(
            vec![Span::styled(help, theme.faint())],
            width,
            Vec::new(),
            Vec::new(),
        ));
    }

    /// The keys of a question page, as they apply to it: the digits its
    /// rows have, and Enter submitting when it is the only question.
    fn help(&self, q: &Question) -> String {
        if self.editing().is_some() {
            return "type your answer · enter confirm · esc cancel".to_string();
        }
        let digits = match (q.options.len() + 1).min(9) {
            1 => "1".to_string(),
            n => format!("1-{n}"),
        };
        let choose = if q.multi_select {
            format!("space/{digits} toggle")
        } else {
            format!("{digits} choose")
        };
        if self.questions().len() == 1 {
            format!("↑↓ move · {choose} · o other · s skip · enter submit · esc reject")
        } else {
            format!("↑↓ move · {choose} · o other · s skip · enter next · ←→ switch · esc reject")
        }
    }

    fn other_line(
        &self,
        q: &Question,
        s: &QuestionState,
        width: usize,
        theme: &Theme,
    ) -> Line<'static> {
        let row = q.options.len();
        let focused = s.cursor == row;
        let mut spans = vec![pointer(focused, theme), Span::raw(format!("{}. ", row + 1))];
        if q.multi_select {
            let on = s.other.is_some();
            let style = if on { theme.chosen() } else { Style::new() };
            spans.push(Span::styled(if on { "[x] " } else { "[ ] " }, style));
        }
        let label_style = if focused {
            theme.accent()
        } else {
            Style::new()
        };
        spans.push(Span::styled(OTHER_LABEL, label_style));
        match (self.editing(), &s.other) {
            (Some(text), _) => {
                spans.push(Span::raw(": "));
                let used: usize = spans.iter().map(Span::width).sum();
                let room = width.saturating_sub(used + 1);
                spans.push(Span::styled(
                    tail(text, room),
                    Style::new().add_modifier(Modifier::UNDERLINED),
                ));
                spans.push(Span::styled(
                    "▏",
                    Style::new().add_modifier(Modifier::SLOW_BLINK),
                ));
            }
            (None, Some(text)) => {
                spans.push(Span::raw(": "));
                spans.push(Span::raw(text.clone()));
            }
            (None, None) => spans.push(Span::styled(" (press o to type an answer)", theme.faint())),
        }
        Line::from(spans)
    }

    fn confirm_lines(&self, width: usize, theme: &Theme, out: &mut Vec<Line<'static>>) {
        out.push(Line::from(Span::styled(
            "Review your answers",
            Style::new().add_modifier(Modifier::BOLD),
        )));
        out.push(Line::default());
        for (q, s) in self.questions().iter().zip(self.states()) {
            let head = vec![
                Span::styled(
                    format!("[{}] ", truncate(&q.header, HEADER_MAX_CHARS)),
                    theme.accent(),
                ),
                Span::raw(q.question.clone()),
            ];
            out.extend(wrap_spans(head, width, Vec::new(), indent(2)));
            let answer = match &s.answer {
                AnswerState::Answered(a) => Span::styled(a.clone(), theme.chosen()),
                _ => Span::styled("(skipped)", theme.faint()),
            };
            out.extend(wrap_spans(
                vec![answer],
                width,
                vec![Span::raw("  → ")],
                indent(4),
            ));
        }
        out.push(Line::default());
        out.extend(wrap_spans(
            vec![Span::styled(
                "enter submit · ←/tab back to the questions · esc reject",
                theme.faint(),
            )],
            width,
            Vec::new(),
            Vec::new(),
        ));
    }
}

fn chip(text: String, active: bool, theme: &Theme) -> Span<'static> {
    let (style, text) = match (active, theme.has_color()) {
        (true, _) => (theme.chip_active(), format!(" {text} ")),
        (false, true) => (theme.chip(), format!(" {text} ")),
        (false, false) => (theme.chip(), format!("[{text}]")),
    };
    Span::styled(text, style)
}

fn pointer(focused: bool, theme: &Theme) -> Span<'static> {
    if focused {
        Span::styled("› ", theme.accent())
    } else {
        Span::raw("  ")
    }
}

fn indent(n: usize) -> Vec<Span<'static>> {
    vec![Span::raw(" ".repeat(n))]
}

/// `s` cut to `max` characters, the last one an ellipsis when cut.
fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let kept: String = s.chars().take(max.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// The end of `s` that fits `room` columns (the field scrolls with the
/// cursor at its end).
fn tail(s: &str, room: usize) -> String {
    let mut out: Vec<char> = Vec::new();
    let mut used = 0;
    for c in s.chars().rev() {
        let w = str_width(c.encode_utf8(&mut [0; 4]));
        if used + w > room {
            break;
        }
        used += w;
        out.push(c);
    }
    out.into_iter().rev().collect()
}

/// The preview in a bordered box `width` columns wide, as written: line by
/// line, tabs to four columns, lines wider than the box going on after a
/// continuation mark.
fn preview_box(preview: &str, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let inner = width.saturating_sub(4).max(1);
    let border = theme.faint();
    let title = " Preview ";
    let top_fill = (inner + 2).saturating_sub(str_width(title) + 1);
    let mut out = vec![Line::from(vec![
        Span::styled("┌─", border),
        Span::styled(title, border.add_modifier(Modifier::BOLD)),
        Span::styled(format!("{}┐", "─".repeat(top_fill)), border),
    ])];
    let mut body: Vec<Line<'static>> = preview
        .lines()
        .flat_map(|line| {
            let line = line.strip_suffix('\r').unwrap_or(line);
            let text = expand_tabs(line);
            wrap_preformatted(vec![Span::styled(text, theme.code_block())], inner, theme)
        })
        .collect();
    if body.len() > PREVIEW_MAX_LINES {
        body.truncate(PREVIEW_MAX_LINES - 1);
        body.push(Line::from(Span::styled("…", theme.faint())));
    }
    for line in body {
        let used = line.width();
        let mut spans = vec![Span::styled("│ ", border)];
        if used <= inner {
            spans.extend(line.spans);
            spans.push(Span::raw(" ".repeat(inner - used)));
        } else {
            spans.extend(clip(line.spans, inner));
        }
        spans.push(Span::styled(" │", border));
        out.push(Line::from(spans));
    }
    out.push(Line::from(Span::styled(
        format!("└{}┘", "─".repeat(inner + 2)),
        border,
    )));
    out
}

/// `line` with each tab replaced by the spaces up to the next multiple of
/// four columns.
fn expand_tabs(line: &str) -> String {
    if !line.contains('\t') {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len() + 8);
    let mut column = 0;
    for c in line.chars() {
        if c == '\t' {
            let n = 4 - column % 4;
            out.extend(std::iter::repeat_n(' ', n));
            column += n;
        } else {
            out.push(c);
            column += str_width(c.encode_utf8(&mut [0; 4]));
        }
    }
    out
}

/// Spans cut to `room` columns (a row wider than the box, which only a
/// character wider than the whole box makes).
fn clip(spans: Vec<Span<'static>>, room: usize) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let mut used = 0;
    for span in spans {
        let mut text = String::new();
        for c in span.content.chars() {
            let w = str_width(c.encode_utf8(&mut [0; 4]));
            if used + w > room {
                break;
            }
            used += w;
            text.push(c);
        }
        out.push(Span::styled(text, span.style));
        if used >= room {
            break;
        }
    }
    if used < room {
        out.push(Span::raw(" ".repeat(room - used)));
    }
    out
}
