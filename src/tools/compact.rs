//! Tool descriptions for models with a small context window: a short text
//! per tool and input schemas without their prose, so that the tool list
//! fits next to the conversation (see `runtime::small_window`).

use serde_json::{Map, Value};

/// A description supplied at run time (a tool zcode does not ship) is cut
/// to its first sentence, and to at most this many characters.
pub(crate) const MAX_COMPACT_DESCRIPTION_CHARS: usize = 200;

/// The first sentence of `text` (up to `.`, `!` or `?` before whitespace,
/// or a blank line), on one line, at most
/// [`MAX_COMPACT_DESCRIPTION_CHARS`] characters (`…` marks a cut).
pub(crate) fn first_sentence(text: &str) -> String {
    let text = text.trim();
    let mut end = text.len();
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let sentence_end = matches!(c, '.' | '!' | '?') && next.is_none_or(char::is_whitespace);
        if sentence_end {
            end = at + c.len_utf8();
            break;
        }
        if c == '\n'
            && text[at + 1..]
                .trim_start_matches([' ', '\t'])
                .starts_with('\n')
        {
            end = at;
            break;
        }
    }
    let one_line = text[..end].split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line
        .char_indices()
        .nth(MAX_COMPACT_DESCRIPTION_CHARS - 1)
    {
        Some((cut, _)) => format!("{}…", one_line[..cut].trim_end()),
        None => one_line,
    }
}

/// `schema` without the prose the model reads (`description`, `examples`,
/// `title`) at any depth, keeping what it must follow: names, types,
/// `required`, `enum`, bounds. Property names are kept even when a
/// property is called `description`; values (`enum`, `const`, `default`)
/// are copied as they are.
pub(crate) fn compact_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, value) in map {
                let kept = match key.as_str() {
                    "description" | "examples" | "title" => continue,
                    "enum" | "const" | "default" | "required" => value.clone(),
                    // Maps from names to schemas.
                    "properties" | "patternProperties" | "$defs" | "definitions" => match value {
                        Value::Object(named) => Value::Object(
                            named
                                .iter()
                                .map(|(name, sub)| (name.clone(), compact_schema(sub)))
                                .collect(),
                        ),
                        other => other.clone(),
                    },
                    _ => compact_schema(value),
                };
                out.insert(key.clone(), kept);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(compact_schema).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn small1_first_sentence_ends_at_a_stop_or_a_blank_line() {
        assert_eq!(
            first_sentence("Reads a file. Then more.\nAnd more."),
            "Reads a file."
        );
        assert_eq!(
            first_sentence("  Lists things\n\nUsage: call it"),
            "Lists things"
        );
        // A dot inside a word (a version, a file name) is not an end.
        assert_eq!(
            first_sentence("Opens config.json or v1.2 files!\nNext"),
            "Opens config.json or v1.2 files!"
        );
        assert_eq!(first_sentence("no stop at all"), "no stop at all");
        assert_eq!(first_sentence(""), "");
    }

    #[test]
    fn small1_a_long_first_sentence_is_cut_at_the_cap() {
        let long = format!("{} end.", "wörd ".repeat(100));
        let cut = first_sentence(&long);
        assert!(cut.ends_with('…'), "{cut}");
        assert!(
            cut.chars().count() <= MAX_COMPACT_DESCRIPTION_CHARS,
            "{cut}"
        );
    }

    #[test]
    fn small1_compact_schema_drops_prose_and_keeps_the_contract() {
        let schema = json!({
            "type": "object",
            "description": "top",
            "properties": {
                "description": {"type": "string", "description": "a property named description"},
                "mode": {"type": "string", "enum": ["a", "b"], "description": "which"},
                "items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"x": {"type": "integer", "minimum": 1, "title": "X"}},
                        "required": ["x"]
                    }
                },
                "choice": {"anyOf": [{"type": "string", "description": "s"}, {"type": "null"}]},
                "fixed": {"const": {"description": "data, kept"}}
            },
            "required": ["description"],
            "additionalProperties": false
        });
        assert_eq!(
            compact_schema(&schema),
            json!({
                "type": "object",
                "properties": {
                    "description": {"type": "string"},
                    "mode": {"type": "string", "enum": ["a", "b"]},
                    "items": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"x": {"type": "integer", "minimum": 1}},
                            "required": ["x"]
                        }
                    },
                    "choice": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    "fixed": {"const": {"description": "data, kept"}}
                },
                "required": ["description"],
                "additionalProperties": false
            })
        );
    }
}
