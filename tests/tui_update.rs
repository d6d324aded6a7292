//! `update` without a terminal: key sequences and runtime events in, the
//! right `Cmd`s and model changes out (TUI-1).

mod support;

use crossterm::event::{KeyCode, KeyModifiers};
use serde_json::json;
use support::tui::{ctrl, key, key_mod, type_text};
use zcode::permission::mode::{ExecutionState, Mode, ModeChoice};
use zcode::permission::rules::Rule;
use zcode::protocol::{
    AlwaysOption, Event, Op, PermissionReply, PermissionRequest, RequestKind, ResolvedBy, TurnEnd,
};
use zcode::tui::cells::{Cell, ToolStatus};
use zcode::tui::{Cmd, Model, Msg, update};

fn bash_request(id: &str, always: AlwaysOption, full: bool) -> PermissionRequest {
    PermissionRequest {
        request_id: id.to_string(),
        kind: RequestKind::Tool,
        call_id: format!("call_{id}"),
        tool: "Bash".into(),
        input: json!({"command": "cargo test"}),
        rule_id: "ask.default".into(),
        reason: "Bash asks before running commands".into(),
        suggestions: vec![Rule {
            tool_name: "Bash".into(),
            rule_content: Some("cargo test:*".into()),
        }],
        always,
        full_access_available: full,
        description: None,
        edit_mode_available: false,
        allowed_prompts: Vec::new(),
        preview: None,
        agent: None,
    }
}

fn busy_model() -> Model {
    let mut m = Model::new(80, 24);
    update(
        &mut m,
        Msg::Runtime(Event::TurnStarted {
            turn: 1,
            text: "hi".into(),
        }),
    );
    m
}

#[test]
fn enter_sends_the_composer_text_and_clears_it() {
    let mut m = Model::new(80, 24);
    type_text(&mut m, "fix the bug");
    let cmds = update(&mut m, key(KeyCode::Enter));
    assert_eq!(
        cmds,
        vec![Cmd::Send(Op::UserInput {
            text: "fix the bug".into()
        })]
    );
    assert!(m.composer.is_empty());
    assert!(m.busy);
    assert_eq!(m.history, vec!["fix the bug".to_string()]);
}

#[test]
fn enter_on_an_empty_composer_sends_nothing() {
    let mut m = Model::new(80, 24);
    type_text(&mut m, "   ");
    assert!(update(&mut m, key(KeyCode::Enter)).is_empty());
}

#[test]
fn shift_enter_ctrl_j_and_alt_enter_insert_newlines() {
    let mut m = Model::new(80, 24);
    type_text(&mut m, "a");
    assert!(update(&mut m, key_mod(KeyCode::Enter, KeyModifiers::SHIFT)).is_empty());
    type_text(&mut m, "b");
    assert!(update(&mut m, ctrl('j')).is_empty());
    type_text(&mut m, "c");
    assert!(update(&mut m, key_mod(KeyCode::Enter, KeyModifiers::ALT)).is_empty());
    type_text(&mut m, "d");
    assert_eq!(m.composer.text(), "a\nb\nc\nd");
    assert_eq!(
        update(&mut m, key(KeyCode::Enter)),
        vec![Cmd::Send(Op::UserInput {
            text: "a\nb\nc\nd".into()
        })]
    );
}

#[test]
fn enter_while_busy_still_sends_and_the_queue_shows_it() {
    let mut m = busy_model();
    type_text(&mut m, "next");
    assert_eq!(
        update(&mut m, key(KeyCode::Enter)),
        vec![Cmd::Send(Op::UserInput {
            text: "next".into()
        })]
    );
    update(
        &mut m,
        Msg::Runtime(Event::InputQueued {
            id: "in_1".into(),
            text: "next".into(),
        }),
    );
    assert_eq!(m.queued, vec!["next".to_string()]);
    update(
        &mut m,
        Msg::Runtime(Event::TurnFinished {
            end: TurnEnd::Completed,
            answer: None,
        }),
    );
    update(
        &mut m,
        Msg::Runtime(Event::TurnStarted {
            turn: 2,
            text: "next".into(),
        }),
    );
    assert!(m.queued.is_empty());
    assert!(matches!(m.cells.last(), Some(Cell::User { text }) if text == "next"));
}

