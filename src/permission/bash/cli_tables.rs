//! The models of common command-line programs (BASH-5, BASH-7): their
//! options with arguments, aliases, subcommand depth, implicit `run`, and
//! the options that choose the program or configuration that runs. Read by
//! `cli` through the one getopt reader.
//!
//! An option a table leaves out reads as a flag: the words after it are
//! still read, so a choosing option behind it is still seen; a value it
//! would take may be read as an operand, which only makes a rule's operands
//! harder to match (deny rules also see each possible subcommand start, see
//! `cli::subcommand_starts`).

use super::getopt::{HasArg, OptSpec, Syntax, long};

const REQ: HasArg = HasArg::Required;
const NO: HasArg = HasArg::No;
const OPT: HasArg = HasArg::Optional;

/// How many leading operands name the subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Depth {
    /// No subcommand (`rm`, `make`, `ssh`).
    Zero,
    /// One word (`cargo test`); a group word takes one more (`docker
    /// compose up`, `gh repo delete`).
    One,
    /// Two words (`aws s3 rm`).
    Two,
    /// Every leading operand (`gcloud compute instances delete`).
    All,
}

/// What an option's value (or a `+WORD`) is, for a program that runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CommandKind {
    /// A shell command (`man -P PAGER`).
    Shell,
    /// A command of the program's own language that may run a shell
    /// command after `!` (`vim -c`, `less +`).
    Escape,
}

/// One program's model.
#[derive(Debug)]
pub(crate) struct Cli {
    /// The basenames it reads (after `cli::canonical_program`).
    pub names: &'static [&'static str],
    /// The name rules compare.
    pub program: &'static str,
    pub syntax: Syntax,
    /// Every option the model knows, global or of a subcommand, with the
    /// id rules compare (`-R`, `-r` and `--recursive` share one).
    pub options: OptSpec,
    pub depth: Depth,
    /// Subcommands that take one more word.
    pub groups: &'static [&'static str],
    /// Its own aliases: words (one, or two separated by a space) and what
    /// they mean (possibly nothing: `gcloud beta`).
    pub aliases: &'static [(&'static str, &'static [&'static str])],
    /// Its commands, when it accepts unique abbreviations of them (npm).
    pub commands: &'static [&'static str],
    /// Its own commands, when any other word runs a script (yarn, pnpm).
    pub builtins: &'static [&'static str],
    /// Option ids that choose the program or configuration that runs.
    pub chooses: &'static [&'static str],
    /// `NAME=VALUE` operands set variables that name programs (make).
    pub assignments_choose: bool,
    /// `+toolchain` as the first word picks another toolchain (cargo).
    pub plus_toolchain: bool,
    /// An `@FILE` operand reads more arguments from the file (argparse's
    /// `fromfile_prefix_chars`): they may be any option.
    pub at_files: bool,
    /// Operands are a set (`rm a b` = `rm b a`).
    pub unordered_operands: bool,
    /// Short options that are another option (`-R` is `-r`): (letter, id).
    pub same: &'static [(&'static str, &'static str)],
    /// An operand of this subcommand starting with `+` is this option
    /// (`git push origin +main` forces like `--force`).
    pub plus_operand: Option<(&'static str, &'static str)>,
    /// Option ids that may define the program's aliases (`cargo --config
    /// alias.x=publish`): unless the subcommand is one of `own_commands`
    /// (an alias never replaces those), what runs is unseen, so every deny
    /// or ask rule for the program applies.
    pub defines_aliases: &'static [&'static str],
    pub own_commands: &'static [&'static str],
    /// Option ids whose value is a command the program runs.
    pub commands_in_options: &'static [(&'static str, CommandKind)],
    /// A `+WORD` operand is a command the program runs (vim, less).
    pub plus_commands: Option<CommandKind>,
}

const NONE: Cli = Cli {
    names: &[],
    program: "",
    syntax: Syntax::Exact,
    options: NO_OPTIONS,
    depth: Depth::One,
    groups: &[],
    aliases: &[],
    commands: &[],
    builtins: &[],
    chooses: &[],
    assignments_choose: false,
    plus_toolchain: false,
    at_files: false,
    unordered_operands: false,
    same: &[],
    plus_operand: None,
    defines_aliases: &[],
    own_commands: &[],
    commands_in_options: &[],
    plus_commands: None,
};

/// A table with no options: every option is unknown.
pub(crate) const NO_OPTIONS: OptSpec = OptSpec {
    short: "",
    long: &[],
};

/// The model for a program name, as `cli::canonical_program` gives it.
pub(crate) fn find(program: &str) -> Option<&'static Cli> {
    MODELS.iter().find(|m| m.names.contains(&program))
}

