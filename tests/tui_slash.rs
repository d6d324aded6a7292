//! Slash commands (TUI-4): the completion popup and the pickers driven by
//! keys through `update`, their snapshots, and the runtime ops behind them
//! (MODEL-3 model switch, GRANT-4 rule removal, `/todos`, resume replay).

#![cfg(unix)]

mod support;

use std::sync::Arc;

use crossterm::event::KeyCode;
use serde_json::json;
use support::runtime_harness::{Dialect, Harness, Setup};
use support::tui::{Session, ctrl, key, render, screen, snapshot, type_text};
use zcode::config::{Catalog, ProviderKind};
use zcode::model::reference::resolve_model_reference;
use zcode::model::select::SelectedModel;
use zcode::permission::mode::{Mode, ModeChoice};
use zcode::permission::rule_source::RuleSource;
use zcode::permission::rules::{Rule, RuleKind};
use zcode::protocol::{Event, HistoryItem, Op, SavedRule, TurnEnd};
use zcode::runtime::session::SessionStart;
use zcode::runtime::{BrokerChoice, ModelResolver, RuntimeSetup};
use zcode::store::{Store, TodoItem, TodoPriority, TodoStatus};
use zcode::tui::cells::{Cell, ToolStatus};
use zcode::tui::launcher::{ModelChoice, SessionSummary};
use zcode::tui::picker::PickerKind;
use zcode::tui::slash::{Parsed, parse};
use zcode::tui::{Cmd, Model, Msg, update};

// ---- helpers ---------------------------------------------------------------

/// Types `line` and presses Enter; returns what Enter produced.
fn submit(model: &mut Model, line: &str) -> Vec<Cmd> {
    type_text(model, line);
    update(model, key(KeyCode::Esc));
    update(model, key(KeyCode::Enter))
}

fn session(width: u16, height: u16) -> Model {
    let mut m = Session::new(width, height)
        .model("local/small", "local")
        .start();
    m.cells.clear();
    m
}

fn popup_names(model: &Model) -> Vec<String> {
    zcode::tui::focus::slash_popup(model)
        .map(|p| p.items.iter().map(|c| c.name.clone()).collect())
        .unwrap_or_default()
}

