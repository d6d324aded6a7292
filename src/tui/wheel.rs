//! The mouse wheel without mouse capture. zcode leaves mouse clicks and
//! drags to the terminal, so text selects natively with no modifier key,
//! and turns on alternate scroll (DECSET 1007): in the alternate screen the
//! terminal sends the wheel as arrow keys instead, several per notch
//! (three in most terminals, tmux included). A run of two or more
//! identical bare ↑ or ↓ presses that arrive together is a wheel notch and
//! scrolls the transcript; a single press (a person typing) stays a key.

use super::msg::Msg;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// Lines one arrow of a wheel run scrolls.
const LINES_PER_ARROW: i16 = 1;

/// Which way a bare arrow press points, if it is one.
fn arrow(event: &Event) -> Option<i16> {
    let Event::Key(KeyEvent {
        code,
        modifiers,
        kind,
        ..
    }) = event
    else {
        return None;
    };
    if *modifiers != KeyModifiers::NONE || *kind == KeyEventKind::Release {
        return None;
    }
    match code {
        KeyCode::Up => Some(1),
        KeyCode::Down => Some(-1),
        _ => None,
    }
}

/// The messages for a batch of terminal events read together, wheel runs
/// turned into scrolls; `translate` maps every other event. Only while the
/// composer has the keys (`scrolls`): on a panel or a list, arrows move the
/// selection, and a burst of them typed ahead (↓ ↓ Enter over a slow link)
/// must land there as typed, not scroll the transcript behind it.
pub fn coalesce(
    events: Vec<Event>,
    scrolls: bool,
    translate: impl Fn(Event) -> Option<Msg>,
) -> Vec<Msg> {
    if !scrolls {
        return events.into_iter().filter_map(translate).collect();
    }
    let mut out = Vec::with_capacity(events.len());
    let mut events = events.into_iter().peekable();
    while let Some(event) = events.next() {
        let Some(dir) = arrow(&event) else {
            out.extend(translate(event));
            continue;
        };
        let mut run: i16 = 1;
        while events.peek().and_then(arrow) == Some(dir) {
            events.next();
            run = run.saturating_add(1);
        }
        if run >= 2 {
            out.push(Msg::Scroll(
                dir.saturating_mul(run).saturating_mul(LINES_PER_ARROW),
            ));
        } else {
            out.extend(translate(event));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> Event {
        Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn keys_only(event: Event) -> Option<Msg> {
        match event {
            Event::Key(k) => Some(Msg::Key(k)),
            _ => None,
        }
    }

    #[test]
    fn ux_a_wheel_run_of_arrows_scrolls_and_a_single_press_stays_a_key() {
        let batch = vec![
            key(KeyCode::Up),
            key(KeyCode::Up),
            key(KeyCode::Up),
            key(KeyCode::Char('a')),
            key(KeyCode::Down),
            key(KeyCode::Down),
            key(KeyCode::Down),
            key(KeyCode::Up),
        ];
        let msgs = coalesce(batch, true, keys_only);
        assert_eq!(
            msgs,
            vec![
                Msg::Scroll(3),
                Msg::Key(KeyEvent::new(KeyCode::Char('a'), KeyModifiers::NONE)),
                Msg::Scroll(-3),
                Msg::Key(KeyEvent::new(KeyCode::Up, KeyModifiers::NONE)),
            ]
        );
    }

    #[test]
    fn ux_arrows_typed_ahead_on_a_panel_stay_keys() {
        let down = || key(KeyCode::Down);
        let msgs = coalesce(vec![down(), down(), key(KeyCode::Enter)], false, keys_only);
        assert_eq!(msgs.len(), 3);
        assert!(msgs.iter().all(|m| matches!(m, Msg::Key(_))), "{msgs:?}");
    }

    #[test]
    fn ux_arrows_with_modifiers_are_never_a_wheel() {
        let shift_up = Event::Key(KeyEvent::new(KeyCode::Up, KeyModifiers::SHIFT));
        let msgs = coalesce(vec![shift_up.clone(), shift_up], true, keys_only);
        assert!(msgs.iter().all(|m| matches!(m, Msg::Key(_))), "{msgs:?}");
    }
}
