//! Sub-agents in the TUI: one live cell per Agent call (its description,
//! type, model, the tool it runs now, its tool calls, tokens and time by the
//! model's clock), several running at once under one header, a one-line
//! summary once ended, the transcript behind Ctrl+O, approvals and denials
//! that name the agent, and a resumed session's finished agents.
//! Snapshots live in the top-level `snapshots/` directory.

mod support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::tui::{bash_request, ctrl, event, screen, session, snapshot, styled, turn_started};
use zcode::model::Usage;
use zcode::protocol::{
    Denial, Event, HistoryItem, PermissionRequest, ResolvedBy, SubAgentInfo, SubAgentRecord,
    SubAgentStatus, SubAgentSummary, TurnEnd,
};
use zcode::store::{TodoItem, TodoPriority, TodoStatus};
use zcode::tui::cells::{Cell, ToolStatus};
use zcode::tui::keys::hints;
use zcode::tui::{Model, Msg, focus::focus, step, update};

const MODEL: &str = "anthropic/claude-haiku-4-5";

fn info(label: &str, description: &str) -> SubAgentInfo {
    let agent_type = label.split(" #").next().unwrap_or_default();
    SubAgentInfo {
        label: label.into(),
        agent_type: agent_type.into(),
        description: description.into(),
        model: MODEL.into(),
        session_id: format!("sess_{}", label.replace([' ', '#'], "")),
    }
}

/// A session whose turn started at `t0` (the model's clock), the model
/// having said it sends agents.
fn busy(width: u16, height: u16, t0: Instant) -> Model {
    let mut m = session(width, height);
    update(&mut m, Msg::Tick(t0));
    turn_started(
        &mut m,
        1,
        "Find where a login is checked and how sessions expire",
    );
    event(
        &mut m,
        Event::AssistantMessage {
            text: "I'll search the code base with explore agents.".into(),
        },
    );
    m
}

/// The Agent call `call_id` and the sub-agent it started.
fn start(m: &mut Model, call_id: &str, label: &str, description: &str) {
    event(
        m,
        Event::ToolCallStarted {
            call_id: call_id.into(),
            tool: "Agent".into(),
            input: json!({
                "description": description,
                "prompt": format!("{description}: report file:line facts."),
                "subagent_type": label.split(" #").next().unwrap_or_default(),
            }),
        },
    );
    event(
        m,
        Event::SubAgentStarted {
            parent_tool_use_id: call_id.into(),
            agent: info(label, description),
        },
    );
    inner(
        m,
        call_id,
        label,
        Event::TurnStarted {
            turn: 1,
            text: format!("{description}: report file:line facts."),
        },
    );
}

/// One of the sub-agent's own events.
fn inner(m: &mut Model, call_id: &str, label: &str, event: Event) {
    update(
        m,
        Msg::Runtime(Event::SubAgentEvent {
            parent_tool_use_id: call_id.into(),
            label: label.into(),
            event: Box::new(event),
        }),
    );
}

fn tool(m: &mut Model, call_id: &str, label: &str, id: &str, name: &str, input: serde_json::Value) {
    inner(
        m,
        call_id,
        label,
        Event::ToolCallStarted {
            call_id: id.into(),
            tool: name.into(),
            input,
        },
    );
}

fn done(m: &mut Model, call_id: &str, label: &str, id: &str, output: &str) {
    inner(
        m,
        call_id,
        label,
        Event::ToolCallFinished {
            call_id: id.into(),
            tool: "Read".into(),
            output: output.into(),
            is_error: false,
            diff: None,
            exit_code: None,
        },
    );
}

fn usage(m: &mut Model, call_id: &str, label: &str, input_tokens: u64, output_tokens: u64) {
    let usage = Usage {
        input_tokens,
        output_tokens,
        ..Default::default()
    };
    inner(
        m,
        call_id,
        label,
        Event::Usage {
            usage,
            total: usage,
        },
    );
}

