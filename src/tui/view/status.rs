//! The status line (mode and its description, model, session, context use,
//! spinner) and the footer of keys that work right now.

use crate::tui::focus::Focus;
use crate::tui::keys::hints;
use crate::tui::layout::truncate;
use crate::tui::model::Model;
use crate::tui::screen::SIDEBAR_MIN_TERMINAL_WIDTH;
use crate::tui::theme::Theme;
use crate::tui::view::sidebar::progress;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Shown while commands judged read-only run without the kernel sandbox.
const NO_SANDBOX: &str = "no sandbox";

/// In place of the spinner while a request waits for the user.
const WAITING: &str = "waiting for you";

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

pub fn render_status(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let width = usize::from(area.width);
    let label = model.state.label();
    let mut spans = vec![Span::styled(format!(" {label} "), theme.mode_badge(label))];
    // The mode description is exact text (EXEC-2): the session id, then the
    // model, then the context figure's detail give way before it is cut.
    // The clock stops while a request waits: that time is the user's.
    let spinner = if model.busy && model.waiting_for_user() {
        WAITING.to_string()
    } else if model.busy {
        let secs = model.elapsed().map_or(0, |d| d.as_secs());
        format!("{} {secs}s", SPINNER[model.spinner % SPINNER.len()])
    } else {
        String::new()
    };
    // Where the sidebar cannot show, the list's progress stays in sight.
    let todos = if model.todos.is_empty() || model.width >= SIDEBAR_MIN_TERMINAL_WIDTH {
        String::new()
    } else {
        format!("todos {}", progress(&model.todos))
    };
    let (ctx_long, ctx_short) = context_use(model);
    let cache = cache_use(model);
    let session = model.short_session();
    let sandbox = if model.sandbox_missing {
        NO_SANDBOX
    } else {
        ""
    };
    // What commands left running stays in sight as long as the sandbox note.
    let running = match model.background {
        0 => String::new(),
        n => format!("{n} running"),
    };
    let place = place(model);
    let candidates = [
        vec![
            spinner.as_str(),
            &todos,
            &running,
            sandbox,
            &ctx_long,
            &cache,
            &place,
            &model.model_label,
            session,
        ],
        vec![
            spinner.as_str(),
            &todos,
            &running,
            sandbox,
            &ctx_long,
            &cache,
            &place,
            &model.model_label,
        ],
        vec![
            &spinner,
            &todos,
            &running,
            sandbox,
            &ctx_long,
            &cache,
            &model.model_label,
        ],
        vec![&spinner, &todos, &running, sandbox, &ctx_long, &cache],
        vec![&spinner, &todos, &running, sandbox, &ctx_long],
        vec![&spinner, &todos, &running, sandbox, &ctx_short, &cache],
        vec![&spinner, &todos, &running, sandbox, &ctx_short],
        vec![&spinner, &todos, &running, sandbox],
        vec![&spinner, &todos],
        vec![&spinner],
    ];
    let fixed = label.chars().count() + 2 + 1;
    let full = model.state.description().chars().count();
    let fits = |right: usize| fixed + full + 1 + right < width;
    let parts: Vec<&str> = candidates
        .iter()
        .map(|c| {
            c.iter()
                .copied()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
        })
        .find(|parts| fits(joined_width(parts)))
        .unwrap_or_else(|| {
            vec![spinner.as_str()]
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect()
        });
    let right_width = joined_width(&parts) + 1;
    let room = width.saturating_sub(fixed + right_width);
    let description = truncate(model.state.description(), room);
    let pad = room.saturating_sub(description.chars().count());
    spans.push(Span::raw(" "));
    spans.push(Span::styled(description, theme.dim()));
    spans.push(Span::raw(" ".repeat(pad)));
    let base = if model.busy {
        theme.warning()
    } else {
        theme.dim()
    };
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", base));
        }
        let style = if *part == ctx_long || *part == ctx_short {
            context_style(model, theme).unwrap_or(base)
        } else if *part == NO_SANDBOX || *part == running {
            theme.warning()
        } else {
            base
        };
        spans.push(Span::styled(part.to_string(), style));
    }
    spans.push(Span::raw(" "));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Where the session works: the workspace's directory name and the git
/// branch checked out there ("zcode@main"), as far as they are known.
pub fn place(model: &Model) -> String {
    let dir = std::path::Path::new(&model.workspace)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match (dir.is_empty(), model.git_branch.as_deref()) {
        (_, None) => dir,
        (true, Some(branch)) => branch.to_string(),
        (false, Some(branch)) => format!("{dir}@{branch}"),
    }
}

/// Columns of the parts joined with " · ".
fn joined_width(parts: &[&str]) -> usize {
    let text: usize = parts.iter().map(|p| p.chars().count()).sum();
    text + 3 * parts.len().saturating_sub(1)
}

/// How full the context is, long ("ctx 12% (24k/200k)") and short
/// ("ctx 12%"); the token count over "?" when the window is unknown
/// ("ctx 24k/?"), nothing before the first request.
pub fn context_use(model: &Model) -> (String, String) {
    let used = model.context_tokens;
    if used == 0 {
        return (String::new(), String::new());
    }
    let window = model.context_window;
    if window == 0 {
        let only = format!("ctx {}/?", tokens(used));
        return (only.clone(), only);
    }
    let percent = context_percent(used, window);
    (
        format!("ctx {percent}% ({}/{})", tokens(used), tokens(window)),
        format!("ctx {percent}%"),
    )
}

/// How much of the last request's context the provider's prompt cache
/// served ("cache 87%"); nothing until the session has used a cache, so a
/// provider without one adds no noise.
pub fn cache_use(model: &Model) -> String {
    let cache_seen =
        model.usage.cache_read_input_tokens > 0 || model.usage.cache_creation_input_tokens > 0;
    if !cache_seen || model.context_tokens == 0 {
        return String::new();
    }
    let read = model.context_cached.min(model.context_tokens);
    format!("cache {}%", read.saturating_mul(100) / model.context_tokens)
}

fn context_percent(used: u64, window: u64) -> u64 {
    (used.saturating_mul(100) + window / 2) / window.max(1)
}

/// A nearly full context is worth a glance: yellow from 70%, red from 90%.
fn context_style(model: &Model, theme: &Theme) -> Option<Style> {
    if model.context_window == 0 || model.context_tokens == 0 {
        return None;
    }
    match context_percent(model.context_tokens, model.context_window) {
        90.. => Some(theme.error().add_modifier(Modifier::BOLD)),
        70..=89 => Some(theme.warning()),
        _ => None,
    }
}

/// Token counts as the status line shows them.
pub use crate::figures::tokens;

/// The footer: the keys of the layer that has the focus.
pub fn render_footer(model: &Model, focus: Focus, theme: &Theme, frame: &mut Frame, area: Rect) {
    let mut spans = vec![Span::raw(" ")];
    let mut used = 1;
    let width = usize::from(area.width);
    for (i, (key, what)) in hints(focus, model).into_iter().enumerate() {
        let sep = if i == 0 { "" } else { "  " };
        let piece = sep.chars().count() + key.chars().count() + 1 + what.chars().count();
        if used + piece > width {
            break;
        }
        used += piece;
        spans.push(Span::raw(sep));
        spans.push(Span::styled(key, theme.bold()));
        spans.push(Span::styled(format!(" {what}"), theme.dim()));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
