//! The log of `zcode acp`: stdout belongs to the protocol, and a client
//! shows stderr at best in a debug panel, so what is worth keeping goes to
//! `$ZCODE_HOME/logs/acp.log`. Logging never fails the agent.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Appends lines to the log file; a log that cannot be opened writes
/// nowhere.
#[derive(Clone, Default)]
pub struct Log {
    file: Option<Arc<Mutex<std::fs::File>>>,
}

impl Log {
    pub fn open(zcode_home: &Path) -> Self {
        let dir = zcode_home.join("logs");
        let file = std::fs::create_dir_all(&dir).ok().and_then(|_| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(dir.join("acp.log"))
                .ok()
        });
        Self {
            file: file.map(|f| Arc::new(Mutex::new(f))),
        }
    }

    /// A log that writes nothing (tests).
    pub fn none() -> Self {
        Self::default()
    }

    pub fn line(&self, text: impl AsRef<str>) {
        let Some(file) = &self.file else { return };
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        let Ok(mut file) = file.lock() else { return };
        let _ = writeln!(file, "{stamp} [{}] {}", std::process::id(), text.as_ref());
    }
}