fn finish(m: &mut Model, call_id: &str, label: &str, status: SubAgentStatus, summary: &str) {
    let (tool_calls, tokens, secs) = match status {
        SubAgentStatus::Completed => (7, 12_300, 14),
        SubAgentStatus::Failed => (3, 4_100, 6),
        SubAgentStatus::Cancelled => (2, 2_000, 3),
    };
    event(
        m,
        Event::SubAgentFinished {
            parent_tool_use_id: call_id.into(),
            label: label.into(),
            summary: SubAgentSummary {
                status,
                tool_calls,
                usage: Usage {
                    input_tokens: tokens - 300,
                    output_tokens: 300,
                    ..Default::default()
                },
                elapsed_ms: secs * 1000 + 400,
                summary: summary.into(),
            },
        },
    );
    event(
        m,
        Event::ToolCallFinished {
            call_id: call_id.into(),
            tool: "Agent".into(),
            output: format!("{summary}\n\n(7 tools · 12.3k tokens · 14 s)"),
            is_error: status != SubAgentStatus::Completed,
            diff: None,
            exit_code: None,
        },
    );
}

/// One explore agent 14 seconds in: two calls done, a Grep running.
fn one_running(width: u16, height: u16) -> Model {
    let t0 = support::tui::clock_origin();
    let mut m = busy(width, height, t0);
    let (c, l) = ("c1", "explore #1");
    start(&mut m, c, l, "find the login check");
    tool(
        &mut m,
        c,
        l,
        "t1",
        "Glob",
        json!({"pattern": "src/**/auth*.rs"}),
    );
    done(&mut m, c, l, "t1", "src/auth.rs\nsrc/auth/session.rs");
    tool(
        &mut m,
        c,
        l,
        "t2",
        "Read",
        json!({"file_path": "src/auth.rs"}),
    );
    done(
        &mut m,
        c,
        l,
        "t2",
        "     1\tuse crate::session;\n     2\tpub fn login() {}",
    );
    usage(&mut m, c, l, 8_000, 400);
    tool(
        &mut m,
        c,
        l,
        "t3",
        "Grep",
        json!({"pattern": "fn check_login"}),
    );
    update(&mut m, Msg::Tick(t0 + Duration::from_millis(14_300)));
    m
}

/// Three agents at once, 9 seconds in: two running, one done.
fn three(width: u16, height: u16) -> Model {
    let t0 = support::tui::clock_origin();
    let mut m = busy(width, height, t0);
    let agents = [
        ("c1", "explore #1", "find the login check"),
        ("c2", "explore #2", "find session expiry"),
        ("c3", "explore #3", "list the auth tests"),
    ];
    for (c, l, d) in agents {
        start(&mut m, c, l, d);
    }
    tool(
        &mut m,
        "c1",
        "explore #1",
        "a1",
        "Grep",
        json!({"pattern": "fn check_login"}),
    );
    usage(&mut m, "c1", "explore #1", 5_200, 300);
    tool(
        &mut m,
        "c2",
        "explore #2",
        "b1",
        "Read",
        json!({"file_path": "src/auth/session.rs"}),
    );
    done(
        &mut m,
        "c2",
        "explore #2",
        "b1",
        "pub const TTL: u64 = 3600;",
    );
    tool(
        &mut m,
        "c2",
        "explore #2",
        "b2",
        "Bash",
        json!({"command": "git log --oneline -5 -- src/auth"}),
    );
    usage(&mut m, "c2", "explore #2", 9_900, 600);
    update(&mut m, Msg::Tick(t0 + Duration::from_secs(6)));
    finish(
        &mut m,
        "c3",
        "explore #3",
        SubAgentStatus::Completed,
        "Auth tests live in tests/auth.rs (12 tests) and tests/session.rs:40.",
    );
    update(&mut m, Msg::Tick(t0 + Duration::from_millis(9_200)));
    m
}

/// Three ended agents: completed, failed, cancelled.
fn ended(width: u16, height: u16) -> Model {
    let mut m = three(width, height);
    finish(
        &mut m,
        "c1",
        "explore #1",
        SubAgentStatus::Failed,
        "provider error: HTTP 529 overloaded",
    );
    finish(
        &mut m,
        "c2",
        "explore #2",
        SubAgentStatus::Cancelled,
        "interrupted; found so far: TTL in src/auth/session.rs:3",
    );
    m
}

#[test]
fn agents_one_running_80() {
    snapshot(
        "agents_one_running_80",
        screen(&one_running(80, 24), 80, 24),
    );
}

#[test]
fn agents_one_running_160() {
    snapshot(
        "agents_one_running_160",
        screen(&one_running(160, 24), 160, 24),
    );
}

#[test]
fn agents_three_running_as_a_group_80() {
    snapshot("agents_group_running_80", screen(&three(80, 24), 80, 24));
}

#[test]
fn agents_three_running_as_a_group_160() {
    snapshot("agents_group_running_160", screen(&three(160, 24), 160, 24));
}

