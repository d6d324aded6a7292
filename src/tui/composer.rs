//! The composer's state: a multi-line input, where a large paste shows as
//! a chip.

use ratatui_textarea::{CursorMove, TextArea};

/// A paste of more lines than this, or more characters than
/// [`CHIP_MAX_CHARS`], shows as a chip ("[pasted 200 lines]") rather than
/// as its text.
pub const CHIP_MAX_LINES: usize = 10;
pub const CHIP_MAX_CHARS: usize = 1_000;

/// A large paste: its label stands in the text, one unit for the cursor
/// and the deletes, until the input is sent with `text` in its place.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Chip {
    label: String,
    text: String,
}

/// The multi-line input: a `TextArea` does the editing (cursor, word
/// moves, deletes); `text` mirrors its lines joined with `\n` so readers
/// get a plain `&str`, chips as their labels. The view wraps the rows
/// itself (see `view::composer`), since the textarea learns its width
/// only while drawing and the layout needs the height before that.
#[derive(Debug, Clone, Default)]
pub struct Composer {
    area: TextArea<'static>,
    text: String,
    /// The chips whose labels are in `text`.
    chips: Vec<Chip>,
}

/// Equal when the text, the chips and the cursor are: the textarea's undo
/// history and render state do not count.
impl PartialEq for Composer {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
            && self.chips == other.chips
            && self.area.cursor() == other.area.cursor()
    }
}

/// Whether a paste is large enough to show as a chip.
pub fn is_large_paste(text: &str) -> bool {
    text.lines().count() > CHIP_MAX_LINES || text.chars().count() > CHIP_MAX_CHARS
}

impl Composer {
    /// The text as shown: chips as their labels.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text as it is sent: every chip replaced by its paste.
    pub fn full_text(&self) -> String {
        self.expand(&self.text)
    }

    /// `s` (the text or a part of it) with the chips' labels replaced by
    /// their pastes.
    pub fn expand(&self, s: &str) -> String {
        let mut found: Vec<(usize, &Chip)> = self
            .chips
            .iter()
            .filter_map(|chip| s.find(&chip.label).map(|at| (at, chip)))
            .collect();
        found.sort_by_key(|(at, _)| *at);
        let mut out = String::with_capacity(s.len());
        let mut from = 0;
        for (at, chip) in found {
            if at < from {
                continue;
            }
            out.push_str(&s[from..at]);
            out.push_str(&chip.text);
            from = at + chip.label.len();
        }
        out.push_str(&s[from..]);
        out
    }

    /// A bracketed paste: a large one becomes a chip, a small one text.
    pub fn paste(&mut self, text: &str) {
        if !is_large_paste(text) {
            self.insert_str(text);
            return;
        }
        let label = self.new_label(text);
        self.snap_forward();
        self.area.insert_str(&label);
        self.chips.push(Chip {
            label,
            text: text.to_string(),
        });
        self.sync();
    }

    /// "[pasted 200 lines]" (or characters, for one long line), numbered
    /// when the text already holds that label.
    fn new_label(&self, text: &str) -> String {
        let lines = text.lines().count();
        let base = if lines > 1 {
            format!("pasted {lines} lines")
        } else {
            format!("pasted {} characters", text.chars().count())
        };
        let mut label = format!("[{base}]");
        let mut n = 2;
        while self.text.contains(&label) {
            label = format!("[{base} #{n}]");
            n += 1;
        }
        label
    }

    /// The chips on line `row`, as `start..end` char ranges of the line.
    pub fn chip_spans(&self, row: usize) -> Vec<(usize, usize)> {
        let Some(line) = self.area.lines().get(row) else {
            return Vec::new();
        };
        let mut spans: Vec<(usize, usize)> = Vec::new();
        for chip in &self.chips {
            for (at, _) in line.match_indices(&chip.label) {
                let start = line[..at].chars().count();
                spans.push((start, start + chip.label.chars().count()));
            }
        }
        spans.sort_unstable();
        spans
    }

    /// The chip on the cursor's line that `pick` chooses by its span.
    fn chip_at(&self, pick: impl Fn((usize, usize), usize) -> bool) -> Option<(usize, usize)> {
        let (row, col) = self.cursor_position();
        self.chip_spans(row).into_iter().find(|s| pick(*s, col))
    }

    /// Deletes the chars `start..end` of the cursor's line.
    fn delete_span(&mut self, (start, end): (usize, usize)) {
        let (row, _) = self.cursor_position();
        self.jump(row, start);
        self.area.delete_str(end - start);
        self.sync();
    }

    /// A cursor inside a chip (after a move by line or word) goes to its
    /// end, so that nothing is typed into a label.
    fn snap_forward(&mut self) {
        if let Some((_, end)) = self.chip_at(|(s, e), col| s < col && col < e) {
            let (row, _) = self.cursor_position();
            self.jump(row, end);
        }
    }

