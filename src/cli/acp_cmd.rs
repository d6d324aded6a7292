//! `zcode acp`: zcode as an Agent Client Protocol agent on stdin and
//! stdout. This side knows the environment (config, store, projects); the
//! protocol itself is `crate::acp`.

use super::args::Cli;
use super::environment::{Environment, ToolLists};
use crate::acp::{CommandInfo, SessionFactory, SessionRequest};
use crate::runtime::{BrokerChoice, RuntimeSetup};
use crate::store::Store;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

pub fn run(cli: &Cli, lists: &ToolLists) -> anyhow::Result<ExitCode> {
    let env = Environment::load()?;
    let log = crate::acp::log::Log::open(&env.home);
    let settings = crate::acp::AcpSettings {
        auto_continue: env.config.acp.auto_continue,
    };
    let factory = Arc::new(EnvSessions {
        env,
        lists: lists.clone(),
        model: cli.model.clone(),
        mode: cli.mode,
    });
    // One thread: every streamed delta passes through several of the
    // protocol's tasks, and on one thread they hand over without waking
    // another (measured in benches/acp_stream.rs). Blocking work still goes
    // to tokio's blocking pool.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start the async runtime: {e}"))?;
    let served = rt.block_on(crate::acp::serve_stdio(factory, settings, log));
    rt.shutdown_timeout(super::RUNTIME_EXIT_GRACE);
    served?;
    Ok(ExitCode::SUCCESS)
}

/// Opens the sessions an ACP client asks for, each in its own directory.
struct EnvSessions {
    env: Environment,
    lists: ToolLists,
    model: Option<String>,
    mode: Option<crate::permission::mode::ModeChoice>,
}

impl SessionFactory for EnvSessions {
    fn open(&self, request: SessionRequest) -> anyhow::Result<(RuntimeSetup, Store)> {
        let mut lists = self.lists.clone();
        lists.disallowed.extend(request.removed_tools);
        let mut setup = self.env.session_setup_in(
            Some(&request.cwd),
            &lists,
            self.model.as_deref(),
            request.start,
            self.mode,
            false,
        )?;
        setup.broker = BrokerChoice::Channel;
        setup.mcp.entries.extend(request.mcp_servers);
        setup.client_files = request.client_files;
        let store = self.env.open_store()?;
        Ok((setup, store))
    }

    fn commands(&self, workspace: &Path) -> Vec<CommandInfo> {
        let reserved = super::command_task::reserved_names();
        let (commands, _) =
            crate::extensions::commands::load_commands(workspace, &self.env.home, &reserved);
        commands
            .into_iter()
            .map(|c| CommandInfo {
                name: c.name,
                description: c.description,
                hint: c.argument_hint,
            })
            .collect()
    }

    fn expand_command(&self, workspace: &Path, text: &str) -> anyhow::Result<String> {
        super::command_task::expand(text, workspace, &self.env.home)
    }

    fn open_store(&self) -> anyhow::Result<Store> {
        self.env.open_store()
    }
}
