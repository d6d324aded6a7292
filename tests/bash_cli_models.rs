//! BASH-5 against common command-line programs: a deny or ask rule holds
//! through each program's own aliases (`cargo t`, `npm rum`, `helm un`),
//! implicit subcommands (`yarn build`), global options
//! (`kubectl -n x delete`, `aws --profile p s3 rm`), other spellings of a
//! flag set (`rm -fr` for `rm -rf`), programs that run commands from an
//! option (`vim -c '!rm x'`), globbed program paths (`/usr/bin/r?`) and
//! parameter defaults (`${RM:-rm}`); an allow rule never covers an option
//! that chooses the program or configuration that runs
//! (`cargo test --config build.rustc-wrapper=…`, `make test SHELL=…`).
//! Each row is (rules, command, expected decision), decided through the real
//! permission check.

mod support;

use support::bash_rules::decide;
use zcode::permission::bash::{analyze, suggest_rules};
use zcode::permission::check::{Behavior, RuleId};
use zcode::permission::rules::{Rule, RuleSet};

/// Rules written as `allow X`, `ask X`, `deny X`, separated by `;`.
fn rules(spec: &str) -> RuleSet {
    let mut set = RuleSet::default();
    for part in spec.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (kind, content) = part.split_once(' ').expect("kind and content");
        let rule = Rule::with_content("Bash", content);
        match kind {
            "allow" => set.allow.push(rule),
            "ask" => set.ask.push(rule),
            "deny" => set.deny.push(rule),
            other => panic!("unknown kind {other}"),
        }
    }
    set
}

/// What a row expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    /// Denied by the project deny rule.
    Deny,
    /// Asked because of the project ask rule.
    AskRule,
    /// Not allowed by any rule: a question (whatever its reason).
    Asked,
    /// Allowed by the project allow rule.
    Allow,
}

