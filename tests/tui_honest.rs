//! Cells and panels that say what happened: the approval panel's plain
//! reason, the Bash description and "Allow edits for the rest of this
//! session"; the plan's requested permissions; failed commands, plans sent
//! back or denied; queued inputs handed back; long output lines wrapped;
//! `/compact` busy while it runs and its summary in a cell; a model whose
//! context window is unknown.

mod support;

use crossterm::event::KeyCode;
use ratatui::style::Color;
use serde_json::json;
use std::time::Instant;
use support::tui::{
    Session, ctrl, event, finished, key, render, screen_of, snapshot, started, turn_started,
    type_text,
};
use zcode::permission::mode::{ExecutionState, Mode};
use zcode::protocol::{
    AlwaysOption, CompactionOutcome, Event, Op, PermissionReply, PermissionRequest, RequestKind,
    ReturnedInput,
};
use zcode::tools::plan_mode::AllowedPrompt;
use zcode::tui::cells::{Cell, ToolStatus};
use zcode::tui::launcher::ModelChoice;
use zcode::tui::{Cmd, Model, Msg, update};

fn session(width: u16, height: u16, task: &str) -> Model {
    let mut m = Session::new(width, height)
        .model("local/qwen3", "Local")
        .start();
    update(&mut m, Msg::Tick(Instant::now()));
    turn_started(&mut m, 1, task);
    m
}

fn request(tool: &str, input: serde_json::Value, reason: &str) -> PermissionRequest {
    PermissionRequest {
        request_id: "perm_1".into(),
        kind: RequestKind::Tool,
        call_id: "call_1".into(),
        tool: tool.into(),
        input,
        rule_id: "ask.build".into(),
        reason: reason.into(),
        suggestions: Vec::new(),
        always: AlwaysOption::Session,
        full_access_available: false,
        description: None,
        edit_mode_available: false,
        allowed_prompts: Vec::new(),
        preview: None,
        agent: None,
    }
}

fn asking(m: &mut Model, request: PermissionRequest) {
    event(
        m,
        Event::ToolCallStarted {
            call_id: request.call_id.clone(),
            tool: request.tool.clone(),
            input: request.input.clone(),
        },
    );
    event(m, Event::PermissionRequested { request });
}

/// The row of the frame that holds `needle`.
fn row_of(screen: &str, needle: &str) -> usize {
    screen
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no row with {needle:?} in\n{screen}"))
}

/// The foreground colour of the first cell showing `symbol`.
fn colour_of(m: &Model, symbol: &str) -> Option<Color> {
    let terminal = render(m, m.width, m.height);
    let buffer = terminal.backend().buffer();
    buffer
        .content
        .iter()
        .find(|c| c.symbol() == symbol)
        .map(|c| c.fg)
}

// ---- the approval panel ---------------------------------------------------

#[test]
fn ux_approval_why_line_is_the_plain_reason_and_the_description_is_above_the_command() {
    let mut m = session(80, 24, "Add the marker");
    let mut r = request(
        "Bash",
        json!({"command": "touch marker.txt", "description": "Create the marker file"}),
        "runs a command that can change files",
    );
    r.description = Some("Create the marker file".into());
    asking(&mut m, r);
    let screen = screen_of(&m);
    assert!(
        screen.contains("│Bash runs a command that can change files"),
        "{screen}"
    );
    assert!(!screen.contains("wants to"), "{screen}");
    let description = row_of(&screen, "Create the marker file");
    let command = row_of(&screen, "│  touch marker.txt");
    assert_eq!(description + 1, command, "{screen}");
    snapshot("honest_approval_bash_description", &screen);
}

#[test]
fn ux_a_long_reason_wraps_instead_of_being_cut() {
    let mut m = session(60, 24, "Run it");
    asking(
        &mut m,
        request(
            "Bash",
            json!({"command": "touch $(cat list.txt)"}),
            "runs a command that can change files (zcode cannot check all of it in advance)",
        ),
    );
    let screen = screen_of(&m);
    assert!(screen.contains("in advance)"), "{screen}");
    assert!(!screen.contains('…'), "{screen}");
}

