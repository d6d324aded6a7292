//! Skill: loads one skill's instructions (the Agent Skills format,
//! `extensions::skills`). Only the skills' names and descriptions are in
//! what the model reads up front, in this tool's description; a call
//! returns the instructions and the skill's folder, whose files the model
//! then reads with the usual tools and permissions. Read-only (PERM-8):
//! never asked, allowed in plan mode.

use super::input::{Fields, non_empty, normalized};
use super::{Tool, ToolContext, ToolOutput};
use crate::extensions::skills::Skill;
use crate::permission::capability::Capability;
use crate::permission::declaration::{RuleSubject, ToolDeclaration};
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub const NAME: &str = "Skill";

/// PERM-8: loading a skill's instructions is read-only; the files they
/// name are read with the usual tools and permissions.
pub(crate) static DECLARATION: ToolDeclaration =
    ToolDeclaration::builtin(NAME, Capability::read_only_low("skill"))
        .with_subject(RuleSubject::Nothing)
        .with_wording(
            "load a skill",
            crate::permission::declaration::AskReason::Effect,
        );

/// The most of one skill's description the listing carries (the Agent
/// Skills format's own limit): the listing is in every request.
pub(crate) const MAX_LISTED_DESCRIPTION: usize = 1024;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    skill: String,
    /// What the user asked for with it, as Claude Code's Skill tool takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    args: Option<String>,
}

/// The Skill tool over the skills found at session start.
#[derive(Debug)]
pub(crate) struct SkillTool {
    skills: Vec<Skill>,
    description: String,
}

impl SkillTool {
    /// `None` when there are no skills: the tool is then not offered.
    pub fn new(skills: Vec<Skill>) -> Option<Self> {
        if skills.is_empty() {
            return None;
        }
        let mut description = include_str!("../../assets/tools/Skill.md").to_string();
        for skill in &skills {
            // One line each: a multi-line description is folded, a long
            // one cut.
            let folded = skill
                .description
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let listed = match folded.char_indices().nth(MAX_LISTED_DESCRIPTION) {
                Some((at, _)) => format!("{}…", &folded[..at]),
                None => folded,
            };
            description.push_str(&format!("- {}: {listed}\n", skill.name));
        }
        Some(Self {
            skills,
            description,
        })
    }

    fn find(&self, name: &str) -> Option<&Skill> {
        let name = name.trim().trim_start_matches('/');
        self.skills
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
    }

    fn names(&self) -> String {
        self.skills
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// What a call returns: the skill's folder, then its instructions.
pub(crate) fn result_text(skill: &Skill) -> String {
    format!(
        "Skill \"{}\" loaded. Base directory: {}\nThe files it mentions are relative to that directory.\n\n{}",
        skill.name,
        skill.base_dir.display(),
        skill.instructions
    )
}

impl Tool for SkillTool {
    fn declaration(&self) -> &ToolDeclaration {
        &DECLARATION
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn compact_description(&self) -> std::borrow::Cow<'_, str> {
        let mut text = include_str!("../../assets/tools/compact/Skill.md").to_string();
        text.push_str(&format!("Skills: {}.", self.names()));
        text.into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "skill": {
                    "type": "string",
                    "description": "The skill's name, as listed in this tool's description"
                },
                "args": {
                    "type": "string",
                    "description": "Optional arguments for the skill"
                }
            },
            "required": ["skill"],
            "additionalProperties": false
        })
    }

    fn validate(&self, input: Value) -> Result<Value, String> {
        let input: Input = Fields::new(NAME, input)?.parse()?;
        non_empty(NAME, "skill", &input.skill)?;
        normalized(NAME, &input)
    }

    fn run<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input = match self
                .validate(input)
                .and_then(|v| serde_json::from_value::<Input>(v).map_err(|e| e.to_string()))
            {
                Ok(input) => input,
                Err(e) => return ToolOutput::error(e),
            };
            match self.find(&input.skill) {
                Some(skill) => {
                    let mut text = result_text(skill);
                    if let Some(args) = input
                        .args
                        .as_deref()
                        .map(str::trim)
                        .filter(|a| !a.is_empty())
                    {
                        text.push_str(&format!("\n\nARGUMENTS: {args}"));
                    }
                    ToolOutput::ok(text)
                }
                None => ToolOutput::error(format!(
                    "There is no skill named \"{}\". The skills are: {}.",
                    input.skill,
                    self.names()
                )),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extensions::files::Scope;
    use std::path::PathBuf;

    fn skill(name: &str, description: &str) -> Skill {
        Skill {
            name: name.into(),
            description: description.into(),
            instructions: format!("Do {name} things."),
            base_dir: PathBuf::from(format!("/w/.zcode/skills/{name}")),
            scope: Scope::Project,
        }
    }

    fn tool() -> SkillTool {
        SkillTool::new(vec![
            skill("pdf", "Fill PDF\nforms"),
            skill("notes", "Keep notes"),
        ])
        .unwrap()
    }

    #[test]
    fn skill_tool_is_not_offered_without_skills() {
        assert!(SkillTool::new(Vec::new()).is_none());
    }

    #[test]
    fn skill_tool_description_lists_names_and_descriptions_only() {
        let tool = tool();
        let description = tool.description();
        assert!(
            description
                .ends_with("Available skills:\n- pdf: Fill PDF forms\n- notes: Keep notes\n")
        );
        assert!(!description.contains("Do pdf things"));
        assert!(tool.compact_description().ends_with("Skills: pdf, notes."));
    }

    #[test]
    fn bad_input_skill_long_description_is_cut_in_the_listing() {
        let tool = SkillTool::new(vec![skill("big", &"word ".repeat(1000))]).unwrap();
        let line = tool.description().lines().last().unwrap();
        assert!(line.starts_with("- big: word word"));
        assert!(line.ends_with('…'));
        assert_eq!(
            line.chars().count(),
            "- big: ".len() + MAX_LISTED_DESCRIPTION + 1
        );
    }

    #[tokio::test]
    async fn skill_tool_loads_a_skill_by_name() {
        let tool = tool();
        let ctx = ToolContext::new(PathBuf::from("/w"), "s");
        let out = tool.run(json!({"skill": "PDF"}), &ctx).await;
        assert!(!out.is_error);
        assert_eq!(
            out.content,
            "Skill \"pdf\" loaded. Base directory: /w/.zcode/skills/pdf\nThe files it mentions are relative to that directory.\n\nDo pdf things."
        );
    }

    #[tokio::test]
    async fn skill_tool_unknown_name_lists_the_available_ones() {
        let tool = tool();
        let ctx = ToolContext::new(PathBuf::from("/w"), "s");
        let out = tool.run(json!({"skill": "nope"}), &ctx).await;
        assert!(out.is_error);
        assert_eq!(
            out.content,
            "There is no skill named \"nope\". The skills are: pdf, notes."
        );
        let out = tool.run(json!({"name": "pdf"}), &ctx).await;
        assert!(out.is_error, "{}", out.content);
    }

    #[tokio::test]
    async fn skill_tool_passes_args_on() {
        let tool = tool();
        let ctx = ToolContext::new(PathBuf::from("/w"), "s");
        let out = tool
            .run(json!({"skill": "notes", "args": "standup"}), &ctx)
            .await;
        assert!(!out.is_error);
        assert!(
            out.content
                .ends_with("Do notes things.\n\nARGUMENTS: standup")
        );
    }

    #[test]
    fn perm8_skill_is_read_only_and_never_asked() {
        let cap = tool().capability();
        assert!(cap.read_only && !cap.destructive && !cap.needs_approval);
        assert_eq!(cap.permission_name, "skill");
    }
}
