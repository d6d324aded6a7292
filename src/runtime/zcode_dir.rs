//! `<workspace>/.zcode/`, where zcode keeps what it writes into a workspace
//! (approved plans). zcode creates it with a `.gitignore` that ignores
//! everything in it, so none of it shows up in `git status`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

pub const DIR_NAME: &str = ".zcode";
/// The `.gitignore` written into a `.zcode/` that zcode created.
pub const GITIGNORE: &str = "*\n";

/// The `.zcode/` directory of `workspace`, created if missing. Only a
/// directory created here gets the `.gitignore`: one that exists is the
/// user's to arrange, and an existing `.gitignore` is never overwritten.
pub fn ensure(workspace: &Path) -> std::io::Result<PathBuf> {
    let dir = workspace.join(DIR_NAME);
    match std::fs::create_dir(&dir) {
        Ok(()) => write_gitignore(&dir)?,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => {}
        Err(e) => return Err(e),
    }
    Ok(dir)
}

fn write_gitignore(dir: &Path) -> std::io::Result<()> {
    let opened = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dir.join(".gitignore"));
    match opened {
        Ok(mut file) => file.write_all(GITIGNORE.as_bytes()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}
