//! Terminal setup and restore (TUI-5): raw mode, alternate screen,
//! bracketed paste, the wheel as arrow keys (alternate scroll, so the mouse
//! stays the terminal's and selects text natively; `ZCODE_MOUSE=capture`
//! captures it instead), and the keyboard protocol that tells Shift+Enter
//! from Enter. Restored on every exit path: `Drop` covers
//! returns and errors, the panic hook covers panics.

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::execute;
use crossterm::terminal::{
    Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode,
    enable_raw_mode, supports_keyboard_enhancement,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};

pub type Backend = CrosstermBackend<FrameOut>;

/// Begins a synchronized update (DEC private mode 2026): the terminal holds
/// what follows until the end mark and then shows it at once.
const BEGIN_SYNC: &[u8] = b"\x1b[?2026h";
const END_SYNC: &[u8] = b"\x1b[?2026l";

/// Standard output for frames. Bytes gather here and go out at `flush` in
/// one write, between the marks of a synchronized update, so a terminal that
/// has the mode never shows a half-drawn frame (no tearing or flicker while
/// a reply streams); one without it ignores the unknown mode, as terminals
/// do. Once the terminal is restored (a panic restores it first) nothing
/// goes out, so a half-made frame cannot land on the shell's screen.
#[derive(Default)]
pub struct FrameOut {
    buf: Vec<u8>,
}

impl Write for FrameOut {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let frame = std::mem::take(&mut self.buf);
        if !ACTIVE.load(Ordering::SeqCst) {
            return Ok(());
        }
        let mut out = io::stdout().lock();
        let mut all = Vec::with_capacity(frame.len() + BEGIN_SYNC.len() + END_SYNC.len());
        all.extend_from_slice(BEGIN_SYNC);
        all.extend_from_slice(&frame);
        all.extend_from_slice(END_SYNC);
        // The buffer is kept for the next frame.
        self.buf = frame;
        self.buf.clear();
        out.write_all(&all)?;
        out.flush()
    }
}

/// Whether the keyboard enhancement flags were pushed (and must be popped).
static ENHANCED: AtomicBool = AtomicBool::new(false);
/// Whether the terminal is currently in TUI state.
static ACTIVE: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

/// Alternate scroll (DEC private mode 1007): without mouse capture, the
/// wheel in the alternate screen arrives as arrow keys (see `wheel`).
const ALTERNATE_SCROLL_ON: &str = "\x1b[?1007h";
const ALTERNATE_SCROLL_OFF: &str = "\x1b[?1007l";

/// `ZCODE_MOUSE=capture`: the wheel as mouse events, for terminals that do
/// not turn it into arrow keys; selecting text then needs the terminal's
/// bypass modifier (Shift in most).
pub fn mouse_capture() -> bool {
    std::env::var("ZCODE_MOUSE").is_ok_and(|v| v.eq_ignore_ascii_case("capture"))
}

/// `NO_COLOR` set to anything non-empty (no-color.org).
pub fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// The terminal in TUI state; restores it when dropped.
pub struct TuiTerminal {
    pub terminal: Terminal<Backend>,
}

impl TuiTerminal {
    /// Raw mode, alternate screen, paste and mouse; the keyboard protocol
    /// comes later with [`enhance_keyboard`].
    pub fn enter() -> io::Result<Self> {
        install_panic_hook();
        enter_modes()?;
        let terminal = match Terminal::new(CrosstermBackend::new(FrameOut::default())) {
            Ok(t) => t,
            Err(e) => {
                restore();
                return Err(e);
            }
        };
        Ok(Self { terminal })
    }

    /// Gives the terminal back (for Ctrl+Z), then takes it again.
    pub fn suspend(&mut self) -> io::Result<()> {
        restore();
        #[cfg(unix)]
        // SAFETY: raising a signal on the current process has no memory
        // effects; SIGTSTP stops it until the shell continues it.
        unsafe {
            libc::raise(libc::SIGTSTP);
        }
        enter_modes()?;
        enhance_keyboard();
        // `Terminal::clear` asks the terminal where the cursor is, and the
        // app stopped with an error when no answer came. Clearing the screen
        // ourselves and resetting the last frame (after a draw the other
        // buffer is already empty) redraws everything without asking.
        execute!(io::stdout(), Clear(ClearType::All))?;
        self.terminal.swap_buffers();
        Ok(())
    }
}

