//! Toolchain queries (BASH-4), all read-only only in the sandbox: version
//! queries (a toolchain manager's shim, rustup's `cargo` or mise's `node`,
//! runs the toolchain a repository names, by absolute path if it likes),
//! and project queries (`cargo tree`, `cargo metadata`, `npm ls`, `pip list`,
//! `go env`, `python3 -m pip --version`) that only a sandboxed judgment
//! accepts: they may refresh a lock file or a cache, fetch an index or a
//! toolchain, or (`python3 -m pip`) import a `pip` module from the working
//! directory; the sandbox makes such writes, downloads and imports fail or
//! read-only. Their options are an exact allow-list: a configuration
//! override (`--config`, `-Z`, `+toolchain`, `--python`, `--log`, `-w`),
//! a network query (`pip list --outdated`) or an unknown option is refused.

/// `cargo --version`, `node -v`, `rustc -vV`, `java -version`, … (`go
/// version` and `rustup --version` are left out: they may download a
/// toolchain.)
pub(crate) fn is_version_query(program: &str, args: &[String]) -> bool {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match (program, args.as_slice()) {
        ("rustc", [a]) => matches!(*a, "--version" | "-V" | "-vV" | "-Vv"),
        ("rustc", [a, b]) => {
            let version = |x: &str| matches!(x, "--version" | "-V");
            let verbose = |x: &str| matches!(x, "--verbose" | "-v");
            (version(a) && verbose(b)) || (verbose(a) && version(b))
        }
        ("cargo" | "python" | "python3" | "pip" | "pip3", [a]) => {
            matches!(*a, "--version" | "-V")
        }
        ("node" | "npm" | "docker", [a]) => matches!(*a, "--version" | "-v"),
        ("java" | "javac", [a]) => matches!(*a, "--version" | "-version"),
        ("gcc" | "clang" | "make" | "cmake", [a]) => *a == "--version",
        _ => false,
    }
}

/// A project query that is read-only when it runs in the sandbox.
pub(crate) fn is_sandboxed_query(program: &str, args: &[String]) -> bool {
    let Some((sub, rest)) = args.split_first() else {
        return false;
    };
    match (program, sub.as_str()) {
        ("cargo", "tree") => flags_within(rest, &CARGO_TREE, false),
        ("cargo", "metadata") => flags_within(rest, &CARGO_METADATA, false),
        ("npm", "ls" | "list") => flags_within(rest, &NPM_LS, true),
        ("pip" | "pip3", _) => pip_is_read_only(args),
        ("python" | "python3", "-m") => match rest.split_first() {
            Some((module, pip_args)) if module == "pip" => {
                matches!(pip_args, [v] if v == "--version" || v == "-V")
                    || pip_is_read_only(pip_args)
            }
            _ => false,
        },
        ("go", "env") => flags_within(rest, &GO_ENV, true),
        _ => false,
    }
}

fn pip_is_read_only(args: &[String]) -> bool {
    match args.split_first() {
        Some((sub, rest)) if sub == "list" => flags_within(rest, &PIP_LIST, false),
        _ => false,
    }
}

/// Options a query accepts: flags, and options taking a value (attached
/// with `=`, or the next word; a short one also attached, `-pfoo`).
struct Flags {
    /// Flags a family of queries shares (cargo's global ones).
    shared: &'static [&'static str],
    flags: &'static [&'static str],
    with_value: &'static [&'static str],
}

/// The flags every cargo query here accepts.
const CARGO_FLAGS: &[&str] = &[
    "-v",
    "-vv",
    "--verbose",
    "-q",
    "--quiet",
    "--locked",
    "--offline",
    "--frozen",
    "--all-features",
    "--no-default-features",
    "--help",
    "-h",
];

const CARGO_TREE: Flags = Flags {
    shared: CARGO_FLAGS,
    flags: &[
        "--workspace",
        "--no-dedupe",
        "-d",
        "--duplicates",
        "--all-targets",
    ],
    with_value: &[
        "-p",
        "--package",
        "--exclude",
        "-e",
        "--edges",
        "-i",
        "--invert",
        "--prune",
        "--depth",
        "--prefix",
        "--charset",
        "-f",
        "--format",
        "-F",
        "--features",
        "--target",
        "--manifest-path",
        "--color",
    ],
};

const CARGO_METADATA: Flags = Flags {
    shared: CARGO_FLAGS,
    flags: &["--no-deps"],
    with_value: &[
        "--format-version",
        "--filter-platform",
        "-F",
        "--features",
        "--manifest-path",
        "--color",
    ],
};

