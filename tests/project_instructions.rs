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
use zcode::protocol::TurnEnd;

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

/// "Remember that we use pnpm" in one run is known in the next: the model
/// writes its note into the project's memory directory (allowed there
/// without asking) and the next session's system prompt shows MEMORY.md.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_note_remembered_in_one_session_is_known_in_the_next() {
    use support::fake_model_server::{FakeModelServer, Reply, sse};
    use support::headless::{Harness as Headless, openai_env};
    let h = Headless::new();
    let server = FakeModelServer::start().await;
    let workspace = std::fs::canonicalize(h.project()).unwrap();
    let memory = h
        .home()
        .join("projects")
        .join(zcode::config::project_id(&workspace))
        .join("memory");
    let index = memory.join("MEMORY.md");
    let args = serde_json::json!({
        "file_path": index.display().to_string(),
        "content": "- We use pnpm, never npm.\n",
    })
    .to_string();
    server.enqueue(Reply::sse(sse::openai_tool_calls(
        "",
        &[("w1", "Write", &args)],
    )));
    server.enqueue(Reply::sse(sse::openai_text("Noted.")));
    let run = h
        .run(&["-p", "remember that we use pnpm"], &openai_env(&server))
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(
        std::fs::read_to_string(&index).is_ok_and(|t| t.contains("pnpm")),
        "the note was not written: {run}"
    );
    // The first session's prompt said where the memory lives.
    let first = server.requests()[0].json();
    let first_system = first["messages"][0]["content"].as_str().unwrap_or_default();
    assert!(
        first_system.contains(&memory.display().to_string()),
        "{first_system}"
    );
    server.enqueue(Reply::sse(sse::openai_text("pnpm install")));
    let run = h
        .run(&["-p", "how do I install?"], &openai_env(&server))
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    let requests = server.requests();
    let next = requests.last().expect("a request").json();
    let system = next["messages"][0]["content"].as_str().unwrap_or_default();
    assert!(system.contains("- We use pnpm, never npm."), "{system}");
}

/// `/memory` lists the instruction files the session loaded and the
/// project's memory directory with its notes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_memory_lists_the_loaded_files_and_the_memory_notes() {
    let setup = Setup::new(Dialect::OpenAi, Mode::Build);
    std::fs::write(setup.workspace_dir().join("CLAUDE.md"), "Be brief.").unwrap();
    let mut h = setup.start().await;
    let _ = h.ops.send(zcode::protocol::Op::ShowMemory);
    let report = h
        .wait_for("the memory report", |e| match e {
            zcode::protocol::Event::Notice { message }
                if message.starts_with("instructions loaded") =>
            {
                Some(message.clone())
            }
            _ => None,
        })
        .await;
    assert!(
        report.contains(&h.workspace.join("CLAUDE.md").display().to_string()),
        "{report}"
    );
    assert!(report.contains("project memory: "), "{report}");
    assert!(report.contains("no notes yet"), "{report}");
    h.shutdown().await;
}
