//! A long scripted Anthropic session replayed through the real request
//! builder, billed the way Anthropic bills prompt caches: shared by the
//! `prompt_cache` benchmark and the test that holds its figure.
//!
//! The session: zcode's own system prompt and tools, a task, then one tool
//! call per reply (Read, Grep, Bash, Edit in turn, with results of a few
//! kilobytes), the todo reminders the runtime adds, and a final answer.
//!
//! The bill follows Anthropic's prompt-caching rules: the prompt is tools,
//! system, then messages, block by block; a request reads the longest
//! cached prefix that ends at one of its breakpoints or up to 20 blocks
//! before one; it writes the prefix up to each breakpoint (at least 1024
//! tokens); reads cost 0.1× the input price, writes 1.25×. Tokens are
//! estimated as a quarter of a block's JSON bytes.

#![allow(dead_code)]

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

use serde_json::Value;
use zcode::model::anthropic::request_body;
use zcode::model::cache_breakpoints::without_markers;
use zcode::model::{Message, ModelRequest, ToolCall};
use zcode::permission::mode::ExecutionState;
use zcode::runtime::instructions::ProjectContext;
use zcode::runtime::prompts::system_prompt;
use zcode::tools::registry::ToolRegistry;

/// How far before a breakpoint the API looks for an earlier entry.
const LOOKBACK_BLOCKS: usize = 20;
/// The shortest prefix Anthropic caches (Sonnet, Opus).
const MIN_CACHED_TOKENS: u64 = 1024;
const WRITE_WEIGHT: f64 = 1.25;
const READ_WEIGHT: f64 = 0.1;

/// A result of `bytes` bytes of plain source-like text, seeded by `n`.
fn tool_output(n: usize, bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 80);
    let mut line = 0;
    while out.len() < bytes {
        line += 1;
        out.push_str(&format!(
            "{line:>4}\tlet value_{n}_{line} = compute(&input[{line}], {});\n",
            n * 31 + line
        ));
    }
    out
}

