//! TOOL-3 Edit: exact string replacement in a file the model has read.

use super::client_files::{ClientFiles, Route, read_through, served_as_text, write_through};
use super::input::{self, Fields};
use super::special_files::{OpenFailure, read_regular};
use super::write::atomic_write;
use super::{Tool, ToolContext, ToolOutput, blocking, blocking_cancellable, diff, paths};
use crate::permission::capability::{Capability, EDIT_PERMISSION, RiskLevel, SideEffectScope};
use crate::permission::declaration::{AskReason, CoveredBy, ToolDeclaration};
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::Path;

pub const NAME: &str = "Edit";

/// The capability of the tools that change files (Write, Edit).
pub(crate) const FILE_CHANGE: Capability = Capability {
    read_only: false,
    side_effect_scope: SideEffectScope::Workspace,
    risk_level: RiskLevel::Medium,
    needs_approval: true,
    ..Capability::read_only_low(EDIT_PERMISSION)
};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EditInput {
    pub file_path: String,
    pub old_string: String,
    pub new_string: String,
    #[serde(default)]
    pub replace_all: bool,
}

impl EditInput {
    pub fn parse(input: Value) -> Result<Self, String> {
        let mut fields = Fields::new(NAME, input)?;
        fields.bool("replace_all")?;
        let parsed: Self = fields.parse()?;
        input::non_empty(NAME, "file_path", &parsed.file_path)?;
        if parsed.old_string.is_empty() {
            return Err(input::invalid(
                NAME,
                "\"old_string\" must not be empty (to create a file, use Write)",
            ));
        }
        if parsed.old_string == parsed.new_string {
            return Err(input::invalid(
                NAME,
                "\"old_string\" and \"new_string\" are identical, so there is nothing to change",
            ));
        }
        Ok(parsed)
    }
}

#[derive(Debug, Default)]
pub struct EditTool;

/// What Edit is to the permission engine, the approval and the TUI.
pub(crate) static DECLARATION: ToolDeclaration = ToolDeclaration::builtin(NAME, FILE_CHANGE)
    .with_wording("change a file", AskReason::File("edits a file"))
    // A Write deny or ask rule covers Edit too: an edit rewrites the file
    // just as well. Allow rules keep RULE-2's one direction.
    .with_covered_by(&[CoveredBy {
        tool: super::write::NAME,
        allow_too: false,
    }]);

impl Tool for EditTool {
    fn description(&self) -> &'static str {
        include_str!("../../assets/tools/edit.md")
    }

    fn compact_description(&self) -> std::borrow::Cow<'static, str> {
        include_str!("../../assets/tools/compact/edit.md").into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "file_path": {
                    "type": "string",
                    "description": "The file to edit: an absolute path, or a path relative to the workspace root"
                },
                "old_string": {
                    "type": "string",
                    "description": "The exact text to replace, including whitespace and indentation"
                },
                "new_string": {
                    "type": "string",
                    "description": "The text to replace it with (must differ from old_string)"
                },
                "replace_all": {
                    "type": "boolean",
                    "default": false,
                    "description": "Replace every occurrence of old_string (default false: old_string must occur exactly once)"
                }
            },
            "required": ["file_path", "old_string", "new_string"],
            "additionalProperties": false
        })
    }

    fn declaration(&self) -> &ToolDeclaration {
        &DECLARATION
    }

    fn validate(&self, input: Value) -> Result<Value, String> {
        input::normalized(NAME, &EditInput::parse(input)?)
    }

    /// The diff the edit would apply; `None` when it could not apply (the
    /// run reports why).
    /// A file read through the editor is previewed against the text read
    /// there (the run checks it is still the editor's).
    fn preview(&self, input: &Value, ctx: &ToolContext) -> Option<String> {
        let input = EditInput::parse(input.clone()).ok()?;
        let path = paths::resolve(&ctx.workspace, &input.file_path);
        let seen = ctx.lock_files().seen_text(&path);
        let planned = match seen {
            Some(text) => plan_text(&path, text?.to_string(), &input).ok()?,
            None => plan(&path, &input).ok()?,
        };
        Some(diff::unified(&path, Some(&planned.old), &planned.new))
    }

    /// An edit of a file not read in this session (or changed since), or
    /// one that cannot apply (no such file, `old_string` not found). A
    /// file read through the editor is checked against the text read
    /// there; whether the editor still holds it is checked by the run.
    fn precheck(&self, input: &Value, ctx: &ToolContext) -> Result<(), String> {
        let input = EditInput::parse(input.clone())?;
        let path = paths::resolve(&ctx.workspace, &input.file_path);
        let seen = ctx.lock_files().seen_text(&path);
        match seen {
            Some(Some(text)) => plan_text(&path, text.to_string(), &input).map(|_| ()),
            Some(None) => Ok(()),
            None => checked_plan(ctx, &path, &input).map(|_| ()),
        }
    }

    fn run<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input = match EditInput::parse(input) {
                Ok(input) => input,
                Err(e) => return ToolOutput::error(e),
            };
            let path = paths::resolve(&ctx.workspace, &input.file_path);
            if let Some(client) = ctx
                .client_files
                .clone()
                .filter(|c| c.can_read() || c.can_write())
            {
                return apply_with_client(client.as_ref(), ctx, &path, &input).await;
            }
            let ctx = ctx.clone();
            blocking(move || apply(&ctx, &path, &input)).await
        })
    }
}

