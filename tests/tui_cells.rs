//! Transcript cells that say what happened: a collapsed Bash cell
//! summarises (exit status, line count) and hides only real output; an
//! expanded TodoWrite cell is the list; a running Bash command shows its
//! last lines; a reply cut off by a broken stream is marked and the error
//! is in plain words with a way to send again; denials read as sentences;
//! a single question is submitted by its choice; `/new` keeps the branch.

mod support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use std::time::Instant;
use support::tui::{
    Session, ctrl, event, finished, key, screen_of, snapshot, started, turn_started,
};
use zcode::protocol::{Denial, Event, Op, TurnEnd};
use zcode::tools::ask_user_question::{Question, QuestionOption};
use zcode::tui::cells::{Cell, ToolStatus};
use zcode::tui::widgets::question_panel::{PanelOutcome, QuestionPanel};
use zcode::tui::{Cmd, Model, Msg, update};

fn session(task: &str) -> Model {
    let mut m = Session::new(80, 24).model("local/qwen3", "Local").start();
    update(&mut m, Msg::Tick(Instant::now()));
    turn_started(&mut m, 1, task);
    m
}

fn tool_detail(m: &Model, id: &str) -> (ToolStatus, String) {
    m.cells
        .iter()
        .find_map(|c| match c {
            Cell::Tool {
                call_id,
                status,
                detail,
                ..
            } if call_id == id => Some((*status, detail.clone())),
            _ => None,
        })
        .expect("the call's cell")
}

#[test]
fn collapsed_bash_cell_hides_real_output_only() {
    let mut m = session("Build it");
    started(&mut m, "b1", "Bash", json!({"command": "cargo build"}));
    finished(
        &mut m,
        "b1",
        "Bash",
        "Compiling a\nCompiling b\nFinished\n\nExit code: 0",
        false,
        Some(0),
    );
    started(&mut m, "b2", "Bash", json!({"command": "true"}));
    finished(
        &mut m,
        "b2",
        "Bash",
        "(no output)\n\nExit code: 0",
        false,
        Some(0),
    );
    started(&mut m, "b3", "Bash", json!({"command": "make check"}));
    finished(
        &mut m,
        "b3",
        "Bash",
        "check failed\n\nExit code: 3",
        true,
        Some(3),
    );
    let screen = screen_of(&m);
    assert!(
        screen.contains("└ exit 0 · 3 lines (ctrl+o to expand)"),
        "{screen}"
    );
    // Nothing to expand: no hint, and never a hidden "Exit code" line.
    assert!(screen.contains("└ exit 0 · no output "), "{screen}");
    assert!(
        screen.contains("└ exit 3 · 1 line (ctrl+o to expand)"),
        "{screen}"
    );
    assert!(!screen.contains("Compiling"), "collapsed: {screen}");
    assert!(!screen.contains("+1 line"), "{screen}");
    snapshot("cells_bash_collapsed", &screen);
    update(&mut m, ctrl('o'));
    let screen = screen_of(&m);
    assert!(screen.contains("Compiling a"), "{screen}");
    assert!(screen.contains("check failed"), "{screen}");
    assert!(
        !screen.contains("Exit code: 0"),
        "said by the summary: {screen}"
    );
    snapshot("cells_bash_expanded", &screen);
}

#[test]
fn expanded_todowrite_cell_shows_the_list_not_json() {
    let mut m = session("Plan the work");
    started(
        &mut m,
        "t1",
        "TodoWrite",
        json!({"todos": [{"content": "Write the parser"}, {"content": "Test it"}, {"content": "Ship"}]}),
    );
    let output = concat!(
        "Todo list updated: 3 items: 1 pending, 1 in progress, 1 completed.\n",
        r#"{"oldTodos":[],"todos":["#,
        r#"{"content":"Write the parser","status":"completed","priority":"high"},"#,
        r#"{"content":"Test it","status":"in_progress","priority":"medium"},"#,
        r#"{"content":"Ship","status":"pending","priority":"low"}],"#,
        r#""summary":{"pending":1,"in_progress":1,"completed":1,"total":3}}"#
    );
    finished(&mut m, "t1", "TodoWrite", output, false, None);
    update(&mut m, ctrl('o'));
    let screen = screen_of(&m);
    assert!(!screen.contains("{\""), "no raw JSON: {screen}");
    assert!(screen.contains("✓ Write the parser"), "{screen}");
    assert!(screen.contains("▶ Test it"), "{screen}");
    assert!(screen.contains("☐ Ship"), "{screen}");
    snapshot("cells_todowrite_expanded", &screen);
}

