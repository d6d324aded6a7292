//! `zcode mcp list|trust|untrust`: the project's MCP servers as a session
//! would start them, and the trust a project's `.mcp.json` needs.

use super::args::{CwdArg, McpCommand};
use super::environment::{Environment, Project, ToolLists};
use super::stdout::outln;
use crate::mcp::{self, HubSetup, McpHub, McpSetup, Origin, Status};
use serde_json::json;
use std::process::ExitCode;

pub fn run(cmd: McpCommand, lists: &ToolLists) -> anyhow::Result<ExitCode> {
    match cmd {
        McpCommand::List { json, cwd } => list(&cwd, json, lists),
        McpCommand::Trust { name, cwd } => trust(&cwd, &name),
        McpCommand::Untrust { name, cwd } => untrust(&cwd, &name),
    }
}

fn setup(cwd: &CwdArg) -> anyhow::Result<(Environment, Project, McpSetup)> {
    let env = Environment::load()?;
    let project = Project::resolve(cwd.cwd.as_deref())?;
    let lookup = |k: &str| std::env::var(k).ok();
    let setup = McpSetup::load(&env.config.mcp_servers, &project.workspace, &lookup);
    Ok((env, project, setup))
}

fn list(cwd: &CwdArg, as_json: bool, lists: &ToolLists) -> anyhow::Result<ExitCode> {
    let (env, project, setup) = setup(cwd)?;
    if let Some(why) = &setup.project_error {
        eprintln!("zcode: warning: the project's MCP servers are left out: {why}");
    }
    let store = env.open_store()?;
    let trusted = mcp::trust::trusted(&store, &project.id, &setup.entries)?;
    drop(store);
    let disallowed: Vec<String> = env
        .permission_settings(lists)
        .disallowed_tools
        .into_iter()
        .collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let report = rt.block_on(async {
        let hub = McpHub::start(HubSetup {
            entries: setup.entries.clone(),
            trusted,
            disallowed,
            workspace: project.workspace.clone(),
            server_dir: env.home.join(mcp::SERVER_DIR),
            timeout: setup.timeout,
            notice: Box::new(|_| {}),
        });
        let interrupt = tokio_util::sync::CancellationToken::new();
        let on_signal = interrupt.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_signal.cancel();
            }
        });
        hub.wait_started(&interrupt).await;
        let report = hub.report();
        hub.shutdown();
        // The servers are told to close; a moment for stdio children to go.
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        report
    });
    rt.shutdown_timeout(std::time::Duration::from_secs(2));
    if as_json {
        let servers: Vec<_> = report
            .iter()
            .map(|s| {
                json!({
                    "name": s.name,
                    "origin": s.origin,
                    "transport": s.transport,
                    "state": match &s.status {
                        Status::Starting => "starting",
                        Status::Connected => "connected",
                        Status::Failed(_) => "failed",
                        Status::Untrusted => "untrusted",
                        Status::Disallowed => "disallowed",
                    },
                    "error": match &s.status { Status::Failed(why) => Some(why.clone()), _ => None },
                    "tools": s.tools.iter().map(|t| json!({
                        "name": t.name,
                        "readOnlyHint": t.hints.read_only,
                        "destructiveHint": t.hints.destructive,
                        "openWorldHint": t.hints.open_world,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({"servers": servers}))?
        );
    } else {
        super::stdout::write_text(&format!("{}\n", mcp::render_report(&report)));
    }
    let failed = report.iter().any(|s| matches!(s.status, Status::Failed(_)));
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn trust(cwd: &CwdArg, name: &str) -> anyhow::Result<ExitCode> {
    let (env, project, setup) = setup(cwd)?;
    if let Some(why) = &setup.project_error {
        anyhow::bail!("{why}");
    }
    let Some(entry) = setup
        .entries
        .iter()
        .find(|e| e.name == name && matches!(e.origin, Origin::Project(_)))
    else {
        anyhow::bail!(
            "the project's {} defines no MCP server named '{name}'",
            mcp::config::PROJECT_FILE
        );
    };
    if let Err(why) = &entry.transport {
        anyhow::bail!("MCP server {name} cannot be used: {why}");
    }
    let mut store = env.open_store()?;
    mcp::trust::trust(&mut store, &project.id, name, &entry.digest)?;
    outln!(
        "Trusted MCP server {name} of {} as it is defined now; a change to its definition needs trust again.",
        project.workspace.join(mcp::config::PROJECT_FILE).display()
    );
    Ok(ExitCode::SUCCESS)
}

fn untrust(cwd: &CwdArg, name: &str) -> anyhow::Result<ExitCode> {
    let (env, project, _) = setup(cwd)?;
    let mut store = env.open_store()?;
    if mcp::trust::untrust(&mut store, &project.id, name)? {
        outln!("MCP server {name} is no longer trusted in this project.");
    } else {
        outln!("MCP server {name} was not trusted in this project.");
    }
    Ok(ExitCode::SUCCESS)
}
