//! Key bindings: which key means what, and the footer hints that say so.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What a key means to the app, before knowing its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Submit,
    Newline,
    CycleMode,
    /// Esc.
    Cancel,
    /// Ctrl+C.
    Interrupt,
    /// Ctrl+Z.
    Suspend,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Up,
    Down,
    Left,
    Right,
    LineStart,
    LineEnd,
    Backspace,
    Delete,
    KillLine,
    Char(char),
    Ignore,
}

/// Maps a key event to an action. Releases are ignored.
pub fn action(key: KeyEvent) -> Action {
    if key.kind == KeyEventKind::Release {
        return Action::Ignore;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let shift = key.modifiers.contains(KeyModifiers::SHIFT);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    match key.code {
        KeyCode::Enter if shift || alt || ctrl => Action::Newline,
        KeyCode::Enter => Action::Submit,
        KeyCode::Char('j') if ctrl => Action::Newline,
        KeyCode::Char('c') if ctrl => Action::Interrupt,
        KeyCode::Char('z') if ctrl => Action::Suspend,
        KeyCode::Char('u') if ctrl => Action::KillLine,
        KeyCode::Char('a') if ctrl => Action::LineStart,
        KeyCode::Char('e') if ctrl => Action::LineEnd,
        KeyCode::BackTab => Action::CycleMode,
        KeyCode::Tab if shift => Action::CycleMode,
        KeyCode::Esc => Action::Cancel,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::PageDown => Action::PageDown,
        KeyCode::Home if ctrl => Action::Top,
        KeyCode::End if ctrl => Action::Bottom,
        KeyCode::Home => Action::Top,
        KeyCode::End => Action::Bottom,
        KeyCode::Up => Action::Up,
        KeyCode::Down => Action::Down,
        KeyCode::Left => Action::Left,
        KeyCode::Right => Action::Right,
        KeyCode::Backspace => Action::Backspace,
        KeyCode::Delete => Action::Delete,
        KeyCode::Char(c) if !ctrl && !alt => Action::Char(c),
        _ => Action::Ignore,
    }
}

/// The footer: the keys that work in the current state.
pub fn hints(
    busy: bool,
    approval: bool,
    composer_empty: bool,
    quit_armed: bool,
) -> Vec<(&'static str, &'static str)> {
    if approval {
        return vec![
            ("1-9", "choose"),
            ("↑/↓", "move"),
            ("enter", "confirm"),
            ("esc", "deny"),
        ];
    }
    if quit_armed {
        return vec![("ctrl+c", "again to quit")];
    }
    let mut hints = vec![
        ("enter", if busy { "queue" } else { "send" }),
        ("shift+enter", "newline"),
    ];
    if busy {
        hints.push(("esc", "interrupt"));
    }
    hints.push(("shift+tab", "mode"));
    hints.push(("pgup/pgdn", "scroll"));
    if composer_empty && !busy {
        hints.push(("↑", "history"));
        hints.push(("ctrl+c ×2", "quit"));
    }
    hints
}

/// The footer while the slash popup is open (TUI-4).
pub fn popup_hints() -> Vec<(&'static str, &'static str)> {
    vec![
        ("↑/↓", "move"),
        ("tab", "complete"),
        ("enter", "run"),
        ("esc", "close"),
    ]
}

/// The footer while a picker is open; `deletable`: the permissions picker.
pub fn picker_hints(deletable: bool) -> Vec<(&'static str, &'static str)> {
    if deletable {
        return vec![("↑/↓", "move"), ("d", "delete"), ("esc", "close")];
    }
    vec![("↑/↓", "move"), ("enter", "choose"), ("esc", "close")]
}
