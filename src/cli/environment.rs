//! What the subcommands share: the zcode home, the config, the store and
//! the project a directory belongs to.

use super::args::Cli;
use crate::config::project_root::project_root;
use crate::config::{Config, project_id, zcode_home};
use crate::model::select::{select_model, switch_model};
use crate::permission::mode::ModeChoice;
use crate::permission::settings::PermissionSettings;
use crate::runtime::session::SessionStart;
use crate::runtime::{BrokerChoice, ModelResolver, RuntimeSetup};
use crate::store::{Store, default_db_path};
use anyhow::Context;
use std::path::{Path, PathBuf};

/// `--disallowedTools` / `--allowedTools` of this process (DIS-2), each
/// entry `Tool` or `Tool(content)`.
#[derive(Debug, Clone, Default)]
pub struct ToolLists {
    pub disallowed: Vec<String>,
    pub allowed: Vec<String>,
}

impl ToolLists {
    /// The `--disallowedTools` entries that name a whole tool (the tool is
    /// not registered); one with content is a deny rule instead.
    pub fn whole_tools_removed(&self) -> Vec<String> {
        self.disallowed
            .iter()
            .filter(|entry| !entry.contains('('))
            .cloned()
            .collect()
    }
}

pub struct Environment {
    pub home: PathBuf,
    pub config: Config,
}

impl Environment {
    /// Loads the config, printing its warnings (unknown keys) on stderr.
    pub fn load() -> anyhow::Result<Self> {
        let home = zcode_home(|k| std::env::var(k).ok())?;
        let config = Config::load(&home)?;
        for warning in &config.warnings {
            eprintln!("zcode: warning: {warning}");
        }
        Ok(Self { home, config })
    }

    /// Opens the store; the first open after the project ids changed
    /// (GRANT-3) also moves memory directories and says once what it could
    /// not carry over. Earlier projects inside the current directory's
    /// repository are carried over to its root's (see [`Self::open_store_in`]).
    pub fn open_store(&self) -> anyhow::Result<Store> {
        self.open_store_in(None)
    }

    /// [`Self::open_store`] for the project of `cwd` (else the current
    /// directory): what subdirectories of its repository saved as projects
    /// of their own moves to the repository root's project, once.
    pub fn open_store_in(&self, cwd: Option<&Path>) -> anyhow::Result<Store> {
        let mut store = Store::open(default_db_path(&self.home))?;
        carry_over_project_ids(&self.home, &mut store);
        if let Ok(project) = Project::resolve(cwd) {
            carry_over_into_root(&self.home, &mut store, &project);
        }
        Ok(store)
    }

    /// The config's permission section plus this process's tool lists.
    pub fn permission_settings(&self, lists: &ToolLists) -> PermissionSettings {
        let mut settings = self.config.permission_settings();
        // The entries were read as rules when the command line was split
        // (`tool_list_args`), so none fails here.
        for entry in &lists.disallowed {
            let _ = settings.add_disallowed_entry(entry);
        }
        for entry in &lists.allowed {
            let _ = settings.add_allowed_entry(entry);
        }
        settings
    }

    /// A runtime for the current directory on `start` (what `--resume` /
    /// `--continue` chose, `session_choice`), with the flags' model and
    /// mode; a headless one answers approvals with the deny broker
    /// (APPR-5), an interactive one through the UI.
    pub fn runtime_setup(
        &self,
        cli: &Cli,
        lists: &ToolLists,
        start: SessionStart,
        headless: bool,
    ) -> anyhow::Result<RuntimeSetup> {
        self.session_setup(lists, cli.model.as_deref(), start, cli.mode, headless)
    }

    /// A runtime for the current directory: this model reference (else the
    /// config's choice), this session, this explicit mode.
    pub fn session_setup(
        &self,
        lists: &ToolLists,
        model_ref: Option<&str>,
        start: SessionStart,
        explicit_mode: Option<ModeChoice>,
        headless: bool,
    ) -> anyhow::Result<RuntimeSetup> {
        self.session_setup_in(None, lists, model_ref, start, explicit_mode, headless)
    }

    /// As [`Self::session_setup`], for the project of `cwd` (else the
    /// current directory): an ACP client names the directory of each session.
    pub fn session_setup_in(
        &self,
        cwd: Option<&Path>,
        lists: &ToolLists,
        model_ref: Option<&str>,
        start: SessionStart,
        explicit_mode: Option<ModeChoice>,
        headless: bool,
    ) -> anyhow::Result<RuntimeSetup> {
        let project = Project::resolve(cwd)?;
        if cwd.is_some() {
            // The current directory's was carried when the store opened.
            if let Ok(mut store) = Store::open(default_db_path(&self.home)) {
                carry_over_into_root(&self.home, &mut store, &project);
            }
        }
        let model = select_model(&self.config, |k| std::env::var(k).ok(), model_ref)?;
        let env = |k: &str| std::env::var(k).ok();
        let mcp = crate::mcp::McpSetup::load(&self.config.mcp_servers, &project.workspace, &env);
        Ok(RuntimeSetup {
            workspace: project.workspace,
            project_id: project.id,
            zcode_home: self.home.clone(),
            model,
            settings: self.permission_settings(lists),
            hooks: self.config.hooks.clone(),
            disallowed_tools: lists.whole_tools_removed(),
            start,
            explicit_mode,
            config_mode: self.config.permission_mode(),
            headless,
            broker: if headless {
                BrokerChoice::Deny
            } else {
                BrokerChoice::Channel
            },
            model_resolver: Some(self.model_resolver()),
            mcp,
            agents: self.config.agents,
            client_files: None,
        })
    }

