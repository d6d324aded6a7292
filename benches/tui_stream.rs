//! The TUI's units of work under load (TUI-2), each as a whole: a reply
//! streamed delta by delta through `step`, a layout and a draw per frame, at
//! 10, 60 and 200 KB (the cost per KB must stay flat), also for a reply of
//! tables; a 200 KB tool output;
//! a 10,000-line diff; a 5,000-line paste; resuming 2,000 messages; and the
//! idle tick of a 10,000-message transcript.

#[path = "../tests/support/long_reply.rs"]
mod long_reply;
#[path = "../tests/support/long_transcript.rs"]
mod long_transcript;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use std::hint::black_box;
use std::time::Instant;
use zcode::protocol::{Event, HistoryItem};
use zcode::tui::{Model, Msg, settle, step, update, view};

const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;
/// Deltas 1 ms apart and a frame every 16 ms: a layout and a draw per 16.
const DELTAS_PER_FRAME: usize = 16;

fn terminal() -> Terminal<TestBackend> {
    Terminal::new(TestBackend::new(WIDTH, HEIGHT)).expect("test backend")
}

fn busy_model() -> Model {
    let mut m = Model::new(WIDTH, HEIGHT);
    update(&mut m, Msg::Tick(Instant::now()));
    update(
        &mut m,
        Msg::Runtime(Event::TurnStarted {
            turn: 1,
            text: "explain the parser".into(),
        }),
    );
    m
}

fn frame(m: &mut Model, terminal: &mut Terminal<TestBackend>) {
    settle(m);
    terminal.draw(|f| view(m, f)).expect("draw");
    m.dirty = false;
}

/// One reply from first delta to the final message, as the loop runs it.
fn stream_reply(deltas: &[String], text: &str, terminal: &mut Terminal<TestBackend>) -> Model {
    let mut m = busy_model();
    for (i, delta) in deltas.iter().enumerate() {
        black_box(step(
            &mut m,
            Msg::Runtime(Event::AssistantDelta {
                text: delta.clone(),
            }),
        ));
        if i % DELTAS_PER_FRAME == DELTAS_PER_FRAME - 1 {
            frame(&mut m, terminal);
        }
    }
    step(
        &mut m,
        Msg::Runtime(Event::AssistantMessage { text: text.into() }),
    );
    frame(&mut m, terminal);
    m
}

fn bench_streamed_reply(c: &mut Criterion) {
    let mut group = c.benchmark_group("streamed_reply");
    group.sample_size(10);
    for kb in [10usize, 60, 200] {
        let text = long_reply::markdown_reply(kb * 1024);
        let deltas = long_reply::word_deltas(&text);
        let mut terminal = terminal();
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{kb}KB")),
            &kb,
            |b, _| b.iter(|| stream_reply(&deltas, &text, &mut terminal)),
        );
    }
    group.finish();
}

/// A reply that is mostly pipe tables (each one block, laid out again
/// while it grows), some cells wider than their column.
fn table_reply(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 4096);
    let mut n = 0;
    while out.len() < bytes {
        n += 1;
        out.push_str(&format!(
            "### Table {n}\n\n| file | status | lines | note |\n|:-----|:------:|------:|------|\n"
        ));
        for row in 0..12 {
            out.push_str(&format!(
                "| `src/module_{n}_{row}.rs` | **changed** | {} | the parser reads the \
                 configuration before the defaults, so case {row} of table {n} keeps its \
                 override |\n",
                row * 37 + n
            ));
        }
        out.push('\n');
    }
    out
}

fn bench_streamed_table_reply(c: &mut Criterion) {
    let mut group = c.benchmark_group("streamed_reply_tables");
    group.sample_size(10);
    for kb in [10usize, 60, 200] {
        let text = table_reply(kb * 1024);
        let deltas = long_reply::word_deltas(&text);
        let mut terminal = terminal();
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{kb}KB")),
            &kb,
            |b, _| b.iter(|| stream_reply(&deltas, &text, &mut terminal)),
        );
    }
    group.finish();
}

/// The worst case for the loop: a layout and a draw after every delta.
fn bench_frame_per_delta(c: &mut Criterion) {
    let mut group = c.benchmark_group("streamed_reply_frame_per_delta");
    group.sample_size(10);
    for kb in [10usize, 60] {
        let text = long_reply::markdown_reply(kb * 1024);
        let deltas = long_reply::word_deltas(&text);
        let mut terminal = terminal();
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{kb}KB")),
            &kb,
            |b, _| {
                b.iter(|| {
                    let mut m = busy_model();
                    for delta in &deltas {
                        step(
                            &mut m,
                            Msg::Runtime(Event::AssistantDelta {
                                text: delta.clone(),
                            }),
                        );
                        frame(&mut m, &mut terminal);
                    }
                    m
                })
            },
        );
    }
    group.finish();
}

