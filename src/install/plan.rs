//! What an install asks consent for: the facts of a validated tree (capabilities,
//! build steps, UI, code, pip requirements) and aoe's rules for asking again.

use std::path::Path;

use crate::manifest::Dialect;
use crate::steps::Step;
use crate::validate::PluginReport;

/// What consent is asked for.
#[derive(Clone, Debug)]
pub struct Request {
    pub id: String,
    pub dialect: Dialect,
    pub version: String,
    pub source: String,
    pub commit: Option<String>,
    pub capabilities: Vec<String>,
    pub build_steps: Vec<String>,
    pub ui: Vec<String>,
    /// The plugin runs code inside the host (protoAgent modules, AWorld Python entrypoints).
    pub runs_code: bool,
    /// protoAgent `requires_pip`: hard requirements, then optional ones.
    pub pip: Vec<String>,
    pub optional_pip: Vec<String>,
    /// aoe: a `gh:` source at an explicit ref, or at the default branch of a repository with
    /// no release, is unverified, un-audited code: it always asks (aoe §17).
    pub unverified: bool,
}

impl Request {
    pub fn needs_consent(&self) -> bool {
        self.unverified
            || !self.capabilities.is_empty()
            || !self.build_steps.is_empty()
            || !self.ui.is_empty()
            || self.runs_code
    }
}

/// The consent request and build steps for a validated tree.
pub(super) fn describe(
    report: &PluginReport,
    tree: &Path,
    source: &str,
    commit: Option<&str>,
) -> (Request, Vec<Step>, Option<(String, bool)>) {
    let dialect = report.dialect.expect("validated");
    let id = report.outcome.id.clone().unwrap_or_default();
    let version = report.outcome.version.clone().unwrap_or_default();
    let mut req = Request {
        id,
        dialect,
        version,
        source: source.to_owned(),
        commit: commit.map(str::to_owned),
        capabilities: Vec::new(),
        build_steps: Vec::new(),
        ui: Vec::new(),
        runs_code: false,
        pip: Vec::new(),
        optional_pip: Vec::new(),
        unverified: false,
    };
    let facts = &report.outcome.facts;
    req.capabilities.clone_from(&facts.capabilities);
    req.ui.clone_from(&facts.ui);
    req.build_steps = facts.build.iter().map(|s| s.argv.join(" ")).collect();
    req.pip.clone_from(&facts.pip);
    req.optional_pip.clone_from(&facts.optional_pip);
    req.runs_code = dialect.runs_code_in_host(tree);
    (req, facts.build.clone(), facts.entrypoint.clone())
}

/// Whether an update must ask again: the capability set changed (and is not empty),
/// new files come with build steps, a changed manifest declares UI, or new code or
/// pip requirements appear.
pub(super) fn reconsent(
    before: &Request,
    after: &Request,
    manifest_changed: bool,
    tree_changed: bool,
) -> bool {
    let set = |v: &[String]| v.iter().cloned().collect::<std::collections::BTreeSet<_>>();
    (set(&before.capabilities) != set(&after.capabilities) && !after.capabilities.is_empty())
        || (tree_changed && !after.build_steps.is_empty())
        || (manifest_changed && !after.ui.is_empty())
        || (after.runs_code && !before.runs_code)
        || set(&before.pip) != set(&after.pip)
}

/// An aoe worker's runtime as shown in an update's review: `command` or
/// `release binary <asset>`; none for other hosts or without a runtime.
pub(super) fn runtime(report: &PluginReport) -> Option<String> {
    let facts = &report.outcome.facts;
    match (&facts.release, &facts.entrypoint) {
        (Some(r), _) => Some(format!("release binary {}", r.asset)),
        (None, Some(_)) => Some("command".to_owned()),
        (None, None) => None,
    }
}
