//! The project's instructions reach the model: `AGENTS.md` from the
//! repository root down to the workspace (closest last), `CLAUDE.md` where a
//! directory has none, the global `$ZCODE_HOME/AGENTS.md` first, each with
//! its path; and the environment section names today's date, the git branch
//! and status, and the shell. Checked in the system message of the real
//! request the fake model server receives.

#![cfg(unix)]

mod support;

use support::runtime_harness::{Dialect, Setup};
use zcode::permission::mode::Mode;
use zcode::runtime::protocol::TurnEnd;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_md_files_and_the_environment_reach_the_system_prompt() {
    let setup = Setup::new(Dialect::OpenAi, Mode::Build);
    let ws = setup.workspace_dir();
    std::fs::write(
        setup.home_dir().join("AGENTS.md"),
        "Answer in British English.",
    )
    .unwrap();
    std::fs::write(ws.join("AGENTS.md"), "Use pnpm, never npm.").unwrap();
    let mut h = setup.start().await;
    h.enqueue_text("ok");
    h.input("hello");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let messages = h.request_messages(0);
    let system = messages[0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(messages[0]["role"], "system", "{messages:?}");
    let global = system
        .find("Answer in British English.")
        .expect("the global file");
    let project = system
        .find("Use pnpm, never npm.")
        .expect("the project file");
    assert!(global < project, "the closest file comes last: {system}");
    assert!(
        system.contains(&format!(
            "path=\"{}\"",
            h.workspace.join("AGENTS.md").display()
        )),
        "{system}"
    );
    assert!(system.contains("- Today's date: 20"), "{system}");
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_instruction_files_the_prompt_has_no_instructions_section() {
    let mut h = Setup::new(Dialect::OpenAi, Mode::Build).start().await;
    h.enqueue_text("ok");
    h.input("hello");
    assert_eq!(h.turn_finished().await.0, TurnEnd::Completed);
    let system = h.request_messages(0)[0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(!system.contains("# Project instructions"), "{system}");
    assert!(system.contains("- Today's date:"), "{system}");
    h.shutdown().await;
}
