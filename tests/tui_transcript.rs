//! TUI-2: a long transcript scrolls with PgUp/PgDn, the wheel and
//! Home/End, and the view draws it from the layout `update` keeps. Every
//! check compares the screen, styles included, with the window sliced from
//! the transcript laid out from scratch.

mod support;

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::json;
use std::sync::OnceLock;
use std::time::Instant;
use support::long_transcript;
use support::tui::{ctrl, event, key, render, snapshot, turn_started};
use zcode::model::Usage;
use zcode::protocol::{Denial, Event, SubAgentInfo, SubAgentStatus, SubAgentSummary, TurnEnd};
use zcode::tui::cells::{Cell, ToolStatus};
use zcode::tui::layout::cell::cell_lines;
use zcode::tui::screen::{transcript_height, transcript_lines, transcript_width};
use zcode::tui::theme::Theme;
use zcode::tui::{Model, Msg, update};

/// The first `height` rows of the screen, trailing blanks trimmed.
fn screen_rows(terminal: &Terminal<TestBackend>, height: usize) -> Vec<String> {
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| {
            let row: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y as u16)].symbol())
                .collect();
            row.trim_end().to_string()
        })
        .collect()
}

/// The whole transcript laid out from scratch, the way the view worked
/// before it had a layout cache.
fn scratch_lines(m: &Model) -> Vec<Line<'static>> {
    let theme = Theme::new(m.monochrome);
    transcript_lines(m, &theme, usize::from(transcript_width(m)))
}

