//! `zcode models` (CLI-3): the model catalog, as ListModels shows it.

use super::environment::Environment;
use super::stdout::outln;
use crate::config::{Catalog, Config};
use crate::model::reference::resolve_model_reference;
use crate::model::select::{DEMO_MODEL_ID, DEMO_PROVIDER_ID, HOW_TO_CONFIGURE, select_model};
use crate::tools::list_models::model_listing;
use std::process::ExitCode;

pub fn run(model_flag: Option<&str>) -> anyhow::Result<ExitCode> {
    let env = Environment::load()?;
    let lookup = |k: &str| std::env::var(k).ok();
    let catalog = env.config.catalog(lookup);
    if catalog.providers.is_empty() {
        outln!(
            "No model provider is configured: zcode uses the offline demo \
             ({DEMO_PROVIDER_ID}/{DEMO_MODEL_ID}), which answers with canned replies.\n\
             To use a real model, {HOW_TO_CONFIGURE}."
        );
        return Ok(ExitCode::SUCCESS);
    }
    let current = match select_model(&env.config, lookup, model_flag) {
        Ok(m) => Some(format!("{}/{}", m.provider_id, m.model_id)),
        Err(e) => {
            // The listing is still useful: say why a session would not start.
            eprintln!("zcode: warning: {e}");
            would_pick(&env.config, &catalog, model_flag)
        }
    };
    super::stdout::write_text(&model_listing(&catalog, current.as_deref()));
    outln!(
        "Pick a model with --model providerId/modelId (or /model in a session), \
         or set \"model\" in $ZCODE_HOME/config.json."
    );
    Ok(ExitCode::SUCCESS)
}

/// The model `select_model` would pick when it failed for a reason other
/// than the reference (a missing API key): the flag, else the config's
/// `model`, else the first enabled model.
fn would_pick(config: &Config, catalog: &Catalog, flag: Option<&str>) -> Option<String> {
    let flag = flag.map(str::trim).filter(|f| !f.is_empty());
    match flag.or(config.model.as_deref()) {
        Some(reference) => resolve_model_reference(catalog, reference, None)
            .ok()
            .map(|r| r.reference()),
        None => catalog.providers.iter().find_map(|p| {
            p.models
                .iter()
                .find(|m| m.disabled.is_none())
                .map(|m| format!("{}/{}", p.id, m.id))
        }),
    }
}
