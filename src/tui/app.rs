//! The loop: `tokio::select!` over terminal input, runtime events and a
//! tick. Each turn of the loop takes everything already waiting (keys and
//! runtime events alike), steps the model through all of it, and draws only
//! when the model is dirty, at most once per frame, laying the transcript
//! out once for the whole batch (TUI-2): a stream of deltas costs a layout
//! and a draw per frame, not per delta, and keys stay live under any stream.

use super::clipboard;
use super::focus::{Focus, focus};
use super::launcher::Launcher;
use super::model::Model;
use super::msg::{Cmd, Msg};
use super::scrollback::{self, exit_text};
use super::terminal::{TuiTerminal, enhance_keyboard, no_color};
use super::update::{settle, step};
use super::view::view;
use super::wheel::coalesce;
use crate::protocol::{Event, Op};
use crate::runtime::RuntimeHandle;
use crossterm::event::{Event as TermEvent, EventStream, MouseEventKind};
use futures_util::StreamExt;
use std::collections::VecDeque;
use std::task::Poll;
use std::time::{Duration, Instant};

/// One frame: draws are at most this often.
const FRAME: Duration = Duration::from_millis(16);
/// The spinner and elapsed-time clock.
const TICK: Duration = Duration::from_millis(100);
/// How long the runtime gets to finish writing after Shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// Translates a terminal event; `None` for what the app ignores.
pub fn term_msg(event: TermEvent) -> Option<Msg> {
    match event {
        TermEvent::Key(key) => Some(Msg::Key(key)),
        TermEvent::Paste(text) => Some(Msg::Paste(text)),
        TermEvent::Resize(w, h) => Some(Msg::Resize(w, h)),
        TermEvent::Mouse(m) => match m.kind {
            MouseEventKind::ScrollUp => Some(Msg::Scroll(3)),
            MouseEventKind::ScrollDown => Some(Msg::Scroll(-3)),
            _ => None,
        },
        _ => None,
    }
}

/// Gives the model the command files and skills; returns the notices of
/// the command files left out, to tell once the session has started (below
/// its welcome).
pub fn add_extensions(model: &mut Model, extensions: super::launcher::Extensions) -> Vec<String> {
    model.command_files = extensions.commands;
    model.skills = extensions.skills;
    extensions
        .problems
        .into_iter()
        .map(|problem| format!("Command file left out: {problem}"))
        .collect()
}