#[test]
fn shift_tab_three_times_cycles_build_edit_plan_and_back_never_yolo() {
    let mut m = Model::new(80, 24);
    m.state = ExecutionState::new(Mode::Build, false);
    let mut sent = Vec::new();
    for _ in 0..3 {
        for cmd in update(&mut m, key(KeyCode::BackTab)) {
            match cmd {
                Cmd::Send(Op::SetMode { choice }) => sent.push(choice),
                other => panic!("unexpected {other:?}"),
            }
        }
    }
    assert_eq!(
        sent,
        vec![
            ModeChoice::Mode(Mode::Edit),
            ModeChoice::Plan,
            ModeChoice::Mode(Mode::Build),
        ]
    );
    assert_eq!(m.state, ExecutionState::new(Mode::Build, false));
}

#[test]
fn tab_with_shift_also_cycles_modes() {
    let mut m = Model::new(80, 24);
    let cmds = update(&mut m, key_mod(KeyCode::Tab, KeyModifiers::SHIFT));
    assert_eq!(
        cmds,
        vec![Cmd::Send(Op::SetMode {
            choice: ModeChoice::Mode(Mode::Edit)
        })]
    );
}

#[test]
fn session_mode_changed_sets_the_shown_state() {
    let mut m = Model::new(80, 24);
    let state = ExecutionState::new(Mode::Yolo, true);
    update(&mut m, Msg::Runtime(Event::SessionModeChanged { state }));
    assert_eq!(m.state, state);
}

#[test]
fn esc_while_busy_interrupts() {
    let mut m = busy_model();
    assert_eq!(
        update(&mut m, key(KeyCode::Esc)),
        vec![Cmd::Send(Op::Interrupt)]
    );
}

#[test]
fn ctrl_c_while_busy_interrupts_and_never_quits() {
    let mut m = busy_model();
    assert_eq!(update(&mut m, ctrl('c')), vec![Cmd::Send(Op::Interrupt)]);
    assert_eq!(update(&mut m, ctrl('c')), vec![Cmd::Send(Op::Interrupt)]);
}

#[test]
fn esc_while_idle_does_nothing() {
    let mut m = Model::new(80, 24);
    assert!(update(&mut m, key(KeyCode::Esc)).is_empty());
}

#[test]
fn ctrl_c_twice_on_an_empty_idle_composer_quits() {
    let mut m = Model::new(80, 24);
    assert!(update(&mut m, ctrl('c')).is_empty());
    assert!(m.quit_armed);
    assert_eq!(update(&mut m, ctrl('c')), vec![Cmd::Quit]);
}

#[test]
fn ctrl_c_clears_a_non_empty_composer_first() {
    let mut m = Model::new(80, 24);
    type_text(&mut m, "draft");
    assert!(update(&mut m, ctrl('c')).is_empty());
    assert!(m.composer.is_empty());
    assert!(!m.quit_armed);
    assert!(update(&mut m, ctrl('c')).is_empty());
    assert_eq!(update(&mut m, ctrl('c')), vec![Cmd::Quit]);
}

#[test]
fn another_key_between_ctrl_c_presses_disarms_quit() {
    let mut m = Model::new(80, 24);
    update(&mut m, ctrl('c'));
    update(&mut m, key(KeyCode::Left));
    assert!(update(&mut m, ctrl('c')).is_empty());
}

#[test]
fn up_and_down_recall_history_on_an_empty_composer() {
    let mut m = Model::new(80, 24);
    for text in ["one", "two"] {
        type_text(&mut m, text);
        update(&mut m, key(KeyCode::Enter));
    }
    update(&mut m, key(KeyCode::Up));
    assert_eq!(m.composer.text(), "two");
    update(&mut m, key(KeyCode::Up));
    assert_eq!(m.composer.text(), "one");
    update(&mut m, key(KeyCode::Down));
    assert_eq!(m.composer.text(), "two");
    update(&mut m, key(KeyCode::Down));
    assert_eq!(m.composer.text(), "");
}

#[test]
fn up_on_a_typed_composer_does_not_replace_it() {
    let mut m = Model::new(80, 24);
    type_text(&mut m, "one");
    update(&mut m, key(KeyCode::Enter));
    type_text(&mut m, "draft");
    update(&mut m, key(KeyCode::Up));
    assert_eq!(m.composer.text(), "draft");
}

#[test]
fn paste_inserts_text_with_normalised_newlines() {
    let mut m = Model::new(80, 24);
    update(&mut m, Msg::Paste("a\r\nb\rc".into()));
    assert_eq!(m.composer.text(), "a\nb\nc");
}

#[test]
fn page_keys_scroll_and_end_returns_to_the_bottom() {
    let mut m = Model::new(80, 24);
    for i in 0..100 {
        let message = format!("notice {i}");
        update(&mut m, Msg::Runtime(Event::Notice { message }));
    }
    update(&mut m, key(KeyCode::PageUp));
    assert!(m.scroll > 0);
    update(&mut m, key(KeyCode::End));
    assert_eq!(m.scroll, 0);
    update(&mut m, key(KeyCode::Home));
    // The top: 199 rows less the 19 the transcript shows.
    assert_eq!(m.scroll, 180);
    update(&mut m, key(KeyCode::PageDown));
    assert!(m.scroll < 180);
}

