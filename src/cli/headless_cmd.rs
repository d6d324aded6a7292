//! `zcode -p TASK`: sets up a runtime for the current directory and runs
//! one task headless (HEAD-1, HEAD-2, EXEC-6: yolo unless `--mode`).

use super::args::Cli;
use super::environment::{Environment, ToolLists};
use crate::headless;
use crate::project_settings::{ProjectRules, TRUST_COMMAND};
use std::process::ExitCode;
use std::time::Instant;

/// Runs `task` (already resolved against stdin); `started` is when zcode
/// started, for the result's `duration_ms`.
pub fn run(
    cli: &Cli,
    task: String,
    lists: &ToolLists,
    started: Instant,
) -> anyhow::Result<ExitCode> {
    let env = Environment::load()?;
    let setup = env.runtime_setup(cli, lists, true)?;
    let store = env.open_store()?;
    // Never trusted here: the allow rules of an untrusted settings file are
    // left out, and stderr says so in every output format. A broken file
    // denies every call (the runtime reads the files for each).
    match ProjectRules::load(&store, &setup.project_id, &setup.workspace) {
        Ok(rules) => {
            if let Some(notice) = rules.untrusted_notice(TRUST_COMMAND) {
                eprintln!("zcode: {notice}");
            }
        }
        Err(e) => eprintln!("zcode: error: {e}"),
    }
    // One thread is plenty for one session and starts fastest.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start the async runtime: {e}"))?;
    let code = rt.block_on(async move {
        let handle = crate::runtime::start(setup, store)?;
        anyhow::Ok(headless::run(handle, task, cli.output_format, started).await)
    });
    // A tool abandoned on a blocking thread (a hung file system) must not
    // keep the process from exiting.
    rt.shutdown_timeout(super::RUNTIME_EXIT_GRACE);
    Ok(ExitCode::from(code?))
}
