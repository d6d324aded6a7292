//! Small things a new user met in the terminal UI: the welcome naming
//! `/help`, the slash popup's hidden rows, large pastes as chips, `/todos`
//! with the sidebar's marks, adding rules and confirming removals in
//! `/permissions`, a resumed session's replay without the texts meant for
//! the model, the footer of the text fields, and `/model` errors that point
//! to `zcode models`.

#![cfg(unix)]

mod support;

use crossterm::event::{KeyCode, KeyModifiers};
use serde_json::{Value, json};
use std::path::Path;
use support::runtime_harness::{Dialect, Setup};
use support::tui::{
    Session, bash_request, event, key, key_mod, screen, screen_of, session, snapshot, type_text,
};
use zcode::config::Config;
use zcode::model::ToolCall;
use zcode::model::select::switch_model;
use zcode::permission::mode::{ExecutionState, Mode, ModeSource};
use zcode::permission::rules::{Rule, RuleKind};
use zcode::protocol::{Event, HistoryItem, Op, PermissionRequest, RequestKind, SavedRule};
use zcode::runtime::reminders::wrap;
use zcode::runtime::transcript::{assistant_entry, history_items, tool_result_entry, user_entry};
use zcode::store::{EntryRecord, TodoItem, TodoPriority, TodoStatus, entry_kind};
use zcode::tui::cells::Cell;
use zcode::tui::focus::focus;
use zcode::tui::keys::hints;
use zcode::tui::scrollback::exit_text;
use zcode::tui::{Cmd, Model, Msg, update};

// ---- helpers ---------------------------------------------------------------

/// What the welcome says, in part.
const WELCOME: &str = "/help lists commands and keys";

/// Types `line` and presses Enter; returns what Enter produced.
fn submit(model: &mut Model, line: &str) -> Vec<Cmd> {
    type_text(model, line);
    update(model, key(KeyCode::Esc));
    update(model, key(KeyCode::Enter))
}

