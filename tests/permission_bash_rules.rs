//! BASH-5 deny and ask rules follow a program wherever it would run
//! (paths, wrappers, shell strings, `find -exec`, `xargs`, unknown
//! programs, unanalysable commands) and through git's and npm's global
//! options; BASH-4 git read-only forms with their global options.

mod support;

use support::bash_rules::{decide, decide_with};
use zcode::permission::bash::{AnalyzeOptions, analyze, analyze_with};
use zcode::permission::check::{Behavior, RuleId};
use zcode::permission::rules::{Rule, RuleSet};

fn bash(content: &str) -> Rule {
    Rule::with_content("Bash", content)
}

fn rules(allow: &[&str], ask: &[&str], deny: &[&str]) -> RuleSet {
    RuleSet {
        allow: allow.iter().map(|c| bash(c)).collect(),
        ask: ask.iter().map(|c| bash(c)).collect(),
        deny: deny.iter().map(|c| bash(c)).collect(),
    }
}

fn assert_denied(project: &RuleSet, commands: &[&str]) {
    for command in commands {
        let d = decide(project, command);
        assert_eq!(
            (d.behavior, d.rule_id),
            (Behavior::Deny, RuleId::ProjectDeny),
            "{command}: {d:?}"
        );
    }
}

fn assert_asked(project: &RuleSet, commands: &[&str]) {
    for command in commands {
        let d = decide(project, command);
        assert_eq!(
            (d.behavior, d.rule_id),
            (Behavior::Ask, RuleId::ProjectAsk),
            "{command}: {d:?}"
        );
    }
}

fn assert_not_denied(project: &RuleSet, commands: &[&str]) {
    for command in commands {
        let d = decide(project, command);
        assert_ne!(d.rule_id, RuleId::ProjectDeny, "{command}: {d:?}");
    }
}

fn assert_behavior(project: &RuleSet, commands: &[&str], behavior: Behavior, id: RuleId) {
    for command in commands {
        let d = decide(project, command);
        assert_eq!((d.behavior, d.rule_id), (behavior, id), "{command}: {d:?}");
    }
}

/// A deny for rm with broad allow rules for the programs that could carry it.
fn deny_rm() -> RuleSet {
    rules(
        &[
            "find:*",
            "xargs:*",
            "env:*",
            "sudo:*",
            "bash:*",
            "sh:*",
            "eval:*",
            "nice:*",
            "timeout:*",
            "command:*",
            "busybox:*",
            "chrt:*",
            "taskset:*",
            "flock:*",
            "parallel:*",
            "watch:*",
            "strace:*",
            "git:*",
            "npm:*",
            "ssh:*",
        ],
        &[],
        &["rm:*"],
    )
}

#[test]
fn bash5_deny_through_a_path_or_quoting() {
    assert_denied(
        &deny_rm(),
        &[
            "/bin/rm -rf x",
            "/usr/bin/rm x",
            "./rm x",
            "../../bin/rm x",
            "\\rm -rf x",
            "r\\m -rf x",
            "'rm' x",
            "\"rm\" x",
            "r''m x",
            "ls && /bin/rm x",
        ],
    );
}

#[test]
fn bash5_deny_through_shell_strings() {
    assert_denied(
        &deny_rm(),
        &[
            "sh -c 'rm -rf x'",
            "bash -c 'rm -rf x'",
            "zsh -c 'rm x'",
            "dash -c 'rm x'",
            "/bin/bash -c 'ls; rm x'",
            "bash -lc 'rm x'",
            "bash -ec 'cd /tmp && rm x'",
            "bash -o pipefail -c 'rm x'",
            "bash --norc -c 'rm x'",
            "bash -c 'bash -c \"rm x\"'",
            "sh -c '\"$0\" -rf x' rm",
            "bash -c 'rm $(pwd)'",
            "eval 'rm -rf x'",
            "eval rm -rf x",
            "eval \"ls; rm x\"",
            "builtin eval 'rm x'",
            "env -S 'rm -rf x'",
            "env --split-string='rm -rf x'",
            "env -S'rm x'",
            "env -iS 'rm x'",
            "env -S '-i A=1 rm x'",
            "su -c 'rm -rf x'",
            "su root -c 'rm x'",
            "su --command='rm x' root",
            "flock /tmp/l -c 'rm x'",
            "watch 'rm x'",
            "ssh host 'rm -rf x'",
            "fish -c 'rm x'",
            "fish --command='rm x'",
        ],
    );
}

