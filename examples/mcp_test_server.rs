//! The MCP server the tests run, built on the official SDK's server side.
//!
//! `mcp_test_server` speaks over stdio; `--http` serves streamable HTTP on
//! 127.0.0.1 and prints `listening on URL`; `--hang` never answers;
//! `--crash` writes to stderr and exits. `MCP_TEST_LOG` names a file that
//! gets one line per event (`call NAME`, `cancelled NAME`), for the tests
//! to read what reached the server.
//!
//! Tools: `echo` (read-only, closed world), `lookup` (read-only, open
//! world), `write_note` (destructive), `plain` (no annotations),
//! `ro_destructive` (read-only and destructive), `fail` (an error result),
//! `media` (an image, a resource link and structured content), `big`
//! (100 000 characters), `sleep` (until cancelled), `grow` (adds the tool
//! `late` and says the list changed).

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListToolsResult,
    PaginatedRequestParams, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Clone, Default)]
struct TestServer {
    grown: Arc<AtomicBool>,
}

fn log(line: &str) {
    if let Ok(path) = std::env::var("MCP_TEST_LOG")
        && let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
    {
        let _ = writeln!(file, "{line}");
    }
}

fn tool(name: &str, description: &str, annotations: Value) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "Any text"}},
        },
        "annotations": annotations,
    })
}

fn result(value: Value) -> Result<CallToolResponse, ErrorData> {
    serde_json::from_value::<CallToolResult>(value)
        .map(CallToolResponse::Complete)
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

fn text(text: impl Into<String>) -> Result<CallToolResponse, ErrorData> {
    result(json!({"content": [{"type": "text", "text": text.into()}]}))
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {"listChanged": true}},
            "serverInfo": {"name": "zcode-test-server", "version": "1.0.0"},
        }))
        .expect("a valid initialize result")
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = vec![
            tool(
                "echo",
                "Says the text back.",
                json!({"readOnlyHint": true, "openWorldHint": false}),
            ),
            tool(
                "lookup",
                "Looks the text up somewhere on the internet.",
                json!({"readOnlyHint": true, "openWorldHint": true}),
            ),
            tool(
                "write_note",
                "Writes a note.",
                json!({"readOnlyHint": false, "destructiveHint": true}),
            ),
            tool("plain", "Declares nothing about itself.", Value::Null),
            tool(
                "ro_destructive",
                "Says both.",
                json!({"readOnlyHint": true, "destructiveHint": true}),
            ),
            tool("fail", "Always fails.", json!({"readOnlyHint": true})),
            tool(
                "media",
                "Returns an image and a link.",
                json!({"readOnlyHint": true}),
            ),
            tool(
                "big",
                "Returns a lot of text.",
                json!({"readOnlyHint": true}),
            ),
            tool(
                "sleep",
                "Waits until cancelled.",
                json!({"readOnlyHint": true}),
            ),
            tool("grow", "Adds a tool.", json!({"readOnlyHint": false})),
        ];
        if self.grown.load(Ordering::SeqCst) {
            tools.push(tool("late", "Added later.", json!({"readOnlyHint": true})));
        }
        for t in &mut tools {
            if t["annotations"].is_null()
                && let Some(object) = t.as_object_mut()
            {
                object.remove("annotations");
            }
        }
        serde_json::from_value(json!({"tools": tools}))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        log(&format!("call {name}"));
        let input = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("text"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        match name.as_str() {
            "echo" | "lookup" | "write_note" | "plain" | "ro_destructive" | "late" => {
                text(format!("{name}: {input}"))
            }
            "fail" => result(json!({
                "content": [{"type": "text", "text": format!("fail: nothing works ({input})")}],
                "isError": true,
            })),
            "media" => result(json!({
                "content": [
                    {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                    {"type": "resource_link", "uri": "file:///notes/a.md", "name": "a.md"},
                ],
                "structuredContent": {"count": 2},
            })),
            "big" => text("x".repeat(100_000)),
            "sleep" => {
                tokio::select! {
                    _ = context.ct.cancelled() => {
                        log("cancelled sleep");
                        Err(ErrorData::internal_error("cancelled", None))
                    }
                    _ = tokio::time::sleep(std::time::Duration::from_secs(300)) => text("woke up"),
                }
            }
            "grow" => {
                self.grown.store(true, Ordering::SeqCst);
                // Said before the result, as a server whose call changed
                // its tools would.
                let _ = context.peer.notify_tool_list_changed().await;
                text("grown")
            }
            other => Err(ErrorData::invalid_params(
                format!("no tool named {other}"),
                None,
            )),
        }
    }
}

async fn serve_http() -> std::io::Result<()> {
    use hyper_util::rt::{TokioExecutor, TokioIo};
    use hyper_util::server::conn::auto::Builder;
    use hyper_util::service::TowerToHyperService;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    let service = StreamableHttpService::new(
        || Ok(TestServer::default()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    println!("listening on http://{address}/mcp");
    std::io::stdout().flush()?;
    loop {
        let (stream, _) = listener.accept().await?;
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--crash") => {
            eprintln!("test server: cannot open its database");
            std::process::exit(3);
        }
        Some("--hang") => {
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
            Ok(())
        }
        Some("--http") => Ok(serve_http().await?),
        _ => {
            let service = TestServer::default()
                .serve(rmcp::transport::stdio())
                .await?;
            service.waiting().await?;
            Ok(())
        }
    }
}