    /// `/model` against this config's catalog (MODEL-3).
    pub fn model_resolver(&self) -> ModelResolver {
        let config = self.config.clone();
        std::sync::Arc::new(move |reference, current| {
            switch_model(
                &config,
                |k| std::env::var(k).ok(),
                reference,
                &current.provider_id,
            )
            .map_err(|e| format!("/model {}: {e}", reference.trim()))
        })
    }
}

/// The outside-the-database part of the project id change (GRANT-3):
/// memory directories follow their carried-over id, and rules left under
/// an id several directories shared are reported once. Best effort: a
/// failure here never keeps zcode from starting.
fn carry_over_project_ids(home: &Path, store: &mut Store) {
    match store.take_unnoticed_carried_ids() {
        Ok(moves) => {
            for (old, new) in moves {
                let from = home.join("projects").join(&old);
                let to = home.join("projects").join(&new);
                if from.is_dir()
                    && !to.exists()
                    && let Err(e) = std::fs::rename(&from, &to)
                {
                    eprintln!(
                        "zcode: warning: cannot move {} to {}: {e}",
                        from.display(),
                        to.display()
                    );
                }
            }
        }
        Err(e) => eprintln!("zcode: warning: {e}"),
    }
    match store.take_unnoticed_ambiguous_carry_overs() {
        Ok(shared) => {
            for record in shared {
                eprintln!(
                    "zcode: note: {} saved project setting(s) were shared by {} under one id; \
                     they no longer apply to any of them. `zcode permission list --cwd DIR` \
                     shows them; re-add the rules you want with `zcode permission add`.",
                    record.settings,
                    record.workspaces.join(", ")
                );
            }
        }
        Err(e) => eprintln!("zcode: warning: {e}"),
    }
}

/// Earlier projects inside `project`'s repository move to its root's
/// (GRANT-3): their saved rules and last mode, their sessions, and a
/// memory directory when the root has none yet. Told once, on stderr.
/// Best effort: a failure never keeps zcode from starting.
fn carry_over_into_root(home: &Path, store: &mut Store, project: &Project) {
    let home_dir = user_home();
    let belongs = |dir: &Path| {
        std::fs::canonicalize(dir)
            .is_ok_and(|d| project_root(&d, home_dir.as_deref()) == project.root)
    };
    let carried =
        match store.carry_over_into_root(&project.root, &project.id, &project.workspace, belongs) {
            Ok(carried) => carried,
            Err(e) => {
                eprintln!("zcode: warning: {e}");
                return;
            }
        };
    for done in carried {
        let from = home.join("projects").join(&done.old_id).join("memory");
        let to = project.memory_dir(home);
        if from.is_dir() && !to.exists() {
            let moved = to
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::rename(&from, &to));
            if let Err(e) = moved {
                eprintln!(
                    "zcode: warning: cannot move {} to {}: {e}",
                    from.display(),
                    to.display()
                );
            }
        }
        eprintln!(
            "zcode: note: {} is now part of the project at the repository root {}: \
             its {} saved setting(s) and {} session(s) were carried over.",
            done.directory,
            project.root.display(),
            done.settings,
            done.sessions
        );
    }
}

/// The user's home directory, canonical, when known.
fn user_home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .and_then(|h| std::fs::canonicalize(h).ok())
}

/// A project: the directory zcode works in and the directory (and id) its
/// rules, sessions, memory and last mode are kept under (GRANT-3).
pub struct Project {
    /// The canonical start directory (or `--cd`): what tools may reach.
    pub workspace: PathBuf,
    /// The root of the git work tree holding `workspace`, else `workspace`.
    pub root: PathBuf,
    /// The project id of `root`.
    pub id: String,
}

impl Project {
    pub fn resolve(cwd: Option<&Path>) -> anyhow::Result<Self> {
        let dir = match cwd {
            Some(d) => d.to_path_buf(),
            None => std::env::current_dir().context("cannot read the current directory")?,
        };
        let workspace = std::fs::canonicalize(&dir)
            .with_context(|| format!("cannot open project directory {}", dir.display()))?;
        if !workspace.is_dir() {
            anyhow::bail!("{} is not a directory", workspace.display());
        }
        let root = project_root(&workspace, user_home().as_deref());
        let id = project_id(&root);
        Ok(Self {
            workspace,
            root,
            id,
        })
    }

    /// `$ZCODE_HOME/projects/<projectID>/memory/` (PERM-13).
    pub fn memory_dir(&self, home: &Path) -> PathBuf {
        home.join("projects").join(&self.id).join("memory")
    }
}
