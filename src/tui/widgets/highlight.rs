//! Syntax highlighting of code blocks with syntect (TUI-2).
//!
//! The syntax and theme sets are loaded once, on the first highlighted
//! block ([`OnceLock`]): starting the TUI costs nothing until a reply
//! contains code.

use super::Theme;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::sync::OnceLock;
use syntect::highlighting::{FontStyle, HighlightIterator, HighlightState, Highlighter, ThemeSet};
use syntect::parsing::{ParseState, ScopeStack, SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

/// The syntect theme the coloured code blocks use.
const SYNTECT_THEME: &str = "base16-ocean.dark";

struct Assets {
    syntaxes: SyntaxSet,
    /// Built once from the theme: building it matches every scope selector.
    highlighter: Option<Highlighter<'static>>,
}

static ASSETS: OnceLock<Assets> = OnceLock::new();
static SYNTECT: OnceLock<Option<syntect::highlighting::Theme>> = OnceLock::new();

fn assets() -> &'static Assets {
    ASSETS.get_or_init(|| {
        // The theme lives in its own static so that the highlighter can
        // borrow it for `'static` and every block shares one.
        let theme = SYNTECT.get_or_init(|| ThemeSet::load_defaults().themes.remove(SYNTECT_THEME));
        Assets {
            syntaxes: SyntaxSet::load_defaults_newlines(),
            highlighter: theme.as_ref().map(Highlighter::new),
        }
    })
}

/// Whether the syntax and theme sets have been loaded yet.
pub fn assets_loaded() -> bool {
    ASSETS.get().is_some()
}

/// Highlights `code` written in `lang` (a fence token such as `rust`, `py`
/// or `Rust`; anything after the first word is ignored). An unknown or
/// empty language, or a monochrome theme, gives plain lines in
/// `theme.code_block()`. Never loads the assets for a monochrome theme or an
/// empty language.
pub fn highlight_code(code: &str, lang: &str, theme: &Theme) -> Vec<Line<'static>> {
    let mut highlighter = CodeHighlighter::new(lang, theme);
    let mut out = Vec::new();
    for line in LinesWithEndings::from(code) {
        match highlighter.line(line) {
            Some(row) => out.push(row),
            None => return plain_lines(code, theme.code_block()),
        }
    }
    out
}

/// Highlights a code block one line at a time, keeping syntect's parse and
/// highlight state between lines: a block that grows while a reply streams
/// is highlighted once per line, never again from its start (TUI-2).
#[derive(Clone)]
pub struct CodeHighlighter {
    plain: Style,
    /// `None`: the lines are plain (no colour, no known language, or a
    /// line failed to parse).
    state: Option<(ParseState, HighlightState)>,
}

impl CodeHighlighter {
    pub fn new(lang: &str, theme: &Theme) -> Self {
        let token = lang.split_whitespace().next().unwrap_or("");
        let token = token.split(',').next().unwrap_or("");
        let state = if !theme.has_color() || token.is_empty() {
            None
        } else {
            let assets = assets();
            match (find_syntax(&assets.syntaxes, token), &assets.highlighter) {
                (Some(syntax), Some(highlighter)) => Some((
                    ParseState::new(syntax),
                    HighlightState::new(highlighter, ScopeStack::new()),
                )),
                _ => None,
            }
        };
        Self {
            plain: theme.code_block(),
            state,
        }
    }

    /// Whether lines come out plain.
    pub fn is_plain(&self) -> bool {
        self.state.is_none()
    }

    /// The row of the next line of the block (its newline, if any, is
    /// dropped); `None` when syntect fails on it, after which every line is
    /// plain and the caller redoes the earlier ones plainly.
    pub fn line(&mut self, line: &str) -> Option<Line<'static>> {
        let Some((parse, highlight)) = &mut self.state else {
            return Some(self.plain_line(line));
        };
        let assets = assets();
        let (Ok(ops), Some(highlighter)) = (
            parse.parse_line(line, &assets.syntaxes),
            &assets.highlighter,
        ) else {
            self.state = None;
            return None;
        };
        let spans: Vec<Span<'static>> = HighlightIterator::new(highlight, &ops, line, highlighter)
            .filter_map(|(style, text)| {
                let text = text.trim_end_matches(['\n', '\r']);
                (!text.is_empty()).then(|| Span::styled(text.to_string(), convert(style)))
            })
            .collect();
        Some(Line::from(spans))
    }

    /// The row of `line` without highlighting.
    pub fn plain_line(&self, line: &str) -> Line<'static> {
        let text = line.strip_suffix('\n').unwrap_or(line);
        let text = text.strip_suffix('\r').unwrap_or(text);
        Line::from(Span::styled(text.to_string(), self.plain))
    }
}

fn find_syntax<'a>(set: &'a SyntaxSet, token: &str) -> Option<&'a SyntaxReference> {
    set.find_syntax_by_token(token)
        .or_else(|| set.find_syntax_by_token(&token.to_ascii_lowercase()))
        .or_else(|| set.find_syntax_by_name(token))
}

fn convert(style: syntect::highlighting::Style) -> Style {
    let fg = style.foreground;
    let mut out = Style::new().fg(Color::Rgb(fg.r, fg.g, fg.b));
    if style.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    if style.font_style.contains(FontStyle::UNDERLINE) {
        out = out.add_modifier(Modifier::UNDERLINED);
    }
    out
}

fn plain_lines(code: &str, style: Style) -> Vec<Line<'static>> {
    code.lines()
        .map(|l| Line::from(Span::styled(l.to_string(), style)))
        .collect()
}
