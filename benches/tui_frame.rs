//! The cost of one frame of a 10,000-message transcript and of `update` on
//! a streaming delta (TUI-2: the view draws only what is visible).

#[path = "../tests/support/long_transcript.rs"]
mod long_transcript;

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::hint::black_box;
use std::time::{Duration, Instant};
use zcode::protocol::Event;
use zcode::tui::cells::Cell;
use zcode::tui::{Model, Msg, update, view};

const CELLS: usize = 10_000;
const WIDTH: u16 = 160;
const HEIGHT: u16 = 50;

fn event(m: &mut Model, event: Event) {
    update(m, Msg::Runtime(event));
}

fn bench_frame(c: &mut Criterion) {
    let mut model = long_transcript::model(CELLS, WIDTH, HEIGHT);
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).expect("test backend");
    c.bench_function("frame_10k_bottom", |b| {
        b.iter(|| terminal.draw(|f| view(black_box(&model), f)).map(|_| ()))
    });
    let rows = model.transcript_layout.rows();
    model.scroll = rows / 2;
    c.bench_function("frame_10k_middle", |b| {
        b.iter(|| terminal.draw(|f| view(black_box(&model), f)).map(|_| ()))
    });
}

fn bench_delta(c: &mut Criterion) {
    let mut model = long_transcript::model(CELLS, WIDTH, HEIGHT);
    event(
        &mut model,
        Event::TurnStarted {
            turn: 1,
            text: "and the other test?".into(),
        },
    );
    // A reply of a few blocks, one of them code, streaming its last line.
    let so_far = format!("{}\n\nNow the other one", long_transcript::reply(1));
    event(&mut model, Event::AssistantDelta { text: so_far });
    let Some(Cell::Assistant { text, .. }) = model.cells.last() else {
        panic!("no streaming reply");
    };
    let len = text.len();
    // Each measured delta appends to the reply; it is cut back after, so
    // every iteration costs the same.
    c.bench_function("update_delta_10k", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                let cmds = update(
                    &mut model,
                    Msg::Runtime(Event::AssistantDelta {
                        text: " and".into(),
                    }),
                );
                total += start.elapsed();
                black_box(cmds);
                if let Some(Cell::Assistant { text, .. }) = model.cells.last_mut() {
                    text.truncate(len);
                }
            }
            total
        })
    });
    // A frame while the reply streams, for the whole delta-to-screen cost
    // (the tick brings the layout back in step after the cut).
    update(&mut model, Msg::Tick(Instant::now()));
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).expect("test backend");
    c.bench_function("frame_10k_streaming", |b| {
        b.iter(|| terminal.draw(|f| view(black_box(&model), f)).map(|_| ()))
    });
}

fn bench_resize(c: &mut Criterion) {
    let mut model = long_transcript::model(CELLS, WIDTH, HEIGHT);
    let mut group = c.benchmark_group("resize");
    group.sample_size(10);
    let mut narrow = false;
    let mut resize = |model: &mut Model| {
        narrow = !narrow;
        let width = if narrow { WIDTH - 1 } else { WIDTH };
        update(model, Msg::Resize(width, HEIGHT))
    };
    // The resize itself lays out the bottom chunk of cells...
    group.bench_function("resize_update_10k", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                black_box(resize(&mut model));
                total += start.elapsed();
                finish_relayout(&mut model);
            }
            total
        })
    });
    // ...and the whole relayout, spread over the following updates.
    group.bench_function("full_relayout_10k", |b| {
        b.iter(|| {
            resize(&mut model);
            finish_relayout(&mut model)
        })
    });
    group.finish();
}

/// Ticks until every cell is laid out again; returns how many it took.
fn finish_relayout(model: &mut Model) -> usize {
    let mut ticks = 0;
    while !model.transcript_layout.is_complete() {
        update(model, Msg::Tick(Instant::now()));
        ticks += 1;
    }
    ticks
}

/// A frame and a tick while a long plan waits for approval: the panel's
/// Markdown is rendered for its height and for the frame (PLAN-10).
fn bench_plan_approval(c: &mut Criterion) {
    use serde_json::json;
    use zcode::protocol::{AlwaysOption, PermissionRequest, RequestKind};
    let mut model = long_transcript::model(CELLS, WIDTH, HEIGHT);
    let mut plan = String::from("# Plan\n\n");
    for i in 0..300 {
        plan.push_str(&format!(
            "{i}. Change `module_{i}` so that **its tests** pass, then run `cargo test --test module_{i}`.\n"
        ));
    }
    event(
        &mut model,
        Event::PermissionRequested {
            request: PermissionRequest {
                request_id: "perm_plan".into(),
                kind: RequestKind::Plan,
                call_id: "call_plan".into(),
                tool: "ExitPlanMode".into(),
                input: json!({ "plan": plan }),
                rule_id: "ask.plan".into(),
                reason: String::new(),
                suggestions: Vec::new(),
                always: AlwaysOption::None,
                full_access_available: false,
                description: None,
                edit_mode_available: false,
                allowed_prompts: Vec::new(),
                preview: None,
                agent: None,
            },
        },
    );
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).expect("test backend");
    c.bench_function("frame_10k_plan_300_lines", |b| {
        b.iter(|| terminal.draw(|f| view(black_box(&model), f)).map(|_| ()))
    });
    c.bench_function("tick_10k_plan_300_lines", |b| {
        b.iter(|| update(&mut model, Msg::Tick(Instant::now())))
    });
}

criterion_group!(
    benches,
    bench_frame,
    bench_delta,
    bench_resize,
    bench_plan_approval
);
criterion_main!(benches);