fn check_table(table: &[(&str, &str, Want)]) {
    let mut failures = Vec::new();
    for (spec, command, want) in table {
        let d = decide(&rules(spec), command);
        let ok = match want {
            Want::Deny => (d.behavior, d.rule_id) == (Behavior::Deny, RuleId::ProjectDeny),
            Want::AskRule => (d.behavior, d.rule_id) == (Behavior::Ask, RuleId::ProjectAsk),
            Want::Asked => d.behavior == Behavior::Ask,
            Want::Allow => (d.behavior, d.rule_id) == (Behavior::Allow, RuleId::ProjectAllow),
        };
        if !ok {
            failures.push(format!(
                "[{spec}] {command}: want {want:?}, got {:?} {}",
                d.behavior, d.rule_id
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

use Want::*;

#[test]
fn deny_rule_catches_each_clis_own_aliases() {
    check_table(&[
        ("deny cargo test:*", "cargo t", Deny),
        ("deny cargo test:*", "cargo t --release", Deny),
        ("deny cargo build:*", "cargo b", Deny),
        ("deny cargo run:*", "cargo r", Deny),
        ("deny cargo check:*", "cargo c", Deny),
        ("deny cargo remove:*", "cargo rm serde", Deny),
        ("deny npm run:*", "npm run-script build", Deny),
        ("deny npm run build:*", "npm rum build", Deny),
        ("deny npm run build:*", "npm urn build", Deny),
        ("deny npm install:*", "npm i lodash", Deny),
        ("deny npm install:*", "npm add lodash", Deny),
        ("deny npm install:*", "npm isntall lodash", Deny),
        ("deny npm install:*", "npm in lodash", Deny),
        ("deny npm uninstall:*", "npm rm lodash", Deny),
        ("deny npm test:*", "npm t", Deny),
        ("deny npm publish:*", "npm pub", Deny),
        ("deny pnpm install:*", "pnpm i", Deny),
        ("deny pnpm remove:*", "pnpm rm x", Deny),
        ("deny helm uninstall:*", "helm un release", Deny),
        ("deny helm uninstall:*", "helm del release", Deny),
        ("deny helm uninstall:*", "helm delete release", Deny),
        ("deny helm delete:*", "helm uninstall release", Deny),
        ("deny docker rm:*", "docker container rm x", Deny),
        ("deny docker rm:*", "docker container remove x", Deny),
        ("deny docker container rm:*", "docker rm x", Deny),
        ("deny docker rmi:*", "docker image rm x", Deny),
        ("deny docker run:*", "docker container run alpine", Deny),
        ("deny podman rm:*", "podman container rm x", Deny),
        ("deny kubectl delete:*", "kubectl -n x delete pod p", Deny),
        ("deny pytest:*", "python -m pytest tests", Deny),
        ("deny pytest:*", "python3 -m pytest", Deny),
        ("deny pip install:*", "python3 -m pip install x", Deny),
        ("deny pip install:*", "pip3 install x", Deny),
    ]);
}

#[test]
fn deny_rule_catches_implicit_run_of_yarn_and_pnpm() {
    check_table(&[
        ("deny yarn run build:*", "yarn build", Deny),
        ("deny yarn run deploy:*", "yarn deploy --prod", Deny),
        ("deny pnpm run deploy:*", "pnpm deploy-x", Asked),
        ("deny pnpm run deploy:*", "pnpm deploy", Asked),
        ("deny pnpm run release:*", "pnpm release", Deny),
        ("deny yarn build:*", "yarn run build", Deny),
        ("deny npm run build:*", "npm run-script build", Deny),
    ]);
}

#[test]
fn deny_and_ask_rules_see_past_global_options() {
    check_table(&[
        (
            "allow kubectl:*; ask kubectl delete:*",
            "kubectl -n x delete pod p",
            AskRule,
        ),
        (
            "allow kubectl:*; ask kubectl delete:*",
            "kubectl --namespace=x delete pod p",
            AskRule,
        ),
        (
            "allow kubectl:*; ask kubectl delete:*",
            "kubectl --context prod -n x delete pod p",
            AskRule,
        ),
        (
            "allow kubectl:*; ask kubectl delete:*",
            "kubectl -v 9 delete pod p",
            AskRule,
        ),
        (
            "allow kubectl:*; ask kubectl delete:*",
            "kubectl get pods -n x",
            Allow,
        ),
        ("deny docker rm:*", "docker --context c rm x", Deny),
        ("deny docker rm:*", "docker -H tcp://h:2375 rm x", Deny),
        (
            "deny docker rm:*",
            "docker --log-level debug container rm x",
            Deny,
        ),
        (
            "deny terraform destroy:*",
            "terraform -chdir=infra destroy",
            Deny,
        ),
        (
            "deny terraform destroy:*",
            "terraform -chdir infra destroy -auto-approve",
            Deny,
        ),
        ("deny helm uninstall:*", "helm -n web un release", Deny),
        (
            "deny helm uninstall:*",
            "helm --kube-context prod uninstall release",
            Deny,
        ),
        ("deny aws s3 rm:*", "aws --profile p s3 rm s3://b/k", Deny),
        (
            "deny aws s3 rm:*",
            "aws --region eu-west-1 --profile p s3 rm s3://b/k",
            Deny,
        ),
        ("deny aws s3 rm:*", "aws s3 --profile p rm s3://b/k", Deny),
        (
            "deny gcloud compute instances delete:*",
            "gcloud --project p compute instances delete vm",
            Deny,
        ),
        ("deny cargo test:*", "cargo +nightly test", Deny),
        ("deny cargo test:*", "cargo +nightly -q test", Deny),
        (
            "deny gcloud compute instances delete:*",
            "gcloud --project p beta compute instances delete vm",
            Deny,
        ),
        ("deny cargo test:*", "cargo -q --locked test", Deny),
        ("deny cargo test:*", "cargo --config x.y=1 t", Deny),
        (
            "deny cargo publish:*",
            "cargo --config 'alias.z=\"publish\"' z",
            Deny,
        ),
        ("deny cargo publish:*", "cargo --config evil.toml z", Deny),
        (
            "deny cargo publish:*",
            "cargo --config evil.toml test",
            Asked,
        ),
        ("deny cargo publish:*", "cargo -C sub publish", Deny),
        ("deny go test:*", "go -C sub test ./...", Deny),
        ("deny make install:*", "make -j4 -C sub install", Deny),
        ("deny make install:*", "make -f other.mk install", Deny),
        ("deny pip install:*", "pip --isolated install x", Deny),
        ("deny pip install:*", "pip -q install x", Deny),
        ("deny gh repo delete:*", "gh --repo o/r repo delete", Deny),
        ("deny npm publish:*", "npm --registry=x publish", Deny),
        ("deny yarn run deploy:*", "yarn --silent deploy", Deny),
        ("deny pytest:*", "python -B -m pytest", Deny),
        ("deny ssh:*", "scp -S ssh x h:y", Deny),
    ]);
}

#[test]
fn deny_rule_matches_flags_as_a_set() {
    let deny = "deny rm -rf:*";
    check_table(&[
        (deny, "rm -rf x", Deny),
        (deny, "rm -fr x", Deny),
        (deny, "rm -r -f x", Deny),
        (deny, "rm -f -r x", Deny),
        (deny, "rm --recursive --force x", Deny),
        (deny, "rm --force --recursive x", Deny),
        (deny, "rm -Rf x", Deny),
        (deny, "rm -fR x", Deny),
        (deny, "rm -rfv x", Deny),
        (deny, "rm -v -r -f x", Deny),
        (deny, "rm x -rf", Deny),
        (deny, "rm -r x -f", Deny),
        (deny, "rm --rec --forc x", Deny),
        (deny, "sudo rm -fr x", Deny),
        (deny, "bash -c 'rm -r -f x'", Deny),
        (deny, "rm -r x", Asked),
        (deny, "rm -f x", Asked),
        (deny, "rm -- -rf", Asked),
        ("deny rm -rf /:*", "rm -fr /", Deny),
        ("deny rm -rf /:*", "rm -r -f /", Deny),
        ("deny git push --force:*", "git push -f origin main", Deny),
        (
            "deny git push --force:*",
            "git push origin main --force",
            Deny,
        ),
        ("deny git push --force:*", "git -C . push --force", Deny),
        ("deny git push --force:*", "git push origin main", Asked),
        ("deny git push --force:*", "git push origin +main", Deny),
        (
            "deny git push --force:*",
            "git push --force-with-lease",
            Deny,
        ),
        ("deny cp -r:*", "cp -R a b", Deny),
        ("deny cp -r:*", "cp --recursive a b", Deny),
        ("deny mv -f:*", "mv --force a b", Deny),
        ("deny git clean -fd:*", "git clean -df", Deny),
        ("deny git clean -fd:*", "git clean -d -f", Deny),
        ("deny git reset --hard:*", "git reset HEAD~1 --hard", Deny),
        (
            "deny kubectl delete --all:*",
            "kubectl -n x delete pods --all",
            Deny,
        ),
        (
            "allow kubectl:*; ask kubectl delete --all:*",
            "kubectl delete pods x",
            Allow,
        ),
    ]);
}

#[test]
fn deny_rule_catches_commands_run_from_an_option() {
    let deny = "deny rm:*";
    check_table(&[
        (deny, "vim -c '!rm x'", Deny),
        (deny, "vim -c ':!rm -rf x' file", Deny),
        (deny, "vim -c 'silent !rm x'", Deny),
        (deny, "vim '+!rm x' file", Deny),
        (deny, "vim +'!rm x'", Deny),
        (deny, "vim --cmd '!rm x' file", Deny),
        (deny, "vim -c 'call system(\"rm x\")'", Deny),
        (deny, "nvim -c '!rm x'", Deny),
        (deny, "vi -c '!rm x'", Deny),
        (deny, "view -c '!rm x'", Deny),
        (deny, "ex -c '!rm x'", Deny),
        (deny, "less '+!rm x' file", Deny),
        (deny, "less +'!rm x' file", Deny),
        (deny, "more '+!rm x' file", Deny),
        (deny, "man -P 'rm x' ls", Deny),
        (deny, "man --pager='rm x' ls", Deny),
        (deny, "vim -c 'e x'", Asked),
        (deny, "less +G file", Asked),
    ]);
}

#[test]
fn deny_rule_catches_globbed_program_paths_and_parameter_defaults() {
    let deny = "deny rm:*";
    check_table(&[
        (deny, "/usr/bin/r? -rf x", Deny),
        (deny, "/bin/[r]m x", Deny),
        (deny, "/bin/r* x", Deny),
        (deny, "/bin/?m x", Deny),
        (deny, "r[m] x", Deny),
        (deny, "${RM:-rm} -rf x", Deny),
        (deny, "${RM-rm} x", Deny),
        (deny, "${X:=rm} x", Deny),
        (deny, "${X=rm} x", Deny),
        (deny, "${X:-/bin/rm} x", Deny),
        (deny, "${X:+rm} x", Deny),
        (deny, "${X:-r}m x", Deny),
        (deny, "\"${RM:-rm}\" -rf x", Deny),
        (deny, "sudo /bin/r? x", Deny),
        (deny, "ls; ${RM:-rm} x", Deny),
        (deny, "/usr/bin/l? x", Asked),
        (deny, "${X:-ls} x", Asked),
        ("deny rm -rf:*", "/bin/r? -fr x", Deny),
    ]);
}

#[test]
fn allow_rule_never_covers_options_that_choose_the_program() {
    check_table(&[
        ("allow cargo test:*", "cargo test --release", Allow),
        (
            "allow cargo test:*",
            "cargo test -p core -- --nocapture",
            Allow,
        ),
        ("allow cargo test:*", "cargo test -- --config x", Allow),
        (
            "allow cargo test:*",
            "cargo test --config build.rustc-wrapper=/bin/sh",
            Asked,
        ),
        (
            "allow cargo test:*",
            "cargo test --config=build.rustc-wrapper=/bin/sh",
            Asked,
        ),
        ("allow cargo test:*", "cargo test --config evil.toml", Asked),
        ("allow cargo test:*", "cargo test -Zunstable-options", Asked),
        ("allow cargo test:*", "cargo test -Z script", Asked),
        ("allow cargo:*", "cargo +evil test", Asked),
        ("allow cargo:*", "cargo --config x=y test", Asked),
        ("allow cargo:*", "cargo -C /tmp/x test", Asked),
        ("allow make test:*", "make test", Allow),
        ("allow make test:*", "make test -j4 -k", Allow),
        ("allow make test:*", "make test SHELL=/bin/sh", Asked),
        ("allow make test:*", "make test CC=./evil", Asked),
        ("allow make test:*", "make test --eval='x:;rm -rf y'", Asked),
        ("allow make test:*", "make test -E 'x:'", Asked),
        ("allow make test:*", "make test -f evil.mk", Asked),
        ("allow make test:*", "make test -fevil.mk", Asked),
        ("allow make test:*", "make test -sf evil.mk", Asked),
        ("allow make test:*", "make test --file=evil.mk", Asked),
        ("allow make test:*", "make test --makefile evil.mk", Asked),
        ("allow make test:*", "make test --mak evil.mk", Asked),
        ("allow make test:*", "make test -C /tmp/x", Asked),
        ("allow make test:*", "make test -I inc", Asked),
        ("allow make test:*", "make test MAKEFLAGS=-f", Asked),
        ("allow make test:*", "make test --ev='x:'", Asked),
        ("allow vim:*", "vim -c '!sh'", Asked),
        ("allow vim:*", "vim '+!sh'", Asked),
        ("allow less:*", "less '+!sh' f", Asked),
        ("allow man:*", "man -P sh ls", Asked),
        ("allow podman:*", "podman --runtime ./evil ps", Asked),
        (
            "allow pip install:*",
            "pip install --python ./evil x",
            Asked,
        ),
        ("allow go test:*", "go test ./...", Allow),
        ("allow go test:*", "go test -race -run TestX ./...", Allow),
        ("allow go test:*", "go test -exec /bin/sh ./...", Asked),
        ("allow go test:*", "go test -exec=/bin/sh ./...", Asked),
        ("allow go test:*", "go test --exec /bin/sh ./...", Asked),
        ("allow go test:*", "go test -toolexec x ./...", Asked),
        ("allow go test:*", "go test -overlay o.json ./...", Asked),
        ("allow go test:*", "go test -modfile x.mod ./...", Asked),
        ("allow pytest:*", "pytest -x tests", Allow),
        ("allow pytest:*", "pytest -k name -q", Allow),
        ("allow pytest:*", "pytest -p evil", Asked),
        ("allow pytest:*", "pytest -pevil", Asked),
        ("allow pytest:*", "pytest -xp evil", Asked),
        ("allow pytest:*", "pytest -c other.ini", Asked),
        ("allow pytest:*", "pytest --rootdir=/tmp/x", Asked),
        ("allow pytest:*", "pytest -o addopts=-pevil", Asked),
        (
            "allow pytest:*",
            "pytest --override-ini=python_files=*.txt",
            Asked,
        ),
        ("allow pytest:*", "pytest --pdbcls=evil:Debugger", Asked),
        ("allow pytest:*", "pytest --confcutdir=/", Asked),
        ("allow pytest:*", "pytest @args.txt", Asked),
        ("allow pytest:*", "pytest --root=/tmp/x", Asked),
        (
            "allow python -m pytest:*",
            "python -m pytest -p evil",
            Asked,
        ),
        ("allow ssh build-box:*", "ssh build-box uptime", Allow),
        (
            "allow ssh build-box:*",
            "ssh build-box -oProxyCommand='sh -c x'",
            Asked,
        ),
        (
            "allow ssh build-box:*",
            "ssh build-box -o ProxyCommand=x",
            Asked,
        ),
        (
            "allow ssh build-box:*",
            "ssh build-box -F evil_config",
            Asked,
        ),
        ("allow ssh build-box:*", "ssh build-box -I evil.so", Asked),
        (
            "allow ssh:*",
            "ssh -oLocalCommand=x -oPermitLocalCommand=yes h",
            Asked,
        ),
        ("allow scp:*", "scp -S ./evil a h:b", Asked),
        ("allow kubectl get:*", "kubectl get pods -n x", Allow),
        (
            "allow kubectl get:*",
            "kubectl get pods --kubeconfig /tmp/evil",
            Asked,
        ),
        (
            "allow kubectl get:*",
            "kubectl get pods --kubeconfig=/tmp/evil",
            Asked,
        ),
        (
            "allow kubectl:*",
            "kubectl --kubeconfig /tmp/evil get pods",
            Asked,
        ),
        ("allow docker:*", "docker ps", Allow),
        ("allow docker:*", "docker -H ssh://evil ps", Asked),
        ("allow docker:*", "docker --host=ssh://evil ps", Asked),
        ("allow docker:*", "docker --config /tmp/x ps", Asked),
        ("allow docker:*", "docker --context evil ps", Asked),
        (
            "allow helm:*",
            "helm install x ./chart --post-renderer ./evil",
            Asked,
        ),
        ("allow helm:*", "helm --kubeconfig /tmp/x list", Asked),
        ("allow terraform plan:*", "terraform plan -out x", Allow),
        ("allow npm test:*", "npm test --script-shell=/bin/sh", Asked),
        ("allow git:*", "git -c core.pager=x log", Asked),
    ]);
}

#[test]
fn deny_rules_keep_holding_for_plain_commands() {
    check_table(&[
        ("deny cargo test:*", "cargo build", Asked),
        ("deny cargo test:*", "cargo tree", Asked),
        ("deny npm install:*", "npm run install-deps", Asked),
        ("deny helm uninstall:*", "helm list", Asked),
        ("deny docker rm:*", "docker ps", Asked),
        ("deny kubectl delete:*", "kubectl get pods -n delete", Asked),
        ("deny yarn run build:*", "yarn install", Asked),
    ]);
}

#[test]
fn always_allow_never_offers_a_prefix_for_commands_that_run_anything() {
    for command in [
        "go run main.go",
        "go run ./cmd/x",
        "go install example.com/x@latest",
        "go get example.com/x",
        "npm install lodash",
        "npm i lodash",
        "pnpm add lodash",
        "pnpm install",
        "yarn add lodash",
        "bun install",
        "pip install requests",
        "pip3 install requests",
        "python -m pip install requests",
        "uv pip install requests",
        "cargo install ripgrep",
        "gem install rails",
        "git push origin main",
        "git push",
        "gh api repos/o/r",
        "gh api -X DELETE repos/o/r",
        "docker run alpine",
        "docker exec -it c sh",
        "docker container run alpine",
        "podman run alpine",
        "kubectl exec -it p -- sh",
        "kubectl run x --image=y",
        "cargo test --config build.rustc-wrapper=/bin/sh",
        "make test SHELL=/bin/sh",
    ] {
        let analysis = analyze(command);
        assert_eq!(suggest_rules(&analysis), [command], "{command}");
    }
    // Everyday commands keep their prefix.
    for (command, rule) in [
        ("cargo test --release", "cargo test:*"),
        ("npm run build", "npm run build:*"),
        ("docker build -t x .", "docker build:*"),
        ("go test ./...", "go test:*"),
        ("git commit -m x", "git commit:*"),
    ] {
        assert_eq!(suggest_rules(&analyze(command)), [rule], "{command}");
    }
}
