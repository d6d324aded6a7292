//! MCP server definitions, in Claude Code's shape: config `mcpServers` and
//! a project's `.mcp.json` (`{"mcpServers": {NAME: DEFINITION}}`).
//!
//! `{"command", "args", "env"}` starts a program and speaks over its
//! stdin/stdout; `{"type": "http", "url", "headers"}` speaks streamable
//! HTTP. `${VAR}` and `${VAR:-default}` in any of those strings read the
//! environment. A definition that cannot be used is kept with its reason,
//! so that it is shown rather than silently dropped; it never stops a run.

use crate::permission::mcp_names::server_name_problem;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The project file holding a repository's servers.
pub(crate) const PROJECT_FILE: &str = ".mcp.json";

/// Where a server was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The user's config file: trusted as the user wrote it.
    Config,
    /// The project's `.mcp.json`: used only once the user trusts it.
    Project(PathBuf),
}

impl Origin {
    pub fn label(&self) -> String {
        match self {
            Origin::Config => "config".to_string(),
            Origin::Project(path) => path.display().to_string(),
        }
    }
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
}

impl Transport {
    /// One line for `/mcp` and `zcode mcp list` (no header values or
    /// environment values: they often hold keys).
    pub fn summary(&self) -> String {
        match self {
            Transport::Stdio { command, args, .. } => {
                let mut line = format!("stdio: {command}");
                for arg in args {
                    line.push(' ');
                    line.push_str(arg);
                }
                line
            }
            Transport::Http { url, .. } => format!("http: {url}"),
        }
    }
}

/// One server as defined, usable or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerEntry {
    pub name: String,
    pub origin: Origin,
    /// The definition as written, hashed: trust is given to exactly this
    /// text, so a changed definition must be trusted again.
    pub digest: String,
    pub transport: Result<Transport, String>,
}

