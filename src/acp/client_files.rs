//! The files of an editor: `fs/read_text_file` and `fs/write_text_file`,
//! where the client offers them, so the model reads the editor's unsaved
//! buffer and an edit lands in the editor. The file tools decide which
//! paths go here and keep every permission check (`tools::client_files`).

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    FileSystemCapabilities, ReadTextFileRequest, WriteTextFileRequest,
};
use futures_util::future::BoxFuture;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// How long a file operation waits for the editor before it fails (a
/// client that never answers must not hold a tool forever).
const EDITOR_ANSWER_LIMIT: Duration = Duration::from_secs(120);

/// One session's files in the client.
pub struct EditorFiles {
    conn: ConnectionTo<Client>,
    /// The session's id, known once its runtime has started (before any
    /// tool runs).
    session_id: Arc<OnceLock<String>>,
    reads: bool,
    writes: bool,
}

impl std::fmt::Debug for EditorFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EditorFiles")
            .field("reads", &self.reads)
            .field("writes", &self.writes)
            .finish()
    }
}

impl EditorFiles {
    /// `None` when the client serves neither reading nor writing.
    pub fn new(
        conn: ConnectionTo<Client>,
        caps: &FileSystemCapabilities,
        session_id: Arc<OnceLock<String>>,
    ) -> Option<Self> {
        (caps.read_text_file || caps.write_text_file).then_some(Self {
            conn,
            session_id,
            reads: caps.read_text_file,
            writes: caps.write_text_file,
        })
    }

    fn session(&self) -> Result<String, String> {
        self.session_id
            .get()
            .cloned()
            .ok_or_else(|| "the session is not open yet".to_string())
    }
}

async fn answered<T>(
    wait: impl std::future::Future<Output = Result<T, agent_client_protocol::Error>>,
) -> Result<T, String> {
    match tokio::time::timeout(EDITOR_ANSWER_LIMIT, wait).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(match &e.data {
            Some(serde_json::Value::String(s)) => format!("{}: {s}", e.message),
            _ => e.message.clone(),
        }),
        Err(_) => Err(format!(
            "no answer from the editor in {} s",
            EDITOR_ANSWER_LIMIT.as_secs()
        )),
    }
}

impl crate::tools::ClientFiles for EditorFiles {
    fn can_read(&self) -> bool {
        self.reads
    }

    fn can_write(&self) -> bool {
        self.writes
    }

    fn read_text(&self, path: &Path) -> BoxFuture<'_, Result<String, String>> {
        let path = path.to_path_buf();
        Box::pin(async move {
            let request = ReadTextFileRequest::new(self.session()?, path);
            answered(super::approvals::send_and_wait(&self.conn, request))
                .await
                .map(|r| r.content)
        })
    }

    fn write_text(&self, path: &Path, content: &str) -> BoxFuture<'_, Result<(), String>> {
        let path = path.to_path_buf();
        let content = content.to_string();
        Box::pin(async move {
            let request = WriteTextFileRequest::new(self.session()?, path, content);
            answered(super::approvals::send_and_wait(&self.conn, request))
                .await
                .map(|_| ())
        })
    }
}
