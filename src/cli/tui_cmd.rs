//! `zcode` / `zcode tui`: sets up a runtime for the current directory with
//! the channel broker and runs the terminal UI (CLI-1). The starting mode
//! follows EXEC-6: `--mode`, else the project's last mode, else the config,
//! else build. The UI gets a launcher for the sessions `/new` and `/resume`
//! switch to. A task on the command line (`zcode "TASK"`) is the session's
//! first message.

use super::args::Cli;
use super::environment::{Environment, Project, ToolLists};
use super::session_choice::{SessionChoice, resolve_id, session_choice};
use crate::protocol::Op;
use crate::runtime::RuntimeHandle;
use crate::runtime::session::SessionStart;
use crate::store::SessionFilter;
use crate::tui::launcher::{Extensions, Launcher, ModelChoice, SessionSummary};
use crate::tui::resume_picker::{StartPick, pick};
use std::io::IsTerminal;
use std::process::ExitCode;

/// How many sessions the `/resume` picker offers.
const RESUME_LIMIT: usize = 30;

pub fn run(
    cli: &Cli,
    lists: &ToolLists,
    first_message: Option<String>,
) -> anyhow::Result<ExitCode> {
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        let task = first_message.as_deref().unwrap_or("your task");
        anyhow::bail!(
            "the terminal UI needs an interactive terminal; run a task headless with `zcode -p {task:?}`"
        );
    }
    let env = Environment::load()?;
    let store = env.open_store()?;
    let choice = session_choice(cli, &store, true)?;
    let launcher = EnvLauncher {
        env,
        lists: lists.clone(),
        history_store: std::sync::Mutex::new(None),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start the async runtime: {e}"))?;
    let ran = rt.block_on(async move {
        let start = match choice {
            SessionChoice::Start(start) => start,
            // Before any session exists: nothing is created for a user
            // who only came to look.
            SessionChoice::Pick { fork } => match pick(&launcher.sessions()?).await? {
                StartPick::Resume(id) if fork => SessionStart::ForkOf(id),
                StartPick::Resume(id) => SessionStart::Resume(id),
                StartPick::New => SessionStart::New,
                StartPick::Quit => return Ok(String::new()),
            },
        };
        let setup = launcher.env.runtime_setup(cli, lists, start, false)?;
        let handle = crate::runtime::start(setup, store)?;
        if let Some(text) = first_message {
            // The UI shows it when the runtime confirms the turn, as it
            // does for a message typed in the composer.
            let _ = handle.ops.send(Op::UserInput { text });
        }
        crate::tui::app::run(handle, Box::new(launcher)).await
    });
    // As in headless mode: abandoned blocking work does not hold the exit.
    rt.shutdown_timeout(super::RUNTIME_EXIT_GRACE);
    // The terminal is back on the normal screen: what is printed now stays
    // in its scrollback.
    let exit_text = ran?;
    if !exit_text.is_empty() {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(exit_text.as_bytes());
        let _ = out.flush();
    }
    Ok(ExitCode::SUCCESS)
}

/// Starts sessions of the current directory from the loaded environment.
struct EnvLauncher {
    env: Environment,
    lists: ToolLists,
    /// The prompt history's connection, opened on first use and kept: a
    /// prompt is saved on every send.
    history_store: std::sync::Mutex<Option<crate::store::Store>>,
}

impl EnvLauncher {
    /// Runs `f` on the kept connection, opened now if need be.
    fn with_store<T>(
        &self,
        f: impl FnOnce(&mut crate::store::Store) -> Result<T, crate::store::StoreError>,
    ) -> anyhow::Result<T> {
        let mut kept = self
            .history_store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let store = match kept.as_mut() {
            Some(store) => store,
            None => kept.insert(self.env.open_store()?),
        };
        Ok(f(store)?)
    }
}

impl Launcher for EnvLauncher {
    fn start(&self, start: SessionStart, model: &str) -> anyhow::Result<RuntimeHandle> {
        // `/resume ID` takes the short id the UI shows, as `--resume` does.
        let start = match start {
            SessionStart::Resume(id) => {
                SessionStart::Resume(resolve_id(&self.env.open_store()?, &id)?)
            }
            other => other,
        };
        // The model in use carries over; should it no longer resolve, the
        // configured default is used. The mode follows EXEC-6 (no flag).
        let setup = self
            .env
            .session_setup(&self.lists, Some(model), start.clone(), None, false)
            .or_else(|_| {
                self.env
                    .session_setup(&self.lists, None, start, None, false)
            })?;
        let store = self.env.open_store()?;
        Ok(crate::runtime::start(setup, store)?)
    }

    fn sessions(&self) -> anyhow::Result<Vec<SessionSummary>> {
        let project = Project::resolve(None)?;
        let store = self.env.open_store()?;
        let filter = SessionFilter {
            project_id: Some(&project.id),
            ..Default::default()
        };
        Ok(store
            .list_sessions(&filter, RESUME_LIMIT)?
            .into_iter()
            .map(|s| SessionSummary {
                mode: s.execution.label().to_string(),
                id: s.id,
                updated_at: s.updated_at,
                title: s.title,
            })
            .collect())
    }

    fn memory_file(&self) -> anyhow::Result<std::path::PathBuf> {
        let project = Project::resolve(None)?;
        Ok(self
            .env
            .home
            .join("projects")
            .join(project.id)
            .join("memory")
            .join("MEMORY.md"))
    }

    fn extensions(&self) -> Extensions {
        let Ok(project) = Project::resolve(None) else {
            return Extensions::default();
        };
        let reserved = super::command_task::reserved_names();
        let (commands, problems) = crate::extensions::commands::load_commands(
            &project.workspace,
            &self.env.home,
            &reserved,
        );
        // Their problems are the runtime's to tell.
        let (skills, _) =
            crate::extensions::skills::load_skills(&project.workspace, &self.env.home);
        Extensions {
            commands,
            skills,
            problems: problems.iter().map(ToString::to_string).collect(),
        }
    }

    fn prompt_history(&self) -> anyhow::Result<Vec<String>> {
        let project = Project::resolve(None)?;
        self.with_store(|store| store.prompt_history(&project.id))
    }

    fn remember_prompt(&self, prompt: &str) -> anyhow::Result<()> {
        let project = Project::resolve(None)?;
        self.with_store(|store| store.add_prompt_history(&project.id, prompt))?;
        Ok(())
    }

    fn exports_dir(&self) -> Option<std::path::PathBuf> {
        Some(self.env.home.join("exports"))
    }

    fn models(&self) -> anyhow::Result<Vec<ModelChoice>> {
        let catalog = self.env.config.catalog(|k| std::env::var(k).ok());
        Ok(catalog
            .providers
            .iter()
            .flat_map(|p| {
                p.models.iter().map(move |m| ModelChoice {
                    reference: format!("{}/{}", p.id, m.id),
                    provider_name: p.name.clone(),
                    context_window: m.context_window,
                    disabled: m.disabled.clone(),
                })
            })
            .collect())
    }
}
