//! `zcode -p`: one task, no UI (HEAD-1, HEAD-2). The final answer goes to
//! stdout, everything else to stderr; `json` prints one result object and
//! `stream-json` one event per line, then the same result object. Errors go
//! to stderr in every format (as well as into the JSON), one line each.

use crate::model::Usage;
use crate::permission::mode::{ExecutionState, Mode, ModeSource};
use crate::protocol::{Denial, Event, Op, TurnEnd, retry_line};
use crate::runtime::RuntimeHandle;
use crate::terminal_text::neutralize_controls;
use serde::Serialize;
use std::io::Write;
use std::time::Instant;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
    StreamJson,
}

/// Exit codes of `zcode -p` (documented in the README).
pub mod exit_code {
    /// The task ran to its end (including a turn stopped by a denied plan).
    pub const SUCCESS: u8 = 0;
    /// The model or the runtime failed.
    pub const FAILURE: u8 = 1;
    /// Interrupted with Ctrl+C.
    pub const INTERRUPTED: u8 = 130;
}

/// The first words of the stderr line of a run in yolo.
pub const YOLO_LINE_START: &str = "zcode: running in yolo mode";

/// EXEC-6: a headless run in yolo says so on stderr, with where yolo came
/// from; `None` in any other mode.
pub fn yolo_line(state: ExecutionState, source: ModeSource) -> Option<String> {
    if state.mode != Mode::Yolo || state.plan_enabled {
        return None;
    }
    let why = match source {
        ModeSource::Flag => "--mode yolo",
        ModeSource::Config => "permission.mode in the config",
        ModeSource::Session => "as the resumed session was left",
        _ => "the default of -p",
    };
    Some(format!(
        "{YOLO_LINE_START} ({why}): tool calls run without asking, except what deny rules \
         and --disallowedTools forbid; --mode build denies whatever would be asked"
    ))
}

pub const OFFLINE_DEMO_NOTICE: &str = "zcode: no model is configured, so this runs on the offline demo provider (scripted replies). \
To use a real model, set OPENAI_BASE_URL (e.g. http://127.0.0.1:8080/v1 for a llama.cpp server) and/or OPENAI_API_KEY, \
or ANTHROPIC_API_KEY, or add a provider to $ZCODE_HOME/config.json; see the README.";

/// Said when the runtime stops without finishing the turn.
const ENDED_EARLY: &str = "the session ended before the task finished";

mod plan;
mod sub_agents;

use plan::PlanWatch;
use sub_agents::{SubAgentResult, SubAgents};

struct Outcome {
    end: TurnEnd,
    answer: Option<String>,
    usage: Usage,
    /// Model replies received (one per request of the session's own model).
    replies: u64,
    denials: Vec<Denial>,
    errors: Vec<String>,
    /// The sub-agents the run started, with their figures.
    sub_agents: Vec<SubAgentResult>,
    /// A run in plan mode: whether its plan was approved (never, without
    /// a UI); `None` outside plan mode.
    plan_approved: Option<bool>,
    /// The model as the status line names it (`provider/model`, or the
    /// name a local server serves it under).
    model: String,
}

impl Default for Outcome {
    fn default() -> Self {
        Self {
            end: TurnEnd::Failed,
            answer: None,
            usage: Usage::default(),
            replies: 0,
            denials: Vec::new(),
            errors: Vec::new(),
            sub_agents: Vec::new(),
            plan_approved: None,
            model: String::new(),
        }
    }
}