#[test]
fn bash5_deny_through_known_wrappers() {
    assert_denied(
        &deny_rm(),
        &[
            "command rm x",
            "command -p rm x",
            "exec rm x",
            "exec -a name rm x",
            "builtin command rm x",
            "time rm x",
            "time -p rm x",
            "/usr/bin/time -f %e rm x",
            "nohup rm x",
            "setsid rm x",
            "setsid -f rm x",
            "nice rm x",
            "nice -n5 rm x",
            "nice -n 5 rm x",
            "nice -5 rm x",
            "nice --adjustment=5 rm x",
            "nice --adj 5 rm x",
            "ionice rm x",
            "ionice -c2 -n7 rm x",
            "timeout 5 rm x",
            "timeout -s KILL 5 rm x",
            "timeout --signal=KILL -k 1 5s rm x",
            "stdbuf -o0 rm x",
            "stdbuf -o L -e0 rm x",
            "chrt 1 rm x",
            "chrt -f 10 rm x",
            "chrt --idle 0 rm x",
            "taskset 1 rm x",
            "taskset -c 0-3 rm x",
            "flock /tmp/l rm x",
            "flock -w 5 /tmp/l rm x",
            "sudo rm x",
            "sudo -u x rm x",
            "sudo -u x -g y -- rm x",
            "sudo --user=x rm x",
            "sudo --us x rm x",
            "sudo -E A=1 rm x",
            "sudo -s rm x",
            "doas rm x",
            "doas -u x rm x",
            "runuser -u x -- rm x",
            "runuser -u x rm x",
            "chroot / rm x",
            "busybox rm x",
            "busybox sh -c 'rm x'",
            "env rm x",
            "env A=1 B=2 rm x",
            "env -i rm x",
            "env -u HOME rm x",
            "env -C /tmp rm x",
            "env --chdir=/tmp rm x",
            "env - rm x",
            "env -- rm x",
            "xargs rm",
            "xargs -0 rm",
            "xargs -n1 rm",
            "xargs -I{} rm {}",
            "xargs -i rm {}",
            "xargs --max-args 1 rm",
            "xargs -P4 -L1 rm",
            "find . | xargs -0 -r rm -f",
            "watch rm x",
            "watch -n1 rm x",
            "watch -x rm x",
            "sudo timeout 5 nice -n1 env A=1 rm x",
        ],
    );
}

#[test]
fn bash5_deny_through_unknown_wrappers() {
    assert_denied(
        &deny_rm(),
        &[
            "strace rm x",
            "strace -f -o /tmp/t rm x",
            "ltrace rm x",
            "parallel rm ::: a b",
            "parallel 'rm {}' ::: a b",
            "parallel -j4 rm ::: a",
            "unshare -r rm x",
            "nsenter -t 1 -m rm x",
            "systemd-run --user rm x",
            "firejail --quiet rm x",
            "bwrap --bind / / rm x",
            "ionice -p 1 rm x",
            "chrt -p 1 rm x",
            "sudo --no-such-option rm x",
            "some-tool --exec=rm x",
            "make -j4 rm",
            "npm exec -- rm -rf x",
            "npx rm x",
        ],
    );
}

#[test]
fn bash5_deny_through_find_exec_and_xargs_with_broad_allow() {
    assert_denied(
        &deny_rm(),
        &[
            "find . -exec rm {} \\;",
            "find . -exec rm {} +",
            "find . -execdir rm -f {} \\;",
            "find . -ok rm {} \\;",
            "find . -okdir rm {} \\;",
            "find . -name x -exec /bin/rm {} \\;",
            "find . -exec echo {} \\; -exec rm {} \\;",
            "find . -exec sh -c 'rm \"$1\"' _ {} \\;",
            "find . -exec bash -c 'rm x' \\;",
            "find . -print0 | xargs -0 rm",
            "xargs sh -c 'rm x'",
        ],
    );
}

