//! The one set of styles every view and widget draws with (TUI-5). Styles
//! are named for what they mean, not for their colour; no other module
//! names a colour. The monochrome theme (`NO_COLOR`) keeps the modifiers
//! (bold, italic, underline, reverse) and drops every colour.

use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    monochrome: bool,
}

impl Default for Theme {
    fn default() -> Self {
        Self::colored()
    }
}

impl Theme {
    pub fn new(monochrome: bool) -> Self {
        Self { monochrome }
    }

    /// The normal, coloured theme.
    pub fn colored() -> Self {
        Self::new(false)
    }

    /// The `NO_COLOR` theme: modifiers only.
    pub fn monochrome() -> Self {
        Self::new(true)
    }

    /// The theme `NO_COLOR` asks for: monochrome when the variable is set
    /// to anything non-empty.
    pub fn from_no_color(no_color: Option<&str>) -> Self {
        Self::new(no_color.is_some_and(|v| !v.is_empty()))
    }

    pub fn is_monochrome(&self) -> bool {
        self.monochrome
    }

    /// Whether colours are drawn at all (code is highlighted only then).
    pub fn has_color(&self) -> bool {
        !self.monochrome
    }

    /// `colored` with colours, `mono` without.
    fn pick(&self, colored: Style, mono: Style) -> Style {
        if self.monochrome { mono } else { colored }
    }

    /// A foreground colour; nothing in monochrome.
    fn fg(&self, color: Color) -> Style {
        self.pick(Style::new().fg(color), Style::new())
    }

    // The screen's chrome.

    /// Hints, borders, details: what steps back (grey and dimmed).
    pub fn dim(&self) -> Style {
        self.fg(Color::DarkGray).add_modifier(Modifier::DIM)
    }

    /// The border of the panels above the composer and beside the
    /// transcript.
    pub fn border(&self) -> Style {
        self.dim()
    }

    /// The border of a panel that waits for the user (an approval).
    pub fn attention_border(&self) -> Style {
        self.warning()
    }

    pub fn bold(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    /// What the eye should find first: prompts, names, the focused row.
    pub fn accent(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// The highlighted row of a list, filled to its edge.
    pub fn selected(&self) -> Style {
        self.pick(
            Style::new().fg(Color::Black).bg(Color::Cyan),
            Style::new().add_modifier(Modifier::REVERSED),
        )
    }

    /// Something that went well: a finished tool, a completed todo.
    pub fn success(&self) -> Style {
        self.fg(Color::Green)
    }

    /// Something that waits or needs a look: a running tool, a filling
    /// context, an open approval.
    pub fn warning(&self) -> Style {
        self.fg(Color::Yellow)
    }

    /// A failure, a denial, an error message.
    pub fn error(&self) -> Style {
        self.fg(Color::Red)
    }

    /// A large paste in the composer, shown as its label.
    pub fn paste_chip(&self) -> Style {
        self.fg(Color::Magenta).add_modifier(Modifier::BOLD)
    }

    /// The bullet in front of a reply.
    pub fn bullet(&self) -> Style {
        self.fg(Color::White)
    }

    /// The status line's mode badge: a colour per mode, reversed.
    pub fn mode_badge(&self, mode: &str) -> Style {
        let color = match mode {
            "plan" => Color::Blue,
            "edit" => Color::Magenta,
            "yolo" => Color::Red,
            _ => Color::Green,
        };
        self.fg(color)
            .add_modifier(Modifier::BOLD | Modifier::REVERSED)
    }

    // Content: Markdown, code, diffs, the question panel.

    /// Secondary content (descriptions, URLs, rules): dimmed, keeping the
    /// colour of what surrounds it; plain in monochrome.
    pub fn faint(&self) -> Style {
        self.pick(Style::new().add_modifier(Modifier::DIM), Style::new())
    }

    /// A chosen answer or a checked box.
    pub fn chosen(&self) -> Style {
        self.pick(self.success(), self.bold())
    }

    pub fn heading(&self) -> Style {
        self.pick(
            self.accent(),
            Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        )
    }

    pub fn emphasis(&self) -> Style {
        Style::new().add_modifier(Modifier::ITALIC)
    }

    pub fn strong(&self) -> Style {
        self.bold()
    }

    pub fn strikethrough(&self) -> Style {
        Style::new().add_modifier(Modifier::CROSSED_OUT)
    }

    /// Inline code.
    pub fn code(&self) -> Style {
        self.fg(Color::Yellow)
    }

    /// Code block rows that are not highlighted.
    pub fn code_block(&self) -> Style {
        Style::new()
    }

    pub fn link(&self) -> Style {
        self.fg(Color::Blue).add_modifier(Modifier::UNDERLINED)
    }

    /// A link's URL after its text.
    pub fn url(&self) -> Style {
        self.faint()
    }

    pub fn quote(&self) -> Style {
        self.fg(Color::Gray).add_modifier(Modifier::ITALIC)
    }

    /// A horizontal rule.
    pub fn rule(&self) -> Style {
        self.faint()
    }

    pub fn list_marker(&self) -> Style {
        self.fg(Color::Cyan)
    }

    /// A question's header chip.
    pub fn chip(&self) -> Style {
        self.pick(Style::new().fg(Color::Black).bg(Color::Gray), Style::new())
    }

    /// The chip of the page shown.
    pub fn chip_active(&self) -> Style {
        self.pick(
            Style::new()
                .fg(Color::Black)
                .bg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::REVERSED),
        )
    }

    pub fn diff_add(&self) -> Style {
        self.success()
    }

    pub fn diff_remove(&self) -> Style {
        self.error()
    }

    pub fn diff_hunk(&self) -> Style {
        self.pick(Style::new().fg(Color::Cyan), self.bold())
    }

    /// A diff's file headers.
    pub fn diff_header(&self) -> Style {
        self.pick(self.faint(), Style::new())
            .add_modifier(Modifier::BOLD)
    }
}

#[cfg(test)]
mod tests {
    use super::Theme;
    use ratatui::style::{Color, Modifier};

    /// Whatever a style means, monochrome never paints a colour.
    #[test]
    fn tui5_monochrome_styles_carry_no_colour() {
        let t = Theme::monochrome();
        let all = [
            t.dim(),
            t.border(),
            t.attention_border(),
            t.accent(),
            t.selected(),
            t.success(),
            t.warning(),
            t.error(),
            t.bullet(),
            t.mode_badge("yolo"),
            t.faint(),
            t.chosen(),
            t.heading(),
            t.code(),
            t.link(),
            t.quote(),
            t.list_marker(),
            t.chip(),
            t.chip_active(),
            t.paste_chip(),
            t.diff_add(),
            t.diff_remove(),
            t.diff_hunk(),
            t.diff_header(),
        ];
        for style in all {
            assert_eq!((style.fg, style.bg), (None, None), "{style:?}");
        }
        assert!(t.selected().add_modifier.contains(Modifier::REVERSED));
        assert_eq!(Theme::colored().error().fg, Some(Color::Red));
        assert!(Theme::from_no_color(Some("1")).is_monochrome());
        assert!(!Theme::from_no_color(Some("")).is_monochrome());
    }
}
