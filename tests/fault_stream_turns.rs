//! Faults in the model stream as a turn meets them: the runtime with the
//! real HTTP provider against a fault-injecting server. An interrupt ends
//! the turn at once whatever the stream does, and what arrived before an
//! interrupt or a failure is saved as the partial assistant message.

#![cfg(unix)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use support::fake_model_server::{FakeModelServer, Reply};
use support::fault_server::{Fault, FaultServer, Output, Wire};
use support::{fake_provider, test_settings};
use zcode::config::ProviderKind;
use zcode::model::limits::{StreamLimits, output_cutoff_bytes};
use zcode::model::openai::OpenAiProvider;
use zcode::model::select::SelectedModel;
use zcode::model::{HttpSettings, Message, ModelProvider};
use zcode::permission::mode::{Mode, ModeChoice};
use zcode::permission::settings::PermissionSettings;
use zcode::protocol::{Event, Op, TurnEnd};
use zcode::runtime::session::SessionStart;
use zcode::runtime::transcript::messages_from_entries;
use zcode::runtime::{BrokerChoice, RuntimeHandle, RuntimeSetup};
use zcode::store::{EntryRecord, Store, default_db_path, entry_kind};

/// No wait here may take longer (the old code hung forever in places).
const HANG: Duration = Duration::from_secs(10);

struct Session {
    handle: RuntimeHandle,
    home: std::path::PathBuf,
    log: Vec<Event>,
    _dir: tempfile::TempDir,
}

impl Session {
    async fn start(base_url: &str, limits: StreamLimits) -> Session {
        let dir = tempfile::tempdir().unwrap();
        let workspace = std::fs::canonicalize(dir.path()).unwrap().join("ws");
        std::fs::create_dir_all(&workspace).unwrap();
        let home = dir.path().join("home");
        let store = Store::open(default_db_path(&home)).unwrap();
        let settings = HttpSettings {
            idle_timeout: Duration::from_secs(20),
            max_attempts: 1,
            limits,
            ..test_settings()
        };
        let provider: Arc<dyn ModelProvider> = Arc::new(OpenAiProvider::new(
            &fake_provider(ProviderKind::Openai, base_url),
            None,
            settings,
        ));
        let setup = RuntimeSetup {
            workspace: workspace.clone(),
            project_id: zcode::config::project_id(&workspace),
            zcode_home: home.clone(),
            model: SelectedModel {
                provider,
                provider_id: "fake".into(),
                model_id: "fault-model".into(),
                reasoning: None,
                context_window: Some(100_000),
                window_lookup: None,
                prices: None,
            },
            settings: PermissionSettings::default(),
            hooks: Default::default(),
            disallowed_tools: Vec::new(),
            start: SessionStart::New,
            explicit_mode: Some(ModeChoice::Mode(Mode::Build)),
            config_mode: None,
            headless: false,
            broker: BrokerChoice::Deny,
            model_resolver: None,
            mcp: Default::default(),
            agents: Default::default(),
            client_files: None,
        };
        let handle = zcode::runtime::start(setup, store).unwrap();
        Session {
            handle,
            home,
            log: Vec::new(),
            _dir: dir,
        }
    }

    fn input(&self, text: &str) {
        self.handle
            .ops
            .send(Op::UserInput { text: text.into() })
            .unwrap();
    }

    fn interrupt(&self) {
        self.handle.ops.send(Op::Interrupt).unwrap();
    }

    /// The next event `pick` accepts; earlier ones are kept in the log.
    async fn wait_for<T>(&mut self, what: &str, pick: impl Fn(&Event) -> Option<T>) -> T {
        let events = &mut self.handle.events;
        let log = &mut self.log;
        let found = tokio::time::timeout(HANG, async {
            loop {
                let event = events.recv().await?;
                let found = pick(&event);
                log.push(event);
                if found.is_some() {
                    return found;
                }
            }
        })
        .await;
        match found {
            Ok(Some(found)) => found,
            Ok(None) => panic!("the runtime ended before {what}"),
            Err(_) => panic!("no {what} within {HANG:?}; events: {:#?}", tail(&self.log)),
        }
    }

    async fn turn_end(&mut self) -> TurnEnd {
        self.wait_for("TurnFinished", |e| match e {
            Event::TurnFinished { end, .. } => Some(*end),
            _ => None,
        })
        .await
    }

    fn errors(&self) -> Vec<String> {
        self.log
            .iter()
            .filter_map(|e| match e {
                Event::Error { message } => Some(message.clone()),
                _ => None,
            })
            .collect()
    }

    fn entries(&self) -> Vec<EntryRecord> {
        let store = Store::open(default_db_path(&self.home)).unwrap();
        store.entries(&self.handle.session_id).unwrap()
    }

    fn assistant_entries(&self) -> Vec<EntryRecord> {
        self.entries()
            .into_iter()
            .filter(|e| e.kind == entry_kind::ASSISTANT_MESSAGE)
            .collect()
    }
}

/// The last few events, for failure messages (deltas can be many).
fn tail(log: &[Event]) -> &[Event] {
    &log[log.len().saturating_sub(8)..]
}

fn limits(max_output_tokens: u32) -> StreamLimits {
    StreamLimits {
        max_output_tokens,
        ..StreamLimits::default()
    }
}

fn payload_text(entry: &EntryRecord, key: &str) -> String {
    entry.payload[key].as_str().unwrap_or_default().to_string()
}

