//! The only language between the runtime and its front ends (TUI, headless
//! printer): plain, serializable data. An approval is an `Event` carrying a
//! request id; the answer is an `Op` with that id.

use crate::model::Usage;
use crate::permission::mode::{ExecutionState, ModeChoice, ModeSource};
use crate::permission::rule_source::RuleSource;
use crate::permission::rules::{Rule, RuleKind};
use crate::store::TodoItem;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// UI → runtime.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// A user message. While a turn runs it is queued (RUN-3).
    UserInput { text: String },
    /// `/mode`, Shift+Tab.
    SetMode {
        #[serde(with = "mode_choice_serde")]
        choice: ModeChoice,
    },
    /// Esc / Ctrl+C: cancel the running request or tool (RUN-2).
    Interrupt,
    /// The answer to `Event::PermissionRequested`.
    PermissionReply {
        request_id: String,
        reply: PermissionReply,
    },
    /// `/compact`: summarise older history now, as a cancellable task
    /// (`CompactionStarted`); while a turn runs, before its next request.
    Compact,
    /// `/model REF`: resolve the reference (MODEL-3) and use that model from
    /// the next request on; answered by `ModelChanged` or an `Error`.
    SetModel { reference: String },
    /// `/permissions`: answered by `ProjectRules` (GRANT-4).
    ListProjectRules,
    /// `/permissions trust`: trusts the project settings files as they
    /// are now, so that their allow rules apply.
    TrustProjectSettings,
    /// `/permissions` delete: removes a saved project rule (GRANT-4); the
    /// next permission check already goes without it.
    RemoveProjectRule { kind: RuleKind, rule: Rule },
    /// `/permissions allow|ask|deny RULE`: saves a project rule (GRANT-4),
    /// answered like a removal: a notice, then the new list.
    AddProjectRule { kind: RuleKind, rule: Rule },
    /// `/todos`: answered by a `Notice` listing the session's todo list.
    ShowTodos,
    /// `/memory`: the instruction files loaded and the project's memory.
    ShowMemory,
    /// `/mcp`: answered by a `Notice` with each MCP server's state and tools.
    ShowMcp,
    /// `/mcp trust NAME`: trust a project server's definition and start it.
    TrustMcpServer { name: String },
    /// `!command` in the terminal UI: run the user's own command in the
    /// workspace as a turn that asks the model nothing; the command and its
    /// output become a user message (`runtime::user_shell`). Refused with an
    /// `Error` while a turn or a compaction runs.
    RunShell { command: String },
    /// End the runtime task.
    Shutdown,
}

/// What the user chose on a tool approval (APPR-6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "choice", rename_all = "snake_case")]
pub enum PermissionReply {
    AllowOnce,
    /// Save these rules for the project (GRANT-1); usually the request's
    /// suggestions, possibly a subset.
    AlwaysAllowProject {
        rules: Vec<Rule>,
    },
    /// Grant the whole tool for this session (GRANT-2).
    AlwaysAllowSession,
    /// Switch the session to yolo (FULL-1..3), then allow this call.
    FullAccess,
    /// Write/Edit: allow this call and switch the session to edit mode, so
    /// edits inside the workspace are no longer asked about. Nothing is
    /// saved as a rule; offered where `edit_mode_available` says.
    AllowEditsForSession,
    /// The user's answers to an AskUserQuestion request (ASK-3): keyed by
    /// question text; `{}` means nothing was answered.
    Answers {
        answers: serde_json::Map<String, Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Value>,
    },
    /// ExitPlanMode: the user wants changes instead of approving (PLAN-8);
    /// approving is `AllowOnce`, a plain refusal `Deny`.
    PlanFeedback {
        feedback: String,
    },
    /// Deny; the feedback reaches the model (APPR-7).
    Deny {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        feedback: Option<String>,
    },
}

/// The "always" option an approval offers (APPR-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlwaysOption {
    Project,
    Session,
    None,
}

/// What a UI shows for a request (declared by each tool).
pub use crate::permission::declaration::RequestKind;

/// One entry of a plan's `allowedPrompts` (PLAN-6): a kind of command the
/// plan will need.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllowedPrompt {
    pub tool: String,
    pub prompt: String,
}