#[test]
fn bash5_deny_in_commands_that_cannot_be_analysed() {
    assert_denied(
        &deny_rm(),
        &[
            "echo $(rm -rf x)",
            "echo `rm x`",
            "for f in a; do rm $f; done",
            "(rm x)",
            "{ rm x; }",
            "if true; then rm x; fi",
            "r\\m $(pwd)",
            "\"rm\" -rf $HOME",
            "/bin/rm -rf *",
            "x=$(ls); rm $x",
            "cat <<EOF | sh\nrm x\nEOF",
            "bash -c \"$(echo rm x)\"",
            "ls > out; rm x",
            "r$()m -rf x",
            "r${X}m -rf x",
            "$'\\x72\\x6d' -rf x",
            "{r,}m -rf x",
            "/bin/r{a,m} x",
        ],
    );
}

#[test]
fn bash5_deny_keeps_read_only_programs_that_mention_the_name() {
    let project = deny_rm();
    assert_not_denied(
        &project,
        &[
            "grep rm file",
            "grep -r 'rm -rf' src",
            "echo rm",
            "echo 'rm -rf x'",
            "printf 'rm %s' x",
            "cat rm",
            "ls rm",
            "/usr/bin/grep rm file",
            "sudo grep rm file",
            "xargs grep rm",
            "find . -name rm",
            "rmdir x",
            "git rm --cached x",
            "git commit -m 'rm x'",
            "ls > rm",
            "echo $(date) > rm",
        ],
    );
}

#[test]
fn bash5_ask_rules_follow_programs_too() {
    let project = rules(&["find:*", "env:*", "xargs:*"], &["rm:*", "curl:*"], &[]);
    assert_asked(
        &project,
        &[
            "find . -exec rm {} \\;",
            "env -S 'curl x'",
            "xargs curl",
            "sudo curl x",
            "bash -c 'curl x | sh'",
            "echo $(curl x)",
        ],
    );
    assert_behavior(
        &project,
        &["find . -name x"],
        Behavior::Allow,
        RuleId::ReadOnly,
    );
    assert_behavior(
        &project,
        &["find . -exec touch {} \\;", "env A=1 ls"],
        Behavior::Allow,
        RuleId::ProjectAllow,
    );
}

#[test]
fn bash5_deny_multi_word_rule_in_opaque_text() {
    let project = rules(&[], &[], &["git push:*"]);
    assert_denied(
        &project,
        &[
            "git push --force > /tmp/log",
            "echo $(git push)",
            "git $(echo push)",
            "git \"pu\"sh $X",
            "git pu{s,}h",
        ],
    );
    // The program alone is not enough when nothing builds words.
    assert_not_denied(&project, &["git log > /tmp/log", "git status; ls > out"]);
}

#[test]
fn bash5_git_globals_ask_rules_see_the_subcommand() {
    let project = rules(&["git:*"], &["git push:*"], &[]);
    assert_asked(
        &project,
        &[
            "git push --force",
            "git -c x.y=z push --force",
            "git -C . push",
            "git -C a -C b push",
            "git --no-pager push",
            "git -P push",
            "git -p push",
            "git --paginate push",
            "git --git-dir=.git push",
            "git --git-dir .git push",
            "git --work-tree=. push",
            "git --work-tree . push",
            "git --namespace=x push",
            "git --namespace x push",
            "git --bare push",
            "git --literal-pathspecs push",
            "git --glob-pathspecs --icase-pathspecs push",
            "git --no-replace-objects --no-optional-locks push",
            "git --no-lazy-fetch --no-advice push",
            "git --exec-path=/usr/lib/git-core push",
            "git --config-env=x.y=HOME push",
            "git --attr-source HEAD push",
            "git -c alias.p=push p --force",
            "git -c Alias.P=push p",
            "git -c alias.p='push --force' p",
            "git -c alias.a=b -c alias.b=push a",
            "git -c alias.p='!git push' p",
            "git -c alias.p='!sh -c \"git push\"' p",
            "git -c alias.x='!f() { git push; }; f' x",
            "git --config-env=alias.p=ENV p",
            "git --unknown-option push",
            "git pushh",
            "sudo git -C . push",
            "env GIT_DIR=x git --no-pager push",
            "bash -c 'git -c a.b=c push'",
            "git -c core.sshCommand='git push' fetch",
        ],
    );
    // Other subcommands are still allowed by the broad rule (or read-only).
    assert_behavior(
        &project,
        &["git -C . commit -m x", "git --no-pager fetch"],
        Behavior::Allow,
        RuleId::ProjectAllow,
    );
}

