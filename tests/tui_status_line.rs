//! The status line names where the session works: the
//! workspace's directory and the git branch, giving way before the mode's
//! description on narrow terminals.

mod support;

use support::tui::{Session, screen};

#[test]
fn ux_the_status_line_names_the_workspace_and_branch() {
    let mut m = Session::new(140, 12).model("local/small", "local").start();
    m.workspace = "/home/dev/zcode".into();
    m.git_branch = Some("feature/login".into());
    let text = screen(&m, 140, 12);
    let status = text
        .lines()
        .find(|l| l.contains("local/small"))
        .unwrap_or_else(|| panic!("no status line:\n{text}"));
    assert!(status.contains("zcode@feature/login"), "{status}");
    // Narrow: the mode's description keeps its room; the place goes first.
    let narrow = screen(&m, 70, 12);
    assert!(!narrow.contains("zcode@feature/login"), "{narrow}");
}
