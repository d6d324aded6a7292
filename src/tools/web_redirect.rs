//! WebFetch's redirects, followed by the tool itself: where a redirect
//! points (parsed like every WebFetch URL) and whether the permission
//! decision lets the fetch go there.

use super::ToolContext;
use crate::permission::check::Behavior;
use crate::permission::web_url::{self, fetch_host};
use reqwest::Url;

/// The statuses a browser follows with a GET (the request is always one).
fn is_redirect(status: reqwest::StatusCode) -> bool {
    matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
}

/// Where a redirect response points, resolved against the URL that gave
/// it by the same WHATWG parser (relative paths, `//host`, backslashes),
/// and refused unless it is http(s) with a host. `None`: not a redirect,
/// or one without a `Location` (shown as the HTTP response it is).
pub(super) fn redirect_target(
    current: &Url,
    response: &reqwest::Response,
) -> Option<Result<Url, String>> {
    if !is_redirect(response.status()) {
        return None;
    }
    let location = response.headers().get(reqwest::header::LOCATION)?;
    let status = response.status().as_u16();
    let target = std::str::from_utf8(location.as_bytes())
        .map_err(|_| format!("{current} redirects ({status}) to a Location that is not UTF-8."))
        .and_then(|location| {
            current.join(location).map_err(|e| {
                format!("{current} redirects ({status}) to an invalid URL {location:?} ({e}).")
            })
        })
        .and_then(|next| {
            web_url::check_fetch_url(&next)
                .map(|()| next.clone())
                .map_err(|e| format!("{current} redirects ({status}) to {next}, which WebFetch cannot fetch: {e}."))
        });
    Some(target)
}

/// A redirect is followed only when the permission rules would allow
/// fetching its target now. A target they would ask about is followed when
/// it is on the host the call itself was approved for (an approval covers
/// its domain for this call, the way a rule does); any other target stops
/// the fetch with an error that says how to ask for it.
pub(super) fn check_redirect(
    first: &Url,
    current: &Url,
    next: &Url,
    ctx: &ToolContext,
) -> Result<(), String> {
    let host = fetch_host(next).unwrap_or_default();
    let same_host = fetch_host(first) == fetch_host(next);
    let (behavior, reason) = match &ctx.url_permission {
        Some(permission) => {
            let decision = permission.decide(next);
            (decision.behavior, decision.reason.into_owned())
        }
        None => (
            Behavior::Ask,
            "no permission rules are available to this call".to_string(),
        ),
    };
    match behavior {
        Behavior::Allow => Ok(()),
        Behavior::Ask if same_host => Ok(()),
        Behavior::Ask => Err(format!(
            "{current} redirects to {next}. The redirect was not followed: fetching from {host} \
             is not allowed without the user's permission ({reason}). To fetch it, call WebFetch \
             again with the url {next}; the user will be asked to allow {host}."
        )),
        Behavior::Deny => Err(format!(
            "{current} redirects to {next}. The redirect was not followed: fetching from {host} \
             is denied ({reason})."
        )),
    }
}
