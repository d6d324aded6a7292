//! `zcode` / `zcode tui`: sets up a runtime for the current directory with
//! the channel broker and runs the terminal UI (CLI-1). The starting mode
//! follows EXEC-6: `--mode`, else the project's last mode, else the config,
//! else build.

use super::args::Cli;
use super::environment::{Environment, Project, ToolLists};
use crate::model::select::select_model;
use crate::runtime::session::SessionStart;
use crate::runtime::{BrokerChoice, RuntimeSetup};
use std::io::IsTerminal;
use std::process::ExitCode;

pub fn run(cli: &Cli, lists: &ToolLists) -> anyhow::Result<ExitCode> {
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        anyhow::bail!(
            "the terminal UI needs an interactive terminal; run a task headless with `zcode -p \"your task\"`"
        );
    }
    let env = Environment::load()?;
    let project = Project::resolve(None)?;
    let model = select_model(&env.config, |k| std::env::var(k).ok(), cli.model.as_deref())?;
    let mut settings = env.config.permission_settings();
    settings
        .disallowed_tools
        .extend(lists.disallowed.iter().cloned());
    settings.allowed_tools.extend(lists.allowed.iter().cloned());
    let start = match (&cli.resume, cli.continue_latest) {
        (Some(id), _) if !id.is_empty() => SessionStart::Resume(id.clone()),
        (Some(_), _) | (None, true) => SessionStart::Latest,
        (None, false) => SessionStart::New,
    };
    let setup = RuntimeSetup {
        workspace: project.workspace.clone(),
        project_id: project.id.clone(),
        zcode_home: env.home.clone(),
        model,
        settings,
        hooks: env.config.hooks.clone(),
        disallowed_tools: lists.disallowed.clone(),
        start,
        explicit_mode: cli.mode,
        config_mode: env.config.permission_mode(),
        headless: false,
        broker: BrokerChoice::Channel,
    };
    let store = env.open_store()?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start the async runtime: {e}"))?;
    rt.block_on(async move {
        let handle = crate::runtime::start(setup, store)?;
        crate::tui::app::run(handle).await
    })?;
    Ok(ExitCode::SUCCESS)
}