/// `n` numbered lines.
fn lines(n: usize) -> String {
    (1..=n)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn paste(model: &mut Model, text: &str) {
    assert!(update(model, Msg::Paste(text.to_string())).is_empty());
}

/// The text Enter sends, asserting it sends exactly one input.
fn sent(model: &mut Model) -> String {
    match update(model, key(KeyCode::Enter)).as_slice() {
        [Cmd::Send(Op::UserInput { text })] => text.clone(),
        other => panic!("expected one input, got {other:?}"),
    }
}

fn errors(model: &Model) -> Vec<String> {
    model
        .cells
        .iter()
        .filter_map(|c| match c {
            Cell::Error { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn started(resumed: bool) -> Event {
    Event::SessionStarted {
        session_id: "sess_0123456789abcdef".into(),
        workspace: "/home/dev/project".into(),
        model: "anthropic/claude-sonnet-4-5".into(),
        provider: "Anthropic".into(),
        offline_demo: false,
        state: ExecutionState::new(Mode::Build, false),
        resumed,
        context_window: None,
        sandbox_notice: None,
        mode_source: ModeSource::Default,
    }
}

fn with_request(width: u16, height: u16, request: PermissionRequest) -> Model {
    let mut m = session(width, height);
    event(&mut m, Event::PermissionRequested { request });
    m
}

fn question_request() -> PermissionRequest {
    let mut request = bash_request("perm_q");
    request.kind = RequestKind::Question;
    request.tool = "AskUserQuestion".into();
    request.input = json!({"questions": [{
        "question": "Which CI?",
        "header": "CI",
        "multiSelect": false,
        "options": [
            {"label": "GitHub Actions", "description": "hosted"},
            {"label": "Jenkins", "description": "self-hosted"}
        ]
    }]});
    request
}

fn plan_request() -> PermissionRequest {
    let mut request = bash_request("perm_plan");
    request.kind = RequestKind::Plan;
    request.tool = "ExitPlanMode".into();
    request.input = json!({"plan": "# Plan\n\n1. Do it"});
    request
}

/// Opens "Deny with feedback" (or plan feedback) on the head request.
fn open_feedback(model: &mut Model) {
    let kind = model.head().expect("a request").kind;
    let options = zcode::tui::approval::approval_options(model.head().expect("a request"));
    let at = options
        .iter()
        .position(|o| *o == zcode::tui::approval::ApprovalOption::Feedback)
        .expect("a feedback option");
    let digit = char::from_digit(u32::try_from(at + 1).unwrap(), 10).unwrap();
    update(model, key(KeyCode::Char(digit)));
    assert_eq!(focus(model), zcode::tui::focus::Focus::Feedback(kind));
}

fn rules_picker() -> Model {
    let mut m = session(60, 12);
    event(
        &mut m,
        Event::ProjectRules {
            rules: vec![
                SavedRule::saved(RuleKind::Allow, Rule::with_content("Bash", "git status:*")),
                SavedRule::saved(RuleKind::Ask, Rule::tool("WebFetch")),
                SavedRule::saved(RuleKind::Deny, Rule::with_content("Bash", "rm -rf:*")),
            ],
        },
    );
    m
}

// ---- 1. the welcome --------------------------------------------------------

#[test]
fn ux_a_new_session_welcomes_with_help() {
    let m = session(80, 16);
    let shown = screen_of(&m);
    assert!(shown.contains(WELCOME), "{shown}");
    snapshot("welcome_new_session", shown);
}

#[test]
fn ux_the_welcome_stays_when_the_session_starts_with_notices() {
    let m = Session::new(80, 16)
        .sandbox_notice("no kernel sandbox: read-only commands are asked")
        .start();
    let shown = screen_of(&m);
    assert!(shown.contains(WELCOME), "{shown}");
    assert!(shown.contains("no kernel sandbox"), "{shown}");
}

#[test]
fn ux_a_resumed_session_welcomes_below_its_history() {
    let mut m = Model::new(80, 16);
    event(&mut m, started(true));
    event(
        &mut m,
        Event::History {
            items: vec![
                HistoryItem::User {
                    text: "fix the failing test".into(),
                },
                HistoryItem::Assistant {
                    text: "Fixed: the fixture path was wrong.".into(),
                },
            ],
        },
    );
    let shown = screen_of(&m);
    let answer = shown.find("Fixed: the fixture").expect("the answer shows");
    let welcome = shown.find(WELCOME).expect("the welcome shows");
    assert!(
        answer < welcome,
        "the welcome comes after the history:\n{shown}"
    );
    snapshot("welcome_resumed_session", shown);
}

#[test]
fn ux_the_welcome_is_not_part_of_the_conversation() {
    let mut m = session(80, 16);
    support::tui::turn_started(&mut m, 1, "hello");
    event(
        &mut m,
        Event::AssistantMessage {
            text: "Hi there.".into(),
        },
    );
    let markdown = match submit(&mut m, "/export out.md").as_slice() {
        [Cmd::Export { markdown, .. }] => markdown.clone(),
        other => panic!("expected an export, got {other:?}"),
    };
    assert!(markdown.contains("Hi there."), "{markdown}");
    assert!(!markdown.contains(WELCOME), "{markdown}");
    let left = exit_text(&m, 2_000);
    assert!(left.contains("Hi there."), "{left}");
    assert!(!left.contains(WELCOME), "{left}");
    assert!(!left.contains("earlier entries"), "{left}");
}

// ---- 2. the slash popup's hidden rows --------------------------------------

#[test]
fn ux_the_slash_popup_says_how_many_commands_are_below_and_above() {
    // The popup's row that counts the hidden commands, if any.
    fn count_row(m: &Model) -> String {
        let shown = screen(m, 72, 16);
        shown
            .lines()
            .find(|l| l.contains(" more"))
            .unwrap_or_default()
            .trim_matches('"')
            .trim()
            .to_string()
    }
    let mut m = session(72, 16);
    type_text(&mut m, "/");
    let total = zcode::tui::slash::COMMANDS.len();
    // The last row of the popup counts what does not fit.
    let visible = zcode::tui::slash::POPUP_ROWS - 1;
    assert_eq!(count_row(&m), format!("↓ {} more", total - visible));
    snapshot("slash_popup_more_below", screen(&m, 72, 16));

    // Moving past the visible rows scrolls, and the counts follow.
    for _ in 0..visible {
        update(&mut m, key(KeyCode::Down));
    }
    assert_eq!(
        count_row(&m),
        format!("↑ 1 more  ↓ {} more", total - visible - 1)
    );

    // Up from the first row wraps to the last: nothing is below.
    for _ in 0..=visible {
        update(&mut m, key(KeyCode::Up));
    }
    assert_eq!(count_row(&m), format!("↑ {} more", total - visible));

    // A popup that fits has no count.
    let mut m = session(72, 16);
    type_text(&mut m, "/mo");
    assert_eq!(count_row(&m), "");
}

// ---- 3. large pastes as chips ----------------------------------------------

#[test]
fn ux_a_large_paste_is_a_chip_and_enter_sends_the_whole_text() {
    let mut m = session(80, 16);
    let text = lines(200);
    paste(&mut m, &text);
    assert_eq!(m.composer.text(), "[pasted 200 lines]");
    let shown = screen_of(&m);
    assert!(shown.contains("› [pasted 200 lines]"), "{shown}");
    snapshot("composer_paste_chip", &shown);
    assert_eq!(sent(&mut m), text);
    assert!(m.composer.is_empty());
}

#[test]
fn ux_a_long_one_line_paste_is_a_chip_and_a_short_one_is_text() {
    let mut m = session(80, 16);
    let long = "x".repeat(1_500);
    paste(&mut m, &long);
    assert_eq!(m.composer.text(), "[pasted 1500 characters]");
    assert_eq!(sent(&mut m), long);

    let mut m = session(80, 16);
    let short = lines(10);
    paste(&mut m, &short);
    assert_eq!(m.composer.text(), short);
}

#[test]
fn ux_backspace_deletes_a_chip_whole() {
    let mut m = session(80, 16);
    type_text(&mut m, "see ");
    paste(&mut m, &lines(50));
    type_text(&mut m, "!");
    update(&mut m, key(KeyCode::Backspace));
    assert_eq!(m.composer.text(), "see [pasted 50 lines]");
    update(&mut m, key(KeyCode::Backspace));
    assert_eq!(m.composer.text(), "see ");
    assert_eq!(m.composer.cursor_position(), (0, 4));
    update(&mut m, key(KeyCode::Backspace));
    assert_eq!(m.composer.text(), "see");
    // The chip's text went with it: what is sent is what is shown.
    assert_eq!(sent(&mut m), "see");
}

#[test]
fn ux_several_pastes_make_several_chips_sent_in_place() {
    let mut m = session(80, 16);
    let (a, b, c) = (lines(20), lines(30), format!("other\n{}", lines(19)));
    type_text(&mut m, "compare ");
    paste(&mut m, &a);
    type_text(&mut m, " with ");
    paste(&mut m, &b);
    type_text(&mut m, " and ");
    paste(&mut m, &c);
    assert_eq!(
        m.composer.text(),
        "compare [pasted 20 lines] with [pasted 30 lines] and [pasted 20 lines #2]"
    );
    assert_eq!(sent(&mut m), format!("compare {a} with {b} and {c}"));
}

#[test]
fn ux_the_cursor_steps_over_a_chip_and_edits_keep_it_whole() {
    let mut m = session(80, 16);
    let text = lines(40);
    let label = "[pasted 40 lines]";
    let len = label.chars().count();
    type_text(&mut m, "a");
    paste(&mut m, &text);
    type_text(&mut m, "b");
    update(&mut m, key(KeyCode::Left));
    assert_eq!(m.composer.cursor_position(), (0, 1 + len));
    // One step jumps the whole chip.
    update(&mut m, key(KeyCode::Left));
    assert_eq!(m.composer.cursor_position(), (0, 1));
    update(&mut m, key(KeyCode::Right));
    assert_eq!(m.composer.cursor_position(), (0, 1 + len));
    update(&mut m, key(KeyCode::Left));
    type_text(&mut m, "X");
    assert_eq!(m.composer.text(), format!("aX{label}b"));
    // Delete in front of the chip takes it whole; so does Ctrl+W after it.
    update(&mut m, key(KeyCode::Delete));
    assert_eq!(m.composer.text(), "aXb");
    let mut m = session(80, 16);
    type_text(&mut m, "look at ");
    paste(&mut m, &text);
    update(&mut m, key_mod(KeyCode::Char('w'), KeyModifiers::CONTROL));
    assert_eq!(m.composer.text(), "look at ");
    // Home lands before the chip, and typing there keeps it.
    paste(&mut m, &text);
    update(&mut m, key(KeyCode::Home));
    type_text(&mut m, "> ");
    assert_eq!(sent(&mut m), format!("> look at {text}"));
}

#[test]
fn ux_a_chip_among_lines_keeps_the_cursor_where_it_shows() {
    let mut m = session(40, 16);
    type_text(&mut m, "first");
    update(&mut m, key_mod(KeyCode::Enter, KeyModifiers::SHIFT));
    paste(&mut m, &lines(300));
    type_text(&mut m, " then more words that wrap past the edge");
    let shown = screen_of(&m);
    snapshot("composer_paste_chip_wrapped", &shown);
    let (row, col) = m.composer.cursor_position();
    assert_eq!(row, 1);
    assert_eq!(
        col,
        "[pasted 300 lines] then more words that wrap past the edge"
            .chars()
            .count()
    );
    let text = sent(&mut m);
    assert!(text.starts_with("first\nline 1\n"), "{text}");
    assert!(
        text.ends_with("line 300 then more words that wrap past the edge"),
        "{text}"
    );
}

#[test]
fn ux_recalling_a_pasted_input_brings_back_the_whole_text() {
    let mut m = session(80, 16);
    let text = lines(120);
    type_text(&mut m, "explain ");
    paste(&mut m, &text);
    let first = sent(&mut m);
    assert_eq!(first, format!("explain {text}"));
    assert_eq!(m.history.last(), Some(&first));
    update(&mut m, key(KeyCode::Up));
    assert_eq!(sent(&mut m), first);
}

#[test]
fn ux_a_chip_in_a_command_argument_is_sent_whole() {
    let mut m = session(80, 16);
    let task = lines(30);
    type_text(&mut m, "/plan ");
    paste(&mut m, &task);
    let cmds = update(&mut m, key(KeyCode::Enter));
    assert!(
        cmds.contains(&Cmd::Send(Op::UserInput { text: task.clone() })),
        "{cmds:?}"
    );
}

#[test]
fn ux_paste_into_the_other_field_and_the_feedback_field_is_plain_text() {
    let text = lines(30);
    let mut m = with_request(80, 24, question_request());
    update(&mut m, key(KeyCode::Char('o')));
    paste(&mut m, &text);
    let other = m
        .panel()
        .and_then(|p| p.question.as_ref())
        .and_then(|q| q.editing())
        .map(str::to_string);
    assert_eq!(other, Some(text.replace('\n', " ")));
    assert!(m.composer.is_empty());

    let mut m = with_request(80, 24, bash_request("perm_1"));
    open_feedback(&mut m);
    paste(&mut m, &text);
    assert_eq!(m.panel().and_then(|p| p.feedback.clone()), Some(text));
    assert!(m.composer.is_empty());
}

// ---- 4. /todos with the sidebar's marks ------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_todos_lists_with_the_sidebars_marks() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    let todos = vec![
        TodoItem::new("read the spec", TodoStatus::Completed, TodoPriority::High),
        TodoItem::new("write code", TodoStatus::InProgress, TodoPriority::High),
        TodoItem::new("test it", TodoStatus::Pending, TodoPriority::Low),
    ];
    h.store().replace_todos(&h.session_id, &todos).unwrap();
    h.send(Op::ShowTodos);
    let list = h
        .wait_for("Notice", |e| match e {
            Event::Notice { message } if message.starts_with("todos") => Some(message.clone()),
            _ => None,
        })
        .await;
    h.shutdown().await;
    // The sidebar of a wide terminal shows the same list.
    let mut m = session(120, 16);
    event(&mut m, Event::TodosChanged { todos });
    let sidebar = screen_of(&m);
    for row in ["✓ read the spec", "▶ write code", "☐ test it"] {
        assert!(list.contains(row), "{list}");
        assert!(sidebar.contains(row), "{sidebar}");
    }
    assert!(!list.contains('['), "{list}");
}

// ---- 5. /permissions adds rules and confirms removals ----------------------

#[test]
fn ux_permissions_adds_allow_ask_and_deny_rules() {
    let mut m = session(80, 16);
    let add = |kind, rule| vec![Cmd::Send(Op::AddProjectRule { kind, rule })];
    assert_eq!(
        submit(&mut m, "/permissions add Bash(npm test:*)"),
        add(RuleKind::Allow, Rule::with_content("Bash", "npm test:*"))
    );
    assert_eq!(
        submit(&mut m, "/permissions allow WebFetch(domain:docs.rs)"),
        add(
            RuleKind::Allow,
            Rule::with_content("WebFetch", "domain:docs.rs")
        )
    );
    assert_eq!(
        submit(&mut m, "/permissions deny Read(.env)"),
        add(RuleKind::Deny, Rule::with_content("Read", ".env"))
    );
    assert_eq!(
        submit(&mut m, "/permissions ask WebFetch"),
        add(RuleKind::Ask, Rule::tool("WebFetch"))
    );
    assert_eq!(
        submit(&mut m, "/permissions"),
        vec![Cmd::Send(Op::ListProjectRules)]
    );
    assert!(errors(&m).is_empty(), "{:?}", errors(&m));
}

#[test]
fn ux_permissions_refuses_what_it_cannot_read() {
    let mut m = session(80, 16);
    for (line, says) in [
        ("/permissions add Bash(npm test", "Bash(npm test"),
        ("/permissions add", "a rule"),
        ("/permissions remove Bash", "allow, ask or deny"),
        ("/permissions deny (x)", "(x)"),
    ] {
        assert!(submit(&mut m, line).is_empty(), "{line}");
        let last = errors(&m).pop().unwrap_or_default();
        assert!(last.starts_with("/permissions"), "{line}: {last}");
        assert!(last.contains(says), "{line}: {last}");
        assert!(last.contains("/permissions add Bash(npm test:*)"), "{last}");
    }
}

#[test]
fn ux_removing_a_rule_takes_a_second_press() {
    let mut m = rules_picker();
    update(&mut m, key(KeyCode::Down));
    // The first press asks.
    assert!(update(&mut m, key(KeyCode::Char('d'))).is_empty());
    let shown = screen(&m, 60, 12);
    assert!(shown.contains("d again removes it"), "{shown}");
    let footer = hints(focus(&m), &m);
    assert!(footer.contains(&("d", "again to remove")), "{footer:?}");
    snapshot("picker_permissions_confirm", &shown);
    // Moving away (or Esc) keeps the rule.
    update(&mut m, key(KeyCode::Down));
    assert!(!screen(&m, 60, 12).contains("d again"));
    assert!(update(&mut m, key(KeyCode::Char('d'))).is_empty());
    update(&mut m, key(KeyCode::Esc));
    assert!(m.picker.is_some(), "Esc first takes back the press");
    assert!(!screen(&m, 60, 12).contains("d again"));
    // Two presses remove the highlighted rule.
    assert!(update(&mut m, key(KeyCode::Delete)).is_empty());
    assert_eq!(
        update(&mut m, key(KeyCode::Delete)),
        vec![Cmd::Send(Op::RemoveProjectRule {
            kind: RuleKind::Deny,
            rule: Rule::with_content("Bash", "rm -rf:*"),
        })]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ux_an_added_rule_is_saved_and_the_list_comes_back() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    let rule = Rule::with_content("Bash", "npm test:*");
    h.send(Op::AddProjectRule {
        kind: RuleKind::Allow,
        rule: rule.clone(),
    });
    let rules = h
        .wait_for("ProjectRules", |e| match e {
            Event::ProjectRules { rules } => Some(rules.clone()),
            _ => None,
        })
        .await;
    assert_eq!(rules, vec![SavedRule::saved(RuleKind::Allow, rule.clone())]);
    assert_eq!(h.project_rules(RuleKind::Allow), vec![rule.clone()]);
    assert!(
        h.log_text()
            .contains("saved the project rule allow Bash(npm test:*)"),
        "{}",
        h.log_text()
    );
    let from = h.log.len();
    h.send(Op::AddProjectRule {
        kind: RuleKind::Allow,
        rule,
    });
    h.wait_for("ProjectRules", |e| {
        matches!(e, Event::ProjectRules { .. }).then_some(())
    })
    .await;
    let again = format!("{:?}", h.since(from));
    assert!(again.contains("already saved"), "{again}");
    h.shutdown().await;
}

// ---- 6. a resumed session shows what was typed and answered ----------------

fn record(kind: &str, payload: Value, seq: i64) -> EntryRecord {
    EntryRecord {
        id: format!("e{seq}"),
        session_id: "sess_0123456789abcdef".into(),
        seq,
        kind: kind.into(),
        payload,
        created_at: 0,
    }
}

#[test]
fn ux_a_resumed_session_hides_the_texts_meant_for_the_model() {
    let read = ToolCall {
        id: "call_1".into(),
        name: "Read".into(),
        arguments: json!({"file_path": "src/lib.rs"}).to_string(),
    };
    let entries = vec![
        record(
            entry_kind::USER_MESSAGE,
            user_entry("fix the bug").payload,
            1,
        ),
        record(
            entry_kind::REMINDER,
            json!({"kind": "runtime_mode", "text": wrap("Plan mode is active.")}),
            2,
        ),
        record(
            entry_kind::ASSISTANT_MESSAGE,
            assistant_entry("Looking.", "", std::slice::from_ref(&read)).payload,
            3,
        ),
        record(
            entry_kind::TOOL_RESULT,
            tool_result_entry("call_1", "Read", "     1\tpub fn f() {}", false).payload,
            4,
        ),
        record(
            entry_kind::NOTIFICATION,
            json!({"kind": "todo_reminder", "text": wrap("The todo list is empty.")}),
            5,
        ),
        record(
            entry_kind::NOTIFICATION,
            json!({"kind": "interrupted", "text": "[The user interrupted your previous answer.]"}),
            6,
        ),
        record(
            entry_kind::COMPACTION_SUMMARY,
            json!({"summary": "The user asked to fix a bug.", "keptMessages": 1}),
            7,
        ),
        record(
            entry_kind::USER_MESSAGE,
            user_entry(&wrap("The plan file is at .zcode/plans/p.md.")).payload,
            8,
        ),
        record(entry_kind::USER_MESSAGE, user_entry("go on").payload, 9),
        record(
            entry_kind::ASSISTANT_MESSAGE,
            assistant_entry("Done.", "", &[]).payload,
            10,
        ),
    ];
    let mut m = Model::new(80, 24);
    event(&mut m, started(true));
    event(
        &mut m,
        Event::History {
            items: history_items(&entries),
        },
    );
    let users: Vec<&str> = m
        .cells
        .iter()
        .filter_map(|c| match c {
            Cell::User { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(users, ["fix the bug", "go on"]);
    let shown = screen_of(&m);
    for hidden in [
        "system-reminder",
        "Plan mode is active",
        "todo list is empty",
        "interrupted your previous answer",
        "The user asked to fix a bug",
        "plan file",
    ] {
        assert!(!shown.contains(hidden), "{hidden}:\n{shown}");
    }
    assert_eq!(shown.matches("earlier conversation compacted").count(), 1);
    assert!(shown.contains("✓ Read src/lib.rs"), "{shown}");
    snapshot("resumed_history_without_injected_texts", &shown);
}

// ---- 7. the footer of the text fields --------------------------------------

#[test]
fn ux_the_footer_says_what_enter_and_esc_do_in_the_other_field() {
    let mut m = with_request(80, 24, question_request());
    let options = hints(focus(&m), &m);
    assert!(!options.contains(&("esc", "back to the options")));
    update(&mut m, key(KeyCode::Char('o')));
    let footer = hints(focus(&m), &m);
    assert!(footer.contains(&("enter", "use this answer")), "{footer:?}");
    assert!(
        footer.contains(&("esc", "back to the options")),
        "{footer:?}"
    );
    assert!(!footer.iter().any(|(k, _)| *k == "1-9"), "{footer:?}");
    let shown = screen_of(&m);
    let last = shown.lines().last().unwrap_or_default();
    assert!(last.contains("enter use this answer"), "{last}");
}

#[test]
fn ux_the_footer_says_what_enter_and_esc_do_in_the_feedback_field() {
    let mut m = with_request(80, 24, bash_request("perm_1"));
    open_feedback(&mut m);
    let footer = hints(focus(&m), &m);
    assert!(
        footer.contains(&("enter", "deny with this feedback")),
        "{footer:?}"
    );
    assert!(
        footer.contains(&("esc", "back to the options")),
        "{footer:?}"
    );
    assert!(!footer.iter().any(|(k, _)| *k == "1-9"), "{footer:?}");
    let shown = screen_of(&m);
    let last = shown.lines().last().unwrap_or_default();
    assert!(last.contains("enter deny with this feedback"), "{last}");

    let mut m = with_request(80, 30, plan_request());
    open_feedback(&mut m);
    let footer = hints(focus(&m), &m);
    assert!(
        footer.contains(&("enter", "send the feedback")),
        "{footer:?}"
    );
    assert!(
        footer.contains(&("esc", "back to the options")),
        "{footer:?}"
    );
}

// ---- 8. /model errors point to `zcode models` ------------------------------

#[test]
fn ux_model_errors_point_to_zcode_models() {
    let config = Config::parse(
        r#"{"providers": [{"id": "local", "kind": "openai",
            "baseUrl": "http://127.0.0.1:9/v1",
            "models": [{"id": "small", "contextWindow": 8000}]}]}"#,
        Path::new("/tmp/config.json"),
    )
    .unwrap();
    let none = |_: &str| None::<String>;
    for reference in ["nope", "openai/gpt-4o", "local/big"] {
        let text = switch_model(&config, none, reference, "local")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(text.contains("`zcode models`"), "{reference}: {text}");
        assert!(!text.contains("ListModels"), "{reference}: {text}");
    }
    let text = switch_model(&Config::default(), none, "local/small", "demo")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(text.contains("no model provider is configured"), "{text}");
    assert!(text.contains("`zcode models`"), "{text}");
}
