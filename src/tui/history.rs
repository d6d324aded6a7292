//! Which prompts the ↑ history keeps across sessions of a project. Every
//! prompt is recalled within its session; only those kept here are
//! written to the database for the next session. A shell line (`!cmd`)
//! that seems to carry a credential is never written (`TOKEN=… make`,
//! `curl -H "Authorization: Bearer …"`, `--password …`), nor is any line
//! holding a well-known token format or a URL with a password: the
//! database is a plain file that outlives the terminal's scrollback.

/// Whether `line` (as sent, chips expanded) may be written to the
/// project's prompt history.
pub fn keep_across_sessions(line: &str) -> bool {
    if carries_token(line) {
        return false;
    }
    match line.trim_start().strip_prefix('!') {
        Some(command) => !shell_secret(command),
        None => true,
    }
}

/// Names that say a value is a secret, in an assignment or a flag.
const SECRET_WORDS: [&str; 8] = [
    "token",
    "secret",
    "password",
    "passwd",
    "apikey",
    "api_key",
    "api-key",
    "credential",
];

/// Prefixes of well-known token formats.
const TOKEN_PREFIXES: [&str; 9] = [
    "sk-",
    "ghp_",
    "gho_",
    "ghs_",
    "ghu_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
];

/// A well-known token, a bearer or basic credential, or a URL with a
/// password, anywhere in the line.
fn carries_token(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    if lower.contains("bearer ") || lower.contains("authorization:") {
        return true;
    }
    let words = line.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '=' | '`'));
    words.into_iter().any(|word| {
        let long = word.len() >= 20;
        let token = TOKEN_PREFIXES.iter().any(|p| word.starts_with(p)) || word.starts_with("AKIA");
        (long && token) || url_with_password(word)
    })
}

/// `scheme://user:password@host…`.
fn url_with_password(word: &str) -> bool {
    let Some((_, rest)) = word.split_once("://") else {
        return false;
    };
    let authority = rest.split('/').next().unwrap_or("");
    authority
        .rsplit_once('@')
        .is_some_and(|(userinfo, _)| userinfo.contains(':'))
}

/// A shell line that assigns or passes a value under a secret's name:
/// `GITHUB_TOKEN=… cmd`, `export API_KEY=…`, `--password …`, `-p…` of
/// `mysql`, `--token=…`.
fn shell_secret(command: &str) -> bool {
    let lower = command.to_ascii_lowercase();
    let secret_name =
        |name: &str| SECRET_WORDS.iter().any(|w| name.contains(w)) || name.ends_with("key");
    let mut words = lower.split_whitespace().peekable();
    while let Some(word) = words.next() {
        if let Some((name, value)) = word.split_once('=')
            && !value.is_empty()
            && secret_name(name.trim_start_matches('-'))
        {
            return true;
        }
        if let Some(flag) = word.strip_prefix("--")
            && secret_name(flag)
            && words.peek().is_some()
        {
            return true;
        }
    }
    // `mysql -pSECRET`, `mysql -u root -pSECRET`.
    lower.contains("mysql")
        && lower
            .split_whitespace()
            .any(|w| w.len() > 2 && w.starts_with("-p"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_keeps_ordinary_prompts_and_commands() {
        for line in [
            "fix the failing test in src/lib.rs",
            "explain how the token bucket works",
            "!ls -la",
            "!cargo test --lib history",
            "!git log --oneline -5",
            "!export PATH=/usr/bin",
        ] {
            assert!(keep_across_sessions(line), "{line}");
        }
    }

    #[test]
    fn history_never_keeps_shell_lines_with_obvious_credentials() {
        for line in [
            "!GITHUB_TOKEN=abc123 gh pr list",
            "!export OPENAI_API_KEY=sk-proj-0123456789abcdefghij",
            "!curl -H \"Authorization: Bearer abc\" https://api.example.com",
            "!psql postgres://admin:hunter2@db.example.com/prod",
            "!deploy --password hunter2",
            "!deploy --token=abc",
            "!mysql -u root -phunter2",
            "!AWS_SECRET_ACCESS_KEY=x aws s3 ls",
        ] {
            assert!(!keep_across_sessions(line), "{line}");
        }
    }

    #[test]
    fn history_never_keeps_well_known_tokens_in_any_prompt() {
        assert!(!keep_across_sessions(
            "use ghp_0123456789abcdefghijklmnop to push"
        ));
        assert!(!keep_across_sessions(
            "clone https://me:secret@git.example.com/repo.git"
        ));
        assert!(keep_across_sessions(
            "clone https://git.example.com/repo.git"
        ));
    }
}
