//! A unified diff as coloured lines: added lines green, removed red, hunk
//! headers cyan, file headers dim. The monochrome theme keeps the `+`/`-`
//! prefixes and makes headers bold.

use super::Theme;
use ratatui::text::{Line, Span};

/// What one line of a unified diff is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffLineKind {
    Header,
    Hunk,
    Added,
    Removed,
    Context,
}

/// Classifies one line of a unified diff.
pub fn classify(line: &str) -> DiffLineKind {
    const HEADERS: [&str; 10] = [
        "+++ ",
        "--- ",
        "diff ",
        "index ",
        "new file",
        "deleted file",
        "similarity ",
        "rename ",
        "old mode",
        "new mode",
    ];
    if line == "+++" || line == "---" || HEADERS.iter().any(|h| line.starts_with(h)) {
        DiffLineKind::Header
    } else if line.starts_with("@@") {
        DiffLineKind::Hunk
    } else if line.starts_with('+') {
        DiffLineKind::Added
    } else if line.starts_with('-') {
        DiffLineKind::Removed
    } else if line.starts_with('\\') {
        DiffLineKind::Header
    } else {
        DiffLineKind::Context
    }
}

/// The style of one line of a unified diff.
pub fn line_style(line: &str, theme: &Theme) -> ratatui::style::Style {
    match classify(line) {
        DiffLineKind::Header => theme.diff_header(),
        DiffLineKind::Hunk => theme.diff_hunk(),
        DiffLineKind::Added => theme.diff_add(),
        DiffLineKind::Removed => theme.diff_remove(),
        DiffLineKind::Context => ratatui::style::Style::new(),
    }
}

/// Renders a unified diff, one styled line per input line (tabs become
/// four spaces).
pub fn render_diff(diff: &str, theme: &Theme) -> Vec<Line<'static>> {
    diff.lines()
        .map(|line| {
            Line::from(Span::styled(
                line.replace('\t', "    "),
                line_style(line, theme),
            ))
        })
        .collect()
}
