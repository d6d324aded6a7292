//! `awk` as a read-only filter (BASH-4). An awk program is code: it may
//! write files (`print > f`), run commands (`system()`, `print | cmd`,
//! `cmd | getline`), open sockets (gawk's `/inet` files, through the same
//! redirections) or load extensions (`@load`). Only a conservative subset is
//! read-only: the options `-F SEP` and `-v NAME=VALUE` (attached or in the
//! next word) and `--`, then a program text without any redirection or
//! pipe character (`>`, `|`), without `system` or `getline` anywhere (a
//! string that merely holds the word costs a question) and without `@`
//! (gawk's directives and indirect calls). Every other option (`-f FILE`,
//! `-i inplace`, `--exec`, `-o`/`-p`/`-d` that write files, mawk's `-W`, …)
//! is refused.

/// `args` are the words after `awk`, all static.
pub(crate) fn is_read_only(args: &[String]) -> bool {
    let mut i = 0;
    while let Some(arg) = args.get(i).map(String::as_str) {
        if arg == "--" {
            i += 1;
            break;
        }
        let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) else {
            break;
        };
        i += 1;
        let (option, attached) = cluster.split_at(1);
        let value = if attached.is_empty() {
            let Some(next) = args.get(i) else {
                return false;
            };
            i += 1;
            next.as_str()
        } else {
            attached
        };
        match option {
            "F" => {}
            "v" if value.contains('=') => {}
            _ => return false,
        }
    }
    let Some((program, operands)) = args.get(i..).and_then(|rest| rest.split_first()) else {
        return false;
    };
    // After the program: input files and `NAME=VALUE` assignments; an
    // option-looking word is refused whatever the awk makes of it.
    program_is_read_only(program) && operands.iter().all(|o| o == "-" || !o.starts_with('-'))
}

/// The program text has no redirection, pipe, command, `getline` or gawk
/// directive (see the module comment).
fn program_is_read_only(program: &str) -> bool {
    !program.contains(['>', '|', '@'])
        && !program.contains("system")
        && !program.contains("getline")
}

#[cfg(test)]
mod tests {
    use super::is_read_only;

    fn awk(args: &[&str]) -> bool {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        is_read_only(&args)
    }

    #[test]
    fn bash4_awk_conservative_subset() {
        for ok in [
            &["{print $1}", "file"][..],
            &["-F:", "{print $1}", "/etc/passwd"],
            &["-F", ":", "{print $1}", "f"],
            &["-v", "n=2", "NR==n", "f"],
            &["-vn=2", "NR==n"],
            &["--", "{print}", "f"],
            &["{s+=$1} END {print s}", "x=1", "f", "-"],
            &["$1 < 5", "f"],
        ] {
            assert!(awk(ok), "{ok:?}");
        }
        for bad in [
            &[][..],
            &["-F:"],
            &["{print > \"out\"}", "f"],
            &["{print >> \"out\"}", "f"],
            &["{print | \"sh\"}", "f"],
            &["{print |& \"sh\"}", "f"],
            &["BEGIN {system(\"touch x\")}"],
            &["BEGIN {\"id\" | getline x}"],
            &["BEGIN {getline x < \"/etc/passwd\"}"],
            &["@load \"filefuncs\"; BEGIN {}"],
            &["BEGIN {f = \"system\"; @f(\"id\")}"],
            &["$1 > 5", "f"],
            &["-f", "prog.awk", "f"],
            &["-i", "inplace", "{print}", "f"],
            &["--exec", "prog.awk"],
            &["-o", "{print}"],
            &["-p", "{print}"],
            &["-d", "{print}"],
            &["-W", "exec", "x"],
            &["-v", "novalue", "{print}"],
            &["-l", "filefuncs", "{print}"],
            &["{print}", "-f", "x"],
            &["-v"],
        ] {
            assert!(!awk(bad), "{bad:?}");
        }
    }
}