#[test]
fn agents_finished_completed_failed_cancelled_80() {
    snapshot("agents_finished_80", screen(&ended(80, 24), 80, 24));
}

#[test]
fn agents_finished_completed_failed_cancelled_160() {
    snapshot("agents_finished_160", screen(&ended(160, 24), 160, 24));
}

#[test]
fn agents_finished_marks_are_coloured() {
    let shown = styled(&ended(80, 24), 80, 24);
    snapshot("agents_finished_styled", shown);
}

/// One agent's transcript, expanded with Ctrl+O.
fn expanded(width: u16, height: u16) -> Model {
    let mut m = one_running(width, height);
    done(
        &mut m,
        "c1",
        "explore #1",
        "t3",
        "src/auth.rs:42: fn check_login(user: &User)",
    );
    inner(
        &mut m,
        "c1",
        "explore #1",
        Event::AssistantMessage {
            text: "The login is checked in src/auth.rs:42 (check_login).".into(),
        },
    );
    finish(
        &mut m,
        "c1",
        "explore #1",
        SubAgentStatus::Completed,
        "The login is checked in src/auth.rs:42 (check_login).",
    );
    update(&mut m, ctrl('o'));
    m
}

#[test]
fn agents_expanded_80() {
    snapshot("agents_expanded_80", screen(&expanded(80, 30), 80, 30));
}

#[test]
fn agents_expanded_160() {
    snapshot("agents_expanded_160", screen(&expanded(160, 30), 160, 30));
}

/// A general-purpose agent's Bash call asks in the session's queue, its
/// Full access option left out (FULL-1).
fn asking(width: u16, height: u16) -> Model {
    let mut m = three(width, height);
    let (c, l) = ("c4", "general-purpose #4");
    start(&mut m, c, l, "run the auth tests");
    tool(
        &mut m,
        c,
        l,
        "d1",
        "Bash",
        json!({"command": "cargo test --workspace"}),
    );
    let request = PermissionRequest {
        call_id: "d1".into(),
        full_access_available: false,
        agent: Some(l.into()),
        ..bash_request("perm_sub")
    };
    event(&mut m, Event::PermissionRequested { request });
    m
}

#[test]
fn agents_approval_names_the_agent_80() {
    snapshot("agents_approval_label_80", screen(&asking(80, 24), 80, 24));
}

#[test]
fn agents_approval_names_the_agent_160() {
    snapshot(
        "agents_approval_label_160",
        screen(&asking(160, 30), 160, 30),
    );
}

#[test]
fn agents_approval_waits_in_the_agent_cell_not_a_parent_cell() {
    let mut m = three(80, 24);
    // Call ids are per model stream: the session's own call may share the
    // id of a sub-agent's.
    event(
        &mut m,
        Event::ToolCallStarted {
            call_id: "a2".into(),
            tool: "Read".into(),
            input: json!({"file_path": "README.md"}),
        },
    );
    tool(
        &mut m,
        "c1",
        "explore #1",
        "a2",
        "Bash",
        json!({"command": "cargo test"}),
    );
    let request = PermissionRequest {
        call_id: "a2".into(),
        full_access_available: false,
        agent: Some("explore #1".into()),
        ..bash_request("perm_sub")
    };
    event(&mut m, Event::PermissionRequested { request });
    let group = |m: &Model| match m.cells.iter().find(|c| matches!(c, Cell::Agents(_))) {
        Some(Cell::Agents(g)) => g.clone(),
        _ => panic!("an agent group"),
    };
    let parent_status = |m: &Model| {
        m.cells.iter().find_map(|c| match c {
            Cell::Tool {
                call_id, status, ..
            } if call_id == "a2" => Some(*status),
            _ => None,
        })
    };
    assert!(group(&m).agents[0].waiting);
    assert!(!group(&m).agents[1].waiting);
    assert_eq!(parent_status(&m), Some(ToolStatus::Running));
    assert!(screen(&m, 80, 30).contains("Bash cargo test · waiting for you"));
    event(
        &mut m,
        Event::PermissionResolved {
            request_id: "perm_sub".into(),
            by: ResolvedBy::User,
        },
    );
    assert!(!group(&m).agents[0].waiting);
    assert_eq!(parent_status(&m), Some(ToolStatus::Running));
}