/// The window of `lines` the view shows for `m`, sliced from scratch.
fn window(m: &Model, lines: &[Line<'static>], height: usize) -> Vec<Line<'static>> {
    let scroll = m.scroll.min(lines.len().saturating_sub(height));
    let end = lines.len() - scroll;
    let start = end.saturating_sub(height);
    let mut rows = lines[start..end].to_vec();
    if scroll > 0
        && let Some(last) = rows.last_mut()
    {
        *last = Line::from(Span::styled(
            format!("↓ {scroll} more lines · End returns to the bottom"),
            Theme::new(m.monochrome).dim(),
        ));
    }
    rows
}

/// Renders `m` and checks its transcript rows, styles included, against
/// the window of `lines` (the transcript laid out from scratch); returns
/// the rows as text.
fn check_against(m: &Model, lines: &[Line<'static>]) -> Vec<String> {
    let cached = render(m, m.width, m.height);
    let height = transcript_height(m);
    let mut expected = Terminal::new(TestBackend::new(m.width, height)).expect("test backend");
    let rows = window(m, lines, usize::from(height));
    expected
        .draw(|f| f.render_widget(Paragraph::new(rows), f.area()))
        .expect("draw");
    let (got, want) = (cached.backend().buffer(), expected.backend().buffer());
    for y in 0..height {
        for x in 0..m.width {
            assert_eq!(got[(x, y)], want[(x, y)], "cell {x},{y}");
        }
    }
    screen_rows(&cached, usize::from(height))
}

/// [`check_against`] the transcript laid out from scratch.
fn check(m: &Model) -> Vec<String> {
    check_against(m, &scratch_lines(m))
}

/// The 10,000-message model at 80x24 and its rows laid out from scratch,
/// built once for all tests.
fn ten_thousand() -> (Model, &'static [Line<'static>]) {
    // The composer's text area is not `Sync`, so the model sits in a mutex.
    static BUILT: OnceLock<(std::sync::Mutex<Model>, Vec<Line<'static>>)> = OnceLock::new();
    let (m, lines) = BUILT.get_or_init(|| {
        let m = long_transcript::model(TEN_THOUSAND, 80, 24);
        let lines = scratch_lines(&m);
        (std::sync::Mutex::new(m), lines)
    });
    let model = m.lock().unwrap_or_else(|p| p.into_inner()).clone();
    (model, lines)
}

const TEN_THOUSAND: usize = 10_000;

#[test]
fn tui2_ten_thousand_messages_window_at_bottom_pgup_home_end() {
    let (mut m, lines) = ten_thousand();
    assert!(m.transcript_layout.is_for(80, false));
    assert_eq!(m.transcript_layout.len(), TEN_THOUSAND);
    let bottom = check_against(&m, lines);
    assert!(
        bottom.iter().any(|r| r.contains("notice 9999")),
        "{bottom:#?}"
    );

    update(&mut m, key(KeyCode::PageUp));
    assert_eq!(m.scroll, 18);
    let paged = check_against(&m, lines);
    assert_ne!(paged, bottom);
    assert!(
        paged
            .last()
            .is_some_and(|r| r.starts_with("↓ 18 more lines"))
    );

    update(&mut m, Msg::Scroll(3));
    assert_eq!(m.scroll, 21);
    check_against(&m, lines);

    update(&mut m, key(KeyCode::Home));
    let top_scroll = lines.len() - usize::from(transcript_height(&m));
    assert_eq!(m.scroll, top_scroll);
    let top = check_against(&m, lines);
    assert!(top[0].starts_with("› message 0:"), "{top:#?}");

    update(&mut m, key(KeyCode::PageDown));
    assert_eq!(m.scroll, top_scroll - 18);
    check_against(&m, lines);

    update(&mut m, key(KeyCode::End));
    assert_eq!(m.scroll, 0);
    assert_eq!(check_against(&m, lines), bottom);
}

/// `lines` with `cells` appended, each laid out from scratch.
fn appended(m: &Model, lines: &[Line<'static>], cells: &[Cell]) -> Vec<Line<'static>> {
    let theme = Theme::new(m.monochrome);
    let mut out = lines.to_vec();
    for cell in cells {
        out.push(Line::default());
        cell_lines(cell, &theme, usize::from(transcript_width(m)), &mut out);
    }
    out
}

#[test]
fn tui2_streaming_delta_at_the_bottom_updates_the_last_rows() {
    let (mut m, lines) = ten_thousand();
    turn_started(&mut m, 1, "one more thing");
    event(
        &mut m,
        Event::AssistantDelta {
            text: "First paragraph is done.\n\nSecond".into(),
        },
    );
    let rows = check_against(&m, &appended(&m, lines, &m.cells[TEN_THOUSAND..]));
    let last = rows.iter().rposition(|r| !r.is_empty()).expect("rows");
    assert_eq!(rows[last], "  Second▌");
    // The open paragraph is set apart already, as it will be when done.
    assert_eq!(rows[last - 1], "");
    assert_eq!(rows[last - 2], "● First paragraph is done.");

    event(
        &mut m,
        Event::AssistantDelta {
            text: " paragraph grows.".into(),
        },
    );
    let grown = check_against(&m, &appended(&m, lines, &m.cells[TEN_THOUSAND..]));
    assert_eq!(grown[last], "  Second paragraph grows.▌");
    assert_eq!(grown[..last], rows[..last]);

    event(
        &mut m,
        Event::AssistantMessage {
            text: "First paragraph is done.\n\nSecond paragraph grows.".into(),
        },
    );
    let done = check_against(&m, &appended(&m, lines, &m.cells[TEN_THOUSAND..]));
    assert_eq!(done[last], "  Second paragraph grows.");
}

#[test]
fn tui2_resize_lays_the_transcript_out_again() {
    let (mut m, _) = ten_thousand();
    update(&mut m, Msg::Scroll(40));
    update(&mut m, Msg::Resize(40, 20));
    assert!(m.transcript_layout.is_for(40, false));
    assert_eq!(m.scroll, 40);
    let lines = scratch_lines(&m);
    // Right after the resize only the bottom is laid out again; the view
    // lays out the rest of what it shows itself.
    assert!(!m.transcript_layout.is_complete());
    let narrow = check_against(&m, &lines);
    assert!(narrow.iter().any(|r| r.contains("9992")), "{narrow:#?}");
    // The following updates finish the relayout.
    let mut ticks = 0;
    while !m.transcript_layout.is_complete() {
        update(&mut m, Msg::Tick(Instant::now()));
        ticks += 1;
    }
    assert!(ticks <= TEN_THOUSAND / 200, "{ticks} ticks");
    assert_eq!(m.transcript_layout.rows(), lines.len());
    assert_eq!(check_against(&m, &lines), narrow);
    // Home beyond what a u16 scroll could reach.
    update(&mut m, key(KeyCode::Home));
    assert_eq!(m.scroll, lines.len() - usize::from(transcript_height(&m)));
    assert!(m.scroll > usize::from(u16::MAX), "{}", m.scroll);
    let top = check_against(&m, &lines);
    assert!(top[0].starts_with("› message 0:"), "{top:#?}");
}

#[test]
fn tui2_a_view_wider_than_the_layout_renders_from_scratch() {
    let mut m = long_transcript::model(300, 80, 24);
    // The layout is for 80 columns; the frame is 100 wide.
    m.width = 100;
    m.scroll = 7;
    check_against(&m, &scratch_lines(&m));
    m.scroll = usize::MAX;
    let top = check_against(&m, &scratch_lines(&m));
    assert!(top[0].starts_with("› message 0:"), "{top:#?}");
}

/// A small deterministic generator (an LCG), so the sequences repeat.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

const CHUNKS: [&str; 8] = [
    "Some words ",
    "and **bold** ones",
    ".\n\n",
    "```rust\n",
    "let x = 1;\n",
    "```\n",
    "- an item\n",
    "a very long sentence that will need wrapping on a narrow terminal for sure ",
];

/// One random step: mostly events through `update`, sometimes keys, a
/// resize, or a change made to the cells directly, behind `update`'s back.
fn step(m: &mut Model, rng: &mut Rng, n: usize) {
    match rng.below(20) {
        0 => event(
            m,
            Event::TurnStarted {
                turn: n as u64,
                text: format!("task {n}"),
            },
        ),
        1..=3 => event(
            m,
            Event::AssistantDelta {
                text: CHUNKS[rng.below(CHUNKS.len())].into(),
            },
        ),
        4 => event(
            m,
            Event::AssistantMessage {
                text: long_transcript::reply(n),
            },
        ),
        5 => event(
            m,
            Event::ToolCallStarted {
                call_id: format!("c{}", rng.below(8)),
                tool: "Bash".into(),
                input: json!({"command": format!("cargo test {n}")}),
            },
        ),
        6 => event(
            m,
            Event::ToolCallFinished {
                call_id: format!("c{}", rng.below(8)),
                tool: "Bash".into(),
                output: format!("line {n}\nmore"),
                is_error: rng.below(2) == 0,
                diff: None,
                exit_code: None,
            },
        ),
        7 => event(
            m,
            Event::ToolCallDenied {
                denial: Denial {
                    call_id: format!("c{}", rng.below(8)),
                    tool: "Bash".into(),
                    input: json!({"command": "rm -rf /"}),
                    rule_id: "user".into(),
                    reason: "Denied in TUI".into(),
                    agent: None,
                },
            },
        ),
        8 => event(
            m,
            Event::TurnFinished {
                end: if rng.below(2) == 0 {
                    TurnEnd::Completed
                } else {
                    TurnEnd::Interrupted
                },
                answer: None,
            },
        ),
        9 => event(
            m,
            Event::InputQueued {
                id: format!("q{n}"),
                text: format!("queued {n}"),
            },
        ),
        10 => {
            let keys = [
                KeyCode::PageUp,
                KeyCode::PageDown,
                KeyCode::Home,
                KeyCode::End,
            ];
            update(m, key(keys[rng.below(keys.len())]));
        }
        11 => {
            update(m, Msg::Scroll(if rng.below(2) == 0 { 3 } else { -3 }));
        }
        12 => {
            let widths = [40, 60, 61, 100];
            let (w, h) = (widths[rng.below(widths.len())], 10 + rng.below(20) as u16);
            update(m, Msg::Resize(w, h));
        }
        13 => m.cells.push(Cell::Notice {
            text: format!("pushed directly {n}"),
        }),
        14 => {
            // A middle cell changed in place, behind `update`'s back.
            let len = m.cells.len();
            if len == 0 {
                return;
            }
            match &mut m.cells[rng.below(len)] {
                Cell::Tool { status, detail, .. } => {
                    *status = ToolStatus::Denied;
                    detail.push_str(" (changed)");
                }
                Cell::User { text } | Cell::Notice { text } | Cell::Error { text } => {
                    text.push_str(" (changed)");
                }
                Cell::Assistant { text, .. } => text.push_str("\n\nmore (changed)"),
                Cell::Welcome => {}
                Cell::Compaction { summary, .. } => summary.push_str(" (changed)"),
                Cell::Agents(group) => group.agents[0].info.description.push_str(" (changed)"),
            }
        }
        15..=18 => agent_step(m, rng, n),
        _ => event(
            m,
            Event::Notice {
                message: format!("notice {n}"),
            },
        ),
    }
}

/// A sub-agent's event: started by one of the calls, its own streamed
/// text (which a collapsed cell does not show), tool calls and usage, its
/// end; or the expand key, or the clock.
fn agent_step(m: &mut Model, rng: &mut Rng, n: usize) {
    let call = format!("c{}", rng.below(8));
    let label = format!("explore #{call}");
    let inner = match rng.below(8) {
        0 => {
            event(
                m,
                Event::SubAgentStarted {
                    parent_tool_use_id: call,
                    agent: SubAgentInfo {
                        label,
                        agent_type: "explore".into(),
                        description: format!("look {n}"),
                        model: "p/m".into(),
                        session_id: format!("sess_{n}"),
                    },
                },
            );
            return;
        }
        1 => {
            event(
                m,
                Event::SubAgentFinished {
                    parent_tool_use_id: call,
                    label,
                    summary: SubAgentSummary {
                        status: SubAgentStatus::Completed,
                        tool_calls: 2,
                        usage: Default::default(),
                        elapsed_ms: 1_000,
                        summary: format!("found {n}"),
                    },
                },
            );
            return;
        }
        2 => {
            update(m, ctrl('o'));
            return;
        }
        3 => {
            let now = m.now.unwrap_or_else(Instant::now);
            update(m, Msg::Tick(now + std::time::Duration::from_millis(700)));
            return;
        }
        4 => Event::ToolCallStarted {
            call_id: format!("s{n}"),
            tool: "Grep".into(),
            input: json!({"pattern": format!("fn x{n}")}),
        },
        5 => Event::ToolCallFinished {
            call_id: format!("s{}", n.saturating_sub(1)),
            tool: "Grep".into(),
            output: format!("hit {n}\nmore"),
            is_error: false,
            diff: None,
            exit_code: None,
        },
        6 => Event::Usage {
            usage: Usage {
                input_tokens: 900,
                output_tokens: 40,
                ..Default::default()
            },
            total: Default::default(),
        },
        _ => Event::AssistantDelta {
            text: CHUNKS[rng.below(CHUNKS.len())].into(),
        },
    };
    event(
        m,
        Event::SubAgentEvent {
            parent_tool_use_id: call,
            label,
            event: Box::new(inner),
        },
    );
}

#[test]
fn tui2_cached_render_equals_a_render_from_scratch_over_event_sequences() {
    for seed in [1u64, 7, 42] {
        let mut rng = Rng(seed);
        let mut m = long_transcript::model(12, 60, 16);
        for n in 0..120 {
            step(&mut m, &mut rng, n);
            check(&m);
        }
    }
}

#[test]
fn tui2_ten_thousand_messages_scrolled_snapshot() {
    let (mut m, lines) = ten_thousand();
    for _ in 0..3 {
        update(&mut m, key(KeyCode::PageUp));
    }
    check_against(&m, lines);
    let shown = render(&m, m.width, m.height).backend().to_string();
    snapshot("transcript_10k_scrolled", shown);
}