const NPM_LS: Flags = Flags {
    shared: &[],
    flags: &[
        "-a",
        "--all",
        "--json",
        "-l",
        "--long",
        "-p",
        "--parseable",
        "-g",
        "--global",
        "--link",
        "--package-lock-only",
        "--unicode",
        "--workspaces",
        "-ws",
        "--include-workspace-root",
        "--install-links",
        "--help",
        "-h",
    ],
    with_value: &["--depth", "--omit", "--include", "-w", "--workspace"],
};

const PIP_LIST: Flags = Flags {
    shared: &[],
    flags: &[
        "-l",
        "--local",
        "--user",
        "-e",
        "--editable",
        "--exclude-editable",
        "--include-editable",
        "--not-required",
        "-v",
        "--verbose",
        "-q",
        "--quiet",
        "--no-color",
        "--disable-pip-version-check",
        "--no-input",
        "--help",
        "-h",
    ],
    with_value: &["--format", "--path", "--exclude"],
};

const GO_ENV: Flags = Flags {
    shared: &[],
    flags: &["-json", "--json", "-changed", "--changed"],
    with_value: &[],
};

/// Every option is one of `allowed`; a value never starts with `-`;
/// operands (words not starting with `-`) only where `operands` says.
fn flags_within(args: &[String], allowed: &Flags, operands: bool) -> bool {
    let mut i = 0;
    while let Some(arg) = args.get(i).map(String::as_str) {
        i += 1;
        if !arg.starts_with('-') || arg == "-" {
            if !operands {
                return false;
            }
            continue;
        }
        let (name, attached) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value)),
            _ => (arg, None),
        };
        if allowed.flags.contains(&name) || allowed.shared.contains(&name) {
            if attached.is_some() {
                return false;
            }
            continue;
        }
        let short_attached = !name.starts_with("--")
            && name.len() > 2
            && name.is_char_boundary(2)
            && allowed.with_value.contains(&&name[..2]);
        if short_attached || attached.is_some() && allowed.with_value.contains(&name) {
            continue;
        }
        if !allowed.with_value.contains(&name) {
            return false;
        }
        match args.get(i) {
            Some(value) if !value.starts_with('-') => i += 1,
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(args: &str) -> Vec<String> {
        args.split_whitespace().map(str::to_string).collect()
    }

    fn query(command: &str) -> bool {
        let w = words(command);
        is_sandboxed_query(&w[0], &w[1..])
    }

    fn version(command: &str) -> bool {
        let w = words(command);
        is_version_query(&w[0], &w[1..])
    }

    #[test]
    fn bash4_version_queries() {
        for ok in [
            "rustc -vV",
            "rustc -Vv",
            "rustc -V -v",
            "rustc --version --verbose",
            "rustc --version",
            "java -version",
            "java --version",
            "javac -version",
            "cargo --version",
            "node -v",
            "python3 -V",
        ] {
            assert!(version(ok), "{ok}");
        }
        for bad in [
            "rustc -vV x.rs",
            "rustc -v",
            "rustc -V -V -o x",
            "java -version -jar x.jar",
            "java -showversion Main",
            "cargo --version --verbose",
            "cargo +nightly --version",
            "go version",
            "rustup --version",
            "python3 -m pip --version",
        ] {
            assert!(!version(bad), "{bad}");
        }
    }

    #[test]
    fn bash4_sandboxed_project_queries() {
        for ok in [
            "cargo tree",
            "cargo tree -e normal --depth 1",
            "cargo tree -i serde --edges=features",
            "cargo tree -pserde",
            "cargo metadata --format-version 1",
            "cargo metadata --format-version=1 --no-deps",
            "npm ls",
            "npm ls --all --json",
            "npm list react --depth=0",
            "pip list",
            "pip3 list --format=json",
            "pip list --format json --not-required",
            "python3 -m pip --version",
            "python -m pip -V",
            "python3 -m pip list",
            "go env GOPATH",
            "go env -json GOPATH GOROOT",
        ] {
            assert!(query(ok), "{ok}");
        }
        for bad in [
            "cargo",
            "cargo build",
            "cargo tree --config build.rustc-wrapper=x",
            "cargo tree -Z unstable-options",
            "cargo tree -Zunstable-options",
            "cargo tree --depth --config",
            "cargo tree extra",
            "cargo metadata --format-version",
            "cargo metadata --no-deps=yes",
            "cargo +nightly tree",
            "npm ls --script-shell=sh",
            "npm install",
            "npm ls --userconfig x",
            "pip list --outdated",
            "pip list -o",
            "pip list --out",
            "pip list --python /tmp/x",
            "pip list --log out.txt",
            "pip install x",
            "python3 -m pip install x",
            "python3 -m pip --version --log x",
            "python3 -m http.server",
            "python3 pip --version",
            "go env -w GOPATH=x",
            "go env -u GOPATH",
            "go build",
        ] {
            assert!(!query(bad), "{bad}");
        }
    }
}
