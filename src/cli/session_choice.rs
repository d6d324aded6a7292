//! Which session `--resume` / `--continue` name: a session id, any unique
//! start of one (the short id the UI shows, with or without `sess_`), the
//! latest session here, or — `--resume` without an id in the terminal UI —
//! the user's pick from the session picker.

use super::args::Cli;
use super::usage_error::UsageError;
use crate::runtime::session::SessionStart;
use crate::store::{SessionFilter, SessionRecord, Store};

/// How many matches an ambiguous id lists.
const LISTED_MATCHES: usize = 5;

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChoice {
    Start(SessionStart),
    /// `--resume` without an id in the terminal UI: the picker chooses;
    /// `fork` as `--fork-session` says.
    Pick {
        fork: bool,
    },
}

/// The session the flags name; ids are completed against `store`. `ui`:
/// the terminal UI, where `--resume` without an id opens the picker.
pub fn session_choice(cli: &Cli, store: &Store, ui: bool) -> anyhow::Result<SessionChoice> {
    let fork = cli.fork_session;
    Ok(SessionChoice::Start(
        match (&cli.resume, cli.continue_latest) {
            (Some(id), _) if !id.is_empty() => {
                let id = resolve_id(store, id)?;
                if fork {
                    SessionStart::ForkOf(id)
                } else {
                    SessionStart::Resume(id)
                }
            }
            (Some(_), _) if ui => return Ok(SessionChoice::Pick { fork }),
            (Some(_), _) | (None, true) => {
                if fork {
                    SessionStart::ForkLatest
                } else {
                    SessionStart::Latest
                }
            }
            (None, false) if fork => {
                anyhow::bail!("--fork-session copies the session of --resume or --continue")
            }
            (None, false) => SessionStart::New,
        },
    ))
}

/// The full id `given` names: itself when a session has it, else the one
/// session whose id starts with it (`sess_` may be left out). An id that
/// starts no session is returned as given, for the runtime to report; one
/// that starts several is an error listing them.
pub fn resolve_id(store: &Store, given: &str) -> anyhow::Result<String> {
    if store.get_session(given)?.is_some() {
        return Ok(given.to_string());
    }
    let wanted = given.trim().to_ascii_lowercase();
    let wanted = wanted.strip_prefix("sess_").unwrap_or(&wanted);
    // Named by the user, so a session nobody wrote in yet is found too,
    // as its full id would find it.
    let filter = SessionFilter {
        include_sub_agents: true,
        include_empty: true,
        ..Default::default()
    };
    let matches: Vec<SessionRecord> = store
        .list_sessions(&filter, usize::MAX)?
        .into_iter()
        .filter(|s| {
            s.id.strip_prefix("sess_")
                .unwrap_or(&s.id)
                .starts_with(wanted)
        })
        .collect();
    match matches.as_slice() {
        [] => Ok(given.to_string()),
        [one] => Ok(one.id.clone()),
        many => Err(ambiguous(given, many).into()),
    }
}

fn ambiguous(given: &str, matches: &[SessionRecord]) -> UsageError {
    let listed: Vec<String> = matches
        .iter()
        .take(LISTED_MATCHES)
        .map(|s| match &s.title {
            Some(title) => format!("{} ({})", s.id, one_line(title)),
            None => s.id.clone(),
        })
        .collect();
    let more = match matches.len().saturating_sub(LISTED_MATCHES) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    UsageError::new(format!(
        "session id '{given}' is the start of {} sessions: {}{more}; give more of the id",
        matches.len(),
        listed.join(", ")
    ))
}

/// A title on one line, at most 40 characters.
fn one_line(title: &str) -> String {
    let line = title.lines().next().unwrap_or_default().trim();
    match line.char_indices().nth(40) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::mode::ExecutionState;
    use crate::store::NewSession;
    use clap::Parser;

    fn store_with(ids: &[(&str, &str)]) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path().join("zcode.db")).unwrap();
        for (id, title) in ids {
            store
                .create_session(&NewSession {
                    id: id.to_string(),
                    workspace: "/w".into(),
                    project_id: "p".into(),
                    title: Some(title.to_string()),
                    model: None,
                    execution: ExecutionState::default(),
                })
                .unwrap();
        }
        (dir, store)
    }

    fn parse(args: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("zcode").chain(args.iter().copied())).unwrap()
    }

    #[test]
    fn habit_resume_accepts_the_short_id_the_ui_shows() {
        let (_dir, store) = store_with(&[
            ("sess_0123456789abcdef", "first"),
            ("sess_0199999999abcdef", "second"),
        ]);
        for given in [
            "01234567",
            "sess_0123",
            "0123456789abcdef",
            "sess_0123456789abcdef",
        ] {
            assert_eq!(
                resolve_id(&store, given).unwrap(),
                "sess_0123456789abcdef",
                "{given}"
            );
        }
        // Unknown: left for the runtime's "no session" error.
        assert_eq!(resolve_id(&store, "ffff").unwrap(), "ffff");
    }

    #[test]
    fn habit_resume_ambiguous_prefix_lists_the_matches() {
        let (_dir, store) = store_with(&[
            ("sess_0123456789abcdef", "first"),
            ("sess_0199999999abcdef", "second"),
        ]);
        let err = resolve_id(&store, "01").unwrap_err();
        assert!(err.downcast_ref::<UsageError>().is_some());
        let text = err.to_string();
        assert!(text.contains("'01' is the start of 2 sessions"), "{text}");
        assert!(text.contains("sess_0123456789abcdef (first)"), "{text}");
        assert!(text.contains("sess_0199999999abcdef (second)"), "{text}");
    }

    #[test]
    fn habit_resume_without_id_picks_in_the_ui_and_takes_the_latest_headless() {
        let (_dir, store) = store_with(&[]);
        let choice = |args: &[&str], ui| session_choice(&parse(args), &store, ui).unwrap();
        assert_eq!(choice(&["-r"], true), SessionChoice::Pick { fork: false });
        assert_eq!(
            choice(&["--resume", "--fork-session"], true),
            SessionChoice::Pick { fork: true }
        );
        assert_eq!(
            choice(&["-p", "x", "-r"], false),
            SessionChoice::Start(SessionStart::Latest)
        );
        assert_eq!(
            choice(&["-c"], true),
            SessionChoice::Start(SessionStart::Latest)
        );
        assert_eq!(
            choice(&["-c", "--fork-session"], false),
            SessionChoice::Start(SessionStart::ForkLatest)
        );
        assert_eq!(choice(&[], true), SessionChoice::Start(SessionStart::New));
        assert!(session_choice(&parse(&["--fork-session"]), &store, true).is_err());
    }
}
