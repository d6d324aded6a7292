//! A diff in the approval panel (APPR-6): what each line is, read by the
//! hunks' own line counts, and which lines stay when the panel is short.
//! The changed lines come first: the `---`/`+++` file headers go before
//! anything else, then the context farthest from any change, then the
//! hunk headers; a `-` or `+` line goes last of all.
//!
//! Inside a hunk a line is what its first character says, so a removed
//! line that reads `-- x` (shown `--- x`) or an added `++ x` is a change,
//! never a header to drop or to dim.

use crate::tui::theme::Theme;
use crate::tui::widgets::diff::{DiffLineKind, classify};
use ratatui::style::Style;

/// A unified diff split into lines and read once.
#[derive(Debug, Clone)]
pub struct Diff<'a> {
    pub lines: Vec<&'a str>,
    pub kinds: Vec<DiffLineKind>,
    /// For context lines, how many lines away the nearest change of the
    /// same hunk is (`usize::MAX` with none); 0 for every other line.
    distance: Vec<usize>,
}

impl<'a> Diff<'a> {
    pub fn parse(text: &'a str) -> Self {
        let lines: Vec<&str> = text.lines().collect();
        let kinds = kinds(&lines);
        let distance = distances(&kinds);
        Self {
            lines,
            kinds,
            distance,
        }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// How many lines are changes (`-` or `+`).
    pub fn changed(&self) -> usize {
        self.kinds.iter().filter(|k| is_change(**k)).count()
    }

    /// The first changed line, if any.
    pub fn first_change(&self) -> Option<usize> {
        self.kinds.iter().position(|k| is_change(*k))
    }

    /// The lines to show in at most `rows` rows, in order: every line when
    /// they fit, else the first of these that fits: without the file
    /// headers, with less and less context, without the hunk headers.
    /// `None` when even the changed lines alone do not fit.
    pub fn condensed(&self, rows: usize) -> Option<Vec<usize>> {
        if self.len() <= rows {
            return Some((0..self.len()).collect());
        }
        let far = self
            .distance
            .iter()
            .copied()
            .filter(|d| *d != usize::MAX)
            .max()
            .unwrap_or(0);
        // Context kept up to this distance from a change; `None`: no hunk
        // headers either.
        let mut levels: Vec<Option<usize>> = vec![Some(usize::MAX)];
        levels.extend((0..far).rev().map(Some));
        levels.push(None);
        levels
            .into_iter()
            .map(|level| self.kept(level))
            .find(|kept| kept.len() <= rows)
    }

    /// The lines kept at one level (see `condensed`); file headers never.
    fn kept(&self, level: Option<usize>) -> Vec<usize> {
        let mut kept: Vec<usize> = Vec::new();
        for (i, kind) in self.kinds.iter().enumerate() {
            let keep = match kind {
                DiffLineKind::Added | DiffLineKind::Removed => true,
                DiffLineKind::Hunk => level.is_some(),
                DiffLineKind::Context => level.is_some_and(|max| self.distance[i] <= max),
                // "\ No newline at end of file" belongs to the line above.
                DiffLineKind::Header if self.lines[i].starts_with('\\') => {
                    kept.last() == Some(&i.wrapping_sub(1))
                }
                DiffLineKind::Header => false,
            };
            if keep {
                kept.push(i);
            }
        }
        kept
    }
}

pub fn is_change(kind: DiffLineKind) -> bool {
    matches!(kind, DiffLineKind::Added | DiffLineKind::Removed)
}

/// The colour of a line of this kind: the transcript's diff colours.
pub fn kind_style(kind: DiffLineKind, theme: &Theme) -> Style {
    match kind {
        DiffLineKind::Header => theme.diff_header(),
        DiffLineKind::Hunk => theme.diff_hunk(),
        DiffLineKind::Added => theme.diff_add(),
        DiffLineKind::Removed => theme.diff_remove(),
        DiffLineKind::Context => Style::new(),
    }
}

/// Each line's kind. Inside a hunk (while its `@@ -a,b +c,d @@` counts
/// last) by its first character; outside, as any diff line is read.
fn kinds(lines: &[&str]) -> Vec<DiffLineKind> {
    let (mut old_left, mut new_left) = (0usize, 0usize);
    lines
        .iter()
        .map(|line| {
            if old_left == 0 && new_left == 0 {
                if let Some((old, new)) = hunk_counts(line) {
                    (old_left, new_left) = (old, new);
                    return DiffLineKind::Hunk;
                }
                return classify(line);
            }
            match line.as_bytes().first() {
                Some(b'+') => {
                    new_left = new_left.saturating_sub(1);
                    DiffLineKind::Added
                }
                Some(b'-') => {
                    old_left = old_left.saturating_sub(1);
                    DiffLineKind::Removed
                }
                Some(b'\\') => DiffLineKind::Header,
                _ => {
                    old_left = old_left.saturating_sub(1);
                    new_left = new_left.saturating_sub(1);
                    DiffLineKind::Context
                }
            }
        })
        .collect()
}

/// The old and new line counts of a hunk header `@@ -a[,b] +c[,d] @@`.
fn hunk_counts(line: &str) -> Option<(usize, usize)> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, _) = rest.split_once(" @@")?;
    let count = |range: &str| -> Option<usize> {
        match range.split_once(',') {
            Some((start, count)) => {
                start.parse::<usize>().ok()?;
                count.parse().ok()
            }
            None => range.parse::<usize>().ok().map(|_| 1),
        }
    };
    Some((count(old)?, count(new)?))
}