/// The calls of the session, in order: `(tool, arguments, result bytes)`.
fn script(calls: usize) -> Vec<(&'static str, String, usize)> {
    (0..calls)
        .map(|i| match i % 4 {
            0 => (
                "Read",
                format!(r#"{{"file_path":"src/module_{i}.rs"}}"#),
                6_000,
            ),
            1 => (
                "Grep",
                format!(r#"{{"pattern":"fn handler_{i}","path":"src"}}"#),
                1_200,
            ),
            2 => (
                "Bash",
                r#"{"command":"cargo test --lib parser","description":"Run the parser tests"}"#
                    .to_string(),
                2_500,
            ),
            _ => (
                "Edit",
                format!(
                    r#"{{"file_path":"src/module_{i}.rs","old_string":"compute(&input)","new_string":"compute_checked(&input)?"}}"#
                ),
                300,
            ),
        })
        .collect()
}

/// Every request of a session with `calls` tool calls, as the runtime
/// builds them (the history grows by a reply and its result each time).
pub fn long_session(calls: usize) -> Vec<ModelRequest> {
    let context = ProjectContext {
        date: "2026-01-01".into(),
        git_branch: Some("main".into()),
        shell: Some("/bin/bash".into()),
        ..Default::default()
    };
    let system = system_prompt(
        Path::new("/home/dev/project"),
        ExecutionState::default(),
        &context,
    );
    let tools = ToolRegistry::builtin(&[]).specs();
    let request = |messages: &[Message]| ModelRequest {
        model: "claude-sonnet-4-5".into(),
        system: system.clone(),
        messages: messages.to_vec(),
        tools: tools.clone(),
        max_output_tokens: None,
        context_window: Some(200_000),
        reasoning: None,
        cache_key: Some("sess_replay".into()),
    };
    let mut history = vec![Message::User {
        content: "The parser rejects nested arrays. Find why, fix it and make the tests pass."
            .into(),
    }];
    let mut requests = vec![request(&history)];
    for (i, (tool, arguments, bytes)) in script(calls).into_iter().enumerate() {
        let id = format!("toolu_{i:02}");
        history.push(Message::Assistant {
            text: format!("Step {i}: checking with {tool}."),
            tool_calls: vec![ToolCall {
                id: id.clone(),
                name: tool.into(),
                arguments,
            }],
        });
        history.push(Message::Tool {
            call_id: id,
            content: tool_output(i, bytes),
            is_error: false,
        });
        if i > 0 && i % 10 == 0 {
            history.push(Message::User {
                content: "<system-reminder>\nThe TodoWrite tool hasn't been used recently.\n</system-reminder>".into(),
            });
        }
        requests.push(request(&history));
    }
    requests
}

/// What a session's input was billed, in input-token equivalents.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Bill {
    /// Every prompt token of every request: the bill without caches.
    pub uncached_input: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    /// Neither read nor written.
    pub plain: u64,
}

impl Bill {
    /// Weighted as Anthropic bills: writes 1.25×, reads 0.1×.
    pub fn billed_input(&self) -> f64 {
        self.plain as f64
            + WRITE_WEIGHT * self.cache_write as f64
            + READ_WEIGHT * self.cache_read as f64
    }
}

/// One block of the prompt: its prefix key, its tokens, and whether it
/// carries a breakpoint.
struct Block {
    key: u64,
    tokens: u64,
    breakpoint: bool,
}

/// The body's blocks in cache order (tools, system, messages).
fn blocks(body: &Value) -> Vec<Block> {
    let mut pieces: Vec<(String, bool)> = Vec::new();
    let marked = |v: &Value| v.get("cache_control").is_some();
    for tool in body["tools"].as_array().into_iter().flatten() {
        pieces.push((without_markers(tool).to_string(), marked(tool)));
    }
    match &body["system"] {
        Value::Array(parts) => {
            for part in parts {
                pieces.push((without_markers(part).to_string(), marked(part)));
            }
        }
        Value::String(s) => pieces.push((s.clone(), false)),
        _ => {}
    }
    for (m, message) in body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let role = message["role"].as_str().unwrap_or_default();
        for (b, block) in message["content"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            // A block's place in its message is part of the prompt.
            let text = format!("{m}:{role}:{b}:{}", without_markers(block));
            pieces.push((text, marked(block)));
        }
    }
    let mut hasher = DefaultHasher::new();
    pieces
        .into_iter()
        .map(|(text, breakpoint)| {
            text.hash(&mut hasher);
            Block {
                key: hasher.finish(),
                tokens: (text.len() as u64).div_ceil(4),
                breakpoint,
            }
        })
        .collect()
}

/// Bills the requests in order, with an empty cache at the start.
pub fn bill(requests: &[ModelRequest]) -> Bill {
    let mut cache: HashSet<u64> = HashSet::new();
    let mut bill = Bill::default();
    for request in requests {
        let blocks = blocks(&request_body(request));
        let mut prefix = Vec::with_capacity(blocks.len());
        let mut sum = 0;
        for b in &blocks {
            sum += b.tokens;
            prefix.push(sum);
        }
        bill.uncached_input += sum;
        let breakpoints: Vec<usize> = (0..blocks.len())
            .filter(|&i| blocks[i].breakpoint)
            .collect();
        let read = breakpoints
            .iter()
            .flat_map(|&bp| bp.saturating_sub(LOOKBACK_BLOCKS)..=bp)
            .filter(|&i| cache.contains(&blocks[i].key))
            .map(|i| prefix[i])
            .max()
            .unwrap_or(0);
        let mut written_to = read;
        for &bp in &breakpoints {
            if prefix[bp] >= MIN_CACHED_TOKENS {
                cache.insert(blocks[bp].key);
                written_to = written_to.max(prefix[bp]);
            }
        }
        bill.cache_read += read;
        bill.cache_write += written_to - read;
        bill.plain += sum - written_to;
    }
    bill
}
