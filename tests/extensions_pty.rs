//! Command files and skills in the real `zcode` TUI, in a pseudo-terminal
//! (TUI-4): the slash list offers a project's command file with its
//! description, `/name args` sends its expanded text to the model, and
//! `/skills` lists the skills. Waits are on the screen or the server.
#![cfg(unix)]

mod support;

use support::fake_model_server::{FakeModelServer, Reply, sse};
use support::pty::{Pty, PtyOptions, WAIT};

fn write(root: &std::path::Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

#[test]
fn command_file_offered_in_the_tui_and_sent_expanded() {
    let rt = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let server = rt.block_on(FakeModelServer::start());
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    write(
        project.path(),
        ".claude/commands/review.md",
        "---\ndescription: Review the staged changes\nargument-hint: [path]\n---\nReview the staged changes under $1.\n",
    );
    write(
        home.path(),
        "skills/changelog/SKILL.md",
        "---\ndescription: Keep CHANGELOG.md in order\n---\nAdd an entry under Unreleased.\n",
    );
    write(
        project.path(),
        ".claude/commands/mode.md",
        "Not the built-in /mode.\n",
    );
    let options = PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home.path(), project.path())
        .env("OPENAI_BASE_URL", &server.openai_base_url());
    let mut pty = Pty::spawn(options);
    pty.wait_for_mode("build");
    // A file named like a built-in is told once, below the welcome.
    pty.wait_for_text("mode.md: /mode is a built-in command;");
    let screen = pty.screen_text();
    let welcome = screen.find("/help lists commands").expect("the welcome");
    let told = screen.find("Command file left out: ").expect("the notice");
    assert!(welcome < told, "{screen}");

    pty.send("/rev");
    pty.wait_for_text("/review [path]  Review the staged changes (project)");
    // Esc closes the list; the line is then cleared.
    pty.send("\x1b");
    pty.ctrl_c();

    pty.submit("/skills");
    pty.wait_for_text("Keep CHANGELOG.md in order (user:");

    server.enqueue(Reply::sse(sse::openai_text("Looks fine.")));
    pty.submit("/review src/ui");
    assert!(
        rt.block_on(server.wait_for_requests(1, WAIT)),
        "{}",
        pty.screen_text()
    );
    let body = server.requests()[0].json();
    let users: Vec<&str> = body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert_eq!(users, ["Review the staged changes under src/ui."]);
    // The transcript shows what was sent.
    pty.wait_for_text("Review the staged changes under src/ui.");
    pty.wait_for_text("Looks fine.");
    assert!(pty.quit().success());
}
