//! The system prompt: a text asset plus facts about this session.

use super::instructions::ProjectContext;
use crate::permission::mode::ExecutionState;
use std::path::Path;

const SYSTEM_PROMPT: &str = include_str!("../../assets/prompts/system.md");

/// The system prompt for one request.
pub fn system_prompt(workspace: &Path, state: ExecutionState, context: &ProjectContext) -> String {
    format!(
        "{SYSTEM_PROMPT}\n# Environment\n- Workspace: {}\n- Platform: {} ({})\n- Permission mode: {} — {}\n{}",
        workspace.display(),
        std::env::consts::OS,
        std::env::consts::ARCH,
        state.label(),
        state.description(),
        context.prompt_section(),
    )
}

const COMPACT_SYSTEM_PROMPT: &str = include_str!("../../assets/prompts/system_compact.md");

/// The system prompt for a model with a small context window
/// (see the small_window module): the short rules, the same environment facts,
/// and the project instructions under tighter caps.
pub fn compact_system_prompt(
    workspace: &Path,
    state: ExecutionState,
    context: &ProjectContext,
) -> String {
    format!(
        "{COMPACT_SYSTEM_PROMPT}\n# Environment\n- Workspace: {}\n- Platform: {} ({})\n- Permission mode: {} — {}\n{}",
        workspace.display(),
        std::env::consts::OS,
        std::env::consts::ARCH,
        state.label(),
        state.description(),
        context.compact_prompt_section(),
    )
}
