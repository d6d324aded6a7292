//! Skills, the Agent Skills format: a folder holding a `SKILL.md`
//! (frontmatter `name`, `description`; the body is the instructions) and
//! any files those instructions refer to, in `skills/` of `.zcode/`,
//! `.claude/` and `$ZCODE_HOME/` (see `files` for the order).
//!
//! `name` defaults to the folder's name; `description` is required (it is
//! all the model reads before it loads the skill). A project skill wins
//! over a user one of the same name.

use super::by_name::ByName;
use super::files::{Budget, Kind, Scope, Source, entries, read_found, resolve, sources};
use super::frontmatter;
use super::{Problem, invalid_name_reason, valid_name};
use std::path::{Path, PathBuf};

/// The file that makes a folder a skill.
pub(crate) const SKILL_FILE: &str = "SKILL.md";

const KEYS: &[&str] = &["name", "description", "license", "allowed-tools"];

/// One skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    /// The body of `SKILL.md`: what the Skill tool returns.
    pub instructions: String,
    /// The skill's folder, where the files it refers to are.
    pub base_dir: PathBuf,
    pub scope: Scope,
}

/// Every skill, sorted by name, with the folders left out.
pub fn load_skills(workspace: &Path, zcode_home: &Path) -> (Vec<Skill>, Vec<Problem>) {
    load_from(&sources(workspace, zcode_home, "skills"))
}

/// [`load_skills`] over the given directories.
pub(crate) fn load_from(sources: &[Source]) -> (Vec<Skill>, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut skills = ByName::default();
    let mut budget = Budget::default();
    for source in sources {
        skills.next_directory();
        for dir in entries(&source.dir, &mut problems) {
            match resolve(&dir, source) {
                Ok((_, Kind::Dir)) => {}
                // Loose files beside the skill folders are not skills.
                Ok(_) => continue,
                Err(reason) => {
                    problems.push(Problem::new(&dir, reason));
                    continue;
                }
            }
            let file = dir.join(SKILL_FILE);
            if file.symlink_metadata().is_err() {
                problems.push(Problem::new(&dir, format!("has no {SKILL_FILE}")));
                continue;
            }
            let Some(skill) = parse_skill(&dir, &file, source, &mut budget, &mut problems) else {
                continue;
            };
            let name = skill.name.clone();
            if let Err(first) = skills.add(&name, &file, skill) {
                problems.push(Problem::new(
                    &file,
                    format!(
                        "the skill name {name:?} is already used by {}",
                        first.display()
                    ),
                ));
            }
        }
    }
    (skills.into_values(), problems)
}

fn parse_skill(
    dir: &Path,
    file: &Path,
    source: &Source,
    budget: &mut Budget,
    problems: &mut Vec<Problem>,
) -> Option<Skill> {
    let found = read_found(file, source, budget, problems)?;
    let doc = match frontmatter::parse(&found.text, KEYS) {
        Ok(doc) => doc,
        Err(reason) => {
            problems.push(Problem::new(file, reason));
            return None;
        }
    };
    let folder = dir
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = doc.text("name").map_or(folder, str::to_string);
    if !valid_name(&name) || name.contains(':') {
        problems.push(Problem::new(file, invalid_name_reason(&name)));
        return None;
    }
    let Some(description) = doc.text("description") else {
        problems.push(Problem::new(
            file,
            "has no description: the frontmatter needs `description:` saying when the skill applies",
        ));
        return None;
    };
    Some(Skill {
        name,
        description: description.to_string(),
        instructions: doc.body.trim().to_string(),
        base_dir: dir.to_path_buf(),
        scope: source.scope,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Vec<Source>) {
        crate::extensions::test_files::workspace(files, "skills")
    }

    use crate::extensions::test_files::reasons;

    #[test]
    fn skills_load_from_folders_with_skill_md() {
        let (ws, sources) = workspace(&[
            (
                ".claude/skills/pdf/SKILL.md",
                "---\nname: pdf-tools\ndescription: Fill PDF forms\n---\nRun scripts/fill.py.\n",
            ),
            (".claude/skills/pdf/scripts/fill.py", "print()"),
            (
                "home/skills/notes/SKILL.md",
                "---\ndescription: Keep notes\n---\nWrite notes.\n",
            ),
            (".zcode/skills/README.md", "not a skill"),
        ]);
        let (skills, problems) = load_from(&sources);
        assert!(problems.is_empty(), "{}", reasons(&problems));
        let names: Vec<&str> = skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["notes", "pdf-tools"]);
        assert_eq!(skills[1].instructions, "Run scripts/fill.py.");
        assert_eq!(skills[1].base_dir, ws.path().join(".claude/skills/pdf"));
        assert_eq!(skills[1].scope, Scope::Project);
        assert_eq!(skills[0].scope, Scope::User);
    }

    #[test]
    fn skills_project_wins_over_user() {
        let (_ws, sources) = workspace(&[
            ("home/skills/s/SKILL.md", "---\ndescription: user\n---\n"),
            (
                ".zcode/skills/s/SKILL.md",
                "---\ndescription: project\n---\n",
            ),
        ]);
        let (skills, _) = load_from(&sources);
        assert_eq!(skills.len(), 1);
        assert_eq!(skills[0].description, "project");
    }

    #[test]
    fn bad_input_skill_without_description_or_skill_md_is_reported() {
        let (_ws, sources) = workspace(&[
            (".zcode/skills/a/SKILL.md", "---\nname: a\n---\nbody"),
            (".zcode/skills/b/other.md", "x"),
            (
                ".zcode/skills/c/SKILL.md",
                "---\nname: c\ndescription: d\nbody",
            ),
            (
                ".zcode/skills/d/SKILL.md",
                "---\nname: has space\ndescription: d\n---\n",
            ),
        ]);
        let (skills, problems) = load_from(&sources);
        assert!(skills.is_empty());
        let text = reasons(&problems);
        assert!(text.contains("a/SKILL.md: has no description"), "{text}");
        assert!(text.contains("b: has no SKILL.md"), "{text}");
        assert!(
            text.contains("c/SKILL.md: the frontmatter opened with --- is never closed"),
            "{text}"
        );
        assert!(
            text.contains("d/SKILL.md: the name \"has space\" is not usable"),
            "{text}"
        );
    }

    #[test]
    fn bad_input_skill_folder_link_loop_is_reported() {
        let (ws, sources) =
            workspace(&[(".zcode/skills/ok/SKILL.md", "---\ndescription: d\n---\n")]);
        let dir = ws.path().join(".zcode/skills");
        std::os::unix::fs::symlink("loop", dir.join("loop")).unwrap();
        let (skills, problems) = load_from(&sources);
        assert_eq!(skills.len(), 1);
        assert!(reasons(&problems).contains("loop: is a symbolic link loop"));
    }
}
