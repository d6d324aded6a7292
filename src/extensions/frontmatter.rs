//! Splits a Markdown file into its frontmatter (`---\nYAML\n---`) and its
//! body, and reads the frontmatter's top-level keys.
//!
//! The YAML is read strictly first (yaml-rust2). Claude Code's own agent
//! files often are not valid YAML (an unquoted description holding colons
//! and `<example>` blocks); when the strict reading fails, or gives no
//! mapping, each line that starts at column 0 with one of the caller's
//! known keys and a `:` starts that key, and every other line continues
//! the value before it. A BOM and CRLF line ends are accepted; a file
//! without frontmatter is all body.

use std::collections::BTreeMap;
use yaml_rust2::Event;
use yaml_rust2::parser::Parser;
use yaml_rust2::scanner::TScalarStyle;

/// A frontmatter value as the loaders use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A scalar (strings, numbers and booleans alike, as written).
    Text(String),
    /// A sequence of scalars.
    List(Vec<String>),
    /// A mapping or a nested sequence: nothing the loaders read.
    Other,
}

/// A file split into its frontmatter's top-level keys and its body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Document {
    /// Keys with a null value are left out.
    pub fields: BTreeMap<String, Value>,
    /// The text after the frontmatter (all of it without one), LF line ends.
    pub body: String,
    /// The frontmatter was not valid YAML and was read line by line.
    pub lenient: bool,
}

impl Document {
    /// A key's text, trimmed; `None` when absent, empty or not a scalar.
    pub fn text(&self, key: &str) -> Option<&str> {
        match self.fields.get(key)? {
            Value::Text(text) => Some(text.trim()).filter(|t| !t.is_empty()),
            _ => None,
        }
    }
}

/// Splits `text`. `known_keys` are the keys the lenient reading knows
/// (the strict one reads every key). `Err` is the reason the file is
/// unusable: a frontmatter opened with `---` and never closed.
pub fn parse(text: &str, known_keys: &[&str]) -> Result<Document, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = text.replace("\r\n", "\n");
    let Some(rest) = text.strip_prefix("---\n").or_else(|| {
        // `---` alone: an opened frontmatter with nothing after it.
        (text.trim_end() == "---").then_some("")
    }) else {
        return Ok(Document {
            body: text,
            ..Default::default()
        });
    };
    let (yaml, body) = split_at_closing(rest).ok_or_else(|| {
        "the frontmatter opened with --- is never closed by a --- line".to_string()
    })?;
    let body = body.trim_start_matches('\n').to_string();
    match strict(yaml) {
        Some(fields) => Ok(Document {
            fields,
            body,
            lenient: false,
        }),
        None => Ok(Document {
            fields: lenient(yaml, known_keys),
            body,
            lenient: true,
        }),
    }
}

