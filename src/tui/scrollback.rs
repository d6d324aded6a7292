//! What stays in the terminal after quitting. The UI runs in the alternate
//! screen, which takes the conversation with it when it closes; on exit the
//! transcript (or, past a size, its tail) is printed to the normal screen
//! as styled text, where it joins the terminal's scrollback, followed by
//! the command that resumes the session.

use super::cells::Cell;
use super::layout::cell::cell_lines;
use super::model::Model;
use super::theme::Theme;
use crate::terminal_text::neutralize_controls;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;

/// Rows printed at most; older cells are summed up in one line. Enough for
/// a long session's last turns without flooding a terminal's scrollback
/// (often 1,000 to 10,000 lines).
pub const MAX_ROWS: usize = 2_000;

/// The text printed on exit: the transcript's tail and the resume hint;
/// empty when the session holds no message.
pub fn exit_text(model: &Model, max_rows: usize) -> String {
    let cells: &[Cell] = &model.cells;
    if !cells.iter().any(|c| matches!(c, Cell::User { .. })) {
        return String::new();
    }
    let theme = Theme::new(model.monochrome);
    let width = super::screen::transcript_width(model);
    // Whole cells from the end until the budget is spent.
    let mut blocks: Vec<Vec<Line<'static>>> = Vec::new();
    let mut rows = 0usize;
    let mut first_shown = cells.len();
    // Rows of the first shown cell left out (when it alone is too long).
    let mut cut_rows = 0usize;
    for i in (0..cells.len()).rev() {
        // The welcome is the screen's, not the conversation's.
        if matches!(cells[i], Cell::Welcome) {
            continue;
        }
        let lines = match model.transcript_layout.lines(i, &model.cells) {
            Some(lines) if model.transcript_layout.is_for(width, model.monochrome) => {
                lines.to_vec()
            }
            _ => {
                let mut out = Vec::new();
                cell_lines(&cells[i], &theme, usize::from(width), &mut out);
                out
            }
        };
        if rows + lines.len() + 1 > max_rows {
            if blocks.is_empty() {
                // The newest cell alone is over the budget: its tail.
                let tail = lines.len().saturating_sub(max_rows.saturating_sub(1));
                blocks.push(lines[tail..].to_vec());
                first_shown = i;
                cut_rows = tail;
            }
            break;
        }
        rows += lines.len() + 1;
        blocks.push(lines);
        first_shown = i;
    }
    blocks.reverse();
    let mut out = String::new();
    let earlier = cells[..first_shown]
        .iter()
        .filter(|c| !matches!(c, Cell::Welcome))
        .count();
    if earlier > 0 {
        out.push_str(&styled(
            &format!("… {earlier} earlier entries are in the session; /export writes them all"),
            Style::default().add_modifier(Modifier::DIM),
            model.monochrome,
        ));
        out.push_str("\n\n");
    }
    if cut_rows > 0 {
        out.push_str(&styled(
            &format!("… the first {cut_rows} rows of this entry are in the session"),
            Style::default().add_modifier(Modifier::DIM),
            model.monochrome,
        ));
        out.push('\n');
    }
    for (n, block) in blocks.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        for line in block {
            out.push_str(&ansi_line(line, model.monochrome));
            out.push('\n');
        }
    }
    out.push('\n');
    out.push_str(&format!(
        "Resume this session: zcode --resume {}\n",
        model.session_id
    ));
    out
}

/// One row as text with SGR colours; plain text in monochrome.
pub fn ansi_line(line: &Line<'_>, monochrome: bool) -> String {
    let mut out = String::new();
    for span in &line.spans {
        let style = line.style.patch(span.style);
        out.push_str(&styled(&span.content, style, monochrome));
    }
    // Trailing padding the view draws is noise in the scrollback.
    let trimmed = out.trim_end_matches(' ').len();
    out.truncate(trimmed);
    out
}

fn styled(text: &str, style: Style, monochrome: bool) -> String {
    let text = neutralize_controls(text);
    if monochrome {
        return text;
    }
    let mut codes: Vec<String> = Vec::new();
    let m = style.add_modifier - style.sub_modifier;
    for (flag, code) in [
        (Modifier::BOLD, "1"),
        (Modifier::DIM, "2"),
        (Modifier::ITALIC, "3"),
        (Modifier::UNDERLINED, "4"),
        (Modifier::REVERSED, "7"),
        (Modifier::CROSSED_OUT, "9"),
    ] {
        if m.contains(flag) {
            codes.push(code.to_string());
        }
    }
    if let Some(fg) = style.fg.and_then(|c| color_code(c, false)) {
        codes.push(fg);
    }
    if let Some(bg) = style.bg.and_then(|c| color_code(c, true)) {
        codes.push(bg);
    }
    if codes.is_empty() {
        return text;
    }
    format!("\x1b[{}m{text}\x1b[0m", codes.join(";"))
}

