//! The tool approval panel in the app (TUI-3, APPR-6, SUG-2): what will run
//! (the Bash command highlighted, the URL, the diff) and the rules an
//! "always" answer saves. Styled snapshots, since colour carries meaning.
//! A long body (a diff, a command, a plan) scrolls in the panel and opens
//! full screen; a short screen shows a diff's changed lines first.

mod support;

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use serde_json::json;
use std::collections::HashSet;
use std::time::Instant;
use support::tui::{Session, ctrl, key, render, screen, snapshot, styled, turn_started};
use zcode::permission::rules::Rule;
use zcode::protocol::{AlwaysOption, Event, Op, PermissionReply, PermissionRequest, RequestKind};
use zcode::tui::focus::{Focus, focus};
use zcode::tui::{Cmd, Model, Msg, update};

fn session(width: u16, height: u16, task: &str) -> Model {
    let mut m = Session::new(width, height)
        .model("local/qwen3", "Local")
        .start();
    update(&mut m, Msg::Tick(Instant::now()));
    turn_started(&mut m, 1, task);
    m
}

fn request(tool: &str, input: serde_json::Value, suggestions: Vec<Rule>) -> PermissionRequest {
    PermissionRequest {
        request_id: "perm_1".into(),
        kind: RequestKind::Tool,
        call_id: "call_1".into(),
        tool: tool.into(),
        input,
        rule_id: "ask.default".into(),
        reason: match tool {
            "Bash" => "runs a command that can change files",
            "Edit" => "edits a file in the workspace",
            "WebFetch" => "fetches a page from the internet",
            _ => "needs your approval",
        }
        .into(),
        suggestions,
        always: AlwaysOption::Project,
        full_access_available: true,
        description: None,
        edit_mode_available: false,
        allowed_prompts: Vec::new(),
        preview: None,
        agent: None,
    }
}

fn asking(width: u16, height: u16, request: PermissionRequest) -> Model {
    let mut m = session(width, height, "Do the thing");
    update(
        &mut m,
        Msg::Runtime(Event::ToolCallStarted {
            call_id: request.call_id.clone(),
            tool: request.tool.clone(),
            input: request.input.clone(),
        }),
    );
    update(&mut m, Msg::Runtime(Event::PermissionRequested { request }));
    m
}

fn bash_prefixes(n: usize) -> Vec<Rule> {
    [
        "npm run build:*",
        "make test:*",
        "git commit:*",
        "cargo test:*",
        "python -m pytest:*",
        "docker compose up:*",
        "terraform apply:*",
    ]
    .iter()
    .take(n)
    .map(|p| Rule::with_content("Bash", *p))
    .collect()
}

/// The lowest screen row holding `needle` (the panel is below the
/// transcript).
fn row_with(terminal: &Terminal<TestBackend>, needle: &str) -> u16 {
    let buffer = terminal.backend().buffer();
    let width = buffer.area.width;
    (0..buffer.area.height)
        .rev()
        .find(|y| {
            let row: String = (0..width)
                .map(|x| buffer[(x, *y)].symbol().to_string())
                .collect();
            row.contains(needle)
        })
        .unwrap_or_else(|| panic!("no row with {needle:?}"))
}

#[test]
fn sug2_bash_panel_lists_the_prefixes_beside_the_always_option() {
    let cmd = r#"npm run build && make test && git commit -m "wip""#;
    let m = asking(
        100,
        24,
        request("Bash", json!({"command": cmd}), bash_prefixes(3)),
    );
    let screen = screen(&m, 100, 24);
    assert!(
        screen.contains(
            "2. Always allow in this project: npm run build:*, make test:*, git commit:*"
        ),
        "{screen}"
    );
    snapshot("approval_bash_prefixes_styled", styled(&m, 100, 24));
}

#[test]
fn sug2_at_most_five_prefixes_are_shown_with_a_count_of_the_rest() {
    let m = asking(
        160,
        24,
        request("Bash", json!({"command": "x"}), bash_prefixes(7)),
    );
    let screen = screen(&m, 160, 24);
    assert!(
        screen.contains(
            "Always allow in this project: npm run build:*, make test:*, git commit:*, cargo test:*, python -m pytest:* (+2 more)"
        ),
        "{screen}"
    );
    assert!(!screen.contains("docker compose"), "{screen}");
}

