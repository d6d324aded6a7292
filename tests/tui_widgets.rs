//! The pure TUI widgets: Markdown, highlighting, diffs and the ASK-6
//! question panel (state machine and snapshots).

mod support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};
use serde_json::{Map, Value, json};
use support::tui::snapshot;
use zcode::protocol::PermissionReply;
use zcode::tools::ask_user_question::{Question, QuestionOption};
use zcode::tui::widgets::Theme;
use zcode::tui::widgets::diff::render_diff;
use zcode::tui::widgets::highlight::highlight_code;
use zcode::tui::widgets::markdown_doc::{MarkdownDoc, render_markdown};
use zcode::tui::widgets::question_panel::{Page, PanelOutcome, QuestionPanel};

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ch(c: char) -> KeyEvent {
    key(KeyCode::Char(c))
}

fn option(label: &str, description: &str) -> QuestionOption {
    QuestionOption {
        label: label.to_string(),
        description: description.to_string(),
        preview: None,
    }
}

fn question(text: &str, header: &str, labels: &[&str], multi: bool) -> Question {
    Question {
        question: text.to_string(),
        header: header.to_string(),
        options: labels
            .iter()
            .map(|l| option(l, &format!("About {l}")))
            .collect(),
        multi_select: multi,
    }
}

fn multi() -> Question {
    question(
        "Which features?",
        "Features",
        &["Alpha", "Beta", "Gamma", "Delta"],
        true,
    )
}

/// A second single-choice question, for the review page of two.
fn single_other() -> Question {
    question("Which cache?", "Cache", &["Redis", "None"], false)
}

fn single() -> Question {
    question(
        "Which database?",
        "Database",
        &["Postgres", "SQLite", "MySQL"],
        false,
    )
}

/// Feeds keys; returns the first outcome (and checks none follows).
fn press(panel: &mut QuestionPanel, keys: &[KeyEvent]) -> Option<PanelOutcome> {
    let mut outcome = None;
    for k in keys {
        let o = panel.handle_key(*k);
        if outcome.is_none() {
            outcome = o;
        } else {
            assert!(o.is_none(), "a second outcome");
        }
    }
    outcome
}

fn answers(pairs: &[(&str, &str)]) -> PanelOutcome {
    let mut map = Map::new();
    for (q, a) in pairs {
        map.insert(q.to_string(), Value::String(a.to_string()));
    }
    PanelOutcome::Submit(PermissionReply::Answers {
        answers: map,
        annotations: None,
    })
}

fn enter() -> KeyEvent {
    key(KeyCode::Enter)
}

fn esc() -> KeyEvent {
    key(KeyCode::Esc)
}