const MODELS: &[Cli] = &[
    CARGO, NPM, PNPM, YARN, GIT, GO, MAKE, PYTEST, PIP, KUBECTL, DOCKER, PODMAN, TERRAFORM, HELM,
    AWS, GCLOUD, GH, SSH, SCP, RM, CP, MV, VIM, LESS, MORE, MAN,
];

const CARGO: Cli = Cli {
    names: &["cargo"],
    program: "cargo",
    options: OptSpec {
        short: "vqrC:Z:p:j:F:",
        long: &[
            long("verbose", NO, "v"),
            long("quiet", NO, "q"),
            long("release", NO, "r"),
            long("color", REQ, "color"),
            long("config", REQ, "config"),
            long("manifest-path", REQ, "manifest-path"),
            long("package", REQ, "p"),
            long("jobs", REQ, "j"),
            long("features", REQ, "F"),
            long("target", REQ, "target"),
            long("target-dir", REQ, "target-dir"),
            long("profile", REQ, "profile"),
            long("bin", REQ, "bin"),
            long("example", REQ, "example"),
            long("message-format", REQ, "message-format"),
            long("exclude", REQ, "exclude"),
        ],
    },
    aliases: &[
        ("b", &["build"]),
        ("c", &["check"]),
        ("d", &["doc"]),
        ("t", &["test"]),
        ("r", &["run"]),
        ("rm", &["remove"]),
    ],
    // Another configuration (`build.rustc-wrapper`), unstable flags, another
    // directory's `.cargo/config.toml`.
    chooses: &["config", "Z", "C"],
    defines_aliases: &["config"],
    own_commands: &[
        "add",
        "bench",
        "build",
        "check",
        "clean",
        "config",
        "doc",
        "fetch",
        "fix",
        "generate-lockfile",
        "help",
        "info",
        "init",
        "install",
        "locate-project",
        "login",
        "logout",
        "metadata",
        "new",
        "owner",
        "package",
        "pkgid",
        "publish",
        "remove",
        "report",
        "run",
        "rustc",
        "rustdoc",
        "search",
        "test",
        "tree",
        "uninstall",
        "update",
        "vendor",
        "verify-project",
        "version",
        "yank",
    ],
    plus_toolchain: true,
    ..NONE
};

/// npm's config options that take a value (nopt types), and the ones that
/// choose a program or another configuration.
const NPM_OPTIONS: OptSpec = OptSpec {
    short: "gDSEOPfqsdyw:C:",
    long: &[
        long("prefix", REQ, "C"),
        long("registry", REQ, "registry"),
        long("userconfig", REQ, "userconfig"),
        long("globalconfig", REQ, "globalconfig"),
        long("cache", REQ, "cache"),
        long("tag", REQ, "tag"),
        long("access", REQ, "access"),
        long("otp", REQ, "otp"),
        long("workspace", REQ, "w"),
        long("loglevel", REQ, "loglevel"),
        long("script-shell", REQ, "script-shell"),
        long("node-options", REQ, "node-options"),
        long("shell", REQ, "shell"),
        long("editor", REQ, "editor"),
        long("browser", REQ, "browser"),
        long("git", REQ, "git"),
        long("node-gyp", REQ, "node-gyp"),
        long("global", NO, "g"),
        long("force", NO, "f"),
        long("save-dev", NO, "D"),
    ],
};

const NPM_CHOOSES: &[&str] = &[
    "script-shell",
    "node-options",
    "userconfig",
    "globalconfig",
    "shell",
    "editor",
    "browser",
    "git",
    "node-gyp",
];

