//! Models with a small context window (a local server started with
//! `-c 8192`, say). The full system prompt and tool descriptions take
//! about 8,500 tokens, more than such a window holds, so a model whose
//! window is known to be at most [`SMALL_WINDOW_MAX_TOKENS`] gets the
//! compact prompt, compact tool descriptions and schemas without prose,
//! and tighter caps on the project instructions. An unknown window gets
//! the full prompt: the first request waits for the server's answer
//! (`model_events::wait_for_window`) so that this is rarely the case.

use super::instructions::ProjectContext;
use super::prompts::{
    compact_system_prompt, compact_system_prompt_with, system_prompt, system_prompt_with,
};
use crate::model::ToolSpec;
use crate::permission::mode::ExecutionState;
use crate::tools::registry::ToolRegistry;
use std::path::Path;

/// A window of at most this many tokens is small: the full prompt and
/// tools would take more than half of it.
pub const SMALL_WINDOW_MAX_TOKENS: u64 = 16_384;

/// Whether `window` (in tokens; `None`: unknown) calls for the compact
/// prompt.
pub fn is_small(window: Option<u64>) -> bool {
    window.is_some_and(|tokens| tokens <= SMALL_WINDOW_MAX_TOKENS)
}

/// What one request sends besides the conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestPrompt {
    pub system: String,
    pub tools: Vec<ToolSpec>,
    /// True when the compact forms were chosen.
    pub compact: bool,
}

/// The system prompt and tools for a model with this window.
pub fn request_prompt(
    workspace: &Path,
    state: ExecutionState,
    context: &ProjectContext,
    registry: &ToolRegistry,
    window: Option<u64>,
    base: Option<&str>,
) -> RequestPrompt {
    if is_small(window) {
        RequestPrompt {
            system: match base {
                Some(base) => compact_system_prompt_with(base, workspace, state, context),
                None => compact_system_prompt(workspace, state, context),
            },
            tools: registry.compact_specs(),
            compact: true,
        }
    } else {
        RequestPrompt {
            system: match base {
                Some(base) => system_prompt_with(base, workspace, state, context),
                None => system_prompt(workspace, state, context),
            },
            tools: registry.specs(),
            compact: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Message;
    use crate::runtime::compaction::estimate_request_tokens;
    use crate::runtime::instructions::InstructionFile;
    use std::path::PathBuf;

    /// A context as a real session has one: environment facts, the
    /// memory section and a sizeable AGENTS.md.
    fn context() -> ProjectContext {
        ProjectContext {
            files: vec![InstructionFile {
                path: PathBuf::from("/home/user/project/AGENTS.md"),
                text: "- Run `make test` before committing.\n".repeat(200),
                cut_bytes: 0,
            }],
            skipped: Vec::new(),
            date: "2026-01-01".into(),
            git_branch: Some("main".into()),
            git_status: Some("2 modified, 1 untracked".into()),
            shell: Some("/bin/bash".into()),
            memory_dir: Some(PathBuf::from(
                "/home/user/.zcode/projects/home-user-project-0123456789abcdef/memory",
            )),
            memory_index: Some("- [build](build.md): use make, not cargo\n".repeat(60)),
        }
    }

    fn first_request_tokens(window: Option<u64>) -> (u64, RequestPrompt) {
        let prompt = request_prompt(
            Path::new("/home/user/project"),
            ExecutionState::default(),
            &context(),
            &ToolRegistry::builtin(&[]),
            window,
            None,
        );
        let messages = [Message::User {
            content: "Read src/main.rs and tell me what it does.".into(),
        }];
        let tokens = estimate_request_tokens(&prompt.system, &messages, &prompt.tools);
        (tokens, prompt)
    }

    #[test]
    fn small1_the_threshold_is_inclusive_and_unknown_is_not_small() {
        assert!(is_small(Some(8192)));
        assert!(is_small(Some(SMALL_WINDOW_MAX_TOKENS)));
        assert!(!is_small(Some(SMALL_WINDOW_MAX_TOKENS + 1)));
        assert!(!is_small(None));
    }

    #[test]
    fn small4_first_request_for_an_8k_window_is_under_5000_tokens() {
        let (tokens, prompt) = first_request_tokens(Some(8192));
        assert!(prompt.compact);
        assert!(
            tokens < 5000,
            "the compact first request takes {tokens} tokens"
        );
        // Every built-in tool is still offered, with its parameters.
        let (_, full) = first_request_tokens(None);
        let names = |p: &RequestPrompt| p.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&prompt), names(&full));
        for (compact, full) in prompt.tools.iter().zip(&full.tools) {
            assert!(
                compact.description.len() <= 400,
                "{}: {}",
                compact.name,
                compact.description
            );
            assert_eq!(
                compact.input_schema["required"], full.input_schema["required"],
                "{}",
                compact.name
            );
            assert_eq!(
                compact.input_schema["properties"]
                    .as_object()
                    .map(|p| p.keys().cloned().collect::<Vec<_>>()),
                full.input_schema["properties"]
                    .as_object()
                    .map(|p| p.keys().cloned().collect::<Vec<_>>()),
                "{}",
                compact.name
            );
        }
        // The rules that matter are in the compact prompt.
        assert!(prompt.system.contains("NOT executed"), "{}", prompt.system);
        assert!(prompt.system.contains("Permission mode:"));
        assert!(
            prompt
                .system
                .contains("more bytes of this file were left out")
        );
    }

    #[test]
    fn small4_a_large_window_gets_the_full_prompt_and_tools_unchanged() {
        let ws = Path::new("/home/user/project");
        let state = ExecutionState::default();
        let registry = ToolRegistry::builtin(&[]);
        for window in [None, Some(SMALL_WINDOW_MAX_TOKENS + 1), Some(200_000)] {
            let prompt = request_prompt(ws, state, &context(), &registry, window, None);
            assert!(!prompt.compact);
            assert_eq!(prompt.system, system_prompt(ws, state, &context()));
            assert_eq!(prompt.tools, registry.specs());
        }
        let (tokens, _) = first_request_tokens(Some(200_000));
        assert!(
            tokens > 8000,
            "the full first request takes {tokens} tokens"
        );
    }
}
