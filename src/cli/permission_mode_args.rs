//! `--permission-mode` (Claude Code's names for the starting mode) and
//! `--dangerously-skip-permissions`: other spellings of `--mode`, folded
//! into it once the command line is parsed, so every subcommand reads one
//! field. Two spellings that disagree are a usage error, never a silent pick.

use super::args::Cli;
use super::usage_error::UsageError;
use crate::permission::mode::{Mode, ModeChoice, parse_mode_choice};

/// Claude Code's permission modes and the zcode mode each one is.
const CLAUDE_NAMES: [(&str, ModeChoice); 5] = [
    ("default", ModeChoice::Mode(Mode::Build)),
    ("manual", ModeChoice::Mode(Mode::Build)),
    ("acceptEdits", ModeChoice::Mode(Mode::Edit)),
    ("plan", ModeChoice::Plan),
    ("bypassPermissions", ModeChoice::Mode(Mode::Yolo)),
];

/// A `--permission-mode` value: a Claude Code name (any case) or one of
/// zcode's own. Claude Code's `auto` and `dontAsk` have no zcode mode; the
/// error says what comes closest.
pub fn parse_permission_mode(value: &str) -> Result<ModeChoice, String> {
    let trimmed = value.trim();
    if let Some((_, choice)) = CLAUDE_NAMES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(trimmed))
    {
        return Ok(*choice);
    }
    if trimmed.eq_ignore_ascii_case("dontAsk") {
        return Err(
            "dontAsk has no zcode mode: zcode -p --mode build denies whatever would be \
                    asked, which is what dontAsk does"
                .to_string(),
        );
    }
    if trimmed.eq_ignore_ascii_case("auto") {
        return Err("auto has no zcode mode (no classifier decides for you); \
                    use default, acceptEdits, plan or bypassPermissions"
            .to_string());
    }
    parse_mode_choice(trimmed).map_err(|_| {
        format!(
            "unknown permission mode '{value}': use default, acceptEdits, plan or \
             bypassPermissions (zcode's build, edit, plan or yolo)"
        )
    })
}

/// Folds `--permission-mode` and `--dangerously-skip-permissions` into
/// `cli.mode`; an error when the spellings given name different modes.
pub fn resolve_mode(cli: &mut Cli) -> Result<(), UsageError> {
    let yolo = ModeChoice::Mode(Mode::Yolo);
    let mut given: Vec<(String, ModeChoice)> = Vec::new();
    if let Some(mode) = cli.mode {
        given.push((format!("--mode {}", mode.as_str()), mode));
    }
    if let Some(mode) = cli.permission_mode {
        given.push((
            format!("--permission-mode (zcode's {})", mode.as_str()),
            mode,
        ));
    }
    if cli.dangerously_skip_permissions {
        given.push(("--dangerously-skip-permissions (yolo)".to_string(), yolo));
    }
    if let Some((first, mode)) = given.first() {
        if let Some((other, _)) = given.iter().find(|(_, m)| m != mode) {
            return Err(UsageError::new(format!(
                "{first} and {other} name different modes; give one"
            )));
        }
        cli.mode = Some(*mode);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(args: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("zcode").chain(args.iter().copied()))
            .unwrap_or_else(|e| panic!("{args:?}: {e}"))
    }

    fn resolved(args: &[&str]) -> Result<Option<ModeChoice>, UsageError> {
        let mut cli = parse(args);
        resolve_mode(&mut cli).map(|()| cli.mode)
    }

    #[test]
    fn habit_permission_mode_maps_claude_code_names() {
        for (name, ours) in [
            ("default", "build"),
            ("manual", "build"),
            ("acceptEdits", "edit"),
            ("acceptedits", "edit"),
            ("plan", "plan"),
            ("bypassPermissions", "yolo"),
            ("build", "build"),
            ("yolo", "yolo"),
        ] {
            let mode = resolved(&["--permission-mode", name]).unwrap();
            assert_eq!(mode.map(ModeChoice::as_str), Some(ours), "{name}");
        }
    }

    #[test]
    fn habit_permission_mode_refuses_modes_zcode_lacks() {
        let err = parse_permission_mode("dontAsk").unwrap_err();
        assert!(err.contains("--mode build"), "{err}");
        assert!(parse_permission_mode("auto").is_err());
        let err = parse_permission_mode("sometimes").unwrap_err();
        assert!(err.contains("acceptEdits"), "{err}");
    }

    #[test]
    fn habit_dangerously_skip_permissions_is_yolo() {
        let mode = resolved(&["--dangerously-skip-permissions"]).unwrap();
        assert_eq!(mode, Some(ModeChoice::Mode(Mode::Yolo)));
        // Spellings that agree are fine.
        assert!(resolved(&["--dangerously-skip-permissions", "--mode", "yolo"]).is_ok());
        assert!(
            resolved(&[
                "--permission-mode",
                "bypassPermissions",
                "--dangerously-skip-permissions"
            ])
            .is_ok()
        );
        assert_eq!(resolved(&[]).unwrap(), None);
    }

    #[test]
    fn habit_permission_mode_conflicting_with_mode_is_an_error() {
        let err = resolved(&["--mode", "plan", "--permission-mode", "acceptEdits"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--mode plan and --permission-mode (zcode's edit) name different modes; give one"
        );
        assert!(resolved(&["--mode", "build", "--dangerously-skip-permissions"]).is_err());
        assert!(resolved(&["--mode", "edit", "--permission-mode", "acceptEdits"]).is_ok());
    }
}