fn write_request(edit_mode: bool) -> PermissionRequest {
    let mut r = request(
        "Write",
        json!({"file_path": "notes.md", "content": "hello\n"}),
        "writes to a file in the workspace",
    );
    r.edit_mode_available = edit_mode;
    r.preview = Some("--- notes.md\n+++ notes.md\n@@ -0,0 +1 @@\n+hello\n".into());
    r
}

#[test]
fn ux_allow_edits_for_the_session_has_its_own_digit_and_the_mode_change_shows() {
    let mut m = session(80, 30, "Write the notes");
    asking(&mut m, write_request(true));
    let screen = screen_of(&m);
    assert!(
        screen.contains("│  2. Always allow in this session"),
        "{screen}"
    );
    assert!(
        screen.contains("│  3. Allow edits for the rest of this session"),
        "{screen}"
    );
    assert!(screen.contains("│  4. Deny with feedback"), "{screen}");
    snapshot("honest_approval_allow_edits", &screen);
    let cmds = update(&mut m, key(KeyCode::Char('3')));
    assert_eq!(
        cmds,
        vec![Cmd::Send(Op::PermissionReply {
            request_id: "perm_1".into(),
            reply: PermissionReply::AllowEditsForSession,
        })]
    );
    // The runtime switches the session to edit mode: the status line says so.
    event(
        &mut m,
        Event::SessionModeChanged {
            state: ExecutionState::new(Mode::Edit, false),
        },
    );
    let status = screen_of(&m)
        .lines()
        .nth(28)
        .unwrap_or_default()
        .to_string();
    assert!(status.contains(" edit "), "{status}");
}

#[test]
fn ux_allow_edits_is_not_offered_where_edit_mode_would_not_allow_the_call() {
    let mut m = session(80, 30, "Write the notes");
    asking(&mut m, write_request(false));
    let screen = screen_of(&m);
    assert!(!screen.contains("Allow edits"), "{screen}");
    assert!(screen.contains("│  3. Deny with feedback"), "{screen}");
}

#[test]
fn ux_plan_approval_lists_the_requested_permissions_as_not_granted() {
    let mut m = session(80, 30, "Plan the parser");
    let mut r = request(
        "ExitPlanMode",
        json!({"plan": "# Add the parser\n\n1. Write it\n2. Test it"}),
        "asks you to approve its plan",
    );
    r.kind = RequestKind::Plan;
    r.allowed_prompts = vec![
        AllowedPrompt {
            tool: "Bash".into(),
            prompt: "run the test suite".into(),
        },
        AllowedPrompt {
            tool: "Bash".into(),
            prompt: "install dependencies".into(),
        },
    ];
    asking(&mut m, r);
    let screen = screen_of(&m);
    let heading = row_of(&screen, "Requested permissions (not granted yet):");
    assert!(row_of(&screen, "2. Test it") < heading, "{screen}");
    assert_eq!(row_of(&screen, "- Bash: run the test suite"), heading + 1);
    assert_eq!(row_of(&screen, "- Bash: install dependencies"), heading + 2);
    snapshot("honest_approval_plan_prompts", &screen);
}

// ---- honest cells ---------------------------------------------------------

#[test]
fn ux_a_non_zero_exit_is_a_red_cross_with_its_exit_code() {
    let mut m = session(80, 24, "Run them");
    started(&mut m, "b1", "Bash", json!({"command": "make check"}));
    finished(
        &mut m,
        "b1",
        "Bash",
        "check failed\n\nExit code: 3",
        true,
        Some(3),
    );
    started(&mut m, "b2", "Bash", json!({"command": "false"}));
    finished(&mut m, "b2", "Bash", "\n\nExit code: 1", true, Some(1));
    started(&mut m, "b3", "Bash", json!({"command": "echo fine"}));
    finished(&mut m, "b3", "Bash", "fine\n\nExit code: 0", false, Some(0));
    let screen = screen_of(&m);
    assert!(screen.contains("✗ Bash make check"), "{screen}");
    // Collapsed: how it ended and how much it printed.
    assert!(screen.contains("└ exit 3 · 1 line"), "{screen}");
    assert!(screen.contains("└ exit 1 · no output"), "{screen}");
    assert!(!screen.contains("Exit code"), "{screen}");
    assert!(screen.contains("✓ Bash echo fine"), "{screen}");
    assert_eq!(colour_of(&m, "✗"), Some(Color::Red));
    let first_tool = m
        .cells
        .iter()
        .find(|c| matches!(c, Cell::Tool { .. }))
        .expect("a tool cell");
    assert!(matches!(
        first_tool,
        Cell::Tool {
            status: ToolStatus::Failed,
            ..
        }
    ));
    snapshot("honest_failed_command", &screen);
}