/// Runs `prompt` to its end and returns the process exit code; `started`
/// is when zcode started, for `duration_ms`.
pub async fn run(
    mut handle: RuntimeHandle,
    prompt: String,
    format: OutputFormat,
    started: Instant,
) -> u8 {
    let _ = handle.ops.send(Op::UserInput { text: prompt });
    let mut printer = Printer::new(format);
    let mut finished = false;
    let mut interrupts = 0u32;
    // One listener for the whole run, so no Ctrl+C is missed between events.
    let mut sigint = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok();
    loop {
        let event = tokio::select! {
            event = handle.events.recv() => event,
            _ = next_interrupt(&mut sigint) => {
                interrupts += 1;
                if interrupts > 1 {
                    return exit_code::INTERRUPTED;
                }
                eprintln!("zcode: interrupting (Ctrl+C again to quit at once)");
                let _ = handle.ops.send(Op::Interrupt);
                continue;
            }
        };
        let Some(event) = event else { break };
        let done = printer.on_event(event, &mut std::io::stdout(), &mut std::io::stderr());
        if done {
            finished = true;
            break;
        }
    }
    let mut outcome = printer.finish();
    if !finished {
        eprintln!("zcode: error: {ENDED_EARLY}");
        outcome.errors.push(ENDED_EARLY.to_string());
    }
    let _ = handle.ops.send(Op::Shutdown);
    let _ = handle.task.await;
    let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    finish(&handle.session_id, format, &outcome, duration_ms)
}

/// Prints a run's events as they come (stream-json lines on stdout, the
/// progress lines on stderr) and keeps what the result object reports.
struct Printer {
    format: OutputFormat,
    outcome: Outcome,
    agents: SubAgents,
    plan: PlanWatch,
}

impl Printer {
    fn new(format: OutputFormat) -> Self {
        Self {
            format,
            outcome: Outcome::default(),
            agents: SubAgents::default(),
            plan: PlanWatch::default(),
        }
    }

    /// Handles one event; true once the turn finished. Write errors (a
    /// closed pipe) are ignored: the run goes on to its end.
    fn on_event(&mut self, event: Event, out: &mut impl Write, err: &mut impl Write) -> bool {
        let text = self.format == OutputFormat::Text;
        if self.format == OutputFormat::StreamJson {
            let _ = writeln!(out, "{}", serde_json::to_string(&event).unwrap_or_default());
            let _ = out.flush();
        }
        self.plan.on_event(&event);
        match event {
            Event::SessionStarted {
                offline_demo,
                state,
                mode_source,
                model,
                ..
            } => {
                self.outcome.model = model;
                if offline_demo {
                    let _ = writeln!(err, "{OFFLINE_DEMO_NOTICE}");
                }
                // In every format: whoever reads stderr learns that nothing
                // will be asked.
                if let Some(line) = yolo_line(state, mode_source) {
                    let _ = writeln!(err, "{line}");
                }
            }
            Event::ToolCallStarted { tool, input, .. } if text => {
                let _ = writeln!(err, "• {tool} {}", summarize_input(&input));
            }
            Event::ToolCallFinished {
                is_error: true,
                tool,
                output,
                ..
            } if text => {
                let _ = writeln!(
                    err,
                    "  {tool} failed: {}",
                    neutralize_controls(first_line(&output))
                );
            }
            Event::ToolCallDenied { denial } => self.denied(denial, err),
            Event::SubAgentStarted {
                parent_tool_use_id,
                agent,
            } => {
                let line = self.agents.started(&parent_tool_use_id, &agent);
                if text {
                    let _ = writeln!(err, "{line}");
                }
            }
            Event::SubAgentEvent {
                parent_tool_use_id,
                label,
                event,
            } => {
                self.agents.inner(&parent_tool_use_id, &event);
                match *event {
                    // Its refusals are the run's, named with the agent.
                    Event::ToolCallDenied { mut denial } => {
                        denial.agent.get_or_insert(label);
                        self.denied(denial, err);
                    }
                    // Like the session's own: a person sees why it waits.
                    Event::Retrying {
                        attempt,
                        max_attempts,
                        delay_ms,
                        reason,
                    } => {
                        let line = retry_line(attempt, max_attempts, delay_ms, &reason);
                        let _ = writeln!(err, "zcode: {label}: {line}");
                    }
                    _ => {}
                }
            }
            Event::SubAgentFinished {
                parent_tool_use_id,
                label,
                summary,
            } => {
                let line = self.agents.finished(&parent_tool_use_id, &label, &summary);
                if text {
                    let _ = writeln!(err, "{line}");
                }
            }
            Event::ModelChanged { model, .. } => self.outcome.model = model,
            // The name a local server serves the configured model under.
            Event::ServedModelFound { model, served } if model == self.outcome.model => {
                self.outcome.model = served;
            }
            // Sent once per model reply, with or without token counts; a
            // sub-agent's requests are added to the total as they come.
            Event::Usage { total, .. } => {
                self.outcome.usage = total;
                if !self.agents.any_running() {
                    self.outcome.replies += 1;
                }
            }
            // In every format, like errors: a person watching sees why
            // nothing happens yet.
            Event::Retrying {
                attempt,
                max_attempts,
                delay_ms,
                reason,
            } => {
                let _ = writeln!(
                    err,
                    "zcode: {}",
                    retry_line(attempt, max_attempts, delay_ms, &reason)
                );
            }
            Event::Notice { message } if text => {
                let _ = writeln!(err, "zcode: {message}");
            }
            Event::Error { message } => {
                // In every format: stdout may be a JSON consumer's, but a
                // person or a log reads stderr (HEAD-1).
                let _ = writeln!(
                    err,
                    "zcode: error: {}",
                    neutralize_controls(&one_line(&message))
                );
                self.outcome.errors.push(message);
            }
            Event::TurnFinished { end, answer } => {
                self.outcome.end = end;
                (self.outcome.answer, self.outcome.plan_approved) = self.plan.finish(answer);
                return true;
            }
            _ => {}
        }
        false
    }