impl TuiTerminal {
    /// Gives the terminal to the user's editor (`$VISUAL`, else `$EDITOR`,
    /// else `vi`) on `path` until it exits, then takes it again. The
    /// file's directory is made first.
    pub fn edit_file(&mut self, path: &std::path::Path) -> anyhow::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
        }
        let editor = std::env::var("VISUAL")
            .ok()
            .filter(|e| !e.trim().is_empty())
            .or_else(|| {
                std::env::var("EDITOR")
                    .ok()
                    .filter(|e| !e.trim().is_empty())
            })
            .unwrap_or_else(|| "vi".to_string());
        // `code -w` and the like: the words are the program and its flags.
        let mut words = editor.split_whitespace();
        let program = words.next().unwrap_or("vi").to_string();
        let flags: Vec<String> = words.map(str::to_string).collect();
        restore();
        let ran = std::process::Command::new(&program)
            .args(&flags)
            .arg(path)
            .status();
        enter_modes()?;
        enhance_keyboard();
        execute!(io::stdout(), Clear(ClearType::All))?;
        self.terminal.swap_buffers();
        match ran {
            Ok(status) if status.success() => Ok(()),
            Ok(status) => Err(anyhow::anyhow!("{program} ended with {status}")),
            Err(e) => Err(anyhow::anyhow!("cannot run the editor {program}: {e}")),
        }
    }
}

impl Drop for TuiTerminal {
    fn drop(&mut self) {
        let _ = self.terminal.show_cursor();
        restore();
    }
}

fn enter_modes() -> io::Result<()> {
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let mut out = io::stdout();
    let result = execute!(out, EnterAlternateScreen, EnableBracketedPaste).and_then(|()| {
        if mouse_capture() {
            execute!(out, EnableMouseCapture)
        } else {
            out.write_all(ALTERNATE_SCROLL_ON.as_bytes())?;
            out.flush()
        }
    });
    if let Err(e) = result {
        restore();
        return Err(e);
    }
    Ok(())
}

/// Turns on the keyboard protocol where the terminal has it. Asking
/// blocks until the terminal answers, and one that never answers (a bare
/// pty, some multiplexers) costs crossterm's 2 s timeout: callers ask after
/// the first frame is up, never before.
pub fn enhance_keyboard() {
    if !ACTIVE.load(Ordering::SeqCst) || ENHANCED.load(Ordering::SeqCst) {
        return;
    }
    if supports_keyboard_enhancement().unwrap_or(false) {
        let pushed = execute!(
            io::stdout(),
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        );
        ENHANCED.store(pushed.is_ok(), Ordering::SeqCst);
    }
}

/// Puts the terminal back as it was. Safe to call more than once.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = io::stdout();
    if ENHANCED.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
    let _ = out.write_all(ALTERNATE_SCROLL_OFF.as_bytes());
    let _ = execute!(
        out,
        DisableMouseCapture,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
    print_held_panics();
}

/// Restores the terminal before the previous hook prints the panic, so the
/// message lands on a sane screen. A panic on another thread while the UI
/// runs (a tool's, which the pipeline turns into a tool error, or a task's)
/// leaves the UI as it is: its message is held and printed once the
/// terminal is restored, instead of being drawn over the screen.
fn install_panic_hook() {
    HOOK.call_once(|| {
        let ui_thread = std::thread::current().id();
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if ACTIVE.load(Ordering::SeqCst) && std::thread::current().id() != ui_thread {
                let mut held = HELD_PANICS.lock().unwrap_or_else(|p| p.into_inner());
                if held.len() < MAX_HELD_PANICS {
                    held.push(info.to_string());
                }
                return;
            }
            restore();
            previous(info);
        }));
    });
}

/// Panics of other threads seen while the UI ran, printed after it.
static HELD_PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());
const MAX_HELD_PANICS: usize = 8;

fn print_held_panics() {
    let held = std::mem::take(&mut *HELD_PANICS.lock().unwrap_or_else(|p| p.into_inner()));
    for message in held {
        eprintln!("zcode: a background thread panicked while the UI ran: {message}");
    }
}
