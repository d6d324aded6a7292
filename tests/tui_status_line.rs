//! The status line names where the session works: the
//! workspace's directory and the git branch, giving way before the mode's
//! description on narrow terminals.

mod support;

use support::tui::{Session, screen};

#[test]
fn ux_the_status_line_names_the_workspace_and_branch() {
    let mut m = Session::new(140, 12).model("local/small", "local").start();
    m.workspace = "/home/dev/zcode".into();
    m.git_branch = Some("feature/login".into());
    let text = screen(&m, 140, 12);
    let status = text
        .lines()
        .find(|l| l.contains("local/small"))
        .unwrap_or_else(|| panic!("no status line:\n{text}"));
    assert!(status.contains("zcode@feature/login"), "{status}");
    // Narrow: the mode's description keeps its room; the place goes first.
    let narrow = screen(&m, 70, 12);
    assert!(!narrow.contains("zcode@feature/login"), "{narrow}");
}

#[test]
fn llama_cpp_status_line_names_the_served_model() {
    use support::tui::{event, snapshot};
    use zcode::protocol::Event;
    let mut m = Session::new(100, 8)
        .model("openai/gpt-4.1", "OpenAI")
        .start();
    m.workspace = "/home/dev/zcode".into();
    let served = |model: &str| Event::ServedModelFound {
        model: model.into(),
        served: "openai/qwen2.5-coder-7b-q4_k_m.gguf".into(),
    };
    // An answer about another model changes nothing.
    event(&mut m, served("openai/other"));
    assert!(screen(&m, 100, 8).contains("openai/gpt-4.1"));
    event(&mut m, served("openai/gpt-4.1"));
    let text = screen(&m, 100, 8);
    assert!(!text.contains("gpt-4.1"), "{text}");
    snapshot("status_line_served_model_100", text);
}
