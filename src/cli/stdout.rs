//! Standard output for the listing commands (`zcode permission`, `models`,
//! `sessions`). `println!` panics when the reader has gone (`zcode models |
//! head -1`); a listing whose reader stopped reading is done, so zcode
//! leaves quietly, as `ls` and ripgrep do.

use std::fmt::Arguments;
use std::io::{ErrorKind, Write};

/// Writes one line; a closed pipe ends the process with success, any other
/// failure is reported once on stderr.
pub fn write_line(args: Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| out.write_all(b"\n"));
    match written.and_then(|()| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            eprintln!("zcode: cannot write to standard output: {e}");
            std::process::exit(1);
        }
    }
}

/// Writes text as it is (no newline added), like [`write_line`].
pub fn write_text(text: &str) {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            eprintln!("zcode: cannot write to standard output: {e}");
            std::process::exit(1);
        }
    }
}

/// `println!` for the listing commands, without its panic on a closed pipe.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write_line(format_args!($($arg)*))
    };
}
pub(crate) use outln;
