//! `zcode --resume` without an id in the terminal UI: the `/resume` picker
//! before any session exists (snapshots in the top-level `snapshots/`).

mod support;

use crossterm::event::KeyCode;
use support::tui::{key, screen, snapshot};
use zcode::tui::launcher::SessionSummary;
use zcode::tui::resume_picker::{StartPick, on_msg, start_model};

fn sessions() -> Vec<SessionSummary> {
    vec![
        SessionSummary {
            id: "sess_0123456789abcdef".into(),
            updated_at: 1_735_732_800_000,
            title: Some("fix the parser".into()),
            mode: "build".into(),
        },
        SessionSummary {
            id: "sess_fedcba9876543210".into(),
            updated_at: 1_735_650_000_000,
            title: Some("write the README section on the terminal UI".into()),
            mode: "plan".into(),
        },
    ]
}

#[test]
fn habit_resume_without_id_opens_the_picker_before_a_session() {
    let mut m = start_model(80, 12, &sessions());
    snapshot("resume_picker_at_start", screen(&m, 80, 12));
    assert_eq!(on_msg(&mut m, key(KeyCode::Down)), None);
    assert_eq!(
        on_msg(&mut m, key(KeyCode::Enter)),
        Some(StartPick::Resume("sess_fedcba9876543210".into()))
    );
}

#[test]
fn habit_resume_without_id_and_no_sessions_says_so() {
    let m = start_model(80, 12, &[]);
    snapshot("resume_picker_at_start_empty", screen(&m, 80, 12));
}
