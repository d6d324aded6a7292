//! A long transcript for the TUI-2 tests and the frame benches: user
//! messages, multi-paragraph Markdown replies (some with code), tool calls
//! and notices, in the proportions of a long working session.

use zcode::tui::cells::{Cell, ToolStatus};
use zcode::tui::{Model, Msg, update};

/// The `i`th cell of the transcript.
pub fn cell(i: usize) -> Cell {
    match i % 4 {
        0 => Cell::User {
            text: format!(
                "message {i}: the test in src/module_{i}.rs fails after the last change, \
                 can you look at it and fix the cause rather than the symptom?"
            ),
        },
        1 => Cell::Assistant {
            text: reply(i),
            streaming: false,
        },
        2 => Cell::Tool {
            call_id: format!("call_{i}"),
            tool: if i % 8 == 2 { "Read" } else { "Bash" }.into(),
            summary: format!("cargo test --test module_{i} -- --nocapture"),
            status: if i % 16 == 6 {
                ToolStatus::Failed
            } else {
                ToolStatus::Done
            },
            detail: format!("test result: ok. {i} passed; 0 failed"),
            output: format!("running {i} tests\ntest result: ok. {i} passed; 0 failed"),
            diff: None,
            expanded: false,
        },
        _ => Cell::Notice {
            text: format!("notice {i}: context at {}%", i % 100),
        },
    }
}

/// A Markdown reply of a few paragraphs; every fifth one has a code block.
pub fn reply(i: usize) -> String {
    let mut text = format!(
        "Reply {i}. The failure comes from **the parser** reading `input_{i}` before \
         the configuration is loaded, so the defaults win and the *override* is lost.\n\n\
         - first, load the configuration in `main`\n\
         - then, pass it to the parser explicitly\n\
         - finally, add a regression test\n\n\
         That keeps the change small and the behaviour the same for every other caller, \
         which matters because the parser is shared by the command line and the server."
    );
    if i % 5 == 1 {
        text.push_str(&format!(
            "\n\n```rust\nfn parse_{i}(config: &Config, input: &str) -> Result<Ast> {{\n    \
             let tokens = lex(input)?;\n    Parser::new(config).parse(&tokens)\n}}\n```\n\n\
             The test now passes."
        ));
    }
    text
}

/// A model of `n` cells at `width` x `height`, laid out by one `update`.
pub fn model(n: usize, width: u16, height: u16) -> Model {
    let mut m = Model::new(width, height);
    m.cells = (0..n).map(cell).collect();
    update(&mut m, Msg::Resize(width, height));
    m
}
