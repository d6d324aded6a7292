//! File contents served by the front end's client: an editor reached over
//! the Agent Client Protocol holds unsaved buffers, and what the model
//! reads and edits is the buffer, not the disk. Read, Edit and Write ask
//! the client for text files when it offers to; everything else (binary
//! files, images, PDFs, notebooks, directories, Bash) stays on the local
//! file system. Permission decisions happen before any of this runs and
//! do not depend on where the content comes from.

use super::read::{SNIFF_BYTES, binary_reason};
use super::special_files::{OpenFailure, open_regular};
use futures_util::future::BoxFuture;
use std::io::Read as _;
use std::path::Path;
use tokio_util::sync::CancellationToken;

/// Reads and writes whole text files through the client. A client may
/// offer reading, writing, or both; the tools ask only for what it offers.
pub trait ClientFiles: Send + Sync + std::fmt::Debug {
    /// The client serves file contents (`fs/read_text_file`).
    fn can_read(&self) -> bool;
    /// The client takes new file contents (`fs/write_text_file`).
    fn can_write(&self) -> bool;
    /// The whole text of `path` (absolute) as the client holds it; the
    /// error is the client's own text.
    fn read_text(&self, path: &Path) -> BoxFuture<'_, Result<String, String>>;
    /// Replaces the whole text of `path` (absolute), creating it if needed.
    fn write_text(&self, path: &Path, content: &str) -> BoxFuture<'_, Result<(), String>>;
}

/// Files whose content is never asked of the client: not text, or text
/// the tools treat as a document of their own (notebooks).
const LOCAL_ONLY_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "webp", "bmp", "ico", "tif", "tiff", "pdf", "ipynb",
];

/// Whether the content of `path` is asked of a client that reads: a
/// regular file that looks like text, or one not on disk (the editor may
/// hold it unsaved). Directories, special files and binary files keep the
/// local tools' own answers. Blocking: it looks at the disk.
pub(crate) fn served_as_text(path: &Path) -> bool {
    let local_only = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| LOCAL_ONLY_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()));
    if local_only {
        return false;
    }
    match open_regular(path) {
        Ok(file) => {
            let mut head = Vec::with_capacity(SNIFF_BYTES);
            match file.take(SNIFF_BYTES as u64).read_to_end(&mut head) {
                Ok(_) => binary_reason(&head).is_none(),
                // The local read reports the error.
                Err(_) => false,
            }
        }
        Err(OpenFailure::Missing) => true,
        Err(_) => false,
    }
}

/// Where a call finds and puts the content of one path: a path is either
/// the editor's (a text file) or the disk's, for reading and writing
/// alike, as far as the client offers each.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Route {
    pub read_editor: bool,
    pub write_editor: bool,
}

impl Route {
    /// `served`: whether the path is the editor's ([`served_as_text`]).
    pub(crate) fn new(client: &dyn ClientFiles, served: bool) -> Self {
        let editor = (client.can_read() || client.can_write()) && served;
        Route {
            read_editor: editor && client.can_read(),
            write_editor: editor && client.can_write(),
        }
    }

    /// After a write, the file is remembered by its text (the next read
    /// goes to the editor, or the editor has the text the disk may not
    /// have yet) rather than by its disk stamp.
    pub(crate) fn tracks_text(self) -> bool {
        self.read_editor || self.write_editor
    }
}

/// The text of `path` from the client, given up when `cancel` fires: a
/// client that never answers does not hold the call.
pub(crate) async fn read_through(
    client: &dyn ClientFiles,
    path: &Path,
    cancel: &CancellationToken,
    tool: &str,
) -> Result<String, String> {
    let shown = path.display();
    tokio::select! {
        read = client.read_text(path) => read.map_err(|e| match path.exists() {
            true => format!("The editor could not read {shown}: {e}"),
            // Keeps the local tools' word for it (and the model's habit).
            false => format!("File does not exist: {shown} (the editor could not read it: {e})"),
        }),
        _ = cancel.cancelled() => Err(format!(
            "{tool} was interrupted while the editor was reading {shown}; nothing was changed."
        )),
    }
}