#[test]
fn bash5_git_globals_that_change_what_runs_need_a_verbatim_allow() {
    let project = rules(&["git:*"], &[], &[]);
    for command in [
        "git -c core.pager=x log",
        "git -c core.fsmonitor=x status",
        "git -c alias.x='!rm -rf ~' x",
        "git --config-env=core.pager=X log",
        "git --exec-path=/tmp status",
        "git --git-dir=/tmp/x log",
        "git --work-tree=/ status",
        "git -p log",
        "git --bare log",
        "git --unknown log",
        "git status && git -c core.pager=x commit",
    ] {
        let d = decide(&project, command);
        assert_eq!(d.behavior, Behavior::Ask, "{command}: {d:?}");
    }
    let verbatim = rules(&["git -c core.pager=cat log"], &[], &[]);
    assert_behavior(
        &verbatim,
        &["git -c core.pager=cat log"],
        Behavior::Allow,
        RuleId::ProjectAllow,
    );
    assert_behavior(
        &project,
        &[
            "git -C sub commit -m x",
            "git --no-pager commit -m x",
            // Another directory: not read-only, but the broad rule covers it.
            "git -C /work/project status",
        ],
        Behavior::Allow,
        RuleId::ProjectAllow,
    );
}

#[test]
fn bash5_git_globals_config_values_and_runners_reach_deny_rules() {
    let project = rules(&["git:*"], &[], &["rm:*"]);
    assert_denied(
        &project,
        &[
            "git -c alias.x='!rm -rf ~' x",
            "git -c core.pager='rm -rf x' log",
            "git -c core.sshCommand='rm x' fetch",
            "git submodule foreach 'rm -rf x'",
            "git submodule foreach --recursive rm -rf x",
            "git bisect run rm x",
            "git rebase -x 'rm x' HEAD~2",
            "git rebase --exec='rm x' HEAD~2",
            "git grep -O'rm' x",
            "git difftool -x rm",
            "git fetch --upload-pack='rm x' origin",
        ],
    );
    assert_not_denied(
        &project,
        &["git rm x", "git commit -m 'rm x'", "git log --grep rm"],
    );
}

#[test]
fn bash5_npm_globals_ask_rules_see_the_subcommand() {
    let project = rules(
        &["npm:*", "pnpm:*", "yarn:*"],
        &["npm publish:*", "pnpm publish:*", "yarn publish:*"],
        &[],
    );
    assert_asked(
        &project,
        &[
            "npm publish",
            "npm --registry=https://r.example publish",
            "npm --registry https://r.example publish",
            "npm -g publish",
            "npm --prefix x publish",
            "npm --prefix x --tag beta publish --access public",
            "npm -w pkg publish",
            "npm --loglevel=silly --dry-run publish",
            "npm -- publish",
            "pnpm --filter x publish",
            "pnpm -C dir publish",
            "yarn --cwd dir publish",
            "sudo npm -g publish",
        ],
    );
    assert_behavior(
        &project,
        &[
            "npm run publish-docs",
            "npm install publish",
            "npm --prefix x install",
        ],
        Behavior::Allow,
        RuleId::ProjectAllow,
    );
    // A script shell or user config changes what runs: only verbatim.
    for command in [
        "npm --script-shell=/tmp/x run build",
        "npm --userconfig=/tmp/rc install",
    ] {
        assert_eq!(
            decide(&project, command).behavior,
            Behavior::Ask,
            "{command}"
        );
    }
}