#[test]
fn live_bash_output_shows_the_last_lines_while_it_runs() {
    let mut m = session("Run the tests");
    started(&mut m, "b1", "Bash", json!({"command": "cargo test"}));
    for i in 1..=12 {
        event(
            &mut m,
            Event::ToolOutputDelta {
                call_id: "b1".into(),
                text: format!("test case_{i} ... ok\n"),
            },
        );
    }
    event(
        &mut m,
        Event::ToolOutputDelta {
            call_id: "b1".into(),
            text: "progress 10%\rprogress 90%".into(),
        },
    );
    let screen = screen_of(&m);
    assert!(screen.contains("◌ Bash cargo test"), "{screen}");
    assert!(screen.contains("test case_12 ... ok"), "{screen}");
    assert!(screen.contains("progress 90%"), "{screen}");
    assert!(!screen.contains("progress 10%"), "redrawn: {screen}");
    assert!(!screen.contains("case_8 "), "only the last lines: {screen}");
    snapshot("cells_bash_live_output", &screen);
    // The result replaces what arrived while it ran.
    finished(
        &mut m,
        "b1",
        "Bash",
        "all passed\n\nExit code: 0",
        false,
        Some(0),
    );
    let screen = screen_of(&m);
    assert!(!screen.contains("case_12"), "{screen}");
    assert!(screen.contains("└ exit 0 · 1 line"), "{screen}");
    // A delta arriving late never writes over the result.
    event(
        &mut m,
        Event::ToolOutputDelta {
            call_id: "b1".into(),
            text: "late\n".into(),
        },
    );
    assert!(!screen_of(&m).contains("late"));
}

#[test]
fn denial_texts_in_plain_words() {
    let mut m = session("Clean up");
    for (id, rule_id, reason) in [
        ("d1", "approval.userDenied", "Denied by the user"),
        (
            "d2",
            "rule.project.deny",
            "Denied by project rule Bash(rm:*)",
        ),
    ] {
        started(&mut m, id, "Bash", json!({"command": "rm -rf target"}));
        event(
            &mut m,
            Event::ToolCallDenied {
                denial: Denial {
                    call_id: id.into(),
                    tool: "Bash".into(),
                    input: json!({"command": "rm -rf target"}),
                    rule_id: rule_id.into(),
                    reason: reason.into(),
                    agent: None,
                },
            },
        );
    }
    assert_eq!(
        tool_detail(&m, "d1"),
        (ToolStatus::Denied, "You denied this".into())
    );
    assert_eq!(
        tool_detail(&m, "d2"),
        (
            ToolStatus::Denied,
            "Denied by rule Bash(rm:*) saved for this project".into()
        )
    );
    let screen = screen_of(&m);
    assert!(!screen.contains("Denied in TUI"), "{screen}");
}

fn one_question() -> Question {
    Question {
        question: "Which CI provider?".into(),
        header: "CI".into(),
        options: ["GitHub Actions", "GitLab CI"]
            .iter()
            .map(|l| QuestionOption {
                label: l.to_string(),
                description: String::new(),
                preview: None,
            })
            .collect(),
        multi_select: false,
    }
}

