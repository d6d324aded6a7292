//! `find` as a read-only program (BASH-4). GNU find is not getopt-style: its
//! arguments are leading options (`-H`, `-L`, `-P`, `-D LIST`, `-Olevel`),
//! starting points, then an expression of its own grammar. Every word of the
//! expression must be a known test, option or operator with the exact
//! number of arguments find gives it; the actions that write or run
//! programs (`-exec`, `-execdir`, `-ok`, `-okdir`, `-delete`, `-fprint`,
//! `-fprint0`, `-fprintf`, `-fls`) and anything unknown are not read-only.

/// Primaries that read or print only, with how many words they consume.
fn arity(primary: &str) -> Option<usize> {
    let n = match primary {
        // Operators and no-argument tests, actions and options.
        "("
        | ")"
        | "!"
        | ","
        | "-not"
        | "-a"
        | "-and"
        | "-o"
        | "-or"
        | "-true"
        | "-false"
        | "-empty"
        | "-executable"
        | "-readable"
        | "-writable"
        | "-nogroup"
        | "-nouser"
        | "-print"
        | "-print0"
        | "-ls"
        | "-prune"
        | "-quit"
        | "-daystart"
        | "-follow"
        | "-depth"
        | "-d"
        | "-mount"
        | "-xdev"
        | "-noleaf"
        | "-warn"
        | "-nowarn"
        | "-ignore_readdir_race"
        | "-noignore_readdir_race"
        | "-help"
        | "--help"
        | "-version"
        | "--version" => 0,
        // One argument: a pattern, a number, a file to compare with, a
        // format for stdout.
        "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename" | "-regex"
        | "-iregex" | "-lname" | "-ilname" | "-type" | "-xtype" | "-size" | "-perm" | "-user"
        | "-group" | "-uid" | "-gid" | "-links" | "-inum" | "-samefile" | "-newer" | "-anewer"
        | "-cnewer" | "-amin" | "-cmin" | "-mmin" | "-atime" | "-ctime" | "-mtime" | "-used"
        | "-fstype" | "-context" | "-maxdepth" | "-mindepth" | "-regextype" | "-printf"
        | "-files0-from" => 1,
        _ => return is_newer_xy(primary).then_some(1),
    };
    Some(n)
}

/// `-newerXY` (`-newermt`, `-neweraa`, …): X in `aBcm`, Y in `aBcmt`.
fn is_newer_xy(primary: &str) -> bool {
    let Some(xy) = primary.strip_prefix("-newer") else {
        return false;
    };
    let b = xy.as_bytes();
    b.len() == 2 && b"aBcm".contains(&b[0]) && b"aBcmt".contains(&b[1])
}

/// Is this `find` invocation read-only?
pub(crate) fn is_read_only(args: &[String]) -> bool {
    let mut i = 0;
    // Leading options, as find reads them before the starting points.
    while let Some(arg) = args.get(i).map(String::as_str) {
        match arg {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => {
                if args.get(i + 1).is_none() {
                    return false;
                }
                i += 2;
            }
            "--" => {
                i += 1;
                break;
            }
            _ if arg.strip_prefix("-O").is_some_and(|level| {
                !level.is_empty() && level.bytes().all(|b| b.is_ascii_digit())
            }) =>
            {
                i += 1
            }
            _ => break,
        }
    }
    // Starting points end where the expression begins: a word starting
    // with `-` (not `-` alone) or an operator.
    while let Some(arg) = args.get(i).map(String::as_str) {
        if starts_expression(arg) {
            break;
        }
        i += 1;
    }
    while let Some(arg) = args.get(i).map(String::as_str) {
        let Some(n) = arity(arg) else {
            return false;
        };
        if i + n >= args.len() {
            // A missing argument: find rejects the command.
            return false;
        }
        i += 1 + n;
    }
    true
}

fn starts_expression(arg: &str) -> bool {
    (arg.starts_with('-') && arg.len() > 1) || matches!(arg, "(" | ")" | "!" | ",")
}

#[cfg(test)]
mod tests {
    use super::is_read_only;

    fn find(args: &str) -> bool {
        let words: Vec<String> = args.split_whitespace().map(str::to_string).collect();
        is_read_only(&words)
    }

    #[test]
    fn bash4_getopt_find_expression_grammar() {
        for ok in [
            "",
            ".",
            ". -name *.rs -type f",
            "src -maxdepth 2 -print",
            "-L . -name x",
            "-D tree . -name x",
            "-O3 . -newermt 2020-01-01",
            "a b ( -name x -o -name y ) -prune -o -print0",
            ". ! -path ./target/* -printf %p\\n",
            // `-name -delete`: the pattern is `-delete`, nothing is deleted.
            ". -name -delete",
            ". -regextype posix-extended -regex .*",
        ] {
            assert!(find(ok), "{ok}");
        }
        for bad in [
            ". -delete",
            ". -name x -delete",
            ". -exec rm {} ;",
            ". -execdir rm {} +",
            ". -ok rm {} ;",
            ". -okdir rm {} ;",
            ". -fprint out",
            ". -fprint0 out",
            ". -fprintf out %p",
            ". -fls out",
            ". -frobnicate",
            ". -name",
            "-D",
            ". -newerXY x",
            // `-maxdepth` takes one word; `-delete` after it is an action.
            ". -maxdepth 1 -delete",
            ". -print -fls x",
            "-O . -name x",
        ] {
            assert!(!find(bad), "{bad}");
        }
    }
}