#[test]
fn bash4_git_read_only_forms() {
    let read_only = [
        "git status",
        "git --no-pager log",
        "git -P diff",
        "git -C sub status",
        "git -C a -C b log --oneline",
        "git --no-optional-locks status",
        "git --literal-pathspecs ls-files",
        "git --version",
        "git describe --tags",
        "git describe --tags --abbrev=0",
        "git rev-list --count HEAD",
        "git rev-list HEAD..origin/main",
        "git tag",
        "git tag -l",
        "git tag -l 'v*'",
        "git tag --list 'v1.*'",
        "git tag --contains HEAD",
        "git tag --sort=-creatordate",
        "git tag -n5",
        "git tag --points-at HEAD",
        "git stash list",
        "git stash list --oneline",
        "git grep -n x",
        "git grep -e foo -- src",
        "git cat-file -p HEAD",
        "git cat-file -t HEAD",
        "git shortlog -sn",
        "git merge-base a b",
        "git merge-base --is-ancestor a b",
        "git remote get-url origin",
        "git remote get-url --push origin",
        "git config --get user.name",
        "git config --get-all remote.origin.fetch",
        "git config --list",
        "git config -l",
        "git config --global --get user.email",
        "git config --get-regexp '^alias'",
        "git config get user.name",
        "git config list --show-origin",
        "git branch --contains HEAD",
        "git branch -vv",
        "git branch --list 'feat*'",
        "git branch --merged main",
        "git branch -a --sort=-committerdate",
    ];
    let sandboxed = AnalyzeOptions { sandboxed: true };
    for command in read_only {
        assert!(
            analyze_with(command, sandboxed).read_only,
            "{command} should be read-only in the sandbox"
        );
    }
    // Without a sandbox, forms that may run a program the repository's
    // configuration names (fsmonitor on reading the index, filters,
    // textconv, gpg through `log.showSignature`) and `-C` are not.
    let strict_read_only = [
        "git --version",
        "git describe --tags",
        "git describe --tags --abbrev=0",
        "git rev-list --count HEAD",
        "git rev-list HEAD..origin/main",
        "git tag",
        "git tag -l",
        "git tag -l 'v*'",
        "git tag --list 'v1.*'",
        "git tag --contains HEAD",
        "git tag --sort=-creatordate",
        "git tag -n5",
        "git tag --points-at HEAD",
        "git cat-file -p HEAD",
        "git cat-file -t HEAD",
        "git shortlog -sn",
        "git merge-base a b",
        "git merge-base --is-ancestor a b",
        "git remote get-url origin",
        "git remote get-url --push origin",
        "git config --get user.name",
        "git config --get-all remote.origin.fetch",
        "git config --list",
        "git config -l",
        "git config --global --get user.email",
        "git config --get-regexp '^alias'",
        "git config get user.name",
        "git config list --show-origin",
        "git branch --contains HEAD",
        "git branch -vv",
        "git branch --list 'feat*'",
        "git branch --merged main",
        "git branch -a --sort=-committerdate",
    ];
    for command in read_only {
        assert_eq!(
            analyze(command).read_only,
            strict_read_only.contains(&command),
            "{command}: strict judgment"
        );
    }
    let not_read_only = [
        "git -c core.pager=x log",
        "git -c alias.s=status s",
        "git --git-dir=x status",
        "git --git-dir x status",
        "git --exec-path=x status",
        "git --work-tree=x status",
        "git --config-env=core.pager=X log",
        "git -p log",
        "git --paginate log",
        "git --no-pag log",
        "git -Csub status",
        "git -C / status",
        "git -C /tmp status",
        "git -C ../other status",
        "git -C ~/x status",
        "git -C sub/../.. status",
        "git --bare log",
        "git --help log",
        "git --version status",
        "git log --outp=x",
        "git log --output=x",
        "git show --ext-diff",
        "git diff --textconv",
        "git rev-list --output=x HEAD",
        "git shortlog --output x",
        "git tag v1",
        "git tag -a v1 -m x",
        "git tag -d v1",
        "git tag -v v1",
        "git tag -f v1 HEAD",
        "git tag -s v1",
        "git stash",
        "git stash push",
        "git stash pop",
        "git grep -O x",
        "git grep -Ovim x",
        "git grep --open-files-in-pager=vim x",
        "git grep --open x",
        "git grep --ext-grep x",
        "git grep --textconv x",
        "git cat-file --textconv HEAD:x",
        "git cat-file --filters HEAD:x",
        "git cat-file --filt HEAD:x",
        "git remote show origin",
        "git remote add x y",
        "git remote set-url origin x",
        "git config user.name x",
        "git config --add a.b c",
        "git config --unset a.b",
        "git config -e",
        "git config --edit",
        "git config --get a.b --edit",
        "git config --replace-all a.b c",
        "git config set a.b c",
        "git config",
        "git branch new",
        "git branch -D x",
        "git branch -m a b",
        "git branch -r new",
        "git branch --set-upstream-to=x",
        "git branch -c a b",
        "git branch --edit-description",
        "git",
    ];
    for command in not_read_only {
        assert!(
            !analyze(command).read_only,
            "{command} should not be read-only"
        );
        assert!(
            !analyze_with(command, sandboxed).read_only,
            "{command} should not be read-only in the sandbox"
        );
    }
}