#[test]
fn deltas_accumulate_and_the_message_finalises_the_cell() {
    let mut m = busy_model();
    for part in ["Hel", "lo"] {
        update(
            &mut m,
            Msg::Runtime(Event::AssistantDelta { text: part.into() }),
        );
    }
    assert_eq!(
        m.cells.last(),
        Some(&Cell::Assistant {
            text: "Hello".into(),
            streaming: true
        })
    );
    update(
        &mut m,
        Msg::Runtime(Event::AssistantMessage {
            text: "Hello!".into(),
        }),
    );
    assert_eq!(
        m.cells.last(),
        Some(&Cell::Assistant {
            text: "Hello!".into(),
            streaming: false
        })
    );
}

#[test]
fn tool_cells_follow_started_finished_and_denied() {
    let mut m = busy_model();
    for id in ["a", "b", "c"] {
        update(
            &mut m,
            Msg::Runtime(Event::ToolCallStarted {
                call_id: id.into(),
                tool: "Bash".into(),
                input: json!({"command": "ls"}),
            }),
        );
    }
    update(
        &mut m,
        Msg::Runtime(Event::ToolCallFinished {
            call_id: "a".into(),
            tool: "Bash".into(),
            output: "ok\nmore".into(),
            is_error: false,
            diff: None,
            exit_code: None,
        }),
    );
    update(
        &mut m,
        Msg::Runtime(Event::ToolCallFinished {
            call_id: "b".into(),
            tool: "Bash".into(),
            output: "boom".into(),
            is_error: true,
            diff: None,
            exit_code: None,
        }),
    );
    update(
        &mut m,
        Msg::Runtime(Event::ToolCallDenied {
            denial: zcode::protocol::Denial {
                call_id: "c".into(),
                tool: "Bash".into(),
                input: json!({"command": "ls"}),
                rule_id: "user".into(),
                reason: "Denied in TUI".into(),
                agent: None,
            },
        }),
    );
    let statuses: Vec<(ToolStatus, String)> = m
        .cells
        .iter()
        .filter_map(|c| match c {
            Cell::Tool { status, detail, .. } => Some((*status, detail.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        statuses,
        vec![
            (ToolStatus::Done, "ok".into()),
            (ToolStatus::Failed, "boom".into()),
            (ToolStatus::Denied, "Denied in TUI".into()),
        ]
    );
}

#[test]
fn turn_finished_clears_busy() {
    let mut m = busy_model();
    update(
        &mut m,
        Msg::Runtime(Event::TurnFinished {
            end: TurnEnd::Completed,
            answer: None,
        }),
    );
    assert!(!m.busy);
    assert!(m.turn_started.is_none());
}

fn with_requests(requests: Vec<PermissionRequest>) -> Model {
    let mut m = busy_model();
    for request in requests {
        update(&mut m, Msg::Runtime(Event::PermissionRequested { request }));
    }
    m
}

fn reply_for(m: &mut Model, msg: Msg) -> (String, PermissionReply) {
    match update(m, msg).as_slice() {
        [Cmd::Send(Op::PermissionReply { request_id, reply })] => {
            (request_id.clone(), reply.clone())
        }
        other => panic!("expected one reply, got {other:?}"),
    }
}

#[test]
fn number_keys_choose_the_matching_option() {
    let cases = [
        ('1', AlwaysOption::Project, true, "AllowOnce"),
        ('2', AlwaysOption::Project, true, "AlwaysAllowProject"),
        ('2', AlwaysOption::Session, true, "AlwaysAllowSession"),
        ('3', AlwaysOption::Project, true, "FullAccess"),
        ('5', AlwaysOption::Project, true, "Deny"),
        ('2', AlwaysOption::None, true, "FullAccess"),
        ('3', AlwaysOption::None, false, "Deny"),
    ];
    for (digit, always, full, expected) in cases {
        let mut m = with_requests(vec![bash_request("perm_1", always, full)]);
        let (id, reply) = reply_for(&mut m, key(KeyCode::Char(digit)));
        assert_eq!(id, "perm_1");
        let name = match &reply {
            PermissionReply::AllowOnce => "AllowOnce",
            PermissionReply::AlwaysAllowProject { rules } => {
                assert_eq!(rules, &bash_request("x", always, full).suggestions);
                "AlwaysAllowProject"
            }
            PermissionReply::AlwaysAllowSession => "AlwaysAllowSession",
            PermissionReply::FullAccess => "FullAccess",
            PermissionReply::Deny { feedback: None } => "Deny",
            other => panic!("unexpected {other:?}"),
        };
        assert_eq!(name, expected, "key {digit} with {always:?}/{full}");
    }
}

#[test]
fn a_number_without_an_option_does_nothing() {
    let mut m = with_requests(vec![bash_request("perm_1", AlwaysOption::None, false)]);
    assert!(update(&mut m, key(KeyCode::Char('4'))).is_empty());
    assert_eq!(m.approvals.len(), 1);
}

#[test]
fn arrows_and_enter_choose_an_option() {
    let mut m = with_requests(vec![bash_request("perm_1", AlwaysOption::Project, false)]);
    update(&mut m, key(KeyCode::Down));
    assert_eq!(m.panel().map(|p| p.selected), Some(1));
    let (_, reply) = reply_for(&mut m, key(KeyCode::Enter));
    assert!(matches!(reply, PermissionReply::AlwaysAllowProject { .. }));
}

#[test]
fn keys_on_an_approval_do_not_reach_the_composer() {
    let mut m = with_requests(vec![bash_request("perm_1", AlwaysOption::Project, false)]);
    update(&mut m, key(KeyCode::Char('x')));
    assert!(m.composer.is_empty());
}

#[test]
fn esc_on_an_approval_denies_it() {
    let mut m = with_requests(vec![bash_request("perm_1", AlwaysOption::Project, true)]);
    let (id, reply) = reply_for(&mut m, key(KeyCode::Esc));
    assert_eq!(id, "perm_1");
    assert_eq!(reply, PermissionReply::Deny { feedback: None });
}

#[test]
fn answering_moves_to_the_next_request() {
    let mut m = with_requests(vec![
        bash_request("perm_1", AlwaysOption::Project, true),
        bash_request("perm_2", AlwaysOption::Project, true),
    ]);
    let (first, _) = reply_for(&mut m, key(KeyCode::Char('1')));
    let (second, _) = reply_for(&mut m, key(KeyCode::Char('1')));
    assert_eq!((first.as_str(), second.as_str()), ("perm_1", "perm_2"));
    assert!(m.approvals.is_empty());
}

#[test]
fn permission_resolved_pops_the_queue() {
    let mut m = with_requests(vec![
        bash_request("perm_1", AlwaysOption::Project, true),
        bash_request("perm_2", AlwaysOption::Project, true),
    ]);
    update(
        &mut m,
        Msg::Runtime(Event::PermissionResolved {
            request_id: "perm_1".into(),
            by: ResolvedBy::Hook,
        }),
    );
    assert_eq!(m.approvals.len(), 1);
    assert_eq!(m.approvals[0].request_id, "perm_2");
    update(
        &mut m,
        Msg::Runtime(Event::PermissionResolved {
            request_id: "perm_unknown".into(),
            by: ResolvedBy::Cancelled,
        }),
    );
    assert_eq!(m.approvals.len(), 1);
}

#[test]
fn plan_approval_offers_approve_and_deny() {
    let mut request = bash_request("perm_p", AlwaysOption::None, false);
    request.kind = RequestKind::Plan;
    request.tool = "ExitPlanMode".into();
    request.input = json!({"plan": "1. do it"});
    let mut m = with_requests(vec![request.clone()]);
    let (_, reply) = reply_for(&mut m, key(KeyCode::Char('1')));
    assert_eq!(reply, PermissionReply::AllowOnce);
    let mut m = with_requests(vec![request.clone()]);
    let (_, reply) = reply_for(&mut m, key(KeyCode::Char('3')));
    assert_eq!(reply, PermissionReply::Deny { feedback: None });
    // PLAN-10: "Give feedback" opens a field; Enter sends it as feedback.
    let mut m = with_requests(vec![request]);
    assert!(update(&mut m, key(KeyCode::Char('2'))).is_empty());
    type_text(&mut m, "use sqlite");
    let (_, reply) = reply_for(&mut m, key(KeyCode::Enter));
    assert_eq!(
        reply,
        PermissionReply::PlanFeedback {
            feedback: "use sqlite".into()
        }
    );
}

#[test]
fn appr7_deny_with_feedback_from_the_tool_panel() {
    let mut m = with_requests(vec![bash_request("perm_1", AlwaysOption::Project, false)]);
    // Allow once, always, feedback, deny.
    assert!(update(&mut m, key(KeyCode::Char('3'))).is_empty());
    type_text(&mut m, "use nextest");
    // Esc leaves the field without answering; the request is still there.
    assert!(update(&mut m, key(KeyCode::Esc)).is_empty());
    assert_eq!(m.approvals.len(), 1);
    assert!(update(&mut m, key(KeyCode::Char('3'))).is_empty());
    type_text(&mut m, "use nextest");
    let (_, reply) = reply_for(&mut m, key(KeyCode::Enter));
    assert_eq!(
        reply,
        PermissionReply::Deny {
            feedback: Some("use nextest".into())
        }
    );
}

#[test]
fn esc_on_a_question_denies_it() {
    let mut request = bash_request("perm_q", AlwaysOption::None, false);
    request.kind = RequestKind::Question;
    let mut m = with_requests(vec![request]);
    let (_, reply) = reply_for(&mut m, key(KeyCode::Esc));
    assert_eq!(reply, PermissionReply::Deny { feedback: None });
}

#[test]
fn ctrl_z_suspends() {
    let mut m = Model::new(80, 24);
    assert_eq!(update(&mut m, ctrl('z')), vec![Cmd::Suspend]);
}

#[test]
fn updates_mark_the_model_dirty_and_ticks_only_when_busy() {
    let mut m = Model::new(80, 24);
    m.dirty = false;
    update(&mut m, Msg::Tick(std::time::Instant::now()));
    assert!(!m.dirty);
    update(&mut m, Msg::Resize(100, 30));
    assert!(m.dirty);
    assert_eq!((m.width, m.height), (100, 30));
    let mut m = busy_model();
    m.dirty = false;
    update(&mut m, Msg::Tick(std::time::Instant::now()));
    assert!(m.dirty);
}

fn question_request(multi: bool) -> PermissionRequest {
    let mut request = bash_request("perm_q", AlwaysOption::None, false);
    request.kind = RequestKind::Question;
    request.tool = "AskUserQuestion".into();
    request.input = serde_json::json!({"questions": [{
        "question": "Which features?",
        "header": "Features",
        "multiSelect": multi,
        "options": [
            {"label": "Alpha", "description": "a"},
            {"label": "Beta", "description": "b"},
            {"label": "Gamma", "description": "c"},
            {"label": "Delta", "description": "d"}
        ]
    }]});
    request
}

fn answers(reply: &PermissionReply) -> serde_json::Value {
    match reply {
        PermissionReply::Answers { answers, .. } => serde_json::Value::Object(answers.clone()),
        other => panic!("expected answers, got {other:?}"),
    }
}

#[test]
fn ask6_multi_select_keys_through_update_yield_the_chosen_labels() {
    let mut m = with_requests(vec![question_request(true)]);
    for k in [
        KeyCode::Char('j'),
        KeyCode::Char('j'),
        KeyCode::Char(' '),
        KeyCode::Char('k'),
        KeyCode::Char(' '),
    ] {
        assert!(update(&mut m, key(k)).is_empty(), "{k:?}");
    }
    // One question: Enter confirms the choice and submits it.
    let (id, reply) = reply_for(&mut m, key(KeyCode::Enter));
    assert_eq!(id, "perm_q");
    assert_eq!(
        answers(&reply),
        serde_json::json!({"Which features?": "Beta, Gamma"})
    );
    assert!(m.approvals.is_empty() && m.approval.is_none());
}

#[test]
fn ask6_skip_then_enter_yields_no_answers() {
    let mut m = with_requests(vec![question_request(false)]);
    assert!(update(&mut m, key(KeyCode::Char('s'))).is_empty());
    let (_, reply) = reply_for(&mut m, key(KeyCode::Enter));
    assert_eq!(answers(&reply), serde_json::json!({}));
}

#[test]
fn ask6_digit_chooses_and_esc_rejects() {
    let mut m = with_requests(vec![question_request(false)]);
    // A single question is submitted by its choice.
    let (_, reply) = reply_for(&mut m, key(KeyCode::Char('2')));
    assert_eq!(
        answers(&reply),
        serde_json::json!({"Which features?": "Beta"})
    );
    let mut m = with_requests(vec![question_request(false)]);
    let (_, reply) = reply_for(&mut m, key(KeyCode::Esc));
    assert_eq!(reply, PermissionReply::Deny { feedback: None });
}

/// A long plan is rendered once per plan and width by `update`, not for
/// every frame; the view's rows are the same as a fresh render (PLAN-10).
#[test]
fn plan10_the_plan_is_rendered_once_per_plan_and_width() {
    use zcode::tui::layout::approval::plan_markdown;
    use zcode::tui::theme::Theme;
    let mut m = support::tui::session(80, 24);
    let mut request = support::tui::bash_request("perm_plan");
    request.kind = RequestKind::Plan;
    request.tool = "ExitPlanMode".into();
    request.input = json!({"plan": "# Plan\n\n1. Split `update`.\n2. Test **each** part."});
    request.always = AlwaysOption::None;
    request.full_access_available = false;
    update(
        &mut m,
        Msg::Runtime(Event::PermissionRequested {
            request: request.clone(),
        }),
    );
    let rows = m
        .panel()
        .and_then(|p| p.plan_rows.clone())
        .expect("the plan is rendered");
    assert_eq!((rows.request_id.as_str(), rows.width), ("perm_plan", 78));
    assert_eq!(rows.lines, plan_markdown(&request, 78, &Theme::new(false)));
    update(&mut m, Msg::Resize(60, 24));
    let rows = m
        .panel()
        .and_then(|p| p.plan_rows.clone())
        .expect("rendered again");
    assert_eq!(rows.width, 58);
    assert_eq!(rows.lines, plan_markdown(&request, 58, &Theme::new(false)));
    // Approved: nothing is kept.
    update(&mut m, key(KeyCode::Enter));
    assert!(m.approval.is_none());
}

// ---- TUI-2: work proportional to what is new ----------------------------

#[test]
fn tui2_a_delta_marks_only_the_streaming_cell_changed() {
    let mut m = busy_model();
    for i in 0..50 {
        m.cells.push(Cell::Notice {
            text: format!("notice {i}"),
        });
    }
    update(
        &mut m,
        Msg::Runtime(Event::AssistantDelta { text: "a".into() }),
    );
    assert_eq!(m.cells.changes(), None, "update settles the layout");
    let last = m.cells.len() - 1;
    zcode::tui::step(
        &mut m,
        Msg::Runtime(Event::AssistantDelta { text: "b".into() }),
    );
    assert_eq!(m.cells.changes(), Some(last));
}

#[test]
fn tui2_a_turn_end_marks_only_the_tools_it_cuts_off() {
    let mut m = busy_model();
    update(
        &mut m,
        Msg::Runtime(Event::ToolCallStarted {
            call_id: "done".into(),
            tool: "Bash".into(),
            input: json!({"command": "ls"}),
        }),
    );
    update(
        &mut m,
        Msg::Runtime(Event::ToolCallFinished {
            call_id: "done".into(),
            tool: "Bash".into(),
            output: "a".into(),
            is_error: false,
            diff: None,
            exit_code: None,
        }),
    );
    for i in 0..20 {
        m.cells.push(Cell::Notice {
            text: format!("n {i}"),
        });
    }
    update(
        &mut m,
        Msg::Runtime(Event::ToolCallStarted {
            call_id: "cut".into(),
            tool: "Bash".into(),
            input: json!({"command": "sleep 9"}),
        }),
    );
    let cut = m.cells.len() - 1;
    zcode::tui::step(
        &mut m,
        Msg::Runtime(Event::TurnFinished {
            end: TurnEnd::Interrupted,
            answer: None,
        }),
    );
    // The cut-off call and the "interrupted" notice after it, nothing older.
    assert_eq!(m.cells.changes(), Some(cut));
    assert!(matches!(
        m.cells[cut],
        Cell::Tool {
            status: ToolStatus::Failed,
            ..
        }
    ));
}

#[test]
fn tui2_stepping_a_burst_then_settling_once_lays_out_what_update_would() {
    let mut stepped = busy_model();
    let mut updated = busy_model();
    let text = "# Title\n\nSome **bold** text\n\n```rust\nfn main() {}\n```\n\n- a\n- b\n\nEnd";
    for piece in text.split_inclusive(' ') {
        let msg = || Msg::Runtime(Event::AssistantDelta { text: piece.into() });
        zcode::tui::step(&mut stepped, msg());
        update(&mut updated, msg());
    }
    zcode::tui::settle(&mut stepped);
    let a = support::tui::screen(&stepped, 80, 24);
    let b = support::tui::screen(&updated, 80, 24);
    assert_eq!(a, b);
    assert!(a.contains("fn main() {}"), "{a}");
}

fn resolved_by_hook(m: &mut Model, id: &str) {
    update(
        m,
        Msg::Runtime(Event::PermissionResolved {
            request_id: id.into(),
            by: ResolvedBy::Hook,
        }),
    );
}

fn plan_request(id: &str) -> PermissionRequest {
    let mut request = bash_request(id, AlwaysOption::None, false);
    request.kind = RequestKind::Plan;
    request.tool = "ExitPlanMode".into();
    let steps: String = (1..=60).map(|i| format!("{i}. step {i}\n")).collect();
    request.input = json!({ "plan": format!("# Plan {id}\n\n{steps}") });
    request
}

/// The question panel's Other field takes a paste as typing would; a
/// line break in it becomes a space (the answer is one line).
#[test]
fn ux_paste_reaches_the_question_other_field() {
    let mut m = with_requests(vec![question_request(false)]);
    assert!(update(&mut m, key(KeyCode::Char('o'))).is_empty());
    assert!(update(&mut m, Msg::Paste("Zeta\r\nnine".into())).is_empty());
    assert!(m.composer.is_empty(), "the paste is not the composer's");
    // Enter confirms the field, which answers the only question.
    let (_, reply) = reply_for(&mut m, key(KeyCode::Enter));
    assert_eq!(
        answers(&reply),
        serde_json::json!({"Which features?": "Zeta nine"})
    );
}

/// The deny-with-feedback field takes a paste, line breaks kept; while
/// only the options show, a paste goes nowhere.
#[test]
fn ux_paste_reaches_the_deny_feedback_field() {
    // Allow once, deny with feedback, deny.
    let mut m = with_requests(vec![bash_request("perm_1", AlwaysOption::None, false)]);
    assert!(update(&mut m, Msg::Paste("ignored".into())).is_empty());
    assert!(update(&mut m, key(KeyCode::Char('2'))).is_empty());
    assert!(update(&mut m, Msg::Paste("use nextest\r\nnot cargo test".into())).is_empty());
    assert!(m.composer.is_empty(), "the paste is not the composer's");
    let (_, reply) = reply_for(&mut m, key(KeyCode::Enter));
    assert_eq!(
        reply,
        PermissionReply::Deny {
            feedback: Some("use nextest\nnot cargo test".into())
        }
    );
}

/// A hook resolves the head request while the user is typing feedback on
/// it: the next request starts with its own panel, and Enter answers it
/// with its first option rather than sending the old feedback.
#[test]
fn ux_feedback_typed_on_a_request_resolved_by_a_hook_does_not_carry_over() {
    let mut m = with_requests(vec![
        bash_request("perm_1", AlwaysOption::None, false),
        bash_request("perm_2", AlwaysOption::None, false),
    ]);
    assert!(update(&mut m, key(KeyCode::Char('2'))).is_empty());
    type_text(&mut m, "not this one");
    resolved_by_hook(&mut m, "perm_1");
    let screen = support::tui::screen_of(&m);
    assert!(!screen.contains("not this one"), "{screen}");
    assert!(
        !screen.contains("What should it do instead?"),
        "no feedback field: {screen}"
    );
    let (id, reply) = reply_for(&mut m, key(KeyCode::Enter));
    assert_eq!((id.as_str(), reply), ("perm_2", PermissionReply::AllowOnce));
}

/// The same for a long plan scrolled down: the next plan shows from its
/// top.
#[test]
fn ux_a_scrolled_plan_resolved_by_a_hook_leaves_the_next_plan_at_its_top() {
    let mut m = with_requests(vec![plan_request("plan_1"), plan_request("plan_2")]);
    update(&mut m, key(KeyCode::PageDown));
    let scrolled = support::tui::screen_of(&m);
    assert!(!scrolled.contains("lines 1–"), "scrolled: {scrolled}");
    resolved_by_hook(&mut m, "plan_1");
    let screen = support::tui::screen_of(&m);
    assert!(screen.contains("Plan plan_2"), "{screen}");
    assert!(screen.contains("lines 1–"), "{screen}");
}

/// The footer row as drawn.
fn footer_row(m: &Model) -> String {
    let terminal = support::tui::render(m, m.width, m.height);
    let buffer = terminal.backend().buffer();
    let y = m.height - 1;
    (0..m.width)
        .map(|x| buffer[(x, y)].symbol().to_string())
        .collect::<String>()
        .trim_end()
        .to_string()
}

/// The footer `keys::hints` gives for `focus`, as the footer draws it.
fn footer_for(focus: zcode::tui::focus::Focus, m: &Model) -> String {
    let hints = zcode::tui::keys::hints(focus, m);
    let pieces: Vec<String> = hints
        .iter()
        .map(|(k, what)| format!("{k} {what}"))
        .collect();
    format!(" {}", pieces.join("  "))
}

/// Every layer that can have the keys: `focus` names it, the footer shows
/// that layer's hints, and a key acts on that layer and no other.
#[test]
fn ux_footer_hints_and_key_handling_agree_on_the_focus_of_every_layer() {
    use zcode::tui::focus::{Focus, focus, slash_popup};
    let request = |m: &mut Model, request: PermissionRequest| {
        update(m, Msg::Runtime(Event::PermissionRequested { request }));
    };
    let fresh = || support::tui::session(120, 30);
    let mut bad_question = question_request(false);
    bad_question.input = json!({"questions": "not a list"});

    type Probe = Box<dyn Fn(&mut Model) -> bool>;
    let typed_into_composer: Probe = Box::new(|m| {
        update(m, key(KeyCode::Char('x')));
        m.composer.text().ends_with('x')
    });
    let mut cases: Vec<(&str, Model, Focus, Probe)> = Vec::new();

    cases.push(("composer", fresh(), Focus::Composer, typed_into_composer));

    let mut m = fresh();
    type_text(&mut m, "/");
    let probe: Probe = Box::new(|m| {
        update(m, key(KeyCode::Down));
        m.composer.text() == "/" && slash_popup(m).is_some_and(|p| p.selected == 1)
    });
    cases.push(("slash popup", m, Focus::SlashPopup, probe));

    let mut m = fresh();
    type_text(&mut m, "/mode");
    update(&mut m, key(KeyCode::Enter));
    let probe: Probe = Box::new(|m| {
        let before = m.picker.as_ref().map(|p| p.selected);
        update(m, key(KeyCode::Down));
        m.picker.as_ref().map(|p| p.selected) != before && m.composer.is_empty()
    });
    cases.push(("picker", m, Focus::Picker, probe));

    let selected_moves: fn() -> Probe = || {
        Box::new(|m| {
            update(m, key(KeyCode::Down));
            m.panel().map(|p| p.selected) == Some(1) && m.composer.is_empty()
        })
    };
    let mut m = fresh();
    request(&mut m, bash_request("perm_1", AlwaysOption::Project, true));
    cases.push((
        "tool approval",
        m,
        Focus::Approval(RequestKind::Tool),
        selected_moves(),
    ));

    // An approval arriving over an open picker takes the keys from it.
    let mut m = fresh();
    type_text(&mut m, "/mode");
    update(&mut m, key(KeyCode::Enter));
    request(&mut m, bash_request("perm_1", AlwaysOption::Project, true));
    cases.push((
        "approval over a picker",
        m,
        Focus::Approval(RequestKind::Tool),
        selected_moves(),
    ));

    let mut m = fresh();
    request(&mut m, plan_request("plan_1"));
    let probe: Probe = Box::new(|m| {
        update(m, key(KeyCode::PageDown));
        m.panel().is_some_and(|p| p.scroll > 0) && m.scroll == 0
    });
    cases.push((
        "plan approval",
        m,
        Focus::Approval(RequestKind::Plan),
        probe,
    ));

    let feedback_typed: fn() -> Probe = || {
        Box::new(|m| {
            update(m, key(KeyCode::Char('x')));
            m.panel().and_then(|p| p.feedback.as_deref()) == Some("x") && m.composer.is_empty()
        })
    };
    let mut m = fresh();
    request(&mut m, bash_request("perm_1", AlwaysOption::None, false));
    update(&mut m, key(KeyCode::Char('2')));
    cases.push((
        "tool feedback",
        m,
        Focus::Feedback(RequestKind::Tool),
        feedback_typed(),
    ));

    let mut m = fresh();
    request(&mut m, plan_request("plan_1"));
    update(&mut m, key(KeyCode::Char('2')));
    cases.push((
        "plan feedback",
        m,
        Focus::Feedback(RequestKind::Plan),
        feedback_typed(),
    ));

    let mut m = fresh();
    request(&mut m, question_request(false));
    let probe: Probe = Box::new(|m| {
        update(m, key(KeyCode::Down));
        let question = m.panel().and_then(|p| p.question.as_ref());
        question.is_some_and(|q| q.states()[0].cursor == 1) && m.composer.is_empty()
    });
    cases.push(("question panel", m, Focus::Question, probe));

    // A question whose input cannot be read gets the plain panel: Esc
    // rejects it.
    let mut m = fresh();
    request(&mut m, bad_question);
    let probe: Probe = Box::new(|m| {
        let cmds = update(m, key(KeyCode::Esc));
        matches!(
            cmds.as_slice(),
            [Cmd::Send(Op::PermissionReply {
                reply: PermissionReply::Deny { feedback: None },
                ..
            })]
        )
    });
    cases.push((
        "unreadable question",
        m,
        Focus::Approval(RequestKind::Question),
        probe,
    ));

    for (name, mut m, expected, probe) in cases {
        let at = focus(&m);
        assert_eq!(at, expected, "{name}: focus");
        assert_eq!(footer_row(&m), footer_for(at, &m), "{name}: footer");
        assert!(probe(&mut m), "{name}: the key went elsewhere");
    }
}
