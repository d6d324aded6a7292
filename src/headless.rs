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

struct Outcome {
    end: TurnEnd,
    answer: Option<String>,
    usage: Usage,
    /// Model replies received (one per request).
    replies: u64,
    denials: Vec<Denial>,
    errors: Vec<String>,
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
    let mut outcome = Outcome {
        end: TurnEnd::Failed,
        answer: None,
        usage: Usage::default(),
        replies: 0,
        denials: Vec::new(),
        errors: Vec::new(),
    };
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
        if format == OutputFormat::StreamJson {
            print_line(&serde_json::to_string(&event).unwrap_or_default());
        }
        match event {
            Event::SessionStarted {
                offline_demo,
                state,
                mode_source,
                ..
            } => {
                if offline_demo {
                    eprintln!("{OFFLINE_DEMO_NOTICE}");
                }
                // In every format: whoever reads stderr learns that nothing
                // will be asked.
                if let Some(line) = yolo_line(state, mode_source) {
                    eprintln!("{line}");
                }
            }
            Event::ToolCallStarted { tool, input, .. } if format == OutputFormat::Text => {
                eprintln!("• {tool} {}", summarize_input(&input));
            }
            Event::ToolCallFinished {
                is_error: true,
                tool,
                output,
                ..
            } if format == OutputFormat::Text => {
                eprintln!(
                    "  {tool} failed: {}",
                    neutralize_controls(first_line(&output))
                );
            }
            Event::ToolCallDenied { denial } => {
                if format == OutputFormat::Text {
                    eprintln!("✗ {} denied: {}", denial.tool, denial.reason);
                }
                outcome.denials.push(denial);
            }
            // Sent once per model reply, with or without token counts.
            Event::Usage { total, .. } => {
                outcome.usage = total;
                outcome.replies += 1;
            }
            // In every format, like errors: a person watching sees why
            // nothing happens yet.
            Event::Retrying {
                attempt,
                max_attempts,
                delay_ms,
                reason,
            } => eprintln!(
                "zcode: {}",
                retry_line(attempt, max_attempts, delay_ms, &reason)
            ),
            Event::Notice { message } if format == OutputFormat::Text => {
                eprintln!("zcode: {message}")
            }
            Event::Error { message } => {
                // In every format: stdout may be a JSON consumer's, but a
                // person or a log reads stderr (HEAD-1).
                eprintln!("zcode: error: {}", neutralize_controls(&one_line(&message)));
                outcome.errors.push(message);
            }
            Event::TurnFinished { end, answer } => {
                outcome.end = end;
                outcome.answer = answer;
                finished = true;
                break;
            }
            _ => {}
        }
    }
    if !finished {
        eprintln!("zcode: error: {ENDED_EARLY}");
        outcome.errors.push(ENDED_EARLY.to_string());
    }
    let _ = handle.ops.send(Op::Shutdown);
    let _ = handle.task.await;
    let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    finish(&handle.session_id, format, &outcome, duration_ms)
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
    num_turns: u64,
    duration_ms: u64,
    usage: UsageObject,
    end: TurnEnd,
    denials: &'a [Denial],
    errors: &'a [String],
}

#[derive(Debug, Serialize)]
struct UsageObject {
    input_tokens: u64,
    output_tokens: u64,
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
        num_turns: outcome.replies,
        duration_ms,
        usage: UsageObject {
            input_tokens: outcome.usage.input_tokens,
            output_tokens: outcome.usage.output_tokens,
        },
        end: outcome.end,
        denials: &outcome.denials,
        errors: &outcome.errors,
    }
}

fn finish(session_id: &str, format: OutputFormat, outcome: &Outcome, duration_ms: u64) -> u8 {
    match format {
        OutputFormat::Text => {
            if let Some(answer) = &outcome.answer {
                print_line(answer.trim_end());
            }
        }
        OutputFormat::Json | OutputFormat::StreamJson => {
            let result = result_object(session_id, outcome, duration_ms);
            print_line(&serde_json::to_string(&result).unwrap_or_default());
        }
    }
    exit_code_of(outcome.end)
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
    let field = ["command", "file_path", "path", "pattern", "url"]
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
            },
            replies: 200,
            denials: Vec::new(),
            errors: vec!["stopped after 200 rounds".into()],
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
                "num_turns": 200,
                "duration_ms": 42,
                "usage": {"input_tokens": 5, "output_tokens": 2},
                "end": "round_limit",
                "denials": [],
                "errors": ["stopped after 200 rounds"],
            })
        );
    }
}