/// Interrupts after `deltas` text deltas; the turn must end while the
/// stream, which never ends by itself, goes on.
async fn interrupt_after(session: &mut Session, deltas: usize) {
    session.input("go");
    for _ in 0..deltas {
        session
            .wait_for("AssistantDelta", |e| {
                matches!(e, Event::AssistantDelta { .. }).then_some(())
            })
            .await;
    }
    session.interrupt();
    let end = session.turn_end().await;
    assert_eq!(end, TurnEnd::Interrupted, "{:#?}", tail(&session.log));
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_stream_interrupt_during_a_drip_ends_the_turn_and_keeps_the_partial() {
    let server = FaultServer::start(Fault::SlowDeltas {
        wire: Wire::OpenAi,
        every: Duration::from_millis(20),
    })
    .await;
    let mut session = Session::start(&server.openai_base_url(), limits(32_000)).await;
    interrupt_after(&mut session, 5).await;
    let saved = session.assistant_entries();
    assert_eq!(saved.len(), 1);
    let text = payload_text(&saved[0], "text");
    assert!(text.starts_with("tick tick tick tick tick"), "{text}");
    assert!(
        server.wait_for_client_aborts(1, HANG).await,
        "request not aborted"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_stream_interrupt_during_an_endless_flood_ends_the_turn_and_keeps_the_partial() {
    // Busy all the time, but far from any limit when the interrupt comes.
    let server = FaultServer::start(Fault::Flood { padding: 1000 }).await;
    let mut session = Session::start(&server.openai_base_url(), limits(32_000)).await;
    interrupt_after(&mut session, 50).await;
    let saved = session.assistant_entries();
    assert_eq!(saved.len(), 1, "{:#?}", tail(&session.log));
    let text = payload_text(&saved[0], "text");
    assert!(text.len() >= 50, "{}", text.len());
    assert!(text.chars().all(|c| c == 'x'), "{text}");
    assert!(
        server.wait_for_client_aborts(1, HANG).await,
        "request not aborted"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_stream_output_limit_ends_the_turn_with_the_message_and_keeps_the_partial() {
    let server = FaultServer::start(Fault::Endless {
        wire: Wire::OpenAi,
        output: Output::Text,
        delta_bytes: 100,
    })
    .await;
    let mut session = Session::start(&server.openai_base_url(), limits(2000)).await;
    session.input("go");
    assert_eq!(session.turn_end().await, TurnEnd::Failed);
    let errors = session.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("the reply passed the output limit of 2000 tokens")
            && errors[0].contains("raise maxOutputTokens for this model"),
        "{errors:?}"
    );
    assert_eq!(server.requests()[0]["max_tokens"], 2000);
    let saved = session.assistant_entries();
    assert_eq!(saved.len(), 1);
    let text = payload_text(&saved[0], "text");
    let cutoff = output_cutoff_bytes(2000) as usize;
    assert!(
        (cutoff..cutoff + 100).contains(&text.len()),
        "{}",
        text.len()
    );
    assert!(text.chars().all(|c| c == 'x'));
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_stream_reasoning_only_partial_is_saved_but_not_sent_back() {
    let server = FaultServer::start(Fault::Endless {
        wire: Wire::OpenAi,
        output: Output::Reasoning,
        delta_bytes: 100,
    })
    .await;
    let mut session = Session::start(&server.openai_base_url(), limits(500)).await;
    session.input("go");
    assert_eq!(session.turn_end().await, TurnEnd::Failed);
    let saved = session.assistant_entries();
    assert_eq!(saved.len(), 1, "the reasoning was lost");
    assert_eq!(payload_text(&saved[0], "text"), "");
    assert!(payload_text(&saved[0], "reasoning").len() > 3000);
    // On resume the conversation has no empty assistant message.
    let messages = messages_from_entries(&session.entries());
    assert!(
        !messages
            .iter()
            .any(|m| matches!(m, Message::Assistant { text, tool_calls } if text.is_empty() && tool_calls.is_empty())),
        "{messages:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_stream_content_idle_ends_the_turn_and_keeps_the_partial() {
    let server = FaultServer::start(Fault::DeltaThenKeepAlive {
        wire: Wire::OpenAi,
        every: Duration::from_millis(50),
    })
    .await;
    let mut session = Session::start(
        &server.openai_base_url(),
        StreamLimits {
            content_idle: Duration::from_secs(1),
            ..StreamLimits::default()
        },
    )
    .await;
    session.input("go");
    assert_eq!(session.turn_end().await, TurnEnd::Failed);
    let errors = session.errors();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("no reply content for 1 s")),
        "{errors:?}"
    );
    let saved = session.assistant_entries();
    assert_eq!(saved.len(), 1);
    assert_eq!(payload_text(&saved[0], "text"), "partial answer");
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_stream_reply_cut_by_the_server_at_the_limit_is_told() {
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"half an ans\"}}]}\n\n\
         data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n\
         data: [DONE]\n\n",
    ));
    let mut session = Session::start(&server.openai_base_url(), limits(5)).await;
    session.input("go");
    assert_eq!(session.turn_end().await, TurnEnd::Completed);
    let notices: Vec<&Event> = session
        .log
        .iter()
        .filter(|e| matches!(e, Event::Notice { message } if message.contains("output limit") && message.contains("maxOutputTokens")))
        .collect();
    assert_eq!(notices.len(), 1, "{:#?}", session.log);
}
