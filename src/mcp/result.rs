//! What the model reads of an MCP tool's result: its text, structured
//! content when there is no text, a note for each image, audio clip or
//! binary resource (the model is not sent the bytes), and resource links,
//! within [`MAX_RESULT_CHARS`].

use serde_json::Value;

/// Most characters of one result the model receives; the rest is cut with
/// a note saying how much.
pub(crate) const MAX_RESULT_CHARS: usize = 40_000;

/// The model's text of a `tools/call` result (as JSON, the wire shape),
/// and whether the server marked it an error.
pub fn render(result: &Value) -> (String, bool) {
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let mut parts: Vec<String> = Vec::new();
    let mut has_text = false;
    if let Some(Value::Array(blocks)) = result.get("content") {
        for block in blocks {
            let (part, text) = render_block(block);
            has_text |= text;
            parts.push(part);
        }
    }
    match result.get("structuredContent") {
        Some(structured) if !has_text => {
            parts.push(serde_json::to_string_pretty(structured).unwrap_or_default());
        }
        _ => {}
    }
    let text = if parts.is_empty() {
        "(the tool returned no content)".to_string()
    } else {
        parts.join("\n")
    };
    (cap(text), is_error)
}

/// One content block, and whether it was text.
fn render_block(block: &Value) -> (String, bool) {
    let field = |name: &str| block.get(name).and_then(Value::as_str).unwrap_or("");
    match field("type") {
        "text" => (field("text").to_string(), true),
        "image" | "audio" => {
            let kind = field("type");
            let size = base64_size(field("data"));
            (
                format!(
                    "[{kind}: {}, {size} bytes, not shown to the model]",
                    or_unknown(field("mimeType"))
                ),
                false,
            )
        }
        "resource" => {
            let resource = block.get("resource").cloned().unwrap_or(Value::Null);
            let get = |name: &str| resource.get(name).and_then(Value::as_str);
            let uri = get("uri").unwrap_or("");
            match (get("text"), get("blob")) {
                (Some(text), _) => (format!("[resource {uri}]\n{text}"), true),
                (None, Some(blob)) => (
                    format!(
                        "[resource {uri}: {}, {} bytes, not shown to the model]",
                        or_unknown(get("mimeType").unwrap_or("")),
                        base64_size(blob)
                    ),
                    false,
                ),
                (None, None) => (format!("[resource {uri}]"), false),
            }
        }
        "resource_link" => {
            let name = field("name");
            let uri = field("uri");
            let description = field("description");
            let mut line = format!("[resource link: {uri}");
            if !name.is_empty() {
                line.push_str(&format!(" ({name})"));
            }
            if !description.is_empty() {
                line.push_str(&format!(": {description}"));
            }
            line.push(']');
            (line, false)
        }
        other => (
            format!("[content of type '{}' not shown]", or_unknown(other)),
            false,
        ),
    }
}

fn or_unknown(text: &str) -> &str {
    if text.is_empty() { "unknown" } else { text }
}

/// The decoded size of base64 text, without decoding it.
fn base64_size(data: &str) -> usize {
    let data = data.trim_end_matches('=');
    data.len() * 3 / 4
}

/// Cuts `text` to [`MAX_RESULT_CHARS`] characters with a note.
fn cap(text: String) -> String {
    let count = text.chars().count();
    if count <= MAX_RESULT_CHARS {
        return text;
    }
    let end = text
        .char_indices()
        .nth(MAX_RESULT_CHARS)
        .map_or(text.len(), |(i, _)| i);
    format!(
        "{}\n[output truncated: {} more characters]",
        &text[..end],
        count - MAX_RESULT_CHARS
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mcp_result_text_images_links_and_structured() {
        let (text, error) = render(&json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource_link", "uri": "file:///a", "name": "a"},
                {"type": "resource", "resource": {"uri": "mem://x", "text": "inside"}}
            ],
            "structuredContent": {"ignored": true}
        }));
        assert!(!error);
        assert_eq!(
            text,
            "hello\n[image: image/png, 3 bytes, not shown to the model]\n[resource link: file:///a (a)]\n[resource mem://x]\ninside"
        );
        let (text, _) = render(&json!({"content": [], "structuredContent": {"n": 1}}));
        assert_eq!(text, "{\n  \"n\": 1\n}");
        let (text, error) =
            render(&json!({"content": [{"type": "text", "text": "bad"}], "isError": true}));
        assert_eq!((text.as_str(), error), ("bad", true));
        assert_eq!(render(&json!({})).0, "(the tool returned no content)");
    }

    #[test]
    fn mcp_result_is_capped_with_a_note() {
        let big = "é".repeat(MAX_RESULT_CHARS + 5);
        let (text, _) = render(&json!({"content": [{"type": "text", "text": big}]}));
        assert!(text.ends_with("[output truncated: 5 more characters]"));
        assert_eq!(text.chars().filter(|c| *c == 'é').count(), MAX_RESULT_CHARS);
    }
}
