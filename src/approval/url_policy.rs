//! The permission decision for URLs a running call reaches without having
//! been asked about them (WebFetch's redirect targets): the call's own
//! decision inputs, kept from when it was approved, applied to another URL.

use crate::permission::check::Decision;
use crate::permission::declaration::ToolDeclaration;
use crate::permission::mode::ExecutionState;
use crate::permission::rules::RuleSet;
use crate::permission::service::PermissionService;
use crate::tools::UrlPermission;
use serde_json::json;

/// Deny, ask and allow rules, pre-approved domains and the mode, as they
/// were when the call started; hooks are not run again for a URL.
#[derive(Debug, Clone)]
pub struct CallUrlPolicy {
    service: PermissionService,
    rules: RuleSet,
    state: ExecutionState,
    tool: ToolDeclaration,
}

impl CallUrlPolicy {
    pub fn new(
        service: PermissionService,
        rules: RuleSet,
        state: ExecutionState,
        tool: ToolDeclaration,
    ) -> Self {
        Self {
            service,
            rules,
            state,
            tool,
        }
    }
}

impl UrlPermission for CallUrlPolicy {
    fn decide(&self, url: &url::Url) -> Decision {
        let input = json!({ "url": url.as_str() });
        self.service
            .evaluate(&self.tool, &input, self.state, &self.rules, None)
            .decision
    }
}