#[test]
fn agents_resumed_session_shows_finished_agents() {
    let mut m = session(80, 16);
    let record = |label: &str, description: &str, status, summary: &str| SubAgentRecord {
        agent: info(label, description),
        summary: SubAgentSummary {
            status,
            tool_calls: 5,
            usage: Usage {
                input_tokens: 9_000,
                output_tokens: 500,
                ..Default::default()
            },
            elapsed_ms: 11_000,
            summary: summary.into(),
        },
    };
    event(
        &mut m,
        Event::History {
            items: vec![
                HistoryItem::User {
                    text: "Where is the login checked?".into(),
                },
                HistoryItem::Tool {
                    call_id: "c1".into(),
                    tool: "Agent".into(),
                    input: json!({"description": "find the login check"}),
                    output: "The login is checked in src/auth.rs:42.\nIt calls session::valid."
                        .into(),
                    is_error: false,
                    sub_agent: Some(Box::new(record(
                        "explore #1",
                        "find the login check",
                        SubAgentStatus::Completed,
                        "The login is checked in src/auth.rs:42.",
                    ))),
                    exit_code: None,
                    denial: None,
                },
                HistoryItem::Tool {
                    call_id: "c2".into(),
                    tool: "Agent".into(),
                    input: json!({"description": "find session expiry"}),
                    output: "Failed: HTTP 529".into(),
                    is_error: true,
                    sub_agent: Some(Box::new(record(
                        "explore #2",
                        "find session expiry",
                        SubAgentStatus::Failed,
                        "provider error: HTTP 529",
                    ))),
                    exit_code: None,
                    denial: None,
                },
                HistoryItem::Assistant {
                    text: "The login is checked in src/auth.rs:42.".into(),
                },
            ],
        },
    );
    snapshot("agents_resumed", screen(&m, 80, 16));
    update(&mut m, ctrl('o'));
    snapshot("agents_resumed_expanded", screen(&m, 80, 24));
}

#[test]
fn agents_events_of_concurrent_agents_reach_their_own_cells() {
    let m = three(80, 24);
    let groups: Vec<_> = m
        .cells
        .iter()
        .filter_map(|c| match c {
            Cell::Agents(g) => Some(g),
            _ => None,
        })
        .collect();
    assert_eq!(groups.len(), 1, "three agents of one reply are one group");
    let agents = &groups[0].agents;
    let labels: Vec<&str> = agents.iter().map(|a| a.info.label.as_str()).collect();
    assert_eq!(labels, ["explore #1", "explore #2", "explore #3"]);
    assert_eq!(agents[0].tool_calls, 1);
    assert_eq!(agents[1].tool_calls, 2);
    assert_eq!(agents[1].usage.input_tokens, 9_900);
    assert_eq!(agents[0].current_tool(), Some(("Grep", "fn check_login")));
    assert_eq!(
        agents[1].current_tool(),
        Some(("Bash", "git log --oneline -5 -- src/auth"))
    );
    // No tool cell of the Agent calls is left beside the group.
    assert!(!m.cells.iter().any(|c| matches!(c, Cell::Tool { .. })));
}

#[test]
fn agents_a_later_replys_agent_starts_a_group_of_its_own() {
    let mut m = one_running(80, 24);
    finish(
        &mut m,
        "c1",
        "explore #1",
        SubAgentStatus::Completed,
        "found it",
    );
    start(&mut m, "c9", "explore #2", "check the tests");
    let groups = m
        .cells
        .iter()
        .filter(|c| matches!(c, Cell::Agents(_)))
        .count();
    assert_eq!(groups, 2);
}

#[test]
fn agents_elapsed_time_comes_from_the_ticks() {
    let t0 = support::tui::clock_origin();
    let mut m = busy(80, 24, t0);
    start(&mut m, "c1", "explore #1", "find the login check");
    let elapsed = |m: &Model| match m.cells.iter().find(|c| matches!(c, Cell::Agents(_))) {
        Some(Cell::Agents(g)) => g.agents[0].elapsed_ms(),
        _ => panic!("an agent cell"),
    };
    assert_eq!(elapsed(&m), 0);
    update(&mut m, Msg::Tick(t0 + Duration::from_secs(3)));
    assert_eq!(elapsed(&m), 3_000);
    assert!(screen(&m, 80, 24).contains("· 3 s"));
    update(&mut m, Msg::Tick(t0 + Duration::from_secs(61)));
    assert!(screen(&m, 80, 24).contains("· 1 min 1 s"));
}

