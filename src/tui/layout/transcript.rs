//! The transcript's layout cache (TUI-2): every cell's rows for one width
//! and theme, and the row each cell starts at. `update` keeps it in step
//! with `Model::cells`, so `view` draws only the rows that are visible, even
//! with ten thousand messages, and stays a pure read of the model.

use super::cell::{cell_lines, reply_open_rows, reply_row, reply_width};
use crate::tui::cells::Cell;
use crate::tui::theme::Theme;
use crate::tui::widgets::markdown_doc::MarkdownDoc;
use ratatui::text::Line;
use std::fmt;

/// Cells laid out again per `sync` after a width or theme change, from the
/// bottom up: a resize costs a few frames, not the whole transcript at once;
/// the rest follows on the next updates (ticks come ten times a second).
const RELAYOUT_CHUNK: usize = 256;

/// One cell laid out.
#[derive(Clone)]
struct Entry {
    lines: Vec<Line<'static>>,
    /// For a reply: its document, so that more text renders only what is
    /// new.
    reply: Option<Box<ReplyLayout>>,
}

#[derive(Clone)]
struct ReplyLayout {
    doc: MarkdownDoc,
    /// `lines[..finished]` are the document's finished rows.
    finished: usize,
}

impl Entry {
    fn new(cell: &Cell, theme: &Theme, width: u16) -> Self {
        if let Cell::Assistant { text, streaming } = cell {
            let doc = MarkdownDoc::new(reply_width(usize::from(width)), theme);
            let mut entry = Self {
                lines: Vec::new(),
                reply: Some(Box::new(ReplyLayout { doc, finished: 0 })),
            };
            entry.extend_reply(text, *streaming, theme);
            return entry;
        }
        let mut lines = Vec::new();
        cell_lines(cell, theme, usize::from(width), &mut lines);
        Self { lines, reply: None }
    }

    /// Lays `cell` out again, from where it was when it is a reply that only
    /// grew.
    fn update(&mut self, cell: &Cell, theme: &Theme, width: u16) {
        if let (Cell::Assistant { text, streaming }, Some(reply)) = (cell, &self.reply)
            && text.starts_with(reply.doc.text())
        {
            self.extend_reply(text, *streaming, theme);
            return;
        }
        *self = Self::new(cell, theme, width);
    }

    /// Feeds the part of `text` the document lacks, keeps the finished rows
    /// made before and renders the open block again.
    fn extend_reply(&mut self, text: &str, streaming: bool, theme: &Theme) {
        let Some(reply) = self.reply.as_mut() else {
            return;
        };
        let known = reply.doc.text().len();
        reply.doc.push(&text[known..]);
        self.lines.truncate(reply.finished);
        let finished = reply.doc.finished_rows();
        for row in &finished[reply.finished..] {
            self.lines
                .push(reply_row(self.lines.len(), row.clone(), theme));
        }
        reply.finished = finished.len();
        for row in reply_open_rows(&reply.doc, streaming) {
            self.lines.push(reply_row(self.lines.len(), row, theme));
        }
    }
}

/// The rows of every cell at one width and theme. A cache: two models that
/// differ only here are equal, and its `Debug` form is a summary.
#[derive(Clone, Default)]
pub struct TranscriptLayout {
    /// The width and the monochrome flag the entries were made for.
    key: Option<(u16, bool)>,
    entries: Vec<Entry>,
    /// `starts[i]` is the first row of cell `i` (the blank row between two
    /// cells belongs to the later one); the last element is the row count.
    /// Empty while cells are pending.
    starts: Vec<usize>,
    /// The first `pending` entries are still from before a width or theme
    /// change; `sync` lays them out again from the bottom up.
    pending: usize,
}

impl PartialEq for TranscriptLayout {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl fmt::Debug for TranscriptLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TranscriptLayout")
            .field("key", &self.key)
            .field("cells", &self.entries.len())
            .field("rows", &self.rows())
            .field("pending", &self.pending)
            .finish()
    }
}

impl TranscriptLayout {
    /// Brings the layout in step with `cells` at `width`: lays out again
    /// the cells from `changed` on (what [`crate::tui::cells::Cells`]
    /// recorded) and the new ones, and keeps the rest. After a width or
    /// theme change every cell is pending, and each call lays out a chunk of
    /// them.
    pub fn sync(&mut self, cells: &[Cell], changed: Option<usize>, width: u16, monochrome: bool) {
        if self.key != Some((width, monochrome)) {
            self.key = Some((width, monochrome));
            self.pending = self.entries.len();
            self.starts.clear();
        }
        let theme = Theme::new(monochrome);
        self.entries.truncate(cells.len());
        self.pending = self.pending.min(cells.len());
        let known = self.entries.len();
        let first_changed = changed.unwrap_or(known).min(known);
        let from = first_changed.max(self.pending);
        for (entry, cell) in self.entries[from..].iter_mut().zip(&cells[from..known]) {
            entry.update(cell, &theme, width);
        }
        for cell in &cells[known..] {
            self.entries.push(Entry::new(cell, &theme, width));
        }
        if self.pending > 0 {
            let stop = self.pending.saturating_sub(RELAYOUT_CHUNK);
            let redo = self.entries[stop..self.pending].iter_mut();
            for (entry, cell) in redo.zip(&cells[stop..self.pending]) {
                *entry = Entry::new(cell, &theme, width);
            }
            self.pending = stop;
            if stop > 0 {
                self.starts.clear();
                return;
            }
        }
        let first_changed = if self.starts.is_empty() {
            0
        } else {
            first_changed
        };
        self.starts.truncate(first_changed + 1);
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        for i in self.starts.len() - 1..self.entries.len() {
            let gap = usize::from(i > 0);
            self.starts
                .push(self.starts[i] + gap + self.entries[i].lines.len());
        }
    }

    /// Whether the layout is for this width and theme (some cells may still
    /// be pending).
    pub fn is_for(&self, width: u16, monochrome: bool) -> bool {
        self.key == Some((width, monochrome))
    }

    /// Whether every cell is laid out and the row starts are known.
    pub fn is_complete(&self) -> bool {
        self.pending == 0
    }

    /// How many cells are laid out.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The rows of all laid-out cells, blank rows between cells included.
    pub fn rows(&self) -> usize {
        self.starts.last().copied().unwrap_or(0)
    }

    /// The first row of cell `i` (`i == len()` gives the row count).
    pub fn start(&self, i: usize) -> usize {
        self.starts.get(i).copied().unwrap_or_else(|| self.rows())
    }

    /// The cell that holds `row`.
    pub fn cell_at(&self, row: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= row)
            .saturating_sub(1)
            .min(self.entries.len().saturating_sub(1))
    }

    /// Whether the layout holds every cell of `cells` as it is now, at this
    /// width and theme: nothing changed since the last `sync`.
    pub fn in_step(&self, cells: &crate::tui::cells::Cells, width: u16, monochrome: bool) -> bool {
        self.is_for(width, monochrome)
            && self.is_complete()
            && self.entries.len() == cells.len()
            && cells.changes().is_none()
    }

    /// The rows of cell `i` when its entry is up to date with `cells`;
    /// `None` when it is not, and the caller lays the cell out itself.
    pub fn lines(&self, i: usize, cells: &crate::tui::cells::Cells) -> Option<&[Line<'static>]> {
        let unchanged = cells.changes().is_none_or(|from| i < from);
        self.entries
            .get(i)
            .filter(|_| i >= self.pending && unchanged)
            .map(|e| e.lines.as_slice())
    }
}
