//! A project's rules from every place they are kept: the user's database
//! and the project settings files. Deny and ask rules of a file always
//! apply (they only make zcode stricter); its allow rules apply only while
//! the user trusts the file's exact content.

use super::file::{self, FileError, SettingsFile};
use super::trust;
use crate::permission::rule_source::RuleSource;
use crate::permission::rules::{Rule, RuleKind, RuleSet};
use crate::store::{Store, StoreError};
use std::path::Path;

/// One settings file's rules and whether its content is trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRules {
    pub file: SettingsFile,
    pub digest: String,
    pub rules: RuleSet,
    pub trusted: bool,
}

/// Why the project's rules cannot be known: every call is then denied,
/// never decided on part of them.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error("the saved project rules cannot be read ({0})")]
    Store(#[from] StoreError),
    #[error(
        "no tool runs until this project settings file is fixed (its deny rules are not known): {0}"
    )]
    File(#[from] FileError),
}

/// A rule as `/permissions` and `zcode permission list` show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedRule {
    pub kind: RuleKind,
    pub rule: Rule,
    pub source: RuleSource,
    /// `false`: an allow rule of a file the user has not trusted.
    pub applied: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectRules {
    /// Saved in the user's database for the project.
    pub saved: RuleSet,
    /// The project's settings files that exist.
    pub files: Vec<FileRules>,
}

impl ProjectRules {
    /// The database's rules of `project_id` and the settings files under
    /// `root`, each file read once.
    pub fn load(store: &Store, project_id: &str, root: &Path) -> Result<Self, RulesError> {
        let saved = store.project_rules(project_id)?;
        let mut files = Vec::new();
        for which in SettingsFile::ALL {
            let Some(loaded) = file::load(root, which)? else {
                continue;
            };
            let trusted = trust::trusted_digest(store, project_id, which)?.as_deref()
                == Some(loaded.digest.as_str());
            files.push(FileRules {
                file: which,
                digest: loaded.digest,
                rules: loaded.rules,
                trusted,
            });
        }
        Ok(Self { saved, files })
    }

    /// The rules decisions go by: the database's, every file's deny and
    /// ask rules, and the allow rules of trusted files.
    pub fn applied(&self) -> RuleSet {
        let mut set = self.saved.clone();
        for f in &self.files {
            for kind in RuleKind::ALL {
                if kind != RuleKind::Allow || f.trusted {
                    set.merge(kind, f.rules.rules(kind).iter().cloned());
                }
            }
        }
        set
    }

    /// Every rule with where it comes from, the database's first.
    pub fn listed(&self) -> Vec<ListedRule> {
        let mut out = Vec::new();
        let mut push = |set: &RuleSet, source: RuleSource, trusted: bool| {
            for kind in RuleKind::ALL {
                for rule in set.rules(kind) {
                    out.push(ListedRule {
                        kind,
                        rule: rule.clone(),
                        source,
                        applied: kind != RuleKind::Allow || trusted,
                    });
                }
            }
        };
        push(&self.saved, RuleSource::Database, true);
        for f in &self.files {
            push(&f.rules, f.file.source(), f.trusted);
        }
        out
    }

    /// The files whose allow rules are not applied, with how many each has.
    pub fn untrusted_allows(&self) -> Vec<(SettingsFile, usize)> {
        self.files
            .iter()
            .filter(|f| !f.trusted && !f.rules.allow.is_empty())
            .map(|f| (f.file, f.rules.allow.len()))
            .collect()
    }

    /// What a session says at start about allow rules it ignores, with
    /// how to trust them (`trust_how`: the command of the front end).
    pub fn untrusted_notice(&self, trust_how: &str) -> Option<String> {
        let untrusted = self.untrusted_allows();
        if untrusted.is_empty() {
            return None;
        }
        let total: usize = untrusted.iter().map(|(_, n)| n).sum();
        let files: Vec<&str> = untrusted.iter().map(|(f, _)| f.relative_path()).collect();
        let rules = if total == 1 { "rule" } else { "rules" };
        Some(format!(
            "{total} allow {rules} of {} ignored: the file's content is not trusted (its deny and ask rules apply). \
             Review it, then trust it with {trust_how}",
            files.join(" and ")
        ))
    }
}
