//! Key bindings: which key means what, and the footer hints that say so.

use crate::protocol::RequestKind;
use crate::tui::cells::Cell;
use crate::tui::focus::Focus;
use crate::tui::layout::approval::body_window;
use crate::tui::model::Model;
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
    /// Ctrl+D: quits on an empty prompt (as a shell does at end of
    /// input), else deletes the character under the cursor.
    EndOfInput,
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
    /// Ctrl+W, Alt+Backspace: delete the word before the cursor.
    DeleteWord,
    /// Alt+←, Ctrl+←.
    WordLeft,
    /// Alt+→, Ctrl+→.
    WordRight,
    /// Home / End without Ctrl: the composer's line when it holds text,
    /// else the top / bottom of the transcript.
    Home,
    End,
    /// Ctrl+T: show or hide the todo sidebar (TODO-7); below 100 columns,
    /// the todo overlay.
    ToggleSidebar,
    /// Ctrl+O: expand or collapse the tool outputs in the transcript.
    ToggleToolOutput,
    Char(char),
    Ignore,
}

/// Maps a key event to an action. Releases are ignored (terminals with the
/// kitty protocol, and Windows, report them); a held key repeats only what
/// edits or moves, never a send, a mode change or a toggle.
pub fn action(key: KeyEvent) -> Action {
    let act = press_action(key);
    match key.kind {
        KeyEventKind::Press => act,
        KeyEventKind::Release => Action::Ignore,
        KeyEventKind::Repeat if repeats(act) => act,
        KeyEventKind::Repeat => Action::Ignore,
    }
}

/// Whether holding the key should do it again.
fn repeats(act: Action) -> bool {
    matches!(
        act,
        Action::Char(_)
            | Action::Newline
            | Action::Backspace
            | Action::Delete
            | Action::DeleteWord
            | Action::Left
            | Action::Right
            | Action::WordLeft
            | Action::WordRight
            | Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
    )
}

fn press_action(key: KeyEvent) -> Action {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let shift = key.modifiers.contains(KeyModifiers::SHIFT);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    match key.code {
        KeyCode::Enter if shift || alt || ctrl => Action::Newline,
        KeyCode::Enter => Action::Submit,
        KeyCode::Char('j') if ctrl => Action::Newline,
        KeyCode::Char('c') if ctrl => Action::Interrupt,
        KeyCode::Char('z') if ctrl => Action::Suspend,
        KeyCode::Char('d' | 'D') if ctrl => Action::EndOfInput,
        KeyCode::Char('u') if ctrl => Action::KillLine,
        KeyCode::Char('a') if ctrl => Action::LineStart,
        KeyCode::Char('e') if ctrl => Action::LineEnd,
        KeyCode::Char('w') if ctrl => Action::DeleteWord,
        KeyCode::Char('t' | 'T') if ctrl => Action::ToggleSidebar,
        KeyCode::Char('o' | 'O') if ctrl => Action::ToggleToolOutput,
        // Shift+Tab (PLAN-1): legacy terminals send BackTab; with the kitty
        // protocol it arrives as BackTab+Shift or Tab+Shift.
        KeyCode::BackTab => Action::CycleMode,
        KeyCode::Tab if shift => Action::CycleMode,
        KeyCode::Esc => Action::Cancel,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::PageDown => Action::PageDown,
        KeyCode::Home if ctrl => Action::Top,
        KeyCode::End if ctrl => Action::Bottom,
        KeyCode::Home => Action::Home,
        KeyCode::End => Action::End,
        KeyCode::Up => Action::Up,
        KeyCode::Down => Action::Down,
        KeyCode::Left if alt || ctrl => Action::WordLeft,
        KeyCode::Right if alt || ctrl => Action::WordRight,
        KeyCode::Left => Action::Left,
        KeyCode::Right => Action::Right,
        KeyCode::Backspace if alt || ctrl => Action::DeleteWord,
        KeyCode::Backspace => Action::Backspace,
        KeyCode::Delete => Action::Delete,
        KeyCode::Char(c) if !ctrl && !alt => Action::Char(c),
        _ => Action::Ignore,
    }
}

/// What a key does in a picker (and in the slash popup).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKey {
    Up,
    Down,
    /// Tab.
    Complete,
    /// Enter.
    Choose,
    /// Esc.
    Close,
    /// `d` or Delete.
    Delete,
    /// Ctrl+C.
    Interrupt,
    Other,
}