/// Runs the TUI until the user quits or the runtime ends. `launcher`
/// starts the sessions `/new` and `/resume` switch to. Returns what to
/// print once the terminal is back: the transcript's tail and the command
/// that resumes the session.
pub async fn run(handle: RuntimeHandle, launcher: Box<dyn Launcher>) -> anyhow::Result<String> {
    let mut term = TuiTerminal::enter()?;
    let size = term.terminal.size()?;
    let mut model = Model::new(size.width, size.height);
    model.session_id = handle.session_id.clone();
    model.monochrome = no_color();
    let mut startup_notices = add_extensions(&mut model, launcher.extensions());
    model.exports_dir = launcher.exports_dir();
    // ↑ starts with the project's last prompts (a store that cannot be
    // read leaves it empty; saving then reports the fault).
    model.history = launcher.prompt_history().unwrap_or_default();
    let mut history = HistorySaver::new(model.history.len());
    model.now = Some(Instant::now());
    let cwd = std::env::current_dir().unwrap_or_default();
    let mouse_capture = super::terminal::mouse_capture();
    model.git_branch = crate::git_info::current_branch(&cwd);
    let mut runtime = handle;
    // Made after the first frame, once the keyboard query is done.
    let mut input: Option<EventStream> = None;
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut last_draw: Option<Instant> = None;
    let result: anyhow::Result<()> = 'outer: loop {
        if model.dirty {
            let due = last_draw.is_none_or(|t| t.elapsed() >= FRAME);
            if due {
                settle(&mut model);
                if let Err(e) = term.terminal.draw(|f| view(&model, f)) {
                    break Err(e.into());
                }
                model.dirty = false;
                last_draw = Some(Instant::now());
            }
        }
        if input.is_none() {
            // The first frame is up; now the terminal may be slow to answer.
            let _ = tokio::task::spawn_blocking(enhance_keyboard).await;
            input = Some(EventStream::new());
        }
        let Some(stream) = input.as_mut() else {
            break Ok(());
        };
        let next_frame = last_draw.map_or_else(Instant::now, |t| t + FRAME);
        // The clock ticks only while something moves (the spinner, a
        // relayout after a resize, the quit hint that expires): an idle UI
        // sleeps until a key or an event comes, whatever the transcript's
        // length.
        let ticking = model.busy || !model.transcript_layout.is_complete() || model.quit_armed;
        let mut msgs = VecDeque::new();
        // Terminal events go through `wheel::coalesce` as one batch, so a
        // wheel notch's run of arrows is seen whole.
        let mut term_events = Vec::new();
        tokio::select! {
            ev = stream.next() => match ev {
                Some(Ok(ev)) => term_events.push(ev),
                Some(Err(e)) => break Err(anyhow::anyhow!("cannot read the terminal: {e}")),
                None => break Ok(()),
            },
            ev = runtime.events.recv() => match ev {
                Some(ev) => msgs.push_back(Msg::Runtime(ev)),
                None => break Ok(()),
            },
            now = tick.tick(), if ticking => msgs.push_back(Msg::Tick(now.into_std())),
            _ = tokio::time::sleep_until(next_frame.into()), if model.dirty => {}
        }
        // Everything else already waiting joins the batch: keys in the
        // order typed, then the runtime's burst.
        // Polled with this task's own waker (not `now_or_never`'s no-op
        // one): crossterm keeps the waker of the last pending poll, and a
        // no-op one there would leave the next key unseen until something
        // else woke the loop.
        loop {
            match futures_util::poll!(stream.next()) {
                Poll::Ready(Some(Ok(ev))) => term_events.push(ev),
                Poll::Ready(Some(Err(e))) => {
                    break 'outer Err(anyhow::anyhow!("cannot read the terminal: {e}"));
                }
                Poll::Ready(None) => break 'outer Ok(()),
                Poll::Pending => break,
            }
        }
        // With mouse capture the wheel comes as mouse events: arrows are
        // always keys then.
        let wheel_arrows = !mouse_capture && focus(&model) == Focus::Composer;
        for msg in coalesce(term_events, wheel_arrows, term_msg)
            .into_iter()
            .rev()
        {
            msgs.push_front(msg);
        }
        while let Ok(ev) = runtime.events.try_recv() {
            msgs.push_back(Msg::Runtime(ev));
        }
        if !ticking {
            // What the batch starts (a turn's clock) reads the time now.
            msgs.push_front(Msg::Tick(Instant::now()));
        }
        while let Some(msg) = msgs.pop_front() {
            if let Msg::Runtime(Event::TurnFinished { .. }) = msg {
                // A turn may have switched branches (`git checkout`).
                let branch = crate::git_info::current_branch(&cwd);
                if branch != model.git_branch {
                    model.git_branch = branch;
                    model.dirty = true;
                }
            }
            let started = matches!(msg, Msg::Runtime(Event::SessionStarted { .. }));
            let cmds = step(&mut model, msg);
            if started {
                for message in startup_notices.drain(..).rev() {
                    msgs.push_front(Msg::Runtime(Event::Notice { message }));
                }
            }
            for cmd in cmds {
                match cmd {
                    Cmd::Send(op) => {
                        if runtime.ops.send(op).is_err() {
                            break 'outer Err(anyhow::anyhow!("the agent runtime stopped"));
                        }
                    }
                    Cmd::Quit => break 'outer Ok(()),
                    Cmd::Suspend => {
                        term.suspend()?;
                        model.dirty = true;
                    }
                    Cmd::EditMemory => {
                        let edited = launcher
                            .memory_file()
                            .and_then(|path| term.edit_file(&path).map(|()| path));
                        msgs.push_back(match edited {
                            Ok(path) => notice_msg(format!(
                                "Saved {}; sessions from now on see it (this one keeps the memory it started with).",
                                path.display()
                            )),
                            Err(e) => error_msg(format!("/memory edit: {e}")),
                        });
                        model.dirty = true;
                    }
                    Cmd::ListSessions => msgs.push_back(match launcher.sessions() {
                        Ok(list) => Msg::Sessions(list),
                        Err(e) => error_msg(format!("cannot list the sessions: {e}")),
                    }),
                    Cmd::ListModels => msgs.push_back(match launcher.models() {
                        Ok(list) => Msg::Models(list),
                        Err(e) => error_msg(format!("cannot list the models: {e}")),
                    }),
                    Cmd::Copy(text) => {
                        if let Err(e) = copy_to_clipboard(&text) {
                            msgs.push_back(error_msg(format!("/copy: {e}")));
                        }
                    }
                    Cmd::Export { path, markdown } => {
                        msgs.push_back(export(&path, &markdown, model.exports_dir.as_deref()))
                    }
                    Cmd::StartSession(start) => {
                        // The new runtime starts first: if it cannot, the
                        // current one goes on.
                        match launcher.start(start, &model.model_label) {
                            Ok(next) => {
                                let old = std::mem::replace(&mut runtime, next);
                                shut_down(old).await;
                                // Events of the old runtime still queued are
                                // dropped with it; the model starts over.
                                msgs.clear();
                                msgs.push_back(Msg::SessionReplaced);
                            }
                            Err(e) => {
                                msgs.push_back(error_msg(format!("cannot start the session: {e}")))
                            }
                        }
                    }
                }
            }
        }
        if let Some(message) = history.save_new(&model.history, launcher.as_ref()) {
            step(&mut model, error_msg(message));
        }
        if !model.transcript_layout.is_complete() {
            // A relayout after a resize goes on chunk by chunk, on ticks,
            // even when nothing is drawn.
            settle(&mut model);
        }
    };
    drop(term);
    shut_down(runtime).await;
    result.map(|()| exit_text(&model, scrollback::MAX_ROWS))
}

