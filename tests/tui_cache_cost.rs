//! Prompt caches in the TUI: the status line says how much of the context
//! the provider's cache served, and `/cost` shows the session's tokens by
//! kind and what they cost, or that the price is not known.

mod support;

use crossterm::event::KeyCode;
use support::tui::{Session, event, key, screen, snapshot, type_text};
use zcode::model::Usage;
use zcode::protocol::Event;
use zcode::tui::{Model, update};

fn session(width: u16) -> Model {
    Session::new(width, 12)
        .model("anthropic/claude-sonnet-4-5", "anthropic")
        .context_window(200_000)
        .start()
}

/// One reply of a long session: most of the prompt read from the cache.
fn cached_reply() -> Usage {
    Usage {
        input_tokens: 48_000,
        output_tokens: 900,
        cache_read_input_tokens: 41_800,
        cache_creation_input_tokens: 5_900,
        cost_micros: 48_000,
        unpriced_replies: 0,
    }
}

fn status_row(text: &str) -> String {
    text.lines()
        .find(|l| l.contains("ctx "))
        .unwrap_or_else(|| panic!("no status line:\n{text}"))
        .to_string()
}

#[test]
fn cache_status_line_shows_the_share_served_from_the_cache() {
    let mut all = String::new();
    for width in [80, 120, 160] {
        let mut m = session(width);
        let usage = cached_reply();
        event(
            &mut m,
            Event::Usage {
                usage,
                total: usage,
            },
        );
        all.push_str(&format!(
            "@{width}:\n{}\n",
            status_row(&screen(&m, width, 12))
        ));
    }
    snapshot("cache_status_line", all);
}

#[test]
fn cache_status_line_says_nothing_of_a_cache_the_provider_never_used() {
    let mut m = session(160);
    let usage = Usage {
        input_tokens: 48_000,
        output_tokens: 900,
        ..Default::default()
    };
    event(
        &mut m,
        Event::Usage {
            usage,
            total: usage,
        },
    );
    let row = status_row(&screen(&m, 160, 12));
    assert!(!row.contains("cache"), "{row}");
}

fn run_cost(m: &mut Model) -> String {
    type_text(m, "/cost");
    update(m, key(KeyCode::Enter));
    screen(m, 100, 12)
}

#[test]
fn cache_cost_command_shows_tokens_by_kind_and_dollars() {
    let mut m = session(100);
    let first = Usage {
        input_tokens: 12_000,
        output_tokens: 400,
        cache_creation_input_tokens: 11_500,
        cost_micros: 49_000,
        ..Default::default()
    };
    let mut total = first;
    event(
        &mut m,
        Event::Usage {
            usage: first,
            total,
        },
    );
    total.add(cached_reply());
    event(
        &mut m,
        Event::Usage {
            usage: cached_reply(),
            total,
        },
    );
    snapshot("cache_cost_command", run_cost(&mut m));
}

#[test]
fn cache_cost_command_says_when_no_price_is_known() {
    let mut m = session(100);
    let usage = Usage {
        input_tokens: 3_000,
        output_tokens: 100,
        cache_read_input_tokens: 2_000,
        unpriced_replies: 1,
        ..Default::default()
    };
    event(
        &mut m,
        Event::Usage {
            usage,
            total: usage,
        },
    );
    let text = run_cost(&mut m);
    assert!(text.contains("Session cost: not known"), "{text}");
    assert!(!text.contains("$0"), "{text}");
}