/// An edit worked out but not yet written.
struct Planned {
    old: String,
    new: String,
    replaced: usize,
}

fn plan(path: &Path, input: &EditInput) -> Result<Planned, String> {
    plan_text(path, read_disk_text(path)?, input)
}

/// The text of `path` on disk, which Edit can change only if it is UTF-8.
fn read_disk_text(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let bytes = read_regular(path).map_err(|e| match e {
        OpenFailure::Missing => {
            format!("File does not exist: {shown}. To create a new file, use Write.")
        }
        e => e.message(path, NAME),
    })?;
    String::from_utf8(bytes)
        .map_err(|_| format!("{shown} is not valid UTF-8 text; Edit cannot change it."))
}

/// The edit of `old`, the current text of `path`.
fn plan_text(path: &Path, old: String, input: &EditInput) -> Result<Planned, String> {
    let shown = path.display();
    let (mut find, mut replace) = (input.old_string.clone(), input.new_string.clone());
    // A CRLF file shown by Read without its \r: match (and write) CRLF.
    if !old.contains(&find) && old.contains("\r\n") && find.contains('\n') && !find.contains('\r') {
        let crlf = find.replace('\n', "\r\n");
        if old.contains(&crlf) {
            find = crlf;
            replace = replace.replace("\r\n", "\n").replace('\n', "\r\n");
        }
    }

    let count = old.matches(find.as_str()).count();
    if count == 0 {
        return Err(not_found(path, &old, &input.old_string));
    }
    if count > 1 && !input.replace_all {
        return Err(format!(
            "old_string occurs {count} times in {shown}. Add more surrounding context to old_string so it matches exactly one place, or set replace_all to true to replace every occurrence."
        ));
    }
    let new = if input.replace_all {
        old.replace(find.as_str(), &replace)
    } else {
        old.replacen(find.as_str(), &replace, 1)
    };
    Ok(Planned {
        old,
        new,
        replaced: count,
    })
}

/// The not-found error, with a hint where a near match is.
fn not_found(path: &Path, content: &str, old_string: &str) -> String {
    let mut message = format!(
        "old_string was not found in {}. It must match the file exactly, including whitespace, indentation and line breaks.",
        path.display()
    );
    let trimmed = old_string.trim();
    if trimmed != old_string && !trimmed.is_empty() && content.contains(trimmed) {
        message.push_str(
            " The text without its leading/trailing whitespace does occur: check the whitespace at its start and end.",
        );
        return message;
    }
    let first = old_string.lines().map(str::trim).find(|l| !l.is_empty());
    if let Some(first) = first {
        let hit = content
            .lines()
            .position(|line| line.trim() == first)
            .or_else(|| content.lines().position(|line| line.contains(first)));
        if let Some(index) = hit {
            message.push_str(&format!(
                " Its first line appears (ignoring indentation) at line {}: Read the file around there and copy the text exactly.",
                index + 1
            ));
            return message;
        }
    }
    message.push_str(" Read the file again to see its current content.");
    message
}

