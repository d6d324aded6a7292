//! TOOL-2 Write: creates or overwrites a file, refusing to overwrite one the
//! model has not read in this session (or that changed on disk since).

use super::client_files::{ClientFiles, Route, read_through, served_as_text, write_through};
use super::input::{self, Fields};
use super::special_files::{OpenFailure, read_regular, special_kind};
use super::{Tool, ToolContext, ToolOutput, blocking, blocking_cancellable, diff, paths};
use crate::permission::declaration::{AskReason, CoveredBy, ToolDeclaration};

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::io::Write as _;
use std::path::Path;

pub const NAME: &str = "Write";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WriteInput {
    pub file_path: String,
    pub content: String,
}

impl WriteInput {
    pub fn parse(input: Value) -> Result<Self, String> {
        let parsed: Self = Fields::new(NAME, input)?.parse()?;
        input::non_empty(NAME, "file_path", &parsed.file_path)?;
        Ok(parsed)
    }
}

#[derive(Debug, Default)]
pub struct WriteTool;

/// What Write is to the permission engine, the approval and the TUI.
pub(crate) static DECLARATION: ToolDeclaration =
    ToolDeclaration::builtin(NAME, super::edit::FILE_CHANGE)
        .with_wording("change a file", AskReason::File("writes to a file"))
        // RULE-2: a rule for Edit covers Write.
        .with_covered_by(&[CoveredBy {
            tool: super::edit::NAME,
            allow_too: true,
        }]);

impl Tool for WriteTool {
    fn description(&self) -> &'static str {
        include_str!("../../assets/tools/write.md")
    }

    fn compact_description(&self) -> std::borrow::Cow<'static, str> {
        include_str!("../../assets/tools/compact/write.md").into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "file_path": {
                    "type": "string",
                    "description": "The file to write: an absolute path, or a path relative to the workspace root"
                },
                "content": {
                    "type": "string",
                    "description": "The complete new content of the file"
                }
            },
            "required": ["file_path", "content"],
            "additionalProperties": false
        })
    }

    fn declaration(&self) -> &ToolDeclaration {
        &DECLARATION
    }

    fn validate(&self, input: Value) -> Result<Value, String> {
        input::normalized(NAME, &WriteInput::parse(input)?)
    }

    fn preview(&self, input: &Value, ctx: &ToolContext) -> Option<String> {
        let input = WriteInput::parse(input.clone()).ok()?;
        let path = paths::resolve(&ctx.workspace, &input.file_path);
        // A file read through the editor: the text read there is what is
        // replaced (the run checks it still is).
        let seen = ctx.lock_files().seen_text(&path).flatten();
        if let Some(seen) = seen {
            return Some(diff::unified(&path, Some(&seen), &input.content));
        }
        // Only a regular file's content is shown as replaced.
        let old = read_regular(&path).ok();
        let old = old.as_deref().map(String::from_utf8_lossy);
        Some(diff::unified(&path, old.as_deref(), &input.content))
    }

    fn precheck(&self, input: &Value, ctx: &ToolContext) -> Result<(), String> {
        let input = WriteInput::parse(input.clone())?;
        let path = paths::resolve(&ctx.workspace, &input.file_path);
        shape_refusal(&path)?;
        ctx.lock_files().precheck_overwrite(&path)
    }

    fn run<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let input = match WriteInput::parse(input) {
                Ok(input) => input,
                Err(e) => return ToolOutput::error(e),
            };
            let path = paths::resolve(&ctx.workspace, &input.file_path);
            if let Some(client) = ctx
                .client_files
                .clone()
                .filter(|c| c.can_read() || c.can_write())
            {
                return write_with_client(client.as_ref(), ctx, &path, &input.content).await;
            }
            let ctx = ctx.clone();
            blocking(move || write_file(&ctx, &path, &input.content)).await
        })
    }
}

/// Why `path` may not be written now: not a regular file, or an existing
/// file not read in this session (or changed since, TOOL-2).
fn refusal(ctx: &ToolContext, path: &Path) -> Result<(), String> {
    shape_refusal(path)?;
    ctx.lock_files().check_overwrite(path)
}

/// Why `path` cannot be written as a file: a directory or a special file.
fn shape_refusal(path: &Path) -> Result<(), String> {
    let shown = path.display();
    if path.is_dir() {
        return Err(format!("{shown} is a directory; Write needs a file path."));
    }
    if let Some(what) = std::fs::metadata(path)
        .ok()
        .and_then(|meta| special_kind(&meta.file_type()))
    {
        return Err(format!(
            "{shown} is {what}, not a regular file; Write works on regular files only."
        ));
    }
    Ok(())
}

/// Where a write with a client finds the text it replaces.
enum Replaced {
    /// A new file.
    Nothing,
    /// The editor's text (read through it).
    Editor,
    /// The disk's.
    Disk,
}

