//! The system prompt: a text asset plus facts about this session.

use super::instructions::ProjectContext;
use crate::permission::mode::ExecutionState;
use std::path::Path;

const SYSTEM_PROMPT: &str = include_str!("../../assets/prompts/system.md");

/// The system prompt for one request.
pub fn system_prompt(workspace: &Path, state: ExecutionState, context: &ProjectContext) -> String {
    system_prompt_with(SYSTEM_PROMPT, workspace, state, context)
}

/// The system prompt with `base` in place of zcode's own rules (a
/// sub-agent's instructions); the environment facts and project
/// instructions follow as always.
pub fn system_prompt_with(
    base: &str,
    workspace: &Path,
    state: ExecutionState,
    context: &ProjectContext,
) -> String {
    format!(
        "{base}\n# Environment\n- Workspace: {}\n- Platform: {} ({})\n- Permission mode: {} — {}\n{}",
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
    compact_system_prompt_with(COMPACT_SYSTEM_PROMPT, workspace, state, context)
}

/// The compact system prompt with `base` in place of zcode's own rules.
pub fn compact_system_prompt_with(
    base: &str,
    workspace: &Path,
    state: ExecutionState,
    context: &ProjectContext,
) -> String {
    format!(
        "{base}\n# Environment\n- Workspace: {}\n- Platform: {} ({})\n- Permission mode: {} — {}\n{}",
        workspace.display(),
        std::env::consts::OS,
        std::env::consts::ARCH,
        state.label(),
        state.description(),
        context.compact_prompt_section(),
    )
}