const PLAN: &str =
    "Some words first\n\n```md\n# not this\n```\n\n## Add the parser\n\n1. Write it\n2. Test it";

#[test]
fn ux_a_plan_sent_back_says_so_under_its_heading_and_the_feedback_is_the_users_message() {
    let mut m = session(80, 24, "Plan it");
    started(
        &mut m,
        "p1",
        "ExitPlanMode",
        json!({"plan": PLAN, "allowedPrompts": [{"tool": "Bash", "prompt": "run the tests"}]}),
    );
    finished(
        &mut m,
        "p1",
        "ExitPlanMode",
        "The plan was not approved by the user.",
        true,
        None,
    );
    event(
        &mut m,
        Event::PlanFeedback {
            call_id: "p1".into(),
            text: "use a hand-written lexer".into(),
        },
    );
    event(
        &mut m,
        Event::AssistantMessage {
            text: "Revising the plan.".into(),
        },
    );
    let screen = screen_of(&m);
    assert!(screen.contains("ExitPlanMode Add the parser"), "{screen}");
    assert!(!screen.contains("{\""), "no raw JSON: {screen}");
    assert!(screen.contains("└ plan sent back"), "{screen}");
    assert!(!screen.contains('✓'), "{screen}");
    let feedback = row_of(&screen, "› use a hand-written lexer");
    assert!(row_of(&screen, "plan sent back") < feedback, "{screen}");
    assert!(
        feedback < row_of(&screen, "● Revising the plan."),
        "{screen}"
    );
    snapshot("honest_plan_sent_back", &screen);
}

#[test]
fn ux_a_plainly_denied_plan_is_denied_under_its_heading() {
    let mut m = session(80, 24, "Plan it");
    let input = json!({"plan": "# Add the parser\n\n1. Write it"});
    started(&mut m, "p1", "ExitPlanMode", input.clone());
    event(
        &mut m,
        Event::ToolCallDenied {
            denial: zcode::protocol::Denial {
                call_id: "p1".into(),
                tool: "ExitPlanMode".into(),
                input,
                rule_id: "approval.userDenied".into(),
                reason: "Denied by the user".into(),
                agent: None,
            },
        },
    );
    let screen = screen_of(&m);
    assert!(screen.contains("⊘ ExitPlanMode Add the parser"), "{screen}");
    assert!(screen.contains("└ You denied this"), "{screen}");
    assert!(!screen.contains('✓'), "{screen}");
}

#[test]
fn ux_returned_inputs_go_back_to_the_composer_and_leave_a_notice() {
    let mut m = session(80, 24, "Long task");
    for (id, text) in [("in_1", "first"), ("in_2", "second")] {
        event(
            &mut m,
            Event::InputQueued {
                id: id.into(),
                text: text.into(),
            },
        );
    }
    event(
        &mut m,
        Event::InputsReturned {
            inputs: vec![
                ReturnedInput {
                    id: "in_1".into(),
                    text: "first".into(),
                },
                ReturnedInput {
                    id: "in_2".into(),
                    text: "second".into(),
                },
            ],
        },
    );
    assert_eq!(m.composer.text(), "first\nsecond");
    assert_eq!(
        m.cells.last(),
        Some(&Cell::Notice {
            text: "2 queued messages returned to the prompt".into()
        })
    );
    event(
        &mut m,
        Event::InputsReturned {
            inputs: vec![ReturnedInput {
                id: "in_3".into(),
                text: "third".into(),
            }],
        },
    );
    assert_eq!(
        m.cells.last(),
        Some(&Cell::Notice {
            text: "1 queued message returned to the prompt".into()
        })
    );
}

// ---- expanded output ------------------------------------------------------

