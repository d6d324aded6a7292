//! The tool approval panel in the app (TUI-3, APPR-6, SUG-2): what will run
//! (the Bash command highlighted, the URL, the diff) and the rules an
//! "always" answer saves. Styled snapshots, since colour carries meaning.

mod support;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use serde_json::json;
use std::collections::HashSet;
use std::time::Instant;
use support::tui::{Session, render, screen, snapshot, styled, turn_started};
use zcode::permission::rules::Rule;
use zcode::protocol::{AlwaysOption, Event, PermissionRequest, RequestKind};
use zcode::tui::{Model, Msg, update};

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
fn tui3_long_bash_command_wraps_and_is_cut_after_six_rows() {
    let cmd = format!("echo {}", "word ".repeat(200));
    let m = asking(
        60,
        30,
        request("Bash", json!({"command": cmd}), bash_prefixes(1)),
    );
    let screen = screen(&m, 60, 30);
    assert!(screen.contains("more lines"), "{screen}");
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
