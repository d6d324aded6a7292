//! An unknown option gets "did you mean" for the nearest real one, never
//! clap's tip to pass it after `--`: that would send the flag to the model
//! as the task.

use super::args::Cli;
use super::usage_error::UsageError;
use clap::CommandFactory;
use clap::error::{ContextKind, ContextValue, ErrorKind};

/// Options read before clap runs (`tool_list_args`), so not in its list.
const EXTRA_OPTIONS: [&str; 4] = [
    "--disallowedTools",
    "--disallowed-tools",
    "--allowedTools",
    "--allowed-tools",
];

/// The usage error for clap's "unexpected argument '-x'", or `None` for
/// any other error (clap prints those itself). `args` is the command line
/// clap saw, without the program name.
pub fn unknown_flag_error(err: &clap::Error, args: &[String]) -> Option<UsageError> {
    if err.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(invalid)) = err.get(ContextKind::InvalidArg) else {
        return None;
    };
    if !invalid.starts_with('-') {
        return None;
    }
    // `-continue` is read by clap as the short `-c` and then `-o`: the word
    // typed is what to match, and to name.
    let typed = args
        .iter()
        .take_while(|a| a.as_str() != "--")
        .find(|a| a.as_str() == invalid || stuck_shorts_contain(a, invalid))
        .map_or(invalid.as_str(), String::as_str);
    let typed = typed.split_once('=').map_or(typed, |(name, _)| name);
    let options = known_options(args);
    Some(UsageError::new(match nearest(typed, &options) {
        Some(option) => {
            format!("unknown option '{typed}'; did you mean '{option}'? (zcode --help lists them)")
        }
        None => format!("unknown option '{typed}' (zcode --help lists the options)"),
    }))
}

/// `-continue` holds `-o`: a single-dash word of several letters.
fn stuck_shorts_contain(arg: &str, short: &str) -> bool {
    let Some(letter) = short.strip_prefix('-').filter(|l| l.chars().count() == 1) else {
        return false;
    };
    arg.starts_with('-') && !arg.starts_with("--") && arg.len() > 2 && arg[1..].contains(letter)
}

/// Every option of zcode and of the subcommands named on the command line
/// (`zcode permission check --tool`), with its aliases.
fn known_options(args: &[String]) -> Vec<String> {
    let mut command = Cli::command();
    command.build();
    let mut names: Vec<String> = EXTRA_OPTIONS.iter().map(|s| s.to_string()).collect();
    let mut current = Some(&command);
    let mut words = args.iter().filter(|a| !a.starts_with('-'));
    while let Some(cmd) = current {
        for arg in cmd.get_arguments() {
            names.extend(
                arg.get_long_and_visible_aliases()
                    .into_iter()
                    .flatten()
                    .map(|l| format!("--{l}")),
            );
            names.extend(
                arg.get_short_and_visible_aliases()
                    .into_iter()
                    .flatten()
                    .map(|s| format!("-{s}")),
            );
        }
        names.extend(["--help", "-h"].map(String::from));
        current = words.by_ref().find_map(|w| {
            cmd.get_subcommands()
                .find(|sub| sub.get_name() == w.as_str())
        });
    }
    if command.get_version().is_some() {
        names.extend(["--version", "-V"].map(String::from));
    }
    names.sort();
    names.dedup();
    names
}

/// The option nearest to `typed`: a different case, a unique start of a
/// long option, or a few letters' edit distance. A one-letter option is
/// only matched by case: any letter is one edit from any other.
fn nearest(typed: &str, options: &[String]) -> Option<String> {
    let bare = typed.trim_start_matches('-').to_ascii_lowercase();
    if bare.is_empty() {
        return None;
    }
    let bare_of = |o: &String| o.trim_start_matches('-').to_ascii_lowercase();
    // Case only, or a single dash on a long name (`-continue`).
    let same: Vec<&String> = options.iter().filter(|o| bare_of(o) == bare).collect();
    if let Some(found) = same.iter().find(|o| o.starts_with("--")).or(same.first()) {
        return Some((*found).clone());
    }
    if bare.chars().count() < 2 {
        return None;
    }
    let longs = options.iter().filter(|o| o.starts_with("--"));
    // `--dangerously` → `--dangerously-skip-permissions`.
    let starts: Vec<&String> = longs
        .clone()
        .filter(|o| bare_of(o).starts_with(&bare))
        .collect();
    if bare.chars().count() >= 4 && starts.len() == 1 {
        return Some(starts[0].clone());
    }
    let allowed = match bare.chars().count() {
        0..=3 => 1,
        4..=6 => 2,
        _ => 3,
    };
    longs
        .map(|o| (edit_distance(&bare, &bare_of(o)), o))
        .filter(|(d, _)| *d <= allowed)
        .min_by_key(|(d, _)| *d)
        .map(|(_, o)| o.clone())
}

/// Edit distance with adjacent transpositions (`mdoel` is one edit from
/// `model`).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn error_for(args: &[&str]) -> String {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let err = Cli::try_parse_from(std::iter::once("zcode".to_string()).chain(args.clone()))
            .expect_err("an unknown option");
        unknown_flag_error(&err, &args)
            .unwrap_or_else(|| panic!("not an unknown option: {err}"))
            .to_string()
    }

    #[test]
    fn unknown_flag_suggests_nearest() {
        for (typed, meant) in [
            ("--contiue", "--continue"),
            ("--resum", "--resume"),
            ("--permision-mode", "--permission-mode"),
            ("--permission_mode", "--permission-mode"),
            ("--dangerously", "--dangerously-skip-permissions"),
            ("--verbos", "--verbose"),
            ("--mdoel", "--model"),
            ("--ouput-format", "--output-format"),
            ("--Print", "--print"),
            ("-continue", "--continue"),
            ("-verbose", "--verbose"),
        ] {
            let text = error_for(&["-p", typed, "fix it"]);
            assert_eq!(
                text,
                format!(
                    "unknown option '{typed}'; did you mean '{meant}'? (zcode --help lists them)"
                ),
                "{typed}"
            );
            assert!(!text.contains("-- "), "{text}");
        }
    }

    #[test]
    fn unknown_flag_suggests_the_tool_lists_and_keeps_the_value_out() {
        let text = error_for(&["--disallowedtool=Bash", "-p", "x"]);
        assert!(
            text.starts_with(
                "unknown option '--disallowedtool'; did you mean '--disallowedTools'?"
            ),
            "{text}"
        );
    }

    #[test]
    fn unknown_flag_of_a_subcommand_suggests_its_own_options() {
        let text = error_for(&["permission", "check", "--tol", "Bash"]);
        assert!(text.contains("did you mean '--tool'?"), "{text}");
        let text = error_for(&["sessions", "list", "--limt", "3"]);
        assert!(text.contains("did you mean '--limit'?"), "{text}");
    }

    #[test]
    fn unknown_flag_far_from_every_option_names_none() {
        let text = error_for(&["--frobnicate-everything", "x"]);
        assert_eq!(
            text,
            "unknown option '--frobnicate-everything' (zcode --help lists the options)"
        );
        let text = error_for(&["-x", "task"]);
        assert_eq!(text, "unknown option '-x' (zcode --help lists the options)");
    }

    #[test]
    fn edit_distance_counts_a_transposition_once() {
        assert_eq!(edit_distance("mdoel", "model"), 1);
        assert_eq!(edit_distance("contiue", "continue"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
