//! `zcode -p TASK`: sets up a runtime for the current directory and runs
//! one task headless (HEAD-1, HEAD-2, EXEC-6: yolo unless `--mode`).

use super::args::Cli;
use super::environment::{Environment, Project, ToolLists};
use crate::headless;
use crate::model::select::select_model;
use crate::runtime::session::SessionStart;
use crate::runtime::{BrokerChoice, RuntimeSetup};
use std::process::ExitCode;

pub fn run(cli: &Cli, prompt: String, lists: &ToolLists) -> anyhow::Result<ExitCode> {
    if prompt.trim().is_empty() {
        anyhow::bail!("the task given to -p is empty");
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
        headless: true,
        broker: BrokerChoice::Deny,
    };
    let store = env.open_store()?;
    // One thread is plenty for one session and starts fastest.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start the async runtime: {e}"))?;
    let code = rt.block_on(async move {
        let handle = crate::runtime::start(setup, store)?;
        anyhow::Ok(headless::run(handle, prompt, cli.output_format).await)
    })?;
    Ok(ExitCode::from(code))
}
