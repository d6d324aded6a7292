//! `zcode sessions list` (CLI-4): the sessions of the project (or all),
//! most recent activity first, each with when it was last active. Sessions
//! nobody has sent a message in are not listed.

use super::args::SessionsCommand;
use super::environment::{Environment, Project};
use super::stdout::outln;
use crate::store::{Clock, SessionFilter, SubAgentRow, SystemClock};
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
    let store = env.open_store_in(cwd.cwd.as_deref())?;
    let filter = SessionFilter {
        project_id: project.as_ref().map(|p| p.id.as_str()),
        ..Default::default()
    };
    let sessions = store.list_sessions(&filter, limit)?;
    let now = SystemClock.now_ms();
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
                p.root.display()
            ),
            None => outln!("No sessions yet."),
        }
        return Ok(ExitCode::SUCCESS);
    }
    for s in &sessions {
        let label = s.execution.label();
        let when = last_activity(s.updated_at, now, local_offset_secs(s.updated_at));
        outln!(
            "{}  {:<16}  {:<5}  {}  {}",
            s.id,
            when,
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

/// When a session was last active, as `sessions list` shows it: "just
/// now", "N min ago" or "N h ago" within the last day, else the local date
/// and time ("2026-12-04 21:40"). `now_ms` and the offset of local time
/// from UTC are passed in, so the text does not depend on the machine.
fn last_activity(updated_ms: i64, now_ms: i64, utc_offset_secs: i64) -> String {
    const MINUTE: i64 = 60_000;
    let age = now_ms.saturating_sub(updated_ms);
    match age {
        // A clock set back shows the date rather than a negative age.
        0..MINUTE => "just now".to_string(),
        MINUTE..3_600_000 => format!("{} min ago", age / MINUTE),
        3_600_000..86_400_000 => format!("{} h ago", age / 3_600_000),
        _ => crate::tui::picker::format_date(
            updated_ms.saturating_add(utc_offset_secs.saturating_mul(1000)),
        ),
    }
}

/// The offset of local time from UTC at `ms` (daylight saving included),
/// from the C library's time zone rules (`TZ`, `/etc/localtime`); 0 when
/// it cannot tell.
fn local_offset_secs(ms: i64) -> i64 {
    // `time_t` is 64 bits on the systems zcode runs on.
    let secs: libc::time_t = ms.div_euclid(1000);
    // SAFETY: `localtime_r` only reads `secs` and writes the `tm` it is
    // given; both live on this stack frame for the whole call.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let filled = unsafe { libc::localtime_r(&secs, &mut tm) };
    if filled.is_null() {
        return 0;
    }
    tm.tm_gmtoff
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-12-04 21:40 UTC.
    const AT: i64 = 1_796_420_400_000;

    #[test]
    fn sessions_list_time_column_is_relative_within_a_day() {
        assert_eq!(last_activity(AT, AT, 0), "just now");
        assert_eq!(last_activity(AT, AT + 59_999, 0), "just now");
        assert_eq!(last_activity(AT, AT + 3 * 60_000 + 5, 3600), "3 min ago");
        assert_eq!(last_activity(AT, AT + 5 * 3_600_000, 3600), "5 h ago");
    }

    #[test]
    fn sessions_list_time_column_is_the_local_date_after_a_day() {
        let later = AT + 2 * 86_400_000;
        assert_eq!(last_activity(AT, later, 0), "2026-12-04 21:40");
        assert_eq!(last_activity(AT, later, 3600), "2026-12-04 22:40");
        assert_eq!(last_activity(AT, later, -5 * 3600), "2026-12-04 16:40");
        // A session from the future (a clock set back) gets its date.
        assert_eq!(last_activity(AT, AT - 10_000, 0), "2026-12-04 21:40");
    }
}