#[test]
fn tui3_bash_command_is_syntax_highlighted() {
    let cmd = r#"rm -rf build && echo "done" | tee log.txt"#;
    let m = asking(
        100,
        24,
        request("Bash", json!({"command": cmd}), bash_prefixes(1)),
    );
    let terminal = render(&m, 100, 24);
    let y = row_with(&terminal, "rm -rf build");
    let buffer = terminal.backend().buffer();
    let colours: HashSet<Color> = (0..100u16)
        .map(|x| &buffer[(x, y)])
        .filter(|c| !c.symbol().trim().is_empty())
        .map(|c| c.fg)
        .collect();
    assert!(
        colours.len() >= 3,
        "the command row should carry several token colours, got {colours:?}"
    );
}

#[test]
fn tui3_long_bash_command_wraps_and_scrolls_in_the_panel() {
    let cmd = format!("echo {}", "word ".repeat(200));
    let m = asking(
        60,
        30,
        request("Bash", json!({"command": cmd}), bash_prefixes(1)),
    );
    let screen = screen(&m, 60, 30);
    assert!(screen.contains("lines 1–15 of 18"), "{screen}");
    assert!(screen.contains("1. Allow once"), "{screen}");
}

#[test]
fn sug1_webfetch_panel_shows_the_url_and_saves_the_domain() {
    let m = asking(
        80,
        24,
        request(
            "WebFetch",
            json!({"url": "https://docs.rs/ratatui/latest/ratatui/", "prompt": "What is a Frame?"}),
            vec![Rule::with_content("WebFetch", "domain:docs.rs")],
        ),
    );
    let screen = screen(&m, 80, 24);
    assert!(
        screen.contains("WebFetch fetches a page from the internet"),
        "{screen}"
    );
    assert!(
        screen.contains("https://docs.rs/ratatui/latest/ratatui/"),
        "{screen}"
    );
    assert!(
        screen.contains("2. Always allow in this project: domain:docs.rs"),
        "{screen}"
    );
    snapshot("approval_webfetch_styled", styled(&m, 80, 24));
}

#[test]
fn appr6_edit_panel_diff_in_colour() {
    let mut r = request(
        "Edit",
        json!({"file_path": "src/lib.rs", "old_string": "fn a()", "new_string": "fn b()"}),
        vec![Rule::with_content("Edit", "src/lib.rs")],
    );
    r.always = AlwaysOption::Session;
    r.full_access_available = false;
    r.preview = Some(
        "--- src/lib.rs\n+++ src/lib.rs\n@@ -1,3 +1,3 @@\n //! lib\n-fn a() {}\n+fn b() {}\n"
            .into(),
    );
    let m = asking(80, 24, r);
    let terminal = render(&m, 80, 24);
    let buffer = terminal.backend().buffer();
    let minus = row_with(&terminal, "-fn a() {}");
    let plus = row_with(&terminal, "+fn b() {}");
    let first_fg = |y: u16| {
        (0..80u16)
            .map(|x| &buffer[(x, y)])
            .find(|c| c.symbol() == "-" || c.symbol() == "+")
            .map(|c| c.fg)
    };
    assert_eq!(first_fg(minus), Some(Color::Red));
    assert_eq!(first_fg(plus), Some(Color::Green));
    snapshot("approval_edit_diff_styled", styled(&m, 80, 24));
}

// ---- Approvals you can read whole: the body scrolls, opens full screen,
// and a short screen shows the changed lines first. ----------------------

/// An Edit of `src/lib.rs` whose preview is `unified(old → new)`, as the
/// tool builds it (three lines of context), with a description and every
/// option a file change can offer.
fn edit_request(old: &str, new: &str) -> PermissionRequest {
    let preview = zcode::tools::diff::unified(std::path::Path::new("src/lib.rs"), Some(old), new);
    let mut r = request(
        "Edit",
        json!({"file_path": "src/lib.rs", "old_string": "x", "new_string": "y"}),
        vec![Rule::with_content("Edit", "src/lib.rs")],
    );
    r.description = Some("Make b three so the test passes".into());
    r.always = AlwaysOption::Session;
    r.edit_mode_available = true;
    r.preview = Some(preview);
    r
}

