//! Where a Markdown document's top-level blocks begin, decided one complete
//! line at a time and never revised (TUI-2). A growing reply is cut at these
//! points, and each finished run of blocks is rendered once.
//!
//! A cut is made only where CommonMark itself ends every open block, so
//! that rendering the pieces one by one gives what rendering the whole would:
//! - at a line that starts in column 0 after a blank line (a paragraph, a
//!   list or a quote cannot continue there), unless it is a list item that
//!   goes on a list: a loose list stays one block, so that its numbers are
//!   padded to its widest one;
//! - at a fence opening in column 0 (it interrupts a paragraph or a list);
//! - at the first line after a fenced code block that opened in column 0.
//!
//! Blank lines inside a fenced code block or inside an HTML block that ends
//! at a marker (`<pre>`, `<!--`, …) cut nothing. A link used before its
//! reference definition, in an earlier piece, stays literal text: models
//! write inline links.

/// The splitter's state between lines.
#[derive(Debug, Clone, Default)]
pub struct BlockSplitter {
    /// Inside a fenced code block: its fence character and length, and
    /// whether it opened in column 0.
    fence: Option<Fence>,
    /// Inside an HTML block that ends at this marker.
    html_end: Option<&'static str>,
    /// The last line was blank.
    after_blank: bool,
    /// The last line closed a fence that opened in column 0.
    after_top_fence: bool,
    /// Something other than blank lines came since the last cut.
    started: bool,
    /// A list item came since the last cut: a list may still be open.
    in_list: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fence {
    pub marker: char,
    pub len: usize,
    pub top_level: bool,
}

/// What one line is, as far as the renderer of a growing reply cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineInfo {
    /// A new top-level block starts at this line: everything before it is
    /// finished.
    pub starts_block: bool,
    /// The line opens a fenced code block in column 0.
    pub opens_top_fence: bool,
    /// The line is inside a column-0 fenced code block (not its fences).
    pub top_fence_content: bool,
    /// The line closes a column-0 fenced code block.
    pub closes_top_fence: bool,
}

impl BlockSplitter {
    /// Classifies the next complete line (`line` without its newline).
    pub fn line(&mut self, line: &str) -> LineInfo {
        let mut info = LineInfo {
            starts_block: false,
            opens_top_fence: false,
            top_fence_content: false,
            closes_top_fence: false,
        };
        if let Some(fence) = self.fence {
            if closes(line, fence) {
                self.fence = None;
                self.after_top_fence = fence.top_level;
                info.closes_top_fence = fence.top_level;
            } else {
                info.top_fence_content = fence.top_level;
            }
            return info;
        }
        if let Some(end) = self.html_end {
            if line.to_ascii_lowercase().contains(end) {
                self.html_end = None;
            }
            self.after_blank = false;
            return info;
        }
        if line.trim().is_empty() {
            self.after_blank = true;
            self.after_top_fence = false;
            return info;
        }
        let column0 = !line.starts_with([' ', '\t']);
        let fence = fence_opening(line);
        let opens_top_fence = fence.is_some_and(|f| f.top_level);
        let item = starts_list_item(line);
        let goes_on_list = item && self.in_list;
        info.starts_block = self.started
            && (self.after_top_fence
                || (column0 && self.after_blank && !goes_on_list)
                || opens_top_fence);
        info.opens_top_fence = opens_top_fence;
        if info.starts_block || opens_top_fence {
            self.in_list = false;
        }
        self.in_list |= item && fence.is_none();
        self.fence = fence;
        if fence.is_none() {
            self.html_end = html_block_end(line);
        }
        self.after_blank = false;
        self.after_top_fence = false;
        self.started = true;
        info
    }

    /// The fence of the code block the last line left open, if any.
    pub fn open_fence(&self) -> Option<Fence> {
        self.fence
    }
}

/// The fence `line` opens, if it opens one: at most three spaces of indent,
/// three or more backticks or tildes, and for backticks an info string
/// without backticks (else it is inline code).
pub fn fence_opening(line: &str) -> Option<Fence> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let marker = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.chars().take_while(|c| *c == marker).count();
    if len < 3 || (marker == '`' && rest[len..].contains('`')) {
        return None;
    }
    Some(Fence {
        marker,
        len,
        top_level: indent == 0,
    })
}

/// Whether `line` (after its indent) starts with a list marker: `-`, `+`
/// or `*`, or up to nine digits and `.` or `)`, then a blank or the end.
/// A rule such as `- - -` counts too; taking one for an item only saves a
/// cut, which is always safe.
fn starts_list_item(line: &str) -> bool {
    let rest = line.trim_start_matches([' ', '\t']);
    let after = if let Some(after) = rest.strip_prefix(['-', '+', '*']) {
        after
    } else {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 || digits > 9 {
            return false;
        }
        match rest[digits..].strip_prefix(['.', ')']) {
            Some(after) => after,
            None => return false,
        }
    };
    after.is_empty() || after.starts_with([' ', '\t'])
}

