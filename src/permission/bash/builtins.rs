//! Shell builtins with read-only forms (BASH-4). Bash runs these itself,
//! so their arguments are read by bash's own option parser.

/// `printf -v VAR` assigns a shell variable instead of printing.
pub(crate) fn printf_is_read_only(args: &[String]) -> bool {
    !args.iter().any(|a| a.starts_with("-v"))
}

/// `test`/`[` evaluate nothing: Bash evaluates the subscript of a `-v` or
/// `-R` operand (`a[$(cmd)]`, or `a[x]` with `x` holding such text)
/// arithmetically, running any command substitution in it. So no static
/// operand may hold a `[`, and a word the shell expands (`dynamic`, kept as
/// its source text) must stay one word (wholly double-quoted, not `"$@"`)
/// and may not follow `-v`, `-R` or another expanded word: that pair could
/// become `-v 'a[$(cmd)]'`. (Integer comparisons in `test` read plain
/// numbers, never expressions.)
pub(crate) fn test_evaluates_nothing(args: &[String], dynamic: &[bool]) -> bool {
    if dynamic.len() != args.len() {
        return false;
    }
    let mut previous_may_name_variable = false;
    for (arg, is_dynamic) in args.iter().zip(dynamic) {
        if *is_dynamic {
            if previous_may_name_variable || !is_one_double_quoted_word(arg) {
                return false;
            }
        } else if arg.contains('[') {
            return false;
        }
        previous_may_name_variable = *is_dynamic || arg == "-v" || arg == "-R";
    }
    true
}

/// The source text is one double-quoted string (`"$X"`, `"a $X"`): one
/// word after expansion, never split or globbed. `$@` expands to several
/// words even in quotes.
fn is_one_double_quoted_word(source: &str) -> bool {
    let Some(body) = source
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
    else {
        return false;
    };
    if body.contains("$@") || body.contains("${@") {
        return false;
    }
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '"' => return false,
            _ => {}
        }
    }
    true
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
    use super::{command_only_describes, test_evaluates_nothing};

    fn evaluates_nothing(args: &[&str]) -> bool {
        let dynamic: Vec<bool> = args.iter().map(|a| a.contains('$')).collect();
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        test_evaluates_nothing(&args, &dynamic)
    }

    #[test]
    fn bash4_test_subscripts_are_evaluated_arithmetically() {
        for ok in [
            &["-f", "x"][..],
            &["-v", "x"],
            &["-f", "\"$X\""],
            &["\"$A\"", "=", "\"$B\""],
            &["-n", "\"a $X b\"", "]"],
            &["1", "-eq", "1"],
        ] {
            assert!(evaluates_nothing(ok), "{ok:?}");
        }
        for bad in [
            &["-v", "a[$(touch x)]"][..],
            &["-v", "a[x]", "]"],
            &["-R", "a[0]"],
            &["-f", "a[1]"],
            &["-v", "\"$X\""],
            &["\"$A\"", "\"$B\""],
            &["-f", "$X"],
            &["-f", "\"$X\"$Y\"\""],
            &["-n", "\"$@\""],
            &["-n", "*"],
        ] {
            let dynamic: Vec<bool> = bad.iter().map(|a| a.contains(['$', '*'])).collect();
            let args: Vec<String> = bad.iter().map(|a| a.to_string()).collect();
            assert!(!test_evaluates_nothing(&args, &dynamic), "{bad:?}");
        }
    }

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
