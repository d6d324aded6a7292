//! Read-only forms of programs with their own argument parsers (BASH-4):
//! `xxd`, `hostname` (net-tools), `free` (procps), `tree`, `rg`. Each is modelled as its
//! parser reads, and where the model is unsure it errs toward "not
//! read-only".

use super::readonly::long_opt;

/// `xxd [options] [infile [outfile]]`: a second operand is a file xxd
/// truncates and writes (patches, with `-r`). xxd reads options only up to
/// the first operand (`xxd in -r` makes `-r` the output file), knows an
/// option by its first letter (`-p`, `-ps`, `-postscript` are one), turns
/// `--x` into `-x`, and gives `-c -g -l -o -s -n -R` a value attached or in
/// the next word.
pub(crate) fn xxd_is_read_only(args: &[String]) -> bool {
    let mut i = 0;
    while let Some(arg) = args.get(i).map(String::as_str) {
        // xxd's own rule: `--x…` is read as `-x…`, and `--` alone ends options.
        let pp = match arg.strip_prefix('-') {
            Some(rest) if rest.starts_with('-') && rest.len() > 1 => rest,
            _ => arg,
        };
        if pp == "--" {
            i += 1;
            break;
        }
        let Some(rest) = pp.strip_prefix('-').filter(|r| !r.is_empty()) else {
            break; // the first operand (or `-`, standard input)
        };
        let mut letters = rest.chars();
        let letter = letters.next().unwrap_or('-');
        let tail = letters.as_str();
        let value_in_next_word = match letter {
            'a' | 'b' | 'e' | 'u' | 'p' | 'i' | 'C' | 'd' | 'r' | 'E' | 'v' | 'h' => false,
            'c' if tail.starts_with("apitalize") => false,
            'c' => tail.is_empty() || tail.starts_with("ols"),
            'g' => tail.is_empty() || tail.starts_with("roup"),
            'o' => tail.is_empty() || tail.starts_with("ffset"),
            's' => tail.is_empty() || tail.starts_with("kip") || tail.starts_with("eek"),
            'l' => tail.is_empty() || tail.starts_with("en"),
            'n' => tail.is_empty() || tail.starts_with("ame"),
            'R' => tail.is_empty(),
            // An unknown option: xxd prints its usage and exits.
            _ => return false,
        };
        i += if value_in_next_word { 2 } else { 1 };
    }
    // At most an input file: no output file operand.
    args.len() <= i + 1
}

/// `hostname` displays the name unless given an operand or `-F FILE` (both
/// set it) or `-b`. Only the display flags, each on its own and spelled in
/// full, are read-only.
pub(crate) fn hostname_is_read_only(args: &[String]) -> bool {
    args.iter().all(|a| {
        matches!(
            a.as_str(),
            "-a" | "--alias"
                | "-A"
                | "--all-fqdns"
                | "-d"
                | "--domain"
                | "-f"
                | "--fqdn"
                | "--long"
                | "-i"
                | "--ip-address"
                | "-I"
                | "--all-ip-addresses"
                | "-s"
                | "--short"
                | "-y"
                | "--yp"
                | "--nis"
                | "-V"
                | "--version"
                | "-h"
                | "--help"
        )
    })
}

/// `free` (procps) prints once; `-s`/`--seconds` and `-c`/`--count`
/// repeat (with `-s` alone, forever). Only the display flags, each on its
/// own and spelled in full, are read-only.
pub(crate) fn free_is_read_only(args: &[String]) -> bool {
    args.iter().all(|a| {
        matches!(
            a.as_str(),
            "-b" | "--bytes"
                | "-k"
                | "--kilo"
                | "--kibi"
                | "-m"
                | "--mega"
                | "--mebi"
                | "-g"
                | "--giga"
                | "--gibi"
                | "--tera"
                | "--tebi"
                | "--peta"
                | "--pebi"
                | "-h"
                | "--human"
                | "--si"
                | "-l"
                | "--lohi"
                | "-L"
                | "--line"
                | "-t"
                | "--total"
                | "-v"
                | "--committed"
                | "-w"
                | "--wide"
                | "--help"
                | "-V"
                | "--version"
        )
    })
}

/// `tree -o FILE` writes the listing; `-R` reruns tree writing `00Tree.html`
/// files. tree gives option values the next word (`-L 2`), so any
/// single-dash word with `o` or `R` counts, and any long option that could
/// abbreviate `--output`.
pub(crate) fn tree_is_read_only(args: &[String]) -> bool {
    !args
        .iter()
        .any(|a| short_cluster_has(a, &['o', 'R']) || long_opt(a, "output"))
}

/// `rg --pre CMD` and `--hostname-bin CMD` run programs, `-z` /
/// `--search-zip` run decompressors. (`--pre-glob` only matters with
/// `--pre`, but is refused with it.)
pub(crate) fn rg_is_read_only(args: &[String]) -> bool {
    !args.iter().any(|a| {
        short_cluster_has(a, &['z'])
            || ["pre", "pre-glob", "search-zip", "hostname-bin"]
                .iter()
                .any(|o| long_opt(a, o))
    })
}

/// A single-dash option cluster (`-nf`) containing one of `letters`.
fn short_cluster_has(arg: &str, letters: &[char]) -> bool {
    match arg.strip_prefix('-') {
        Some(cluster) if !cluster.starts_with('-') => cluster.contains(letters),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(args: &str) -> Vec<String> {
        args.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn bash4_getopt_xxd_second_operand_is_output() {
        for ok in [
            "",
            "f",
            "-",
            "-l 64 f",
            "-l64 f",
            "-len 64 f",
            "-c 8 -g 1 f",
            "-ps f",
            "-postscript f",
            "--ps f",
            "-r f",
            "-r -p hex",
            "-capitalize -i f",
            "-s -16 f",
            "-n name -i f",
            "-- f",
        ] {
            assert!(xxd_is_read_only(&words(ok)), "{ok}");
        }
        for bad in [
            "f out",
            "-r hex bin",
            "-r -p hex out",
            // Options end at the first operand: `-r` is the output file.
            "f -r",
            "f -l",
            "-l 64 f out",
            "-cols 8 f out",
            "-- f out",
            "-q f",
            "---- f",
        ] {
            assert!(!xxd_is_read_only(&words(bad)), "{bad}");
        }
    }

    #[test]
    fn bash4_getopt_hostname_operand_sets_the_name() {
        for ok in ["", "-s", "-f", "--fqdn", "-I", "-d -y"] {
            assert!(hostname_is_read_only(&words(ok)), "{ok}");
        }
        for bad in [
            "evil", "-F file", "-b", "-b name", "-s evil", "-sF x", "--sh", "-y nis",
        ] {
            assert!(!hostname_is_read_only(&words(bad)), "{bad}");
        }
    }
}
