//! Shell builtins with read-only forms (BASH-4). Bash runs these itself,
//! so their arguments are read by bash's own option parser.

/// `printf -v VAR` assigns a shell variable instead of printing.
pub(crate) fn printf_is_read_only(args: &[String]) -> bool {
    !args.iter().any(|a| a.starts_with("-v"))
}

/// `command -v NAME` / `-V` only describe NAME; `command NAME` runs it.
/// The options (`-p`, `-v`, `-V`, bundled as bash allows) must come first,
/// before `--` and before any word the shell expands (an empty expansion
/// ahead of `-v` would turn the description into a run).
pub(crate) fn command_only_describes(args: &[String], dynamic: &[bool]) -> bool {
    let mut describes = false;
    for (i, arg) in args.iter().enumerate() {
        let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) else {
            break;
        };
        if cluster == "-" || dynamic.get(i).copied().unwrap_or(true) {
            break;
        }
        if !cluster.chars().all(|c| matches!(c, 'p' | 'v' | 'V')) {
            return false;
        }
        describes |= cluster.contains(['v', 'V']);
    }
    describes
}

#[cfg(test)]
mod tests {
    use super::command_only_describes;

    fn describes(args: &[&str], dynamic: &[bool]) -> bool {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        command_only_describes(&args, dynamic)
    }

    #[test]
    fn bash4_sandboxed_command_v_only_describes() {
        assert!(describes(&["-v", "cargo"], &[false, false]));
        assert!(describes(&["-V", "cargo"], &[false, false]));
        assert!(describes(&["-pv", "cargo"], &[false, false]));
        assert!(describes(&["-p", "-v", "cargo"], &[false, false, false]));
        assert!(describes(&["-v", "$X"], &[false, true]));
        assert!(!describes(&["cargo"], &[false]));
        assert!(!describes(&["-p", "cargo"], &[false, false]));
        assert!(!describes(&["--", "-v"], &[false, false]));
        assert!(!describes(&["-x", "-v", "ls"], &[false, false, false]));
        // `$X` empty would leave `command -v`; `$X` = `ls` runs ls.
        assert!(!describes(&["$X", "-v", "ls"], &[true, false, false]));
        assert!(!describes(&[], &[]));
    }
}
