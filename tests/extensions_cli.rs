//! Skills and command files end to end: the real `zcode -p` binary against
//! the fake model server, in a temporary project with a temporary
//! `ZCODE_HOME` (PERM-8 for the Skill tool).

mod support;

use serde_json::Value;
use support::fake_model_server::{FakeModelServer, Reply, openai_tool_result, sse};
use support::headless::{Harness, Input, openai_env};

fn write(root: &std::path::Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// The tool of this name in an OpenAI request, if offered.
fn tool<'a>(body: &'a Value, name: &str) -> Option<&'a Value> {
    body["tools"]
        .as_array()?
        .iter()
        .find(|t| t["function"]["name"] == name)
}

/// The first user message of an OpenAI request.
fn first_user_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .expect("a user message")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skill_tool_loads_a_skill_by_name() {
    let h = Harness::new();
    write(
        h.project(),
        ".claude/skills/release/SKILL.md",
        "---\nname: release-notes\ndescription: Write release notes from the git log\n---\nRead template.md beside this file, then summarise `git log` in its format.\n",
    );
    write(
        h.project(),
        ".claude/skills/release/template.md",
        "## Changes\n",
    );
    write(
        h.home(),
        "skills/notes/SKILL.md",
        "---\ndescription: Keep meeting notes\n---\nSECRET-BODY-OF-NOTES\n",
    );
    // A folder that is no skill: told once on stderr, the run goes on.
    write(
        h.project(),
        ".zcode/skills/broken/SKILL.md",
        "---\nname: broken\n---\n",
    );
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "",
            &[("call_s", "Skill", r#"{"skill":"release-notes"}"#)],
        )),
        Reply::sse(sse::openai_text("Loaded.")),
    ]);
    // Plan mode: the Skill tool is read-only and runs without asking
    // (headless, anything asked would be denied).
    let run = h
        .run(
            &["-p", "write the release notes", "--mode", "plan"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout, "Loaded.\n", "{run}");
    let told: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("Skill left out"))
        .collect();
    assert_eq!(told.len(), 1, "{run}");
    assert!(
        told[0].ends_with("broken/SKILL.md: has no description: the frontmatter needs `description:` saying when the skill applies"),
        "{run}"
    );
    assert!(!run.stderr.contains("denied"), "{run}");

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    // The first request lists the skills' names and descriptions in the
    // Skill tool's description, and none of their bodies.
    let first = requests[0].json();
    let description =
        tool(&first, "Skill").expect("the Skill tool is offered")["function"]["description"]
            .as_str()
            .expect("a description")
            .to_string();
    assert!(
        description.ends_with(
            "Available skills:\n- notes: Keep meeting notes\n- release-notes: Write release notes from the git log\n"
        ),
        "{description}"
    );
    assert!(!first.to_string().contains("SECRET-BODY-OF-NOTES"));
    assert!(!first.to_string().contains("Read template.md"));
    // The tool result holds the body and the skill's folder.
    let result = openai_tool_result(&requests[1].json(), "call_s");
    let base = h
        .project()
        .canonicalize()
        .unwrap()
        .join(".claude/skills/release");
    assert_eq!(
        result,
        format!(
            "Skill \"release-notes\" loaded. Base directory: {}\nThe files it mentions are relative to that directory.\n\nRead template.md beside this file, then summarise `git log` in its format.",
            base.display()
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skill_tool_not_offered_without_skills_or_when_disallowed() {
    let h = Harness::new();
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("ok")));
    let run = h.run(&["-p", "hi"], &openai_env(&server)).await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(tool(&server.requests()[0].json(), "Skill").is_none());

    write(
        h.project(),
        ".zcode/skills/s/SKILL.md",
        "---\ndescription: d\n---\nbody\n",
    );
    server.enqueue(Reply::sse(sse::openai_text("ok")));
    let run = h
        .run(
            &["-p", "hi", "--disallowedTools", "Skill"],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert!(tool(&server.requests()[1].json(), "Skill").is_none());
    assert!(tool(&server.requests()[1].json(), "Read").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headless_command_file_is_expanded_into_the_first_request() {
    let h = Harness::new();
    write(
        h.project(),
        ".zcode/commands/review.md",
        "---\ndescription: Review a file\nargument-hint: [file] [focus]\n---\nReview $1, focusing on $2.\nEverything asked: $ARGUMENTS\nStatus: !`git status`\n",
    );
    let server = FakeModelServer::start().await;
    server.enqueue(Reply::sse(sse::openai_text("Reviewed.")));
    let run = h
        .run(
            &["-p", "/review src/lib.rs \"error handling\""],
            &openai_env(&server),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(run.stdout, "Reviewed.\n", "{run}");
    let first = server.requests()[0].json();
    // Nothing in the file ran: the `!` line is sent as written.
    assert_eq!(
        first_user_text(&first),
        "Review src/lib.rs, focusing on error handling.\nEverything asked: src/lib.rs \"error handling\"\nStatus: !`git status`"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headless_command_file_from_stdin_or_with_piped_data() {
    let h = Harness::new();
    write(
        h.project(),
        ".zcode/commands/summarise.md",
        "Summarise $ARGUMENTS briefly.\n",
    );
    let server = FakeModelServer::start().await;
    server.enqueue_all([
        Reply::sse(sse::openai_text("one")),
        Reply::sse(sse::openai_text("two")),
    ]);
    // The task itself read from stdin.
    let run = h
        .run_with_input(
            &["-p"],
            &openai_env(&server),
            Input::Piped(b"/summarise the log\n".to_vec()),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(
        first_user_text(&server.requests()[0].json()),
        "Summarise the log briefly."
    );
    // A task argument with piped data: the data follows the expanded text.
    let run = h
        .run_with_input(
            &["-p", "/summarise this file"],
            &openai_env(&server),
            Input::Piped(b"line 1\n".to_vec()),
        )
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(
        first_user_text(&server.requests()[1].json()),
        "Summarise this file briefly.\n\nPiped input (stdin):\n<stdin>\nline 1\n</stdin>"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headless_unknown_command_is_a_usage_error_and_sends_nothing() {
    let h = Harness::new();
    write(
        h.project(),
        ".claude/commands/deploy-check.md",
        "Check the deploy.\n",
    );
    write(
        h.project(),
        ".claude/commands/Mode.md",
        "Shadows a built-in.\n",
    );
    let server = FakeModelServer::start().await;
    let run = h
        .run(&["-p", "/deploy-chek now"], &openai_env(&server))
        .await;
    assert_eq!(run.code, Some(2), "{run}");
    assert!(
        run.stderr.contains(
            "zcode: error: unknown command /deploy-chek: the command files are /deploy-check; start the task with // to send it as text"
        ),
        "{run}"
    );
    assert!(
        run.stderr.contains("command file left out: ")
            && run.stderr.contains("Mode.md: /Mode is a built-in command"),
        "{run}"
    );
    assert_eq!(server.request_count(), 0);

    // `//` sends the line as text, with one `/` removed.
    server.enqueue(Reply::sse(sse::openai_text("ok")));
    let run = h
        .run(&["-p", "//deploy-chek now"], &openai_env(&server))
        .await;
    assert_eq!(run.code, Some(0), "{run}");
    assert_eq!(
        first_user_text(&server.requests()[0].json()),
        "/deploy-chek now"
    );
}

/// The README's examples of the three file kinds load as it says.
#[test]
fn readme_examples_of_agent_skill_and_command_files_load() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let section = readme
        .split("### Agents, skills and commands")
        .nth(1)
        .and_then(|rest| rest.split("\n### ").next())
        .expect("the README's section");
    let blocks: Vec<&str> = section
        .split("```markdown\n")
        .skip(1)
        .map(|b| b.split("```\n").next().expect("a closed block"))
        .collect();
    assert_eq!(blocks.len(), 3, "agent, skill and command examples");
    let ws = tempfile::tempdir().unwrap();
    let home = ws.path().join("home");
    write(ws.path(), ".claude/agents/code-reviewer.md", blocks[0]);
    write(ws.path(), ".zcode/skills/release/SKILL.md", blocks[1]);
    write(ws.path(), ".zcode/commands/fix-issue.md", blocks[2]);

    let (agents, problems) =
        zcode::extensions::agents::load_agents(ws.path(), &home, &["Read", "Grep", "Glob", "Bash"]);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(agents[0].name, "code-reviewer");
    assert_eq!(agents[0].tools.as_ref().map(Vec::len), Some(4));
    assert_eq!(agents[0].model.as_deref(), Some("sonnet"));
    assert!(agents[0].description.contains("<example>"));

    let (skills, problems) = zcode::extensions::skills::load_skills(ws.path(), &home);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(skills[0].name, "release-notes");

    let (commands, problems) =
        zcode::extensions::commands::load_commands(ws.path(), &home, &["help"]);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(commands[0].name, "fix-issue");
    assert_eq!(
        commands[0].argument_hint.as_deref(),
        Some("[number] [priority]")
    );
    assert!(section.contains("`/fix-issue 42 \"very high\"` sends the body"));
    assert_eq!(
        commands[0].expand("42 \"very high\""),
        "Fix issue #42 with priority very high. Read the issue with `gh issue view 42` first."
    );
}