/// The info string of a fence opening line (its language and attributes).
pub fn fence_info(line: &str) -> &str {
    let rest = line.trim_start_matches(' ');
    rest.trim_start_matches(['`', '~']).trim()
}

/// Whether `line` closes `fence`: at most three spaces of indent, at least
/// as many of the same character, then only spaces.
fn closes(line: &str, fence: Fence) -> bool {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return false;
    }
    let rest = &line[indent..];
    let len = rest.chars().take_while(|c| *c == fence.marker).count();
    len >= fence.len && rest[len * fence.marker.len_utf8()..].trim().is_empty()
}

/// For an HTML block that ends at a marker rather than at a blank line
/// (CommonMark kinds 1 to 5), the marker, when this line does not hold it.
fn html_block_end(line: &str) -> Option<&'static str> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = line[indent..].to_ascii_lowercase();
    const RAW_TAGS: [(&str, &str); 4] = [
        ("<pre", "</pre>"),
        ("<script", "</script>"),
        ("<style", "</style>"),
        ("<textarea", "</textarea>"),
    ];
    let raw = RAW_TAGS.into_iter().find(|(tag, _)| {
        rest.strip_prefix(tag)
            .is_some_and(|after| after.is_empty() || after.starts_with([' ', '>', '\t']))
    });
    let end = if let Some((_, end)) = raw {
        end
    } else if rest.starts_with("<!--") {
        "-->"
    } else if rest.starts_with("<?") {
        "?>"
    } else if rest.starts_with("<![cdata[") {
        "]]>"
    } else if rest.starts_with("<!") && rest[2..].starts_with(|c: char| c.is_ascii_alphabetic()) {
        ">"
    } else {
        return None;
    };
    // The opening itself may hold the end (`<!-- note -->`).
    let after_open = rest.get(2..).unwrap_or_default();
    (!after_open.contains(end)).then_some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line numbers where blocks start.
    fn cuts(text: &str) -> Vec<usize> {
        let mut splitter = BlockSplitter::default();
        text.lines()
            .enumerate()
            .filter(|(_, line)| splitter.line(line).starts_block)
            .map(|(i, _)| i)
            .collect()
    }

    #[test]
    fn tui2_blocks_start_after_a_blank_line_in_column_0() {
        assert_eq!(cuts("# Title\n\npara one\nstill one\n\npara two"), [2, 5]);
    }

    #[test]
    fn tui2_indented_lines_after_a_blank_continue_the_block() {
        // A list item's second paragraph and an indented code line.
        assert_eq!(
            cuts("- item\n\n  more of it\n\n      code"),
            Vec::<usize>::new()
        );
    }

    #[test]
    fn tui2_blank_lines_inside_a_fence_cut_nothing() {
        assert_eq!(cuts("```rust\nfn a() {}\n\nfn b() {}\n```\nafter"), [5]);
        assert_eq!(cuts("text\n~~~~\n\n```\nstill code\n~~~~\n\nnext"), [1, 7]);
    }

    #[test]
    fn tui2_a_column_0_fence_interrupts_a_paragraph() {
        assert_eq!(cuts("Here:\n```sh\nls\n```\nDone."), [1, 4]);
    }

    #[test]
    fn tui2_an_indented_fence_stays_in_its_list_item() {
        assert_eq!(
            cuts("1. step\n   ```\n   x\n\n   ```\n2. next"),
            Vec::<usize>::new()
        );
    }

    #[test]
    fn tui2_inline_code_with_three_backticks_is_no_fence() {
        assert_eq!(cuts("```a``` is inline\n\nnext"), [2]);
    }

    #[test]
    fn tui2_html_blocks_that_end_at_a_marker_keep_their_blank_lines() {
        assert_eq!(cuts("<!--\n\nhidden\n-->\n\nshown"), [5]);
        assert_eq!(cuts("<pre>\n\nx\n</pre>\n\nafter"), [5]);
        assert_eq!(cuts("<!-- one line -->\n\nafter"), [2]);
    }

    #[test]
    fn ux_a_loose_list_stays_one_block() {
        assert_eq!(cuts("1. one\n\n2. two\n\n10. ten\n\nafter"), [6]);
        // A list after a paragraph is a block of its own.
        assert_eq!(cuts("para\n\n- a\n\n- b\n\npara"), [2, 6]);
        // A fence ends the list.
        assert_eq!(cuts("- a\n```\nx\n```\n\n- b"), [1, 5]);
    }

    #[test]
    fn tui2_leading_blank_lines_are_no_block() {
        assert_eq!(cuts("\n\nfirst\n\nsecond"), [4]);
    }
}
