//! `/memory edit` in the real TUI, in a pseudo-terminal: the project's
//! MEMORY.md opens in `$EDITOR` (the directory made first), the TUI comes
//! back when the editor exits, and `/memory` then shows what was written.
#![cfg(unix)]

mod support;

use std::os::unix::fs::PermissionsExt;
use support::pty::{Pty, PtyOptions, WAIT};

#[test]
fn memory_edit_opens_memory_md_in_the_editor_and_the_tui_comes_back() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let editor = home.path().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nprintf -- '- We use pnpm, never npm.\\n' >> \"$1\"\necho \"$1\" > \"$(dirname \"$0\")/edited\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut pty = Pty::spawn(
        PtyOptions::new(env!("CARGO_BIN_EXE_zcode"), home.path(), project.path())
            .env("VISUAL", "")
            .env("EDITOR", &editor.to_string_lossy()),
    );
    pty.wait_for_mode("build");
    pty.submit("/memory edit");
    pty.wait_for_text("Saved");
    let edited = std::fs::read_to_string(home.path().join("edited")).unwrap();
    let path = std::path::PathBuf::from(edited.trim());
    assert!(path.ends_with("memory/MEMORY.md"), "{}", path.display());
    assert!(
        path.starts_with(home.path().join("projects")),
        "{}",
        path.display()
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "- We use pnpm, never npm.\n"
    );
    pty.submit("/memory");
    pty.wait_for("the memory shown", WAIT, |s| {
        s.contents().contains("- We use pnpm, never npm.")
    });
    pty.quit();
}