/// The servers of one `mcpServers` object, in its order. `env` answers
/// `${VAR}`.
pub(crate) fn parse_servers(
    servers: &Map<String, Value>,
    origin: &Origin,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<ServerEntry> {
    servers
        .iter()
        .map(|(name, definition)| ServerEntry {
            name: name.clone(),
            origin: origin.clone(),
            digest: digest(name, definition),
            transport: match server_name_problem(name) {
                Some(problem) => Err(format!("'{name}' cannot name a server: {problem}")),
                None => transport(definition, env),
            },
        })
        .collect()
}

/// The servers of a project's `.mcp.json`; a missing file has none. A file
/// that cannot be read or parsed is one error for the whole file.
pub(crate) fn read_project_file(
    workspace: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<ServerEntry>, String> {
    let path = workspace.join(PROJECT_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let value: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let servers = match value.get("mcpServers") {
        None => return Ok(Vec::new()),
        Some(Value::Object(servers)) => servers,
        Some(_) => return Err(format!("{}: mcpServers is not an object", path.display())),
    };
    let mut entries = parse_servers(servers, &Origin::Project(path), env);
    for entry in &mut entries {
        entry.digest =
            with_referenced_files(&entry.digest, entry.transport.as_ref().ok(), workspace);
    }
    Ok(entries)
}

/// The most of one referenced file that trust covers; a longer file is
/// covered by its first part, its length and its modification time.
const MAX_REFERENCED_BYTES: u64 = 4 * 1024 * 1024;

/// A project server's digest extended with the contents of the files of
/// the workspace its command and arguments name (`node ./mcp/server.js`,
/// `./tools/mcp.sh`): trust is given to what runs, so an edit of such a
/// script (edit mode may make one without a question) needs trust again.
fn with_referenced_files(base: &str, transport: Option<&Transport>, workspace: &Path) -> String {
    let Some(Transport::Stdio { command, args, .. }) = transport else {
        return base.to_string();
    };
    let Ok(root) = std::fs::canonicalize(workspace) else {
        return base.to_string();
    };
    let mut hasher = Sha256::new();
    hasher.update(base.as_bytes());
    for word in std::iter::once(command).chain(args) {
        // `--config=./x.json` names a file too.
        let candidate = word.split_once('=').map_or(word.as_str(), |(_, v)| v);
        let path = root.join(candidate);
        let Ok(resolved) = std::fs::canonicalize(&path) else {
            continue;
        };
        let Ok(meta) = std::fs::metadata(&resolved) else {
            continue;
        };
        if !resolved.starts_with(&root) || !meta.is_file() {
            continue;
        }
        hasher.update(b"\0file\0");
        hasher.update(resolved.to_string_lossy().as_bytes());
        let Ok(file) = std::fs::File::open(&resolved) else {
            continue;
        };
        let mut bytes = Vec::new();
        use std::io::Read;
        if file
            .take(MAX_REFERENCED_BYTES)
            .read_to_end(&mut bytes)
            .is_err()
        {
            continue;
        }
        hasher.update(&bytes);
        if meta.len() > MAX_REFERENCED_BYTES {
            hasher.update(meta.len().to_le_bytes());
            if let Ok(modified) = meta.modified()
                && let Ok(since) = modified.duration_since(std::time::UNIX_EPOCH)
            {
                hasher.update(since.as_nanos().to_le_bytes());
            }
        }
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn digest(name: &str, definition: &Value) -> String {
    let text = format!("{name}\0{definition}");
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn transport(
    definition: &Value,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Transport, String> {
    let Value::Object(fields) = definition else {
        return Err("the definition is not a JSON object".into());
    };
    let kind = match fields.get("type") {
        None => None,
        Some(Value::String(kind)) => Some(kind.as_str()),
        Some(_) => return Err("type is not a string".into()),
    };
    match kind {
        None | Some("stdio") => {
            let command = match fields.get("command") {
                Some(Value::String(c)) if !c.trim().is_empty() => expand(c, env)?,
                Some(_) => return Err("command is not a non-empty string".into()),
                None if fields.contains_key("url") => {
                    return Err("a server with a url needs \"type\": \"http\"".into());
                }
                None => return Err("command is missing".into()),
            };
            Ok(Transport::Stdio {
                command,
                args: strings(fields.get("args"), "args", env)?,
                env: pairs(fields.get("env"), "env", env)?,
            })
        }
        Some("http") | Some("streamable-http") => {
            let url = match fields.get("url") {
                Some(Value::String(u)) => expand(u, env)?,
                Some(_) => return Err("url is not a string".into()),
                None => return Err("url is missing".into()),
            };
            let parsed = url::Url::parse(&url).map_err(|e| format!("url '{url}': {e}"))?;
            if !matches!(parsed.scheme(), "http" | "https") {
                return Err(format!("url '{url}' is not http or https"));
            }
            Ok(Transport::Http {
                url,
                headers: pairs(fields.get("headers"), "headers", env)?,
            })
        }
        Some("sse") => Err(
            "the older SSE transport is not supported; servers that speak streamable HTTP take \"type\": \"http\""
                .into(),
        ),
        Some(other) => Err(format!("type '{other}' is not stdio or http")),
    }
}

fn strings(
    value: Option<&Value>,
    field: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => expand(s, env),
                _ => Err(format!("{field} holds something other than a string")),
            })
            .collect(),
        Some(_) => Err(format!("{field} is not an array of strings")),
    }
}

fn pairs(
    value: Option<&Value>,
    field: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<(String, String)>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(key, value)| match value {
                Value::String(s) => Ok((key.clone(), expand(s, env)?)),
                _ => Err(format!("{field}.{key} is not a string")),
            })
            .collect(),
        Some(_) => Err(format!("{field} is not an object of strings")),
    }
}

/// `${VAR}` and `${VAR:-default}` from the environment; a variable that is
/// not set and has no default is an error naming it.
fn expand(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("'{text}' has a '${{' without its '}}'"));
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        match (env(name).filter(|v| !v.is_empty()), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => return Err(format!("environment variable {name} is not set")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env(name: &str) -> Option<String> {
        (name == "TOKEN").then(|| "t0k".to_string())
    }

    fn parse(value: Value) -> Vec<ServerEntry> {
        let Value::Object(map) = value else {
            unreachable!()
        };
        parse_servers(&map, &Origin::Config, &env)
    }

    #[test]
    fn mcp_config_reads_both_shapes_in_order() {
        let servers = parse(json!({
            "files": {"command": "node", "args": ["srv.js", "${HOME_DIR:-/tmp}"], "env": {"K": "${TOKEN}"}},
            "remote": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
        }));
        assert_eq!(servers[0].name, "files");
        assert_eq!(
            servers[0].transport,
            Ok(Transport::Stdio {
                command: "node".into(),
                args: vec!["srv.js".into(), "/tmp".into()],
                env: vec![("K".into(), "t0k".into())],
            })
        );
        assert_eq!(
            servers[1].transport,
            Ok(Transport::Http {
                url: "http://127.0.0.1:9/mcp".into(),
                headers: vec![("Authorization".into(), "Bearer t0k".into())],
            })
        );
    }

    #[test]
    fn mcp_config_errors_are_per_server() {
        let servers = parse(json!({
            "a__b": {"command": "x"},
            "nocmd": {},
            "badtype": {"type": "ws", "url": "ws://x"},
            "sse": {"type": "sse", "url": "http://x"},
            "unset": {"command": "${NOPE}"},
            "urlonly": {"url": "http://x"},
            "file": {"type": "http", "url": "file:///etc/passwd"},
            "ok": {"command": "x"}
        }));
        let errors: Vec<_> = servers.iter().map(|s| s.transport.is_err()).collect();
        assert_eq!(errors, [true, true, true, true, true, true, true, false]);
        assert!(servers[4].transport.as_ref().unwrap_err().contains("NOPE"));
    }

    #[test]
    fn mcp_trust_digest_follows_the_definition() {
        let a = parse(json!({"s": {"command": "x"}}));
        let b = parse(json!({"s": {"command": "x", "args": ["--evil"]}}));
        let c = parse(json!({"t": {"command": "x"}}));
        assert_ne!(a[0].digest, b[0].digest);
        assert_ne!(a[0].digest, c[0].digest);
        assert_eq!(a[0].digest, parse(json!({"s": {"command": "x"}}))[0].digest);
    }
}