const NPM: Cli = Cli {
    names: &["npm"],
    program: "npm",
    syntax: Syntax::Gnu,
    options: NPM_OPTIONS,
    aliases: &[
        ("run-script", &["run"]),
        ("rum", &["run"]),
        ("urn", &["run"]),
        ("i", &["install"]),
        ("in", &["install"]),
        ("ins", &["install"]),
        ("inst", &["install"]),
        ("insta", &["install"]),
        ("instal", &["install"]),
        ("isnt", &["install"]),
        ("isnta", &["install"]),
        ("isntal", &["install"]),
        ("isntall", &["install"]),
        ("add", &["install"]),
        ("it", &["install-test"]),
        ("cit", &["install-ci-test"]),
        ("sit", &["install-ci-test"]),
        ("clean-install", &["ci"]),
        ("ic", &["ci"]),
        ("install-clean", &["ci"]),
        ("isntall-clean", &["ci"]),
        ("un", &["uninstall"]),
        ("unlink", &["uninstall"]),
        ("remove", &["uninstall"]),
        ("rm", &["uninstall"]),
        ("r", &["uninstall"]),
        ("t", &["test"]),
        ("tst", &["test"]),
        ("x", &["exec"]),
        ("up", &["update"]),
        ("upgrade", &["update"]),
        ("udpate", &["update"]),
        ("c", &["config"]),
        ("rb", &["rebuild"]),
        ("ln", &["link"]),
        ("create", &["init"]),
        ("innit", &["init"]),
        ("info", &["view"]),
        ("show", &["view"]),
        ("v", &["view"]),
        ("author", &["owner"]),
        ("verison", &["version"]),
        ("why", &["explain"]),
        ("list", &["ls"]),
    ],
    commands: &[
        "access",
        "adduser",
        "audit",
        "bugs",
        "cache",
        "ci",
        "config",
        "dedupe",
        "deprecate",
        "diff",
        "dist-tag",
        "docs",
        "doctor",
        "edit",
        "exec",
        "explain",
        "explore",
        "find-dupes",
        "fund",
        "help",
        "hook",
        "init",
        "install",
        "install-ci-test",
        "install-test",
        "link",
        "login",
        "logout",
        "ls",
        "org",
        "outdated",
        "owner",
        "pack",
        "ping",
        "pkg",
        "prefix",
        "profile",
        "prune",
        "publish",
        "query",
        "rebuild",
        "repo",
        "restart",
        "root",
        "run",
        "sbom",
        "search",
        "shrinkwrap",
        "star",
        "stars",
        "start",
        "stop",
        "team",
        "test",
        "token",
        "uninstall",
        "unpublish",
        "unstar",
        "update",
        "version",
        "view",
        "whoami",
    ],
    chooses: NPM_CHOOSES,
    ..NONE
};

const PNPM: Cli = Cli {
    names: &["pnpm"],
    program: "pnpm",
    syntax: Syntax::Gnu,
    options: NPM_OPTIONS,
    aliases: &[
        ("run-script", &["run"]),
        ("i", &["install"]),
        ("rm", &["remove"]),
        ("uninstall", &["remove"]),
        ("un", &["remove"]),
        ("uni", &["remove"]),
        ("t", &["test"]),
        ("tst", &["test"]),
        ("up", &["update"]),
        ("upgrade", &["update"]),
        ("ln", &["link"]),
        ("rb", &["rebuild"]),
        ("x", &["exec"]),
        ("ls", &["list"]),
        ("it", &["install-test"]),
    ],
    builtins: &[
        "add",
        "audit",
        "bin",
        "ci",
        "config",
        "create",
        "dedupe",
        "deploy",
        "dlx",
        "doctor",
        "env",
        "exec",
        "fetch",
        "help",
        "import",
        "init",
        "install",
        "install-test",
        "licenses",
        "link",
        "list",
        "ll",
        "outdated",
        "pack",
        "patch",
        "patch-commit",
        "patch-remove",
        "prune",
        "publish",
        "rebuild",
        "recursive",
        "remove",
        "root",
        "run",
        "self-update",
        "server",
        "setup",
        "store",
        "test",
        "unlink",
        "update",
        "why",
    ],
    chooses: NPM_CHOOSES,
    ..NONE
};

const YARN: Cli = Cli {
    names: &["yarn"],
    program: "yarn",
    syntax: Syntax::Gnu,
    options: OptSpec {
        short: "sv",
        long: &[
            long("cwd", REQ, "cwd"),
            long("registry", REQ, "registry"),
            long("cache-folder", REQ, "cache-folder"),
            long("modules-folder", REQ, "modules-folder"),
            long("use-yarnrc", REQ, "use-yarnrc"),
            long("silent", NO, "s"),
            long("verbose", NO, "v"),
        ],
    },
    builtins: &[
        "add",
        "audit",
        "autoclean",
        "bin",
        "cache",
        "check",
        "config",
        "constraints",
        "create",
        "dedupe",
        "dlx",
        "exec",
        "explain",
        "generate-lock-entry",
        "global",
        "help",
        "import",
        "info",
        "init",
        "install",
        "licenses",
        "link",
        "list",
        "login",
        "logout",
        "node",
        "npm",
        "outdated",
        "owner",
        "pack",
        "patch",
        "patch-commit",
        "plugin",
        "policies",
        "publish",
        "rebuild",
        "remove",
        "run",
        "search",
        "set",
        "stage",
        "tag",
        "team",
        "unlink",
        "unplug",
        "up",
        "upgrade",
        "upgrade-interactive",
        "version",
        "versions",
        "why",
        "workspace",
        "workspaces",
    ],
    chooses: &["use-yarnrc"],
    ..NONE
};