fn color_code(color: Color, background: bool) -> Option<String> {
    let base = if background { 40 } else { 30 };
    let bright = if background { 100 } else { 90 };
    let code = match color {
        Color::Reset => return None,
        Color::Black => format!("{base}"),
        Color::Red => format!("{}", base + 1),
        Color::Green => format!("{}", base + 2),
        Color::Yellow => format!("{}", base + 3),
        Color::Blue => format!("{}", base + 4),
        Color::Magenta => format!("{}", base + 5),
        Color::Cyan => format!("{}", base + 6),
        Color::Gray => format!("{}", base + 7),
        Color::DarkGray => format!("{bright}"),
        Color::LightRed => format!("{}", bright + 1),
        Color::LightGreen => format!("{}", bright + 2),
        Color::LightYellow => format!("{}", bright + 3),
        Color::LightBlue => format!("{}", bright + 4),
        Color::LightMagenta => format!("{}", bright + 5),
        Color::LightCyan => format!("{}", bright + 6),
        Color::White => format!("{}", bright + 7),
        Color::Indexed(i) => format!("{};5;{i}", base + 8),
        Color::Rgb(r, g, b) => format!("{};2;{r};{g};{b}", base + 8),
    };
    Some(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::text::Span;

    fn model_with(cells: Vec<Cell>) -> Model {
        let mut model = Model::new(80, 24);
        model.session_id = "5f2c0000-aaaa-bbbb-cccc-000000000000".into();
        model.monochrome = true;
        for cell in cells {
            model.cells.push(cell);
        }
        model
    }

    #[test]
    fn ux_exit_text_holds_the_conversation_then_the_resume_command() {
        let model = model_with(vec![
            Cell::User {
                text: "add a test".into(),
            },
            Cell::Assistant {
                text: "Done: **one** test added.".into(),
                streaming: false,
            },
        ]);
        let text = exit_text(&model, MAX_ROWS);
        let user = text.find("add a test").expect("the user's message");
        let answer = text.find("Done: one test added.").expect("the answer");
        let hint = text
            .find("zcode --resume 5f2c0000-aaaa-bbbb-cccc-000000000000")
            .expect("the resume command");
        assert!(user < answer && answer < hint, "{text}");
        assert!(
            !text.contains('\x1b'),
            "monochrome prints no escapes: {text:?}"
        );
    }

    #[test]
    fn ux_a_long_transcript_leaves_its_tail_and_says_what_was_left_out() {
        let mut cells = Vec::new();
        for i in 0..300 {
            cells.push(Cell::User {
                text: format!("question {i}"),
            });
            cells.push(Cell::Assistant {
                text: format!("answer {i}"),
                streaming: false,
            });
        }
        let model = model_with(cells);
        let text = exit_text(&model, 100);
        assert!(
            text.contains("answer 299") && !text.contains("answer 200\n"),
            "{text}"
        );
        assert!(
            text.contains("earlier entries are in the session"),
            "{text}"
        );
        assert!(text.lines().count() <= 100 + 4, "{}", text.lines().count());
    }

    #[test]
    fn ux_one_huge_last_entry_leaves_only_its_tail() {
        let reply: String = (0..5000).map(|i| format!("line {i}\n\n")).collect();
        let model = model_with(vec![
            Cell::User {
                text: "dump".into(),
            },
            Cell::Assistant {
                text: reply,
                streaming: false,
            },
        ]);
        let text = exit_text(&model, 200);
        assert!(
            text.contains("line 4999") && !text.contains("line 10\n"),
            "{text}"
        );
        assert!(
            text.contains("rows of this entry are in the session"),
            "{text}"
        );
        assert!(text.lines().count() <= 200 + 6, "{}", text.lines().count());
    }

    #[test]
    fn ux_an_empty_session_prints_nothing() {
        assert_eq!(exit_text(&model_with(Vec::new()), MAX_ROWS), "");
    }

    #[test]
    fn ux_styles_become_sgr_and_control_characters_are_neutralised() {
        let line = Line::from(vec![
            Span::styled(
                "ok",
                Style::default()
                    .fg(Color::Green)
                    .add_modifier(Modifier::BOLD),
            ),
            Span::raw(" bell\x07 esc\x1b[2J"),
        ]);
        let text = ansi_line(&line, false);
        assert!(text.starts_with("\x1b[1;32mok\x1b[0m"), "{text:?}");
        assert!(
            !text.contains('\x07') && !text.contains("\x1b[2J"),
            "{text:?}"
        );
    }
}
