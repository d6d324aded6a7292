//! Calls into a tool's own code that must not take the turn down with them:
//! a panic in `validate`, `preview` or `run` becomes a tool error for that
//! call, and a cancelled run ends even when the tool does not stop.

use crate::protocol::{AllowedPrompt, RequestKind};
use crate::tools::{Tool, ToolContext, ToolOutput};
use futures_util::FutureExt;
use serde_json::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

/// How long a cancelled tool gets to stop by itself (Bash signals its
/// process group and waits up to its kill grace) before it is abandoned.
pub const CANCEL_GRACE: Duration = Duration::from_secs(3);

/// The tool error of a call whose tool panicked.
pub fn internal_error(tool: &str) -> String {
    format!(
        "{tool} failed unexpectedly (an internal error); the call may have done part of its work."
    )
}

/// `tool.validate`, a panic being an invalid input.
pub fn validate(tool: &dyn Tool, input: Value) -> Result<Value, String> {
    catch_unwind(AssertUnwindSafe(|| tool.validate(input)))
        .unwrap_or_else(|_| Err(internal_error(tool.name())))
}

/// `tool.precheck`, a panic being a failed check.
pub fn precheck(tool: &dyn Tool, input: &Value, ctx: &ToolContext) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| tool.precheck(input, ctx)))
        .unwrap_or_else(|_| Err(internal_error(tool.name())))
}

/// `tool.preview`, a panic being no preview.
pub fn preview(tool: &dyn Tool, input: &Value, ctx: &ToolContext) -> Option<String> {
    catch_unwind(AssertUnwindSafe(|| tool.preview(input, ctx))).unwrap_or(None)
}

/// `tool.request_kind`, a panic being a plain tool approval (whose replies
/// grant nothing the tool did not ask for).
pub fn request_kind(tool: &dyn Tool) -> RequestKind {
    catch_unwind(AssertUnwindSafe(|| tool.request_kind())).unwrap_or(RequestKind::Tool)
}

/// `tool.allowed_prompts`, a panic being none.
pub fn allowed_prompts(tool: &dyn Tool, input: &Value) -> Vec<AllowedPrompt> {
    catch_unwind(AssertUnwindSafe(|| tool.allowed_prompts(input))).unwrap_or_default()
}

/// `tool.run`: a panic is a tool error; once `ctx.cancel` fires the tool has
/// [`CANCEL_GRACE`] to return, then its future is dropped (work it left on
/// a blocking thread is abandoned there) and the call is reported
/// interrupted.
pub async fn run(tool: &dyn Tool, input: Value, ctx: &ToolContext) -> ToolOutput {
    let name = tool.name();
    let run = AssertUnwindSafe(tool.run(input, ctx)).catch_unwind();
    tokio::pin!(run);
    let finished = tokio::select! {
        finished = &mut run => finished,
        _ = ctx.cancel.cancelled() => match tokio::time::timeout(CANCEL_GRACE, &mut run).await {
            Ok(finished) => finished,
            Err(_) => {
                return ToolOutput::error(format!(
                    "{name} was interrupted and did not stop within {} s; it was abandoned.",
                    CANCEL_GRACE.as_secs()
                ));
            }
        },
    };
    finished.unwrap_or_else(|_| ToolOutput::error(internal_error(name)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::declaration::{ToolDeclaration, UNKNOWN_TOOL_CAPABILITY};
    use futures_util::future::BoxFuture;
    use serde_json::json;

    /// A tool whose every entry point misbehaves.
    struct Broken;

    static BROKEN: ToolDeclaration = ToolDeclaration::builtin("Broken", UNKNOWN_TOOL_CAPABILITY);

    impl Tool for Broken {
        fn declaration(&self) -> &ToolDeclaration {
            &BROKEN
        }
        fn description(&self) -> &'static str {
            ""
        }
        fn input_schema(&self) -> Value {
            json!({})
        }
        fn validate(&self, _: Value) -> Result<Value, String> {
            panic!("validate broke")
        }
        fn preview(&self, _: &Value, _: &ToolContext) -> Option<String> {
            panic!("preview broke")
        }
        fn precheck(&self, _: &Value, _: &ToolContext) -> Result<(), String> {
            panic!("precheck broke")
        }
        fn request_kind(&self) -> RequestKind {
            panic!("request_kind broke")
        }
        fn allowed_prompts(&self, _: &Value) -> Vec<AllowedPrompt> {
            panic!("allowed_prompts broke")
        }
        fn run<'a>(&'a self, input: Value, _: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
            Box::pin(async move {
                if input["hang"] == true {
                    // Ignores cancellation, as a tool stuck in a call would.
                    std::future::pending::<()>().await;
                }
                panic!("run broke")
            })
        }
    }

    fn ctx() -> ToolContext {
        ToolContext::new(std::env::temp_dir(), "guard-test")
    }

    #[tokio::test]
    async fn panics_become_tool_errors() {
        let err = validate(&Broken, json!({})).unwrap_err();
        assert_eq!(err, internal_error("Broken"));
        assert_eq!(preview(&Broken, &json!({}), &ctx()), None);
        assert_eq!(
            precheck(&Broken, &json!({}), &ctx()),
            Err(internal_error("Broken"))
        );
        assert_eq!(request_kind(&Broken), RequestKind::Tool);
        assert!(allowed_prompts(&Broken, &json!({})).is_empty());
        let out = run(&Broken, json!({}), &ctx()).await;
        assert!(out.is_error);
        assert_eq!(out.content, internal_error("Broken"));
    }

    #[tokio::test]
    async fn a_cancelled_tool_that_does_not_stop_is_abandoned() {
        let ctx = ctx();
        ctx.cancel.cancel();
        let out = tokio::time::timeout(
            CANCEL_GRACE + Duration::from_secs(7),
            run(&Broken, json!({"hang": true}), &ctx),
        )
        .await
        .expect("the call ends after the grace");
        assert!(out.is_error);
        assert!(out.content.contains("was interrupted"), "{}", out.content);
    }
}