/// A tool call waiting for the user (APPR-2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionRequest {
    /// `perm_` + UUID.
    pub request_id: String,
    #[serde(default)]
    pub kind: RequestKind,
    pub call_id: String,
    pub tool: String,
    pub input: Value,
    pub rule_id: String,
    /// Why the user is asked, in plain words, as a phrase whose subject is
    /// the call: "runs a command that can change files".
    pub reason: String,
    /// The model's own description of the call (Bash's `description`),
    /// trimmed; `None` when it gave none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// What "Always allow" saves (SUG-1, SUG-2).
    pub suggestions: Vec<Rule>,
    pub always: AlwaysOption,
    pub full_access_available: bool,
    /// A Write/Edit inside the workspace that edit mode would allow:
    /// "Allow edits for the rest of this session" is offered
    /// (`PermissionReply::AllowEditsForSession`).
    #[serde(default)]
    pub edit_mode_available: bool,
    /// ExitPlanMode: the kinds of commands the plan says it will need
    /// (PLAN-6). Shown with the plan; approving it grants none of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_prompts: Vec<AllowedPrompt>,
    /// What will run, for the panel: Edit's diff, for instance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// The sub-agent whose call this is ("explore #2"); `None`: the
    /// session's own model asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// Who settled a permission request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResolvedBy {
    User,
    Hook,
    /// No client could answer (headless deny broker, no UI attached).
    NoClient,
    Cancelled,
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnEnd {
    /// The model answered without calling tools.
    Completed,
    /// A turn-control result stopped it (e.g. a denied plan, PLAN-9).
    Stopped,
    /// The user interrupted.
    Interrupted,
    /// The provider failed (see the preceding `Error`).
    Failed,
    /// The tool-call round limit was reached.
    RoundLimit,
}

/// How a compaction went (`CompactionFinished`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionOutcome {
    /// Older history was summarised (`ContextCompacted` came first).
    Compacted,
    /// There is no earlier turn to summarise yet.
    NothingToCompact,
    /// The summary request failed (a `Notice` says why); nothing changed.
    Failed,
    /// The user interrupted it; nothing changed.
    Interrupted,
}

/// A queued input handed back unsent: `id` is its `InputQueued` id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnedInput {
    pub id: String,
    pub text: String,
}

/// A tool call the runtime refused, as reported by `-p --output-format json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Denial {
    pub call_id: String,
    pub tool: String,
    pub input: Value,
    pub rule_id: String,
    pub reason: String,
    /// The sub-agent whose call was refused ("explore #2"); `None`: the
    /// session's own model's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// A sub-agent, as its cell and its events name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubAgentInfo {
    /// Its type and number in the session: "explore #2".
    pub label: String,
    /// `explore`, `general-purpose` or a custom agent's name.
    pub agent_type: String,
    /// The Agent call's short description (3–5 words).
    pub description: String,
    /// `provider/model`.
    pub model: String,
    /// The sub-agent's own session (its transcript).
    pub session_id: String,
}

/// How a sub-agent ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubAgentStatus {
    Completed,
    Failed,
    Cancelled,
}

/// What a finished sub-agent did, for its cell's one-line summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubAgentSummary {
    pub status: SubAgentStatus,
    pub tool_calls: u32,
    pub usage: Usage,
    pub elapsed_ms: u64,
    /// The first line of its answer, or why it stopped.
    pub summary: String,
}

/// A finished sub-agent, as a resumed session shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubAgentRecord {
    pub agent: SubAgentInfo,
    pub summary: SubAgentSummary,
}

/// A project rule with its kind (GRANT-4) and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedRule {
    pub kind: RuleKind,
    pub rule: Rule,
    /// The database (which `/permissions` can remove from) or a project
    /// settings file (edited in the file).
    #[serde(default)]
    pub source: RuleSource,
    /// `false`: an allow rule of a settings file whose content the user
    /// has not trusted.
    #[serde(default = "applied_default")]
    pub applied: bool,
}

fn applied_default() -> bool {
    true
}

impl SavedRule {
    /// A rule saved in the database.
    pub fn saved(kind: RuleKind, rule: Rule) -> Self {
        Self {
            kind,
            rule,
            source: RuleSource::Database,
            applied: true,
        }
    }
}

