//! The composer's rows: long lines wrap (at a space when one fits, else
//! anywhere). They are computed here rather than by the textarea widget so
//! the layout knows the height before drawing.

use crate::tui::composer::Composer;
use unicode_width::UnicodeWidthChar;

/// At most this many text rows are shown; the rest scrolls.
pub const MAX_ROWS: u16 = 8;
/// The prompt ("› ") and the indent of later rows.
pub const PROMPT_WIDTH: u16 = 2;

/// One screen row of the composer: a char range of one logical line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub line: usize,
    /// Chars `start..end` of the line.
    pub start: usize,
    pub end: usize,
}

/// The composer's text as screen rows of at most `width` columns, and the
/// (row, column) of the cursor among them. The last row of a line always
/// leaves a column free, so a cursor at its end stays on screen.
pub fn layout(composer: &Composer, width: usize) -> (Vec<Row>, (usize, usize)) {
    layout_from(composer, width, 0, usize::MAX)
}

/// [`layout`] of the lines `first..=last` only (the cursor's among them).
fn layout_from(
    composer: &Composer,
    width: usize,
    first: usize,
    last: usize,
) -> (Vec<Row>, (usize, usize)) {
    let width = width.max(2);
    let mut rows = Vec::new();
    let lines = composer.lines().iter().enumerate();
    for (line, text) in lines
        .skip(first)
        .take(last.saturating_sub(first).saturating_add(1))
    {
        for (start, end) in segments(text, width) {
            rows.push(Row { line, start, end });
        }
    }
    let (cursor_line, cursor_col) = composer.cursor_position();
    let at = rows
        .iter()
        .position(|r| r.line == cursor_line && r.start <= cursor_col && cursor_col < r.end)
        .or_else(|| rows.iter().rposition(|r| r.line == cursor_line))
        .unwrap_or(0);
    let col = rows.get(at).map_or(0, |r| {
        let line = &composer.lines()[r.line];
        line.chars()
            .skip(r.start)
            .take(cursor_col.saturating_sub(r.start))
            .map(|c| c.width().unwrap_or(0))
            .sum()
    });
    (rows, (at, col))
}

/// Char ranges of `line` that fit `width` columns, broken after a space when
/// the row has one.
fn segments(line: &str, width: usize) -> Vec<(usize, usize)> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut start = 0;
    let mut used = 0;
    // Where the row could break: just after its last space.
    let mut space_break = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let w = c.width().unwrap_or(0);
        if used + w > width && i > start {
            if c == ' ' {
                // A space at the edge ends the row itself.
                out.push((start, i + 1));
                start = i + 1;
                used = 0;
                space_break = None;
                i += 1;
                continue;
            }
            let at = space_break.filter(|&b| b > start).unwrap_or(i);
            out.push((start, at));
            start = at;
            used = chars[at..i].iter().map(|c| c.width().unwrap_or(0)).sum();
            space_break = None;
        }
        used += w;
        if c == ' ' {
            space_break = Some(i + 1);
        }
        i += 1;
    }
    out.push((start, chars.len()));
    // The cursor after the last char needs a free column.
    if used >= width {
        out.push((chars.len(), chars.len()));
    }
    out
}

/// The rows `height` rows tall window shows, as [`layout`] would give them
/// with the cursor's row bottom-most when the text must scroll, and the
/// cursor's (row, column) in the window. Only the lines that can reach the
/// window are laid out: each line is at least one row, so `height` lines
/// before the cursor's are enough.
pub fn window(composer: &Composer, width: usize, height: usize) -> (Vec<Row>, (usize, usize)) {
    let height = height.max(1);
    let (cursor_line, _) = composer.cursor_position();
    let first_line = cursor_line.saturating_sub(height - 1);
    let (rows, (at, col)) = layout_from(composer, width, first_line, cursor_line + height);
    let first = at.saturating_sub(height - 1);
    let shown = rows.into_iter().skip(first).take(height).collect();
    (shown, (at - first, col))
}

/// Text rows of `composer` at `width` columns, counted up to just past
/// `cap`: a paste of thousands of lines costs a frame no more than a few.
pub fn text_rows(composer: &Composer, width: usize, cap: usize) -> usize {
    let mut rows = 0usize;
    for line in composer.lines() {
        rows += segments(line, width).len();
        if rows > cap {
            break;
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows_of(text: &str, width: usize) -> (Vec<String>, (usize, usize)) {
        let mut composer = Composer::default();
        composer.set(text);
        let (rows, cursor) = layout(&composer, width);
        let texts = rows
            .iter()
            .map(|r| {
                composer.lines()[r.line]
                    .chars()
                    .skip(r.start)
                    .take(r.end - r.start)
                    .collect()
            })
            .collect();
        (texts, cursor)
    }

    #[test]
    fn tui4_wraps_at_spaces_and_keeps_the_cursor_after_the_text() {
        let (rows, cursor) = rows_of("aaa bbb ccc", 5);
        assert_eq!(rows, ["aaa ", "bbb ", "ccc"]);
        assert_eq!(cursor, (2, 3));
    }

    #[test]
    fn tui4_a_word_longer_than_the_row_breaks_anywhere() {
        let (rows, _) = rows_of("abcdefghij", 4);
        assert_eq!(rows, ["abcd", "efgh", "ij"]);
    }

    #[test]
    fn tui4_a_full_last_row_gets_a_row_for_the_cursor() {
        let (rows, cursor) = rows_of("abcd", 4);
        assert_eq!(rows, ["abcd", ""]);
        assert_eq!(cursor, (1, 0));
    }

    #[test]
    fn tui4_wide_chars_count_two_columns() {
        let (rows, cursor) = rows_of("日本語です", 6);
        assert_eq!(rows, ["日本語", "です"]);
        assert_eq!(cursor, (1, 4));
    }

    #[test]
    fn tui2_the_window_of_a_long_text_is_what_the_whole_layout_shows() {
        let text: String = (0..300)
            .map(|i| format!("line {i} {}\n", "word ".repeat(i % 7)))
            .collect();
        let mut composer = Composer::default();
        composer.set(&text);
        for (row, col) in [(0, 0), (1, 3), (150, 4), (299, 20), (300, 0)] {
            composer.jump_to(row, col);
            for height in [1, 3, 8] {
                let (all, (at, c)) = layout(&composer, 12);
                let first = at.saturating_sub(height - 1);
                let expected: Vec<Row> = all.into_iter().skip(first).take(height).collect();
                assert_eq!(
                    window(&composer, 12, height),
                    (expected, (at - first, c)),
                    "cursor {row},{col} height {height}"
                );
            }
        }
    }

    #[test]
    fn tui4_empty_lines_keep_their_row() {
        let (rows, cursor) = rows_of("a\n\nb", 10);
        assert_eq!(rows, ["a", "", "b"]);
        assert_eq!(cursor, (2, 1));
    }
}
