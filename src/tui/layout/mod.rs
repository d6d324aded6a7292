//! Pure layout, shared by `update` and `view`: text measured, wrapped and
//! cut to columns, and the rows of each panel built from plain data (never
//! from the whole `Model`), so both sides compute the same heights.

pub mod agent;
pub mod approval;
pub mod approval_diff;
pub mod approval_full;
pub mod cell;
pub mod composer;
pub mod scroll;
pub mod transcript;

use unicode_width::UnicodeWidthChar;

/// Narrower terminals never show the sidebar: the transcript needs the
/// room more.
pub const SIDEBAR_MIN_TERMINAL_WIDTH: u16 = 100;

/// Splits `text` into rows of at most `width` columns (by display width),
/// breaking at spaces where it can. Empty lines stay.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    for line in text.split('\n') {
        let mut row = String::new();
        let mut row_width = 0usize;
        for word in split_keep_spaces(line) {
            let word_width: usize = word.chars().map(|c| c.width().unwrap_or(0)).sum();
            if row_width + word_width <= width {
                row.push_str(word);
                row_width += word_width;
                continue;
            }
            if row_width > 0 && word_width <= width {
                rows.push(std::mem::take(&mut row).trim_end().to_string());
                row_width = 0;
                if word.trim().is_empty() {
                    continue;
                }
                row.push_str(word);
                row_width = word_width;
                continue;
            }
            // Longer than a row: hard-break it.
            for c in word.chars() {
                let w = c.width().unwrap_or(0);
                if row_width + w > width && row_width > 0 {
                    rows.push(std::mem::take(&mut row));
                    row_width = 0;
                }
                row.push(c);
                row_width += w;
            }
        }
        rows.push(row);
    }
    rows
}

/// Words with their trailing spaces as separate pieces.
fn split_keep_spaces(line: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut in_space = None;
    for (i, c) in line.char_indices() {
        let space = c == ' ';
        match in_space {
            Some(prev) if prev != space => {
                pieces.push(&line[start..i]);
                start = i;
            }
            _ => {}
        }
        in_space = Some(space);
    }
    if start < line.len() {
        pieces.push(&line[start..]);
    }
    pieces
}

/// Truncates `text` to `width` columns with an ellipsis.
pub fn truncate(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    let total: usize = text.chars().map(|c| c.width().unwrap_or(0)).sum();
    if total <= width {
        return text.to_string();
    }
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}