/// One entry of a resumed conversation, as a UI replays it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HistoryItem {
    User {
        text: String,
    },
    Assistant {
        text: String,
    },
    Tool {
        call_id: String,
        tool: String,
        input: Value,
        output: String,
        /// Failed as the live session showed it (`ToolCallFinished`'s
        /// `is_error`): a command that exited non-zero and a plan sent back
        /// count, though the model read them as plain results.
        is_error: bool,
        /// The sub-agent an Agent call ran, when its record was found.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sub_agent: Option<Box<SubAgentRecord>>,
        /// A command's exit code, as `ToolCallFinished` gave it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
        /// The call was refused (`ToolCallDenied`): by which rule, and why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        denial: Option<HistoryDenial>,
    },
    /// Older history was summarised here (RUN-4).
    Summary,
}

/// A refused call of a resumed conversation: what its `Denial` said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryDenial {
    pub rule_id: String,
    pub reason: String,
}

/// Runtime → UI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    SessionStarted {
        session_id: String,
        workspace: String,
        model: String,
        provider: String,
        offline_demo: bool,
        state: ExecutionState,
        resumed: bool,
        /// The model's context window in tokens; `null` when unknown
        /// (a `context_window_found` may follow).
        #[serde(default)]
        context_window: Option<u64>,
        /// Said once when commands judged read-only cannot run in the
        /// kernel sandbox (see `ReadOnlySandbox::notice`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sandbox_notice: Option<String>,
        /// Where `state` came from (EXEC-6): a front end says when yolo was
        /// carried over rather than asked for with `--mode`.
        #[serde(default)]
        mode_source: ModeSource,
    },
    TurnStarted {
        turn: u64,
        text: String,
    },
    InputQueued {
        id: String,
        text: String,
    },
    /// The user interrupted the turn: the inputs queued behind it (RUN-3)
    /// were not sent and are cancelled in the store; a front end gives them
    /// back to the user (its composer), oldest first.
    InputsReturned {
        inputs: Vec<ReturnedInput>,
    },
    AssistantDelta {
        text: String,
    },
    ReasoningDelta {
        text: String,
    },
    AssistantMessage {
        text: String,
    },
    ToolCallStarted {
        call_id: String,
        tool: String,
        input: Value,
    },
    /// The call passed its checks (and its approval, if it needed one) and
    /// runs now; `ToolCallFinished` follows.
    ToolCallRunning {
        call_id: String,
    },
    /// Output a running call (Bash) produced since its last delta, sent
    /// while it runs at a bounded rate (coalesced, never per byte); the
    /// whole output still comes with `ToolCallFinished`. A front end may
    /// show the last lines and drop the rest.
    ToolOutputDelta {
        call_id: String,
        text: String,
    },
    PermissionRequested {
        request: PermissionRequest,
    },
    /// The request is no longer waiting (answered by the user or a hook, or
    /// cancelled): a UI closes its panel.
    PermissionResolved {
        request_id: String,
        by: ResolvedBy,
    },
    /// `is_error`: the call failed, which includes a command that exited
    /// with a non-zero code and a plan the user sent back; what the model
    /// reads is `output` either way.
    ToolCallFinished {
        call_id: String,
        tool: String,
        output: String,
        is_error: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        diff: Option<String>,
        /// A command's exit code (Bash), as the shell reports it in `$?`
        /// (128 + N when killed by signal N); `None` when it was stopped
        /// (timed out, interrupted) or the tool runs no command.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
    },
    ToolCallDenied {
        denial: Denial,
    },
    /// The Agent call `parent_tool_use_id` started a sub-agent. Its own
    /// events follow as `SubAgentEvent`s (its approvals come as plain
    /// `PermissionRequested`, labelled with `agent.label`), then
    /// `SubAgentFinished`, then the Agent call's `ToolCallFinished`.
    SubAgentStarted {
        parent_tool_use_id: String,
        agent: SubAgentInfo,
    },
    /// An event of the sub-agent started by `parent_tool_use_id`: its
    /// text, its tool calls and their results, its usage, its notices.
    SubAgentEvent {
        parent_tool_use_id: String,
        label: String,
        event: Box<Event>,
    },
    /// The sub-agent started by `parent_tool_use_id` ended.
    SubAgentFinished {
        parent_tool_use_id: String,
        label: String,
        summary: SubAgentSummary,
    },
    /// The user answered the plan of call `call_id` with changes (PLAN-8):
    /// `text` is now a user message of this turn, after the tool results;
    /// a front end shows it as the user's message.
    PlanFeedback {
        call_id: String,
        text: String,
    },
    /// Older history was summarised (RUN-4): `summary` replaced it, the
    /// last `kept_messages` messages stay as they were.
    ContextCompacted {
        kept_messages: usize,
        #[serde(default)]
        summary: String,
    },
    /// `/compact` while no turn runs: the compaction started now, as a task
    /// of its own that `Op::Interrupt` cancels; `CompactionFinished` ends it.
    CompactionStarted,
    /// The compaction `CompactionStarted` announced is over.
    CompactionFinished {
        outcome: CompactionOutcome,
    },
    SessionModeChanged {
        state: ExecutionState,
    },
    /// The conversation of a resumed session, sent right after
    /// `SessionStarted { resumed: true }`.
    History {
        items: Vec<HistoryItem>,
    },
    /// `Op::SetModel` took effect: the next request uses this model
    /// (`provider/model`).
    ModelChanged {
        model: String,
        provider: String,
        /// The new model's context window in tokens; `null` when unknown
        /// (a `context_window_found` may follow).
        #[serde(default)]
        context_window: Option<u64>,
    },
    /// The server told the context window of `model` (`provider/model`),
    /// which the config does not give; `source` is the endpoint that said
    /// it (`/props`, `/v1/models`).
    ContextWindowFound {
        model: String,
        context_window: u64,
        source: String,
    },
    /// The server serves `model` (`provider/model`, the default name the
    /// config left) under another name: front ends show `served`
    /// (`provider/name`, e.g. a llama.cpp server's model file) instead.
    /// Requests keep the configured name.
    ServedModelFound {
        model: String,
        served: String,
    },
    /// The project's saved rules, answering `ListProjectRules` or after a
    /// removal (GRANT-4).
    ProjectRules {
        rules: Vec<SavedRule>,
    },
    /// The session's todo list after TodoWrite replaced it, and once at
    /// start when a resumed session has one (TODO-7).
    TodosChanged {
        todos: Vec<TodoItem>,
    },
    Usage {
        usage: Usage,
        total: Usage,
    },
    /// What finished Bash commands left running in the background, sent
    /// when it changes (count 0: nothing any more). All of it is ended
    /// when the session ends.
    BackgroundProcesses {
        /// Processes still running.
        count: usize,
        /// The commands that started them, each once, oldest first.
        commands: Vec<String>,
    },
    /// Something worth telling the user that is not an error.
    Notice {
        message: String,
    },
    /// A model request failed in a way worth trying again: attempt
    /// `attempt` of `max_attempts` starts after `delay_ms`. `reason` is
    /// short ("connection refused", "HTTP 503"). See [`retry_line`].
    Retrying {
        attempt: u32,
        max_attempts: u32,
        delay_ms: u64,
        reason: String,
    },
    Error {
        message: String,
    },
    TurnFinished {
        end: TurnEnd,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        answer: Option<String>,
    },
}

/// How a retry reads for a person: `retrying in 2 s, 2 of 4: connection
/// refused`.
pub fn retry_line(attempt: u32, max_attempts: u32, delay_ms: u64, reason: &str) -> String {
    let delay = if delay_ms.is_multiple_of(1000) || delay_ms >= 10_000 {
        format!("{} s", (delay_ms + 500) / 1000)
    } else {
        format!("{:.1} s", delay_ms as f64 / 1000.0)
    };
    format!("retrying in {delay}, {attempt} of {max_attempts}: {reason}")
}

mod mode_choice_serde {
    use crate::permission::mode::{ModeChoice, parse_mode_choice};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(c: &ModeChoice, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(c.as_str())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ModeChoice, D::Error> {
        let s = String::deserialize(d)?;
        parse_mode_choice(&s).map_err(serde::de::Error::custom)
    }
}
