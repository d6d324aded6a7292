//! Keeping a scrolled-up transcript still (TUI-2). `Model::scroll` counts
//! rows back from the bottom, so rows added below (an answer streaming) or
//! a cell above laid out again (a tool cell expanding) would move what is
//! on screen. The window's last row is remembered as a cell and a row
//! within it, and the scroll is worked out again from there after each
//! layout; at the bottom (scroll 0) the window follows new rows instead.

use super::transcript::TranscriptLayout;

/// The last row of a scrolled-up window, as a place in the transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScrollAnchor {
    /// The scroll it was taken at. Another scroll now was set by the user
    /// since (Home, End, a new message) and is taken as it is.
    scroll: usize,
    /// The cell the row belongs to.
    cell: usize,
    /// The row, counted from the cell's first row (the blank row before
    /// the cell included).
    row: usize,
}

impl ScrollAnchor {
    /// The anchor of a window scrolled back `scroll` rows from the bottom of
    /// `total` rows (the layout's, then any rows below it); `None` while it
    /// follows the bottom or the layout is not complete.
    pub fn take(layout: &TranscriptLayout, scroll: usize, total: usize) -> Option<Self> {
        if scroll == 0 || layout.is_empty() || !layout.is_complete() {
            return None;
        }
        let end = total.saturating_sub(scroll).min(layout.rows());
        let last = end.checked_sub(1)?;
        let cell = layout.cell_at(last);
        Some(Self {
            scroll,
            cell,
            row: last - layout.start(cell),
        })
    }

    /// Cell `i` was removed (an Agent call's cell joining its group): a
    /// later anchored cell is one place up now.
    pub fn cell_removed(&mut self, i: usize) {
        if self.cell > i {
            self.cell -= 1;
        }
    }

    /// Whether the scroll is still the one the anchor was taken at.
    pub fn holds(&self, scroll: usize) -> bool {
        scroll != 0 && scroll == self.scroll
    }

    /// The scroll that keeps the anchored row last in the window, now that
    /// the layout has `total` rows; `None` when its cell is gone. A cell
    /// that got shorter keeps the window on its last row; 0 when nothing is
    /// below any more.
    pub fn scroll(&self, layout: &TranscriptLayout, total: usize) -> Option<usize> {
        if self.cell >= layout.len() || !layout.is_complete() {
            return None;
        }
        let first = layout.start(self.cell);
        let rows = layout.start(self.cell + 1).saturating_sub(first).max(1);
        let end = first + self.row.min(rows - 1) + 1;
        Some(total.saturating_sub(end))
    }
}
