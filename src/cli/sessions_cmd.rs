//! `zcode sessions list` (CLI-4).

use super::args::SessionsCommand;
use super::environment::{Environment, Project};
use super::stdout::outln;
use crate::store::{SessionFilter, SubAgentRow};
use serde_json::json;
use std::process::ExitCode;

pub fn run(cmd: SessionsCommand) -> anyhow::Result<ExitCode> {
    let SessionsCommand::List {
        all,
        limit,
        json,
        cwd,
    } = cmd;
    let env = Environment::load()?;
    let project = if all {
        None
    } else {
        Some(Project::resolve(cwd.cwd.as_deref())?)
    };
    let store = env.open_store()?;
    let filter = SessionFilter {
        project_id: project.as_ref().map(|p| p.id.as_str()),
        ..Default::default()
    };
    let sessions = store.list_sessions(&filter, limit)?;
    // Sub-agents' sessions show under their parent's, with --all only.
    let children = |id: &str| -> anyhow::Result<Vec<SubAgentRow>> {
        Ok(if all {
            store.sub_agents_of(id)?
        } else {
            Vec::new()
        })
    };
    if json {
        let mut rows = Vec::with_capacity(sessions.len());
        for s in &sessions {
            let mut row = json!({
                "id": s.id, "workspace": s.workspace, "title": s.title, "model": s.model,
                "mode": s.execution.mode, "planEnabled": s.execution.plan_enabled,
                "createdAt": s.created_at, "updatedAt": s.updated_at,
            });
            if all {
                row["subAgents"] = children(&s.id)?
                    .iter()
                    .map(|a| {
                        json!({
                            "id": a.link.session_id, "label": a.link.label,
                            "agentType": a.link.agent_type, "description": a.link.description,
                            "model": a.link.model, "parentCallId": a.link.parent_call_id,
                            "summary": a.summary,
                        })
                    })
                    .collect();
            }
            rows.push(row);
        }
        outln!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    if sessions.is_empty() {
        match &project {
            Some(p) => outln!(
                "No sessions for {} (use --all for every project).",
                p.workspace.display()
            ),
            None => outln!("No sessions yet."),
        }
        return Ok(ExitCode::SUCCESS);
    }
    for s in &sessions {
        let label = s.execution.label();
        outln!(
            "{}  {:<5}  {}  {}",
            s.id,
            label,
            s.workspace,
            s.title.as_deref().unwrap_or("(untitled)")
        );
        for agent in children(&s.id)? {
            outln!(
                "  └ {}  {}  {}",
                agent.link.session_id,
                agent.link.label,
                agent.link.description
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
