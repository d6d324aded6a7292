//! `zcode -p TASK`: sets up a runtime for the current directory and runs
//! one task headless (HEAD-1, HEAD-2, EXEC-6: yolo unless `--mode`).

use super::args::Cli;
use super::environment::{Environment, ToolLists};
use super::session_choice::{SessionChoice, session_choice};
use crate::headless;
use crate::project_settings::{ProjectRules, TRUST_COMMAND};
use crate::runtime::session::SessionStart;
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
    let store = env.open_store()?;
    // Headless, `--resume` without an id is the latest session here.
    let start = match session_choice(cli, &store, false)? {
        SessionChoice::Start(start) => start,
        SessionChoice::Pick { fork: true } => SessionStart::ForkLatest,
        SessionChoice::Pick { fork: false } => SessionStart::Latest,
    };
    let setup = env.runtime_setup(cli, lists, start, true)?;
    let verbose = cli.verbose;
    if verbose {
        eprintln!(
            "zcode: model {}/{} · project {}",
            setup.model.provider_id,
            setup.model.model_id,
            setup.workspace.display()
        );
    }
    // Never trusted here: the allow rules of an untrusted settings file are
    // left out, and stderr says so in every output format. A broken file
    // denies every call (the runtime reads the files for each).
    match ProjectRules::load(
        &store,
        &setup.project_id,
        &crate::config::project_root::project_root_of(&setup.workspace),
    ) {
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
        let session_id = handle.session_id.clone();
        if verbose {
            eprintln!("zcode: session {session_id}");
        }
        let code = headless::run(handle, task, cli.output_format, started).await;
        if verbose {
            eprintln!("zcode: continue it with: zcode -p --resume {session_id} \"TASK\"");
        }
        anyhow::Ok(code)
    });
    // A tool abandoned on a blocking thread (a hung file system) must not
    // keep the process from exiting.
    rt.shutdown_timeout(super::RUNTIME_EXIT_GRACE);
    Ok(ExitCode::from(code?))
}
