//! `zcode acp` sessions seen from an editor, through the SDK's client side:
//! initialize, session/new in the client's cwd with its MCP servers,
//! prompts and their stop reasons, modes, cancel, load after a restart,
//! the todo list as the ACP plan and usage updates.

#![cfg(unix)]

mod support;

use serde_json::{Value, json};
use support::acp_client::acp_setup as setup;
use support::acp_client::{
    AcpClient, ClientOptions, has_user_message, stalled_reply, text_reply, tool_names, tool_reply,
    user_texts, write_reply,
};
use support::fake_model_server::{Reply, sse};
use support::mcp_server::test_server;

// ------------------------------------------------------------ initialize

#[tokio::test(flavor = "multi_thread")]
async fn initialize_advertises_load_session_prompt_content_and_mcp_transports() {
    let (h, _server) = setup(json!({})).await;
    let client = AcpClient::start(&h, ClientOptions::editor()).await;
    let init = &client.init;
    assert_eq!(init["protocolVersion"], 1, "{init:#}");
    let caps = &init["agentCapabilities"];
    assert_eq!(caps["loadSession"], true, "{init:#}");
    // zcode's MCP client speaks stdio (always) and streamable HTTP; it has
    // no SSE transport, so it must not claim one.
    assert_eq!(caps["mcpCapabilities"]["http"], true, "{init:#}");
    assert_ne!(caps["mcpCapabilities"]["sse"], true, "{init:#}");
    assert!(caps["promptCapabilities"].is_object(), "{init:#}");
    client.assert_clean_wire();
}

/// Whatever prompt content initialize advertises really reaches the model,
/// and so does what every agent must take (text and resource links).
#[tokio::test(flavor = "multi_thread")]
async fn initialize_prompt_content_advertised_is_what_reaches_the_model() {
    let (h, server) = setup(json!({})).await;
    server.enqueue(text_reply("Seen."));
    let client = AcpClient::start(&h, ClientOptions::editor()).await;
    let prompt_caps = client.init["agentCapabilities"]["promptCapabilities"].clone();
    let session = client.new_session(h.project()).await;
    let mut blocks = vec![
        json!({"type": "text", "text": "look at these"}),
        json!({"type": "resource_link", "uri": "file:///tmp/linked-note.md", "name": "linked-note.md"}),
    ];
    if prompt_caps["embeddedContext"] == true {
        blocks.push(json!({"type": "resource", "resource": {
            "uri": "file:///tmp/embedded.txt", "mimeType": "text/plain",
            "text": "EMBEDDED-CONTEXT-MARKER"}}));
    }
    if prompt_caps["image"] == true {
        // A 1x1 PNG.
        blocks.push(json!({"type": "image", "mimeType": "image/png",
            "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="}));
    }
    let stop = client
        .prompt_blocks(&session, Value::Array(blocks))
        .stop_reason()
        .await;
    assert_eq!(stop, "end_turn", "{}", client.diagnostics());
    let body = server.requests()[0].body_text();
    assert!(body.contains("look at these"), "{body}");
    assert!(body.contains("linked-note.md"), "{body}");
    if prompt_caps["embeddedContext"] == true {
        assert!(body.contains("EMBEDDED-CONTEXT-MARKER"), "{body}");
    }
    if prompt_caps["image"] == true {
        assert!(
            body.contains("iVBORw0KGgo"),
            "the image reaches the model: {body}"
        );
    }
}

// ------------------------------------------------------------ session/new

