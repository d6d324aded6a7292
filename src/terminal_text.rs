//! Text from the model or a tool on its way to a terminal. Control
//! characters in it (a command's `\x1b[2J`, a title-setting OSC, a bell)
//! would act on the user's terminal, so each becomes U+FFFD; tabs stay.

/// `text` with its control characters replaced (line breaks included: the
/// callers print one line at a time).
pub fn neutralize_controls(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}
