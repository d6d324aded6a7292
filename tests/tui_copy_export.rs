//! `/copy` and `/export` through `update`:
//! what each produces for the loop to do, and what the user is told.

#![cfg(unix)]

mod support;

use crossterm::event::KeyCode;
use support::tui::{Session, key, type_text};
use zcode::tui::cells::Cell;
use zcode::tui::{Cmd, Model, update};

fn submit(model: &mut Model, line: &str) -> Vec<Cmd> {
    type_text(model, line);
    update(model, key(KeyCode::Esc));
    update(model, key(KeyCode::Enter))
}

fn session() -> Model {
    let mut m = Session::new(100, 30).model("local/small", "local").start();
    m.cells.clear();
    m
}

fn answered(model: &mut Model, text: &str) {
    model.cells.push(Cell::User {
        text: "question".into(),
    });
    model.cells.push(Cell::Assistant {
        text: text.into(),
        streaming: false,
    });
}

fn last_text(model: &Model) -> String {
    match model.cells.last() {
        Some(Cell::Notice { text }) | Some(Cell::Error { text }) => text.clone(),
        other => panic!("no notice or error last: {other:?}"),
    }
}

const ANSWER: &str =
    "Two steps:\n\n```sh\ncargo build\n```\n\nthen\n\n```rust\nfn main() {}\n```\n";

#[test]
fn ux_copy_puts_the_last_answer_on_the_clipboard_and_names_its_code_blocks() {
    let mut m = session();
    answered(&mut m, ANSWER);
    let cmds = submit(&mut m, "/copy");
    assert_eq!(cmds, vec![Cmd::Copy(ANSWER.to_string())]);
    let note = last_text(&m);
    assert!(note.contains("copied the last answer"), "{note}");
    assert!(note.contains("/copy 1 to /copy 2"), "{note}");
}

#[test]
fn ux_copy_n_copies_one_code_block() {
    let mut m = session();
    answered(&mut m, ANSWER);
    assert_eq!(
        submit(&mut m, "/copy 2"),
        vec![Cmd::Copy("fn main() {}\n".to_string())]
    );
    assert!(submit(&mut m, "/copy 3").is_empty());
    let err = last_text(&m);
    assert!(err.contains("2 code blocks"), "{err}");
    assert!(matches!(m.cells.last(), Some(Cell::Error { .. })));
}

#[test]
fn ux_copy_with_no_answer_yet_says_so() {
    let mut m = session();
    assert!(submit(&mut m, "/copy").is_empty());
    assert!(last_text(&m).contains("no answer to copy"));
}

#[test]
fn ux_copy_of_a_huge_answer_points_to_export() {
    let mut m = session();
    answered(&mut m, &"word ".repeat(40_000));
    assert!(submit(&mut m, "/copy").is_empty());
    assert!(last_text(&m).contains("/export"));
}

#[test]
fn ux_export_writes_markdown_to_the_named_or_default_file() {
    let mut m = session();
    m.session_id = "abcdef0123456789".into();
    answered(&mut m, ANSWER);
    match submit(&mut m, "/export notes/chat.md").as_slice() {
        [Cmd::Export { path, markdown }] => {
            assert_eq!(path, std::path::Path::new("notes/chat.md"));
            assert!(markdown.contains("## You\n\nquestion"), "{markdown}");
            assert!(
                markdown.contains("```rust\nfn main() {}\n```"),
                "{markdown}"
            );
        }
        other => panic!("{other:?}"),
    }
    // By default in the exports directory of the zcode home, never in the
    // repository being worked on.
    m.exports_dir = Some("/home/dev/.zcode/exports".into());
    match submit(&mut m, "/export").as_slice() {
        [Cmd::Export { path, .. }] => {
            assert_eq!(
                path,
                std::path::Path::new("/home/dev/.zcode/exports/zcode-abcdef01.md")
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn init_asks_the_model_to_write_agents_md() {
    let mut m = session();
    let cmds = submit(&mut m, "/init");
    match cmds.as_slice() {
        [Cmd::Send(zcode::protocol::Op::UserInput { text })] => {
            assert!(text.contains("AGENTS.md"), "{text}")
        }
        other => panic!("{other:?}"),
    }
    assert!(m.busy);
}
