//! The transcript's layout cache (TUI-2): every cell's rows for one width
//! and theme, and the row each cell starts at. `update` keeps it in step
//! with `Model::cells`, so `view` draws only the rows that are visible, even
//! with ten thousand messages, and stays a pure read of the model.

use crate::tui::model::{Cell, ToolStatus};
use crate::tui::view::Theme;
use crate::tui::view::transcript::cell_lines;
use ratatui::text::Line;
use std::fmt;

/// A cheap identity of a cell's contents: its kind, its flags and the
/// address and length of each of its texts. Appending to a text changes its
/// length and replacing it changes its address, so the usual edits show up
/// without reading the text; a cell whose fingerprint differs is compared
/// in full before it is laid out again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fingerprint([usize; 12]);

impl Fingerprint {
    fn of(cell: &Cell) -> Self {
        fn text(s: &str) -> [usize; 2] {
            [s.as_ptr() as usize, s.len()]
        }
        let mut fp = [0usize; 12];
        match cell {
            Cell::User { text: t } => {
                fp[0] = 1;
                fp[1..3].copy_from_slice(&text(t));
            }
            Cell::Assistant { text: t, streaming } => {
                fp[0] = 2;
                fp[1..3].copy_from_slice(&text(t));
                fp[3] = usize::from(*streaming);
            }
            Cell::Tool {
                call_id,
                tool,
                summary,
                status,
                detail,
                output,
                diff,
                expanded,
            } => {
                fp[0] = 3;
                fp[1] = match status {
                    ToolStatus::Running => 0,
                    ToolStatus::Done => 1,
                    ToolStatus::Failed => 2,
                    ToolStatus::Denied => 3,
                } + 4 * usize::from(*expanded);
                fp[2..4].copy_from_slice(&text(call_id));
                fp[4..6].copy_from_slice(&text(tool));
                fp[6..8].copy_from_slice(&text(summary));
                fp[8..10].copy_from_slice(&text(detail));
                // The output and the diff change together, once.
                fp[10] = output.as_ptr() as usize ^ output.len();
                fp[11] = diff.as_ref().map_or(0, |d| d.as_ptr() as usize ^ d.len());
            }
            Cell::Notice { text: t } => {
                fp[0] = 4;
                fp[1..3].copy_from_slice(&text(t));
            }
            Cell::Error { text: t } => {
                fp[0] = 5;
                fp[1..3].copy_from_slice(&text(t));
            }
        }
        Self(fp)
    }
}

/// Cells laid out again per `sync` after a width or theme change, from the
/// bottom up: a resize costs a few frames, not the whole transcript at once;
/// the rest follows on the next updates (ticks come ten times a second).
const RELAYOUT_CHUNK: usize = 256;

/// One cell laid out: the copy it was made from and its rows.
#[derive(Clone)]
struct Entry {
    fingerprint: Fingerprint,
    source: Cell,
    lines: Vec<Line<'static>>,
}

impl Entry {
    fn new(cell: &Cell, fingerprint: Fingerprint, theme: &Theme, width: u16) -> Self {
        let mut lines = Vec::new();
        cell_lines(cell, theme, usize::from(width), &mut lines);
        Self {
            fingerprint,
            source: cell.clone(),
            lines,
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
    /// Brings the layout in step with `cells` at `width`: lays out what is
    /// new or changed and keeps the rest. The last cell (the one that
    /// streams) is compared in full. After a width or theme change every
    /// cell is pending, and each call lays out a chunk of them.
    pub fn sync(&mut self, cells: &[Cell], width: u16, monochrome: bool) {
        if self.key != Some((width, monochrome)) {
            self.key = Some((width, monochrome));
            self.pending = self.entries.len();
            self.starts.clear();
        }
        let theme = Theme::new(monochrome);
        self.entries.truncate(cells.len());
        self.pending = self.pending.min(cells.len());
        let mut first_changed = self.entries.len();
        let last = cells.len().saturating_sub(1);
        let pairs = cells.iter().zip(self.entries.iter_mut()).enumerate();
        for (i, (cell, entry)) in pairs.skip(self.pending) {
            let fingerprint = Fingerprint::of(cell);
            if fingerprint == entry.fingerprint && i != last {
                continue;
            }
            if entry.source == *cell {
                entry.fingerprint = fingerprint;
                continue;
            }
            *entry = Entry::new(cell, fingerprint, &theme, width);
            first_changed = first_changed.min(i);
        }
        let known = self.entries.len();
        for cell in &cells[known..] {
            self.entries
                .push(Entry::new(cell, Fingerprint::of(cell), &theme, width));
        }
        if self.pending > 0 {
            let stop = self.pending.saturating_sub(RELAYOUT_CHUNK);
            let redo = self.entries[stop..self.pending].iter_mut();
            for (entry, cell) in redo.zip(&cells[stop..self.pending]) {
                *entry = Entry::new(cell, Fingerprint::of(cell), &theme, width);
            }
            self.pending = stop;
            if stop > 0 {
                self.starts.clear();
                return;
            }
        }
        if self.starts.is_empty() {
            first_changed = 0;
        }
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

    /// Whether entry `i` was made from `cell`, by fingerprint or, failing
    /// that, in full (a cloned model has new addresses, same contents).
    pub fn is_fresh(&self, i: usize, cell: &Cell) -> bool {
        i >= self.pending
            && self
                .entries
                .get(i)
                .is_some_and(|e| e.fingerprint == Fingerprint::of(cell) || e.source == *cell)
    }

    /// The rows of cell `i` when its entry was made from exactly `cell`;
    /// `None` when it was not, and the caller lays the cell out itself.
    pub fn lines(&self, i: usize, cell: &Cell) -> Option<&[Line<'static>]> {
        self.entries
            .get(i)
            .filter(|e| i >= self.pending && e.source == *cell)
            .map(|e| e.lines.as_slice())
    }
}