/// git's global options as `git.rs` reads them, and the subcommand options
/// rules commonly name.
const GIT: Cli = Cli {
    names: &["git"],
    program: "git",
    syntax: Syntax::Gnu,
    options: OptSpec {
        short: "C:c:pPfdDnqvxXm:raAFiu",
        long: &[
            long("git-dir", REQ, "git-dir"),
            long("work-tree", REQ, "work-tree"),
            long("namespace", REQ, "namespace"),
            long("config-env", REQ, "config-env"),
            long("force", NO, "f"),
            long("force-with-lease", OPT, "f"),
            long("force-if-includes", NO, "f"),
            long("delete", NO, "d"),
            long("dry-run", NO, "n"),
            long("hard", NO, "hard"),
            long("soft", NO, "soft"),
            long("mixed", NO, "mixed"),
            long("all", NO, "all"),
            long("mirror", NO, "mirror"),
            long("tags", NO, "tags"),
            long("message", REQ, "m"),
            long("amend", NO, "amend"),
            long("no-verify", NO, "no-verify"),
            long("quiet", NO, "q"),
            long("verbose", NO, "v"),
        ],
    },
    aliases: &[("stage", &["add"])],
    plus_operand: Some(("push", "f")),
    ..NONE
};

const GO: Cli = Cli {
    names: &["go"],
    program: "go",
    syntax: Syntax::Go,
    options: OptSpec {
        short: "",
        long: &[
            long("C", REQ, "C"),
            long("exec", REQ, "exec"),
            long("toolexec", REQ, "toolexec"),
            long("overlay", REQ, "overlay"),
            long("modfile", REQ, "modfile"),
            long("vettool", REQ, "vettool"),
            long("compiler", REQ, "compiler"),
            long("pkgdir", REQ, "pkgdir"),
            long("o", REQ, "o"),
            long("p", REQ, "p"),
            long("run", REQ, "run"),
            long("skip", REQ, "skip"),
            long("bench", REQ, "bench"),
            long("count", REQ, "count"),
            long("timeout", REQ, "timeout"),
            long("tags", REQ, "tags"),
            long("ldflags", REQ, "ldflags"),
            long("gcflags", REQ, "gcflags"),
            long("asmflags", REQ, "asmflags"),
            long("mod", REQ, "mod"),
            long("cpu", REQ, "cpu"),
            long("parallel", REQ, "parallel"),
            long("coverprofile", REQ, "coverprofile"),
            long("covermode", REQ, "covermode"),
            long("coverpkg", REQ, "coverpkg"),
            long("benchtime", REQ, "benchtime"),
            long("fuzz", REQ, "fuzz"),
            long("fuzztime", REQ, "fuzztime"),
            long("shuffle", REQ, "shuffle"),
        ],
    },
    groups: &["mod", "work", "tool"],
    // A program that runs the tests or the compiler, another file system or
    // module file, another directory.
    chooses: &[
        "exec", "toolexec", "overlay", "modfile", "vettool", "compiler", "pkgdir", "C",
    ],
    ..NONE
};

const MAKE: Cli = Cli {
    names: &["make", "gmake"],
    program: "make",
    syntax: Syntax::Gnu,
    options: OptSpec {
        short: "bBC:deE:f:hiI:j::kl::LmnO::o:pqrRsStvwW:",
        long: &[
            long("always-make", NO, "B"),
            long("directory", REQ, "C"),
            long("debug", OPT, "debug"),
            long("environment-overrides", NO, "e"),
            long("eval", REQ, "E"),
            long("file", REQ, "f"),
            long("makefile", REQ, "f"),
            long("help", NO, "h"),
            long("ignore-errors", NO, "i"),
            long("include-dir", REQ, "I"),
            long("jobs", OPT, "j"),
            long("keep-going", NO, "k"),
            long("load-average", OPT, "l"),
            long("max-load", OPT, "l"),
            long("check-symlink-times", NO, "L"),
            long("just-print", NO, "n"),
            long("dry-run", NO, "n"),
            long("recon", NO, "n"),
            long("output-sync", OPT, "O"),
            long("old-file", REQ, "o"),
            long("assume-old", REQ, "o"),
            long("print-data-base", NO, "p"),
            long("question", NO, "q"),
            long("no-builtin-rules", NO, "r"),
            long("no-builtin-variables", NO, "R"),
            long("shuffle", OPT, "shuffle"),
            long("silent", NO, "s"),
            long("quiet", NO, "s"),
            long("no-silent", NO, "no-silent"),
            long("no-keep-going", NO, "S"),
            long("stop", NO, "S"),
            long("touch", NO, "t"),
            long("trace", NO, "trace"),
            long("version", NO, "v"),
            long("print-directory", NO, "w"),
            long("no-print-directory", NO, "no-print-directory"),
            long("what-if", REQ, "W"),
            long("new-file", REQ, "W"),
            long("assume-new", REQ, "W"),
            long("warn-undefined-variables", NO, "warn-undefined-variables"),
        ],
    },
    depth: Depth::Zero,
    // Another makefile, another directory, text read as a makefile, an
    // include path; variables on the command line (`SHELL=`, `CC=`).
    chooses: &["f", "C", "E", "I"],
    assignments_choose: true,
    unordered_operands: true,
    ..NONE
};

