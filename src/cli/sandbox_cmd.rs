//! `zcode sandbox [--read-only | --workspace-write] -- CMD ARGS…`: one
//! command inside exactly the sandbox the Bash tool uses, to see what it
//! allows; every process it started ends with it.

use super::args::SandboxArgs;
use super::environment::Environment;
use crate::sandbox::{self, SandboxPolicy};
use anyhow::Context;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitCode;

pub fn run(args: SandboxArgs) -> anyhow::Result<ExitCode> {
    let env = Environment::load()?;
    let policy = if args.workspace_write {
        let dir = match &args.cwd.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().context("cannot read the current directory")?,
        };
        let workspace = std::fs::canonicalize(&dir)
            .with_context(|| format!("cannot resolve {}", dir.display()))?;
        SandboxPolicy::workspace_write(workspace, env.config.sandbox.network)
    } else {
        SandboxPolicy::read_only()
    }
    .with_limits(env.config.sandbox.limits);
    let (program, rest) = args
        .command
        .split_first()
        .context("no command given (zcode sandbox -- CMD ARGS…)")?;
    let mut cmd = std::process::Command::new(program);
    cmd.args(rest);
    if let Some(dir) = &args.cwd.cwd {
        cmd.current_dir(dir);
    }
    sandbox::apply_to_std(&mut cmd, &policy)?;
    // Orphans of the command become zcode's children, so that whatever it
    // left running (a daemon that left its session included) is ended
    // with it, as the Bash tool ends a sandboxed command's process group.
    sandbox::reaper::become_subreaper().context("cannot become the command's subreaper")?;
    let status = cmd.status().with_context(|| {
        format!(
            "cannot run {program} in the {} sandbox",
            policy.kind.as_str()
        )
    });
    sandbox::reaper::end_all_children();
    let status = status?;
    // The shell's convention: a command killed by signal N exits 128+N.
    let code = status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1);
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}