pub fn list_key(key: KeyEvent) -> ListKey {
    if key.kind == KeyEventKind::Release {
        return ListKey::Other;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let plain = !ctrl && !key.modifiers.contains(KeyModifiers::ALT);
    match key.code {
        KeyCode::Up => ListKey::Up,
        KeyCode::Down => ListKey::Down,
        KeyCode::Char('p') if ctrl => ListKey::Up,
        KeyCode::Char('n') if ctrl => ListKey::Down,
        KeyCode::Char('c') if ctrl => ListKey::Interrupt,
        KeyCode::Tab if key.modifiers.is_empty() => ListKey::Complete,
        KeyCode::Enter if key.modifiers.is_empty() => ListKey::Choose,
        KeyCode::Esc => ListKey::Close,
        KeyCode::Delete => ListKey::Delete,
        KeyCode::Char('d') if plain => ListKey::Delete,
        _ => ListKey::Other,
    }
}

/// The footer: the keys that work in the layer that has the focus.
pub fn hints(focus: Focus, model: &Model) -> Vec<(&'static str, &'static str)> {
    let list = match focus {
        Focus::Question if other_field_open(model) => field_hints("use this answer", false),
        Focus::Feedback(RequestKind::Plan) => field_hints("send the feedback", true),
        Focus::Feedback(_) => field_hints("deny with this feedback", true),
        Focus::FullScreen => full_screen_hints(),
        Focus::Question => question_hints(model),
        Focus::Approval(kind) => approval_hints(model, kind),
        Focus::Picker => match model.picker.as_ref() {
            Some(p) if p.armed.is_some() => vec![("d", "again to remove"), ("esc", "keep it")],
            p => picker_hints(p.is_some_and(|p| p.deletable())),
        },
        Focus::SlashPopup => popup_hints(),
        Focus::FilePopup => vec![("↑/↓", "move"), ("tab/enter", "insert"), ("esc", "close")],
        Focus::Todos => vec![("esc", "close"), TOGGLE_SIDEBAR_CLOSE_HINT],
        Focus::Composer => with_agents_hint(
            model,
            composer_hints(model.busy, model.composer.is_empty(), model.quit_armed),
        ),
    };
    with_sidebar_hint(model, list)
}

/// The footer while a request waits: the digits its options have.
fn request_hints(model: &Model) -> Vec<(&'static str, &'static str)> {
    let options = model
        .approvals
        .front()
        .map_or(0, |r| crate::tui::approval::approval_options(r).len());
    let mut hints = Vec::new();
    if let Some(digits) = digit_keys(options) {
        hints.push((digits, "choose"));
    }
    hints.extend([("↑/↓", "move"), ("enter", "confirm"), ("esc", "deny")]);
    hints
}

/// The footer while a question waits; its panel lists its own digit keys.
fn question_hints(model: &Model) -> Vec<(&'static str, &'static str)> {
    let single = model
        .panel()
        .and_then(|p| p.question.as_ref())
        .is_some_and(|q| q.questions().len() == 1);
    vec![
        ("↑/↓", "move"),
        ("enter", if single { "submit" } else { "next" }),
        ("esc", "reject"),
    ]
}

/// The digit keys that choose among `n` options: `1-3`; `None` where
/// there is nothing to choose between.
fn digit_keys(n: usize) -> Option<&'static str> {
    const KEYS: [&str; 8] = ["1-2", "1-3", "1-4", "1-5", "1-6", "1-7", "1-8", "1-9"];
    n.checked_sub(2).map(|i| KEYS[i.min(7)])
}

/// The footer of a tool's or plan's panel: the request's keys, then j/k
/// while its body scrolls, and the full-screen key.
fn approval_hints(model: &Model, kind: RequestKind) -> Vec<(&'static str, &'static str)> {
    let mut hints = request_hints(model);
    if kind == RequestKind::Question {
        return hints;
    }
    let scrolls = model.head().is_some_and(|request| {
        let theme = crate::tui::theme::Theme::new(model.monochrome);
        body_window(request, model.panel(), &theme, model.width, model.height).is_some()
    });
    if scrolls {
        hints.push(("j/k", "scroll"));
    }
    hints.push((FULL_SCREEN_KEY, "full screen"));
    hints
}