/// How far each context line is from the nearest change of its hunk.
fn distances(kinds: &[DiffLineKind]) -> Vec<usize> {
    let mut out = vec![0; kinds.len()];
    let mut last: Option<usize> = None;
    for (i, kind) in kinds.iter().enumerate() {
        match kind {
            k if is_change(*k) => last = Some(i),
            DiffLineKind::Hunk => last = None,
            DiffLineKind::Context => out[i] = last.map_or(usize::MAX, |at| i - at),
            _ => {}
        }
    }
    let mut next: Option<usize> = None;
    for (i, kind) in kinds.iter().enumerate().rev() {
        match kind {
            k if is_change(*k) => next = Some(i),
            DiffLineKind::Hunk => next = None,
            DiffLineKind::Context => {
                if let Some(at) = next {
                    out[i] = out[i].min(at - i);
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_LINE_EDIT: &str =
        "--- src/lib.rs\n+++ src/lib.rs\n@@ -1,7 +1,7 @@\n a\n b\n c\n-old\n+new\n d\n e\n f\n";

    fn shown(diff: &Diff, rows: usize) -> Vec<&'static str> {
        let kept = diff.condensed(rows).unwrap_or_default();
        kept.into_iter()
            .map(|i| match diff.kinds[i] {
                DiffLineKind::Header => "header",
                DiffLineKind::Hunk => "hunk",
                DiffLineKind::Added => "+",
                DiffLineKind::Removed => "-",
                DiffLineKind::Context => "ctx",
            })
            .collect()
    }

    #[test]
    fn approval_diff_changed_lines_stay_when_rows_are_short() {
        let diff = Diff::parse(TWO_LINE_EDIT);
        assert_eq!(diff.len(), 11);
        assert_eq!(shown(&diff, 11).len(), 11);
        // The file headers go first.
        assert_eq!(shown(&diff, 9)[0], "hunk");
        assert_eq!(shown(&diff, 9).len(), 9);
        // Then the far context, symmetrically.
        assert_eq!(shown(&diff, 5), ["hunk", "ctx", "-", "+", "ctx"]);
        assert_eq!(shown(&diff, 4), ["hunk", "-", "+"]);
        assert_eq!(shown(&diff, 2), ["-", "+"]);
        assert!(diff.condensed(1).is_none());
    }

    #[test]
    fn approval_diff_a_change_that_looks_like_a_header_is_a_change() {
        // A removed line `-- x` and an added line `++ y` inside a hunk.
        let diff = Diff::parse("--- f\n+++ f\n@@ -1,2 +1,2 @@\n--- x\n+++ y\n keep\n");
        assert_eq!(
            diff.kinds,
            [
                DiffLineKind::Header,
                DiffLineKind::Header,
                DiffLineKind::Hunk,
                DiffLineKind::Removed,
                DiffLineKind::Added,
                DiffLineKind::Context,
            ]
        );
        assert_eq!(shown(&diff, 2), ["-", "+"]);
    }

    #[test]
    fn approval_diff_no_newline_note_follows_its_line() {
        let diff = Diff::parse("@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n");
        let kept = diff.condensed(3).unwrap_or_default();
        assert_eq!(kept, [1, 2, 3]);
    }

    #[test]
    fn approval_diff_hunk_counts_with_and_without_lengths() {
        assert_eq!(hunk_counts("@@ -0,0 +1,2 @@"), Some((0, 2)));
        assert_eq!(hunk_counts("@@ -3 +3 @@ fn x()"), Some((1, 1)));
        assert_eq!(hunk_counts("@@ nonsense @@"), None);
        assert_eq!(Diff::parse(TWO_LINE_EDIT).first_change(), Some(6));
    }
}