#[tokio::test(flavor = "multi_thread")]
async fn session_new_runs_in_the_clients_cwd_and_lists_the_four_modes() {
    let (h, server) = setup(json!({})).await;
    server.enqueue(text_reply("Hi."));
    // The client's cwd is not the process's.
    let cwd = h.project().join("sub");
    std::fs::create_dir(&cwd).unwrap();
    let client = AcpClient::start(&h, ClientOptions::plain()).await;
    let response = client.new_session_response(&cwd).await;
    let session = response["sessionId"].as_str().unwrap().to_string();
    let modes = &response["modes"];
    assert_eq!(modes["currentModeId"], "build", "{response:#}");
    let ids: Vec<&str> = modes["availableModes"]
        .as_array()
        .unwrap_or_else(|| panic!("availableModes in {response:#}"))
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    for id in ["build", "edit", "yolo", "plan"] {
        assert!(ids.contains(&id), "mode {id} in {ids:?}");
    }
    assert_eq!(client.run_turn(&session, "hello").await, "end_turn");
    let sessions = h.sessions();
    assert_eq!(sessions.len(), 1);
    assert_eq!(
        std::fs::canonicalize(&sessions[0].workspace).unwrap(),
        std::fs::canonicalize(&cwd).unwrap(),
        "the session's workspace is the client's cwd"
    );
    client.assert_clean_wire();
}

#[tokio::test(flavor = "multi_thread")]
async fn session_new_connects_the_mcp_servers_the_client_passes() {
    let (h, server) = setup(json!({})).await;
    server.enqueue(text_reply("Tools seen."));
    let log = h.home().join("mcp.log");
    let client = AcpClient::start(&h, ClientOptions::plain()).await;
    let response = client
        .request(
            "session/new",
            json!({"cwd": h.project(), "mcpServers": [{
                "name": "t",
                "command": test_server(),
                "args": [],
                "env": [{"name": "MCP_TEST_LOG", "value": log.to_string_lossy()}],
            }]}),
        )
        .await
        .unwrap_or_else(|e| panic!("session/new: {e:?}\n{}", client.diagnostics()));
    let session = response["sessionId"].as_str().unwrap().to_string();
    assert_eq!(client.run_turn(&session, "which tools?").await, "end_turn");
    let names = tool_names(&server.requests()[0].json());
    assert!(names.contains(&"mcp__t__echo".to_string()), "{names:?}");
    assert!(names.contains(&"Read".to_string()), "{names:?}");
}

// ------------------------------------------------------------ prompt

#[tokio::test(flavor = "multi_thread")]
async fn prompt_streams_the_answer_as_agent_message_chunks_and_ends_end_turn() {
    let (h, server) = setup(json!({})).await;
    server.enqueue(text_reply("The answer is forty two, as it always was."));
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    assert_eq!(client.run_turn(&session, "what is it?").await, "end_turn");
    assert_eq!(
        client.agent_text(),
        "The answer is forty two, as it always was."
    );
    assert!(
        client.updates_of("agent_message_chunk").len() > 1,
        "streamed in pieces"
    );
    assert!(
        client.updates().iter().all(|u| u["sessionId"] == session),
        "every update names the session"
    );
    assert_eq!(
        user_texts(&server.requests()[0].json()).last().unwrap(),
        "what is it?"
    );
    client.assert_clean_wire();
}

/// A long streamed answer arrives whole and in order, every chunk before
/// the prompt's answer.
#[tokio::test(flavor = "multi_thread")]
async fn prompt_long_streamed_answer_arrives_whole_and_in_order() {
    let (h, server) = setup(json!({})).await;
    let text = support::long_reply::markdown_reply(100 * 1024);
    server.enqueue(text_reply(&text));
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    assert_eq!(client.run_turn(&session, "a long one").await, "end_turn");
    assert!(client.agent_text() == text, "the streamed text differs");
    client.assert_clean_wire();
}