/// A two-line change in the middle of a file: the diff has its file
/// headers, a hunk header and three lines of context on each side.
fn two_line_edit() -> PermissionRequest {
    let old: String = (1..=12).map(|i| format!("    let v{i} = {i};\n")).collect();
    let new = old.replace("    let v6 = 6;\n", "    let v6 = 60;\n");
    edit_request(&old, &new)
}

/// A Write of a new 122-line file: a 125-line diff.
fn long_write() -> PermissionRequest {
    let content: String = (1..=122).map(|i| format!("line {i}\n")).collect();
    let preview = zcode::tools::diff::unified(std::path::Path::new("notes.md"), None, &content);
    let mut r = request(
        "Write",
        json!({"file_path": "notes.md", "content": content}),
        vec![Rule::with_content("Write", "notes.md")],
    );
    r.reason = "writes to a file in the workspace".into();
    r.always = AlwaysOption::Session;
    r.preview = Some(preview);
    r
}

fn long_command() -> String {
    (1..=40)
        .map(|i| format!("echo step {i} && cargo test --test case_{i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn long_plan(request_id: &str) -> PermissionRequest {
    let steps: Vec<String> = (1..=60)
        .map(|i| format!("{i}. Change module {i}"))
        .collect();
    let mut r = request(
        "ExitPlanMode",
        json!({"plan": format!("# Plan\n\n{}", steps.join("\n"))}),
        Vec::new(),
    );
    r.request_id = request_id.into();
    r.kind = RequestKind::Plan;
    r.always = AlwaysOption::None;
    r.full_access_available = false;
    r
}

/// The one reply `cmds` sends, if any.
fn reply(cmds: &[Cmd]) -> Option<&PermissionReply> {
    cmds.iter().find_map(|c| match c {
        Cmd::Send(Op::PermissionReply { reply, .. }) => Some(reply),
        _ => None,
    })
}

#[test]
fn approval_two_line_edit_at_80x24_shows_its_changed_lines_first() {
    let m = asking(80, 24, two_line_edit());
    let screen = screen(&m, 80, 24);
    assert!(screen.contains("-    let v6 = 6;"), "{screen}");
    assert!(screen.contains("+    let v6 = 60;"), "{screen}");
    assert!(screen.contains("1. Allow once"), "{screen}");
    // The file headers are what gave way.
    assert!(!screen.contains("--- src/lib.rs"), "{screen}");
    snapshot("approval_two_line_edit_80x24", &screen);
    // Smaller still: the changes stay, the context and the blank rows go.
    for (w, h) in [(80, 20), (60, 18), (40, 16)] {
        let m = asking(w, h, two_line_edit());
        let screen = support::tui::screen(&m, w, h);
        assert!(screen.contains("-    let v6 = 6;"), "{w}×{h}: {screen}");
        assert!(screen.contains("+    let v6 = 60;"), "{w}×{h}: {screen}");
        assert!(screen.contains("5. Deny"), "{w}×{h}: {screen}");
    }
}

#[test]
fn approval_two_line_edit_on_a_wide_screen_shows_the_whole_diff() {
    let m = asking(160, 40, two_line_edit());
    let screen = screen(&m, 160, 40);
    assert!(screen.contains("--- src/lib.rs"), "{screen}");
    assert!(screen.contains("+    let v6 = 60;"), "{screen}");
    assert!(!screen.contains("lines shown"), "{screen}");
    snapshot("approval_two_line_edit_160x40", &screen);
}

#[test]
fn approval_diff_scrolls_with_page_down() {
    let mut m = asking(80, 24, long_write());
    let first = screen(&m, 80, 24);
    // It opens at its first change, past the file headers.
    assert!(first.contains("lines 3–"), "{first}");
    assert!(first.contains("of 125"), "{first}");
    assert!(first.contains("+line 1 "), "{first}");
    assert!(update(&mut m, key(KeyCode::PageDown)).is_empty());
    let paged = screen(&m, 80, 24);
    assert!(!paged.contains("+line 1 "), "{paged}");
    assert!(paged.contains("of 125"), "{paged}");
    assert_eq!(m.approvals.len(), 1, "still waiting");
    snapshot("approval_diff_125_lines_scrolled_80x24", &paged);
    // ↓ moves the options, not the body.
    update(&mut m, key(KeyCode::Down));
    assert_eq!(m.panel().map(|p| p.selected), Some(1));
    assert_eq!(
        screen(&m, 80, 24)
            .lines()
            .filter(|l| l.contains("of 125"))
            .count(),
        1
    );
}

#[test]
fn approval_diff_scrolls_with_j_and_k_on_a_wide_screen() {
    let mut m = asking(160, 40, long_write());
    for _ in 0..5 {
        update(&mut m, key(KeyCode::Char('j')));
    }
    update(&mut m, key(KeyCode::Char('k')));
    let screen = screen(&m, 160, 40);
    assert!(screen.contains("lines 7–21 of 125"), "{screen}");
    snapshot("approval_diff_125_lines_scrolled_160x40", &screen);
}

#[test]
fn approval_diff_scroll_stops_at_both_ends() {
    let mut m = asking(80, 24, long_write());
    update(&mut m, key(KeyCode::End));
    let end = screen(&m, 80, 24);
    assert!(end.contains("of 125"), "{end}");
    assert!(end.contains("+line 122"), "{end}");
    for _ in 0..3 {
        update(&mut m, key(KeyCode::PageDown));
        update(&mut m, key(KeyCode::Char('j')));
    }
    assert_eq!(screen(&m, 80, 24), end, "nothing past the end");
    update(&mut m, key(KeyCode::Home));
    let top = screen(&m, 80, 24);
    assert!(top.contains("lines 1–"), "{top}");
    assert!(top.contains("--- /dev/null"), "{top}");
    update(&mut m, key(KeyCode::Char('k')));
    update(&mut m, key(KeyCode::PageUp));
    assert_eq!(screen(&m, 80, 24), top, "nothing above the top");
}

#[test]
fn approval_ctrl_o_opens_the_diff_full_screen_and_esc_returns_to_the_panel() {
    let mut m = asking(80, 24, long_write());
    assert!(update(&mut m, ctrl('o')).is_empty());
    assert_eq!(focus(&m), Focus::FullScreen);
    let full = screen(&m, 80, 24);
    assert!(
        full.contains("Permission · Write · lines 1–22 of "),
        "{full}"
    );
    assert!(full.contains("--- /dev/null"), "{full}");
    assert!(
        !full.contains("Allow once"),
        "no options full screen: {full}"
    );
    assert!(full.contains("esc/q/ctrl+o back to the options"), "{full}");
    snapshot("approval_full_screen_80x24", &full);
    update(&mut m, key(KeyCode::End));
    let end = screen(&m, 80, 24);
    assert!(end.contains("+line 122"), "{end}");
    // Esc (and q, Ctrl+O) go back: nothing is answered.
    for back in [key(KeyCode::Esc), key(KeyCode::Char('q')), ctrl('o')] {
        let cmds = update(&mut m, back);
        assert!(reply(&cmds).is_none(), "{cmds:?}");
        assert_eq!(focus(&m), Focus::Approval(RequestKind::Tool));
        assert_eq!(m.approvals.len(), 1, "still waiting");
        update(&mut m, ctrl('o'));
    }
    update(&mut m, key(KeyCode::Esc));
    assert!(screen(&m, 80, 24).contains("1. Allow once"));
    // Back on the panel, Esc denies as before.
    assert_eq!(
        reply(&update(&mut m, key(KeyCode::Esc))),
        Some(&PermissionReply::Deny { feedback: None })
    );
}

#[test]
fn approval_full_screen_answers_nothing_whatever_is_pressed() {
    let mut m = asking(80, 24, long_write());
    update(&mut m, ctrl('o'));
    for code in [
        KeyCode::Enter,
        KeyCode::Char('1'),
        KeyCode::Char('2'),
        KeyCode::Char('y'),
        KeyCode::Tab,
        KeyCode::Down,
        KeyCode::PageDown,
    ] {
        let cmds = update(&mut m, key(code));
        assert!(cmds.is_empty(), "{code:?}: {cmds:?}");
        assert_eq!(focus(&m), Focus::FullScreen, "{code:?}");
    }
    update(&mut m, Msg::Paste("1\n".into()));
    assert_eq!(m.approvals.len(), 1);
    // Ctrl+C still interrupts the turn that waits.
    assert_eq!(update(&mut m, ctrl('c')), vec![Cmd::Send(Op::Interrupt)]);
}

#[test]
fn approval_full_screen_scrolls_with_keys_and_the_wheel() {
    let mut m = asking(80, 24, long_write());
    update(&mut m, ctrl('o'));
    update(&mut m, key(KeyCode::Down));
    update(&mut m, key(KeyCode::Char('j')));
    assert!(screen(&m, 80, 24).contains("lines 3–24 of "));
    update(&mut m, Msg::Scroll(-3));
    assert!(screen(&m, 80, 24).contains("lines 6–27 of "));
    update(&mut m, Msg::Scroll(30));
    assert!(screen(&m, 80, 24).contains("lines 1–22 of "));
    assert_eq!(m.scroll, 0, "the transcript stays where it was");
}

#[test]
fn approval_full_screen_at_a_tiny_size_still_goes_back() {
    let mut m = asking(30, 6, long_write());
    update(&mut m, ctrl('o'));
    let tiny = screen(&m, 30, 6);
    assert!(tiny.contains("Permission"), "{tiny}");
    update(&mut m, key(KeyCode::End));
    assert!(screen(&m, 30, 6).contains("+line 122"));
    update(&mut m, key(KeyCode::Esc));
    assert_eq!(focus(&m), Focus::Approval(RequestKind::Tool));
    assert_eq!(m.approvals.len(), 1);
}

#[test]
fn approval_long_command_scrolls_in_the_panel() {
    let mut r = request("Bash", json!({"command": long_command()}), bash_prefixes(2));
    r.description = Some("Run every case".into());
    let mut m = asking(80, 24, r.clone());
    let first = screen(&m, 80, 24);
    assert!(first.contains("echo step 1 &&"), "{first}");
    assert!(first.contains("of 40"), "{first}");
    update(&mut m, key(KeyCode::PageDown));
    let paged = screen(&m, 80, 24);
    assert!(!paged.contains("echo step 1 &&"), "{paged}");
    snapshot("approval_long_command_80x24", &paged);
    let mut wide = asking(160, 40, r);
    update(&mut wide, key(KeyCode::End));
    let end = screen(&wide, 160, 40);
    assert!(end.contains("echo step 40 &&"), "{end}");
    assert!(end.contains("lines 26–40 of 40"), "{end}");
    snapshot("approval_long_command_160x40", &end);
}

#[test]
fn approval_long_command_full_screen() {
    let mut m = asking(
        80,
        24,
        request("Bash", json!({"command": long_command()}), bash_prefixes(1)),
    );
    update(&mut m, ctrl('o'));
    update(&mut m, key(KeyCode::End));
    let end = screen(&m, 80, 24);
    assert!(end.contains("echo step 40 &&"), "{end}");
    assert!(!end.contains("Allow once"), "{end}");
    snapshot("approval_long_command_full_screen_80x24", &end);
}

#[test]
fn approval_long_plan_scrolls_and_opens_full_screen() {
    let mut m = session(80, 24, "Plan the refactor");
    update(
        &mut m,
        Msg::Runtime(Event::PermissionRequested {
            request: long_plan("plan_1"),
        }),
    );
    update(&mut m, key(KeyCode::Char('j')));
    update(&mut m, key(KeyCode::PageDown));
    let panel = screen(&m, 80, 24);
    assert!(panel.contains("of 62"), "{panel}");
    assert!(panel.contains("1. Approve the plan"), "{panel}");
    snapshot("approval_long_plan_scrolled_80x24", &panel);
    update(&mut m, ctrl('o'));
    update(&mut m, key(KeyCode::End));
    let full = screen(&m, 80, 24);
    assert!(full.contains("60. Change module 60"), "{full}");
    assert!(!full.contains("Approve the plan"), "{full}");
    snapshot("approval_long_plan_full_screen_80x24", &full);
    // Back on the panel the plan waits where it was.
    update(&mut m, key(KeyCode::Char('q')));
    assert_eq!(screen(&m, 80, 24), panel);
    let mut wide = session(160, 40, "Plan the refactor");
    update(
        &mut wide,
        Msg::Runtime(Event::PermissionRequested {
            request: long_plan("plan_1"),
        }),
    );
    snapshot("approval_long_plan_160x40", screen(&wide, 160, 40));
}

#[test]
fn approval_feedback_field_can_open_the_plan_full_screen() {
    let mut m = session(80, 24, "Plan the refactor");
    update(
        &mut m,
        Msg::Runtime(Event::PermissionRequested {
            request: long_plan("plan_1"),
        }),
    );
    update(&mut m, key(KeyCode::Char('2')));
    update(&mut m, key(KeyCode::Char('x')));
    update(&mut m, ctrl('o'));
    assert_eq!(focus(&m), Focus::FullScreen);
    update(&mut m, key(KeyCode::Esc));
    assert_eq!(focus(&m), Focus::Feedback(RequestKind::Plan));
    assert_eq!(m.panel().and_then(|p| p.feedback.as_deref()), Some("x"));
}

#[test]
fn approval_sub_agent_request_scrolls_and_opens_full_screen() {
    let mut r = long_write();
    r.agent = Some("explore #2".into());
    let mut m = asking(80, 24, r);
    let panel = screen(&m, 80, 24);
    assert!(panel.contains("explore #2 · Write"), "{panel}");
    update(&mut m, key(KeyCode::PageDown));
    assert!(!screen(&m, 80, 24).contains("+line 1 "));
    update(&mut m, ctrl('o'));
    let full = screen(&m, 80, 24);
    assert!(full.contains("Permission · explore #2 · Write"), "{full}");
    update(&mut m, key(KeyCode::Esc));
    assert_eq!(
        reply(&update(&mut m, key(KeyCode::Char('1')))),
        Some(&PermissionReply::AllowOnce)
    );
}

#[test]
fn approval_footer_names_the_scroll_and_full_screen_keys() {
    let m = asking(80, 24, long_write());
    let s = screen(&m, 80, 24);
    let footer = s.lines().last().unwrap_or_default();
    assert!(footer.contains("j/k scroll"), "{footer}");
    assert!(footer.contains("ctrl+o full screen"), "{footer}");
    // A short command does not scroll: only the full-screen key.
    let m = asking(
        80,
        24,
        request("Bash", json!({"command": "ls"}), bash_prefixes(1)),
    );
    let s = screen(&m, 80, 24);
    let footer = s.lines().last().unwrap_or_default();
    assert!(!footer.contains("j/k"), "{footer}");
    assert!(footer.contains("ctrl+o full screen"), "{footer}");
}

#[test]
fn approval_a_change_that_reads_like_a_file_header_is_never_dropped() {
    // A removed line "-- old" and an added "++ new" show as "--- old" and
    // "+++ new": they are changes, kept and coloured as changes.
    let old: String = (1..=12).map(|i| format!("l{i}\n")).collect();
    let new = old.replace("l6\n", "++ new\n").replace("l7\n", "");
    let old = old.replace("l6\n", "-- old\n");
    let m = asking(80, 20, edit_request(&old, &new));
    let terminal = render(&m, 80, 20);
    let y = row_with(&terminal, "+++ new");
    let buffer = terminal.backend().buffer();
    let fg = (0..80u16)
        .map(|x| &buffer[(x, y)])
        .find(|c| c.symbol() == "+")
        .map(|c| c.fg);
    assert_eq!(fg, Some(Color::Green));
    let screen = support::tui::screen(&m, 80, 20);
    assert!(screen.contains("--- old"), "{screen}");
}

#[test]
fn approval_full_screen_on_a_wide_screen_wraps_long_lines() {
    let long = format!("    let text = \"{}\";\n", "word ".repeat(50));
    let old: String = (1..=8).map(|i| format!("    let v{i} = {i};\n")).collect();
    let new = old.replace("    let v4 = 4;\n", &long);
    let mut m = asking(160, 40, edit_request(&old, &new));
    update(&mut m, ctrl('o'));
    let full = screen(&m, 160, 40);
    // The whole line, to its end, in two rows, where the panel cuts it.
    assert!(full.contains("word \";"), "{full}");
    assert!(full.contains("Make b three so the test passes"), "{full}");
    snapshot("approval_full_screen_160x40", &full);
}