#[test]
fn agents_a_sub_agents_todos_leave_the_sidebar_alone() {
    let mut m = one_running(160, 24);
    let own = vec![TodoItem::new(
        "Review the auth code",
        TodoStatus::InProgress,
        TodoPriority::High,
    )];
    event(&mut m, Event::TodosChanged { todos: own.clone() });
    inner(
        &mut m,
        "c1",
        "explore #1",
        Event::TodosChanged {
            todos: vec![TodoItem::new(
                "grep",
                TodoStatus::Pending,
                TodoPriority::Low,
            )],
        },
    );
    assert_eq!(m.todos, own);
}

#[test]
fn agents_interrupting_the_turn_cancels_the_running_agents() {
    let mut m = three(80, 24);
    event(
        &mut m,
        Event::TurnFinished {
            end: TurnEnd::Interrupted,
            answer: None,
        },
    );
    let Some(Cell::Agents(group)) = m.cells.iter().find(|c| matches!(c, Cell::Agents(_))) else {
        panic!("an agent group");
    };
    let statuses: Vec<_> = group
        .agents
        .iter()
        .map(|a| a.finished.as_ref().map(|s| s.status))
        .collect();
    assert_eq!(
        statuses,
        [
            Some(SubAgentStatus::Cancelled),
            Some(SubAgentStatus::Cancelled),
            Some(SubAgentStatus::Completed)
        ]
    );
    assert!(screen(&m, 80, 24).contains("3 agents · 1 done · 2 cancelled"));
}

#[test]
fn agents_a_denial_names_the_agent() {
    // Inside its transcript while it runs.
    let mut m = one_running(80, 24);
    let denial = Denial {
        call_id: "t9".into(),
        tool: "Bash".into(),
        input: json!({"command": "rm -rf target"}),
        rule_id: "explore.read_only".into(),
        reason: "explore agents run read-only commands only".into(),
        agent: Some("explore #1".into()),
    };
    inner(
        &mut m,
        "c1",
        "explore #1",
        Event::ToolCallDenied {
            denial: denial.clone(),
        },
    );
    update(&mut m, ctrl('o'));
    let shown = screen(&m, 80, 40);
    assert!(shown.contains("⊘ Bash rm -rf target"), "{shown}");
    assert!(
        shown.contains("explore agents run read-only commands only"),
        "{shown}"
    );
    // At the top level once its agent is gone: a cell of its own, named.
    let mut m = session(80, 24);
    event(&mut m, Event::ToolCallDenied { denial });
    let shown = screen(&m, 80, 24);
    assert!(
        shown.contains("⊘ explore #1 · Bash rm -rf target"),
        "{shown}"
    );
}

#[test]
fn agents_the_footer_shows_the_expand_key() {
    let mut m = one_running(80, 24);
    let keys: Vec<_> = hints(focus(&m), &m);
    assert!(keys.contains(&("ctrl+o", "expand")), "{keys:?}");
    update(&mut m, ctrl('o'));
    let keys: Vec<_> = hints(focus(&m), &m);
    assert!(keys.contains(&("ctrl+o", "collapse")), "{keys:?}");
    // Without agents the footer stays as it was.
    let m = session(80, 24);
    let keys: Vec<_> = hints(focus(&m), &m);
    assert!(!keys.iter().any(|(k, _)| *k == "ctrl+o"), "{keys:?}");
}

#[test]
fn agents_streamed_text_of_a_collapsed_agent_costs_no_layout() {
    let mut m = one_running(80, 24);
    let delta = |text: &str| {
        Msg::Runtime(Event::SubAgentEvent {
            parent_tool_use_id: "c1".into(),
            label: "explore #1".into(),
            event: Box::new(Event::AssistantDelta { text: text.into() }),
        })
    };
    m.dirty = false;
    step(&mut m, delta("The login"));
    assert!(m.cells.changes().is_none(), "no cell to lay out again");
    assert!(!m.dirty, "nothing to draw");
    // Expanded, the text shows: the cell is laid out again.
    update(&mut m, ctrl('o'));
    step(&mut m, delta(" is checked"));
    assert!(m.cells.changes().is_some());
}

