//! The composer's state: a multi-line input.

use ratatui_textarea::{CursorMove, TextArea};

/// The multi-line input: a `TextArea` does the editing (cursor, word
/// moves, deletes); `text` mirrors its lines joined with `\n` so readers
/// get a plain `&str`. The view wraps the rows itself (see
/// `view::composer`), since the textarea learns its width only while
/// drawing and the layout needs the height before that.
#[derive(Debug, Clone, Default)]
pub struct Composer {
    area: TextArea<'static>,
    text: String,
}

/// Equal when the text and the cursor are: the textarea's undo history and
/// render state do not count.
impl PartialEq for Composer {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text && self.area.cursor() == other.area.cursor()
    }
}

impl Composer {
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The lines of the text (at least one, maybe empty).
    pub fn lines(&self) -> &[String] {
        self.area.lines()
    }

    pub fn set(&mut self, text: &str) {
        self.area = TextArea::default();
        self.area.insert_str(text);
        self.sync();
    }

    /// Empties the buffer and returns what it held.
    pub fn take(&mut self) -> String {
        self.area = TextArea::default();
        std::mem::take(&mut self.text)
    }

    /// Inserts `s` at the cursor; `\n` starts a new line.
    pub fn insert_str(&mut self, s: &str) {
        self.area.insert_str(s);
        self.sync();
    }

    pub fn insert_char(&mut self, c: char) {
        self.area.insert_char(c);
        self.sync();
    }

    pub fn backspace(&mut self) {
        self.area.delete_char();
        self.sync();
    }

    pub fn delete(&mut self) {
        self.area.delete_next_char();
        self.sync();
    }

    /// Deletes the word before the cursor (Ctrl+W, Alt+Backspace).
    pub fn delete_word(&mut self) {
        self.area.delete_word();
        self.sync();
    }

    pub fn left(&mut self) {
        self.area.move_cursor(CursorMove::Back);
    }

    pub fn right(&mut self) {
        self.area.move_cursor(CursorMove::Forward);
    }

    pub fn word_left(&mut self) {
        self.area.move_cursor(CursorMove::WordBack);
    }

    pub fn word_right(&mut self) {
        self.area.move_cursor(CursorMove::WordForward);
    }

    /// Moves to the line above; false on the first line.
    pub fn up(&mut self) -> bool {
        let (row, col) = self.cursor_position();
        if row == 0 {
            return false;
        }
        self.jump(row - 1, col);
        true
    }

    /// Moves to the line below; false on the last line.
    pub fn down(&mut self) -> bool {
        let (row, col) = self.cursor_position();
        if row + 1 >= self.line_count() {
            return false;
        }
        self.jump(row + 1, col);
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
    }

    /// Moves to (row, col), the column clamped to the line.
    fn jump(&mut self, row: usize, col: usize) {
        let len = self.area.lines().get(row).map_or(0, |l| l.chars().count());
        let to = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
        self.area
            .move_cursor(CursorMove::Jump(to(row), to(col.min(len))));
    }

    fn sync(&mut self) {
        self.text = self.area.lines().join("\n");
    }
}