/// The edit worked out, once the file was read in this session and has not
/// changed since (TOOL-2's guard comes first: its advice is to read).
fn checked_plan(ctx: &ToolContext, path: &Path, input: &EditInput) -> Result<Planned, String> {
    if path.exists() {
        ctx.lock_files()
            .check_overwrite(path)
            .map_err(|why| why.replace("then write", "then edit"))?;
    }
    plan(path, input)
}

fn apply(ctx: &ToolContext, path: &Path, input: &EditInput) -> ToolOutput {
    let planned = match checked_plan(ctx, path, input) {
        Ok(planned) => planned,
        Err(e) => return ToolOutput::error(e),
    };
    if let Err(e) = atomic_write(path, planned.new.as_bytes()) {
        return ToolOutput::error(format!("Cannot write {}: {e}", path.display()));
    }
    ctx.lock_files().record(path);
    report(path, &planned)
}

/// The edit with a client that serves files: a text file is read from the
/// editor when it reads (the unsaved buffer is what changes), else from
/// disk, and written through the editor when it writes, else to disk;
/// other files stay on disk. The guard (TOOL-2) compares with the same
/// source the edit reads.
async fn apply_with_client(
    client: &dyn ClientFiles,
    ctx: &ToolContext,
    path: &Path,
    input: &EditInput,
) -> ToolOutput {
    let probe = path.to_path_buf();
    let route = match blocking_cancellable(NAME, &ctx.cancel, move || served_as_text(&probe)).await
    {
        Ok(served) => Route::new(client, served),
        Err(e) => return ToolOutput::error(e),
    };
    let planned = if route.read_editor {
        let old = match read_through(client, path, &ctx.cancel, NAME).await {
            Ok(old) => old,
            Err(e) => return ToolOutput::error(e),
        };
        let checked = ctx
            .lock_files()
            .check_text(path, &old)
            .map_err(|why| why.replace("then write", "then edit"));
        checked.and_then(|()| plan_text(path, old, input))
    } else {
        let (disk_ctx, disk_path, disk_input) = (ctx.clone(), path.to_path_buf(), input.clone());
        blocking_cancellable(NAME, &ctx.cancel, move || {
            checked_plan(&disk_ctx, &disk_path, &disk_input)
        })
        .await
        .and_then(|planned| planned)
    };
    let planned = match planned {
        Ok(planned) => planned,
        Err(e) => return ToolOutput::error(e),
    };
    let written = if route.write_editor {
        write_through(client, path, &planned.new, &ctx.cancel, NAME).await
    } else {
        let (disk_path, new) = (path.to_path_buf(), planned.new.clone());
        blocking_write(move || atomic_write(&disk_path, new.as_bytes()))
            .await
            .map_err(|e| format!("Cannot write {}: {e}", path.display()))
    };
    if let Err(e) = written {
        return ToolOutput::error(e);
    }
    if route.tracks_text() {
        ctx.lock_files().record_text(path, &planned.new);
    } else {
        ctx.lock_files().record(path);
    }
    report(path, &planned)
}

/// Disk work that changes a file, run to its end even when the turn is
/// cancelled (see [`super::blocking`]).
pub(super) async fn blocking_write<F>(work: F) -> std::io::Result<()>
where
    F: FnOnce() -> std::io::Result<()> + Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|_| Err(std::io::Error::other("an internal error")))
}

/// What the model is told of an applied edit.
fn report(path: &Path, planned: &Planned) -> ToolOutput {
    let diff = diff::unified(path, Some(&planned.old), &planned.new);
    let occurrences = if planned.replaced == 1 {
        "1 occurrence".to_string()
    } else {
        format!("{} occurrences", planned.replaced)
    };
    ToolOutput {
        content: format!(
            "Edited {}: replaced {occurrences}.\n\n{diff}",
            path.display()
        ),
        is_error: false,
        diff: Some(diff),
        exit_code: None,
        effects: Vec::new(),
    }
}
