//! Pipe tables laid out as tables (TUI-2): columns as wide as their widest
//! cell, cells wrapped within their column when the table is wider than
//! the transcript, the header row in bold above a rule, and each column's
//! alignment (`:---:`) honoured. Widths are display columns, so wide (CJK)
//! characters count twice.
//!
//! Below [`MIN_COLUMN`] columns a cell, a table cannot be read as a grid;
//! it is then shown as one `header: value` record per row instead.

use super::Theme;
use super::markdown::{spans_width, wrap_spans};
use pulldown_cmark::Alignment;
use ratatui::text::{Line, Span};

/// The narrowest a column is squeezed to before the table becomes records.
pub(crate) const MIN_COLUMN: usize = 6;

/// Between two columns.
const SEPARATOR: &str = " │ ";
/// Where the rule under the header crosses a column separator.
const CROSSING: &str = "─┼─";

type Cell = Vec<Span<'static>>;

/// A table as its cells come from the parser.
#[derive(Default)]
pub(crate) struct TableBuilder {
    alignments: Vec<Alignment>,
    head: Vec<Cell>,
    rows: Vec<Vec<Cell>>,
    in_head: bool,
}

impl TableBuilder {
    pub fn new(alignments: Vec<Alignment>) -> Self {
        Self {
            alignments,
            ..Self::default()
        }
    }

    pub fn start_head(&mut self) {
        self.in_head = true;
    }

    pub fn end_head(&mut self) {
        self.in_head = false;
    }

    pub fn start_row(&mut self) {
        self.rows.push(Vec::new());
    }

    pub fn push_cell(&mut self, cell: Cell) {
        if self.in_head {
            self.head.push(cell);
        } else if let Some(row) = self.rows.last_mut() {
            row.push(cell);
        }
    }

    /// The table's rows `width` columns wide.
    pub fn render(self, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let columns = self
            .rows
            .iter()
            .map(Vec::len)
            .chain([self.head.len(), self.alignments.len()])
            .max()
            .unwrap_or(0);
        if columns == 0 {
            return Vec::new();
        }
        let natural: Vec<usize> = (0..columns)
            .map(|c| {
                let head = self.head.get(c).map_or(0, |cell| spans_width(cell));
                self.rows
                    .iter()
                    .filter_map(|row| row.get(c))
                    .map(|cell| spans_width(cell))
                    .fold(head, usize::max)
                    .max(1)
            })
            .collect();
        let separators = SEPARATOR.chars().count() * (columns - 1);
        match width
            .checked_sub(separators)
            .and_then(|room| fit(&natural, room))
        {
            Some(widths) => self.grid(&widths, theme),
            None => self.records(width, theme),
        }
    }

    fn alignment(&self, column: usize) -> Alignment {
        self.alignments
            .get(column)
            .copied()
            .unwrap_or(Alignment::None)
    }

