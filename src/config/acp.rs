//! The config `acp` section: how `zcode acp` behaves towards its client.
//!
//! Today it holds ASK-7's auto-continue: in a protocol host, a question
//! nobody answers is resolved on its own after `deadlineMs`; the client is
//! told the deadline `graceMs` after the question was asked, so it can show
//! a countdown. The TUI keeps waiting and is not affected.

use std::time::Duration;

/// The config `acp` section, validated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AcpConfig {
    /// `acp.autoContinue` (ASK-7).
    pub auto_continue: AutoContinueConfig,
}

/// `acp.autoContinue` (ASK-7): when an unanswered question continues on
/// its own. `grace` is always shorter than `deadline`, and `deadline` is
/// never zero (checked when the file is read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoContinueConfig {
    /// Off: a question waits for its answer (running countdowns pause).
    pub enabled: bool,
    /// From the question to the moment the client is told the deadline.
    pub grace: Duration,
    /// From the question to the moment it is resolved with no answers.
    pub deadline: Duration,
}

impl AutoContinueConfig {
    /// ASK-7's hidden grace period: one minute.
    pub const DEFAULT_GRACE: Duration = Duration::from_secs(60);
    /// ASK-7's deadline: five minutes.
    pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(300);
    /// Longest accepted `deadlineMs` (one day): a question left for longer
    /// is not "continuing on its own" any more, and a larger number is
    /// almost certainly seconds or microseconds written as milliseconds.
    pub const MAX_DEADLINE_MS: u64 = 86_400_000;
}

impl Default for AutoContinueConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            grace: Self::DEFAULT_GRACE,
            deadline: Self::DEFAULT_DEADLINE,
        }
    }
}

/// Checks `graceMs` and `deadlineMs` (either may be left out for its
/// default). The error is `(json path, message)`.
pub(crate) fn auto_continue(
    enabled: Option<bool>,
    grace_ms: Option<u64>,
    deadline_ms: Option<u64>,
) -> Result<AutoContinueConfig, (&'static str, String)> {
    const GRACE: &str = "acp.autoContinue.graceMs";
    const DEADLINE: &str = "acp.autoContinue.deadlineMs";
    let max = AutoContinueConfig::MAX_DEADLINE_MS;
    let defaults = AutoContinueConfig::default();
    let deadline = match deadline_ms {
        None => defaults.deadline,
        Some(0) => {
            return Err((
                DEADLINE,
                "must be greater than 0 (to never continue on its own, set \"enabled\": false)"
                    .to_string(),
            ));
        }
        Some(ms) if ms > max => {
            return Err((
                DEADLINE,
                format!("{ms} is out of range: must be 1..={max} milliseconds (one day)"),
            ));
        }
        Some(ms) => Duration::from_millis(ms),
    };
    let grace = match grace_ms {
        None => defaults.grace,
        Some(ms) => Duration::from_millis(ms),
    };
    if grace >= deadline {
        // Name the key the user wrote; with both defaulted this cannot
        // happen.
        let at = if grace_ms.is_some() { GRACE } else { DEADLINE };
        return Err((
            at,
            format!(
                "graceMs ({}) must be less than deadlineMs ({}): the countdown is shown before the question continues",
                grace.as_millis(),
                deadline.as_millis()
            ),
        ));
    }
    Ok(AutoContinueConfig {
        enabled: enabled.unwrap_or(defaults.enabled),
        grace,
        deadline,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ask7_defaults_are_on_one_minute_five_minutes() {
        let c = AutoContinueConfig::default();
        assert!(c.enabled);
        assert_eq!(c.grace, Duration::from_secs(60));
        assert_eq!(c.deadline, Duration::from_secs(300));
        assert_eq!(auto_continue(None, None, None), Ok(c));
    }

    #[test]
    fn ask7_short_timers_for_tests_are_accepted() {
        let c = auto_continue(Some(false), Some(0), Some(1)).unwrap();
        assert!(!c.enabled);
        assert_eq!(c.grace, Duration::ZERO);
        assert_eq!(c.deadline, Duration::from_millis(1));
    }

    #[test]
    fn ask7_grace_must_be_below_the_deadline() {
        let (at, message) = auto_continue(None, Some(5000), Some(5000)).unwrap_err();
        assert_eq!(at, "acp.autoContinue.graceMs");
        assert!(
            message.contains("must be less than deadlineMs (5000)"),
            "{message}"
        );
        // Only the deadline written, below the default grace: it is named.
        let (at, _) = auto_continue(None, None, Some(30_000)).unwrap_err();
        assert_eq!(at, "acp.autoContinue.deadlineMs");
    }

    #[test]
    fn ask7_zero_and_absurd_deadlines_are_rejected() {
        let (at, message) = auto_continue(None, Some(0), Some(0)).unwrap_err();
        assert_eq!(at, "acp.autoContinue.deadlineMs");
        assert!(message.contains("greater than 0"), "{message}");
        let (_, message) = auto_continue(None, None, Some(u64::MAX)).unwrap_err();
        assert!(message.contains("out of range"), "{message}");
        // A huge grace with the default deadline is a grace error, not a
        // panic or an overflow.
        let (at, _) = auto_continue(None, Some(u64::MAX), None).unwrap_err();
        assert_eq!(at, "acp.autoContinue.graceMs");
    }
}
