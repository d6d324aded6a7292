//! MODEL-2 ListModels: the model catalog, one line per model, read afresh
//! from the config (and environment) at every call. Listing never changes
//! the session's model.
//!
//! [`model_listing`] is shared with `zcode models` (CLI-3).

use super::input::{no_parameters, no_parameters_schema};
use super::{Tool, ToolContext, ToolOutput, blocking};
use crate::config::{Catalog, Config, Model, Provider};
use crate::permission::capability::Capability;
use crate::permission::declaration::ToolDeclaration;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

pub const NAME: &str = "ListModels";
/// Bytes of output at most; the listing is cut at a line with a note.
pub const OUTPUT_BUDGET: usize = 24_000;
/// The whole call (reading the config included).
pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);
/// The error a session without a model catalog gets.
pub(crate) const CATALOG_UNAVAILABLE_CODE: u32 = 31;
pub(crate) const CATALOG_UNAVAILABLE: &str = "model_catalog_unavailable";

/// Looks up an environment variable.
pub(crate) type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// `Error 31 model_catalog_unavailable: this session has no model catalog
/// ({why}). …` — says it is a missing capability, not something to fix.
pub(crate) fn catalog_unavailable(why: &str) -> String {
    format!(
        "Error {CATALOG_UNAVAILABLE_CODE} {CATALOG_UNAVAILABLE}: this session has no model \
         catalog ({why}). This is a missing capability of this session, not a missing \
         configuration for you to fix: there are no models to list or switch to, so keep \
         working with the current model."
    )
}

/// Whether `current` (`provider/model`) names this model. The provider id
/// is compared ignoring ASCII case, the model id exactly.
fn is_current(provider: &Provider, model: &Model, current: Option<&str>) -> bool {
    current
        .and_then(|c| c.split_once('/'))
        .is_some_and(|(p, m)| provider.id.eq_ignore_ascii_case(p) && model.id == m)
}

/// One model's line: `provider/model | Provider name | reasoning: a, b
/// (default: a) | context window: N tokens`, then `[current]` and
/// `[disabled: reason]` when they apply.
pub(crate) fn model_line(provider: &Provider, model: &Model, current: Option<&str>) -> String {
    let mut line = format!("{}/{} | {}", provider.id, model.id, provider.name);
    if !model.reasoning_levels.is_empty() {
        line.push_str(&format!(
            " | reasoning: {}",
            model.reasoning_levels.join(", ")
        ));
        if let Some(default) = &model.default_reasoning {
            line.push_str(&format!(" (default: {default})"));
        }
    }
    match model.context_window {
        Some(tokens) => line.push_str(&format!(" | context window: {tokens} tokens")),
        None => line.push_str(" | context window: asked of the server"),
    }
    if is_current(provider, model, current) {
        line.push_str(" [current]");
    }
    if let Some(reason) = &model.disabled {
        line.push_str(&format!(" [disabled: {reason}]"));
    }
    line
}

/// The listing of `catalog`: a header naming the current model, then one
/// line per model in catalog order (a provider without models gets a line
/// saying so). Ends with a newline.
pub(crate) fn model_listing(catalog: &Catalog, current: Option<&str>) -> String {
    let models: usize = catalog.providers.iter().map(|p| p.models.len()).sum();
    let providers = catalog.providers.len();
    let mut out = format!(
        "{models} model{} from {providers} provider{}.",
        plural(models),
        plural(providers)
    );
    if let Some(current) = current {
        let listed = catalog
            .providers
            .iter()
            .any(|p| p.models.iter().any(|m| is_current(p, m, Some(current))));
        out.push_str(&format!(" Current model: {current}"));
        out.push_str(if listed {
            " (marked [current])."
        } else {
            " (not in the catalog)."
        });
    }
    out.push('\n');
    for provider in &catalog.providers {
        if provider.models.is_empty() {
            out.push_str(&format!(
                "{} | {} | no models configured\n",
                provider.id, provider.name
            ));
        }
        for model in &provider.models {
            out.push_str(&model_line(provider, model, current));
            out.push('\n');
        }
    }
    out
}