    fn grid(&self, widths: &[usize], theme: &Theme) -> Vec<Line<'static>> {
        let mut out = Vec::new();
        let head: Vec<Cell> = self
            .head
            .iter()
            .map(|cell| restyle(cell, theme.strong()))
            .collect();
        out.extend(self.grid_row(&head, widths, theme));
        let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
        let rule = Line::from(Span::styled(rule.join(CROSSING), theme.rule()));
        out.push(rule.clone());
        let rows: Vec<Vec<Line<'static>>> = self
            .rows
            .iter()
            .map(|row| self.grid_row(row, widths, theme))
            .collect();
        // Rows of more than one line need a rule between them to be told
        // apart.
        let tall = rows.iter().any(|lines| lines.len() > 1);
        for (i, lines) in rows.into_iter().enumerate() {
            if tall && i > 0 {
                out.push(rule.clone());
            }
            out.extend(lines);
        }
        out
    }

    /// One row of the grid: each cell wrapped in its column, the row as
    /// tall as its tallest cell.
    fn grid_row(&self, row: &[Cell], widths: &[usize], theme: &Theme) -> Vec<Line<'static>> {
        let wrapped: Vec<Vec<Line<'static>>> = widths
            .iter()
            .enumerate()
            .map(|(c, w)| match row.get(c) {
                Some(cell) if !cell.is_empty() => wrap_spans(cell.clone(), *w, vec![], vec![]),
                _ => Vec::new(),
            })
            .collect();
        let height = wrapped.iter().map(Vec::len).max().unwrap_or(0).max(1);
        let last = widths.len() - 1;
        (0..height)
            .map(|k| {
                let mut spans = Vec::new();
                for (c, w) in widths.iter().enumerate() {
                    if c > 0 {
                        spans.push(Span::styled(SEPARATOR, theme.rule()));
                    }
                    let line = wrapped[c].get(k).cloned().unwrap_or_default();
                    let free = w.saturating_sub(line.width());
                    let (before, after) = match self.alignment(c) {
                        Alignment::Right => (free, 0),
                        Alignment::Center => (free / 2, free - free / 2),
                        Alignment::Left | Alignment::None => (0, free),
                    };
                    if before > 0 {
                        spans.push(Span::raw(" ".repeat(before)));
                    }
                    spans.extend(line.spans);
                    // No trailing blanks after the last column.
                    if after > 0 && c < last {
                        spans.push(Span::raw(" ".repeat(after)));
                    }
                }
                Line::from(spans)
            })
            .collect()
    }

    /// The narrow form: per row, one `header: value` line a cell, rows
    /// apart by a rule.
    fn records(&self, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let mut out = Vec::new();
        let rows: Vec<&Vec<Cell>> = if self.rows.is_empty() {
            vec![&self.head]
        } else {
            self.rows.iter().collect()
        };
        let only_head = self.rows.is_empty();
        for (i, row) in rows.into_iter().enumerate() {
            if i > 0 {
                out.push(Line::from(Span::styled("─".repeat(width), theme.rule())));
            }
            for (c, cell) in row.iter().enumerate() {
                let mut spans = Vec::new();
                match self.head.get(c) {
                    Some(head) if !head.is_empty() && !only_head => {
                        spans.extend(restyle(head, theme.strong()));
                        spans.push(Span::styled(":", theme.strong()));
                        if !cell.is_empty() {
                            spans.push(Span::raw(" "));
                        }
                    }
                    _ => {}
                }
                if only_head {
                    spans.extend(restyle(cell, theme.strong()));
                } else {
                    spans.extend(cell.iter().cloned());
                }
                if spans.is_empty() {
                    continue;
                }
                out.extend(wrap_spans(spans, width, vec![], vec![Span::raw("  ")]));
            }
        }
        out
    }
}

/// Column widths that fit `room`: every column as wide as it wants when
/// they all fit, else the widest cut down first to a common width. `None`
/// when that width would be below [`MIN_COLUMN`].
fn fit(natural: &[usize], room: usize) -> Option<Vec<usize>> {
    if natural.iter().sum::<usize>() <= room {
        return Some(natural.to_vec());
    }
    let capped = |cap: usize| natural.iter().map(|n| (*n).min(cap)).sum::<usize>();
    if capped(MIN_COLUMN) > room {
        return None;
    }
    // The widest cap that fits: between MIN_COLUMN (fits) and the widest
    // column (does not).
    let (mut low, mut high) = (MIN_COLUMN, natural.iter().copied().max().unwrap_or(0));
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if capped(mid) <= room {
            low = mid;
        } else {
            high = mid;
        }
    }
    let mut widths: Vec<usize> = natural.iter().map(|n| (*n).min(low)).collect();
    // What is left goes, a column each, to the columns that were cut.
    let mut left = room - capped(low);
    for (w, n) in widths.iter_mut().zip(natural) {
        if left == 0 {
            break;
        }
        if *n > *w {
            *w += 1;
            left -= 1;
        }
    }
    Some(widths)
}

/// `cell` with `style` patched onto each span.
fn restyle(cell: &[Span<'static>], style: ratatui::style::Style) -> Cell {
    cell.iter()
        .map(|s| Span::styled(s.content.clone(), s.style.patch(style)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ux_columns_are_cut_down_widest_first() {
        assert_eq!(fit(&[3, 10, 4], 20), Some(vec![3, 10, 4]));
        assert_eq!(fit(&[3, 30, 20], 30), Some(vec![3, 14, 13]));
        assert_eq!(fit(&[30, 30], 21), Some(vec![11, 10]));
        assert_eq!(fit(&[30, 30, 30], 17), None);
        assert_eq!(fit(&[2, 30], 8), Some(vec![2, 6]));
    }
}