fn popup_selected(model: &Model) -> Option<String> {
    zcode::tui::focus::slash_popup(model).map(|p| p.items[p.selected].name.clone())
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

fn notices(model: &Model) -> Vec<String> {
    model
        .cells
        .iter()
        .filter_map(|c| match c {
            Cell::Notice { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn three_rules() -> Vec<SavedRule> {
    vec![
        SavedRule::saved(RuleKind::Allow, Rule::with_content("Bash", "git status:*")),
        SavedRule::saved(RuleKind::Ask, Rule::tool("WebFetch")),
        SavedRule::saved(RuleKind::Deny, Rule::with_content("Bash", "rm -rf:*")),
    ]
}

fn models() -> Vec<ModelChoice> {
    vec![
        ModelChoice {
            reference: "local/small".into(),
            provider_name: "Local".into(),
            context_window: Some(32_000),
            disabled: None,
        },
        ModelChoice {
            reference: "local/large".into(),
            provider_name: "Local".into(),
            context_window: Some(128_000),
            disabled: None,
        },
        ModelChoice {
            reference: "anthropic/claude-sonnet-4-5".into(),
            provider_name: "Anthropic".into(),
            context_window: Some(200_000),
            disabled: Some("no API key".into()),
        },
    ]
}

fn sessions() -> Vec<SessionSummary> {
    vec![
        SessionSummary {
            id: "sess_0123456789abcdef".into(),
            updated_at: 1_735_732_800_000,
            title: Some("fix the parser".into()),
            mode: "build".into(),
        },
        SessionSummary {
            id: "sess_fedcba9876543210".into(),
            updated_at: 1_735_650_000_000,
            title: Some("write the README section on the terminal UI".into()),
            mode: "plan".into(),
        },
        SessionSummary {
            id: "sess_aaaabbbbccccdddd".into(),
            updated_at: 1_704_067_200_000,
            title: None,
            mode: "yolo".into(),
        },
    ]
}

// ---- parsing ---------------------------------------------------------------

#[test]
fn tui4_parse_commands_paths_and_escapes() {
    assert!(matches!(
        parse("/mode edit"),
        Parsed::Command { info, arg: Some(a) } if info.name == "mode" && a == "edit"
    ));
    assert!(matches!(
        parse("/PLAN  write docs \n and tests"),
        Parsed::Command { info, arg: Some(a) } if info.name == "plan" && a == "write docs \n and tests"
    ));
    assert!(matches!(parse("/quit"), Parsed::Command { info, arg: None } if info.name == "quit"));
    // Paths and a slash followed by a space go to the model as typed.
    assert_eq!(parse("/usr/bin/env is missing"), Parsed::Text);
    assert_eq!(parse("/ that was a typo"), Parsed::Text);
    assert_eq!(parse("hello /mode"), Parsed::Text);
    // `//` sends the rest with one slash removed.
    assert_eq!(
        parse("//mode is a word"),
        Parsed::Escaped("/mode is a word".into())
    );
    assert_eq!(
        parse("/frobnicate now"),
        Parsed::Unknown("frobnicate".into())
    );
}

// ---- the popup -------------------------------------------------------------

#[test]
fn tui4_typing_slash_mo_shows_mode_and_model() {
    let mut m = session(80, 24);
    assert!(popup_names(&m).is_empty());
    type_text(&mut m, "/");
    assert_eq!(popup_names(&m).len(), zcode::tui::slash::COMMANDS.len());
    type_text(&mut m, "mo");
    // Prefix matches first, then a name containing the text.
    assert_eq!(popup_names(&m), vec!["mode", "model", "memory"]);
    assert_eq!(popup_selected(&m).as_deref(), Some("mode"));
    // Prefix matches first, then names containing the text.
    let mut m = session(80, 24);
    type_text(&mut m, "/e");
    assert_eq!(
        popup_names(&m),
        vec![
            "export",
            "exit",
            "mode",
            "model",
            "permissions",
            "new",
            "clear",
            "resume",
            "memory",
            "help"
        ]
    );
    // A space, a second line or no match closes it.
    type_text(&mut m, " ");
    assert!(popup_names(&m).is_empty());
    let mut m = session(80, 24);
    type_text(&mut m, "/zz");
    assert!(popup_names(&m).is_empty());
}

#[test]
fn tui4_arrows_and_ctrl_p_n_move_the_selection() {
    let mut m = session(80, 24);
    type_text(&mut m, "/mo");
    assert!(update(&mut m, key(KeyCode::Down)).is_empty());
    assert_eq!(popup_selected(&m).as_deref(), Some("model"));
    update(&mut m, key(KeyCode::Down));
    assert_eq!(popup_selected(&m).as_deref(), Some("memory"));
    update(&mut m, key(KeyCode::Down));
    assert_eq!(popup_selected(&m).as_deref(), Some("mode"), "wraps around");
    update(&mut m, ctrl('p'));
    assert_eq!(popup_selected(&m).as_deref(), Some("memory"));
    update(&mut m, ctrl('n'));
    assert_eq!(popup_selected(&m).as_deref(), Some("mode"));
    // Typing starts over on the first row.
    update(&mut m, key(KeyCode::Down));
    type_text(&mut m, "d");
    assert_eq!(popup_selected(&m).as_deref(), Some("mode"));
    // ↑ does not recall history while the popup is open.
    assert_eq!(m.composer.text(), "/mod");
}

#[test]
fn tui4_tab_completes_the_selected_name() {
    let mut m = session(80, 24);
    type_text(&mut m, "/mo");
    update(&mut m, key(KeyCode::Down));
    assert!(update(&mut m, key(KeyCode::Tab)).is_empty());
    // /model takes an argument: a space follows and the popup closes.
    assert_eq!(m.composer.text(), "/model ");
    assert!(popup_names(&m).is_empty());
    let mut m = session(80, 24);
    type_text(&mut m, "/he");
    update(&mut m, key(KeyCode::Tab));
    assert_eq!(m.composer.text(), "/help");
}

#[test]
fn tui4_enter_runs_the_selected_command() {
    let mut m = session(80, 24);
    type_text(&mut m, "/mo");
    update(&mut m, key(KeyCode::Down));
    assert_eq!(update(&mut m, key(KeyCode::Enter)), vec![Cmd::ListModels]);
    assert!(m.composer.is_empty());
    assert_eq!(m.history, vec!["/model".to_string()]);
    let mut m = session(80, 24);
    type_text(&mut m, "/to");
    assert_eq!(
        update(&mut m, key(KeyCode::Enter)),
        vec![Cmd::Send(Op::ShowTodos)]
    );
}

#[test]
fn tui4_esc_closes_the_popup_and_keeps_the_text() {
    let mut m = session(80, 24);
    type_text(&mut m, "/mo");
    assert!(update(&mut m, key(KeyCode::Esc)).is_empty());
    assert!(popup_names(&m).is_empty());
    assert_eq!(m.composer.text(), "/mo");
    // Editing opens it again.
    type_text(&mut m, "d");
    assert_eq!(popup_names(&m), vec!["mode", "model"]);
}

// ---- running commands ------------------------------------------------------

#[test]
fn tui4_mode_with_an_argument_sends_set_mode() {
    let mut m = session(80, 24);
    assert_eq!(
        submit(&mut m, "/mode edit"),
        vec![Cmd::Send(Op::SetMode {
            choice: ModeChoice::Mode(Mode::Edit)
        })]
    );
    assert_eq!(m.state.label(), "edit");
    assert!(m.composer.is_empty());
    // EXEC-7: auto and unknown names are refused with the mode error.
    assert!(submit(&mut m, "/mode auto").is_empty());
    assert!(submit(&mut m, "/mode fast").is_empty());
    let errs = errors(&m);
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(errs[0].starts_with("/mode: "), "{errs:?}");
    assert_eq!(m.state.label(), "edit");
}

#[test]
fn plan1_plan_with_a_task_enters_plan_then_sends_the_task() {
    let mut m = session(80, 24);
    assert_eq!(
        submit(&mut m, "/plan write docs"),
        vec![
            Cmd::Send(Op::SetMode {
                choice: ModeChoice::Plan
            }),
            Cmd::Send(Op::UserInput {
                text: "write docs".into()
            }),
        ]
    );
    assert!(m.busy);
    assert_eq!(m.state.label(), "plan");
    let mut m = session(80, 24);
    assert_eq!(
        submit(&mut m, "/plan"),
        vec![Cmd::Send(Op::SetMode {
            choice: ModeChoice::Plan
        })]
    );
    assert!(!m.busy);
}

#[test]
fn tui4_unknown_command_is_an_error_cell_and_sends_nothing() {
    let mut m = session(80, 24);
    assert!(submit(&mut m, "/frobnicate now").is_empty());
    let errs = errors(&m);
    assert_eq!(errs.len(), 1);
    assert!(
        errs[0].starts_with("unknown command /frobnicate;"),
        "{errs:?}"
    );
    for name in [
        "/mode",
        "/plan",
        "/model",
        "/permissions",
        "/todos",
        "/new",
        "/resume",
    ] {
        assert!(errs[0].contains(name), "{errs:?}");
    }
    assert!(errs[0].contains("//"), "{errs:?}");
    assert!(!m.busy);
    // A command that takes no argument says so.
    assert!(submit(&mut m, "/quit now").is_empty());
    assert!(errors(&m)[1].contains("/quit takes no argument"));
}

#[test]
fn tui4_paths_and_escaped_lines_reach_the_model() {
    let mut m = session(80, 24);
    assert_eq!(
        submit(&mut m, "/usr/bin/env is missing"),
        vec![Cmd::Send(Op::UserInput {
            text: "/usr/bin/env is missing".into()
        })]
    );
    let mut m = session(80, 24);
    assert_eq!(
        submit(&mut m, "//help me"),
        vec![Cmd::Send(Op::UserInput {
            text: "/help me".into()
        })]
    );
}

#[test]
fn tui4_quit_compact_todos_help() {
    let mut m = session(80, 24);
    assert_eq!(submit(&mut m, "/quit"), vec![Cmd::Quit]);
    assert_eq!(submit(&mut m, "/compact"), vec![Cmd::Send(Op::Compact)]);
    assert_eq!(submit(&mut m, "/todos"), vec![Cmd::Send(Op::ShowTodos)]);
    assert!(submit(&mut m, "/help").is_empty());
    let help = notices(&m).join("\n");
    assert!(help.contains("/permissions"), "{help}");
    assert!(help.contains("shift+tab"), "{help}");
}

#[test]
fn tui4_new_and_resume_start_sessions_but_not_while_busy() {
    let mut m = session(80, 24);
    assert_eq!(
        submit(&mut m, "/new"),
        vec![Cmd::StartSession(SessionStart::New)]
    );
    assert_eq!(submit(&mut m, "/resume"), vec![Cmd::ListSessions]);
    assert_eq!(
        submit(&mut m, "/resume sess_x"),
        vec![Cmd::StartSession(SessionStart::Resume("sess_x".into()))]
    );
    m.busy = true;
    assert!(submit(&mut m, "/new").is_empty());
    assert!(errors(&m)[0].contains("interrupt"), "{:?}", errors(&m));
}

// ---- pickers ---------------------------------------------------------------

#[test]
fn tui4_mode_picker_moves_and_chooses() {
    let mut m = session(80, 24);
    assert!(submit(&mut m, "/mode").is_empty());
    let picker = m.picker.as_ref().expect("mode picker");
    assert_eq!(picker.kind, PickerKind::Mode);
    assert_eq!(picker.selected, 1, "starts on the current mode (build)");
    update(&mut m, key(KeyCode::Down));
    update(&mut m, ctrl('n'));
    update(&mut m, ctrl('n'));
    assert_eq!(
        m.picker.as_ref().map(|p| p.selected),
        Some(3),
        "stops at the end"
    );
    update(&mut m, key(KeyCode::Up));
    assert_eq!(
        update(&mut m, key(KeyCode::Enter)),
        vec![Cmd::Send(Op::SetMode {
            choice: ModeChoice::Mode(Mode::Edit)
        })]
    );
    assert!(m.picker.is_none());
    assert_eq!(m.state.label(), "edit");
    // Esc closes without a change.
    submit(&mut m, "/mode");
    assert!(update(&mut m, key(KeyCode::Esc)).is_empty());
    assert!(m.picker.is_none());
}

#[test]
fn model3_model_picker_and_argument_send_set_model() {
    let mut m = session(80, 24);
    assert_eq!(
        submit(&mut m, "/model large$high"),
        vec![Cmd::Send(Op::SetModel {
            reference: "large$high".into()
        })]
    );
    assert_eq!(submit(&mut m, "/model"), vec![Cmd::ListModels]);
    update(&mut m, Msg::Models(models()));
    let picker = m.picker.as_ref().expect("model picker");
    assert_eq!(picker.kind, PickerKind::Model);
    assert_eq!(picker.selected, 0, "the current model");
    update(&mut m, key(KeyCode::Down));
    assert_eq!(
        update(&mut m, key(KeyCode::Enter)),
        vec![Cmd::Send(Op::SetModel {
            reference: "local/large".into()
        })]
    );
    // The runtime's answer updates the status line.
    update(
        &mut m,
        Msg::Runtime(Event::ModelChanged {
            model: "local/large".into(),
            provider: "local".into(),
            context_window: Some(32_768),
        }),
    );
    assert_eq!(m.model_label, "local/large");
    assert!(screen(&m, 80, 12).contains("local/large"));
}

#[test]
fn grant4_permissions_picker_lists_and_deletes() {
    let mut m = session(80, 24);
    assert_eq!(
        submit(&mut m, "/permissions"),
        vec![Cmd::Send(Op::ListProjectRules)]
    );
    update(
        &mut m,
        Msg::Runtime(Event::ProjectRules {
            rules: three_rules(),
        }),
    );
    let picker = m.picker.as_ref().expect("rules picker");
    assert_eq!(picker.kind, PickerKind::Permissions);
    assert_eq!(picker.items.len(), 3);
    update(&mut m, key(KeyCode::Down));
    // Enter does nothing here; `d` and Delete, pressed twice, remove the
    // highlighted rule.
    assert!(update(&mut m, key(KeyCode::Enter)).is_empty());
    assert!(update(&mut m, key(KeyCode::Char('d'))).is_empty());
    assert_eq!(
        update(&mut m, key(KeyCode::Char('d'))),
        vec![Cmd::Send(Op::RemoveProjectRule {
            kind: RuleKind::Ask,
            rule: Rule::tool("WebFetch"),
        })]
    );
    // The runtime answers with the new list; the selection stays in range.
    let mut rest = three_rules();
    rest.remove(1);
    update(&mut m, key(KeyCode::Down));
    update(&mut m, Msg::Runtime(Event::ProjectRules { rules: rest }));
    let picker = m.picker.as_ref().expect("still open");
    assert_eq!(picker.items.len(), 2);
    assert_eq!(picker.selected, 1);
    assert!(update(&mut m, key(KeyCode::Delete)).is_empty());
    assert_eq!(
        update(&mut m, key(KeyCode::Delete)),
        vec![Cmd::Send(Op::RemoveProjectRule {
            kind: RuleKind::Deny,
            rule: Rule::with_content("Bash", "rm -rf:*"),
        })]
    );
    update(&mut m, key(KeyCode::Esc));
    assert!(m.picker.is_none());
}

#[test]
fn tui4_resume_picker_chooses_a_session() {
    let mut m = session(80, 24);
    update(&mut m, Msg::Sessions(sessions()));
    let picker = m.picker.as_ref().expect("sessions picker");
    assert_eq!(picker.kind, PickerKind::Sessions);
    // The current session is marked; choosing it changes nothing.
    assert_eq!(picker.selected, 0);
    assert!(update(&mut m, key(KeyCode::Enter)).is_empty());
    assert_eq!(notices(&m), vec!["already in this session".to_string()]);
    update(&mut m, Msg::Sessions(sessions()));
    update(&mut m, key(KeyCode::Down));
    assert_eq!(
        update(&mut m, key(KeyCode::Enter)),
        vec![Cmd::StartSession(SessionStart::Resume(
            "sess_fedcba9876543210".into()
        ))]
    );
}

#[test]
fn tui4_session_replaced_starts_over_keeping_history_and_composer() {
    let mut m = session(80, 24);
    submit(&mut m, "/help");
    type_text(&mut m, "draft");
    m.cells.push(Cell::User { text: "old".into() });
    update(&mut m, Msg::SessionReplaced);
    assert!(m.cells.is_empty());
    assert!(m.session_id.is_empty());
    assert_eq!(m.composer.text(), "draft");
    assert_eq!(m.history, vec!["/help".to_string()]);
}

fn started(label: &str) -> Msg {
    Msg::Runtime(Event::SessionStarted {
        session_id: "sess_fedcba9876543210".into(),
        workspace: "/home/dev/project".into(),
        model: label.into(),
        provider: "local".into(),
        offline_demo: false,
        state: zcode::permission::mode::ExecutionState::new(Mode::Build, false),
        resumed: false,
        context_window: None,
        sandbox_notice: None,
        mode_source: Default::default(),
    })
}

#[test]
fn tui4_a_new_session_keeps_the_view_choices_and_says_when_the_model_changed() {
    let mut m = session(120, 24);
    update(&mut m, ctrl('o'));
    update(&mut m, ctrl('t'));
    update(&mut m, Msg::SessionReplaced);
    assert!(m.tools_expanded && m.sidebar_hidden, "view choices kept");
    update(&mut m, started("local/small"));
    assert!(notices(&m).is_empty(), "same model: {:?}", notices(&m));
    update(&mut m, Msg::SessionReplaced);
    update(&mut m, started("local/large"));
    assert_eq!(
        notices(&m),
        vec!["local/small is not available any more; this session uses local/large".to_string()]
    );
    assert_eq!(m.model_label, "local/large");
}

#[test]
fn run5_history_event_replays_cells() {
    let mut m = session(80, 24);
    update(
        &mut m,
        Msg::Runtime(Event::History {
            items: vec![
                HistoryItem::Summary,
                HistoryItem::User {
                    text: "list files".into(),
                },
                HistoryItem::Tool {
                    call_id: "c1".into(),
                    tool: "Bash".into(),
                    input: json!({"command": "ls"}),
                    output: "\nREADME.md\nsrc".into(),
                    is_error: false,
                    sub_agent: None,
                    exit_code: None,
                    denial: None,
                },
                HistoryItem::Assistant {
                    text: "Two entries.".into(),
                },
            ],
        }),
    );
    assert_eq!(
        m.cells,
        vec![
            Cell::Notice {
                text: "earlier conversation compacted".into()
            },
            Cell::User {
                text: "list files".into()
            },
            Cell::Tool {
                call_id: "c1".into(),
                tool: "Bash".into(),
                summary: "ls".into(),
                status: ToolStatus::Done,
                detail: "README.md".into(),
                output: "README.md\nsrc".into(),
                diff: None,
                expanded: false,
            },
            Cell::Assistant {
                text: "Two entries.".into(),
                streaming: false
            },
            Cell::Welcome,
        ]
    );
}

// ---- snapshots -------------------------------------------------------------

#[test]
fn tui4_snapshot_slash_popup() {
    let mut m = session(72, 16);
    type_text(&mut m, "/");
    update(&mut m, key(KeyCode::Down));
    let terminal = render(&m, 72, 16);
    snapshot("slash_popup", format!("{:?}", terminal.backend().buffer()));
}

#[test]
fn tui4_snapshot_slash_popup_filtered() {
    let mut m = session(60, 10);
    type_text(&mut m, "/mo");
    snapshot("slash_popup_filtered", screen(&m, 60, 10));
}

#[test]
fn tui4_snapshot_picker_modes() {
    let mut m = session(90, 12);
    submit(&mut m, "/mode");
    snapshot("picker_modes", screen(&m, 90, 12));
}

#[test]
fn tui4_snapshot_picker_models() {
    let mut m = session(72, 12);
    update(&mut m, Msg::Models(models()));
    update(&mut m, key(KeyCode::Down));
    snapshot("picker_models", screen(&m, 72, 12));
}

#[test]
fn grant4_snapshot_picker_permissions() {
    let mut m = session(60, 12);
    update(
        &mut m,
        Msg::Runtime(Event::ProjectRules {
            rules: three_rules(),
        }),
    );
    update(&mut m, key(KeyCode::Down));
    snapshot("picker_permissions", screen(&m, 60, 12));
}

#[test]
fn tui4_snapshot_picker_sessions() {
    let mut m = session(80, 12);
    update(&mut m, Msg::Sessions(sessions()));
    snapshot("picker_sessions", screen(&m, 80, 12));
}

/// A saved rule and the rules of two settings files, one not trusted.
fn rules_from_files() -> Vec<SavedRule> {
    let from = |kind, rule, source, applied| SavedRule {
        kind,
        rule,
        source,
        applied,
    };
    vec![
        SavedRule::saved(RuleKind::Allow, Rule::with_content("Bash", "git status:*")),
        from(
            RuleKind::Allow,
            Rule::with_content("Bash", "make:*"),
            RuleSource::ClaudeSettings,
            false,
        ),
        from(
            RuleKind::Deny,
            Rule::with_content("Read", "./.env"),
            RuleSource::ClaudeSettings,
            true,
        ),
        from(
            RuleKind::Ask,
            Rule::with_content("Bash", "git push:*"),
            RuleSource::ZcodeSettings,
            true,
        ),
    ]
}

#[test]
fn team_rules_snapshot_picker_shows_sources_and_trust() {
    let mut m = session(72, 12);
    update(
        &mut m,
        Msg::Runtime(Event::ProjectRules {
            rules: rules_from_files(),
        }),
    );
    update(&mut m, key(KeyCode::Down));
    snapshot("picker_permissions_sources", screen(&m, 72, 12));
    // A file's rule is changed in the file: `d` says so and sends nothing.
    assert!(update(&mut m, key(KeyCode::Char('d'))).is_empty());
    assert!(update(&mut m, key(KeyCode::Char('d'))).is_empty());
    let shown = screen(&m, 72, 12);
    assert!(!shown.contains("d again removes it"), "{shown}");
}

#[test]
fn team_rules_permissions_trust_sends_the_trust() {
    let mut m = session(60, 12);
    let cmds = submit(&mut m, "/permissions trust");
    assert!(
        cmds.iter()
            .any(|c| matches!(c, Cmd::Send(Op::TrustProjectSettings))),
        "{cmds:?}"
    );
}

#[test]
fn grant4_snapshot_picker_permissions_empty() {
    let mut m = session(60, 10);
    update(
        &mut m,
        Msg::Runtime(Event::ProjectRules { rules: Vec::new() }),
    );
    snapshot("picker_permissions_empty", screen(&m, 60, 10));
}

// ---- the runtime side ------------------------------------------------------

/// MODEL-3 against a catalog of two models of the fake provider, keeping
/// the current provider's connection (the fake server).
fn fake_resolver() -> ModelResolver {
    Arc::new(|reference: &str, current: &SelectedModel| {
        let mut provider = support::fake_provider(ProviderKind::Openai, "http://unused");
        for id in ["fake-model", "other-model"] {
            provider.models.push(zcode::config::Model {
                id: id.into(),
                context_window: Some(100_000),
                reasoning_levels: Vec::new(),
                default_reasoning: None,
                disabled: None,
                stream: Default::default(),
                prices: None,
            });
        }
        let catalog = Catalog {
            providers: vec![provider],
        };
        let resolved = resolve_model_reference(&catalog, reference, Some(&current.provider_id))
            .map_err(|e| format!("/model {reference}: {e}"))?;
        Ok(SelectedModel {
            provider: current.provider.clone(),
            provider_id: resolved.provider_id,
            model_id: resolved.model_id,
            reasoning: resolved.reasoning,
            context_window: Some(100_000),
            window_lookup: None,
            prices: None,
        })
    })
}

fn model_changes(h: &Harness) -> usize {
    h.count(|e| matches!(e, Event::ModelChanged { .. }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model3_switch_takes_effect_on_the_next_request() {
    let mut setup = Setup::new(Dialect::OpenAi, Mode::Build);
    setup.model_resolver = Some(fake_resolver());
    let mut h = setup.start().await;
    h.enqueue_text("first");
    h.input("one");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);

    // A reference that does not resolve: the MODEL-3 text, nothing changes.
    h.send(Op::SetModel {
        reference: "nope".into(),
    });
    let message = h
        .wait_for("Error", |e| match e {
            Event::Error { message } => Some(message.clone()),
            _ => None,
        })
        .await;
    assert!(message.contains("unknown model 'nope'"), "{message}");
    assert!(message.contains("fake/other-model"), "{message}");
    assert!(message.contains("`zcode models`"), "{message}");
    assert_eq!(model_changes(&h), 0);

    h.send(Op::SetModel {
        reference: "OTHER-model".into(),
    });
    let (label, _) = h
        .wait_for("ModelChanged", |e| match e {
            Event::ModelChanged {
                model, provider, ..
            } => Some((model.clone(), provider.clone())),
            _ => None,
        })
        .await;
    assert_eq!(label, "fake/other-model");
    h.enqueue_text("second");
    h.input("two");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let requests = h.server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].json()["model"], "fake-model");
    assert_eq!(requests[1].json()["model"], "other-model");
    // The session's model label is stored.
    let record = h.store().get_session(&h.session_id).unwrap().unwrap();
    assert_eq!(record.model.as_deref(), Some("fake/other-model"));
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model3_without_a_resolver_the_switch_is_refused() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    h.send(Op::SetModel {
        reference: "fake/other".into(),
    });
    let message = h
        .wait_for("Error", |e| match e {
            Event::Error { message } => Some(message.clone()),
            _ => None,
        })
        .await;
    assert!(message.contains("cannot switch models"), "{message}");
    h.shutdown().await;
}

fn is_permission_requested(e: &Event) -> bool {
    matches!(e, Event::PermissionRequested { .. })
}

async fn project_rules(h: &mut Harness) -> Vec<SavedRule> {
    h.wait_for("ProjectRules", |e| match e {
        Event::ProjectRules { rules } => Some(rules.clone()),
        _ => None,
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grant4_removing_a_rule_makes_the_next_check_ask_again() {
    let touch = Rule::with_content("Bash", "touch:*");
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build)
        .rule(RuleKind::Allow, touch.clone())
        .rule(RuleKind::Deny, Rule::with_content("Bash", "rm:*"))
        .start()
        .await;
    h.send(Op::ListProjectRules);
    let rules = project_rules(&mut h).await;
    assert_eq!(
        rules,
        vec![
            SavedRule::saved(RuleKind::Allow, touch.clone()),
            SavedRule::saved(RuleKind::Deny, Rule::with_content("Bash", "rm:*")),
        ]
    );
    // The saved rule allows the call without asking.
    h.enqueue_bash("call_1", "touch a.txt");
    h.enqueue_text("done");
    h.input("make a file");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    assert_eq!(h.count(is_permission_requested), 0, "{}", h.log_text());

    h.send(Op::RemoveProjectRule {
        kind: RuleKind::Allow,
        rule: touch.clone(),
    });
    let rules = project_rules(&mut h).await;
    assert_eq!(rules.len(), 1);
    assert_eq!(h.project_rules(RuleKind::Allow), Vec::<Rule>::new());
    assert!(
        h.log
            .iter()
            .any(|e| matches!(e, Event::Notice { message } if message.contains("removed the project rule allow Bash(touch:*)"))),
        "{}",
        h.log_text()
    );

    // Same session, same call: now it asks.
    h.enqueue_bash("call_2", "touch b.txt");
    h.enqueue_text("done");
    h.input("another file");
    let request = h.permission_request().await;
    assert_eq!(request.input, json!({"command": "touch b.txt"}));
    h.interrupt();
    h.turn_finished().await;
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tui4_show_todos_lists_marks_and_progress() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    h.send(Op::ShowTodos);
    let empty = h
        .wait_for("Notice", |e| match e {
            Event::Notice { message } => Some(message.clone()),
            _ => None,
        })
        .await;
    assert_eq!(empty, "no todos in this session");
    h.store()
        .replace_todos(
            &h.session_id,
            &[
                TodoItem::new("read the spec", TodoStatus::Completed, TodoPriority::High),
                TodoItem::new("write code", TodoStatus::InProgress, TodoPriority::High),
                TodoItem::new("test it", TodoStatus::Pending, TodoPriority::Low),
            ],
        )
        .unwrap();
    h.send(Op::ShowTodos);
    let list = h
        .wait_for("Notice", |e| match e {
            Event::Notice { message } if message.starts_with("todos") => Some(message.clone()),
            _ => None,
        })
        .await;
    assert_eq!(
        list,
        "todos (1/3 completed)\n✓ read the spec\n▶ write code\n☐ test it"
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run5_resume_replays_the_conversation() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    let missing = h.path("missing.txt").to_string_lossy().into_owned();
    let args = json!({ "file_path": missing }).to_string();
    h.enqueue_tool_calls(&[("call_1", "Read", &args)]);
    h.enqueue_text("The file does not exist.");
    h.input("read missing.txt");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    h.stop().await;

    // A second runtime resumes the session, as `/resume` does.
    let home =
        h.db.ancestors()
            .nth(3)
            .expect("home above cli/db/db.sqlite")
            .to_path_buf();
    let setup = RuntimeSetup {
        workspace: h.workspace.clone(),
        project_id: h.project_id.clone(),
        zcode_home: home,
        model: SelectedModel::offline_demo(),
        settings: Default::default(),
        hooks: Default::default(),
        disallowed_tools: Vec::new(),
        start: SessionStart::Resume(h.session_id.clone()),
        explicit_mode: None,
        config_mode: None,
        headless: false,
        broker: BrokerChoice::Channel,
        model_resolver: None,
        mcp: Default::default(),
        agents: Default::default(),
        client_files: None,
    };
    let mut handle = zcode::runtime::start(setup, Store::open(&h.db).unwrap()).unwrap();
    let mut model = Model::new(80, 24);
    let mut history = None;
    while history.is_none() {
        let event = tokio::time::timeout(
            support::runtime_harness::EVENT_TIMEOUT,
            handle.events.recv(),
        )
        .await
        .expect("an event")
        .expect("the runtime runs");
        if let Event::SessionStarted { resumed, .. } = &event {
            assert!(resumed);
        }
        if let Event::History { items } = &event {
            history = Some(items.clone());
        }
        update(&mut model, Msg::Runtime(event));
    }
    let items = history.unwrap_or_default();
    assert_eq!(items.len(), 3, "{items:?}");
    assert_eq!(
        items[0],
        HistoryItem::User {
            text: "read missing.txt".into()
        }
    );
    assert!(
        matches!(&items[1], HistoryItem::Tool { tool, is_error: true, .. } if tool == "Read"),
        "{items:?}"
    );
    assert_eq!(
        items[2],
        HistoryItem::Assistant {
            text: "The file does not exist.".into()
        }
    );
    // The transcript shows them after the notices (offline demo, resumed),
    // then the welcome.
    let cells = &model.cells;
    assert!(matches!(&cells[cells.len() - 5], Cell::Notice { text } if text == "resumed session"));
    assert!(matches!(&cells[cells.len() - 4], Cell::User { text } if text == "read missing.txt"));
    assert!(matches!(
        &cells[cells.len() - 3],
        Cell::Tool {
            status: ToolStatus::Failed,
            ..
        }
    ));
    assert!(matches!(&cells[cells.len() - 2], Cell::Assistant { .. }));
    assert!(matches!(&cells[cells.len() - 1], Cell::Welcome));
    let _ = handle.ops.send(Op::Shutdown);
    let _ = handle.task.await;
}

#[test]
fn tui4_mcp_shows_the_servers_and_trusts_a_project_server() {
    let mut m = session(80, 24);
    assert_eq!(submit(&mut m, "/mcp"), vec![Cmd::Send(Op::ShowMcp)]);
    assert_eq!(
        submit(&mut m, "/mcp trust files"),
        vec![Cmd::Send(Op::TrustMcpServer {
            name: "files".into()
        })]
    );
    assert!(submit(&mut m, "/mcp files").is_empty());
    assert!(
        errors(&m)
            .last()
            .is_some_and(|e| e.contains("/mcp takes no argument, or trust NAME")),
        "{:?}",
        errors(&m)
    );
}

// ---- command files and skills ------------------------------------------------

/// A workspace with `.zcode/commands/fix-issue.md` (frontmatter description
/// and argument hint) and `.claude/commands/frontend/lint.md` (description
/// from its first line), and one skill.
fn workspace_with_command_files() -> tempfile::TempDir {
    let ws = tempfile::tempdir().expect("temp dir");
    let write = |path: &str, text: &str| {
        let path = ws.path().join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write(
        ".zcode/commands/fix-issue.md",
        "---\ndescription: Fix a GitHub issue by number\nargument-hint: [number] [priority]\n---\nFix issue #$1 with priority $2.\nAll arguments: $ARGUMENTS\n",
    );
    write(
        ".claude/commands/frontend/lint.md",
        "# Lint the frontend\n\nRun the linter on the UI code.\n",
    );
    write(
        ".zcode/commands/help.md",
        "A file cannot replace the built-in /help.\n",
    );
    write(
        ".claude/skills/pdf/SKILL.md",
        "---\nname: pdf-forms\ndescription: Fill in PDF forms\n---\nUse scripts/fill.py.\n",
    );
    ws
}

/// A started session with the workspace's command files and skills, as
/// the TUI loads them at start.
fn session_with_files(ws: &std::path::Path, width: u16, height: u16) -> Model {
    let mut m = session(width, height);
    let home = ws.join("no-home");
    let reserved: Vec<&str> = zcode::tui::slash::COMMANDS.iter().map(|c| c.name).collect();
    let (commands, problems) = zcode::extensions::commands::load_commands(ws, &home, &reserved);
    let (skills, _) = zcode::extensions::skills::load_skills(ws, &home);
    let notices = zcode::tui::app::add_extensions(
        &mut m,
        zcode::tui::launcher::Extensions {
            commands,
            skills,
            problems: problems.iter().map(|p| p.to_string()).collect(),
        },
    );
    // The app tells them once the session has started.
    for message in notices {
        update(&mut m, Msg::Runtime(Event::Notice { message }));
    }
    m
}

#[test]
fn command_file_listed_in_slash_popup_with_its_description() {
    let ws = workspace_with_command_files();
    let mut m = session_with_files(ws.path(), 80, 12);
    // The file named like a built-in was left out, and said so once.
    let told = notices(&m);
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].starts_with("Command file left out: "), "{told:?}");
    assert!(told[0].ends_with("help.md: /help is a built-in command; rename the file to use it"));
    m.cells.clear();
    type_text(&mut m, "/f");
    assert_eq!(popup_names(&m), vec!["fix-issue", "frontend:lint"]);
    snapshot("slash_popup_command_files", screen(&m, 80, 12));
}

#[test]
fn command_file_slash_command_sends_the_expanded_text() {
    let ws = workspace_with_command_files();
    let mut m = session_with_files(ws.path(), 80, 24);
    let cmds = submit(&mut m, "/fix-issue 42 \"very high\"");
    assert_eq!(
        cmds,
        vec![Cmd::Send(Op::UserInput {
            text: "Fix issue #42 with priority very high.\nAll arguments: 42 \"very high\"".into()
        })]
    );
    assert!(m.busy);
    assert_eq!(m.history, vec!["/fix-issue 42 \"very high\"".to_string()]);
    assert!(errors(&m).is_empty());
}

#[test]
fn command_file_chosen_in_the_popup_sends_its_text() {
    let ws = workspace_with_command_files();
    let mut m = session_with_files(ws.path(), 80, 24);
    type_text(&mut m, "/frontend");
    assert_eq!(popup_selected(&m).as_deref(), Some("frontend:lint"));
    let cmds = update(&mut m, key(KeyCode::Enter));
    assert_eq!(
        cmds,
        vec![Cmd::Send(Op::UserInput {
            text: "# Lint the frontend\n\nRun the linter on the UI code.".into()
        })]
    );
    // Tab completes the name, with a space when the file has an argument hint.
    type_text(&mut m, "/fix");
    update(&mut m, key(KeyCode::Tab));
    assert_eq!(m.composer.text(), "/fix-issue ");
}

#[test]
fn command_file_unknown_command_error_lists_the_files_too() {
    let ws = workspace_with_command_files();
    let mut m = session_with_files(ws.path(), 80, 24);
    m.cells.clear();
    assert!(submit(&mut m, "/fix-isue 1").is_empty());
    let errors = errors(&m);
    assert!(
        errors[0].starts_with("unknown command /fix-isue;"),
        "{errors:?}"
    );
    assert!(
        errors[0].contains("/fix-issue, /frontend:lint"),
        "{errors:?}"
    );
}

#[test]
fn command_files_and_skills_in_help_and_skills() {
    let ws = workspace_with_command_files();
    let mut m = session_with_files(ws.path(), 100, 40);
    m.cells.clear();
    submit(&mut m, "/help");
    let help = notices(&m).pop().expect("the help text");
    assert!(help.contains("\n  /skills "), "{help}");
    assert!(
        help.contains("command files:\n  /fix-issue [number] [priority]"),
        "{help}"
    );
    assert!(
        help.contains("Fix a GitHub issue by number (project)"),
        "{help}"
    );
    assert!(help.contains("/frontend:lint"), "{help}");
    submit(&mut m, "/skills");
    let skills = notices(&m).pop().expect("the skills list");
    assert!(
        skills.starts_with("skills (the model loads one with the Skill tool"),
        "{skills}"
    );
    assert!(skills.contains("pdf-forms"), "{skills}");
    assert!(skills.contains("Fill in PDF forms (project: "), "{skills}");
    assert!(skills.contains(".claude/skills/pdf)"), "{skills}");
}

#[test]
fn skills_command_without_skills_says_where_they_go() {
    let mut m = session(80, 24);
    submit(&mut m, "/skills");
    let text = notices(&m).pop().expect("a notice");
    assert!(
        text.starts_with("no skills: a skill is a folder with a SKILL.md in .zcode/skills/"),
        "{text}"
    );
}
