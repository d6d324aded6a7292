//! `zcode permission check|list|add|remove` (CLI-5, CLI-6, PERM-14, GRANT-4).

use super::args::{PermissionCommand, RuleKindArg};
use super::environment::{Environment, Project, ToolLists};
use super::stdout::outln;
use crate::config::PermissionConfig;
use crate::config::project_id::legacy_project_id;
use crate::permission::check::Behavior;
use crate::permission::mode::{ExecutionState, ModeChoice, StartingModeSources, starting_state};
use crate::permission::rule_source::RuleSource;
use crate::permission::rules::{Rule, RuleKind, RuleSet};
use crate::permission::service::PermissionService;
use crate::project_settings::{ListedRule, ProjectRules, SettingsFile, TRUST_COMMAND, trust};
use anyhow::Context;
use serde_json::{Value, json};
use std::process::ExitCode;

impl From<RuleKindArg> for RuleKind {
    fn from(k: RuleKindArg) -> Self {
        match k {
            RuleKindArg::Allow => RuleKind::Allow,
            RuleKindArg::Ask => RuleKind::Ask,
            RuleKindArg::Deny => RuleKind::Deny,
        }
    }
}

pub fn run(
    cmd: PermissionCommand,
    mode: Option<ModeChoice>,
    lists: &ToolLists,
) -> anyhow::Result<ExitCode> {
    let env = Environment::load()?;
    match cmd {
        PermissionCommand::Check {
            tool,
            input,
            plan,
            cwd,
        } => {
            let project = Project::resolve(cwd.cwd.as_deref())?;
            check(&env, &project, &tool, &input, mode, plan, lists)
        }
        PermissionCommand::List { json, cwd } => {
            let project = Project::resolve(cwd.cwd.as_deref())?;
            list(&env, &project, json, lists)
        }
        PermissionCommand::Trust { cwd } => {
            let project = Project::resolve(cwd.cwd.as_deref())?;
            trust(&env, &project)
        }
        PermissionCommand::Untrust { cwd } => {
            let project = Project::resolve(cwd.cwd.as_deref())?;
            untrust(&env, &project)
        }
        PermissionCommand::Add {
            kind,
            tool,
            content,
            cwd,
        } => {
            let project = Project::resolve(cwd.cwd.as_deref())?;
            let rule = make_rule(tool, content)?;
            let mut store = env.open_store_in(Some(&project.workspace))?;
            let added =
                store.add_project_rules(&project.id, kind.into(), std::slice::from_ref(&rule))?;
            let kind = RuleKind::from(kind).as_str();
            if added == 0 {
                outln!(
                    "{kind} {rule} was already saved for {}",
                    project.root.display()
                );
            } else {
                outln!("saved {kind} {rule} for {}", project.root.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        PermissionCommand::Remove {
            kind,
            tool,
            content,
            cwd,
        } => {
            let project = Project::resolve(cwd.cwd.as_deref())?;
            let rule = make_rule(tool, content)?;
            let mut store = env.open_store_in(Some(&project.workspace))?;
            let kind_name = RuleKind::from(kind).as_str();
            if store.remove_project_rule(&project.id, kind.into(), &rule)? {
                outln!("removed {kind_name} {rule} from {}", project.root.display());
                Ok(ExitCode::SUCCESS)
            } else {
                anyhow::bail!(
                    "no saved {kind_name} rule {rule} for {} (see `zcode permission list`)",
                    project.root.display()
                )
            }
        }
    }
}

/// The rule of `zcode permission add|remove`: `Bash(make:*)` in one
/// argument, or the tool and its content apart (`Bash 'make:*'`), read by
/// the one parser of `/permissions`, the tool lists and the settings files.
pub fn make_rule(tool: String, content: Option<String>) -> anyhow::Result<Rule> {
    let text = match content {
        Some(c) if !c.trim().is_empty() => {
            let tool = tool.trim();
            if tool.contains(['(', ')']) {
                anyhow::bail!(
                    "'{tool}' already holds content: give Tool(content) alone, or the name and the content apart, e.g. Bash 'git status:*'"
                );
            }
            format!("{tool}({})", c.trim())
        }
        _ => tool,
    };
    Rule::parse(&text).map_err(anyhow::Error::from)
}

fn check(
    env: &Environment,
    project: &Project,
    tool: &str,
    input: &str,
    mode: Option<ModeChoice>,
    plan: bool,
    lists: &ToolLists,
) -> anyhow::Result<ExitCode> {
    let input: Value = serde_json::from_str(input).context("--input is not valid JSON")?;
    if !input.is_object() {
        anyhow::bail!("--input must be a JSON object, e.g. '{{\"command\":\"git status\"}}'");
    }
    let store = env.open_store_in(Some(&project.workspace))?;
    let project_rules = ProjectRules::load(&store, &project.id, &project.root)?.applied();
    // The same starting state an interactive session here would get (EXEC-6).
    let mut state: ExecutionState = starting_state(StartingModeSources {
        explicit: mode,
        project_last_selected: store.project_last_mode(&project.id)?,
        config_mode: env.config.permission_mode(),
        ..Default::default()
    });
    if plan {
        state.plan_enabled = true;
    }
    let settings = env.permission_settings(lists);
    let memory_dir = project.memory_dir(&env.home);
    let service = PermissionService::new(settings, &project.workspace, Some(&memory_dir))
        .with_zcode_home(&env.home);
    let declaration = crate::tools::registry::declaration_for(tool);
    let eval = service.evaluate(&declaration, &input, state, &project_rules, None);

    let mut out = json!({
        "behavior": eval.decision.behavior,
        "ruleId": eval.decision.rule_id,
        "reason": eval.decision.reason,
        "mode": state.mode,
        "planEnabled": state.plan_enabled,
    });
    if let Some(bash) = &eval.bash {
        out["safeParse"] = json!(bash.safe_parse);
        out["subcommands"] = json!(
            bash.subcommands
                .iter()
                .map(|s| json!({"text": s.text, "readOnly": s.read_only}))
                .collect::<Vec<_>>()
        );
        out["readOnly"] = json!(bash.read_only);
        // How the command would run once allowed (or approved).
        out["sandbox"] = json!(eval.sandbox.map_or("none", |k| k.as_str()));
        if let Some(notice) = service.read_only_sandbox().notice() {
            out["sandboxNotice"] = json!(notice);
            eprintln!("zcode: {notice}");
        }
    }
    if eval.decision.behavior == Behavior::Ask || eval.bash.is_some() {
        out["suggestions"] = serde_json::to_value(&eval.suggestions)?;
    }
    outln!("{}", serde_json::to_string_pretty(&out)?);
    Ok(ExitCode::SUCCESS)
}

fn list(
    env: &Environment,
    project: &Project,
    as_json: bool,
    lists: &ToolLists,
) -> anyhow::Result<ExitCode> {
    let store = env.open_store_in(Some(&project.workspace))?;
    let loaded = ProjectRules::load(&store, &project.id, &project.root)?;
    let mut listed = loaded.listed();
    listed.extend(entries(RuleSource::UserConfig, &env.config.permission));
    listed.extend(tool_list_entries(lists));
    // GRANT-3: rules still under the id earlier versions used, which this
    // directory may have shared with others; they are not applied.
    let legacy = store
        .legacy_project_rules(&project.workspace)
        .unwrap_or_default();
    let legacy_id = legacy_project_id(&project.workspace);
    let shared_with = store
        .project_id_carry_over(&project.workspace)
        .ok()
        .flatten()
        .map(|r| r.workspaces)
        .unwrap_or_default();
    if as_json {
        let mut out = json!({
            "workspace": project.workspace,
            "projectId": project.id,
            "rules": loaded.saved,
            "sources": listed.iter().map(|l| json!({
                "kind": l.kind,
                "rule": l.rule.to_string(),
                "source": l.source,
                "applied": l.applied,
            })).collect::<Vec<_>>(),
        });
        if !legacy.is_empty() {
            out["notApplied"] = json!({
                "legacyProjectId": legacy_id,
                "sharedBy": shared_with,
                "rules": legacy,
            });
        }
        outln!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    if listed.is_empty() {
        outln!("No saved rules for {}.", project.workspace.display());
    } else {
        outln!(
            "Rules for {} (project {}):",
            project.workspace.display(),
            project.id
        );
        for l in &listed {
            let content = l.rule.rule_content.as_deref().unwrap_or("(whole tool)");
            let note = if l.applied {
                ""
            } else {
                "  (not trusted: not applied)"
            };
            outln!(
                "  {:<5}  {:<12}  {:<20}  {}{note}",
                l.kind.as_str(),
                l.rule.tool_name,
                content,
                l.source.label(),
            );
        }
    }
    if let Some(notice) = loaded.untrusted_notice(TRUST_COMMAND) {
        outln!("{notice}");
    }
    if !legacy.is_empty() {
        let shared = if shared_with.is_empty() {
            "every directory whose path folds to it".to_string()
        } else {
            shared_with.join(", ")
        };
        outln!(
            "Not applied: rules saved by an earlier version under the id {legacy_id}, \
             which was shared by {shared}. Re-add the ones you want with `zcode permission add`:"
        );
        print_rules(&legacy);
    }
    Ok(ExitCode::SUCCESS)
}

/// The user config's `allowedTools` / `disallowedTools`, as rules.
fn entries(source: RuleSource, config: &PermissionConfig) -> Vec<ListedRule> {
    listed_entries(source, &config.allowed_tools, &config.disallowed_tools)
}

/// `--allowedTools` / `--disallowedTools`, as rules.
fn tool_list_entries(lists: &ToolLists) -> Vec<ListedRule> {
    listed_entries(RuleSource::Flag, &lists.allowed, &lists.disallowed)
}

fn listed_entries(
    source: RuleSource,
    allowed: &[String],
    disallowed: &[String],
) -> Vec<ListedRule> {
    let mut out = Vec::new();
    for (kind, list) in [(RuleKind::Allow, allowed), (RuleKind::Deny, disallowed)] {
        // Both were read as rules when the config or the command line was.
        out.extend(
            list.iter()
                .filter_map(|e| Rule::parse(e).ok())
                .map(|rule| ListedRule {
                    kind,
                    rule,
                    source,
                    applied: true,
                }),
        );
    }
    out
}

/// `zcode permission trust`: trusts each settings file as it is now and
/// shows the allow rules that now apply.
fn trust(env: &Environment, project: &Project) -> anyhow::Result<ExitCode> {
    let mut store = env.open_store_in(Some(&project.workspace))?;
    let loaded = ProjectRules::load(&store, &project.id, &project.root)?;
    if loaded.files.is_empty() {
        outln!(
            "{} has no .zcode/settings.json, .claude/settings.json or .claude/settings.local.json: nothing to trust.",
            project.workspace.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    for f in &loaded.files {
        trust::trust(&mut store, &project.id, f.file, &f.digest)?;
        outln!(
            "Trusted {} as it is now; a change to it needs trust again. Its allow rules:",
            f.file.relative_path()
        );
        if f.rules.allow.is_empty() {
            outln!("  (none)");
        }
        for rule in &f.rules.allow {
            outln!("  allow  {rule}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn untrust(env: &Environment, project: &Project) -> anyhow::Result<ExitCode> {
    let mut store = env.open_store_in(Some(&project.workspace))?;
    let mut any = false;
    for file in SettingsFile::ALL {
        any |= trust::untrust(&mut store, &project.id, file)?;
    }
    if any {
        outln!(
            "The settings files of {} are no longer trusted: their allow rules are ignored.",
            project.workspace.display()
        );
    } else {
        outln!(
            "No settings file of {} was trusted.",
            project.workspace.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn print_rules(rules: &RuleSet) {
    for kind in RuleKind::ALL {
        for rule in rules.rules(kind) {
            let content = rule.rule_content.as_deref().unwrap_or("(whole tool)");
            outln!(
                "  {:<5}  {:<12}  {}",
                kind.as_str(),
                rule.tool_name,
                content
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::tool_list_args::extract_tool_lists;
    use crate::project_settings::file::parse;
    use std::path::Path;

    /// Each way a rule is written, as the user writes it there: `zcode
    /// permission add`, `/permissions allow`, `--allowedTools` and a
    /// settings file's `permissions.allow`.
    fn read_everywhere(text: &str) -> [Result<Rule, String>; 4] {
        let cli = make_rule(text.to_string(), None).map_err(|e| e.to_string());
        let tui =
            crate::tui::update::slash::rule_to_add(&format!("allow {text}")).map(|(_, rule)| rule);
        let flag = extract_tool_lists(&["--allowedTools".to_string(), text.to_string()])
            .map_err(|e| e.to_string())
            .and_then(|lists| match lists.allowed.as_slice() {
                [one] => Rule::parse(one).map_err(|e| e.to_string()),
                other => Err(format!("{} entries", other.len())),
            });
        let json = serde_json::json!({"permissions": {"allow": [text]}}).to_string();
        let file = parse(SettingsFile::Zcode, json.as_bytes(), Path::new("/ws"))
            .map(|set| set.allow[0].clone());
        [cli, tui, flag, file]
    }

    #[test]
    fn one_rule_syntax_cli_tui_flags_and_files_accept_the_same_strings() {
        for good in [
            "Bash(make:*)",
            "Bash(npm run test:*)",
            "Read(./.env)",
            "WebFetch(domain:docs.rs)",
            "WebFetch",
            "mcp__github",
            "mcp__github__create_issue",
            "Edit(src/*.rs)",
        ] {
            let want = Rule::parse(good).expect(good);
            for (i, got) in read_everywhere(good).into_iter().enumerate() {
                assert_eq!(got.as_ref(), Ok(&want), "{good} at reader {i}");
            }
        }
        for bad in [
            "bash(make:*)",
            "Bash(make",
            "Bash()",
            "Bash*",
            "Bash(npm:* test)",
            "mcp__(x)",
            "(x)",
        ] {
            for (i, got) in read_everywhere(bad).into_iter().enumerate() {
                let e = got.expect_err(&format!("{bad} at reader {i}"));
                assert!(e.contains("is not a rule") || e.contains(bad), "{bad}: {e}");
            }
        }
        // The tool and its content apart read as the same rule.
        assert_eq!(
            make_rule("Bash".into(), Some("make:*".into())).unwrap(),
            Rule::with_content("Bash", "make:*")
        );
        assert!(make_rule("bash".into(), Some("make:*".into())).is_err());
        assert!(make_rule("Bash(x)".into(), Some("make:*".into())).is_err());
    }
}