    /// [`Composer::snap_forward`], to the chip's start.
    fn snap_back(&mut self) {
        if let Some((start, _)) = self.chip_at(|(s, e), col| s < col && col < e) {
            let (row, _) = self.cursor_position();
            self.jump(row, start);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The lines of the text (at least one, maybe empty).
    pub fn lines(&self) -> &[String] {
        self.area.lines()
    }

    /// Replaces the text (no chips).
    pub fn set(&mut self, text: &str) {
        self.area = TextArea::default();
        self.chips.clear();
        self.area.insert_str(text);
        self.sync();
    }

    /// Empties the buffer and returns what it held, chips as their pastes.
    pub fn take(&mut self) -> String {
        let full = self.full_text();
        self.area = TextArea::default();
        self.text.clear();
        self.chips.clear();
        full
    }

    /// Inserts `s` at the cursor; `\n` starts a new line.
    pub fn insert_str(&mut self, s: &str) {
        self.snap_forward();
        self.area.insert_str(s);
        self.sync();
    }

    pub fn insert_char(&mut self, c: char) {
        self.snap_forward();
        self.area.insert_char(c);
        self.sync();
    }

    /// Replaces the text of the cursor's line from char column `start` to
    /// the cursor with `text` (a completion), the cursor after it.
    pub fn replace_before_cursor(&mut self, start: usize, text: &str) {
        let (row, col) = self.cursor_position();
        let start = start.min(col);
        self.jump(row, start);
        self.area.delete_str(col - start);
        self.area.insert_str(text);
        self.sync();
    }

    /// Deletes the char before the cursor, or the whole chip there.
    pub fn backspace(&mut self) {
        if let Some(span) = self.chip_at(|(s, e), col| s < col && col <= e) {
            self.delete_span(span);
            return;
        }
        self.area.delete_char();
        self.sync();
    }

    /// Deletes the char under the cursor, or the whole chip there.
    pub fn delete(&mut self) {
        if let Some(span) = self.chip_at(|(s, e), col| s <= col && col < e) {
            self.delete_span(span);
            return;
        }
        self.area.delete_next_char();
        self.sync();
    }

    /// Deletes the word before the cursor (Ctrl+W, Alt+Backspace); a chip
    /// it reaches goes whole.
    pub fn delete_word(&mut self) {
        let (row, col) = self.cursor_position();
        let mut probe = self.area.clone();
        probe.delete_word();
        let probe_cursor = probe.cursor();
        let (probe_row, from) = (probe_cursor.0, probe_cursor.1);
        if probe_row != row {
            // It joined the line to the one above: no chip spans that.
            self.area = probe;
            self.sync();
            return;
        }
        let from = self
            .chip_spans(row)
            .into_iter()
            .filter(|&(s, e)| s < col && e > from)
            .map(|(s, _)| s)
            .fold(from, usize::min);
        self.delete_span((from, col));
    }

    /// One char back, or over the whole chip before the cursor.
    pub fn left(&mut self) {
        match self.chip_at(|(_, e), col| e == col) {
            Some((start, _)) => {
                let (row, _) = self.cursor_position();
                self.jump(row, start);
            }
            None => {
                self.area.move_cursor(CursorMove::Back);
                self.snap_back();
            }
        }
    }

    /// One char on, or over the whole chip after the cursor.
    pub fn right(&mut self) {
        match self.chip_at(|(s, _), col| s == col) {
            Some((_, end)) => {
                let (row, _) = self.cursor_position();
                self.jump(row, end);
            }
            None => {
                self.area.move_cursor(CursorMove::Forward);
                self.snap_forward();
            }
        }
    }

    pub fn word_left(&mut self) {
        self.area.move_cursor(CursorMove::WordBack);
        self.snap_back();
    }

    pub fn word_right(&mut self) {
        self.area.move_cursor(CursorMove::WordForward);
        self.snap_forward();
    }

    /// Moves to the line above; false on the first line.
    pub fn up(&mut self) -> bool {
        let (row, col) = self.cursor_position();
        if row == 0 {
            return false;
        }
        self.jump(row - 1, col);
        self.snap_forward();
        true
    }

    /// Moves to the line below; false on the last line.
    pub fn down(&mut self) -> bool {
        let (row, col) = self.cursor_position();
        if row + 1 >= self.line_count() {
            return false;
        }
        self.jump(row + 1, col);
        self.snap_forward();
        true
    }

    /// Start of the current line.
    pub fn line_start(&mut self) {
        self.area.move_cursor(CursorMove::Head);
    }

    /// End of the current line.
    pub fn line_end(&mut self) {
        self.area.move_cursor(CursorMove::End);
    }

    /// Deletes from the start of the line to the cursor (Ctrl+U); at the
    /// start of a line it does nothing, unlike the textarea's own binding
    /// which would join the lines.
    pub fn kill_line_start(&mut self) {
        if self.cursor_position().1 > 0 {
            self.area.delete_line_by_head();
            self.sync();
        }
    }

    /// (row, column in chars) of the cursor.
    pub fn cursor_position(&self) -> (usize, usize) {
        let cursor = self.area.cursor();
        (cursor.0, cursor.1)
    }

    pub fn line_count(&self) -> usize {
        self.area.lines().len()
    }

    /// Moves the cursor to (row, col), both clamped to the text.
    pub fn jump_to(&mut self, row: usize, col: usize) {
        self.jump(row.min(self.line_count().saturating_sub(1)), col);
        self.snap_forward();
    }

    /// Moves to (row, col), the column clamped to the line.
    fn jump(&mut self, row: usize, col: usize) {
        let len = self.area.lines().get(row).map_or(0, |l| l.chars().count());
        let to = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
        self.area
            .move_cursor(CursorMove::Jump(to(row), to(col.min(len))));
    }

    /// Mirrors the text and forgets the chips whose labels are gone.
    fn sync(&mut self) {
        self.text = self.area.lines().join("\n");
        let text = &self.text;
        self.chips.retain(|chip| text.contains(&chip.label));
    }
}