/// pytest reads its options with argparse: abbreviations of long options
/// are read as GNU's (the safe reading for choosing options), and
/// `@FILE` holds more arguments.
const PYTEST: Cli = Cli {
    names: &["pytest"],
    program: "pytest",
    syntax: Syntax::Gnu,
    at_files: true,
    options: OptSpec {
        short: "p:c:o:k:m:r:n:W:xqvsl",
        long: &[
            long("rootdir", REQ, "rootdir"),
            long("confcutdir", REQ, "confcutdir"),
            long("config-file", REQ, "c"),
            long("override-ini", REQ, "o"),
            long("pdbcls", REQ, "pdbcls"),
            long("basetemp", REQ, "basetemp"),
            long("import-mode", REQ, "import-mode"),
            long("maxfail", REQ, "maxfail"),
            long("tb", REQ, "tb"),
            long("durations", REQ, "durations"),
            long("junitxml", REQ, "junitxml"),
            long("exitfirst", NO, "x"),
            long("quiet", NO, "q"),
            long("verbose", NO, "v"),
        ],
    },
    depth: Depth::Zero,
    // A plugin or debugger class to import, another configuration (its
    // `addopts`, `python_files`), another root for conftest files.
    chooses: &["p", "c", "o", "rootdir", "confcutdir", "pdbcls"],
    ..NONE
};

const PIP: Cli = Cli {
    names: &["pip"],
    program: "pip",
    syntax: Syntax::Gnu,
    options: OptSpec {
        short: "vqr:c:e:i:t:",
        long: &[
            long("log", REQ, "log"),
            long("proxy", REQ, "proxy"),
            long("retries", REQ, "retries"),
            long("timeout", REQ, "timeout"),
            long("exists-action", REQ, "exists-action"),
            long("trusted-host", REQ, "trusted-host"),
            long("cert", REQ, "cert"),
            long("client-cert", REQ, "client-cert"),
            long("cache-dir", REQ, "cache-dir"),
            long("python", REQ, "python"),
            long("keyring-provider", REQ, "keyring-provider"),
            long("index-url", REQ, "i"),
            long("extra-index-url", REQ, "extra-index-url"),
            long("requirement", REQ, "r"),
            long("constraint", REQ, "c"),
            long("editable", REQ, "e"),
            long("target", REQ, "t"),
            long("isolated", NO, "isolated"),
        ],
    },
    chooses: &["python", "keyring-provider"],
    ..NONE
};

const KUBECTL: Cli = Cli {
    names: &["kubectl"],
    program: "kubectl",
    options: OptSpec {
        short: "n:s:v:l:o:f:c:AR",
        long: &[
            long("namespace", REQ, "n"),
            long("context", REQ, "context"),
            long("kubeconfig", REQ, "kubeconfig"),
            long("cluster", REQ, "cluster"),
            long("user", REQ, "user"),
            long("server", REQ, "s"),
            long("token", REQ, "token"),
            long("as", REQ, "as"),
            long("as-group", REQ, "as-group"),
            long("as-uid", REQ, "as-uid"),
            long("v", REQ, "v"),
            long("request-timeout", REQ, "request-timeout"),
            long("cache-dir", REQ, "cache-dir"),
            long("certificate-authority", REQ, "certificate-authority"),
            long("client-certificate", REQ, "client-certificate"),
            long("client-key", REQ, "client-key"),
            long("tls-server-name", REQ, "tls-server-name"),
            long("selector", REQ, "l"),
            long("output", REQ, "o"),
            long("filename", REQ, "f"),
            long("container", REQ, "c"),
            long("field-selector", REQ, "field-selector"),
            long("grace-period", REQ, "grace-period"),
            long("image", REQ, "image"),
            long("all-namespaces", NO, "A"),
            long("recursive", NO, "R"),
            long("all", NO, "all"),
            long("force", NO, "force"),
        ],
    },
    // Its kubeconfig names credential programs (`exec`) to run; another
    // server receives the user's credentials.
    chooses: &["kubeconfig", "s"],
    ..NONE
};

