//! The transcript's cells, and which of them changed since the layout last
//! looked (TUI-2). Every change goes through a method here, so the layout
//! lays out again only the cells from the first changed one on, however many
//! cells there are; reading is through the slice.

use crate::tui::model::Cell;
use std::ops::{Deref, Index, IndexMut};
use std::slice::SliceIndex;

#[derive(Debug, Clone, Default)]
pub struct Cells {
    items: Vec<Cell>,
    /// The first cell that may differ from what the layout last saw.
    changed_from: Option<usize>,
}

/// Equal when the cells are: what the layout has seen does not count.
impl PartialEq for Cells {
    fn eq(&self, other: &Self) -> bool {
        self.items == other.items
    }
}

impl PartialEq<Vec<Cell>> for Cells {
    fn eq(&self, other: &Vec<Cell>) -> bool {
        &self.items == other
    }
}

impl Deref for Cells {
    type Target = [Cell];
    fn deref(&self) -> &[Cell] {
        &self.items
    }
}

impl<I: SliceIndex<[Cell]>> Index<I> for Cells {
    type Output = I::Output;
    fn index(&self, i: I) -> &I::Output {
        &self.items[i]
    }
}

impl IndexMut<usize> for Cells {
    fn index_mut(&mut self, i: usize) -> &mut Cell {
        self.mark(i);
        &mut self.items[i]
    }
}

impl FromIterator<Cell> for Cells {
    fn from_iter<I: IntoIterator<Item = Cell>>(iter: I) -> Self {
        Self {
            items: iter.into_iter().collect(),
            changed_from: Some(0),
        }
    }
}

impl<'a> IntoIterator for &'a Cells {
    type Item = &'a Cell;
    type IntoIter = std::slice::Iter<'a, Cell>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl Cells {
    pub fn push(&mut self, cell: Cell) {
        self.mark(self.items.len());
        self.items.push(cell);
    }

    pub fn last_mut(&mut self) -> Option<&mut Cell> {
        let last = self.items.len().checked_sub(1)?;
        self.mark(last);
        self.items.last_mut()
    }

    pub fn get_mut(&mut self, i: usize) -> Option<&mut Cell> {
        if i < self.items.len() {
            self.mark(i);
        }
        self.items.get_mut(i)
    }

    pub fn clear(&mut self) {
        self.items.clear();
        self.mark(0);
    }

    /// Changes the cells `f` picks: only those count as changed.
    pub fn update_where(
        &mut self,
        mut pick: impl FnMut(&Cell) -> bool,
        mut f: impl FnMut(&mut Cell),
    ) {
        for i in 0..self.items.len() {
            if pick(&self.items[i]) {
                self.mark(i);
                f(&mut self.items[i]);
            }
        }
    }

    /// The last cell `pick` chooses, marked as changed.
    pub fn rfind_mut(&mut self, pick: impl Fn(&Cell) -> bool) -> Option<&mut Cell> {
        let i = self.items.iter().rposition(pick)?;
        self.get_mut(i)
    }

    /// The first cell changed since [`Cells::take_changes`] was last called
    /// (`len()` when only cells were added at the end), or `None`.
    pub fn changes(&self) -> Option<usize> {
        self.changed_from
    }

    /// Returns [`Cells::changes`] and forgets them: the caller has seen them.
    pub fn take_changes(&mut self) -> Option<usize> {
        self.changed_from.take()
    }

    fn mark(&mut self, i: usize) {
        self.changed_from = Some(self.changed_from.map_or(i, |c| c.min(i)));
    }
}