/// Sends the new text of `path` to the client, given up when `cancel`
/// fires. An abandoned write may still land: the error says so.
pub(crate) async fn write_through(
    client: &dyn ClientFiles,
    path: &Path,
    content: &str,
    cancel: &CancellationToken,
    tool: &str,
) -> Result<(), String> {
    let shown = path.display();
    tokio::select! {
        written = client.write_text(path, content) => {
            written.map_err(|e| format!("The editor could not write {shown}: {e}"))
        }
        _ = cancel.cancelled() => Err(format!(
            "{tool} was interrupted while the editor was writing {shown}; the change may or may not have been applied. Read the file again before changing it."
        )),
    }
}

#[cfg(test)]
pub(crate) mod fake {
    //! An in-memory client for the tools' tests: its buffers differ from
    //! the disk, and it can fail or never answer.

    use super::ClientFiles;
    use futures_util::future::BoxFuture;
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex};
    use tokio::sync::Notify;

    #[derive(Debug, Default)]
    pub(crate) struct FakeClient {
        pub read: bool,
        pub write: bool,
        pub buffers: Mutex<HashMap<PathBuf, String>>,
        /// The paths written, in order.
        pub writes: Mutex<Vec<(PathBuf, String)>>,
        /// Every call fails with this text.
        pub fail: Option<String>,
        /// Calls never answer.
        pub hang: bool,
        /// Notified when a call comes in (before it hangs).
        pub called: Arc<Notify>,
    }

    impl FakeClient {
        pub(crate) fn reading_and_writing() -> Self {
            Self {
                read: true,
                write: true,
                ..Self::default()
            }
        }

        pub(crate) fn with_buffer(self, path: &Path, text: &str) -> Self {
            self.buffers
                .lock()
                .unwrap()
                .insert(path.to_path_buf(), text.to_string());
            self
        }

        pub fn buffer(&self, path: &Path) -> Option<String> {
            self.buffers.lock().unwrap().get(path).cloned()
        }

        pub fn writes(&self) -> Vec<(PathBuf, String)> {
            self.writes.lock().unwrap().clone()
        }

        /// Fails, hangs or gives way, after saying it was called.
        async fn answer(&self) -> Result<(), String> {
            self.called.notify_one();
            if self.hang {
                std::future::pending::<()>().await;
            }
            match &self.fail {
                Some(e) => Err(e.clone()),
                None => Ok(()),
            }
        }
    }

    impl ClientFiles for FakeClient {
        fn can_read(&self) -> bool {
            self.read
        }

        fn can_write(&self) -> bool {
            self.write
        }

        fn read_text(&self, path: &Path) -> BoxFuture<'_, Result<String, String>> {
            let path = path.to_path_buf();
            Box::pin(async move {
                self.answer().await?;
                self.buffer(&path)
                    .or_else(|| std::fs::read_to_string(&path).ok())
                    .ok_or_else(|| "no such buffer".to_string())
            })
        }

        fn write_text(&self, path: &Path, content: &str) -> BoxFuture<'_, Result<(), String>> {
            let (path, content) = (path.to_path_buf(), content.to_string());
            Box::pin(async move {
                self.answer().await?;
                self.buffers
                    .lock()
                    .unwrap()
                    .insert(path.clone(), content.clone());
                self.writes.lock().unwrap().push((path, content));
                Ok(())
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_files_and_missing_files_are_served_by_the_client_others_stay_local() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("a.rs");
        std::fs::write(&text, "fn main() {}\n").unwrap();
        let binary = dir.path().join("a.bin");
        std::fs::write(&binary, [0u8, 1, 2, 3]).unwrap();
        let image = dir.path().join("logo.PNG");
        std::fs::write(&image, "not really an image").unwrap();
        let notebook = dir.path().join("n.ipynb");
        std::fs::write(&notebook, "{}").unwrap();
        assert!(served_as_text(&text));
        assert!(served_as_text(&dir.path().join("unsaved.rs")));
        assert!(!served_as_text(&binary));
        assert!(!served_as_text(&image));
        assert!(!served_as_text(&notebook));
        assert!(!served_as_text(dir.path()));
        assert!(!served_as_text(Path::new("/dev/null")));
    }
}