const DOCKER_OPTIONS: OptSpec = OptSpec {
    short: "H:c:l:Dfve:p:w:u:it",
    long: &[
        long("host", REQ, "H"),
        long("config", REQ, "config"),
        long("context", REQ, "c"),
        long("log-level", REQ, "l"),
        long("tlscacert", REQ, "tlscacert"),
        long("tlscert", REQ, "tlscert"),
        long("tlskey", REQ, "tlskey"),
        long("url", REQ, "url"),
        long("connection", REQ, "c"),
        long("root", REQ, "root"),
        long("runroot", REQ, "runroot"),
        long("runtime", REQ, "runtime"),
        long("conmon", REQ, "conmon"),
        long("hooks-dir", REQ, "hooks-dir"),
        long("module", REQ, "module"),
        long("name", REQ, "name"),
        long("env", REQ, "e"),
        long("publish", REQ, "p"),
        long("volume", REQ, "volume"),
        long("workdir", REQ, "w"),
        long("user", REQ, "u"),
        long("debug", NO, "D"),
        long("force", NO, "f"),
        long("volumes", NO, "v"),
    ],
};

const DOCKER_GROUPS: &[&str] = &[
    "compose",
    "container",
    "image",
    "network",
    "volume",
    "system",
    "buildx",
    "context",
    "builder",
    "plugin",
    "secret",
    "service",
    "stack",
    "swarm",
    "node",
    "config",
    "manifest",
    "trust",
    "pod",
    "machine",
];

/// `docker container rm` is `docker rm`, and so on.
const DOCKER_ALIASES: &[(&str, &[&str])] = &[
    ("container rm", &["rm"]),
    ("container remove", &["rm"]),
    ("container run", &["run"]),
    ("container exec", &["exec"]),
    ("container create", &["create"]),
    ("container kill", &["kill"]),
    ("container stop", &["stop"]),
    ("container start", &["start"]),
    ("container restart", &["restart"]),
    ("container ls", &["ps"]),
    ("container list", &["ps"]),
    ("container ps", &["ps"]),
    ("container cp", &["cp"]),
    ("container logs", &["logs"]),
    ("container prune", &["container", "prune"]),
    ("image rm", &["rmi"]),
    ("image remove", &["rmi"]),
    ("image build", &["build"]),
    ("image push", &["push"]),
    ("image pull", &["pull"]),
    ("image ls", &["images"]),
    ("image list", &["images"]),
    ("image tag", &["tag"]),
    ("builder build", &["build"]),
    ("buildx build", &["build"]),
    ("buildx b", &["build"]),
];

const DOCKER: Cli = Cli {
    names: &["docker"],
    program: "docker",
    options: DOCKER_OPTIONS,
    groups: DOCKER_GROUPS,
    aliases: DOCKER_ALIASES,
    // Another daemon (`ssh://` runs ssh), a config naming credential
    // helpers, a context naming either.
    chooses: &["H", "config", "c"],
    ..NONE
};

const PODMAN: Cli = Cli {
    names: &["podman"],
    program: "podman",
    options: DOCKER_OPTIONS,
    groups: DOCKER_GROUPS,
    aliases: DOCKER_ALIASES,
    chooses: &[
        "H",
        "config",
        "c",
        "url",
        "root",
        "runroot",
        "runtime",
        "conmon",
        "hooks-dir",
        "module",
    ],
    ..NONE
};

const TERRAFORM: Cli = Cli {
    names: &["terraform", "tofu"],
    program: "terraform",
    syntax: Syntax::Go,
    options: OptSpec {
        short: "",
        long: &[
            long("chdir", REQ, "chdir"),
            long("var", REQ, "var"),
            long("var-file", REQ, "var-file"),
            long("target", REQ, "target"),
            long("out", REQ, "out"),
            long("state", REQ, "state"),
            long("backend-config", REQ, "backend-config"),
            long("plugin-dir", REQ, "plugin-dir"),
            long("parallelism", REQ, "parallelism"),
            long("lock-timeout", REQ, "lock-timeout"),
        ],
    },
    groups: &["state", "workspace", "providers"],
    // Provider programs from another directory.
    chooses: &["plugin-dir"],
    ..NONE
};

const HELM: Cli = Cli {
    names: &["helm"],
    program: "helm",
    options: OptSpec {
        short: "n:f:",
        long: &[
            long("namespace", REQ, "n"),
            long("kube-context", REQ, "kube-context"),
            long("kubeconfig", REQ, "kubeconfig"),
            long("kube-apiserver", REQ, "kube-apiserver"),
            long("kube-token", REQ, "kube-token"),
            long("kube-as-user", REQ, "kube-as-user"),
            long("kube-as-group", REQ, "kube-as-group"),
            long("kube-ca-file", REQ, "kube-ca-file"),
            long("registry-config", REQ, "registry-config"),
            long("repository-cache", REQ, "repository-cache"),
            long("repository-config", REQ, "repository-config"),
            long("post-renderer", REQ, "post-renderer"),
            long("post-renderer-args", REQ, "post-renderer-args"),
            long("values", REQ, "f"),
            long("set", REQ, "set"),
            long("version", REQ, "version"),
            long("timeout", REQ, "timeout"),
        ],
    },
    groups: &[
        "repo",
        "plugin",
        "dependency",
        "registry",
        "get",
        "show",
        "search",
    ],
    aliases: &[
        ("un", &["uninstall"]),
        ("del", &["uninstall"]),
        ("delete", &["uninstall"]),
        ("uninstall", &["uninstall"]),
        ("ls", &["list"]),
        ("hist", &["history"]),
        ("dep", &["dependency"]),
        ("dependencies", &["dependency"]),
        ("inspect", &["show"]),
        ("fetch", &["pull"]),
    ],
    chooses: &[
        "kubeconfig",
        "post-renderer",
        "repository-config",
        "registry-config",
    ],
    ..NONE
};

