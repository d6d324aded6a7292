//! Process hooks (HOOK-1..3): shell commands configured in the `hooks`
//! section that see a tool call before it runs (PreToolUse), may answer an
//! approval in the user's place (PermissionRequest) and see its result
//! (PostToolUse).

pub mod protocol;
pub mod runner;

pub use protocol::{
    HookInput, PermissionDecisionInput, PermissionHookDecision, PreToolUseResponse, ToolResponse,
};
pub use runner::{
    BLOCKING_EXIT_CODE, HookError, HookRunner, MAX_HOOK_OUTPUT_BYTES, MAX_HOOK_REASON_CHARS,
    PermissionRequestOutcome, PreToolUseOutcome,
};
