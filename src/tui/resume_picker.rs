//! `zcode --resume` without an id: the `/resume` session picker, shown
//! before any session exists. Enter resumes the highlighted session, Esc
//! starts a new one (as Codex's picker does), Ctrl+C quits without
//! starting anything. The keys go through the app's own `step`, so the
//! picker looks and moves as it does behind `/resume`.

use super::launcher::SessionSummary;
use super::model::Model;
use super::msg::{Cmd, Msg};
use super::picker::Picker;
use super::terminal::{TuiTerminal, no_color};
use super::update::{settle, step};
use super::view::view;
use crate::runtime::session::SessionStart;
use crossterm::event::{Event as TermEvent, EventStream, KeyCode, KeyEventKind, KeyModifiers};
use futures_util::StreamExt;

/// What the user chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartPick {
    /// Resume this session.
    Resume(String),
    /// Esc (or Enter on an empty list): a new session.
    New,
    /// Ctrl+C: quit.
    Quit,
}

/// A model showing the picker over an empty screen.
pub fn start_model(width: u16, height: u16, list: &[SessionSummary]) -> Model {
    let mut model = Model::new(width, height);
    model.picker = Some(Picker::sessions_at_start(list));
    model
}

/// Steps the model through `msg`; `Some` once the user has chosen.
pub fn on_msg(model: &mut Model, msg: Msg) -> Option<StartPick> {
    if let Msg::Key(key) = &msg
        && key.kind != KeyEventKind::Release
        && key.modifiers.contains(KeyModifiers::CONTROL)
        && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('d'))
    {
        return Some(StartPick::Quit);
    }
    let cmds = step(model, msg);
    for cmd in cmds {
        if let Cmd::StartSession(SessionStart::Resume(id)) = cmd {
            return Some(StartPick::Resume(id));
        }
    }
    // Closed without a choice: Esc, or Enter with nothing to choose.
    model.picker.is_none().then_some(StartPick::New)
}

/// Shows the picker on the terminal until the user chooses. The terminal
/// is given back before the session starts.
pub async fn pick(list: &[SessionSummary]) -> anyhow::Result<StartPick> {
    let mut term = TuiTerminal::enter()?;
    let size = term.terminal.size()?;
    let mut model = start_model(size.width, size.height, list);
    model.monochrome = no_color();
    let mut input = EventStream::new();
    loop {
        settle(&mut model);
        term.terminal.draw(|f| view(&model, f))?;
        let msg = match input.next().await {
            None => return Ok(StartPick::Quit),
            Some(Err(e)) => anyhow::bail!("cannot read the terminal: {e}"),
            Some(Ok(TermEvent::Key(key))) => Msg::Key(key),
            Some(Ok(TermEvent::Resize(w, h))) => Msg::Resize(w, h),
            Some(Ok(_)) => continue,
        };
        if let Some(choice) = on_msg(&mut model, msg) {
            return Ok(choice);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyEvent;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> Msg {
        Msg::Key(KeyEvent::new(code, modifiers))
    }

    fn sessions() -> Vec<SessionSummary> {
        ["sess_aaaa1111", "sess_bbbb2222"]
            .iter()
            .map(|id| SessionSummary {
                id: id.to_string(),
                updated_at: 0,
                title: Some(format!("task of {id}")),
                mode: "build".into(),
            })
            .collect()
    }

    #[test]
    fn habit_resume_picker_enter_resumes_the_highlighted_session() {
        let mut model = start_model(80, 24, &sessions());
        assert_eq!(
            on_msg(&mut model, key(KeyCode::Down, KeyModifiers::NONE)),
            None
        );
        assert_eq!(
            on_msg(&mut model, key(KeyCode::Enter, KeyModifiers::NONE)),
            Some(StartPick::Resume("sess_bbbb2222".into()))
        );
    }

    #[test]
    fn habit_resume_picker_esc_starts_a_new_session_and_ctrl_c_quits() {
        let mut model = start_model(80, 24, &sessions());
        assert_eq!(
            on_msg(&mut model, key(KeyCode::Esc, KeyModifiers::NONE)),
            Some(StartPick::New)
        );
        let mut model = start_model(80, 24, &sessions());
        assert_eq!(
            on_msg(&mut model, key(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(StartPick::Quit)
        );
        // Nothing to resume: Enter starts a new session.
        let mut model = start_model(80, 24, &[]);
        assert_eq!(
            on_msg(&mut model, key(KeyCode::Enter, KeyModifiers::NONE)),
            Some(StartPick::New)
        );
    }

    #[test]
    fn habit_resume_picker_other_keys_keep_it_open() {
        let mut model = start_model(80, 24, &sessions());
        for msg in [
            key(KeyCode::Char('x'), KeyModifiers::NONE),
            key(KeyCode::Char('d'), KeyModifiers::NONE),
            Msg::Resize(100, 30),
        ] {
            assert_eq!(on_msg(&mut model, msg), None);
            assert!(model.picker.is_some());
        }
    }
}
