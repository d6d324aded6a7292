//! Shared input validation for the tools (APPR-1).
//!
//! Every tool turns the model's JSON into a typed struct. Before serde sees
//! the input, numbers and booleans that models commonly send as strings
//! (`"10"`, `"true"`) are coerced and range-checked here, so the error the
//! model reads is a plain sentence rather than a serde type error.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// The prefix every validation error carries.
pub fn invalid(tool: &str, message: impl std::fmt::Display) -> String {
    format!("Invalid input for {tool}: {message}")
}

/// The raw input fields, checked one by one before deserializing.
pub(crate) struct Fields {
    tool: &'static str,
    map: Map<String, Value>,
}

impl Fields {
    /// The input must be a JSON object (`null` counts as an empty one).
    pub fn new(tool: &'static str, input: Value) -> Result<Self, String> {
        match input {
            Value::Object(map) => Ok(Self { tool, map }),
            Value::Null => Ok(Self {
                tool,
                map: Map::new(),
            }),
            other => Err(invalid(
                tool,
                format!("expected a JSON object, got {}", kind(&other)),
            )),
        }
    }

    fn err(&self, message: impl std::fmt::Display) -> String {
        invalid(self.tool, message)
    }

    /// Coerces an optional integer field (a JSON integer or a string of
    /// digits) and checks `min..=max`. A `null` value is removed.
    pub(crate) fn int(
        &mut self,
        key: &str,
        min: u64,
        max: Option<u64>,
    ) -> Result<Option<u64>, String> {
        let Some(value) = self.map.get(key) else {
            return Ok(None);
        };
        let number = match value {
            Value::Null => {
                self.map.remove(key);
                return Ok(None);
            }
            Value::Number(n) => n.as_u64().or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                    .map(|f| f as u64)
            }),
            Value::String(s) => s.trim().parse::<u64>().ok(),
            _ => None,
        };
        let describe = if min == 0 {
            "a non-negative integer"
        } else {
            "a positive integer"
        };
        let Some(number) = number.filter(|n| *n >= min) else {
            return Err(self.err(format!("\"{key}\" must be {describe}")));
        };
        if let Some(max) = max.filter(|max| number > *max) {
            return Err(self.err(format!("\"{key}\" must be at most {max}, got {number}")));
        }
        self.map.insert(key.to_string(), Value::from(number));
        Ok(Some(number))
    }

    /// Coerces an optional boolean field (`true`/`false`, or those words as
    /// strings). A `null` value is removed.
    pub fn bool(&mut self, key: &str) -> Result<Option<bool>, String> {
        let Some(value) = self.map.get(key) else {
            return Ok(None);
        };
        let flag = match value {
            Value::Null => {
                self.map.remove(key);
                return Ok(None);
            }
            Value::Bool(b) => Some(*b),
            Value::String(s) => match s.trim() {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            },
            _ => None,
        };
        let Some(flag) = flag else {
            return Err(self.err(format!("\"{key}\" must be true or false")));
        };
        self.map.insert(key.to_string(), Value::Bool(flag));
        Ok(Some(flag))
    }

    /// Checks an optional string field against its allowed values.
    pub(crate) fn one_of(&mut self, key: &str, allowed: &[&str]) -> Result<(), String> {
        match self.map.get(key) {
            None => Ok(()),
            Some(Value::Null) => {
                self.map.remove(key);
                Ok(())
            }
            Some(Value::String(s)) if allowed.contains(&s.as_str()) => Ok(()),
            Some(_) => {
                let list: Vec<String> = allowed.iter().map(|a| format!("\"{a}\"")).collect();
                Err(self.err(format!("\"{key}\" must be one of {}", list.join(", "))))
            }
        }
    }

    /// Deserializes into the tool's input struct; serde's messages are
    /// reworded (`missing field "file_path"`).
    pub fn parse<T: DeserializeOwned>(self) -> Result<T, String> {
        let tool = self.tool;
        serde_json::from_value(Value::Object(self.map))
            .map_err(|e| invalid(tool, reword_serde(&e.to_string())))
    }
}