const AWS: Cli = Cli {
    names: &["aws"],
    program: "aws",
    options: OptSpec {
        short: "",
        long: &[
            long("profile", REQ, "profile"),
            long("region", REQ, "region"),
            long("output", REQ, "output"),
            long("query", REQ, "query"),
            long("endpoint-url", REQ, "endpoint-url"),
            long("color", REQ, "color"),
            long("ca-bundle", REQ, "ca-bundle"),
            long("cli-read-timeout", REQ, "cli-read-timeout"),
            long("cli-connect-timeout", REQ, "cli-connect-timeout"),
            long("cli-binary-format", REQ, "cli-binary-format"),
            long("debug", NO, "debug"),
            long("no-verify-ssl", NO, "no-verify-ssl"),
            long("no-paginate", NO, "no-paginate"),
            long("no-sign-request", NO, "no-sign-request"),
            long("no-cli-pager", NO, "no-cli-pager"),
            long("recursive", NO, "recursive"),
        ],
    },
    depth: Depth::Two,
    ..NONE
};

const GCLOUD: Cli = Cli {
    names: &["gcloud"],
    program: "gcloud",
    options: OptSpec {
        short: "q",
        long: &[
            long("project", REQ, "project"),
            long("account", REQ, "account"),
            long("configuration", REQ, "configuration"),
            long("verbosity", REQ, "verbosity"),
            long("format", REQ, "format"),
            long("billing-project", REQ, "billing-project"),
            long(
                "impersonate-service-account",
                REQ,
                "impersonate-service-account",
            ),
            long("flags-file", REQ, "flags-file"),
            long("zone", REQ, "zone"),
            long("region", REQ, "region"),
            long("quiet", NO, "q"),
        ],
    },
    depth: Depth::All,
    aliases: &[("alpha", &[]), ("beta", &[]), ("preview", &[])],
    chooses: &["flags-file"],
    ..NONE
};

const GH: Cli = Cli {
    names: &["gh"],
    program: "gh",
    options: OptSpec {
        short: "R:X:H:f:F:",
        long: &[
            long("repo", REQ, "R"),
            long("hostname", REQ, "hostname"),
            long("method", REQ, "X"),
            long("header", REQ, "H"),
            long("raw-field", REQ, "f"),
            long("field", REQ, "F"),
            long("jq", REQ, "jq"),
            long("template", REQ, "template"),
            long("input", REQ, "input"),
        ],
    },
    groups: &[
        "repo",
        "pr",
        "issue",
        "release",
        "gist",
        "run",
        "workflow",
        "secret",
        "variable",
        "label",
        "auth",
        "codespace",
        "cs",
        "project",
        "ssh-key",
        "gpg-key",
        "extension",
        "ext",
        "alias",
        "config",
        "cache",
        "org",
        "ruleset",
        "attestation",
    ],
    aliases: &[
        ("cs", &["codespace"]),
        ("ext", &["extension"]),
        ("extensions", &["extension"]),
    ],
    ..NONE
};

const SSH: Cli = Cli {
    names: &["ssh"],
    program: "ssh",
    options: OptSpec {
        short: "1246ab:c:e:fgi:kl:m:no:p:qstvxAB:CD:E:F:GI:J:KL:MNO:P:Q:R:S:TVw:W:XYy",
        long: &[],
    },
    depth: Depth::Zero,
    // `-o ProxyCommand=…`, `LocalCommand`, `KnownHostsCommand`; another
    // configuration file; a PKCS#11 library to load.
    chooses: &["o", "F", "I"],
    ..NONE
};

const SCP: Cli = Cli {
    names: &["scp", "sftp"],
    program: "scp",
    options: OptSpec {
        short: "12346ABCTOpqRrsvD:F:J:P:S:c:i:l:o:X:b:",
        long: &[],
    },
    depth: Depth::Zero,
    // `-S PROGRAM`, `-D` the sftp server program, ssh options and config.
    chooses: &["S", "D", "o", "F"],
    ..NONE
};