fn press(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn single_question_is_submitted_by_its_choice() {
    // A digit answers and submits: no review page.
    let mut panel = QuestionPanel::new(vec![one_question()]);
    let outcome = panel.handle_key(press(KeyCode::Char('2')));
    match outcome {
        Some(PanelOutcome::Submit(reply)) => {
            let json = serde_json::to_value(&reply).unwrap();
            assert_eq!(json["answers"]["Which CI provider?"], "GitLab CI");
        }
        other => panic!("submitted by the choice, got {other:?}"),
    }
    // Enter on the highlighted option does the same.
    let mut panel = QuestionPanel::new(vec![one_question()]);
    assert!(matches!(
        panel.handle_key(press(KeyCode::Enter)),
        Some(PanelOutcome::Submit(_))
    ));
    // The help names the digits it has, and that Enter submits.
    let lines = panel_text(&QuestionPanel::new(vec![one_question()]));
    assert!(lines.contains("1-3 choose"), "{lines}");
    assert!(lines.contains("enter submit"), "{lines}");
    assert!(!lines.contains("1-9"), "{lines}");
    // Two questions still end on the review page.
    let mut two = QuestionPanel::new(vec![one_question(), {
        let mut q = one_question();
        q.question = "Which runner?".into();
        q
    }]);
    assert!(two.handle_key(press(KeyCode::Char('1'))).is_none());
    assert!(two.handle_key(press(KeyCode::Char('1'))).is_none());
    assert!(two.handle_key(press(KeyCode::Enter)).is_some());
}

fn panel_text(panel: &QuestionPanel) -> String {
    let theme = zcode::tui::theme::Theme::colored();
    panel
        .lines(80, &theme)
        .iter()
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn single_question_footer_does_not_offer_digits_it_lacks() {
    let mut m = session("Set up CI");
    let request = zcode::protocol::PermissionRequest {
        request_id: "perm_q".into(),
        kind: zcode::protocol::RequestKind::Question,
        call_id: "q1".into(),
        tool: "AskUserQuestion".into(),
        input: json!({"questions": [{
            "question": "Which CI provider?",
            "header": "CI",
            "options": [
                {"label": "GitHub Actions", "description": "hosted"},
                {"label": "GitLab CI", "description": "self-hosted"}
            ],
            "multiSelect": false
        }]}),
        rule_id: "tool.requiresUserInteraction".into(),
        reason: "asks you".into(),
        suggestions: Vec::new(),
        always: zcode::protocol::AlwaysOption::None,
        full_access_available: false,
        description: None,
        edit_mode_available: false,
        allowed_prompts: Vec::new(),
        preview: None,
        agent: None,
    };
    started(&mut m, "q1", "AskUserQuestion", request.input.clone());
    event(&mut m, Event::PermissionRequested { request });
    let screen = screen_of(&m);
    assert!(!screen.contains("1-9"), "{screen}");
    assert!(screen.contains("1-3 choose"), "{screen}");
    snapshot("cells_single_question", &screen);
    let cmds = update(&mut m, key(KeyCode::Char('1')));
    let answered = cmds.iter().any(|c| {
        matches!(c, Cmd::Send(Op::PermissionReply { request_id, .. }) if request_id == "perm_q")
    });
    assert!(answered, "one key answers a single question: {cmds:?}");
}

#[test]
fn new_session_keeps_the_git_branch_in_the_status_line() {
    let mut m = session("hello");
    m.git_branch = Some("feature-x".into());
    assert!(screen_of(&m).contains("@feature-x"), "{}", screen_of(&m));
    update(&mut m, Msg::SessionReplaced);
    event(
        &mut m,
        Event::SessionStarted {
            session_id: "sess_2".into(),
            workspace: "/home/u/project".into(),
            model: "local/qwen3".into(),
            provider: "Local".into(),
            offline_demo: false,
            state: Default::default(),
            resumed: false,
            context_window: None,
            sandbox_notice: None,
            mode_source: Default::default(),
        },
    );
    let screen = screen_of(&m);
    assert!(screen.contains("@feature-x"), "{screen}");
}

#[test]
fn broken_stream_marks_the_reply_cut_off_and_offers_to_send_again() {
    let mut m = session("Explain the parser");
    event(
        &mut m,
        Event::AssistantDelta {
            text: "The parser reads tokens and".into(),
        },
    );
    event(
        &mut m,
        Event::Error {
            message: "local: the stream broke off: error decoding response body".into(),
        },
    );
    event(
        &mut m,
        Event::TurnFinished {
            end: TurnEnd::Failed,
            answer: None,
        },
    );
    let screen = screen_of(&m);
    assert!(
        !screen.contains('▌'),
        "no cursor on a cut-off reply: {screen}"
    );
    assert!(screen.contains("reply cut off here"), "{screen}");
    assert!(
        screen.contains("The connection to the model broke mid-reply"),
        "{screen}"
    );
    assert!(!screen.contains("error decoding"), "{screen}");
    assert!(
        screen.contains("press Enter on an empty prompt"),
        "{screen}"
    );
    snapshot("cells_broken_stream", &screen);
    let cmds = update(&mut m, key(KeyCode::Enter));
    assert_eq!(
        cmds,
        vec![Cmd::Send(Op::UserInput {
            text: "Explain the parser".into()
        })]
    );
}