/// A client that reads its stdin late: nothing is lost while zcode's
/// output waits in a full pipe, and the answer still comes after every
/// chunk.
#[tokio::test(flavor = "multi_thread")]
async fn prompt_answer_read_late_loses_nothing() {
    let (h, server) = setup(json!({})).await;
    let text = support::long_reply::markdown_reply(100 * 1024);
    server.enqueue(text_reply(&text));
    let mut raw = support::acp_client::RawAcp::start_initialized(&h).await;
    let session = raw.new_session_id(&h, 2).await;
    raw.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": "long"}]}}),
    )
    .await;
    // Nothing is read until the model has been asked (and answers).
    assert!(server.wait_for_requests(1, support::acp_client::WAIT).await);
    let mut streamed = String::new();
    let answer = loop {
        let message = raw.next_message().await;
        if message["id"] == 3 {
            break message;
        }
        let update = &message["params"]["update"];
        if update["sessionUpdate"] == "agent_message_chunk" {
            streamed.push_str(update["content"]["text"].as_str().unwrap_or_default());
        }
    };
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    assert!(streamed == text, "the streamed text differs");
}

#[tokio::test(flavor = "multi_thread")]
async fn prompt_provider_failure_is_an_internal_error_carrying_the_message() {
    let (h, server) = setup(json!({})).await;
    // A 400 is not retried.
    server.enqueue(Reply::json(
        400,
        &json!({"error": {"message": "model says no: bad request body"}}),
    ));
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let error = client
        .prompt(&session, "fail please")
        .response()
        .await
        .expect_err("a provider failure fails the prompt");
    assert_eq!(error.code, -32603, "{error:?}");
    let text = format!("{} {:?}", error.message, error.data);
    assert!(text.contains("model says no"), "{error:?}");
    // The connection still works.
    server.enqueue(text_reply("Back."));
    assert_eq!(client.run_turn(&session, "again").await, "end_turn");
}

