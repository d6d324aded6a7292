//! BASH-7: programs that run other programs, run code from their arguments
//! or move data over the network are only ever suggested verbatim; a prefix
//! rule for them would allow far more than the command shown.

use zcode::permission::bash::{analyze, suggest_rules};

fn suggest(command: &str) -> Vec<String> {
    suggest_rules(&analyze(command))
}

fn assert_verbatim(commands: &[&str]) {
    for command in commands {
        assert_eq!(suggest(command), [command.trim()], "{command}");
    }
}

#[test]
fn bash7_wrappers_and_launchers_are_verbatim() {
    assert_verbatim(&[
        "taskset -c 0 make test",
        "taskset 1 cargo build",
        "chrt -f 10 make",
        "chrt 1 cargo test",
        "flock /tmp/lock make test",
        "flock lockfile cargo build",
        "busybox sh -c x",
        "busybox rm -rf x",
        "systemd-run --user make",
        "systemd-run make",
        "tmux new -d make",
        "tmux new-session cargo",
        "screen -dm make",
        "screen make",
        "nice -n 10 make",
        "nice make",
        "ionice -c3 make",
        "firejail make",
        "bwrap --bind / / make",
        "unshare -r make",
        "setpriv --reuid 0 make",
        "capsh -- -c make",
        "runuser -u x make",
        "doas make",
        "sudo make install",
        "su -c make",
        "script -c make",
        "expect -c x",
        "watch make",
        "entr make",
        "parallel make ::: a b",
        "xargs make",
        "env make",
        "timeout 10 make",
        "stdbuf -oL make",
        "nohup make",
        "setsid make",
        "strace make",
        "valgrind ./a.out",
        "perf record ./a.out",
        "hyperfine make",
        "fakeroot make",
        "proot make",
        "torsocks curl x",
        "xvfb-run make",
        "dbus-run-session make",
        "cross-env NODE_ENV=x make",
        "concurrently make",
        "nodemon server.js",
        "direnv exec . make",
        "pwsh -c make",
    ]);
}

#[test]
fn bash7_package_runners_name_the_package() {
    let cases: &[(&str, &[&str])] = &[
        ("npx prettier --write .", &["npx prettier:*"]),
        ("npx eslint src", &["npx eslint:*"]),
        ("uvx ruff check", &["uvx ruff:*"]),
        ("pipx run black .", &["pipx run black:*"]),
        ("uv tool run ruff check", &["uv tool run ruff:*"]),
        ("pnpm dlx create-x app", &["pnpm dlx create-x:*"]),
        ("npm exec tsc", &["npm exec tsc:*"]),
        ("uv run pytest -x", &["uv run pytest:*"]),
        ("deno run main.ts", &["deno run main.ts:*"]),
    ];
    for (command, expected) in cases {
        assert_eq!(suggest(command), *expected, "{command}");
    }
    // A runner without a package, or with a flag, a shell, an interpreter or
    // a wrapper where the package belongs.
    assert_verbatim(&[
        "npx -y prettier",
        "npx -c 'rm -rf x'",
        "npx bash -c x",
        "npx node -e x",
        "npx cross-env A=1 make",
        "uvx",
        "uvx --from x y",
        "uvx python -c x",
        "pipx run",
        "pipx run --spec x y",
        "uv run python -c x",
        "uv run bash x",
        "uv tool run",
        "poetry run python -c x",
        "npm exec bash",
        "yarn dlx sh",
        "pnpm dlx",
        "deno eval 'x'",
        "deno run -A x.ts",
        "bun x sh",
    ]);
}

#[test]
fn bash7_code_from_arguments_is_verbatim() {
    assert_verbatim(&[
        "python -c 'import os'",
        "python3 -c x",
        "node -e 'x'",
        "perl -e 'x'",
        "perl -pi -e s/a/b/ f",
        "ruby -e x",
        "php -r x",
        "awk '{print > \"out\"}' f",
        "gawk -f x.awk",
        "sqlite3 db.sqlite .tables",
        "sqlite3 db '.shell id'",
        "psql -c x",
        "mysql -e x",
        "gdb -batch -ex run ./a",
        "vim -c ':!id' f",
        "vi f",
        "ex -c x f",
        "ed f",
        "emacs --batch x",
        "less f",
        "make",
        "make -j8",
        "make -f x.mk",
        "just",
        "ninja -C build",
        "gradle --offline",
        "yarn",
        "git config alias.x '!sh'",
        "git config core.pager less",
        "git config --global user.name x",
        "git -c core.pager=id log",
        "git -c alias.x=!sh x",
        "git submodule foreach make",
        "git bisect run make",
        "git rebase -x make main",
        "git rebase main",
        "git filter-branch --tree-filter x",
        "git difftool -x x",
        "git mergetool",
        "git send-email x",
        "git archive --remote x",
        "git hook run pre-commit",
        "git credential fill",
        "git credential-store get",
    ]);
}

#[test]
fn bash7_network_programs_are_verbatim() {
    assert_verbatim(&[
        "curl https://example.com",
        "curl -o x https://example.com",
        "wget https://example.com/x",
        "ssh host make",
        "scp a host:b",
        "rsync -a a host:b",
        "rsync a b",
        "sftp host",
        "ftp host",
        "nc host 80",
        "ncat -l 80",
        "netcat host 80",
        "socat - TCP:host:80",
        "telnet host",
        "tar xf a.tar",
        "tar -cf a.tar --to-command=x a",
        "tar --checkpoint-action=exec=x -cf a.tar a",
        "tar cf host:/a.tar a",
        "zip -TT 'x' a.zip a",
        "zip a.zip a",
        "aria2c x",
        "rclone copy a b",
    ]);
    // Common git network commands keep their prefix, except push: a
    // `git push:*` rule would send any ref anywhere.
    assert_eq!(suggest("git push origin main"), ["git push origin main"]);
    assert_eq!(suggest("git fetch --all"), ["git fetch:*"]);
    assert_eq!(suggest("git pull --rebase"), ["git pull:*"]);
    assert_eq!(suggest("git clone x"), ["git clone:*"]);
}

#[test]
fn bash7_examples_still_get_their_prefix() {
    let cases: &[(&str, &[&str])] = &[
        ("npm run build", &["npm run build:*"]),
        ("python -m pytest -k x", &["python -m pytest:*"]),
        ("make test", &["make test:*"]),
        ("git commit -m \"x\"", &["git commit:*"]),
        ("cargo test --release", &["cargo test:*"]),
        ("make -j8 test", &["make:*"]),
    ];
    for (command, expected) in &cases[..5] {
        assert_eq!(suggest(command), *expected, "{command}");
    }
    // A flag before the target: no prefix.
    assert_eq!(suggest(cases[5].0), [cases[5].0]);
}
