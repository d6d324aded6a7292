//! One tool of an MCP server, offered to the model as
//! `mcp__<server>__<tool>` and run through the same approval pipeline as
//! the built-in tools.

use super::result;
use crate::permission::capability::McpHints;
use crate::permission::declaration::ToolDeclaration;
use crate::permission::mcp_names;
use crate::tools::{Tool, ToolContext, ToolOutput};
use futures_util::future::BoxFuture;
use rmcp::RoleClient;
use rmcp::model::CallToolRequestParams;
use rmcp::service::Peer;
use serde_json::{Value, json};

/// Longest description of a server's tool the model is sent.
const MAX_DESCRIPTION_CHARS: usize = 2_000;
/// Largest input schema (as JSON) sent with every request; a tool with a
/// larger one is left out rather than crowd the context window.
pub(crate) const MAX_SCHEMA_BYTES: usize = 16 * 1024;

pub(crate) struct McpTool {
    /// Named `mcp__server__tool`, with the capability of its hints.
    declaration: ToolDeclaration,
    /// The name the server knows it by.
    remote_name: String,
    server: String,
    description: String,
    schema: Value,
    hints: McpHints,
    peer: Peer<RoleClient>,
}

impl McpTool {
    /// The tool a `tools/list` entry describes; `None` for an entry
    /// without a name or with an input schema over [`MAX_SCHEMA_BYTES`].
    pub(crate) fn from_listing(
        server: &str,
        listing: &Value,
        peer: Peer<RoleClient>,
    ) -> Option<Self> {
        let remote_name = listing.get("name")?.as_str()?.to_string();
        if remote_name.is_empty() {
            return None;
        }
        let annotations = listing.get("annotations");
        let hint = |name: &str| {
            annotations
                .and_then(|a| a.get(name))
                .and_then(Value::as_bool)
        };
        let description = listing
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim();
        let description = if description.is_empty() {
            format!("The {remote_name} tool of the MCP server {server}.")
        } else {
            description.chars().take(MAX_DESCRIPTION_CHARS).collect()
        };
        let schema = match listing.get("inputSchema") {
            Some(schema @ Value::Object(_)) => schema.clone(),
            _ => json!({"type": "object"}),
        };
        if schema.to_string().len() > MAX_SCHEMA_BYTES {
            return None;
        }
        let hints = McpHints {
            read_only: hint("readOnlyHint"),
            destructive: hint("destructiveHint"),
            open_world: hint("openWorldHint"),
        };
        Some(Self {
            declaration: ToolDeclaration::mcp(&mcp_names::tool_name(server, &remote_name), hints),
            remote_name,
            server: server.to_string(),
            description,
            schema,
            hints,
            peer,
        })
    }

    pub fn hints(&self) -> McpHints {
        self.hints
    }

    /// The server's connection is gone (it exited, say).
    pub(crate) fn is_closed(&self) -> bool {
        self.peer.is_transport_closed()
    }
}

impl Tool for McpTool {
    fn declaration(&self) -> &ToolDeclaration {
        &self.declaration
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> Value {
        self.schema.clone()
    }

    /// The server validates its own arguments; here only the shape the
    /// protocol needs, an object.
    fn validate(&self, input: Value) -> Result<Value, String> {
        match input {
            Value::Object(_) => Ok(input),
            Value::Null => Ok(json!({})),
            _ => Err(format!(
                "The input of {} must be a JSON object.",
                self.name()
            )),
        }
    }

    fn run<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let mut params = CallToolRequestParams::new(self.remote_name.clone());
            if let Value::Object(arguments) = input {
                params = params.with_arguments(arguments);
            }
            // Dropping the call (the user interrupted) sends the server
            // `notifications/cancelled`.
            let reply = tokio::select! {
                reply = self.peer.call_tool(params) => reply,
                _ = ctx.cancel.cancelled() => {
                    return ToolOutput::error(format!(
                        "Interrupted by the user; the MCP server {} was told to cancel the call.",
                        self.server
                    ));
                }
            };
            match reply {
                Ok(reply) => {
                    let value = serde_json::to_value(&reply).unwrap_or(Value::Null);
                    let (text, is_error) = result::render(&value);
                    ToolOutput {
                        content: text,
                        is_error,
                        ..Default::default()
                    }
                }
                Err(e) => ToolOutput::error(format!(
                    "The MCP server {} failed the call: {}",
                    self.server,
                    crate::terminal_text::neutralize_controls(&e.to_string())
                )),
            }
        })
    }
}