    /// A refused call: "✗ Bash denied: …", or "✗ explore #2 · Bash denied:
    /// …" for a sub-agent's.
    fn denied(&mut self, denial: Denial, err: &mut impl Write) {
        if self.format == OutputFormat::Text {
            let who = match &denial.agent {
                Some(label) => format!("{label} · {}", denial.tool),
                None => denial.tool.clone(),
            };
            let line = format!("✗ {who} denied: {}", denial.reason);
            let _ = writeln!(err, "{}", neutralize_controls(&line));
        }
        self.outcome.denials.push(denial);
    }

    /// What the result object reports.
    fn finish(mut self) -> Outcome {
        self.outcome.sub_agents = self.agents.results();
        self.outcome
    }
}

async fn next_interrupt(sigint: &mut Option<tokio::signal::unix::Signal>) {
    match sigint {
        Some(signal) => {
            signal.recv().await;
        }
        None => std::future::pending().await,
    }
}

fn exit_code_of(end: TurnEnd) -> u8 {
    match end {
        TurnEnd::Completed | TurnEnd::Stopped => exit_code::SUCCESS,
        TurnEnd::Interrupted => exit_code::INTERRUPTED,
        TurnEnd::Failed | TurnEnd::RoundLimit => exit_code::FAILURE,
    }
}

/// The `subtype` scripts written for other agents test: "success", or
/// which kind of error.
fn subtype_of(end: TurnEnd) -> &'static str {
    match end {
        TurnEnd::Completed | TurnEnd::Stopped => "success",
        TurnEnd::RoundLimit => "error_max_turns",
        TurnEnd::Failed | TurnEnd::Interrupted => "error_during_execution",
    }
}