/// `text` cut to at most `budget` bytes at a line end, with a note saying
/// how many lines were left out.
pub fn fit_budget(text: &str, budget: usize) -> String {
    if text.len() <= budget {
        return text.to_string();
    }
    let lines: Vec<&str> = text.lines().collect();
    let note = |left: usize| {
        format!(
            "[Output cut at {budget} bytes: {left} more line{} not shown.]\n",
            plural(left)
        )
    };
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let left_after = lines.len() - i - 1;
        // Keep room for the note that follows if more lines are left out.
        if out.len() + line.len() + 1 + note(left_after.max(1)).len() > budget {
            out.push_str(&note(lines.len() - i));
            return out;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Reads the config under `home` and the catalog it implies with `env`,
/// and lists it for the model: the listing within [`OUTPUT_BUDGET`], or
/// error 31 when there is no provider at all.
pub fn list_models(
    home: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    current: Option<&str>,
) -> Result<String, String> {
    let config = Config::load(home).map_err(|e| format!("Cannot read the model catalog: {e}"))?;
    let catalog = config.catalog(env);
    if catalog.providers.is_empty() {
        return Err(catalog_unavailable(
            "no model provider is configured, so it runs on the built-in offline model",
        ));
    }
    Ok(fit_budget(&model_listing(&catalog, current), OUTPUT_BUDGET))
}

pub struct ListModelsTool {
    env: EnvLookup,
    timeout: Duration,
}

impl std::fmt::Debug for ListModelsTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListModelsTool")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Default for ListModelsTool {
    fn default() -> Self {
        Self::new()
    }
}

impl ListModelsTool {
    /// Reads the process environment at each call.
    pub fn new() -> Self {
        Self::with_env(Arc::new(|k: &str| std::env::var(k).ok()))
    }

    /// Reads variables through `env` instead (tests).
    pub fn with_env(env: EnvLookup) -> Self {
        Self {
            env,
            timeout: TIMEOUT,
        }
    }

    /// Another limit than [`TIMEOUT`] for the whole call.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// What ListModels is to the permission engine, the approval and the TUI.
pub(crate) static DECLARATION: ToolDeclaration =
    ToolDeclaration::builtin(NAME, Capability::read_only_low("list_models"));

impl Tool for ListModelsTool {
    fn description(&self) -> &'static str {
        include_str!("../../assets/tools/ListModels.md")
    }

    fn compact_description(&self) -> std::borrow::Cow<'static, str> {
        include_str!("../../assets/tools/compact/ListModels.md").into()
    }

    fn input_schema(&self) -> Value {
        no_parameters_schema()
    }

    fn declaration(&self) -> &ToolDeclaration {
        &DECLARATION
    }

    fn validate(&self, input: Value) -> Result<Value, String> {
        no_parameters(NAME, input)
    }

    fn run<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            if let Err(e) = no_parameters(NAME, input) {
                return ToolOutput::error(e);
            }
            let Some(session) = &ctx.session else {
                return ToolOutput::error(catalog_unavailable("the tool runs outside a session"));
            };
            let home = session.zcode_home.clone();
            let current = session.model_ref.clone();
            let env = self.env.clone();
            let work = blocking(move || match list_models(&home, &*env, Some(&current)) {
                Ok(text) => ToolOutput::ok(text),
                Err(e) => ToolOutput::error(e),
            });
            tokio::select! {
                out = tokio::time::timeout(self.timeout, work) => out.unwrap_or_else(|_| {
                    ToolOutput::error(format!(
                        "ListModels timed out after {:?} reading the model catalog.",
                        self.timeout
                    ))
                }),
                _ = ctx.cancel.cancelled() => ToolOutput::error("ListModels was cancelled."),
            }
        })
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