/// Checks that a required string is not empty (after trimming).
pub(crate) fn non_empty(tool: &str, key: &str, value: &str) -> Result<(), String> {
    if value.trim().is_empty() {
        Err(invalid(tool, format!("\"{key}\" must not be empty")))
    } else {
        Ok(())
    }
}

/// The normalized input value handed on to `run` (optional fields that are
/// absent are left out).
pub(crate) fn normalized<T: Serialize>(tool: &str, input: &T) -> Result<Value, String> {
    serde_json::to_value(input).map_err(|e| invalid(tool, e))
}

/// serde says ``missing field `x` `` and ``invalid type: integer `1`, expected
/// a string``; the model reads `missing field "x"` and `"x" must be a string`.
fn reword_serde(message: &str) -> String {
    let quoted = message.replace('`', "\"");
    if let Some(rest) = quoted.strip_prefix("invalid type: ") {
        // "string \"x\", expected u64" -> "got string \"x\", expected u64"
        if let Some((got, expected)) = rest.split_once(", expected ") {
            return format!("expected {}, got {got}", friendly_expected(expected));
        }
    }
    quoted
}

fn friendly_expected(expected: &str) -> &str {
    match expected {
        "a string" => "a string",
        "a boolean" => "true or false",
        "u64" | "u32" | "usize" => "a non-negative integer",
        other => other,
    }
}

/// How error messages name the JSON type of a value.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Checks the input of a tool that takes no parameters: an empty object
/// (`null` counts as one). Returns the normalized `{}`.
pub(crate) fn no_parameters(tool: &str, input: Value) -> Result<Value, String> {
    match input {
        Value::Null => Ok(json!({})),
        Value::Object(map) => match map.keys().next() {
            None => Ok(json!({})),
            Some(key) => Err(invalid(
                tool,
                format!("unknown field \"{key}\"; {tool} takes no parameters (pass {{}})"),
            )),
        },
        other => Err(invalid(
            tool,
            format!("expected a JSON object, got {}", kind(&other)),
        )),
    }
}

/// The schema of a tool without parameters.
pub(crate) fn no_parameters_schema() -> Value {
    json!({
        "type": "object",
        "properties": {},
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Sample {
        name: String,
        #[serde(default)]
        count: Option<u64>,
    }

    #[test]
    fn appr1_missing_field_is_quoted() {
        let err = Fields::new("X", json!({}))
            .unwrap()
            .parse::<Sample>()
            .unwrap_err();
        assert_eq!(err, "Invalid input for X: missing field \"name\"");
    }

    #[test]
    fn appr1_type_error_is_a_sentence() {
        let err = Fields::new("X", json!({"name": 3}))
            .unwrap()
            .parse::<Sample>()
            .unwrap_err();
        assert_eq!(
            err,
            "Invalid input for X: expected a string, got integer \"3\""
        );
    }

    #[test]
    fn appr1_int_coercion_and_range() {
        let mut f = Fields::new("X", json!({"name": "a", "count": "12"})).unwrap();
        assert_eq!(f.int("count", 1, Some(20)).unwrap(), Some(12));
        let s: Sample = f.parse().unwrap();
        assert_eq!((s.name.as_str(), s.count), ("a", Some(12)));

        let mut f = Fields::new("X", json!({"count": 0})).unwrap();
        assert_eq!(
            f.int("count", 1, None).unwrap_err(),
            "Invalid input for X: \"count\" must be a positive integer"
        );
        let mut f = Fields::new("X", json!({"count": 30})).unwrap();
        assert_eq!(
            f.int("count", 1, Some(20)).unwrap_err(),
            "Invalid input for X: \"count\" must be at most 20, got 30"
        );
        let mut f = Fields::new("X", json!({"count": null})).unwrap();
        assert_eq!(f.int("count", 1, None).unwrap(), None);
    }

    #[test]
    fn appr1_not_an_object() {
        assert_eq!(
            Fields::new("X", json!([1])).err().unwrap(),
            "Invalid input for X: expected a JSON object, got an array"
        );
    }
}