#[tokio::test(flavor = "multi_thread")]
async fn prompt_round_limit_ends_with_max_turn_requests() {
    let (h, server) = setup(json!({})).await;
    // A model that never stops calling a tool that needs no approval.
    let rounds = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = rounds.clone();
    server.guard(move |_| {
        let n = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let id = format!("g{n}");
        Some(Reply::sse(sse::openai_tool_calls(
            "",
            &[(&id, "Glob", r#"{"pattern":"*.nothing"}"#)],
        )))
    });
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    assert_eq!(
        client.run_turn(&session, "loop forever").await,
        "max_turn_requests"
    );
    assert_eq!(
        rounds.load(std::sync::atomic::Ordering::SeqCst),
        zcode::runtime::turn::MAX_ROUNDS
    );
}

/// Content initialize does not advertise is refused, not dropped silently.
#[tokio::test(flavor = "multi_thread")]
async fn prompt_content_not_advertised_is_invalid_params() {
    let (h, server) = setup(json!({})).await;
    let client = AcpClient::start(&h, ClientOptions::plain()).await;
    let caps = client.init["agentCapabilities"]["promptCapabilities"].clone();
    let session = client.new_session(h.project()).await;
    let mut refused = Vec::new();
    if caps["image"] != true {
        refused.push(json!({"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}));
    }
    if caps["audio"] != true {
        refused.push(json!({"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="}));
    }
    if caps["embeddedContext"] != true {
        refused.push(json!({"type": "resource", "resource": {"uri": "file:///x", "text": "x"}}));
    }
    for block in refused {
        let error = client
            .prompt_blocks(&session, json!([{"type": "text", "text": "see"}, block]))
            .response()
            .await
            .expect_err("not advertised");
        assert_eq!(error.code, -32602, "{block}: {error:?}");
    }
    assert_eq!(server.request_count(), 0);
    // An empty prompt is no turn either.
    let error = client
        .prompt_blocks(&session, json!([]))
        .response()
        .await
        .expect_err("empty");
    assert_eq!(error.code, -32602, "{error:?}");
}

// ------------------------------------------------------------ commands

#[tokio::test(flavor = "multi_thread")]
async fn available_commands_list_compact_and_the_command_files() {
    let (h, server) = setup(json!({})).await;
    let commands = h.project().join(".zcode").join("commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("review.md"),
        "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $ARGUMENTS carefully.\n",
    )
    .unwrap();
    server.enqueue(text_reply("Reviewed."));
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let update = client
        .wait_update("available_commands_update", |u| {
            u["sessionUpdate"] == "available_commands_update"
        })
        .await;
    let listed = update["availableCommands"].as_array().unwrap();
    let names: Vec<&str> = listed.iter().filter_map(|c| c["name"].as_str()).collect();
    assert!(names.contains(&"compact"), "{update:#}");
    let review = listed
        .iter()
        .find(|c| c["name"] == "review")
        .unwrap_or_else(|| panic!("the command file: {update:#}"));
    assert_eq!(review["description"], "Review a file", "{review:#}");
    assert_eq!(review["input"]["hint"], "<file>", "{review:#}");

    // `/review main.rs` reaches the model as the file's text.
    assert_eq!(
        client.run_turn(&session, "/review main.rs").await,
        "end_turn"
    );
    let users = user_texts(&server.requests()[0].json());
    assert!(
        users
            .iter()
            .any(|u| u.contains("Review main.rs carefully.")),
        "{users:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn two_sessions_on_one_connection_run_at_once_and_keep_their_updates_apart() {
    let (h, server) = setup(json!({})).await;
    // Each prompt's reply is chosen by its text, so the order the two
    // requests arrive in does not matter.
    server.guard(|request| {
        let body = request.body_text();
        if body.contains("alpha question") {
            Some(text_reply("alpha answer"))
        } else if body.contains("beta question") {
            Some(text_reply("beta answer"))
        } else {
            None
        }
    });
    let client = AcpClient::start(&h, ClientOptions::plain()).await;
    let a = client.new_session(h.project()).await;
    let b = client.new_session(h.project()).await;
    assert_ne!(a, b);
    let turn_a = client.prompt(&a, "alpha question");
    let turn_b = client.prompt(&b, "beta question");
    assert_eq!(turn_a.stop_reason().await, "end_turn");
    assert_eq!(turn_b.stop_reason().await, "end_turn");
    let text_of = |session: &str| -> String {
        client
            .updates()
            .iter()
            .filter(|u| u["sessionId"] == session)
            .filter(|u| u["update"]["sessionUpdate"] == "agent_message_chunk")
            .filter_map(|u| u["update"]["content"]["text"].as_str().map(str::to_string))
            .collect()
    };
    assert_eq!(text_of(&a), "alpha answer");
    assert_eq!(text_of(&b), "beta answer");
    assert_eq!(h.sessions().len(), 2);
}

// ------------------------------------------------------------ modes

#[tokio::test(flavor = "multi_thread")]
async fn set_mode_switches_the_mode_and_sends_current_mode_update() {
    let (h, server) = setup(json!({})).await;
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;

    for mode in ["edit", "yolo", "plan", "build"] {
        client
            .request(
                "session/set_mode",
                json!({"sessionId": session, "modeId": mode}),
            )
            .await
            .unwrap_or_else(|e| panic!("set_mode {mode}: {e:?}\n{}", client.diagnostics()));
        client
            .wait_update(&format!("current_mode_update {mode}"), |u| {
                u["sessionUpdate"] == "current_mode_update" && u["currentModeId"] == mode
            })
            .await;
    }
    let error = client
        .request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "auto"}),
        )
        .await
        .expect_err("auto is no mode of zcode's");
    assert_eq!(error.code, -32602, "{error:?}");

    // Edit mode lets a Write in the workspace run without a question.
    client.set_mode(&session, "edit").await;
    server.enqueue_all([
        write_reply("w1", "e.txt", "edit mode\n"),
        text_reply("Written."),
    ]);
    assert_eq!(client.run_turn(&session, "write e.txt").await, "end_turn");
    assert!(
        client.permission_log().is_empty(),
        "{:#?}",
        client.permission_log()
    );
    assert_eq!(
        std::fs::read_to_string(h.project().join("e.txt")).unwrap(),
        "edit mode\n"
    );
    // The mode is the session's own, saved with it.
    assert_eq!(h.sessions()[0].execution.mode.to_string(), "edit");
}

#[tokio::test(flavor = "multi_thread")]
async fn set_mode_plan_then_build_keeps_plan_a_switch_on_top() {
    let (h, _server) = setup(json!({})).await;
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    for mode in ["edit", "plan"] {
        client.set_mode(&session, mode).await;
    }
    client.wait_mode("plan").await;
    let stored = &h.sessions()[0].execution;
    assert!(stored.plan_enabled, "{stored:?}");
    assert_eq!(stored.mode.to_string(), "edit", "plan sits on top of edit");
}

// ------------------------------------------------------------ cancel

#[tokio::test(flavor = "multi_thread")]
async fn cancel_mid_stream_ends_with_cancelled_and_keeps_the_session() {
    let (h, server) = setup(json!({})).await;
    // The first words, then a stream that would take two minutes.
    server.enqueue(stalled_reply("Starting the long answer", 120));
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let turn = client.prompt(&session, "a long question");
    client.wait_first_words("the first chunk").await;
    client.cancel(&session).await;
    assert_eq!(turn.stop_reason().await, "cancelled");
    assert!(
        server
            .wait_for_client_aborts(1, support::acp_client::WAIT)
            .await,
        "the model stream was closed"
    );
    // The session is saved with the user's message.
    let sessions = h.sessions();
    assert_eq!(sessions.len(), 1);
    let entries = h.entries(&sessions[0].id);
    assert!(
        has_user_message(&entries, "a long question"),
        "{entries:#?}"
    );
    // And it takes the next prompt.
    server.enqueue(text_reply("Short one."));
    assert_eq!(client.run_turn(&session, "shorter").await, "end_turn");
}

// ------------------------------------------------------------ load

#[tokio::test(flavor = "multi_thread")]
async fn load_after_restart_replays_the_history_as_updates() {
    let (h, server) = setup(json!({})).await;
    server.enqueue_all([
        Reply::sse(sse::openai_tool_calls(
            "Writing it.",
            &[(
                "w1",
                "Write",
                r#"{"file_path":"kept.txt","content":"kept\n"}"#,
            )],
        )),
        text_reply("Wrote kept.txt."),
    ]);
    let session;
    {
        let client = AcpClient::start(&h, ClientOptions::plain()).await;
        session = client.new_session(h.project()).await;
        client.set_mode(&session, "edit").await;
        assert_eq!(
            client.run_turn(&session, "remember kept.txt").await,
            "end_turn"
        );
        let status = client.shutdown().await;
        assert!(status.success(), "{status:?}");
    }

    let client = AcpClient::start(&h, ClientOptions::plain()).await;
    let response = client.load_session(&session, h.project()).await;
    // The replay is complete when the response arrives.
    let users: String = client
        .updates_of("user_message_chunk")
        .iter()
        .filter_map(|u| u["content"]["text"].as_str().map(str::to_string))
        .collect();
    assert!(
        users.contains("remember kept.txt"),
        "{:#?}",
        client.updates()
    );
    assert!(
        client.agent_text().contains("Wrote kept.txt."),
        "{:#?}",
        client.updates()
    );
    let calls = client.updates_of("tool_call");
    assert!(
        calls.iter().any(|c| c["toolCallId"] == "w1"),
        "the Write is replayed: {:#?}",
        client.updates()
    );
    assert!(
        client
            .updates()
            .iter()
            .any(|u| u["update"]["toolCallId"] == "w1" && u["update"]["status"] == "completed"),
        "with its result: {:#?}",
        client.updates()
    );
    assert_eq!(response["modes"]["currentModeId"], "edit", "{response:#}");

    // The loaded session goes on with its history.
    server.enqueue(text_reply("Still here."));
    assert_eq!(client.run_turn(&session, "and now?").await, "end_turn");
    let last = server.requests().last().unwrap().json();
    let users = user_texts(&last);
    assert!(
        users.iter().any(|u| u.contains("remember kept.txt")),
        "{users:?}"
    );
    assert_eq!(users.last().unwrap(), "and now?");
    client.assert_clean_wire();
}

#[tokio::test(flavor = "multi_thread")]
async fn load_of_a_session_open_on_this_connection_is_refused() {
    let (h, _server) = setup(json!({})).await;
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    let error = client
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": h.project(), "mcpServers": []}),
        )
        .await
        .expect_err("already open");
    assert!(error.code == -32600 || error.code == -32602, "{error:?}");
    // The open session is unharmed.
    client.set_mode(&session, "edit").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn load_of_an_unknown_session_is_an_error_and_the_connection_goes_on() {
    let (h, _server) = setup(json!({})).await;
    let client = AcpClient::start(&h, ClientOptions::plain()).await;
    let error = client
        .request(
            "session/load",
            json!({"sessionId": "sess_does_not_exist", "cwd": h.project(), "mcpServers": []}),
        )
        .await
        .expect_err("no such session");
    assert_eq!(error.code, -32002, "{error:?}");
    client.new_session(h.project()).await;
}

// ------------------------------------------------------------ plan, usage

#[tokio::test(flavor = "multi_thread")]
async fn todo_list_is_sent_as_the_acp_plan() {
    let (h, server) = setup(json!({})).await;
    server.enqueue_all([
        tool_reply("t1", "TodoWrite", r#"{"todos":[{"content":"Read the code","status":"completed","priority":"high"},{"content":"Write the fix","status":"in_progress","priority":"medium"},{"content":"Run the tests","status":"pending","priority":"low"}]}"#),
        text_reply("Planned."),
    ]);
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    assert_eq!(client.run_turn(&session, "plan it").await, "end_turn");
    let plans = client.updates_of("plan");
    let plan = plans
        .last()
        .unwrap_or_else(|| panic!("no plan: {:#?}", client.updates()));
    assert_eq!(
        plan["entries"],
        json!([
            {"content": "Read the code", "priority": "high", "status": "completed"},
            {"content": "Write the fix", "priority": "medium", "status": "in_progress"},
            {"content": "Run the tests", "priority": "low", "status": "pending"},
        ]),
        "{plan:#}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn token_usage_is_sent_as_usage_updates() {
    let (h, server) = setup(json!({})).await;
    // openai_text reports 10 prompt and 5 completion tokens.
    server.enqueue(text_reply("Counted."));
    let (client, session) = AcpClient::start_with_session(&h, ClientOptions::plain()).await;
    assert_eq!(client.run_turn(&session, "count").await, "end_turn");
    let usage = client.updates_of("usage_update");
    let last = usage
        .last()
        .unwrap_or_else(|| panic!("no usage_update: {:#?}", client.updates()));
    assert_eq!(
        last["size"], 100_000,
        "the model's context window: {last:#}"
    );
    let used = last["used"].as_u64().unwrap_or(0);
    assert!(used >= 10, "tokens in context: {last:#}");
}

/// A loaded session shows its todo list again, as the ACP plan.
#[tokio::test(flavor = "multi_thread")]
async fn load_after_restart_shows_the_todo_list_again() {
    let (h, server) = setup(json!({})).await;
    server.enqueue_all([
        tool_reply(
            "t1",
            "TodoWrite",
            r#"{"todos":[{"content":"Keep me","status":"in_progress","priority":"high"}]}"#,
        ),
        text_reply("Listed."),
    ]);
    let session;
    {
        let client = AcpClient::start(&h, ClientOptions::plain()).await;
        session = client.new_session(h.project()).await;
        assert_eq!(client.run_turn(&session, "list it").await, "end_turn");
        client.shutdown().await;
    }
    let client = AcpClient::start(&h, ClientOptions::plain()).await;
    client.load_session(&session, h.project()).await;
    let plan = client
        .wait_update("the plan", |u| u["sessionUpdate"] == "plan")
        .await;
    assert_eq!(
        plan["entries"],
        json!([{"content": "Keep me", "priority": "high", "status": "in_progress"}]),
        "{plan:#}"
    );
}