/// The write with a client that serves files: for a text file, the text
/// replaced comes from the editor when it reads, else from disk, and the
/// guard (TOOL-2) compares with that source; the new text goes through
/// the editor when it writes, else to disk. Other files stay on disk.
async fn write_with_client(
    client: &dyn ClientFiles,
    ctx: &ToolContext,
    path: &Path,
    content: &str,
) -> ToolOutput {
    // A file written through the editor may not be on disk yet.
    let seen_there = ctx.lock_files().seen_text(path).is_some();
    let probe = path.to_path_buf();
    let looked = blocking_cancellable(NAME, &ctx.cancel, move || {
        shape_refusal(&probe)?;
        Ok((probe.exists() || seen_there, served_as_text(&probe)))
    })
    .await
    .and_then(|looked| looked);
    let (exists, route) = match looked {
        Ok((exists, served)) => (exists, Route::new(client, served)),
        Err(e) => return ToolOutput::error(e),
    };
    let source = if !exists {
        Replaced::Nothing
    } else if route.read_editor {
        Replaced::Editor
    } else {
        Replaced::Disk
    };
    let old = match source {
        Replaced::Nothing => None,
        Replaced::Editor => {
            let old = match read_through(client, path, &ctx.cancel, NAME).await {
                Ok(old) => old,
                Err(e) => return ToolOutput::error(e),
            };
            if let Err(why) = ctx.lock_files().check_text(path, &old) {
                return ToolOutput::error(why);
            }
            Some(old)
        }
        Replaced::Disk => {
            let (disk_ctx, disk_path) = (ctx.clone(), path.to_path_buf());
            let old = blocking_cancellable(NAME, &ctx.cancel, move || {
                disk_ctx.lock_files().check_overwrite(&disk_path)?;
                match read_regular(&disk_path) {
                    Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
                    Err(OpenFailure::Missing) => Ok(None),
                    Err(e) => Err(e.message(&disk_path, NAME)),
                }
            })
            .await
            .and_then(|old| old);
            match old {
                Ok(old) => old,
                Err(e) => return ToolOutput::error(e),
            }
        }
    };
    let written = if route.write_editor {
        write_through(client, path, content, &ctx.cancel, NAME).await
    } else {
        let (disk_path, new) = (path.to_path_buf(), content.to_string());
        super::edit::blocking_write(move || {
            if let Some(parent) = disk_path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            atomic_write(&disk_path, new.as_bytes())
        })
        .await
        .map_err(|e| format!("Cannot write {}: {e}", path.display()))
    };
    if let Err(e) = written {
        return ToolOutput::error(e);
    }
    if route.tracks_text() {
        ctx.lock_files().record_text(path, content);
    } else {
        ctx.lock_files().record(path);
    }
    report(path, old.as_deref(), content)
}

fn write_file(ctx: &ToolContext, path: &Path, content: &str) -> ToolOutput {
    let shown = path.display();
    if let Err(why) = refusal(ctx, path) {
        return ToolOutput::error(why);
    }
    let old = match read_regular(path) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(OpenFailure::Missing) => None,
        Err(e) => return ToolOutput::error(e.message(path, NAME)),
    };
    if let Some(parent) = path.parent()
        && let Err(e) = std::fs::create_dir_all(parent)
    {
        return ToolOutput::error(format!("Cannot create {}: {e}", parent.display()));
    }
    if let Err(e) = atomic_write(path, content.as_bytes()) {
        return ToolOutput::error(format!("Cannot write {shown}: {e}"));
    }
    ctx.lock_files().record(path);
    report(path, old.as_deref(), content)
}

/// What the model is told of a write; `old`: the text replaced, `None`
/// for a new file.
fn report(path: &Path, old: Option<&str>, content: &str) -> ToolOutput {
    let shown = path.display();
    let lines = content.lines().count();
    let lines = format!("{lines} line{}", if lines == 1 { "" } else { "s" });
    let diff = diff::unified(path, old, content);
    let text = match old {
        None => format!("Created {shown} ({lines})."),
        Some(_) if diff.is_empty() => {
            format!("Overwrote {shown} ({lines}); the content is unchanged.")
        }
        Some(_) => format!("Overwrote {shown} ({lines})."),
    };
    ToolOutput {
        content: text,
        is_error: false,
        diff: (!diff.is_empty()).then_some(diff),
        exit_code: None,
        effects: Vec::new(),
    }
}

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory, flushed to disk, given the old file's permissions, then
/// renamed over `path`. A reader never sees a half-written file.
pub(crate) fn atomic_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let invalid = || std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file path");
    let dir = path.parent().ok_or_else(invalid)?;
    let name = path.file_name().ok_or_else(invalid)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        uuid::Uuid::new_v4().simple()
    ));
    let permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        if let Some(permissions) = permissions {
            std::fs::set_permissions(&tmp, permissions)?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