fn text_of(lines: &[Line<'_>]) -> String {
    lines
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn buffer_of(lines: Vec<Line<'static>>, width: u16) -> Buffer {
    let height = u16::try_from(lines.len().max(1)).unwrap_or(u16::MAX);
    let mut buf = Buffer::empty(Rect::new(0, 0, width, height));
    Paragraph::new(lines).render(buf.area, &mut buf);
    buf
}

fn panel_buffer(panel: &QuestionPanel, theme: &Theme) -> Buffer {
    let mut buf = Buffer::empty(Rect::new(0, 0, 60, 24));
    panel.view(buf.area, &mut buf, theme);
    buf
}

// ---- question panel: keys -------------------------------------------------

#[test]
fn multi_select_space_toggles_chosen_labels_in_option_order() {
    let mut panel = QuestionPanel::new(vec![multi()]);
    let keys = [ch('j'), ch('j'), ch(' '), ch('k'), ch(' '), enter()];
    let outcome = press(&mut panel, &keys);
    assert_eq!(
        outcome,
        Some(answers(&[("Which features?", "Beta, Gamma")]))
    );
}

#[test]
fn skip_on_last_question_stays_until_enter() {
    let mut panel = QuestionPanel::new(vec![single(), single_other()]);
    assert_eq!(press(&mut panel, &[ch('1'), ch('s')]), None);
    assert_eq!(panel.page(), Page::Question(1));
    assert_eq!(press(&mut panel, &[enter()]), None);
    assert_eq!(panel.page(), Page::Confirm);
    let outcome = press(&mut panel, &[enter()]);
    assert_eq!(outcome, Some(answers(&[("Which database?", "Postgres")])));
}

#[test]
fn skip_enter_on_single_question_yields_empty_map() {
    // One question: Enter after skipping it submits, with no review page.
    let mut panel = QuestionPanel::new(vec![single()]);
    assert_eq!(press(&mut panel, &[ch('s')]), None);
    let outcome = press(&mut panel, &[enter()]);
    assert_eq!(outcome, Some(answers(&[])));
}

#[test]
fn enter_answers_highlighted_single_option() {
    let mut panel = QuestionPanel::new(vec![single()]);
    let outcome = press(&mut panel, &[key(KeyCode::Down), enter()]);
    assert_eq!(outcome, Some(answers(&[("Which database?", "SQLite")])));
}

#[test]
fn digit_chooses_single_option_directly() {
    // A single question is submitted by its choice.
    let mut panel = QuestionPanel::new(vec![single()]);
    let outcome = press(&mut panel, &[ch('3')]);
    assert_eq!(outcome, Some(answers(&[("Which database?", "MySQL")])));
}

#[test]
fn digits_toggle_multi_select_options() {
    let mut panel = QuestionPanel::new(vec![multi()]);
    let outcome = press(&mut panel, &[ch('4'), ch('1'), ch('2'), ch('2'), enter()]);
    assert_eq!(
        outcome,
        Some(answers(&[("Which features?", "Alpha, Delta")]))
    );
}

#[test]
fn digit_out_of_range_is_ignored() {
    let mut panel = QuestionPanel::new(vec![single()]);
    assert_eq!(press(&mut panel, &[ch('9')]), None);
    assert_eq!(panel.page(), Page::Question(0));
    assert_eq!(panel.editing(), None);
}

#[test]
fn other_typed_answer_is_the_single_select_answer() {
    let mut panel = QuestionPanel::new(vec![single()]);
    let mut keys = vec![ch('o')];
    keys.extend("Redis x".chars().map(ch));
    keys.push(key(KeyCode::Backspace));
    keys.push(key(KeyCode::Backspace));
    keys.push(enter());
    let outcome = press(&mut panel, &keys);
    assert_eq!(outcome, Some(answers(&[("Which database?", "Redis")])));
}

#[test]
fn other_text_in_multi_select_comes_last() {
    let mut panel = QuestionPanel::new(vec![multi()]);
    let mut keys = vec![ch('o')];
    keys.extend("Zeta".chars().map(ch));
    keys.extend([enter(), ch('2'), enter()]);
    let outcome = press(&mut panel, &keys);
    assert_eq!(outcome, Some(answers(&[("Which features?", "Beta, Zeta")])));
}

#[test]
fn typing_letters_in_other_field_is_not_a_command() {
    let mut panel = QuestionPanel::new(vec![single()]);
    let mut keys = vec![ch('o')];
    keys.extend("jks o".chars().map(ch));
    assert_eq!(press(&mut panel, &keys), None);
    assert_eq!(panel.editing(), Some("jks o"));
    assert_eq!(panel.page(), Page::Question(0));
}

#[test]
fn esc_rejects_the_questionnaire() {
    let mut panel = QuestionPanel::new(vec![single(), multi()]);
    assert_eq!(
        press(&mut panel, &[ch('1'), esc()]),
        Some(PanelOutcome::Reject)
    );
    assert_eq!(
        PanelOutcome::Reject.into_reply(),
        PermissionReply::Deny { feedback: None }
    );
}

#[test]
fn esc_while_typing_other_only_leaves_the_field() {
    let mut panel = QuestionPanel::new(vec![single()]);
    assert_eq!(press(&mut panel, &[ch('o'), ch('x'), esc()]), None);
    assert_eq!(panel.editing(), None);
    assert_eq!(panel.page(), Page::Question(0));
    assert_eq!(panel.states()[0].other, None);
    assert_eq!(press(&mut panel, &[esc()]), Some(PanelOutcome::Reject));
}

#[test]
fn esc_on_confirmation_page_rejects() {
    let mut panel = QuestionPanel::new(vec![single(), single_other()]);
    assert_eq!(press(&mut panel, &[ch('1'), ch('1')]), None);
    assert_eq!(panel.page(), Page::Confirm);
    assert_eq!(press(&mut panel, &[esc()]), Some(PanelOutcome::Reject));
}

#[test]
fn tab_and_arrows_switch_questions() {
    let mut panel = QuestionPanel::new(vec![single(), multi()]);
    press(&mut panel, &[key(KeyCode::Tab)]);
    assert_eq!(panel.page(), Page::Question(1));
    press(&mut panel, &[key(KeyCode::Tab)]);
    assert_eq!(panel.page(), Page::Confirm);
    press(&mut panel, &[key(KeyCode::Right)]);
    assert_eq!(panel.page(), Page::Confirm);
    press(&mut panel, &[key(KeyCode::Left)]);
    assert_eq!(panel.page(), Page::Question(1));
    press(&mut panel, &[key(KeyCode::Left), key(KeyCode::Left)]);
    assert_eq!(panel.page(), Page::Question(0));
    press(&mut panel, &[key(KeyCode::Right)]);
    assert_eq!(panel.page(), Page::Question(1));
    press(&mut panel, &[key(KeyCode::BackTab)]);
    assert_eq!(panel.page(), Page::Question(0));
}

#[test]
fn answering_moves_to_the_next_question_then_confirmation() {
    let mut panel = QuestionPanel::new(vec![single(), multi()]);
    press(&mut panel, &[ch('2')]);
    assert_eq!(panel.page(), Page::Question(1));
    press(&mut panel, &[ch('s')]);
    assert_eq!(panel.page(), Page::Question(1));
    press(&mut panel, &[enter()]);
    assert_eq!(panel.page(), Page::Confirm);
    let outcome = press(&mut panel, &[enter()]);
    assert_eq!(outcome, Some(answers(&[("Which database?", "SQLite")])));
}

#[test]
fn skip_moves_to_next_question_and_choosing_undoes_it() {
    let mut panel = QuestionPanel::new(vec![single(), multi()]);
    press(&mut panel, &[ch('s')]);
    assert_eq!(panel.page(), Page::Question(1));
    press(&mut panel, &[key(KeyCode::Left), ch('j'), enter()]);
    assert_eq!(panel.page(), Page::Question(1));
    let outcome = press(&mut panel, &[ch('s'), enter(), enter()]);
    assert_eq!(outcome, Some(answers(&[("Which database?", "SQLite")])));
}

#[test]
fn changing_checkboxes_after_answering_updates_the_answer() {
    let mut panel = QuestionPanel::new(vec![multi()]);
    press(&mut panel, &[ch('1'), enter(), key(KeyCode::Left), ch('3')]);
    let outcome = press(&mut panel, &[key(KeyCode::Tab), enter()]);
    assert_eq!(
        outcome,
        Some(answers(&[("Which features?", "Alpha, Gamma")]))
    );
}

#[test]
fn confirmation_page_lists_answers_and_skips() {
    let mut panel = QuestionPanel::new(vec![single(), multi()]);
    press(&mut panel, &[ch('1'), ch('s'), enter()]);
    let text = text_of(&panel.lines(60, &Theme::colored()));
    assert!(text.contains("Review your answers"), "{text}");
    assert!(text.contains("[Database] Which database?"), "{text}");
    assert!(text.contains("→ Postgres"), "{text}");
    assert!(text.contains("[Features] Which features?"), "{text}");
    assert!(text.contains("→ (skipped)"), "{text}");
}

#[test]
fn reply_serializes_as_answers_choice() {
    let mut panel = QuestionPanel::new(vec![single()]);
    let Some(PanelOutcome::Submit(reply)) = press(&mut panel, &[ch('1')]) else {
        panic!("no submit");
    };
    let value = serde_json::to_value(reply).unwrap_or_default();
    assert_eq!(
        value,
        json!({"choice": "answers", "answers": {"Which database?": "Postgres"}})
    );
}

// ---- question panel: snapshots --------------------------------------------

fn with_preview() -> Question {
    let mut q = single();
    q.options[0].preview =
        Some("## Postgres\n\n- robust\n- `jsonb`\n\n```sql\nSELECT 1;\n```".into());
    q
}

#[test]
fn snapshot_panel_single_with_preview() {
    let panel = QuestionPanel::new(vec![with_preview(), multi()]);
    snapshot(
        "question_panel_single",
        format!("{:?}", panel_buffer(&panel, &Theme::colored())),
    );
}

#[test]
fn snapshot_panel_multi() {
    let mut panel = QuestionPanel::new(vec![multi()]);
    press(&mut panel, &[ch('j'), ch(' '), ch('j'), ch('j'), ch(' ')]);
    snapshot(
        "question_panel_multi",
        format!("{:?}", panel_buffer(&panel, &Theme::colored())),
    );
}

#[test]
fn snapshot_panel_other_typing() {
    let mut panel = QuestionPanel::new(vec![single()]);
    let mut keys = vec![ch('o')];
    keys.extend("CockroachDB".chars().map(ch));
    press(&mut panel, &keys);
    snapshot(
        "question_panel_other_typing",
        format!("{:?}", panel_buffer(&panel, &Theme::colored())),
    );
}

#[test]
fn snapshot_panel_skipped_monochrome() {
    let mut panel = QuestionPanel::new(vec![single(), multi()]);
    press(&mut panel, &[ch('s')]);
    snapshot(
        "question_panel_skipped_monochrome",
        format!("{:?}", panel_buffer(&panel, &Theme::monochrome())),
    );
}

#[test]
fn snapshot_panel_confirmation() {
    let long = question(
        "A question with a rather long header chip?",
        "Very long header text",
        &["Yes", "No"],
        false,
    );
    let mut panel = QuestionPanel::new(vec![single(), multi(), long]);
    press(
        &mut panel,
        &[ch('2'), ch('1'), ch('3'), enter(), ch('s'), enter()],
    );
    assert_eq!(panel.page(), Page::Confirm);
    snapshot(
        "question_panel_confirmation",
        format!("{:?}", panel_buffer(&panel, &Theme::colored())),
    );
}

// ---- markdown ----------------------------------------------------------------

const SAMPLE: &str = "# Title\n\nSome *emphasis*, **strong** and `code` in a paragraph that is long enough to wrap.\n\n## Lists\n\n- one\n- two\n  - nested\n\n1. first\n2. second\n\n> quoted text\n\nA [link](https://example.com).\n\n---\n\n```rust\nfn main() {}\n```\n";

#[test]
fn snapshot_markdown_colored() {
    let lines = render_markdown(SAMPLE, 40, &Theme::colored());
    snapshot("markdown_colored", format!("{:?}", buffer_of(lines, 40)));
}

#[test]
fn snapshot_markdown_monochrome() {
    let lines = render_markdown(SAMPLE, 40, &Theme::monochrome());
    snapshot("markdown_monochrome", format!("{:?}", buffer_of(lines, 40)));
}

#[test]
fn markdown_text_layout() {
    let lines = render_markdown(SAMPLE, 40, &Theme::colored());
    let text = text_of(&lines);
    assert!(
        text.starts_with("Title\n\nSome emphasis, strong and code in a\n"),
        "{text}"
    );
    assert!(text.contains("\n• one\n• two\n  • nested\n"), "{text}");
    assert!(text.contains("\n1. first\n2. second\n"), "{text}");
    assert!(text.contains("│ quoted text"), "{text}");
    assert!(text.contains("A link (https://example.com)."), "{text}");
    assert!(text.contains(&"─".repeat(40)), "{text}");
    assert!(text.contains("  fn main() {}"), "{text}");
    for line in &lines {
        assert!(line.width() <= 40, "{line:?}");
    }
}

#[test]
fn markdown_heading_is_bold_and_coloured() {
    let lines = render_markdown("# Hi", 20, &Theme::colored());
    let span = &lines[0].spans[0];
    assert_eq!(span.content, "Hi");
    assert!(span.style.add_modifier.contains(Modifier::BOLD));
    assert!(span.style.fg.is_some());
}

#[test]
fn monochrome_markdown_has_no_colours() {
    let lines = render_markdown(SAMPLE, 40, &Theme::monochrome());
    for span in lines.iter().flat_map(|l| &l.spans) {
        assert_eq!(span.style.fg, None, "{span:?}");
        assert_eq!(span.style.bg, None, "{span:?}");
    }
    let text = text_of(&lines);
    assert!(text.contains("# Title"), "{text}");
    assert!(text.contains("`code`"), "{text}");
    assert!(text.contains("```rust"), "{text}");
}

#[test]
fn code_block_is_highlighted_with_colours() {
    let lines = highlight_code("fn main() { let x = 1; }\n", "rust", &Theme::colored());
    assert_eq!(lines.len(), 1);
    let colours: Vec<_> = lines[0].spans.iter().filter_map(|s| s.style.fg).collect();
    assert!(colours.len() > 1, "{lines:?}");
    assert!(colours.iter().all(|c| matches!(c, Color::Rgb(..))));
}

#[test]
fn unknown_language_is_plain() {
    let theme = Theme::colored();
    let lines = highlight_code("a\nb\n", "no-such-language", &theme);
    assert_eq!(text_of(&lines), "a\nb");
    for span in lines.iter().flat_map(|l| &l.spans) {
        assert_eq!(span.style, theme.code_block());
    }
}

#[test]
fn long_words_are_split_to_width() {
    let lines = render_markdown(&"x".repeat(25), 10, &Theme::colored());
    assert_eq!(text_of(&lines), "xxxxxxxxxx\nxxxxxxxxxx\nxxxxx");
}

#[test]
fn streaming_finishes_only_complete_blocks() {
    let theme = Theme::colored();
    let mut doc = MarkdownDoc::new(30, &theme);
    // A block is finished once the first line of the next one is whole.
    doc.push("# Head\n\npara still gro");
    assert_eq!(text_of(doc.finished_rows()), "");
    doc.push("wing\n");
    assert_eq!(text_of(doc.finished_rows()), "Head");
    let done = doc.finished_rows().to_vec();
    doc.push("\nnext\n");
    // The finished part never changes as text grows.
    assert_eq!(&doc.finished_rows()[..done.len()], &done[..]);
    assert_eq!(text_of(doc.finished_rows()), "Head\n\npara still growing");
}

// ---- diff ------------------------------------------------------------------

#[test]
fn diff_lines_are_coloured_by_kind() {
    let diff = "--- a/x.rs\n+++ b/x.rs\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n";
    let theme = Theme::colored();
    let lines = render_diff(diff, &theme);
    let styles: Vec<_> = lines.iter().map(|l| l.spans[0].style).collect();
    assert_eq!(styles[0], theme.diff_header());
    assert_eq!(styles[1], theme.diff_header());
    assert_eq!(styles[2].fg, Some(Color::Cyan));
    assert_eq!(styles[3].fg, None);
    assert_eq!(styles[4].fg, Some(Color::Red));
    assert_eq!(styles[5].fg, Some(Color::Green));
    assert!(styles[0].add_modifier.contains(Modifier::DIM));
    let mono = render_diff(diff, &Theme::monochrome());
    assert!(
        mono.iter()
            .all(|l| l.spans.iter().all(|s| s.style.fg.is_none()))
    );
    assert_eq!(text_of(&mono), diff.trim_end());
}

// ---- TUI-2: any reply, any cut --------------------------------------------

/// Pieces models write, and the ones that trip parsers: fences of every
/// kind and length, HTML blocks, quotes, lists, tables, wide and combining
/// characters, CR, tabs, lone backticks.
const MARKDOWN_PIECES: &[&str] = &[
    "\n",
    "\n\n",
    "\r\n",
    " ",
    "\t",
    "    ",
    "# ",
    "## H",
    "- ",
    "1. ",
    "10. ",
    "  - ",
    "> ",
    ">",
    "```",
    "```rust\n",
    "````\n",
    "~~~",
    "~~~py\n",
    "`",
    "``",
    "**",
    "*",
    "_",
    "[a](b)",
    "[x]: /url\n",
    "<pre>",
    "</pre>",
    "<!--",
    "-->",
    "<div>",
    "<?",
    "?>",
    "<!X",
    "| a | b |\n",
    "|---|---|\n",
    "---\n",
    "***",
    "word",
    "日本語",
    "e\u{301}",
    "😀",
    "\\",
    "&amp;",
    "x\u{0}y",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    #[test]
    fn tui2_any_reply_cut_anywhere_never_panics_and_finished_rows_never_change(
        picks in proptest::collection::vec(0..MARKDOWN_PIECES.len(), 0..60),
        cuts in proptest::collection::vec(1usize..9, 1..20),
        width in 1u16..50,
        color in proptest::bool::ANY,
    ) {
        let text: String = picks.iter().map(|&i| MARKDOWN_PIECES[i]).collect();
        let theme = if color { Theme::colored() } else { Theme::monochrome() };
        let mut doc = MarkdownDoc::new(width, &theme);
        let mut shown: Vec<Line<'static>> = Vec::new();
        let (mut at, mut k) = (0, 0);
        while at < text.len() {
            let mut next = (at + cuts[k % cuts.len()]).min(text.len());
            while !text.is_char_boundary(next) {
                next += 1;
            }
            k += 1;
            doc.push(&text[at..next]);
            at = next;
            proptest::prop_assert!(doc.finished_rows().starts_with(&shown));
            shown = doc.finished_rows().to_vec();
            let _ = doc.open_rows(true);
        }
        // Streamed or whole, the same rows.
        let mut streamed = doc.finished_rows().to_vec();
        streamed.extend(doc.open_rows(false));
        proptest::prop_assert_eq!(streamed, render_markdown(&text, width, &theme));
    }
}

// ---- honest cells: tables, long code lines, lists, previews ----------------

fn rows_of(lines: &[Line<'_>]) -> Vec<String> {
    lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

/// The display columns where `c` appears in `row`.
fn columns_of(row: &str, c: char) -> Vec<usize> {
    use unicode_width::UnicodeWidthChar;
    let mut at = 0;
    let mut out = Vec::new();
    for ch in row.chars() {
        if ch == c {
            out.push(at);
        }
        at += ch.width().unwrap_or(0);
    }
    out
}

/// A document streamed in `pieces`: after each, the finished rows must
/// start with the ones before, and `check` sees finished and open rows.
fn stream(
    pieces: &[&str],
    width: u16,
    theme: &Theme,
    mut check: impl FnMut(&str, &[Line<'static>], &[Line<'static>]),
) -> MarkdownDoc {
    let mut doc = MarkdownDoc::new(width, theme);
    let mut shown: Vec<Line<'static>> = Vec::new();
    for piece in pieces {
        doc.push(piece);
        assert!(
            doc.finished_rows().starts_with(&shown),
            "finished rows changed after {piece:?}"
        );
        shown = doc.finished_rows().to_vec();
        check(doc.text(), doc.finished_rows(), &doc.open_rows(true));
    }
    doc
}

const TABLE: &str =
    "| Tool | Risk | Notes |\n|:-----|:----:|------:|\n| Read | low | 1 |\n| Bash | high | 22 |\n";

#[test]
fn ux_a_table_is_laid_out_in_aligned_columns() {
    let rows = rows_of(&render_markdown(TABLE, 40, &Theme::colored()));
    assert_eq!(
        rows,
        [
            "Tool │ Risk │ Notes",
            "─────┼──────┼──────",
            "Read │ low  │     1",
            "Bash │ high │    22",
        ]
    );
}

#[test]
fn ux_table_alignment_is_honoured_in_every_row() {
    let text = "| left | centre | right |\n|---|:---:|---:|\n| a | b | c |\n";
    let rows = rows_of(&render_markdown(text, 40, &Theme::colored()));
    assert_eq!(rows[2], "a    │   b    │     c");
    let text = "| l | c | r |\n|:--|:-:|--:|\n| long | longer | longest |\n";
    let rows = rows_of(&render_markdown(text, 40, &Theme::colored()));
    assert_eq!(rows[0], "l    │   c    │       r");
}

#[test]
fn ux_table_cells_wrap_within_their_column() {
    let text = "| key | description |\n|---|---|\n\
        | a | a long description that needs several lines to fit |\n| b | short |\n";
    let lines = render_markdown(text, 30, &Theme::colored());
    let rows = rows_of(&lines);
    assert_eq!(
        rows,
        [
            "key │ description",
            "────┼─────────────────────────",
            "a   │ a long description that",
            "    │ needs several lines to",
            "    │ fit",
            "────┼─────────────────────────",
            "b   │ short",
        ]
    );
    for line in &lines {
        assert!(line.width() <= 30, "{line:?}");
    }
}

#[test]
fn ux_table_header_is_bold_and_cells_keep_inline_styles() {
    let theme = Theme::colored();
    let text = "| Name | Use |\n|---|---|\n| `jq` | **fast** *json* |\n";
    let lines = render_markdown(text, 40, &theme);
    let span = |row: usize, content: &str| {
        lines[row]
            .spans
            .iter()
            .find(|s| s.content.contains(content))
            .unwrap_or_else(|| panic!("no {content:?} in {:?}", lines[row]))
            .clone()
    };
    assert!(span(0, "Name").style.add_modifier.contains(Modifier::BOLD));
    assert!(span(0, "Use").style.add_modifier.contains(Modifier::BOLD));
    assert_eq!(span(2, "jq").style.fg, theme.code().fg);
    assert!(span(2, "fast").style.add_modifier.contains(Modifier::BOLD));
    assert!(
        span(2, "json")
            .style
            .add_modifier
            .contains(Modifier::ITALIC)
    );
    assert!(!span(2, "json").style.add_modifier.contains(Modifier::BOLD));
}

#[test]
fn ux_table_columns_measure_wide_characters() {
    let text = "| 名前 | x |\n|---|---|\n| 日本語 | y |\n| ab | 😀z |\n";
    let rows = rows_of(&render_markdown(text, 40, &Theme::colored()));
    assert_eq!(rows.len(), 4, "{rows:?}");
    for row in [&rows[0], &rows[2], &rows[3]] {
        assert_eq!(columns_of(row, '│'), [7], "{rows:?}");
    }
    assert_eq!(columns_of(&rows[1], '┼'), [7], "{rows:?}");
}

#[test]
fn ux_a_narrow_table_becomes_one_record_per_row() {
    let text =
        "| name | kind | size |\n|---|---|---|\n| main.rs | file | 12 KB |\n| src | dir | - |\n";
    let lines = render_markdown(text, 14, &Theme::colored());
    assert_eq!(
        rows_of(&lines),
        [
            "name: main.rs",
            "kind: file",
            "size: 12 KB",
            "──────────────",
            "name: src",
            "kind: dir",
            "size: -",
        ]
    );
    assert!(
        lines[0].spans[0]
            .style
            .add_modifier
            .contains(Modifier::BOLD)
    );
    // Wide enough for the columns: a grid again.
    let rows = rows_of(&render_markdown(text, 30, &Theme::colored()));
    assert_eq!(rows[2], "main.rs │ file │ 12 KB");
}

#[test]
fn ux_a_monochrome_table_is_set_apart_without_colour() {
    let lines = render_markdown(TABLE, 40, &Theme::monochrome());
    for span in lines.iter().flat_map(|l| &l.spans) {
        assert_eq!((span.style.fg, span.style.bg), (None, None), "{span:?}");
    }
    assert_eq!(rows_of(&lines)[1], "─────┼──────┼──────");
    let head = &lines[0].spans[0];
    assert!(head.style.add_modifier.contains(Modifier::BOLD), "{head:?}");
}

#[test]
fn ux_a_table_in_a_list_item_keeps_the_item_indent() {
    let text = "- options:\n\n  | a | b |\n  |---|---|\n  | 1 | 2 |\n";
    let rows = rows_of(&render_markdown(text, 40, &Theme::colored()));
    assert_eq!(rows, ["• options:", "", "  a │ b", "  ──┼──", "  1 │ 2"]);
}

#[test]
fn ux_a_streaming_table_is_a_table_and_is_kept_once_finished() {
    let text = format!("Before.\n\n{TABLE}\nAfter the table, more words.\n");
    let pieces = support_word_pieces(&text);
    let mut finished_table: Option<Vec<Line<'static>>> = None;
    stream(&pieces, 40, &Theme::colored(), |text, finished, open| {
        let all: Vec<String> = rows_of(finished).into_iter().chain(rows_of(open)).collect();
        // Once the delimiter row is whole, the table shows as one.
        if text.contains("|------:|\n") {
            assert!(all.contains(&"─────┼──────┼──────".to_string()), "{all:?}");
            assert!(!all.iter().any(|r| r.starts_with('|')), "{all:?}");
        }
        if rows_of(finished).iter().any(|r| r.contains('┼')) {
            match &finished_table {
                Some(rows) => assert!(finished.starts_with(rows)),
                None => finished_table = Some(finished.to_vec()),
            }
        }
    });
    let table = finished_table.expect("the table was finished");
    assert_eq!(
        rows_of(&table).last().map(String::as_str),
        Some("Bash │ high │    22")
    );
}

/// `text` as a streaming server sends it: words with the blanks after them.
fn support_word_pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (i, c) in text.char_indices() {
        let space = c.is_whitespace();
        if in_space && !space {
            out.push(&text[start..i]);
            start = i;
        }
        in_space = space;
    }
    out.push(&text[start..]);
    out
}

#[test]
fn snapshot_markdown_table() {
    let text = "| Tool | Risk | What it does |\n|:-----|:----:|-------------:|\n\
        | `Read` | low | reads a file, **never** writes |\n\
        | 日本語 | high | runs a command that can change files |\n\n\
        | name | kind | size |\n|---|---|---|\n| main.rs | file | 12 KB |\n| src | dir | - |\n";
    let lines = render_markdown(text, 36, &Theme::colored());
    snapshot("markdown_table", format!("{:?}", buffer_of(lines, 36)));
    let lines = render_markdown(text, 16, &Theme::monochrome());
    snapshot(
        "markdown_table_narrow_monochrome",
        format!("{:?}", buffer_of(lines, 16)),
    );
}

#[test]
fn ux_long_code_lines_wrap_with_a_marker() {
    let code = "let total = items.iter().map(|i| i.price).sum::<u64>();";
    let text = format!("```\n{code}\n```\n");
    let lines = render_markdown(&text, 24, &Theme::colored());
    let rows = rows_of(&lines);
    assert_eq!(
        rows,
        [
            "  let total = items.iter",
            "↪ ().map(|i| i.price).su",
            "↪ m::<u64>();",
        ]
    );
    let joined: String = rows
        .iter()
        .map(|r| &r[r.char_indices().nth(2).map_or(0, |(i, _)| i)..])
        .collect();
    assert_eq!(joined, code);
    // Monochrome: between its fences, wrapped the same way.
    let rows = rows_of(&render_markdown(&text, 24, &Theme::monochrome()));
    assert_eq!(rows.len(), 5, "{rows:?}");
    assert_eq!(rows[2], "↪ ().map(|i| i.price).su");
}

#[test]
fn ux_wrapped_code_keeps_its_highlighting() {
    let text = "```rust\nlet s = \"a string literal long enough to wrap\";\n```\n";
    let lines = render_markdown(text, 24, &Theme::colored());
    assert!(lines.len() >= 2, "{lines:?}");
    let last_of_first = lines[0].spans.last().expect("spans");
    let first_code_of_second = &lines[1].spans[1];
    assert!(
        matches!(last_of_first.style.fg, Some(Color::Rgb(..))),
        "{lines:?}"
    );
    // The string goes on in the next row, in the string's colour.
    assert_eq!(
        first_code_of_second.style.fg, last_of_first.style.fg,
        "{lines:?}"
    );
    assert_eq!(lines[1].spans[0].content, "↪ ");
}

#[test]
fn ux_a_growing_code_line_wraps_while_it_streams() {
    let mut doc = MarkdownDoc::new(20, &Theme::colored());
    doc.push("```\nabcdefghijklmnopqrstuvwxyz0123");
    assert_eq!(
        rows_of(&doc.open_rows(true)),
        ["  abcdefghijklmnopqr", "↪ stuvwxyz0123"]
    );
}

#[test]
fn ux_code_in_a_list_item_wraps_inside_its_indent() {
    let text =
        "1. run:\n\n   ```sh\n   cargo test --workspace --all-features -- --nocapture\n   ```\n";
    let lines = render_markdown(text, 30, &Theme::monochrome());
    let rows = rows_of(&lines);
    assert!(rows.iter().any(|r| r.starts_with("   ↪ ")), "{rows:?}");
    for line in &lines {
        assert!(line.width() <= 30, "{line:?}");
    }
}

#[test]
fn ux_item_numbers_of_ten_and_more_line_up() {
    let text: String = (1..=11).map(|n| format!("{n}. item {n}\n")).collect();
    let rows = rows_of(&render_markdown(&text, 40, &Theme::colored()));
    assert_eq!(rows[0], " 1. item 1");
    assert_eq!(rows[8], " 9. item 9");
    assert_eq!(rows[9], "10. item 10");
    // A wrapped item hangs under its text, past the widest number.
    let text = format!("{text}12. a last item long enough to wrap here\n");
    let rows = rows_of(&render_markdown(&text, 24, &Theme::colored()));
    assert_eq!(
        rows[11..],
        ["12. a last item long", "    enough to wrap here"]
    );
}

#[test]
fn ux_a_loose_list_of_ten_items_lines_up_while_streaming() {
    let text: String = (1..=10).map(|n| format!("{n}. item {n}\n\n")).collect();
    let text = format!("{text}After.\n");
    let pieces = support_word_pieces(&text);
    let doc = stream(&pieces, 40, &Theme::colored(), |_, _, _| {});
    let mut rows = rows_of(doc.finished_rows());
    rows.extend(rows_of(&doc.open_rows(false)));
    assert_eq!(rows[0], " 1. item 1");
    assert_eq!(rows[16], " 9. item 9");
    assert_eq!(rows[18], "10. item 10");
}

#[test]
fn ux_list_items_keep_their_hanging_indent_while_streaming() {
    // As models stream it: the next item's marker comes before its text.
    let pieces = [
        "- the first item is long enough to wrap",
        "\n",
        "-",
        " the second item wraps too, past its marker",
        "\n",
        "  -",
        " nested",
        "\n",
        "1",
        ".",
        " numbered item long enough to wrap as well",
        "\n",
    ];
    let text: String = pieces.concat();
    stream(&pieces, 30, &Theme::colored(), |text, finished, open| {
        let rows: Vec<String> = rows_of(finished).into_iter().chain(rows_of(open)).collect();
        for row in &rows {
            // No marker on a row of its own, its text pushed below it.
            let bare = row.trim();
            assert!(
                !matches!(bare, "•" | "1."),
                "a bare marker at {text:?}: {rows:?}"
            );
            // Continuation rows hang under the text.
            if !row.trim_start().starts_with(['•', '1']) && !row.is_empty() {
                assert!(row.starts_with("  "), "at {text:?}: {rows:?}");
            }
        }
    });
    let rows = rows_of(&render_markdown(&text, 30, &Theme::colored()));
    assert_eq!(
        rows[..5],
        [
            "• the first item is long",
            "  enough to wrap",
            "• the second item wraps too,",
            "  past its marker",
            "  • nested",
        ]
    );
}

#[test]
fn ux_a_heading_in_a_list_item_starts_on_its_marker_row() {
    let rows = rows_of(&render_markdown(
        "- # Setup\n- next\n",
        30,
        &Theme::colored(),
    ));
    assert_eq!(rows, ["• Setup", "", "• next"]);
}

#[test]
fn ux_a_task_item_wraps_under_its_text() {
    let text = "- [ ] a task item that is long enough to wrap\n";
    let rows = rows_of(&render_markdown(text, 30, &Theme::colored()));
    assert_eq!(
        rows,
        ["• [ ] a task item that is long", "      enough to wrap"]
    );
}

fn with_preview_text(preview: &str) -> Question {
    let mut q = single();
    q.options[0].preview = Some(preview.into());
    q
}

#[test]
fn ux_question_preview_is_shown_preformatted_line_by_line() {
    let preview = "def __init__(self):\n    return **x**\n\n- not a list\n\tindented";
    let panel = QuestionPanel::new(vec![with_preview_text(preview)]);
    let theme = Theme::colored();
    let lines = panel.lines(40, &theme);
    let rows = rows_of(&lines);
    let body: Vec<&String> = rows.iter().filter(|r| r.starts_with("│ ")).collect();
    assert_eq!(
        body,
        [
            "│ def __init__(self):                  │",
            "│     return **x**                     │",
            "│                                      │",
            "│ - not a list                         │",
            "│     indented                         │",
        ]
    );
    for line in lines.iter().filter(|l| l.to_string().starts_with("│ ")) {
        for span in &line.spans[1..line.spans.len() - 1] {
            assert!(
                !span.style.add_modifier.contains(Modifier::BOLD),
                "{line:?}"
            );
        }
    }
}

#[test]
fn ux_long_preview_lines_wrap_with_the_code_marker() {
    let preview = "┌────────────────────────────────────────────┐\nshort";
    let panel = QuestionPanel::new(vec![with_preview_text(preview)]);
    let rows = rows_of(&panel.lines(30, &Theme::colored()));
    let body: Vec<&String> = rows.iter().filter(|r| r.starts_with("│ ")).collect();
    assert_eq!(
        body,
        [
            "│ ┌───────────────────────── │",
            "│ ↪ ───────────────────┐     │",
            "│ short                      │",
        ]
    );
}

#[test]
fn snapshot_question_panel_preview_mockup() {
    let preview = "┌──────────┐\n│ __main__ │  <- the **entry**\n└──────────┘\n\tsrc/main.rs";
    let panel = QuestionPanel::new(vec![with_preview_text(preview)]);
    snapshot(
        "question_panel_preview_mockup",
        format!("{:?}", panel_buffer(&panel, &Theme::colored())),
    );
}

/// Pieces of tables and code, wide characters and long words: nothing
/// that nests, so every row fits the width.
const TABLE_PIECES: &[&str] = &[
    "\n",
    "\n\n",
    "| a | b |\n",
    "|---|:-:|\n",
    "|--:|:--|---|\n",
    "| ",
    " |",
    "| 日本語 | 😀 |\n",
    "word ",
    "a_much_longer_word_than_most_columns ",
    "**bold** ",
    "`code` ",
    "```rust\n",
    "```\n",
    "let x = \"string\"; ",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    #[test]
    fn ux_tables_and_code_always_fit_the_width(
        picks in proptest::collection::vec(0..TABLE_PIECES.len(), 0..60),
        width in 8u16..60,
        color in proptest::bool::ANY,
    ) {
        let text: String = picks.iter().map(|&i| TABLE_PIECES[i]).collect();
        let theme = if color { Theme::colored() } else { Theme::monochrome() };
        for line in render_markdown(&text, width, &theme) {
            // A monochrome fence row shows its info string whole.
            if line.to_string().starts_with("```") {
                continue;
            }
            proptest::prop_assert!(line.width() <= usize::from(width), "{:?} in {:?}", line, text);
        }
    }
}

/// A reply that ends on what looks like a bare marker is shown once the
/// stream is over: `42.` is an answer, not a list waiting for its text.
#[test]
fn ux_a_finished_reply_ending_in_a_bare_marker_is_shown() {
    for (answer, shown) in [("42.", "42"), ("2)", "2"), ("See:\n\n>", "See:")] {
        let mut doc = MarkdownDoc::new(40, &Theme::monochrome());
        doc.push(answer);
        let whole = rows_of(&render_markdown(answer, 40, &Theme::monochrome()));
        assert!(
            whole.iter().any(|r| r.contains(shown)),
            "{answer:?}: {whole:?}"
        );
        let mut ended = rows_of(doc.finished_rows());
        ended.extend(rows_of(&doc.open_rows(false)));
        assert_eq!(ended, whole, "{answer:?}");
    }
    // While it streams, the bare `42.` may still become a list item.
    let mut doc = MarkdownDoc::new(40, &Theme::monochrome());
    doc.push("42.");
    assert!(
        rows_of(&doc.open_rows(true))
            .iter()
            .all(|r| !r.contains("42"))
    );
}
