//! `zcode permission check|list|add|remove` (CLI-5, CLI-6, PERM-14, GRANT-4).

use super::args::{PermissionCommand, RuleKindArg};
use super::environment::{Environment, Project, ToolLists};
use super::stdout::outln;
use crate::config::project_id::legacy_project_id;
use crate::permission::check::Behavior;
use crate::permission::mode::{ExecutionState, ModeChoice, StartingModeSources, starting_state};
use crate::permission::rules::{Rule, RuleKind, RuleSet};
use crate::permission::service::PermissionService;
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
            list(&env, &project, json)
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

fn make_rule(tool: String, content: Option<String>) -> anyhow::Result<Rule> {
    let tool = tool.trim().to_string();
    // `Bash(make:*)` in one argument, as `/permissions` and the tool lists
    // take it.
    if content.is_none() && tool.contains('(') {
        return Rule::parse(&tool).map_err(anyhow::Error::from);
    }
    if tool.is_empty() || tool.contains(['(', ')']) {
        anyhow::bail!(
            "invalid tool name '{tool}': give the name and the content separately, e.g. Bash 'git status:*'"
        );
    }
    Ok(match content {
        Some(c) if !c.is_empty() => Rule::with_content(tool, c),
        _ => Rule::tool(tool),
    })
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
    let project_rules = store.project_rules(&project.id)?;
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

fn list(env: &Environment, project: &Project, as_json: bool) -> anyhow::Result<ExitCode> {
    let store = env.open_store_in(Some(&project.workspace))?;
    let rules = store.project_rules(&project.id)?;
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
            "rules": rules,
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
    if rules.is_empty() {
        outln!("No saved rules for {}.", project.workspace.display());
    } else {
        outln!(
            "Saved rules for {} (project {}):",
            project.workspace.display(),
            project.id
        );
        print_rules(&rules);
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
