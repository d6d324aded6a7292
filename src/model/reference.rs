//! Model references (MODEL-3), as `/model`, `--model`, the config's `model`
//! and tools taking a model write them:
//!
//! - `providerId/modelId`: that model of that provider. Model ids may
//!   contain `/` themselves (`meta/llama-3`), so the text before the first
//!   `/` is a provider prefix only when a provider has that id; otherwise
//!   the whole text is a bare model id.
//! - a bare `modelId`: the model of that id if exactly one provider has it;
//!   if several do, the current session's provider's, else an ambiguity
//!   error.
//! - `…$level`: a reasoning level of the model (the text after the last
//!   `$`); absent → the model's default level.
//!
//! Matching ignores ASCII case (an exact match wins over a case-insensitive
//! one). Disabled models never match silently: a reference that can only
//! mean a disabled model is an error saying why it is disabled. Every error
//! lists up to 40 enabled models and points to `zcode models`, which lists
//! them all.

use std::fmt;

use crate::config::{Catalog, Model, Provider};

/// A resolved reference, with the catalog's spelling of the ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedModel {
    pub provider_id: String,
    pub model_id: String,
    /// The level asked for, else the model's default.
    pub reasoning: Option<String>,
}

impl ResolvedModel {
    /// `provider/model`.
    pub fn reference(&self) -> String {
        format!("{}/{}", self.provider_id, self.model_id)
    }
}

/// How many ids an error lists at most.
pub const MAX_LISTED: usize = 40;

/// The enabled models an error lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Available {
    /// `provider/model`, catalog order, at most [`MAX_LISTED`].
    pub ids: Vec<String>,
    /// How many more there are.
    pub more: usize,
}

impl Available {
    pub fn of(catalog: &Catalog) -> Self {
        let all: Vec<String> = catalog
            .providers
            .iter()
            .flat_map(|p| {
                p.models
                    .iter()
                    .filter(|m| m.disabled.is_none())
                    .map(move |m| format!("{}/{}", p.id, m.id))
            })
            .collect();
        let more = all.len().saturating_sub(MAX_LISTED);
        Available {
            ids: all.into_iter().take(MAX_LISTED).collect(),
            more,
        }
    }
}

impl fmt::Display for Available {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ids.is_empty() {
            return f.write_str("no model is available; `zcode models` shows the catalog");
        }
        write!(f, "available: {}", self.ids.join(", "))?;
        if self.more > 0 {
            write!(f, " and {} more", self.more)?;
        }
        f.write_str("; `zcode models` lists every model")
    }
}

/// Why a reference does not resolve. `Display` is one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelRefError {
    #[error("empty model reference: write provider/model or a model id; {available}")]
    Empty { available: Available },
    #[error("unknown model '{reference}'; {available}")]
    UnknownModel {
        reference: String,
        available: Available,
    },
    #[error("provider '{provider}' has no model '{model}'; {available}")]
    UnknownInProvider {
        provider: String,
        model: String,
        available: Available,
    },
    #[error(
        "model '{model}' is offered by several providers ({}): write provider/model; {available}",
        .candidates.join(", ")
    )]
    Ambiguous {
        model: String,
        /// `provider/model` of each enabled match.
        candidates: Vec<String>,
        available: Available,
    },
    #[error("model '{reference}' is disabled: {reason}; {available}")]
    Disabled {
        reference: String,
        reason: String,
        available: Available,
    },
    #[error("model '{reference}' takes no reasoning level (got '{level}'); {available}")]
    NoReasoning {
        reference: String,
        level: String,
        available: Available,
    },
    #[error(
        "'{level}' is not a reasoning level of model '{reference}' (levels: {}); {available}",
        .levels.join(", ")
    )]
    InvalidReasoning {
        reference: String,
        level: String,
        levels: Vec<String>,
        available: Available,
    },
}

/// Resolves `reference` in `catalog`; `current_provider` breaks ties
/// between providers offering the same bare model id.
pub fn resolve_model_reference(
    catalog: &Catalog,
    reference: &str,
    current_provider: Option<&str>,
) -> Result<ResolvedModel, ModelRefError> {
    let available = || Available::of(catalog);
    let reference = reference.trim();
    let (name, level) = match reference.rsplit_once('$') {
        Some((name, level)) => (name.trim(), Some(level.trim())),
        None => (reference, None),
    };
    if name.is_empty() {
        return Err(ModelRefError::Empty {
            available: available(),
        });
    }
    let (provider, model) = find(catalog, name, current_provider)?;
    let full = format!("{}/{}", provider.id, model.id);
    if let Some(reason) = &model.disabled {
        return Err(ModelRefError::Disabled {
            reference: full,
            reason: reason.clone(),
            available: available(),
        });
    }
    let reasoning = match level {
        None => model.default_reasoning.clone(),
        Some(level) if model.reasoning_levels.is_empty() => {
            return Err(ModelRefError::NoReasoning {
                reference: full,
                level: level.to_string(),
                available: available(),
            });
        }
        Some(level) => match model
            .reasoning_levels
            .iter()
            .find(|l| l.eq_ignore_ascii_case(level))
        {
            Some(l) => Some(l.clone()),
            None => {
                return Err(ModelRefError::InvalidReasoning {
                    reference: full,
                    level: level.to_string(),
                    levels: model.reasoning_levels.clone(),
                    available: available(),
                });
            }
        },
    };
    Ok(ResolvedModel {
        provider_id: provider.id.clone(),
        model_id: model.id.clone(),
        reasoning,
    })
}

