//! Sub-agents in parallel: the whole turn of a parent whose one reply
//! starts several Agent calls, each sub-agent answering after a fixed
//! delay (its model's "thinking"), against the turn with only the slowest
//! of them. Parallel agents should cost the slowest one's time plus a few
//! milliseconds of overhead, however many run, at every delay.
//!
//! `cargo bench --bench sub_agents`

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use futures_util::future::BoxFuture;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use zcode::model::select::SelectedModel;
use zcode::model::{
    FinishReason, Message, ModelProvider, ModelRequest, ProviderError, ReplyStream, StreamEvent,
    Usage,
};
use zcode::permission::mode::{Mode, ModeChoice};
use zcode::permission::settings::PermissionSettings;
use zcode::protocol::{Event, Op};
use zcode::runtime::session::SessionStart;
use zcode::runtime::{BrokerChoice, RuntimeSetup};
use zcode::store::{Store, default_db_path};

/// The parent asks for one Agent call per delay; a sub-agent whose task
/// names `N ms` answers after N ms.
struct TimedProvider {
    delays_ms: Vec<u64>,
}

fn events(list: Vec<StreamEvent>) -> ReplyStream {
    Box::pin(futures_util::stream::iter(list.into_iter().map(Ok)))
}

impl ModelProvider for TimedProvider {
    fn label(&self) -> &str {
        "timed"
    }

    fn stream<'a>(
        &'a self,
        request: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<ReplyStream, ProviderError>> {
        Box::pin(async move {
            let usage = StreamEvent::Usage(Usage {
                input_tokens: 100,
                output_tokens: 10,
                ..Default::default()
            });
            if request.system.contains("# Working as a sub-agent") {
                let task = request
                    .messages
                    .iter()
                    .find_map(|m| match m {
                        Message::User { content } => Some(content.clone()),
                        _ => None,
                    })
                    .unwrap_or_default();
                let ms: u64 = task
                    .split_whitespace()
                    .find_map(|w| w.parse().ok())
                    .unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                return Ok(events(vec![
                    StreamEvent::TextDelta(format!("done after {ms} ms")),
                    usage,
                    StreamEvent::Finished(FinishReason::Stop),
                ]));
            }
            let answered = request
                .messages
                .iter()
                .any(|m| matches!(m, Message::Tool { .. }));
            if answered {
                return Ok(events(vec![
                    StreamEvent::TextDelta("all reported".into()),
                    usage,
                    StreamEvent::Finished(FinishReason::Stop),
                ]));
            }
            let mut list = Vec::new();
            for (index, ms) in self.delays_ms.iter().enumerate() {
                list.push(StreamEvent::ToolCallStart {
                    index,
                    id: Some(format!("call_{index}")),
                    name: Some("Agent".into()),
                });
                list.push(StreamEvent::ToolCallDelta {
                    index,
                    arguments: serde_json::json!({
                        "description": format!("agent {index}"),
                        "prompt": format!("wait {ms} ms"),
                        "subagent_type": "explore",
                    })
                    .to_string(),
                });
            }
            list.push(usage);
            list.push(StreamEvent::Finished(FinishReason::ToolCalls));
            Ok(events(list))
        })
    }
}

/// One whole turn with these sub-agent delays; returns its wall time.
async fn turn(delays_ms: Vec<u64>, dir: &std::path::Path) -> Duration {
    let home = dir.join("home");
    let workspace = dir.join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&workspace).unwrap();
    let workspace: PathBuf = workspace.canonicalize().unwrap();
    let store = Store::open(default_db_path(&home)).unwrap();
    let setup = RuntimeSetup {
        workspace: workspace.clone(),
        project_id: "bench".into(),
        zcode_home: home,
        model: SelectedModel {
            provider: Arc::new(TimedProvider { delays_ms }),
            provider_id: "timed".into(),
            model_id: "timed".into(),
            reasoning: None,
            context_window: Some(200_000),
            window_lookup: None,
            prices: None,
        },
        settings: PermissionSettings::default(),
        hooks: Default::default(),
        disallowed_tools: Vec::new(),
        start: SessionStart::New,
        explicit_mode: Some(ModeChoice::Mode(Mode::Build)),
        config_mode: None,
        headless: true,
        broker: BrokerChoice::Deny,
        model_resolver: None,
        mcp: Default::default(),
        agents: Default::default(),
        client_files: None,
    };
    let mut handle = zcode::runtime::start(setup, store).unwrap();
    let started = Instant::now();
    handle
        .ops
        .send(Op::UserInput { text: "go".into() })
        .unwrap();
    while let Some(event) = handle.events.recv().await {
        if let Event::TurnFinished { .. } = event {
            break;
        }
    }
    let took = started.elapsed();
    let _ = handle.ops.send(Op::Shutdown);
    let _ = handle.task.await;
    took
}

fn bench_parallel_agents(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("sub_agents");
    group.sample_size(20);
    for slowest in [20u64, 50, 100] {
        let cases = [
            ("slowest_alone", vec![slowest]),
            (
                "three_parallel",
                vec![slowest / 2, slowest * 3 / 4, slowest],
            ),
            ("three_equal", vec![slowest; 3]),
        ];
        for (name, delays) in cases {
            group.bench_with_input(BenchmarkId::new(name, slowest), &delays, |b, delays| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let dir = tempfile::tempdir().unwrap();
                        total += rt.block_on(turn(delays.clone(), dir.path()));
                    }
                    total
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_parallel_agents);
criterion_main!(benches);
