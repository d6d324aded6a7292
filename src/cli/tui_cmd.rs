//! `zcode` / `zcode tui`: sets up a runtime for the current directory with
//! the channel broker and runs the terminal UI (CLI-1). The starting mode
//! follows EXEC-6: `--mode`, else the project's last mode, else the config,
//! else build.

use super::args::Cli;
use super::environment::{Environment, ToolLists};
use std::io::IsTerminal;
use std::process::ExitCode;

pub fn run(cli: &Cli, lists: &ToolLists) -> anyhow::Result<ExitCode> {
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        anyhow::bail!(
            "the terminal UI needs an interactive terminal; run a task headless with `zcode -p \"your task\"`"
        );
    }
    let env = Environment::load()?;
    let setup = env.runtime_setup(cli, lists, false)?;
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