/// A tool call that starts and finishes: its finish is stepped, not
/// settled, as the loop does before a frame.
fn tool_call(
    m: &mut Model,
    tool: &str,
    input: serde_json::Value,
    output: String,
    diff: Option<String>,
) {
    let call_id = "call_1".to_string();
    update(
        m,
        Msg::Runtime(Event::ToolCallStarted {
            call_id: call_id.clone(),
            tool: tool.into(),
            input,
        }),
    );
    step(
        m,
        Msg::Runtime(Event::ToolCallFinished {
            call_id,
            tool: tool.into(),
            output,
            is_error: false,
            diff,
            exit_code: None,
        }),
    );
}

fn tool_output(lines: usize) -> String {
    (0..lines)
        .map(|i| format!("test module_{i}::case_{i} ... ok ({i} ms) with some more words\n"))
        .collect()
}

fn bench_long_paths(c: &mut Criterion) {
    let mut group = c.benchmark_group("long_paths");
    group.sample_size(20);
    let mut terminal = terminal();

    // A tool printing 200 KB: the call starts, finishes, is drawn, then
    // expanded (Ctrl+O) and drawn again.
    let output = tool_output(200 * 1024 / 60);
    group.bench_function("tool_output_200KB", |b| {
        b.iter(|| {
            let mut m = busy_model();
            let input = json!({"command": "cargo test"});
            tool_call(&mut m, "Bash", input, output.clone(), None);
            frame(&mut m, &mut terminal);
            step(&mut m, Msg::Key(ctrl('o')));
            frame(&mut m, &mut terminal);
            m
        })
    });

    // An Edit whose diff has 10,000 lines, collapsed then expanded.
    let diff: String =
        std::iter::once("--- a/big.rs\n+++ b/big.rs\n@@ -1,5000 +1,5000 @@\n".to_string())
            .chain((0..5000).flat_map(|i| [format!("-old line {i}\n"), format!("+new line {i}\n")]))
            .collect();
    group.bench_function("edit_diff_10k_lines", |b| {
        b.iter(|| {
            let mut m = busy_model();
            let input = json!({"file_path": "big.rs"});
            tool_call(
                &mut m,
                "Edit",
                input,
                "edited big.rs".into(),
                Some(diff.clone()),
            );
            frame(&mut m, &mut terminal);
            step(&mut m, Msg::Key(ctrl('o')));
            frame(&mut m, &mut terminal);
            m
        })
    });

    // Pasting 5,000 lines into the composer, then typing one key.
    let paste: String = (0..5000)
        .map(|i| format!("line {i} of the pasted log: value={i}\n"))
        .collect();
    group.bench_function("paste_5000_lines_and_type", |b| {
        b.iter(|| {
            let mut m = Model::new(WIDTH, HEIGHT);
            step(&mut m, Msg::Paste(paste.clone()));
            frame(&mut m, &mut terminal);
            step(&mut m, Msg::Key(key('x')));
            frame(&mut m, &mut terminal);
            m
        })
    });

    // Resuming a session of 2,000 messages: the history arrives in one
    // event and the first frame is drawn.
    let items: Vec<HistoryItem> = (0..2000)
        .map(|i| match i % 3 {
            0 => HistoryItem::User {
                text: format!("message {i}: fix the parser test"),
            },
            1 => HistoryItem::Assistant {
                text: long_transcript::reply(i),
            },
            _ => HistoryItem::Tool {
                call_id: format!("c{i}"),
                tool: "Bash".into(),
                input: json!({"command": format!("cargo test {i}")}),
                output: format!("running 1 test\ntest {i} ... ok"),
                is_error: false,
                sub_agent: None,
                exit_code: None,
                denial: None,
            },
        })
        .collect();
    group.bench_function("resume_2000_messages", |b| {
        b.iter(|| {
            let mut m = Model::new(WIDTH, HEIGHT);
            step(
                &mut m,
                Msg::Runtime(Event::History {
                    items: items.clone(),
                }),
            );
            frame(&mut m, &mut terminal);
            m
        })
    });
    group.finish();
}

/// What an idle TUI does ten times a second with 10,000 messages: a tick,
/// and no frame (nothing changed).
fn bench_idle(c: &mut Criterion) {
    let mut m = long_transcript::model(10_000, WIDTH, HEIGHT);
    settle(&mut m);
    m.dirty = false;
    c.bench_function("idle_tick_10k_messages", |b| {
        b.iter(|| {
            step(&mut m, Msg::Tick(Instant::now()));
            if m.dirty {
                settle(&mut m);
            }
            black_box(m.dirty)
        })
    });
}

fn key(c: char) -> crossterm::event::KeyEvent {
    crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char(c),
        crossterm::event::KeyModifiers::NONE,
    )
}

fn ctrl(c: char) -> crossterm::event::KeyEvent {
    crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char(c),
        crossterm::event::KeyModifiers::CONTROL,
    )
}

criterion_group!(
    benches,
    bench_streamed_reply,
    bench_streamed_table_reply,
    bench_frame_per_delta,
    bench_long_paths,
    bench_idle
);
criterion_main!(benches);