#[test]
fn agents_their_requests_leave_the_context_figure_alone() {
    // The runtime adds a sub-agent's usage to the session's, reporting it
    // as the session's own `Usage`: the context shown is the parent's.
    let mut m = session(120, 24);
    let parent = Usage {
        input_tokens: 24_000,
        output_tokens: 100,
        ..Default::default()
    };
    event(
        &mut m,
        Event::Usage {
            usage: parent,
            total: parent,
        },
    );
    start(&mut m, "c1", "explore #1", "find the login check");
    let sub = Usage {
        input_tokens: 3_000,
        output_tokens: 50,
        ..Default::default()
    };
    event(
        &mut m,
        Event::Usage {
            usage: sub,
            total: parent,
        },
    );
    usage(&mut m, "c1", "explore #1", 3_000, 50);
    assert_eq!(m.context_tokens, 24_000);
    finish(
        &mut m,
        "c1",
        "explore #1",
        SubAgentStatus::Completed,
        "done",
    );
    event(
        &mut m,
        Event::Usage {
            usage: Usage {
                input_tokens: 26_000,
                output_tokens: 10,
                ..Default::default()
            },
            total: parent,
        },
    );
    assert_eq!(m.context_tokens, 26_000);
}

#[test]
fn agents_any_width_draws_and_model_text_stays_on_its_row() {
    let t0 = support::tui::clock_origin();
    let mut m = busy(80, 24, t0);
    // A description with line breaks and a control character.
    start(&mut m, "c1", "explore #1", "find\nthe \u{1b}[31mlogin");
    start(&mut m, "c2", "general-purpose #2", "x");
    tool(
        &mut m,
        "c1",
        "explore #1",
        "t1",
        "Bash",
        json!({"command": "ls\nrm -rf /"}),
    );
    tool(
        &mut m,
        "c1",
        "explore #1",
        "t2",
        "Grep",
        json!({"pattern": "a\u{1b}[2Jb"}),
    );
    done(&mut m, "c1", "explore #1", "t2", "hit\u{1b}[2J here");
    inner(
        &mut m,
        "c2",
        "general-purpose #2",
        Event::AssistantMessage {
            text: "done\u{1b}]0;title\u{7}\there".into(),
        },
    );
    update(&mut m, ctrl('o'));
    for width in [1, 2, 5, 10, 20, 33, 61] {
        let shown = screen(&m, width, 30);
        assert!(!shown.contains('\u{1b}'), "{shown}");
    }
    let shown = screen(&m, 80, 24);
    assert!(shown.contains("explore #1 · find the [31mlogin"), "{shown}");
    assert!(shown.contains("└ Bash ls ·"), "{shown}");
    let shown = screen(&m, 80, 40);
    assert!(shown.contains("● done]0;title    here"), "{shown}");
    assert!(shown.contains("✓ Grep a[2Jb"), "{shown}");
    assert!(shown.contains("└ hit[2J here"), "{shown}");
}

#[test]
fn agents_export_writes_each_agent_with_its_result() {
    let m = ended(80, 24);
    let header = zcode::tui::export::ExportHeader {
        session_id: "sess_1",
        workspace: "",
        model: "",
    };
    let text = zcode::tui::export::transcript_markdown(&m.cells, &header);
    assert!(
        text.contains(
            "**explore #2** find session expiry (cancelled: 2 tool calls · 2k tokens · 3 s)"
        ),
        "{text}"
    );
    assert!(
        text.contains("```text\nAuth tests live in tests/auth.rs"),
        "{text}"
    );
}

#[test]
fn agents_a_scrolled_up_window_stays_when_an_agent_joins_its_group() {
    let t0 = support::tui::clock_origin();
    let mut m = busy(80, 16, t0);
    start(&mut m, "c1", "explore #1", "find the login check");
    for (id, what) in [("c2", "find session expiry"), ("c3", "list the auth tests")] {
        event(
            &mut m,
            Event::ToolCallStarted {
                call_id: id.into(),
                tool: "Agent".into(),
                input: json!({"description": what, "prompt": "…", "subagent_type": "explore"}),
            },
        );
    }
    for n in 0..12 {
        event(
            &mut m,
            Event::Notice {
                message: format!("note {n}"),
            },
        );
    }
    update(&mut m, Msg::Scroll(5));
    let last_row = |m: &Model| {
        let shown = screen(m, 80, 16);
        let rows: Vec<String> = shown.lines().map(str::to_string).collect();
        // The transcript's last row, above the "more below" line.
        let below = rows
            .iter()
            .position(|r| r.contains("more lines · End"))
            .expect("scrolled up");
        rows[below - 1].clone()
    };
    let before = last_row(&m);
    assert!(before.contains("· note 8"), "{before}");
    event(
        &mut m,
        Event::SubAgentStarted {
            parent_tool_use_id: "c2".into(),
            agent: info("explore #2", "find session expiry"),
        },
    );
    assert_eq!(last_row(&m), before);
}