/// The key that opens a request full screen and closes it again.
pub const FULL_SCREEN_KEY: &str = "ctrl+o";

/// The footer of a request full screen: it only scrolls, and goes back.
fn full_screen_hints() -> Vec<(&'static str, &'static str)> {
    vec![
        ("↑/↓ j/k pgup/pgdn", "scroll"),
        ("home/end", "ends"),
        ("esc/q/ctrl+o", "back to the options"),
    ]
}

/// Whether the question panel's Other field takes the typing.
fn other_field_open(model: &Model) -> bool {
    model
        .panel()
        .and_then(|p| p.question.as_ref())
        .is_some_and(|q| q.editing().is_some())
}

/// The footer while a text field of a request (the Other answer, the
/// feedback) takes the typing: what Enter does there, and that Esc goes
/// back to the options rather than denying. The feedback takes several
/// lines; the Other answer is one.
fn field_hints(enter: &'static str, multi_line: bool) -> Vec<(&'static str, &'static str)> {
    let mut hints = vec![("enter", enter)];
    if multi_line {
        hints.push(("shift+enter", "newline"));
    }
    hints.push(("esc", "back to the options"));
    hints
}

/// The footer while the composer has the keys.
fn composer_hints(
    busy: bool,
    composer_empty: bool,
    quit_armed: bool,
) -> Vec<(&'static str, &'static str)> {
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

/// While the transcript holds sub-agents, the key that shows their
/// transcripts (or hides them again), before the mode key.
fn with_agents_hint(
    model: &Model,
    mut list: Vec<(&'static str, &'static str)>,
) -> Vec<(&'static str, &'static str)> {
    let agents = model.cells.iter().any(|c| matches!(c, Cell::Agents(_)));
    let at = list.iter().position(|(key, _)| *key == "shift+tab");
    if let Some(at) = at.filter(|_| agents) {
        let what = if model.tools_expanded {
            "collapse"
        } else {
            "expand"
        };
        list.insert(at, (EXPAND_KEY, what));
    }
    list
}

/// The key that expands tool outputs and sub-agent transcripts.
pub const EXPAND_KEY: &str = "ctrl+o";

/// The footer while the slash popup is open (TUI-4).
fn popup_hints() -> Vec<(&'static str, &'static str)> {
    vec![
        ("↑/↓", "move"),
        ("tab", "complete"),
        ("enter", "run"),
        ("esc", "close"),
    ]
}

/// The footer while a picker is open; `deletable`: the permissions picker.
fn picker_hints(deletable: bool) -> Vec<(&'static str, &'static str)> {
    if deletable {
        return vec![("↑/↓", "move"), ("d", "delete"), ("esc", "close")];
    }
    vec![("↑/↓", "move"), ("enter", "choose"), ("esc", "close")]
}

/// The footer hint for the sidebar toggle (TODO-7), and for the todo
/// overlay where the sidebar cannot show.
pub const TOGGLE_SIDEBAR_HINT: (&str, &str) = ("ctrl+t", "todos");
/// The overlay's own hint for the same key.
const TOGGLE_SIDEBAR_CLOSE_HINT: (&str, &str) = ("ctrl+t", "close");

/// Adds the todo key after the mode key while there is a list (TODO-7):
/// it toggles the sidebar, or below 100 columns opens the overlay. There it
/// still fits on a 100-column terminal.
fn with_sidebar_hint(
    model: &Model,
    mut list: Vec<(&'static str, &'static str)>,
) -> Vec<(&'static str, &'static str)> {
    let at = list.iter().position(|(key, _)| *key == "shift+tab");
    if let Some(at) = at.filter(|_| !model.todos.is_empty()) {
        list.insert(at + 1, TOGGLE_SIDEBAR_HINT);
    }
    list
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyEventState;

    fn ev(code: KeyCode, modifiers: KeyModifiers, kind: KeyEventKind) -> KeyEvent {
        KeyEvent {
            code,
            modifiers,
            kind,
            state: KeyEventState::NONE,
        }
    }

    fn press(code: KeyCode, modifiers: KeyModifiers) -> Action {
        action(ev(code, modifiers, KeyEventKind::Press))
    }

    #[test]
    fn plan1_legacy_backtab_cycles_the_mode() {
        assert_eq!(
            press(KeyCode::BackTab, KeyModifiers::NONE),
            Action::CycleMode
        );
    }

    #[test]
    fn plan1_kitty_backtab_with_shift_cycles_the_mode() {
        assert_eq!(
            press(KeyCode::BackTab, KeyModifiers::SHIFT),
            Action::CycleMode
        );
    }

    #[test]
    fn plan1_kitty_tab_with_shift_cycles_the_mode() {
        assert_eq!(press(KeyCode::Tab, KeyModifiers::SHIFT), Action::CycleMode);
    }

    #[test]
    fn plan1_plain_tab_does_not_cycle() {
        assert_eq!(press(KeyCode::Tab, KeyModifiers::NONE), Action::Ignore);
    }

    #[test]
    fn plan1_release_and_repeat_of_shift_tab_are_ignored() {
        for (code, mods) in [
            (KeyCode::BackTab, KeyModifiers::NONE),
            (KeyCode::BackTab, KeyModifiers::SHIFT),
            (KeyCode::Tab, KeyModifiers::SHIFT),
        ] {
            for kind in [KeyEventKind::Release, KeyEventKind::Repeat] {
                assert_eq!(
                    action(ev(code, mods, kind)),
                    Action::Ignore,
                    "{code:?} {kind:?}"
                );
            }
        }
    }

    #[test]
    fn tui4_releases_never_act_and_held_keys_repeat_only_edits() {
        let release = |code| action(ev(code, KeyModifiers::NONE, KeyEventKind::Release));
        let repeat = |code| action(ev(code, KeyModifiers::NONE, KeyEventKind::Repeat));
        assert_eq!(release(KeyCode::Char('a')), Action::Ignore);
        assert_eq!(release(KeyCode::Enter), Action::Ignore);
        assert_eq!(repeat(KeyCode::Char('a')), Action::Char('a'));
        assert_eq!(repeat(KeyCode::Backspace), Action::Backspace);
        assert_eq!(repeat(KeyCode::Enter), Action::Ignore);
        assert_eq!(
            action(ev(
                KeyCode::Char('t'),
                KeyModifiers::CONTROL,
                KeyEventKind::Repeat
            )),
            Action::Ignore
        );
    }

    #[test]
    fn tui4_newline_forms_of_every_terminal() {
        assert_eq!(press(KeyCode::Enter, KeyModifiers::SHIFT), Action::Newline);
        assert_eq!(press(KeyCode::Enter, KeyModifiers::ALT), Action::Newline);
        assert_eq!(
            press(KeyCode::Char('j'), KeyModifiers::CONTROL),
            Action::Newline
        );
        assert_eq!(press(KeyCode::Enter, KeyModifiers::NONE), Action::Submit);
    }

    #[test]
    fn tui4_word_keys_and_home_end() {
        assert_eq!(press(KeyCode::Left, KeyModifiers::ALT), Action::WordLeft);
        assert_eq!(press(KeyCode::Right, KeyModifiers::ALT), Action::WordRight);
        assert_eq!(
            press(KeyCode::Left, KeyModifiers::CONTROL),
            Action::WordLeft
        );
        assert_eq!(
            press(KeyCode::Char('w'), KeyModifiers::CONTROL),
            Action::DeleteWord
        );
        assert_eq!(
            press(KeyCode::Backspace, KeyModifiers::ALT),
            Action::DeleteWord
        );
        assert_eq!(press(KeyCode::Home, KeyModifiers::NONE), Action::Home);
        assert_eq!(press(KeyCode::End, KeyModifiers::NONE), Action::End);
        assert_eq!(press(KeyCode::Home, KeyModifiers::CONTROL), Action::Top);
        assert_eq!(press(KeyCode::End, KeyModifiers::CONTROL), Action::Bottom);
    }

    #[test]
    fn todo7_ctrl_t_toggles_the_sidebar_with_or_without_shift_reported() {
        assert_eq!(
            press(KeyCode::Char('t'), KeyModifiers::CONTROL),
            Action::ToggleSidebar
        );
        assert_eq!(
            press(
                KeyCode::Char('T'),
                KeyModifiers::CONTROL | KeyModifiers::SHIFT
            ),
            Action::ToggleSidebar
        );
        assert_eq!(
            press(KeyCode::Char('t'), KeyModifiers::NONE),
            Action::Char('t')
        );
    }
}