const RM: Cli = Cli {
    names: &["rm"],
    program: "rm",
    syntax: Syntax::Gnu,
    options: OptSpec {
        short: "dfiIrRv",
        long: &[
            long("force", NO, "f"),
            long("interactive", OPT, "interactive"),
            long("one-file-system", NO, "one-file-system"),
            long("no-preserve-root", NO, "no-preserve-root"),
            long("preserve-root", OPT, "preserve-root"),
            long("recursive", NO, "r"),
            long("dir", NO, "d"),
            long("verbose", NO, "v"),
        ],
    },
    depth: Depth::Zero,
    unordered_operands: true,
    same: &[("R", "r")],
    ..NONE
};

const CP: Cli = Cli {
    names: &["cp"],
    program: "cp",
    syntax: Syntax::Gnu,
    options: OptSpec {
        short: "abdfHilLnPpRrsuvxS:t:TZ",
        long: &[
            long("archive", NO, "a"),
            long("force", NO, "f"),
            long("interactive", NO, "i"),
            long("link", NO, "l"),
            long("no-clobber", NO, "n"),
            long("recursive", NO, "r"),
            long("symbolic-link", NO, "s"),
            long("suffix", REQ, "S"),
            long("target-directory", REQ, "t"),
            long("no-target-directory", NO, "T"),
            long("update", OPT, "u"),
            long("verbose", NO, "v"),
            long("preserve", OPT, "preserve"),
        ],
    },
    depth: Depth::Zero,
    same: &[("R", "r")],
    ..NONE
};

const MV: Cli = Cli {
    names: &["mv"],
    program: "mv",
    syntax: Syntax::Gnu,
    options: OptSpec {
        short: "bfinS:t:TuvZ",
        long: &[
            long("force", NO, "f"),
            long("interactive", NO, "i"),
            long("no-clobber", NO, "n"),
            long("suffix", REQ, "S"),
            long("target-directory", REQ, "t"),
            long("no-target-directory", NO, "T"),
            long("update", OPT, "u"),
            long("verbose", NO, "v"),
        ],
    },
    depth: Depth::Zero,
    ..NONE
};

/// vim and its relatives: `-c CMD`, `--cmd CMD` and `+CMD` are Ex
/// commands (`:!rm x` runs a shell); `-S FILE` sources a script.
const VIM: Cli = Cli {
    names: &[
        "vim", "vi", "nvim", "view", "ex", "vimdiff", "gvim", "rvim", "nvi", "elvis",
    ],
    program: "vim",
    options: OptSpec {
        short: "c:S:u:U:T:i:w:W:s:t:q:",
        long: &[long("cmd", REQ, "cmd")],
    },
    depth: Depth::Zero,
    chooses: &["S", "u", "s"],
    commands_in_options: &[("c", CommandKind::Escape), ("cmd", CommandKind::Escape)],
    plus_commands: Some(CommandKind::Escape),
    ..NONE
};

/// less: `+CMD` (and `++CMD`) are commands; `!` runs a shell, `|` pipes
/// to one, `v` runs an editor.
const LESS: Cli = Cli {
    names: &["less"],
    program: "less",
    options: OptSpec {
        short: "b:h:j:k:o:O:p:P:t:T:x:y:z:",
        long: &[
            long("log-file", REQ, "o"),
            long("LOG-FILE", REQ, "O"),
            long("lesskey-file", REQ, "k"),
            long("pattern", REQ, "p"),
            long("prompt", REQ, "P"),
        ],
    },
    depth: Depth::Zero,
    chooses: &["k"],
    plus_commands: Some(CommandKind::Escape),
    ..NONE
};

const MORE: Cli = Cli {
    names: &["more"],
    program: "more",
    options: OptSpec {
        short: "n:",
        long: &[],
    },
    depth: Depth::Zero,
    plus_commands: Some(CommandKind::Escape),
    ..NONE
};

/// man: the pager and the browser are commands run by a shell; `-C` reads
/// another configuration.
const MAN: Cli = Cli {
    names: &["man"],
    program: "man",
    syntax: Syntax::Gnu,
    options: OptSpec {
        short: "C:P:H::p:M:m:L:S:s:e:R:E:r:",
        long: &[
            long("config-file", REQ, "C"),
            long("pager", REQ, "P"),
            long("html", OPT, "H"),
            long("preprocessor", REQ, "p"),
            long("manpath", REQ, "M"),
            long("prompt", REQ, "r"),
        ],
    },
    depth: Depth::Zero,
    chooses: &["C", "p", "M"],
    commands_in_options: &[("P", CommandKind::Shell), ("H", CommandKind::Shell)],
    ..NONE
};

/// For tests: every model's own tables are consistent.
#[cfg(test)]
pub(crate) fn all() -> &'static [Cli] {
    MODELS
}