/// Writes the prompts sent since the last look to the project's history
/// (those `history::keep_across_sessions` allows), so a later session's ↑
/// finds them.
struct HistorySaver {
    /// How many entries of the model's history are written or judged.
    saved: usize,
    /// A failure was reported: it is said once.
    failed: bool,
}

impl HistorySaver {
    fn new(loaded: usize) -> Self {
        Self {
            saved: loaded,
            failed: false,
        }
    }

    /// Saves the entries past `saved`; returns what to tell the user when
    /// the first save fails.
    fn save_new(&mut self, history: &[String], launcher: &dyn Launcher) -> Option<String> {
        let new = history.get(self.saved..).unwrap_or_default();
        self.saved = history.len();
        let mut error = None;
        for prompt in new
            .iter()
            .filter(|p| super::history::keep_across_sessions(p))
        {
            if let Err(e) = launcher.remember_prompt(prompt)
                && !self.failed
            {
                self.failed = true;
                error = Some(format!(
                    "cannot save the prompt history (↑ in later sessions will miss it): {e}"
                ));
            }
        }
        error
    }
}

/// OSC 52 between frames (the frame writer holds nothing then), and tmux's
/// own buffer when inside tmux, which otherwise drops the sequence.
fn copy_to_clipboard(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let sequence = clipboard::osc52(text).map_err(std::io::Error::other)?;
    let mut out = std::io::stdout().lock();
    out.write_all(sequence.as_bytes())?;
    out.flush()?;
    drop(out);
    if clipboard::in_tmux() {
        // Quick, and bounded at 2 s should tmux not answer; a failure is
        // reported, as the terminal's clipboard may still have the text.
        clipboard::tmux_load_buffer(text)
            .map_err(|e| std::io::Error::other(format!("inside tmux, {e}")))?;
    }
    Ok(())
}

/// Writes an export to a new file; an existing one is never replaced. The
/// exports directory is made when missing; a directory the user named is
/// not. The notice names the file as the user gave it, or by the default's
/// absolute path.
fn export(path: &std::path::Path, markdown: &str, exports_dir: Option<&std::path::Path>) -> Msg {
    use std::io::Write;
    if let Some(parent) = path.parent()
        && parent == super::export::exports_dir_or_default(exports_dir)
        && let Err(e) = std::fs::create_dir_all(parent)
    {
        return error_msg(format!("/export: cannot make {}: {e}", parent.display()));
    }
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut f| f.write_all(markdown.as_bytes()).and_then(|()| f.sync_all()));
    match written {
        Ok(()) => Msg::Runtime(Event::Notice {
            message: format!("wrote the conversation to {}", path.display()),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => error_msg(format!(
            "/export: {} already exists; give another file name (/export FILE)",
            path.display()
        )),
        Err(e) => error_msg(format!("/export: cannot write {}: {e}", path.display())),
    }
}

fn error_msg(message: String) -> Msg {
    Msg::Runtime(Event::Error { message })
}

fn notice_msg(message: String) -> Msg {
    Msg::Runtime(Event::Notice { message })
}

/// Asks the runtime to stop and gives it a grace period to finish writing.
async fn shut_down(runtime: RuntimeHandle) {
    let RuntimeHandle { ops, task, .. } = runtime;
    let _ = ops.send(Op::Shutdown);
    drop(ops);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, task).await;
}
