//! Syntax highlighting of code blocks with syntect (TUI-2).
//!
//! The syntax and theme sets are loaded once, on the first highlighted
//! block ([`OnceLock`]): starting the TUI costs nothing until a reply
//! contains code.

use super::Theme;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::sync::OnceLock;
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, ThemeSet};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

/// The syntect theme the coloured code blocks use.
const SYNTECT_THEME: &str = "base16-ocean.dark";

struct Assets {
    syntaxes: SyntaxSet,
    theme: Option<syntect::highlighting::Theme>,
}

static ASSETS: OnceLock<Assets> = OnceLock::new();

fn assets() -> &'static Assets {
    ASSETS.get_or_init(|| {
        let mut themes = ThemeSet::load_defaults();
        Assets {
            syntaxes: SyntaxSet::load_defaults_newlines(),
            theme: themes.themes.remove(SYNTECT_THEME),
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
/// `theme.code_block`. Never loads the assets for a monochrome theme or an
/// empty language.
pub fn highlight_code(code: &str, lang: &str, theme: &Theme) -> Vec<Line<'static>> {
    let token = lang.split_whitespace().next().unwrap_or("");
    let token = token.split(',').next().unwrap_or("");
    if !theme.color || token.is_empty() {
        return plain_lines(code, theme.code_block);
    }
    let assets = assets();
    let (Some(syntax), Some(syn_theme)) = (find_syntax(&assets.syntaxes, token), &assets.theme)
    else {
        return plain_lines(code, theme.code_block);
    };
    let mut highlighter = HighlightLines::new(syntax, syn_theme);
    let mut out = Vec::new();
    for line in LinesWithEndings::from(code) {
        let Ok(ranges) = highlighter.highlight_line(line, &assets.syntaxes) else {
            return plain_lines(code, theme.code_block);
        };
        let spans: Vec<Span<'static>> = ranges
            .into_iter()
            .filter_map(|(style, text)| {
                let text = text.trim_end_matches(['\n', '\r']);
                (!text.is_empty()).then(|| Span::styled(text.to_string(), convert(style)))
            })
            .collect();
        out.push(Line::from(spans));
    }
    out
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