/// A provider's model by id: exact first, then ignoring ASCII case.
fn find_model<'a>(provider: &'a Provider, id: &str) -> Option<&'a Model> {
    provider.models.iter().find(|m| m.id == id).or_else(|| {
        provider
            .models
            .iter()
            .find(|m| m.id.eq_ignore_ascii_case(id))
    })
}

fn is_current(provider: &Provider, current: Option<&str>) -> bool {
    current.is_some_and(|c| provider.id.eq_ignore_ascii_case(c))
}

/// The model `name` means, disabled or not.
fn find<'a>(
    catalog: &'a Catalog,
    name: &str,
    current_provider: Option<&str>,
) -> Result<(&'a Provider, &'a Model), ModelRefError> {
    let mut prefixed = None;
    if let Some((p, m)) = name.split_once('/')
        && let Some(provider) = catalog.provider(p)
    {
        if let Some(model) = find_model(provider, m) {
            return Ok((provider, model));
        }
        prefixed = Some((provider, m));
    }

    let candidates: Vec<(&Provider, &Model)> = catalog
        .providers
        .iter()
        .filter_map(|p| find_model(p, name).map(|m| (p, m)))
        .collect();
    let enabled: Vec<(&Provider, &Model)> = candidates
        .iter()
        .copied()
        .filter(|(_, m)| m.disabled.is_none())
        .collect();
    let current = |list: &[(&'a Provider, &'a Model)]| {
        list.iter()
            .copied()
            .find(|(p, _)| is_current(p, current_provider))
    };
    match enabled.len() {
        1 => Ok(enabled[0]),
        0 => match current(&candidates).or_else(|| candidates.first().copied()) {
            // Only disabled entries: the caller reports why.
            Some(found) => Ok(found),
            None => Err(match prefixed {
                Some((provider, model)) => ModelRefError::UnknownInProvider {
                    provider: provider.id.clone(),
                    model: model.to_string(),
                    available: Available::of(catalog),
                },
                None => ModelRefError::UnknownModel {
                    reference: name.to_string(),
                    available: Available::of(catalog),
                },
            }),
        },
        _ => current(&enabled).ok_or_else(|| ModelRefError::Ambiguous {
            model: name.to_string(),
            candidates: enabled
                .iter()
                .map(|(p, m)| format!("{}/{}", p.id, m.id))
                .collect(),
            available: Available::of(catalog),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ProviderKind;

    fn model(id: &str) -> Model {
        Model {
            id: id.into(),
            context_window: Some(1000),
            reasoning_levels: Vec::new(),
            default_reasoning: None,
            disabled: None,
            stream: Default::default(),
            prices: None,
        }
    }

    fn provider(id: &str, models: Vec<Model>) -> Provider {
        Provider {
            id: id.into(),
            name: id.to_uppercase(),
            kind: ProviderKind::Openai,
            base_url: "http://localhost/v1".into(),
            api_key_env: None,
            api_key_optional: false,
            models,
        }
    }

    fn catalog() -> Catalog {
        let mut reasoner = model("Reasoner-1");
        reasoner.reasoning_levels = vec!["low".into(), "medium".into(), "high".into()];
        reasoner.default_reasoning = Some("medium".into());
        let mut old = model("old");
        old.disabled = Some("retired by the vendor".into());
        let mut twin_b = model("twin");
        twin_b.disabled = Some("no quota".into());
        Catalog {
            providers: vec![
                provider(
                    "alpha",
                    vec![
                        model("big-1"),
                        reasoner,
                        model("shared"),
                        old,
                        model("twin"),
                    ],
                ),
                provider("beta", vec![model("shared"), model("meta/llama-3"), twin_b]),
                provider("meta", vec![model("x")]),
            ],
        }
    }

    fn ok(reference: &str, current: Option<&str>) -> (String, Option<String>) {
        let r = resolve_model_reference(&catalog(), reference, current).unwrap();
        (r.reference(), r.reasoning)
    }

    fn err(reference: &str, current: Option<&str>) -> ModelRefError {
        resolve_model_reference(&catalog(), reference, current).unwrap_err()
    }

    #[test]
    fn exact_provider_and_model() {
        assert_eq!(ok("alpha/big-1", None), ("alpha/big-1".into(), None));
        assert_eq!(
            ok("beta/shared", Some("alpha")),
            ("beta/shared".into(), None)
        );
    }

    #[test]
    fn case_insensitive_with_catalog_spelling() {
        assert_eq!(ok("ALPHA/BIG-1", None).0, "alpha/big-1");
        assert_eq!(
            ok("reasoner-1", None),
            ("alpha/Reasoner-1".into(), Some("medium".into()))
        );
    }

    #[test]
    fn bare_id_in_one_provider() {
        assert_eq!(ok("big-1", None).0, "alpha/big-1");
        assert_eq!(ok("  big-1 ", None).0, "alpha/big-1");
    }

    #[test]
    fn bare_id_in_several_providers_uses_the_current_one() {
        assert_eq!(ok("shared", Some("beta")).0, "beta/shared");
        assert_eq!(ok("shared", Some("ALPHA")).0, "alpha/shared");
    }

    #[test]
    fn bare_id_in_several_providers_without_current_is_ambiguous() {
        for current in [None, Some("meta")] {
            match err("shared", current) {
                ModelRefError::Ambiguous { candidates, .. } => {
                    assert_eq!(candidates, vec!["alpha/shared", "beta/shared"]);
                }
                other => panic!("{other:?}"),
            }
        }
        let text = err("shared", None).to_string();
        assert!(text.contains("alpha/shared, beta/shared"), "{text}");
        assert!(text.contains("`zcode models`"), "{text}");
    }

    #[test]
    fn model_ids_with_a_slash() {
        // "meta" is a provider without that model: the whole text is a
        // model id of beta.
        assert_eq!(ok("meta/llama-3", None).0, "beta/meta/llama-3");
        assert_eq!(ok("beta/meta/llama-3", None).0, "beta/meta/llama-3");
        assert_eq!(ok("meta/x", None).0, "meta/x");
    }

    #[test]
    fn unknown_provider_prefix_is_an_unknown_model() {
        match err("gamma/big-1", None) {
            ModelRefError::UnknownModel { reference, .. } => assert_eq!(reference, "gamma/big-1"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn unknown_model_of_a_known_provider() {
        let e = err("alpha/nope", None);
        assert!(
            matches!(e, ModelRefError::UnknownInProvider { .. }),
            "{e:?}"
        );
        let text = e.to_string();
        assert!(
            text.contains("provider 'alpha' has no model 'nope'"),
            "{text}"
        );
        assert!(text.contains("alpha/big-1"), "{text}");
        assert!(
            !text.contains("alpha/old"),
            "disabled ones are not offered: {text}"
        );
        assert!(text.contains("`zcode models`"), "{text}");
    }

    #[test]
    fn unknown_bare_model() {
        let e = err("nope", None);
        assert!(matches!(e, ModelRefError::UnknownModel { .. }));
        assert!(
            e.to_string()
                .starts_with("unknown model 'nope'; available: alpha/big-1")
        );
    }

    #[test]
    fn empty_reference() {
        assert!(matches!(err("", None), ModelRefError::Empty { .. }));
        assert!(matches!(err("  $high", None), ModelRefError::Empty { .. }));
    }

    #[test]
    fn disabled_model_is_an_error_with_the_reason() {
        let e = err("alpha/old", None);
        assert_eq!(
            e.to_string().split(';').next().unwrap(),
            "model 'alpha/old' is disabled: retired by the vendor"
        );
        assert!(matches!(err("old", None), ModelRefError::Disabled { .. }));
        assert!(matches!(
            err("beta/twin", None),
            ModelRefError::Disabled { .. }
        ));
    }

    #[test]
    fn disabled_twin_does_not_count_for_ambiguity() {
        // beta's twin is disabled: bare "twin" means alpha's, even from beta.
        assert_eq!(ok("twin", None).0, "alpha/twin");
        assert_eq!(ok("twin", Some("beta")).0, "alpha/twin");
    }

    #[test]
    fn reasoning_level_suffix() {
        assert_eq!(
            ok("alpha/reasoner-1$HIGH", None),
            ("alpha/Reasoner-1".into(), Some("high".into()))
        );
        assert_eq!(ok("reasoner-1$low", None).1, Some("low".into()));
    }

    #[test]
    fn invalid_reasoning_level() {
        match err("reasoner-1$extreme", None) {
            ModelRefError::InvalidReasoning { level, levels, .. } => {
                assert_eq!(level, "extreme");
                assert_eq!(levels, vec!["low", "medium", "high"]);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            err("reasoner-1$", None),
            ModelRefError::InvalidReasoning { .. }
        ));
        let e = err("big-1$high", None);
        assert!(matches!(e, ModelRefError::NoReasoning { .. }), "{e:?}");
        assert!(e.to_string().contains("takes no reasoning level"));
    }

    #[test]
    fn listing_is_capped_at_forty() {
        let models = (0..50).map(|i| model(&format!("m{i:02}"))).collect();
        let catalog = Catalog {
            providers: vec![provider("p", models)],
        };
        let e = resolve_model_reference(&catalog, "zzz", None).unwrap_err();
        match &e {
            ModelRefError::UnknownModel { available, .. } => {
                assert_eq!(available.ids.len(), 40);
                assert_eq!(available.more, 10);
            }
            other => panic!("{other:?}"),
        }
        let text = e.to_string();
        assert!(text.contains("p/m39 and 10 more"), "{text}");
        assert!(!text.contains("p/m40"), "{text}");
    }

    #[test]
    fn empty_catalog() {
        let e = resolve_model_reference(&Catalog::default(), "x", None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown model 'x'; no model is available; `zcode models` shows the catalog"
        );
    }
}