/// The result object of `json` and the last line of `stream-json`, in the
/// snake_case of the events (documented in the README).
#[derive(Debug, Serialize)]
struct ResultObject<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    subtype: &'static str,
    is_error: bool,
    /// The answer.
    result: Option<&'a str>,
    session_id: &'a str,
    /// The model (`provider/model`), as the terminal UI names it.
    model: &'a str,
    num_turns: u64,
    duration_ms: u64,
    usage: UsageObject,
    /// What the run cost in US dollars; `null` when a reply's model has no
    /// known price (a partial sum would read as the whole cost).
    total_cost_usd: Option<f64>,
    end: TurnEnd,
    denials: &'a [Denial],
    errors: &'a [String],
    /// Each sub-agent's figures (`usage` above is the run's total, theirs
    /// included); left out when the run started none.
    #[serde(skip_serializing_if = "<[SubAgentResult]>::is_empty")]
    sub_agents: &'a [SubAgentResult],
    /// A run in plan mode: `false`, and `result` is the plan (nobody
    /// approves a plan without a UI); left out outside plan mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    plan_approved: Option<bool>,
}

/// Token counts as Anthropic's API reports them: `input_tokens` is the
/// input neither read from nor written to the prompt cache.
#[derive(Debug, Serialize)]
struct UsageObject {
    input_tokens: u64,
    output_tokens: u64,
    cache_read_input_tokens: u64,
    cache_creation_input_tokens: u64,
}

/// The cost in dollars when every reply's price was known.
fn total_cost_usd(usage: &Usage) -> Option<f64> {
    (usage.unpriced_replies == 0).then(|| usage.cost_micros as f64 / 1_000_000.0)
}

fn result_object<'a>(
    session_id: &'a str,
    outcome: &'a Outcome,
    duration_ms: u64,
) -> ResultObject<'a> {
    ResultObject {
        kind: "result",
        subtype: subtype_of(outcome.end),
        is_error: exit_code_of(outcome.end) != exit_code::SUCCESS,
        result: outcome.answer.as_deref(),
        session_id,
        model: &outcome.model,
        num_turns: outcome.replies,
        duration_ms,
        usage: UsageObject {
            input_tokens: outcome.usage.uncached_input_tokens(),
            output_tokens: outcome.usage.output_tokens,
            cache_read_input_tokens: outcome.usage.cache_read_input_tokens,
            cache_creation_input_tokens: outcome.usage.cache_creation_input_tokens,
        },
        total_cost_usd: total_cost_usd(&outcome.usage),
        end: outcome.end,
        denials: &outcome.denials,
        errors: &outcome.errors,
        sub_agents: &outcome.sub_agents,
        plan_approved: outcome.plan_approved,
    }
}

fn finish(session_id: &str, format: OutputFormat, outcome: &Outcome, duration_ms: u64) -> u8 {
    match format {
        OutputFormat::Text => {
            if let Some(answer) = &outcome.answer {
                print_line(answer.trim_end());
            }
            if outcome.plan_approved == Some(false) && outcome.answer.is_some() {
                eprintln!("{}", plan_not_approved_line(session_id));
            }
        }
        OutputFormat::Json | OutputFormat::StreamJson => {
            let result = result_object(session_id, outcome, duration_ms);
            print_line(&serde_json::to_string(&result).unwrap_or_default());
        }
    }
    exit_code_of(outcome.end)
}

/// Said on stderr after the plan of a text run.
fn plan_not_approved_line(session_id: &str) -> String {
    format!(
        "zcode: the plan was not approved (a run without a UI cannot approve one); \
         `zcode --resume {session_id}` goes on from it"
    )
}

fn print_line(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{s}");
    let _ = out.flush();
}

/// A message on one line: its lines joined with spaces.
fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or_default()
}

