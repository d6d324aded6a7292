//! Definitions by name, compared without case, gathered directory by
//! directory in precedence order: the first directory's definition of a
//! name wins (a project's over yours), and a second file of the same name
//! in one directory is a mistake to report.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(crate) struct ByName<T> {
    all: BTreeMap<String, T>,
    /// The names the current directory defined, with their files.
    here: BTreeMap<String, PathBuf>,
}

impl<T> Default for ByName<T> {
    fn default() -> Self {
        Self {
            all: BTreeMap::new(),
            here: BTreeMap::new(),
        }
    }
}

impl<T> ByName<T> {
    /// The next directory's definitions follow.
    pub(crate) fn next_directory(&mut self) {
        self.here.clear();
    }

    /// Adds `item`, named `name` by the file `path`; `Err` names the file
    /// of this directory that already defined it. A name an earlier
    /// directory defined is shadowed: that definition stays.
    pub fn add(&mut self, name: &str, path: &Path, item: T) -> Result<(), PathBuf> {
        let key = name.to_ascii_lowercase();
        if let Some(first) = self.here.get(&key) {
            return Err(first.clone());
        }
        self.here.insert(key.clone(), path.to_path_buf());
        self.all.entry(key).or_insert(item);
        Ok(())
    }

    /// The definitions, sorted by name.
    pub(crate) fn into_values(self) -> Vec<T> {
        self.all.into_values().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_directory_wins_and_a_repeat_in_one_is_reported() {
        let mut names = ByName::default();
        assert_eq!(names.add("Review", Path::new("p/review.md"), 1), Ok(()));
        assert_eq!(
            names.add("review", Path::new("p/other.md"), 2),
            Err(PathBuf::from("p/review.md"))
        );
        names.next_directory();
        assert_eq!(names.add("REVIEW", Path::new("u/review.md"), 3), Ok(()));
        assert_eq!(names.add("lint", Path::new("u/lint.md"), 4), Ok(()));
        assert_eq!(names.into_values(), vec![4, 1]);
    }
}
