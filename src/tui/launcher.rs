//! What the app needs besides the running runtime: starting another
//! session (`/new`, `/resume`) and the lists its pickers show. The CLI
//! builds one from its environment; the app owns it.

use crate::runtime::RuntimeHandle;
use crate::runtime::session::SessionStart;

/// One session of this project, for the `/resume` picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    pub id: String,
    /// Milliseconds since the Unix epoch.
    pub updated_at: i64,
    /// The title (the first user message), if any.
    pub title: Option<String>,
    /// The mode label (`plan`, `build`, …).
    pub mode: String,
}

/// One configured model, for the `/model` picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChoice {
    /// `provider/model`.
    pub reference: String,
    pub provider_name: String,
    /// In tokens; `None` when the config does not say.
    pub context_window: Option<u64>,
    /// Why it cannot be picked.
    pub disabled: Option<String>,
}

/// What the project and the user add with files: command files (slash
/// commands) and skills (for `/skills`), with the files left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extensions {
    pub commands: Vec<crate::extensions::commands::CommandFile>,
    pub skills: Vec<crate::extensions::skills::Skill>,
    /// Command files left out, each as "path: reason". (The runtime tells
    /// the skill folders left out.)
    pub problems: Vec<String>,
}

pub trait Launcher {
    /// Starts a runtime on `start`, using the model `model` (`provider/model`)
    /// when it still resolves. Must run inside the tokio runtime.
    fn start(&self, start: SessionStart, model: &str) -> anyhow::Result<RuntimeHandle>;
    /// This project's sessions, most recent first.
    fn sessions(&self) -> anyhow::Result<Vec<SessionSummary>>;
    /// The configured models (empty when only the offline demo exists).
    fn models(&self) -> anyhow::Result<Vec<ModelChoice>>;
    /// The project's memory index, `MEMORY.md` in its memory directory
    /// (which may not exist yet).
    fn memory_file(&self) -> anyhow::Result<std::path::PathBuf>;
    /// The command files and skills of this workspace and the user; none
    /// by default.
    fn extensions(&self) -> Extensions {
        Extensions::default()
    }
    /// Where `/export` writes by default (`$ZCODE_HOME/exports`); `None`:
    /// the temporary directory.
    fn exports_dir(&self) -> Option<std::path::PathBuf> {
        None
    }
    /// The project's prompt history from earlier sessions, oldest first;
    /// none by default.
    fn prompt_history(&self) -> anyhow::Result<Vec<String>> {
        Ok(Vec::new())
    }
    /// Keeps `prompt` in the project's history for later sessions (the app
    /// asks `tui::history` first whether it may).
    fn remember_prompt(&self, _prompt: &str) -> anyhow::Result<()> {
        Ok(())
    }
}
