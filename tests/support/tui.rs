//! Shared helpers of the TUI tests: a model with a started session, frames
//! drawn through ratatui's `TestBackend`, key and runtime messages, and
//! snapshots in the top-level `snapshots/` directory.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use zcode::permission::mode::{ExecutionState, Mode, ModeSource};
use zcode::permission::rules::Rule;
use zcode::protocol::{AlwaysOption, Event, PermissionRequest, RequestKind};
use zcode::tui::{Model, Msg, update, view};

/// Asserts `value` against `snapshots/{name}.snap`. insta resolves the
/// path from this file, `tests/support/tui.rs`.
pub fn snapshot(name: &str, value: impl AsRef<str>) {
    insta::with_settings!({
        snapshot_path => "../../snapshots",
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(name, value.as_ref());
    });
}

/// A frame of `model` drawn on a fresh `width` × `height` terminal.
pub fn render(model: &Model, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test backend");
    terminal.draw(|f| view(model, f)).expect("draw");
    terminal
}

/// The text of a frame, one quoted line a row.
pub fn screen(model: &Model, width: u16, height: u16) -> String {
    render(model, width, height).backend().to_string()
}

/// [`screen`] at the model's own size.
pub fn screen_of(model: &Model) -> String {
    screen(model, model.width, model.height)
}

/// A frame with its styles (the buffer's Debug form), for where colour
/// carries meaning.
pub fn styled(model: &Model, width: u16, height: u16) -> String {
    format!("{:?}", render(model, width, height).backend().buffer())
}

/// [`styled`] at the model's own size.
pub fn styled_of(model: &Model) -> String {
    styled(model, model.width, model.height)
}

/// Feeds a runtime event to `update`.
pub fn event(model: &mut Model, event: Event) {
    update(model, Msg::Runtime(event));
}

/// Starts turn `turn` with the user's `text`.
pub fn turn_started(model: &mut Model, turn: u64, text: &str) {
    event(
        model,
        Event::TurnStarted {
            turn,
            text: text.into(),
        },
    );
}

/// A key press without modifiers.
pub fn key(code: KeyCode) -> Msg {
    key_mod(code, KeyModifiers::NONE)
}

/// A key press with `modifiers`.
pub fn key_mod(code: KeyCode, modifiers: KeyModifiers) -> Msg {
    Msg::Key(KeyEvent::new(code, modifiers))
}

/// Ctrl and a character.
pub fn ctrl(c: char) -> Msg {
    key_mod(KeyCode::Char(c), KeyModifiers::CONTROL)
}

/// Types `text` key by key, asserting no key produces a command.
pub fn type_text(model: &mut Model, text: &str) {
    for c in text.chars() {
        assert!(update(model, key(KeyCode::Char(c))).is_empty());
    }
}

/// A Bash approval request for `cargo test --workspace` that suggests the
/// `cargo test:*` prefix.
pub fn bash_request(id: &str) -> PermissionRequest {
    PermissionRequest {
        request_id: id.into(),
        kind: RequestKind::Tool,
        call_id: format!("call_{id}"),
        tool: "Bash".into(),
        input: json!({"command": "cargo test --workspace", "description": "Run the tests"}),
        rule_id: "ask.default".into(),
        reason: "runs a command that can change files".into(),
        suggestions: vec![Rule {
            tool_name: "Bash".into(),
            rule_content: Some("cargo test:*".into()),
        }],
        always: AlwaysOption::Project,
        full_access_available: true,
        description: None,
        edit_mode_available: false,
        allowed_prompts: Vec::new(),
        preview: None,
        agent: None,
    }
}

/// A model that has seen `SessionStarted` with the defaults of [`Session`].
pub fn session(width: u16, height: u16) -> Model {
    Session::new(width, height).start()
}

/// Builds a model that has seen `SessionStarted`: session
/// `sess_0123456789abcdef` in `/home/dev/project`, by default in build
/// mode on `anthropic/claude-sonnet-4-5` with no known context window.
pub struct Session {
    width: u16,
    height: u16,
    model: &'static str,
    provider: &'static str,
    mode: Mode,
    context_window: u64,
    sandbox_notice: Option<&'static str>,
    mode_source: ModeSource,
}

impl Session {
    pub fn new(width: u16, height: u16) -> Self {
        Self {
            width,
            height,
            model: "anthropic/claude-sonnet-4-5",
            provider: "Anthropic",
            mode: Mode::Build,
            context_window: 0,
            sandbox_notice: None,
            mode_source: ModeSource::Default,
        }
    }

    /// The session starts without the kernel sandbox, saying `notice`.
    pub fn sandbox_notice(mut self, notice: &'static str) -> Self {
        self.sandbox_notice = Some(notice);
        self
    }

    /// The model reference and provider name the session announces.
    pub fn model(mut self, model: &'static str, provider: &'static str) -> Self {
        self.model = model;
        self.provider = provider;
        self
    }

    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Where the session's mode came from (EXEC-6); by default nothing chose it.
    pub fn mode_source(mut self, source: ModeSource) -> Self {
        self.mode_source = source;
        self
    }

    pub fn context_window(mut self, tokens: u64) -> Self {
        self.context_window = tokens;
        self
    }

    /// A new model, updated with the `SessionStarted` event.
    pub fn start(self) -> Model {
        let mut m = Model::new(self.width, self.height);
        event(
            &mut m,
            Event::SessionStarted {
                session_id: "sess_0123456789abcdef".into(),
                workspace: "/home/dev/project".into(),
                model: self.model.into(),
                provider: self.provider.into(),
                offline_demo: false,
                state: ExecutionState::new(self.mode, false),
                resumed: false,
                context_window: Some(self.context_window).filter(|&w| w > 0),
                sandbox_notice: self.sandbox_notice.map(String::from),
                mode_source: self.mode_source,
            },
        );
        m
    }
}

/// The origin of a model's clock in a test. The model reads time only from
/// `Msg::Tick`, so any instant serves; tests move the clock with
/// `origin + Duration`, never by waiting, and elapsed wall time never
/// enters an assertion.
pub fn clock_origin() -> std::time::Instant {
    static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    *ORIGIN.get_or_init(std::time::Instant::now)
}

/// A tool call starts.
pub fn started(m: &mut Model, id: &str, tool: &str, input: serde_json::Value) {
    event(
        m,
        Event::ToolCallStarted {
            call_id: id.into(),
            tool: tool.into(),
            input,
        },
    );
}

/// A tool call ends with `output`, failed or not, with its exit code.
pub fn finished(
    m: &mut Model,
    id: &str,
    tool: &str,
    output: &str,
    is_error: bool,
    code: Option<i32>,
) {
    event(
        m,
        Event::ToolCallFinished {
            call_id: id.into(),
            tool: tool.into(),
            output: output.into(),
            is_error,
            diff: None,
            exit_code: code,
        },
    );
}