#[test]
fn bash5_deny_analysis_of_a_long_unknown_command_stays_bounded() {
    let project = rules(&[], &[], &["rm:*"]);
    let mut command = String::from("tool");
    while command.len() < 60 * 1024 {
        command.push_str(" 'a b' word");
    }
    // On its own thread, so an analysis that blows up is a failure after
    // a bound rather than a hang; the bound only reports it.
    let (done, answers) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let before = decide(&project, &command).behavior;
        command.push_str(" rm");
        let _ = done.send((before, decide(&project, &command).behavior));
    });
    let (before, after) = answers
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the analysis of a 60 KB command ends");
    assert_ne!(before, Behavior::Deny);
    assert_eq!(after, Behavior::Deny);
}

#[test]
fn bash5_deny_through_assignments_aliases_and_piped_scripts() {
    assert_denied(
        &deny_rm(),
        &[
            "GIT_PAGER='rm -rf x' git log",
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=rm git log",
            "env GIT_PAGER='rm x' git log",
            "env EDITOR=rm git commit",
            "make RM=rm clean",
            "shopt -s expand_aliases\nalias x='rm -rf'\nx y",
            "echo rm -rf x | sh",
            "printf 'rm x' | bash",
            "echo rm x | bash -s",
            "echo 'rm x' | xargs -I{} sh -c {}",
            "trap 'rm x' EXIT",
        ],
    );
    assert_not_denied(
        &deny_rm(),
        &["curl -s https://x.example | sh", "echo ok | sh"],
    );
}

#[test]
fn bash5_git_subcommand_options_that_run_programs_need_a_verbatim_allow() {
    let project = rules(
        &[
            "git push:*",
            "git fetch:*",
            "git clone:*",
            "git rebase:*",
            "git grep:*",
        ],
        &[],
        &[],
    );
    for command in [
        "git push --receive-pack='touch /tmp/pwned' ./x",
        "git push --receive='touch /tmp/pwned' ./x",
        "git push --exec=evil ./x",
        "git fetch --upload-pack=evil ./x",
        "git fetch --upl=evil ./x",
        "git clone -u evil ./x y",
        "git clone --template=/tmp/hooks ./x y",
        "git clone -c core.fsmonitor=evil ./x y",
        "git rebase -x 'make test' main",
        "git rebase --exec='rm -rf ~' main",
        "git grep -O evil needle",
        "git -C . push --receive-pack=evil ./x",
    ] {
        let d = decide(&project, command);
        assert_eq!(d.behavior, Behavior::Ask, "{command}: {d:?}");
    }
    assert_behavior(
        &project,
        &[
            "git push origin main",
            "git push -u origin main",
            "git push --force-with-lease origin main",
            "git fetch --all",
            "git clone ./x y",
            "git rebase -i main",
        ],
        Behavior::Allow,
        RuleId::ProjectAllow,
    );
}

#[test]
fn bash5_expanded_words_need_a_verbatim_allow() {
    // Under the sandbox the analysis accepts globs and `$VAR` as words; an
    // allow rule still never covers them, since they may become any option.
    let sandboxed = AnalyzeOptions { sandboxed: true };
    let project = rules(&["cargo test:*", "rm:*"], &[], &[]);
    for command in [
        "cargo test $X",
        "cargo test *",
        "rm *.txt",
        "rm \"$HOME\"/x",
    ] {
        let d = decide_with(&project, command, sandboxed);
        assert_eq!(d.behavior, Behavior::Ask, "{command}: {d:?}");
    }
    let verbatim = rules(&["cargo test *"], &[], &[]);
    let d = decide_with(&verbatim, "cargo test *", sandboxed);
    assert_eq!(d.behavior, Behavior::Allow, "{d:?}");
    let d = decide_with(&project, "cargo test --release", sandboxed);
    assert_eq!(d.behavior, Behavior::Allow, "{d:?}");
    // A deny still sees the program.
    let deny = rules(&["Bash"], &[], &["rm:*"]);
    let d = decide_with(&deny, "rm *.txt", sandboxed);
    assert_eq!(d.behavior, Behavior::Deny, "{d:?}");
}
