//! Where zcode keeps its files: `$ZCODE_HOME`, by default `$HOME/.zcode`.

use std::path::PathBuf;

use super::ConfigError;

/// The name of the config file inside the zcode home (CONF-1).
pub const CONFIG_FILE_NAME: &str = "config.json";

/// Resolves the zcode home directory from an environment lookup.
///
/// `ZCODE_HOME` wins when set and non-empty; otherwise `$HOME/.zcode`.
/// Without either, the error says which variables to set. The lookup is a
/// parameter so that callers (and tests) never have to touch the process
/// environment; production code passes `|k| std::env::var(k).ok()`.
pub fn zcode_home(env: impl Fn(&str) -> Option<String>) -> Result<PathBuf, ConfigError> {
    let non_empty = |key: &str| env(key).filter(|v| !v.trim().is_empty());
    if let Some(home) = non_empty("ZCODE_HOME") {
        return Ok(PathBuf::from(home));
    }
    match non_empty("HOME") {
        Some(home) => Ok(PathBuf::from(home).join(".zcode")),
        None => Err(ConfigError::HomeNotSet),
    }
}

/// `$ZCODE_HOME/config.json`.
pub fn config_path(env: impl Fn(&str) -> Option<String>) -> Result<PathBuf, ConfigError> {
    Ok(zcode_home(env)?.join(CONFIG_FILE_NAME))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn conf1_zcode_home_overrides_home() {
        let env = env_of(&[("ZCODE_HOME", "/opt/zc"), ("HOME", "/home/u")]);
        assert_eq!(zcode_home(env).ok(), Some(PathBuf::from("/opt/zc")));
    }

    #[test]
    fn conf1_default_home_is_dot_zcode() {
        let env = env_of(&[("HOME", "/home/u")]);
        assert_eq!(
            config_path(env).ok(),
            Some(PathBuf::from("/home/u/.zcode/config.json"))
        );
    }

    #[test]
    fn conf1_empty_zcode_home_falls_back_to_home() {
        let env = env_of(&[("ZCODE_HOME", ""), ("HOME", "/home/u")]);
        assert_eq!(zcode_home(env).ok(), Some(PathBuf::from("/home/u/.zcode")));
    }

    #[test]
    fn conf1_no_home_is_a_clear_error() {
        let err = zcode_home(env_of(&[])).map(|_| ()).unwrap_err();
        assert!(matches!(err, ConfigError::HomeNotSet));
        let msg = err.to_string();
        assert!(msg.contains("HOME") && msg.contains("ZCODE_HOME"), "{msg}");
    }
}
