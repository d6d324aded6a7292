//! `zcode -p`: one task, no UI (HEAD-1, HEAD-2). The final answer goes to
//! stdout, everything else to stderr; `json` prints one result object and
//! `stream-json` one event per line. Errors go to stderr in every format
//! (as well as into the JSON), one line each.

use crate::model::Usage;
use crate::runtime::RuntimeHandle;
use crate::runtime::protocol::{Denial, Event, Op, TurnEnd, retry_line};
use serde_json::json;
use std::io::Write;

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

pub const OFFLINE_DEMO_NOTICE: &str = "zcode: no model is configured, so this runs on the offline demo provider (scripted replies). \
To use a real model, set OPENAI_BASE_URL (e.g. http://127.0.0.1:8080/v1 for a llama.cpp server) and/or OPENAI_API_KEY, \
or ANTHROPIC_API_KEY, or add a provider to $ZCODE_HOME/config.json; see the README.";

struct Outcome {
    end: TurnEnd,
    answer: Option<String>,
    usage: Usage,
    denials: Vec<Denial>,
    errors: Vec<String>,
}

/// Runs `prompt` to its end and returns the process exit code.
pub async fn run(mut handle: RuntimeHandle, prompt: String, format: OutputFormat) -> u8 {
    let _ = handle.ops.send(Op::UserInput { text: prompt });
    let mut outcome = Outcome {
        end: TurnEnd::Failed,
        answer: None,
        usage: Usage::default(),
        denials: Vec::new(),
        errors: Vec::new(),
    };
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
                offline_demo: true, ..
            } => eprintln!("{OFFLINE_DEMO_NOTICE}"),
            Event::ToolCallStarted { tool, input, .. } if format == OutputFormat::Text => {
                eprintln!("• {tool} {}", summarize_input(&input));
            }
            Event::ToolCallFinished {
                is_error: true,
                tool,
                output,
                ..
            } if format == OutputFormat::Text => {
                eprintln!("  {tool} failed: {}", first_line(&output));
            }
            Event::ToolCallDenied { denial } => {
                if format == OutputFormat::Text {
                    eprintln!("✗ {} denied: {}", denial.tool, denial.reason);
                }
                outcome.denials.push(denial);
            }
            Event::Usage { total, .. } => outcome.usage = total,
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
                eprintln!("zcode: error: {}", one_line(&message));
                outcome.errors.push(message);
            }
            Event::TurnFinished { end, answer } => {
                outcome.end = end;
                outcome.answer = answer;
                break;
            }
            _ => {}
        }
    }
    let _ = handle.ops.send(Op::Shutdown);
    let _ = handle.task.await;
    finish(&handle.session_id, format, &outcome)
}

async fn next_interrupt(sigint: &mut Option<tokio::signal::unix::Signal>) {
    match sigint {
        Some(signal) => {
            signal.recv().await;
        }
        None => std::future::pending().await,
    }
}

fn finish(session_id: &str, format: OutputFormat, outcome: &Outcome) -> u8 {
    let code = match outcome.end {
        TurnEnd::Completed | TurnEnd::Stopped => exit_code::SUCCESS,
        TurnEnd::Interrupted => exit_code::INTERRUPTED,
        TurnEnd::Failed | TurnEnd::RoundLimit => exit_code::FAILURE,
    };
    match format {
        OutputFormat::Text => {
            if let Some(answer) = &outcome.answer {
                print_line(answer.trim_end());
            }
        }
        OutputFormat::Json | OutputFormat::StreamJson => {
            let result = json!({
                "type": "result",
                "sessionId": session_id,
                "end": outcome.end,
                "isError": code != exit_code::SUCCESS,
                "answer": outcome.answer,
                "usage": { "inputTokens": outcome.usage.input_tokens, "outputTokens": outcome.usage.output_tokens },
                "denials": outcome.denials.iter().map(|d| json!({
                    "callId": d.call_id,
                    "tool": d.tool,
                    "input": d.input,
                    "ruleId": d.rule_id,
                    "reason": d.reason,
                })).collect::<Vec<_>>(),
                "errors": outcome.errors,
            });
            print_line(&result.to_string());
        }
    }
    code
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
    let line = first_line(&text);
    if line.chars().count() > 100 {
        format!("{}…", line.chars().take(100).collect::<String>())
    } else {
        line.to_string()
    }
}