/// The frontmatter's text and what follows its closing `---` line.
fn split_at_closing(rest: &str) -> Option<(&str, &str)> {
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some((&rest[..offset], &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    None
}

/// The strict reading over the parser's events; `None` when the text is
/// not YAML or not a mapping (an empty frontmatter is an empty mapping).
/// yaml-rust2's own loader copies an anchored node at every alias, so a
/// few lines of aliases would build millions of nodes: here an alias is
/// never expanded, only a value no loader reads.
fn strict(yaml: &str) -> Option<BTreeMap<String, Value>> {
    let mut parser = Parser::new_from_str(yaml);
    let mut reader = StrictReader::default();
    loop {
        let (event, _) = parser.next_token().ok()?;
        if event == Event::StreamEnd {
            break;
        }
        reader.on(event)?;
    }
    Some(reader.fields)
}

/// The top-level keys of the first document, from its events.
#[derive(Default)]
struct StrictReader {
    fields: BTreeMap<String, Value>,
    /// Nesting of collections: 1 inside the top mapping.
    depth: usize,
    documents: usize,
    key: KeyState,
    /// The value being read at depth 2 or more: the scalars of a list so
    /// far, or `None` once it is anything else.
    nested: Option<Vec<String>>,
}

/// Where the top mapping is between a key and its value.
#[derive(Default)]
enum KeyState {
    #[default]
    Waiting,
    /// This key's value comes next.
    Key(String),
    /// Inside a key that is itself a collection.
    ComplexKey,
    /// The value of a key that is not text comes next: skipped.
    SkipValue,
}

impl StrictReader {
    /// One event; `None`: not a mapping.
    fn on(&mut self, event: Event) -> Option<()> {
        if self.documents > 1 {
            return Some(());
        }
        match event {
            Event::DocumentStart => self.documents += 1,
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let sequence = matches!(event, Event::SequenceStart(..));
                self.depth += 1;
                match self.depth {
                    1 if sequence => return None,
                    1 => {}
                    2 => {
                        self.nested = None;
                        match self.key {
                            KeyState::Waiting => self.key = KeyState::ComplexKey,
                            KeyState::Key(_) if sequence => self.nested = Some(Vec::new()),
                            _ => {}
                        }
                    }
                    _ => self.nested = None,
                }
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 1 {
                    let nested = self.nested.take();
                    self.key = match std::mem::take(&mut self.key) {
                        KeyState::Key(key) => {
                            self.fields
                                .insert(key, nested.map_or(Value::Other, Value::List));
                            KeyState::Waiting
                        }
                        KeyState::ComplexKey => KeyState::SkipValue,
                        KeyState::Waiting | KeyState::SkipValue => KeyState::Waiting,
                    };
                }
            }
            Event::Scalar(text, style, ..) => match self.depth {
                0 => return plain_null(&text, style).then_some(()),
                1 => {
                    self.key = match std::mem::take(&mut self.key) {
                        KeyState::Waiting => KeyState::Key(text),
                        KeyState::Key(key) => {
                            if !plain_null(&text, style) {
                                self.fields.insert(key, Value::Text(text));
                            }
                            KeyState::Waiting
                        }
                        KeyState::ComplexKey | KeyState::SkipValue => KeyState::Waiting,
                    }
                }
                2 => {
                    if let Some(items) = self.nested.as_mut() {
                        items.push(text);
                    }
                }
                _ => {}
            },
            Event::Alias(_) => match self.depth {
                0 => return None,
                1 => {
                    self.key = match std::mem::take(&mut self.key) {
                        KeyState::Waiting => KeyState::SkipValue,
                        KeyState::Key(key) => {
                            self.fields.insert(key, Value::Other);
                            KeyState::Waiting
                        }
                        KeyState::ComplexKey | KeyState::SkipValue => KeyState::Waiting,
                    }
                }
                _ => self.nested = None,
            },
            _ => {}
        }
        Some(())
    }
}

/// A plain `~`, `null` or nothing: YAML's null.
fn plain_null(text: &str, style: TScalarStyle) -> bool {
    style == TScalarStyle::Plain && matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

/// The line-by-line reading of a frontmatter that is not valid YAML.
fn lenient(yaml: &str, known_keys: &[&str]) -> BTreeMap<String, Value> {
    // (key, the rest of its first line, the lines that continue it)
    let mut raw: Vec<(String, String, Vec<String>)> = Vec::new();
    for line in yaml.lines() {
        let starts_key = line.split_once(':').and_then(|(key, value)| {
            known_keys
                .iter()
                .find(|k| **k == key)
                .map(|k| (k.to_string(), value.trim().to_string()))
        });
        match (starts_key, raw.last_mut()) {
            (Some((key, value)), _) => {
                // A repeated key: the last one counts, as in YAML readers.
                raw.retain(|(k, _, _)| *k != key);
                raw.push((key, value, Vec::new()));
            }
            (None, Some((_, _, more))) => more.push(line.trim().to_string()),
            (None, None) => {}
        }
    }
    raw.into_iter()
        .filter_map(|(key, first, more)| lenient_value(&first, &more).map(|v| (key, v)))
        .collect()
}

fn lenient_value(first: &str, more: &[String]) -> Option<Value> {
    let more: Vec<&str> = more
        .iter()
        .map(String::as_str)
        .filter(|l| !l.is_empty())
        .collect();
    if first.is_empty() && !more.is_empty() && more.iter().all(|l| l.starts_with("- ")) {
        return Some(Value::List(
            more.iter().map(|l| unquote(&l[2..]).to_string()).collect(),
        ));
    }
    if more.is_empty()
        && let Some(inner) = first.strip_prefix('[').and_then(|f| f.strip_suffix(']'))
    {
        return Some(Value::List(
            inner
                .split(',')
                .map(|item| unquote(item.trim()).to_string())
                .filter(|item| !item.is_empty())
                .collect(),
        ));
    }
    let mut lines = vec![first];
    lines.extend(more);
    let text = lines.join("\n");
    let text = text.trim();
    if text.is_empty() || text == "~" || text == "null" {
        return None;
    }
    Some(Value::Text(unquote(text).to_string()))
}

/// `"x"` or `'x'` without its quotes.
fn unquote(text: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(quote).and_then(|t| t.strip_suffix(quote)) {
            return inner;
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: &[&str] = &["name", "description", "tools", "model", "color"];

    fn text(doc: &Document, key: &str) -> String {
        doc.text(key).unwrap_or_default().to_string()
    }

    #[test]
    fn frontmatter_valid_yaml_is_read_strictly() {
        let doc = parse(
            "---\nname: a\ndescription: \"x: y\"\ntools: [Read, Grep]\n---\nBody\n",
            KEYS,
        )
        .unwrap();
        assert!(!doc.lenient);
        assert_eq!(text(&doc, "name"), "a");
        assert_eq!(text(&doc, "description"), "x: y");
        assert_eq!(
            doc.fields["tools"],
            Value::List(vec!["Read".into(), "Grep".into()])
        );
        assert_eq!(doc.body, "Body\n");
    }

    #[test]
    fn frontmatter_unquoted_colons_and_examples_fall_back_to_lenient_keys() {
        let file = "---\nname: code-reviewer\ndescription: Use this agent after writing code. Examples: <example>\nContext: the user wrote a function.\nuser: \"I wrote it\"\nassistant: \"Let me review: using the agent\"\n</example>\ntools: Read, Grep\nmodel: sonnet\ncolor: blue\n---\nYou review code.\n";
        let doc = parse(file, KEYS).unwrap();
        assert!(doc.lenient);
        assert_eq!(text(&doc, "name"), "code-reviewer");
        let description = text(&doc, "description");
        assert!(description.starts_with("Use this agent after writing code. Examples: <example>"));
        assert!(
            description.contains("user: \"I wrote it\""),
            "{description}"
        );
        assert!(description.ends_with("</example>"), "{description}");
        assert_eq!(text(&doc, "tools"), "Read, Grep");
        assert_eq!(text(&doc, "model"), "sonnet");
        assert_eq!(doc.body, "You review code.\n");
    }

    #[test]
    fn frontmatter_crlf_and_bom_are_accepted() {
        let doc = parse(
            "\u{feff}---\r\nname: a\r\n---\r\nline one\r\nline two\r\n",
            KEYS,
        )
        .unwrap();
        assert_eq!(text(&doc, "name"), "a");
        assert_eq!(doc.body, "line one\nline two\n");
    }

    #[test]
    fn frontmatter_absent_means_all_body() {
        let doc = parse("Just text\n--- not a fence\n", KEYS).unwrap();
        assert!(doc.fields.is_empty());
        assert_eq!(doc.body, "Just text\n--- not a fence\n");
    }

    #[test]
    fn frontmatter_empty_body_and_empty_frontmatter() {
        let doc = parse("---\nname: a\n---\n", KEYS).unwrap();
        assert_eq!(doc.body, "");
        let doc = parse("---\n---\nbody", KEYS).unwrap();
        assert!(doc.fields.is_empty());
        assert_eq!(doc.body, "body");
    }

    #[test]
    fn frontmatter_never_closed_is_an_error() {
        let err = parse("---\nname: a\nbody\n", KEYS).unwrap_err();
        assert!(err.contains("never closed"), "{err}");
        assert!(parse("---", KEYS).is_err());
    }

    #[test]
    fn frontmatter_lenient_lists_and_quotes() {
        let doc = parse(
            "---\nname: 'q'\ntools:\n  - Read\n  - \"Bash\"\ndescription: a: b\n---\n",
            KEYS,
        )
        .unwrap();
        assert!(doc.lenient);
        assert_eq!(text(&doc, "name"), "q");
        assert_eq!(
            doc.fields["tools"],
            Value::List(vec!["Read".into(), "Bash".into()])
        );
        let doc = parse("---\ntools: [Read, 'Grep']\ndescription: a: b\n---\n", KEYS).unwrap();
        assert_eq!(
            doc.fields["tools"],
            Value::List(vec!["Read".into(), "Grep".into()])
        );
    }

    #[test]
    fn frontmatter_nested_values_are_other_and_null_is_absent() {
        let doc = parse(
            "---\nname:\nmeta: {a: 1}\n? [complex, key]\n: skipped\nlist: [a, [b]]\nflag: true\nafter: ok\n---\n",
            KEYS,
        )
        .unwrap();
        assert!(!doc.lenient);
        assert!(!doc.fields.contains_key("name"));
        assert_eq!(doc.fields["meta"], Value::Other);
        assert_eq!(doc.fields["list"], Value::Other);
        assert_eq!(doc.text("flag"), Some("true"));
        assert_eq!(doc.text("after"), Some("ok"));
        assert_eq!(doc.fields.len(), 4, "{:?}", doc.fields);
    }

    #[test]
    fn frontmatter_alias_heavy_yaml_does_not_blow_up() {
        // Aliases are kept as references, never expanded.
        let mut yaml = String::from("---\na: &a [x, x, x, x, x, x, x, x]\n");
        let mut prev = 'a';
        for c in 'b'..='u' {
            yaml.push_str(&format!("{c}: &{c} [*{prev}, *{prev}, *{prev}, *{prev}]\n"));
            prev = c;
        }
        yaml.push_str("name: bomb\n---\n");
        let doc = parse(&yaml, KEYS).unwrap();
        assert_eq!(text(&doc, "name"), "bomb");
    }
}