#[test]
fn ux_expanded_output_wraps_long_lines_after_a_marker() {
    let mut m = session(60, 20, "Show the log");
    started(&mut m, "c1", "Bash", json!({"command": "cat build.log"}));
    let long = format!("warning: {} END", "x".repeat(100));
    finished(
        &mut m,
        "c1",
        "Bash",
        &format!("{long}\nshort line"),
        false,
        Some(0),
    );
    update(&mut m, ctrl('o'));
    let screen = screen_of(&m);
    assert!(screen.contains("END"), "{screen}");
    assert!(screen.contains("↪"), "{screen}");
    assert!(!screen.contains('…'), "{screen}");
    snapshot("honest_expanded_output_wrapped", &screen);
}

// ---- /compact -------------------------------------------------------------

const SUMMARY: &str = "The user asked for a parser.\n\n- The lexer is done.\n- Tests pass.";

#[test]
fn ux_compaction_is_busy_while_it_runs_and_esc_cancels_it() {
    let mut m = Session::new(80, 24).start();
    type_text(&mut m, "/compact");
    assert_eq!(
        update(&mut m, key(KeyCode::Enter)),
        vec![Cmd::Send(Op::Compact)]
    );
    event(&mut m, Event::CompactionStarted);
    assert!(m.busy);
    let screen = screen_of(&m);
    assert!(screen.contains("compacting the conversation"), "{screen}");
    assert_eq!(
        update(&mut m, key(KeyCode::Esc)),
        vec![Cmd::Send(Op::Interrupt)]
    );
    event(
        &mut m,
        Event::CompactionFinished {
            outcome: CompactionOutcome::Interrupted,
        },
    );
    assert!(!m.busy);
    assert!(screen_of(&m).contains("compaction cancelled"));
}

#[test]
fn ux_the_compaction_summary_is_a_cell_that_expands_with_ctrl_o() {
    let mut m = Session::new(80, 24).start();
    event(&mut m, Event::CompactionStarted);
    event(
        &mut m,
        Event::ContextCompacted {
            kept_messages: 2,
            summary: SUMMARY.into(),
        },
    );
    event(
        &mut m,
        Event::CompactionFinished {
            outcome: CompactionOutcome::Compacted,
        },
    );
    assert!(!m.busy);
    let collapsed = screen_of(&m);
    assert!(
        collapsed.contains("conversation compacted (2 recent messages kept)"),
        "{collapsed}"
    );
    assert!(
        collapsed.contains("└ The user asked for a parser."),
        "{collapsed}"
    );
    assert!(!collapsed.contains("Tests pass."), "{collapsed}");
    assert!(collapsed.contains("(ctrl+o to expand)"), "{collapsed}");
    snapshot("honest_compaction_collapsed", &collapsed);
    update(&mut m, ctrl('o'));
    let expanded = screen_of(&m);
    assert!(expanded.contains("The lexer is done."), "{expanded}");
    assert!(expanded.contains("Tests pass."), "{expanded}");
    snapshot("honest_compaction_expanded", &expanded);
}

#[test]
fn ux_compacting_with_nothing_to_summarise_says_so() {
    let mut m = Session::new(80, 24).start();
    event(&mut m, Event::CompactionStarted);
    event(
        &mut m,
        Event::CompactionFinished {
            outcome: CompactionOutcome::NothingToCompact,
        },
    );
    assert!(!m.busy);
    let screen = screen_of(&m);
    assert!(screen.contains("nothing to compact yet"), "{screen}");
}

// ---- /model ---------------------------------------------------------------

#[test]
fn ux_model_picker_says_context_unknown_rather_than_zero() {
    let mut m = Session::new(80, 16).model("local/small", "Local").start();
    update(
        &mut m,
        Msg::Models(vec![
            ModelChoice {
                reference: "local/small".into(),
                provider_name: "Local".into(),
                context_window: None,
                disabled: None,
            },
            ModelChoice {
                reference: "local/large".into(),
                provider_name: "Local".into(),
                context_window: Some(128_000),
                disabled: None,
            },
        ]),
    );
    let screen = screen_of(&m);
    assert!(screen.contains("Local · context unknown"), "{screen}");
    assert!(screen.contains("Local · 128k context"), "{screen}");
    assert!(!screen.contains("0 context"), "{screen}");
}