fn summarize_input(input: &serde_json::Value) -> String {
    let field = [
        "command",
        "file_path",
        "path",
        "pattern",
        "url",
        "description",
    ]
    .iter()
    .find_map(|k| input.get(*k).and_then(|v| v.as_str()));
    let text = field
        .map(str::to_string)
        .unwrap_or_else(|| input.to_string());
    let line = neutralize_controls(first_line(&text));
    if line.chars().count() > 100 {
        format!("{}…", line.chars().take(100).collect::<String>())
    } else {
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ux_each_turn_end_has_a_subtype_and_an_exit_code() {
        let cases = [
            (TurnEnd::Completed, "success", 0),
            (TurnEnd::Stopped, "success", 0),
            (TurnEnd::RoundLimit, "error_max_turns", 1),
            (TurnEnd::Failed, "error_during_execution", 1),
            (TurnEnd::Interrupted, "error_during_execution", 130),
        ];
        for (end, subtype, code) in cases {
            assert_eq!(subtype_of(end), subtype, "{end:?}");
            assert_eq!(exit_code_of(end), code, "{end:?}");
        }
    }

    #[test]
    fn ux_the_result_object_is_snake_case() {
        let outcome = Outcome {
            end: TurnEnd::RoundLimit,
            answer: Some("partial".into()),
            usage: Usage {
                input_tokens: 5,
                output_tokens: 2,
                unpriced_replies: 200,
                ..Default::default()
            },
            replies: 200,
            denials: Vec::new(),
            errors: vec!["stopped after 200 rounds".into()],
            sub_agents: Vec::new(),
            plan_approved: None,
            model: "openai/m".into(),
        };
        let value = serde_json::to_value(result_object("sess_1", &outcome, 42)).unwrap();
        assert_eq!(
            value,
            serde_json::json!({
                "type": "result",
                "subtype": "error_max_turns",
                "is_error": true,
                "result": "partial",
                "session_id": "sess_1",
                "model": "openai/m",
                "num_turns": 200,
                "duration_ms": 42,
                "usage": {"input_tokens": 5, "output_tokens": 2,
                    "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0},
                "total_cost_usd": null,
                "end": "round_limit",
                "denials": [],
                "errors": ["stopped after 200 rounds"],
            })
        );
    }

    use crate::protocol::{SubAgentInfo, SubAgentStatus, SubAgentSummary};
    use serde_json::{Value, json};

    fn usage(input_tokens: u64, output_tokens: u64) -> Usage {
        Usage {
            input_tokens,
            output_tokens,
            ..Default::default()
        }
    }

    fn info(label: &str, description: &str) -> SubAgentInfo {
        SubAgentInfo {
            label: label.into(),
            agent_type: "explore".into(),
            description: description.into(),
            model: "local/qwen3".into(),
            session_id: format!("sess_{}", label.len()),
        }
    }

    fn wrapped(call_id: &str, label: &str, event: Event) -> Event {
        Event::SubAgentEvent {
            parent_tool_use_id: call_id.into(),
            label: label.into(),
            event: Box::new(event),
        }
    }

    /// A reply with two Agent calls whose agents run at once, one of them
    /// refused a call, then the answer; as the runtime sends them (a
    /// sub-agent's usage reaches the session's total as its own `Usage`
    /// first).
    fn two_agents_run() -> Vec<Event> {
        let mut total = usage(1_000, 50);
        let mut events = vec![Event::Usage {
            usage: total,
            total,
        }];
        for (call, label, what) in [
            ("c1", "explore #1", "find the login check"),
            ("c2", "explore #2", "find session expiry"),
        ] {
            events.push(Event::ToolCallStarted {
                call_id: call.into(),
                tool: "Agent".into(),
                input: json!({"description": what, "prompt": "…", "subagent_type": "explore"}),
            });
            events.push(Event::SubAgentStarted {
                parent_tool_use_id: call.into(),
                agent: info(label, what),
            });
        }
        for (call, label) in [("c1", "explore #1"), ("c2", "explore #2")] {
            events.push(wrapped(
                call,
                label,
                Event::ToolCallStarted {
                    call_id: "t1".into(),
                    tool: "Grep".into(),
                    input: json!({"pattern": "fn login"}),
                },
            ));
            let used = usage(4_000, 200);
            total.add(used);
            events.push(Event::Usage { usage: used, total });
            events.push(wrapped(
                call,
                label,
                Event::Usage {
                    usage: used,
                    total: used,
                },
            ));
        }
        events.push(wrapped(
            "c2",
            "explore #2",
            Event::ToolCallDenied {
                denial: Denial {
                    call_id: "t2".into(),
                    tool: "Bash".into(),
                    input: json!({"command": "touch x"}),
                    rule_id: "agent.readOnly".into(),
                    reason: "This agent runs read-only tools and commands only".into(),
                    agent: Some("explore #2".into()),
                },
            },
        ));
        events.push(Event::SubAgentFinished {
            parent_tool_use_id: "c1".into(),
            label: "explore #1".into(),
            summary: SubAgentSummary {
                status: SubAgentStatus::Completed,
                tool_calls: 1,
                usage: usage(4_000, 200),
                elapsed_ms: 2_400,
                summary: "The login is checked in src/auth.rs:42.".into(),
            },
        });
        events.push(Event::SubAgentFinished {
            parent_tool_use_id: "c2".into(),
            label: "explore #2".into(),
            summary: SubAgentSummary {
                status: SubAgentStatus::Failed,
                tool_calls: 2,
                usage: usage(4_000, 200),
                elapsed_ms: 3_100,
                summary: "provider error: HTTP 529".into(),
            },
        });
        let last = usage(9_000, 80);
        total.add(last);
        events.push(Event::Usage { usage: last, total });
        events.push(Event::TurnFinished {
            end: TurnEnd::Completed,
            answer: Some("src/auth.rs:42".into()),
        });
        events
    }

    /// Feeds `events` to a printer: stdout, stderr and the outcome.
    fn feed(format: OutputFormat, events: Vec<Event>) -> (String, String, Outcome) {
        let mut printer = Printer::new(format);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        for event in events {
            if printer.on_event(event, &mut out, &mut err) {
                break;
            }
        }
        let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
        (text(out), text(err), printer.finish())
    }

    #[test]
    fn ux_stream_json_tags_sub_agent_events_with_the_agent_call() {
        let (out, _, _) = feed(OutputFormat::StreamJson, two_agents_run());
        let lines: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let of =
            |kind: &str| -> Vec<&Value> { lines.iter().filter(|e| e["type"] == kind).collect() };
        let inner = of("sub_agent_event");
        assert_eq!(inner.len(), 5);
        for e in &inner {
            assert!(
                ["c1", "c2"].contains(&e["parent_tool_use_id"].as_str().unwrap()),
                "{e}"
            );
            assert!(e["event"]["type"].is_string(), "{e}");
        }
        // A script tells the two apart by the call id.
        let of_c2 = inner
            .iter()
            .filter(|e| e["parent_tool_use_id"] == "c2")
            .count();
        assert_eq!(of_c2, 3);
        assert_eq!(of("sub_agent_started")[1]["parent_tool_use_id"], "c2");
        assert_eq!(of("sub_agent_finished")[0]["parent_tool_use_id"], "c1");
        assert_eq!(of("sub_agent_finished")[1]["summary"]["status"], "failed");
    }

    #[test]
    fn ux_text_output_shows_one_line_per_sub_agent_start_and_end() {
        let (out, err, _) = feed(OutputFormat::Text, two_agents_run());
        assert!(out.is_empty(), "the answer is printed at the end: {out}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(
            lines,
            [
                "• Agent find the login check",
                "▸ explore #1: find the login check (local/qwen3)",
                "• Agent find session expiry",
                "▸ explore #2: find session expiry (local/qwen3)",
                "✗ explore #2 · Bash denied: This agent runs read-only tools and commands only",
                "◂ explore #1 done: 1 tool call · 4.2k tokens · 2 s",
                "◂ explore #2 failed: 2 tool calls · 4.2k tokens · 3 s · provider error: HTTP 529",
            ]
        );
    }

    #[test]
    fn ux_the_result_object_reports_each_sub_agent_and_the_total_usage() {
        let (_, _, outcome) = feed(OutputFormat::Json, two_agents_run());
        let value = serde_json::to_value(result_object("sess_1", &outcome, 42)).unwrap();
        // The total counts the sub-agents' tokens; the replies are the
        // session's own model's.
        assert_eq!(
            value["usage"],
            json!({"input_tokens": 18_000, "output_tokens": 530,
                "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0})
        );
        assert_eq!(value["num_turns"], 2);
        assert_eq!(
            value["sub_agents"],
            json!([
                {"label": "explore #1", "agent_type": "explore", "status": "completed",
                 "tool_calls": 1, "usage": {"input_tokens": 4_000, "output_tokens": 200},
                 "elapsed_ms": 2_400},
                {"label": "explore #2", "agent_type": "explore", "status": "failed",
                 "tool_calls": 2, "usage": {"input_tokens": 4_000, "output_tokens": 200},
                 "elapsed_ms": 3_100},
            ])
        );
        // The refusal is the run's, named with its agent.
        assert_eq!(value["denials"][0]["agent"], "explore #2");
    }

    #[test]
    fn cache_json_usage_keeps_cached_input_apart_with_the_cost() {
        let outcome = Outcome {
            end: TurnEnd::Completed,
            usage: Usage {
                input_tokens: 10_000,
                output_tokens: 100,
                cache_read_input_tokens: 9_000,
                cache_creation_input_tokens: 800,
                cost_micros: 6_450,
                unpriced_replies: 0,
            },
            ..Outcome::default()
        };
        let value = serde_json::to_value(result_object("sess_1", &outcome, 1)).unwrap();
        assert_eq!(
            value["usage"],
            json!({"input_tokens": 200, "output_tokens": 100,
                "cache_read_input_tokens": 9_000, "cache_creation_input_tokens": 800})
        );
        assert_eq!(value["total_cost_usd"], json!(0.00645));
        // One reply without a price: the sum is not the cost.
        let unpriced = Outcome {
            usage: Usage {
                unpriced_replies: 1,
                ..outcome.usage
            },
            ..Outcome::default()
        };
        let value = serde_json::to_value(result_object("sess_1", &unpriced, 1)).unwrap();
        assert_eq!(value["total_cost_usd"], Value::Null);
    }

    #[test]
    fn ux_a_sub_agent_the_run_ended_before_counts_as_cancelled() {
        let mut events = two_agents_run();
        // Cut before the agents ended: what they did so far.
        events.truncate(9);
        let (_, _, outcome) = feed(OutputFormat::Json, events);
        let agents = &outcome.sub_agents;
        assert_eq!(agents.len(), 2);
        assert!(agents.iter().all(|a| a.status == SubAgentStatus::Cancelled));
        assert_eq!(agents[0].tool_calls, 1);
        assert_eq!(agents[0].usage, usage(4_000, 200));
    }

    #[test]
    fn ux_a_run_without_sub_agents_keeps_its_result_fields() {
        let (_, _, outcome) = feed(
            OutputFormat::Json,
            vec![Event::TurnFinished {
                end: TurnEnd::Completed,
                answer: None,
            }],
        );
        let value = serde_json::to_value(result_object("sess_1", &outcome, 1)).unwrap();
        assert!(value.get("sub_agents").is_none(), "{value}");
    }

    #[test]
    fn live_bash_output_is_ignored_by_text_mode_and_streamed_as_json() {
        let delta = || Event::ToolOutputDelta {
            call_id: "c1".into(),
            text: "building\n".into(),
        };
        let (out, err, _) = feed(OutputFormat::Text, vec![delta()]);
        assert_eq!((out.as_str(), err.as_str()), ("", ""));
        let (out, _, _) = feed(OutputFormat::StreamJson, vec![delta()]);
        let line: Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(line["type"], "tool_output_delta");
        assert_eq!(line["text"], "building\n");
    }
}
